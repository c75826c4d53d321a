#!/usr/bin/env bash
# Separate hosts (see hosts_test.sh) under faults: an sbatchd that advertises loopback,
# bkill after an sbatchd restart, a StartJob sent while the host's cable is pulled, a
# rerunnable job whose host goes unavail and comes back, a host that registers but
# refuses every connection (no storm of retries), and a job that is not rerunnable on a
# host that is lost (REMOVE_HUNG_JOBS_FOR) and comes back.
#   hosts_faults_test.sh BIN ROOT
# Needs root and `ip netns` (skipped, exit 77, without them).
source "$(dirname "$0")/harness.sh"
source "$(dirname "$0")/netns_lib.sh"
netns_init "$1" "$2" master node1 node2
# A silent host is unreach after 2.5 s and unavail after 4 s (host_status: 2 + 2 *
# MAX_SBD_FAIL report intervals).
set_param MAX_SBD_FAIL 1
OUT="$TEST_DIR/out"
EVENTS="$TEST_DIR/hosts/master/work/quickstart/logdir/lsb.events"

# --- (a) node2's sbatchd on 127.0.0.1 with no --advertise: it must not get node2's jobs
# run elsewhere (mbatchd would reach 127.0.0.1 on the master), and mbatchd says what to set.
start_mbatchd || { echo "mbatchd did not start"; exit 1; }
start_sbatchd master
start_sbatchd node1
start_sbatchd node2 --listen 127.0.0.1
wait_for 20 host_status_is master ok && wait_for 20 host_status_is node1 ok
wait_for 10 grep -q "node2" "$MBD_LOG"
sleep 2
# The job writes where it ran to a file of its own (its -o file ends with LSF's job
# report, which names the submission host).
j=$(submit master -m node2 -o /dev/null "hostname >>$OUT/loopback")
check "(a) bsub -m node2 is taken" [ -n "$j" ]
sleep 8
check "(a) a node2 job never runs on another host" bash -c "! grep -qE 'master|node1' '$OUT/loopback' 2>/dev/null"
check "(a) mbatchd's log names node2 and what to set (advertise/loopback)" \
  bash -c "grep -iE 'node2' '$MBD_LOG' | grep -qiE 'advertise|loopback'"
# The other misconfiguration: advertising the unspecified address.
kill_sbatchd node2
start_sbatchd node2 --listen 0.0.0.0 --advertise 0.0.0.0
check "(a) advertising 0.0.0.0 is refused too, naming what to set" \
  wait_for 10 grep -q "host node2 advertises 0.0.0.0, which does not reach it from the master.*--advertise" "$MBD_LOG"
node2_not_ok() { ! host_status_is node2 ok; }
check "(a) and node2 is not ok meanwhile" node2_not_ok
# node2 started as it should be: the job runs there.
kill_sbatchd node2
start_sbatchd node2
check "(a) node2 ok once started right" wait_for 20 host_status_is node2 ok
check "(a) the job then ends DONE" wait_for 20 state_is "$j" DONE
check "(a) and ran on node2 only" bash -c "[ \"\$(sort -u '$OUT/loopback')\" = node2 ]"

# --- (b) bkill after node1's sbatchd was killed and started again
j=$(submit master -m node1 -o /dev/null 'sleep 120')
check "(b) long job runs on node1" wait_for 20 state_is "$j" RUN
n=$(registrations node1)
kill_sbatchd node1
start_sbatchd node1
registered_since() { [ "$(registrations "$1")" -gt "$2" ]; }
check "(b) node1 registered again" wait_for 20 registered_since node1 "$n"
sleep 1
on master bkill "$j" >/dev/null 2>&1
check "(b) bkill after the restart: EXIT within 20 s" wait_for 20 state_is "$j" EXIT

# --- (c) StartJob while node1's cable is pulled: the job runs once, after the cable is back
cut node1
j=$(submit master -m node1 -o /dev/null "echo \$(hostname) >>$OUT/once; sleep 3")
check "(c) bsub during the cut is taken" [ -n "$j" ]
sleep 15
restore node1
check "(c) node1 ok again after the cable is back" wait_for 30 host_status_is node1 ok
check "(c) the job ends DONE" wait_for 40 state_is "$j" DONE
sleep 2
check "(c) it ran exactly once (one line)" bash -c "[ \"\$(cat '$OUT/once' 2>/dev/null | wc -l)\" = 1 ]"
check "(c) bhist -l shows it started once" \
  bash -c "[ \"\$(grep -c 'Starting (Pid' <<<\"\$1\")\" = 1 ]" _ "$(on master bhist -l "$j" 2>&1)"

# --- (d) a rerunnable job on node1 when node1 goes unavail: requeued, runs on node2; node1
# back: its old run is killed, and one run only completes.
on master badmin hclose master >/dev/null 2>&1
on master badmin hclose node2 >/dev/null 2>&1
j=$(submit master -r -m "node1 node2" -o "$OUT/rerun.out" \
  "echo start \$(hostname) \$\$ >>$OUT/rerun; sleep 20; echo done \$(hostname) >>$OUT/rerun")
