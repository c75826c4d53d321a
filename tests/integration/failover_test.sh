#!/usr/bin/env bash
# Master failover among three candidates (conf-examples/failover), all on this machine,
# each virtual host on its own loopback address:
#  (a) the master host dies (every process of it, kill -9) during a stream of
#      submissions from several clients: hostB's sbatchd starts mbatchd, which takes
#      term 2; every acknowledged submission is there exactly once, no job id is used
#      twice, and a job running on another host keeps running and ends DONE;
#  (b) the new master is paused past the takeover time: hostC takes term 3; continued,
#      the paused mbatchd acknowledges nothing more, steps down (exit 3) and its
#      sbatchd goes on as a candidate;
#  (c) hostA comes back: it does not take the role from the live master by itself;
#      badmin mbdrestart on the master hands it back to hostA, the first candidate up.
#   failover_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2" failover
# sbatchds report every 30 s here, as by default: after a takeover they must find the
# new master by its lease, not by their next report.
sed -i 's/^SBD_SLEEP_TIME.*/SBD_SLEEP_TIME = 30/' "$PARAMS"
LOGDIR=$(ls -d "$TEST_DIR"/work/*/logdir 2>/dev/null | head -1)
[ -n "$LOGDIR" ] || LOGDIR="$TEST_DIR/work/failover/logdir"

cluster_start "$TEST_DIR" "$BIN" || { echo "cluster did not start"; exit 1; }
master_term() { ls "$LOGDIR" | sed -n 's/^lsb\.master\.\([0-9]*\)$/\1/p' | sort -n | tail -1; }
master_host() { awk '{print $2}' "$LOGDIR/lsb.master.$(master_term)" 2>/dev/null; }
check "hostA is master in term 1" bash -c "[ '$(master_term)' = 1 ] && [ '$(master_host)' = hostA ]"
check "lsid names the master" bash -c "lsid | grep -qx 'My master name is hostA'"
check "the log directory, terms included, is root's only" bash -c "[ \$(stat -c %a '$LOGDIR') = 700 ]"

# A job on hostB that must live through both takeovers.
long=$(submit -m hostB -o "$TEST_DIR/out/long.out" 'sleep 25; echo survived')
check "the long job runs on hostB" wait_for 30 state_is "$long" RUN

# --- (a) kill hostA while four clients submit
submitter() {  # N: submits until told to stop, logging the ids it was given
  local n="$1" out
  while [ ! -f "$TEST_DIR/stop" ]; do
    out=$(bsub -o /dev/null true 2>/dev/null) && echo "$out" | sed -n 's/^Job <\([0-9]*\)> is submitted.*/\1/p'
  done >"$TEST_DIR/acked.$n"
}
submitters=""
for n in 1 2 3 4; do
  submitter "$n" &
  submitters+=" $!"
done
sleep 2
started=$(date +%s%N)
cluster_fail_host "$TEST_DIR" hostA
check "(a) hostB takes over in term 2" wait_for 60 bash -c "[ \"\$(ls '$LOGDIR' | grep -cx 'lsb.master.2')\" = 1 ]"
check "(a) the new master answers" wait_for 60 bash -c "lsid | grep -qx 'My master name is hostB'"
took=$(( ($(date +%s%N) - started) / 1000000 ))
echo "# takeover: kill -9 of hostA to the new master answering: $took ms"
check "(a) hostB and hostC register with the new master at once, not at their next report" \
  wait_for 10 bash -c "bhosts hostB | grep -q ' ok ' && bhosts hostC | grep -q ' ok '"
sleep 2
touch "$TEST_DIR/stop"
wait $submitters
cat "$TEST_DIR"/acked.* | sort >"$TEST_DIR/acked"  # as comm wants it
echo "# $(wc -l <"$TEST_DIR/acked") submissions acknowledged"
check "(a) submissions were acknowledged before and after" bash -c "[ \$(wc -l <'$TEST_DIR/acked') -ge 10 ]"
check "(a) no id was given twice" bash -c "[ -z \"\$(uniq -d '$TEST_DIR/acked')\" ]"
bjobs -a -u all -noheader -o jobid 2>/dev/null | sort >"$TEST_DIR/known"
check "(a) every acknowledged submission is on the new master" \
  bash -c "[ -z \"\$(comm -23 '$TEST_DIR/acked' '$TEST_DIR/known')\" ]"
