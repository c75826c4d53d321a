#!/usr/bin/env bash
# Faults: daemons killed with SIGKILL, a torn and a damaged event log, bad frames and
# bad requests, a second mbatchd. Nothing acknowledged may be lost; nothing refused
# may change state.
#   faults_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2"
# Small MAX_JOB_NUM: snapshots and log switches happen during the submission stream, so
# recovery after kill -9 goes through snapshot + log (the stream waits for one).
echo "MAX_JOB_NUM = 100" >>"$PARAMS"
sed -i 's/^End Parameters//' "$PARAMS" && echo "End Parameters" >>"$PARAMS"
cluster_start "$TEST_DIR" "$BIN" || exit 1
LOGDIR="$TEST_DIR/work/quickstart/logdir"
mbd_port() { sed -n 's/^LSB_MBD_PORT=//p' "$TEST_DIR/conf/lsf.conf"; }
restart_mbatchd() {
  LSF_ENVDIR="$TEST_DIR/conf" "$BIN/mbatchd" --host-name hostA --listen 127.0.0.1 >>"$TEST_DIR/log/mbatchd.out" 2>&1 &
  echo $! >"$TEST_DIR/mbatchd.pid"
  wait_for 10 lsid
}

# --- a second mbatchd names the holder of the lock and exits
out=$(timeout 10 "$BIN/mbatchd" --host-name hostA --listen 127.0.0.1 2>&1)
check "second mbatchd exits non-zero" [ $? != 0 ]
check "second mbatchd names the lock holder" bash -c "grep -q 'held by process $(cat "$TEST_DIR/mbatchd.pid")' <<<'$out'"

# --- bad frames and bad requests change nothing
before=$(job_count)
raw() {  # bytes (printf format) -> the reply's printable text
  exec 3<>"/dev/tcp/127.0.0.1/$(mbd_port)"
  printf "$1" >&3
  timeout 5 cat <&3 | tr -cd '[:print:]'
  exec 3>&-
}
out=$(raw '\x7f\xff\xff\xff')
check "oversized frame: clear error" grep -q 'frame of 2147483647 bytes exceeds the maximum' <<<"$out"
out=$(raw '\x00\x00\x00\x05\xff\xff\xff\xff\xff')
check "malformed frame: clear error" grep -q 'malformed request frame' <<<"$out"
# protocol_version=1 and field 99 (unknown to this daemon): an unknown request type
out=$(raw '\x00\x00\x00\x05\x08\x01\x9a\x06\x00')
check "unknown request type: clear error" grep -q 'unknown request type' <<<"$out"
out=$(raw '\x00\x00\x00\x02\x08\x07')
check "protocol version mismatch: clear error" grep -q 'protocol version 7 is not supported' <<<"$out"
# A frame that never completes must not block anyone.
exec 4<>"/dev/tcp/127.0.0.1/$(mbd_port)"
printf '\x00\x00\x01\x00\x08' >&4
check "daemon serves others during a short read" bash -c "timeout 5 lsid >/dev/null"
exec 4>&-
check "bad option" bash -c "bsub -Z true 2>&1 | grep -q 'Job not submitted.'"
check "bad resource requirement" bash -c "bsub -R 'select[mem>' true 2>&1 | grep -q '^Bad resource requirement syntax: .*Job not submitted.\$'"
check "unknown queue" bash -c "bsub -q nosuch true 2>&1 | grep -qx 'nosuch: No such queue. Job not submitted.'"
check "more slots than the cluster" bash -c "bsub -n 13 true 2>&1 | grep -qx 'Too many processors requested. Job not submitted.'"
check "unknown host" bash -c "bsub -m hostZ true 2>&1 | grep -qx 'hostZ: Bad host name, host group name or cluster name. Job not submitted.'"
check "dependency on no job" bash -c "bsub -w 'done(4242)' true 2>&1 | grep -qx '4242: No matching job found. Job not submitted.'"
check "refused requests changed nothing" [ "$(job_count)" = "$before" ]
check "mbatchd still serves" bash -c "lsid >/dev/null"

