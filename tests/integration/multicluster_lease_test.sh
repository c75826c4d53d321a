#!/usr/bin/env bash
# Exclusive leases that outlive things: the provider's bjobs shows the consumer's jobs
# on its hosts (FROM_HOST host@cluster:jobid, queue@cluster); a job on a leased host goes
# on through a provider mbatchd restart and a consumer mbatchd restart, and its end,
# reported while the consumer was down, arrives when it is back; a provider reconfig
# that exports fewer slots kills and requeues the consumer's most recent jobs first, and
# one that withdraws the export takes back the rest.
#   multicluster_lease_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
source "$(dirname "$0")/multicluster_lib.sh"
mc_init "$1" "$2" || exit 1
check "the consumer has the provider's offer" mc_connect
RESOURCES=$(ls "$TEST_DIR"/conf/lsbatch/*/configdir/lsb.resources)
running() { [ "$(cstate "$1")" = "RUN hostA@provider" ]; }
export -f running

# Three jobs on hostA@provider (4 slots exported), started one after another.
j1=$(cjob -q borrowed -o /dev/null sleep 300)
check "first job runs on hostA@provider" wait_for 20 running "$j1"
sleep 1.1
j2=$(cjob -q borrowed -o /dev/null sleep 300)
check "second job runs" wait_for 20 running "$j2"
sleep 1.1
j3=$(cjob -q borrowed -o /dev/null sleep 300)
check "third job runs" wait_for 20 running "$j3"
rows() { bjobs -u all -noheader -o 'stat queue from_host exec_host' | sort | tr -s ' ' | tr '\n' ';'; }
check "the provider's bjobs shows them: queue@cluster, FROM_HOST host@cluster:jobid" bash -c \
  "bjobs -u all -noheader -o 'stat queue from_host exec_host' | grep -Ec '^RUN +borrowed@consumer +[^ ]+@consumer:($j1|$j2|$j3) +hostA' | grep -qx 3"

# The provider restarts: the sbatchd names its leased jobs again.
restart_mbatchd
check "after a provider restart its bjobs still shows the three" wait_for 20 bash -c \
  "[ \"\$(bjobs -u all -noheader -o stat | grep -c RUN)\" = 3 ]"
pj=$(submit -m hostA -o /dev/null sleep 60)
sleep 3
check "... and hostA is still lent: the provider's own job waits" state_is "$pj" PEND
bkill "$pj" >/dev/null
check "the consumer's jobs run on" bash -c "[ \"\$(cstate $j1)\" = 'RUN hostA@provider' ]"
consumer bkill "$j1" >/dev/null
check "a consumer bkill after the provider's restart still reaches the job" wait_for 20 bash -c \
  "[ \"\$(cstate $j1)\" = 'EXIT hostA@provider' ]"

# The consumer goes down while a short job runs; the job ends meanwhile; the provider
# keeps the report until the consumer is back.
j4=$(cjob -q borrowed -o /dev/null sleep 3)
check "a short job runs" wait_for 20 running "$j4"
kill -9 "$(cat "$CONSUMER/mbatchd.pid")"
sleep 5
consumer_start
check "after the consumer's restart: the job that ended meanwhile is DONE" wait_for 20 bash -c \
  "[ \"\$(cstate $j4)\" = 'DONE hostA@provider' ]"
check "... and the others run on" wait_for 20 bash -c "[ \"\$(cstate $j2)\" = 'RUN hostA@provider' ] && [ \"\$(cstate $j3)\" = 'RUN hostA@provider' ]"

# A job started after the restart, so three run: j2, j3, j5 (newest).
j5=$(cjob -q borrowed -o /dev/null sleep 300)
check "a new job runs" wait_for 20 running "$j5"
# Fewer slots exported: 4 -> 2 on hostA. The newest job goes first.
sed -i '0,/^SLOTS *= *4/s//SLOTS = 2/' "$RESOURCES"
check "provider reconfig: hostA exports 2 slots" bash -c "badmin reconfig >/dev/null"
check "the newest job is killed and requeued" wait_for 20 bash -c "[ \"\$(cstate $j5)\" = 'PEND -' ]"
check "the two older ones run on" bash -c "[ \"\$(cstate $j2)\" = 'RUN hostA@provider' ] && [ \"\$(cstate $j3)\" = 'RUN hostA@provider' ]"
check "bhosts -e: 2 slots" bash -c "bhosts -e | awk '\$1 == \"hostA\" {print \$4}' | grep -qx 2"
# hostA's export withdrawn, and RES_SELECT's, which would take hostA next (a host that
# runs a consumer's jobs is kept when hosts are chosen again).
awk 'BEGIN {RS = ""; ORS = "\n\n"} !/PER_HOST *= *hostA|RES_SELECT/' "$RESOURCES" >"$RESOURCES.new"
mv "$RESOURCES.new" "$RESOURCES"
check "provider reconfig: hostA no longer exported" bash -c "badmin reconfig >/dev/null"
check "the rest are killed and requeued" wait_for 20 bash -c \
  "[ \"\$(cstate $j2)\" = 'PEND -' ] && [ \"\$(cstate $j3)\" = 'PEND -' ]"
check "the provider's bjobs has no consumer job left" wait_for 10 bash -c "[ -z \"\$(bjobs -u all -noheader 2>/dev/null | grep consumer)\" ]"
pj=$(submit -m hostA -o /dev/null true)
check "hostA is the provider's again" wait_for 20 state_is "$pj" DONE
harness_done