check "(a) and each job only once" bash -c "[ -z \"\$(uniq -d '$TEST_DIR/known')\" ]"
check "(a) the long job still runs" state_is "$long" RUN
check "(a) badmin showstatus names the candidates and the term" bash -c \
  "badmin showstatus | grep -Eq '^ +Master candidates: +hostA hostB hostC\$' && badmin showstatus | grep -Eq '^ +Master term: +2 since '"
next=$(submit -o /dev/null true)
check "(a) a new submission gets an id above every earlier one" \
  bash -c "[ -n '$next' ] && [ '$next' -gt \$(sort -n '$TEST_DIR/known' | tail -1) ]"

# --- (b) pause the new master's host past the takeover time, then continue it
B_MBD=$(pgrep -f -- "mbatchd --envdir $TEST_DIR.* --host-name hostB" | head -1)
check "(b) hostB's sbatchd started an mbatchd" [ -n "$B_MBD" ]
cluster_pause_host "$TEST_DIR" hostB
check "(b) hostC takes over in term 3" wait_for 60 bash -c "[ \"\$(ls '$LOGDIR' | grep -cx 'lsb.master.3')\" = 1 ]"
check "(b) the new master answers" wait_for 60 bash -c "lsid | grep -qx 'My master name is hostC'"
during=$(submit -o /dev/null true)
check "(b) hostC's master takes submissions" [ -n "$during" ]
cluster_resume_host "$TEST_DIR" hostB
check "(b) the paused master steps down once continued" \
  wait_for 30 bash -c "! kill -0 $B_MBD 2>/dev/null"
check "(b) and says why in its log" \
  grep -q "stepping down: this mbatchd's term 2 was taken over by hostC (term 3)" "$TEST_DIR/log/mbatchd.log.hostB"
after=$(submit -o /dev/null true)
check "(b) submissions go on on hostC" bash -c "[ -n '$after' ] && [ '$after' -gt '$during' ]"
check "(b) the job taken while hostB was paused is there" bash -c "bjobs -a '$during' >/dev/null 2>&1"
check "(b) hostB's sbatchd is back as a candidate" wait_for 30 bash -c "bhosts hostB | grep -q ' ok '"

check "the long job ends DONE" wait_for 60 state_is "$long" DONE
check "  with its output" grep -qx survived "$TEST_DIR/out/long.out"

# --- (c) switching back
cluster_revive_host "$TEST_DIR" "$BIN" hostA
check "(c) hostA's sbatchd is back" wait_for 30 bash -c "bhosts hostA | grep -q ' ok '"
sleep 5  # past the 2 s after which hostA would take a released or still lease
check "(c) hostC stays master while hostA is back" \
  bash -c "[ '$(master_term)' = 3 ] && lsid | grep -qx 'My master name is hostC'"
# A user's command on hostA goes through hostA's sbatchd, which forwards it to the
# master the lease names (not to lsf.conf's first candidate, hostA itself).
id -u lsfsched_it >/dev/null 2>&1 || useradd -M -s /bin/sh lsfsched_it
allow_other_users
RELAYED="$TEST_DIR/relayed"
mkdir -p "$RELAYED" && cp "$LSF_ENVDIR/lsf.conf" "$RELAYED/" && echo "LSB_MBD_SOCKET=none" >>"$RELAYED/lsf.conf"
chmod 755 "$RELAYED"
relayed_lsid() { LSF_ENVDIR="$RELAYED" as lsfsched_it lsid 2>&1 | grep -qx 'My master name is hostC'; }
check "(c) a user's command relayed by hostA's sbatchd reaches the master on hostC" wait_for 10 relayed_lsid
badmin mbdrestart >"$TEST_DIR/mbdrestart.out" 2>&1
check "(c) badmin mbdrestart says the role goes back to hostA" \
  grep -qx "the master role goes back to hostA, the first master candidate that is up" "$TEST_DIR/mbdrestart.out"
check "(c) hostA takes over in term 4" wait_for 60 bash -c \
  "[ -f '$LOGDIR/lsb.master.4' ] && [ \"\$(awk '{print \$2}' '$LOGDIR/lsb.master.4')\" = hostA ]"
check "(c) lsid names hostA" wait_for 60 bash -c "lsid | grep -qx 'My master name is hostA'"
back=$(submit -o /dev/null true)
check "(c) hostA's master takes submissions, ids going on" bash -c "[ -n '$back' ] && [ '$back' -gt '$after' ]"
check "(c) the jobs of the earlier terms are there" bash -c "bjobs -a '$during' '$long' >/dev/null 2>&1"
harness_done