# --- kill -9 mbatchd under a stream of submissions
rm -f "$TEST_DIR/stop"
# Runs until the crash, however long the stream takes.
long=$(submit -o /dev/null "while [ ! -e '$TEST_DIR/stop' ]; do sleep 0.2; done")
wait_for 10 state_is "$long" RUN
: >"$TEST_DIR/acked"
submitters=""
for c in 1 2 3 4; do
  (while [ ! -e "$TEST_DIR/stop" ]; do
    bsub -o /dev/null true 2>/dev/null | sed -n 's/^Job <\([0-9]*\)>.*/\1/p'
  done >>"$TEST_DIR/acked.$c") &
  submitters="$submitters $!"
done
acked_count() { cat "$TEST_DIR"/acked.* 2>/dev/null | wc -l; }
# The crash comes once a snapshot was taken (MAX_JOB_NUM jobs of the stream finished)
# and submissions were acknowledged after it, however slowly this machine goes: recovery
# then needs both the snapshot and the log after it.
check "a snapshot was taken during the stream" wait_for 120 test -s "$LOGDIR/lsb.snapshot"
after_snapshot=$(($(acked_count) + 20))
check "submissions acknowledged after the snapshot" wait_for 60 bash -c "[ \$(cat '$TEST_DIR'/acked.* | wc -l) -ge $after_snapshot ]"
kill -9 "$(cat "$TEST_DIR/mbatchd.pid")"
touch "$TEST_DIR/stop"
wait $submitters
cat "$TEST_DIR"/acked.* >"$TEST_DIR/acked"
check "some submissions were acknowledged before the crash" [ "$(wc -l <"$TEST_DIR/acked")" -gt 0 ]
restart_mbatchd
check "mbatchd restarts after kill -9" bash -c "lsid >/dev/null"
bjobs -a -u all 2>/dev/null | awk 'NR>1 {print $1}' | sort >"$TEST_DIR/known"
check "every acknowledged job exists after recovery" bash -c "[ -z \"\$(sort '$TEST_DIR/acked' | comm -23 - '$TEST_DIR/known')\" ]"
check "each exactly once" bash -c "[ -z \"\$(uniq -d '$TEST_DIR/known')\" ]"
check "job running during the crash ends DONE" wait_for 20 state_is "$long" DONE
check "recovered jobs all finish" wait_for 120 bash -c "[ -z \"\$(bjobs -u all 2>/dev/null | awk 'NR>1')\" ]"

# --- kill -9 an sbatchd while its jobs run, then restart it
badmin hclose hostB hostC >/dev/null 2>&1
ids=""
for i in 1 2 3; do ids="$ids $(submit -o "$TEST_DIR/out/sbd.%J" 'sleep 3; echo finished')"; done
for id in $ids; do wait_for 10 state_is "$id" RUN; done
kill -9 "$(cat "$TEST_DIR/sbatchd.hostA.pid")"
sleep 0.5
cluster_start_sbatchd "$TEST_DIR" "$BIN" hostA
for id in $ids; do check "job $id regained and DONE after sbatchd restart" wait_for 20 state_is "$id" DONE; done
check "regained jobs' output complete" bash -c "for id in $ids; do grep -qx finished '$TEST_DIR/out/sbd.'\$id || exit 1; done"
id=$(submit -o /dev/null 'sleep 30')
rr=$(submit -r -o /dev/null 'sleep 30')
wait_for 10 bash -c "[ \"\$(job_state $id)\$(job_state $rr)\" = RUNRUN ]"
kill -9 "$(cat "$TEST_DIR/sbatchd.hostA.pid")"
check "silent host becomes unreach" wait_for 10 bash -c "bhosts hostA | grep -q unreach"
check "its running job shows UNKWN" state_is "$id" UNKWN
check "then unavail" wait_for 20 bash -c "bhosts hostA | grep -q unavail"
check "the rerunnable job lost with the host is requeued" wait_for 5 state_is "$rr" PEND
badmin hopen hostB >/dev/null 2>&1
check "... and reruns on another host" wait_for 10 bash -c "[ \"\$(bjobs -u all $rr | awk 'NR==2 {print \$3, \$6}')\" = 'RUN hostB' ]"
bkill "$rr" >/dev/null
cluster_start_sbatchd "$TEST_DIR" "$BIN" hostA
check "host ok again after restart" wait_for 10 bash -c "bhosts hostA | grep -q ' ok '"
check "the job is RUN again" state_is "$id" RUN
bkill "$id" >/dev/null
check "job killed after the host came back" wait_for 10 state_is "$id" EXIT
badmin hopen >/dev/null 2>&1

