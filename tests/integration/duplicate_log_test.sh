#!/usr/bin/env bash
# The duplicate event log (LSB_LOCALDIR) with three master candidates on this machine
# (conf-examples/failover). hostA keeps the primary log in a local directory and the
# replica in LSB_SHAREDIR/<cluster>/logdir, here a small tmpfs the test mounts:
#  (a) both copies hold every acknowledged submission;
#  (b) the share made read-only: submissions are still taken, bhist still answers, and
#      badmin showstatus and mbatchd's log say the replica is behind;
#  (c) the share writable again: the replica catches up by itself;
#  (d) hostA fails: hostB takes over from the replica and every job is there;
#  (e) hostA back and hostB failed: hostA takes over, copies the shared log (newer
#      than its own) to LSB_LOCALDIR first, and every job is there.
#   duplicate_log_test.sh BIN ROOT
# Needs root (for the tmpfs), in a mount namespace of its own so the mount goes with it.
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
  echo "skipped: needs root and unshare for a tmpfs"
  exit 77
fi
if [ -z "${LSFSCHED_DUPLOG_NS:-}" ]; then
  LSFSCHED_DUPLOG_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2" failover
SHARE="$TEST_DIR/work/failover/logdir"
LOCAL="$TEST_DIR/local"
mkdir -p "$SHARE" "$LOCAL"
mount -t tmpfs -o size=8m,mode=0700 tmpfs "$SHARE" || { echo "skipped: cannot mount a tmpfs"; exit 77; }
trap 'cluster_stop "$TEST_DIR" >/dev/null 2>&1; umount "$SHARE" 2>/dev/null; harness_cleanup' EXIT
echo "LSB_LOCALDIR=$LOCAL" >>"$TEST_DIR/conf/lsf.conf"
cluster_start "$TEST_DIR" "$BIN" || { echo "cluster did not start"; exit 1; }
MBD_LOG="$TEST_DIR/log/mbatchd.log.hostA"
same_copies() { cmp -s "$LOCAL/lsb.events" "$SHARE/lsb.events" && cmp -s "$LOCAL/lsb.acct" "$SHARE/lsb.acct"; }
export LOCAL SHARE
export -f same_copies

: >"$TEST_DIR/acked"
submit_some() {  # N
  local i id
  for i in $(seq 1 "$1"); do
    id=$(submit -o /dev/null true) && [ -n "$id" ] && echo "$id" >>"$TEST_DIR/acked"
  done
}

# --- (a) in step
submit_some 5
check "(a) submissions are taken" [ "$(wc -l <"$TEST_DIR/acked")" = 5 ]
check "(a) the primary is in LSB_LOCALDIR" [ -s "$LOCAL/lsb.events" ]
# Jobs still end meanwhile: a round may be between its two copies at any one moment.
check "(a) the replica holds the same bytes" wait_for 10 same_copies
check "(a) showstatus says it is duplicated and up to date" \
  bash -c "badmin showstatus | grep -Eq '^ +Event log: +$LOCAL \(duplicated to $SHARE: up to date\)\$'"
check "(a) mbatchd's log says so" grep -q "is duplicated to $SHARE: up to date" "$MBD_LOG"

# --- (b) the share read-only
# (retried: a lease renewal may hold a temp file open for a moment)
check "(b) the share can be made read-only (nothing holds it open for writing)" \
  wait_for 5 mount -o remount,ro "$SHARE"
before=$(wc -l <"$TEST_DIR/acked")
submit_some 10
during=$(tail -1 "$TEST_DIR/acked")
check "(b) submissions are still taken" [ "$(wc -l <"$TEST_DIR/acked")" = $((before + 10)) ]
check "(b) showstatus says the replica is behind, and why" \
  bash -c "badmin showstatus | grep -Eq '^ +Event log: +$LOCAL \(duplicated to $SHARE: behind since .*Read-only file system\)\$'"
check "(b) mbatchd's log says so once" [ "$(grep -c "replica $SHARE is behind" "$MBD_LOG")" = 1 ]
check "(b) bhist reads the log through mbatchd" bash -c "bhist -l $during | grep -q 'Submitted from host'"
check "(b) bacct too" bash -c "bacct >/dev/null"
check "(b) the replica does not hold the new jobs" bash -c "! same_copies"

# --- (c) the share back
check "(c) the share is writable again" mount -o remount,rw "$SHARE"
check "(c) the replica catches up by itself" wait_for 20 same_copies
check "(c) showstatus says it is up to date" wait_for 10 bash -c "badmin showstatus | grep -Eq 'duplicated to .*: up to date\)\$'"
check "(c) mbatchd's log says so" wait_for 10 bash -c "[ \$(grep -c 'is duplicated to $SHARE: up to date' '$MBD_LOG') = 2 ]"
submit_some 3
check "(c) and follows again" wait_for 10 same_copies

# --- (d) hostA fails: hostB recovers from the replica
cluster_fail_host "$TEST_DIR" hostA
check "(d) hostB takes over in term 2" wait_for 60 bash -c "[ -f '$SHARE/lsb.master.2' ]"
check "(d) the new master answers" wait_for 60 bash -c "lsid | grep -qx 'My master name is hostB'"
sort "$TEST_DIR/acked" >"$TEST_DIR/acked.sorted"
bjobs -a -u all -noheader -o jobid 2>/dev/null | sort >"$TEST_DIR/known"
echo "# $(wc -l <"$TEST_DIR/acked") submissions acknowledged, $(wc -l <"$TEST_DIR/known") jobs on hostB"
check "(d) every acknowledged job is on the new master" \
  bash -c "[ -z \"\$(comm -23 '$TEST_DIR/acked.sorted' '$TEST_DIR/known')\" ]"
check "(d) hostB does not duplicate: its log is LSB_SHAREDIR's alone" \
  bash -c "badmin showstatus | grep -Eq '^ +Event log: +$SHARE\$'"
next=$(submit -o /dev/null true)
check "(d) a new submission gets an id above every earlier one" \
  bash -c "[ -n '$next' ] && [ '$next' -gt \$(sort -n '$TEST_DIR/known' | tail -1) ]"
[ -n "$next" ] && echo "$next" >>"$TEST_DIR/acked"

# --- (e) hostA back, hostB fails: hostA takes over again, from the shared copy, which is
# newer than its own
cluster_revive_host "$TEST_DIR" "$BIN" hostA
check "(e) hostA's sbatchd is back" wait_for 30 bash -c "bhosts hostA | grep -q ' ok '"
cluster_fail_host "$TEST_DIR" hostB
check "(e) hostA takes over in term 3" wait_for 60 bash -c "[ -f '$SHARE/lsb.master.3' ] && grep -q hostA '$SHARE/lsb.master.3'"
check "(e) the new master answers" wait_for 60 bash -c "lsid | grep -qx 'My master name is hostA'"
check "(e) its log says it copied the newer shared log first" \
  grep -q "the event log in $SHARE .* is newer than $LOCAL" "$MBD_LOG"
sort "$TEST_DIR/acked" >"$TEST_DIR/acked.sorted"
bjobs -a -u all -noheader -o jobid 2>/dev/null | sort >"$TEST_DIR/known"
check "(e) every acknowledged job is there, hostB's too" \
  bash -c "[ -z \"\$(comm -23 '$TEST_DIR/acked.sorted' '$TEST_DIR/known')\" ]"
check "(e) and it duplicates again, up to date" \
  wait_for 10 bash -c "badmin showstatus | grep -Eq '^ +Event log: +$LOCAL \(duplicated to $SHARE: up to date\)\$'"
harness_done
