#!/usr/bin/env bash
# The event log on a full disk: the log directory is a small tmpfs that fills up under a
# stream of submissions. Refused submissions name the cause and change nothing; space
# coming back brings service back by itself; after kill -9 every acknowledged job is
# there exactly once, every refused one is not, and no job id was given twice.
#   disk_full_test.sh BIN ROOT
# Needs root (for the tmpfs), in a mount namespace of its own so the mount goes with it.
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
  echo "skipped: needs root and unshare for a tmpfs"
  exit 77
fi
if [ -z "${LSFSCHED_DISK_FULL_NS:-}" ]; then
  LSFSCHED_DISK_FULL_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2"
LOGDIR="$TEST_DIR/work/quickstart/logdir"
mkdir -p "$LOGDIR"
mount -t tmpfs -o size=8m,mode=0700 tmpfs "$LOGDIR" || { echo "skipped: cannot mount a tmpfs"; exit 77; }
trap 'cluster_stop "$TEST_DIR" >/dev/null 2>&1; umount "$LOGDIR" 2>/dev/null; harness_cleanup' EXIT
cluster_start "$TEST_DIR" "$BIN" || exit 1
MBD_LOG="$TEST_DIR/log/mbatchd.log.hostA"

: >"$TEST_DIR/acked"
: >"$TEST_DIR/refused"
# One submission: its id to `acked`, or its exit status and message to `refused`.
submit_one() {
  local out rc id
  out=$(bsub -o /dev/null true 2>&1)
  rc=$?
  id=$(sed -n 's/^Job <\([0-9]*\)> is submitted.*/\1/p' <<<"$out")
  if [ -n "$id" ]; then echo "$id" >>"$TEST_DIR/acked"; else echo "$rc $out" >>"$TEST_DIR/refused"; fi
}
refused_count() { wc -l <"$TEST_DIR/refused"; }

for i in $(seq 1 10); do submit_one; done
check "submissions are taken while there is room" [ "$(refused_count)" = 0 ]

# --- the file system fills up under the stream
# All but 48 KiB taken by another file: a few hundred records' worth.
avail=$(df --output=avail -B1 "$LOGDIR" | tail -1)
fallocate -l $((avail - 49152)) "$LOGDIR/filler"
for i in $(seq 1 2000); do
  submit_one
  [ "$(refused_count)" -ge 20 ] && break
done
acked_while_full=$(wc -l <"$TEST_DIR/acked")
echo "    $acked_while_full submissions taken, $(refused_count) refused"
check "submissions were taken until the disk was full" [ "$acked_while_full" -gt 10 ]
check "then refused" [ "$(refused_count)" -ge 20 ]
check "bsub exits non-zero when refused" bash -c "! grep -qv '^[1-9]' '$TEST_DIR/refused'"
check "the refusal names the cause" \
  bash -c "! grep -qv 'cannot write the event log: No space left on device. Job not submitted.' '$TEST_DIR/refused'"
check "refusals are logged once, not per request" [ "$(grep -c 'refusing changes' "$MBD_LOG")" -lt 5 ]
check "mbatchd still answers queries" bash -c "bjobs -a -u all >/dev/null"
check "refused submissions are not jobs" [ "$(job_count)" = "$acked_while_full" ]
check "other changes are refused too" \
  bash -c "badmin hclose hostC 2>&1 | grep -q 'cannot write the event log: No space left on device; nothing was changed'"

# --- space comes back: so does service, with no one's help
rm -f "$LOGDIR/filler"
check "submissions are taken again once there is room" \
  wait_for 30 bash -c "bsub -o /dev/null true 2>/dev/null | sed -n 's/^Job <\([0-9]*\)> is submitted.*/\1/p' >>'$TEST_DIR/acked'; [ \$(wc -l <'$TEST_DIR/acked') -gt $acked_while_full ]"
check "mbatchd logs that changes are taken again" wait_for 10 grep -q 'the event log has room again' "$MBD_LOG"
refused_before=$(refused_count)
for i in $(seq 1 20); do submit_one; done
check "every submission after that is taken" [ "$(refused_count)" = "$refused_before" ]