check "(d) rerunnable job runs on node1" wait_for 20 grep -q "start node1" "$OUT/rerun"
on master badmin hopen node2 >/dev/null 2>&1
on master badmin hopen master >/dev/null 2>&1
cut node1
check "(d) node1 unavail with its cable out" wait_for 20 host_status_is node1 unavail
check "(d) the job is requeued and runs on node2" wait_for 30 grep -q "start node2" "$OUT/rerun"
restore node1
check "(d) node1 ok again" wait_for 30 host_status_is node1 ok
old_pid=$(awk '$2 == "node1" {print $3}' "$OUT/rerun" | head -1)
# Within 6 s of node1's return: well before the old run would have ended by itself.
check "(d) the old run on node1 is killed" \
  wait_for 6 bash -c "! ip netns exec $(ns_of node1) kill -0 ${old_pid:-0} 2>/dev/null"
check "(d) the job ends DONE" wait_for 45 state_is "$j" DONE
sleep 1
check "(d) one completed run only (on node2)" bash -c "[ \"\$(grep '^done' '$OUT/rerun')\" = 'done node2' ]"

# --- (f) a job that ends while its host is cut off: it ended when the host says, not
# when the report got through
j=$(submit master -m node1 -o /dev/null 'sleep 3')
check "(f) a short job runs on node1" wait_for 20 state_is "$j" RUN
cut node1
sleep 12
restore node1
check "(f) it ends DONE once node1 is back" wait_for 30 state_is "$j" DONE
rt=$(on master bjobs -noheader -o run_time "$j" 2>/dev/null | awk '{print $1}')
echo "     (f) run time ${rt:-?} s with a 12 s cut"
check "(f) its run time is the job's (about 3 s), not the cut's" [ "${rt:-99}" -le 6 ]

# --- (e) node2 registered and ok but refusing every connection: its sbatchd listens on
# .3 and advertises .13, an address of node2 where nothing listens (the kernel answers
# with a reset; no firewall tool needed). Jobs for it must not make a storm.
ip -n "$(ns_of node2)" addr add "$NETNS_SUBNET.13/24" dev eth0
kill_sbatchd node2
start_sbatchd node2 --listen "$(host_addr node2)" --advertise "$NETNS_SUBNET.13"
check "(e) node2 registers as ok" wait_for 20 host_status_is node2 ok
lines_before=$(grep -c "cannot start" "$MBD_LOG")
size_before=$(stat -c %s "$EVENTS")
for i in 1 2 3 4 5; do submit master -m node2 -o /dev/null 'sleep 1' >/dev/null; done
sleep 20
lines=$(($(grep -c "cannot start" "$MBD_LOG") - lines_before))
growth=$(($(stat -c %s "$EVENTS") - size_before))
echo "     (e) over 20 s: $lines 'cannot start' lines, lsb.events grew $growth bytes"
check "(e) fewer than 100 'cannot start' lines in 20 s" [ "$lines" -lt 100 ]
check "(e) lsb.events grew less than 100 KB in 20 s" [ "$growth" -lt 102400 ]

# --- (g) a job that is not rerunnable, on node1 when node1 is lost: it ends EXIT
# (TERM_REMOVE_HUNG_JOB) once REMOVE_HUNG_JOBS_FOR's wait is over, nothing else is
# touched, and when node1 comes back its copy is killed.
set_param REMOVE_HUNG_JOBS_FOR "host_unavail,wait_time=0"
on master badmin reconfig >/dev/null 2>&1
j=$(submit master -m node1 -o /dev/null "echo \$\$ >$OUT/hung; sleep 300")
k=$(submit master -m master -o /dev/null "sleep 300")
check "(g) a job that is not rerunnable runs on node1" wait_for 20 state_is "$j" RUN
wait_for 10 test -s "$OUT/hung"
cut node1
check "(g) node1 lost: its job ends EXIT" wait_for 30 state_is "$j" EXIT
hung_reason() {
  on master bjobs -l "$j" 2>/dev/null | sed -zE 's/\n {21}//g' |
    grep -q "TERM_REMOVE_HUNG_JOB: job removed from the LSF system"
}
check "(g) bjobs -l says why (TERM_REMOVE_HUNG_JOB)" hung_reason
check "(g) the job on the master host runs on" state_is "$k" RUN
restore node1
check "(g) node1 ok again" wait_for 30 host_status_is node1 ok
hung_pid=$(cat "$OUT/hung" 2>/dev/null)
check "(g) the job's run on node1 is killed" \
  wait_for 10 bash -c "! ip netns exec $(ns_of node1) kill -0 ${hung_pid:-0} 2>/dev/null"
check "(g) and the job stays EXIT" state_is "$j" EXIT
on master bkill "$k" >/dev/null 2>&1

netns_done