# --- a torn last record is dropped, and mbatchd says so
n_before=$(job_count)
kill -9 "$(cat "$TEST_DIR/mbatchd.pid")"
sleep 0.2
printf '\x40\x00\x00\x00\x12\x34' >>"$LOGDIR/lsb.events"
restart_mbatchd
check "recovers after a torn record" bash -c "lsid >/dev/null"
check "says it dropped a partial record" grep -q 'dropped a partial record' "$TEST_DIR"/log/mbatchd.log.hostA
check "no job lost with the torn record" [ "$(job_count)" = "$n_before" ]
after=$(submit -o /dev/null true)
check "accepts jobs after recovery" [ -n "$after" ]

# --- a damaged record in the middle stops recovery with its offset
# A job's end may start a new lsb.events (a snapshot after MAX_JOB_NUM finished jobs),
# so once that job is done, held jobs (which never end) write the records to damage.
check "the job after recovery is done" wait_for 20 state_is "$after" DONE
for i in 1 2 3 4 5; do submit -H -o /dev/null true >/dev/null; done
bjobs -a -u all 2>/dev/null | awk 'NR>1 {print $1}' | sort -u >"$TEST_DIR/before_damage"
kill -9 "$(cat "$TEST_DIR/mbatchd.pid")"
sleep 0.2
size=$(stat -c %s "$LOGDIR/lsb.events")
check "damaged log: the log holds the held jobs' records" [ "$size" -gt 200 ]
printf '\xde\xad' | dd of="$LOGDIR/lsb.events" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
out=$(timeout 10 "$BIN/mbatchd" --host-name hostA --listen 127.0.0.1 2>&1)
rc=$?
# 124 would be timeout's: mbatchd running, not refusing.
check "damaged log: mbatchd refuses to start" [ "$rc" != 0 -a "$rc" != 124 ]
check "damaged log: error names the offset" grep -q 'damaged record at offset [0-9]*' <<<"$out"
check "damaged log: error points at --salvage" grep -q 'mbatchd --salvage' <<<"$out"

# --- mbatchd --salvage keeps the records before the damage and says what it lost
out=$(timeout 30 "$BIN/mbatchd" --salvage 2>&1)
check "salvage: succeeds" [ $? = 0 ]
echo "$out" | sed 's/^/    /'
check "salvage: moves the rest aside" bash -c "ls '$LOGDIR'/lsb.events.damaged.* >/dev/null"
check "salvage: names what it could not recover" grep -q '^mbatchd: not recovered: ' <<<"$out"
lost=$(sed -n 's/^mbatchd: jobs whose events were not recovered: //p' <<<"$out")
check "salvage: names the jobs it could not recover" [ -n "$lost" ]
restart_mbatchd
check "salvage: mbatchd starts afterwards" bash -c "lsid >/dev/null"
bjobs -a -u all 2>/dev/null | awk 'NR>1 {print $1}' | sort -u >"$TEST_DIR/after_salvage"
for i in $lost; do echo "$i"; done | sort -u >"$TEST_DIR/lost"
# The damage may fall in a job's only record (a takeover starts lsb.events afresh, so the
# log is short): no job can be named from unreadable bytes, and salvage says there were
# some. At most that one job, just before the first one named, may then be missing.
missing=$(comm -23 "$TEST_DIR/before_damage" "$TEST_DIR/lost" | comm -23 - "$TEST_DIR/after_salvage")
first_named=$(sort -n "$TEST_DIR/lost" | head -1)
check "salvage: every job whose events were all kept is back" bash -c \
  "[ -z '$missing' ] || { grep -q 'hold no readable record' <<<\"\$1\" && [ \$(wc -w <<<'$missing') = 1 ] && [ '$missing' = \$(($first_named - 1)) ]; }" \
  _ "$out"
top=$(sort -n "$TEST_DIR/before_damage" | tail -1)
new_id=$(submit -H -o /dev/null true)
check "salvage: no id is given again" bash -c "[ -n '$new_id' ] && [ '$new_id' -gt '$top' ]"

harness_done