# --- kill -9 and recovery from what is on disk
restart_mbatchd
check "mbatchd recovers the log written around the full disk" bash -c "lsid >/dev/null"
bjobs -a -u all 2>/dev/null | awk 'NR>1 {print $1}' | sort >"$TEST_DIR/known"
sort "$TEST_DIR/acked" >"$TEST_DIR/acked.sorted"
check "every acknowledged job is there, and nothing else" cmp -s "$TEST_DIR/acked.sorted" "$TEST_DIR/known"
check "each exactly once" bash -c "[ -z \"\$(uniq -d '$TEST_DIR/known')\" ]"
check "no job id was given twice" bash -c "[ -z \"\$(sort '$TEST_DIR/acked' | uniq -d)\" ]"
top=$(sort -n "$TEST_DIR/acked" | tail -1)
next=$(submit -o /dev/null true)
check "the next id is above every id given before" bash -c "[ -n '$next' ] && [ '$next' -gt '$top' ]"
check "every job ends" wait_for 120 bash -c "[ -z \"\$(bjobs -u all 2>/dev/null | awk 'NR>1')\" ]"
check "the log files are the owner's only" \
  bash -c "[ \"\$(stat -c %a '$LOGDIR/lsb.events' '$LOGDIR/lsb.acct' | sort -u)\" = 600 ]"

# --- a write that fails anyway: mbatchd starts again from what is durable, and rewrites
# the log before it takes changes
# A pack whose records outrun the 4 MiB kept ahead of lsb.events, on a file system with
# no room left: no reserve prevents that, only what comes after can be right.
bjobs -a -u all 2>/dev/null | awk 'NR>1 {print $1}' | sort >"$TEST_DIR/before_pack"
big="true $(head -c 100000 /dev/zero | tr '\0' x)"
for i in $(seq 1 60); do echo "-o /dev/null $big"; done >"$TEST_DIR/pack"
avail=$(df --output=avail -B1 "$LOGDIR" | tail -1)
[ "$avail" -gt 0 ] && fallocate -l "$avail" "$LOGDIR/filler"
pid=$(cat "$TEST_DIR/mbatchd.pid")
snapshot_before=$(stat -c %Y.%i "$LOGDIR/lsb.snapshot" 2>/dev/null || echo none)
out=$(bsub -pack "$TEST_DIR/pack" 2>&1)
rc=$?
check "the pack is refused" [ "$rc" != 0 ]
check "... naming the cause" grep -q 'cannot write the event log: No space left on device' <<<"$out"
check "mbatchd restarts itself after the failed write" \
  wait_for 30 grep -q 'restarting, so that the state is recovered from what is durable' "$MBD_LOG"
check "... in the same process" kill -0 "$pid"
check "... and answers again" wait_for 30 lsid
bjobs -a -u all 2>/dev/null | awk 'NR>1 {print $1}' | sort >"$TEST_DIR/after_pack"
check "no job of the refused pack is there; every earlier one is" cmp -s "$TEST_DIR/before_pack" "$TEST_DIR/after_pack"
out=$(bsub -o /dev/null true 2>&1)
check "changes are refused while the disk is still full" \
  grep -q 'cannot write the event log: No space left on device (writing a fresh snapshot after a failed write)' <<<"$out"
check "... and the snapshot is not yet rewritten" \
  [ "$(stat -c %Y.%i "$LOGDIR/lsb.snapshot" 2>/dev/null || echo none)" = "$snapshot_before" ]
# (Counted: the restart after the kill -9 above wrote one too, as every start after a
# crash does: see master_role.h.)
fresh_before=$(grep -c 'lsb.snapshot and a new lsb.events hold the recovered state' "$MBD_LOG")
rm -f "$LOGDIR/filler"
check "a fresh snapshot is written once there is room" \
  wait_for 30 bash -c "[ \$(grep -c 'lsb.snapshot and a new lsb.events hold the recovered state' '$MBD_LOG') -gt $fresh_before ]"
check "... as a new lsb.snapshot" \
  [ "$(stat -c %Y.%i "$LOGDIR/lsb.snapshot" 2>/dev/null || echo none)" != "$snapshot_before" ]
after_fresh=$(submit -o /dev/null true)
check "then changes are taken again, with no one's help" [ -n "$after_fresh" ]
echo "$after_fresh" >>"$TEST_DIR/after_pack"
sort -o "$TEST_DIR/after_pack" "$TEST_DIR/after_pack"
restart_mbatchd
check "mbatchd recovers from the fresh snapshot and log" wait_for 20 lsid
bjobs -a -u all 2>/dev/null | awk 'NR>1 {print $1}' | sort >"$TEST_DIR/after_restart"
check "every job is still there, the new one too" cmp -s "$TEST_DIR/after_pack" "$TEST_DIR/after_restart"

harness_done
