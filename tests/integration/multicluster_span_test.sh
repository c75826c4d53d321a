#!/usr/bin/env bash
# Parallel jobs across clusters (conf-examples/multicluster): a consumer job on its own
# hosts and a borrowed one, started by either side; the provider keeps off the slots
# the consumer holds even when the job was started by the consumer, and takes them back
# by withdrawal as it does its own leases; the provider's RemoteClusters RECV_FROM = N
# keeps the consumer's jobs within one cluster.
#   multicluster_span_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
source "$(dirname "$0")/multicluster_lib.sh"
mc_init "$1" "$2" || exit 1
check "both reconfigured, the consumer has the provider's offer" mc_connect
# Each execution host with its slot count: "4*hostX 4*hostY 2*hostA@provider ".
hosts_of() { consumer bjobs -a -o exec_host -noheader "$1" | tr ':' '\n' | uniq -c | awk '{printf "%s*%s ", $1, $2}'; }
export -f hosts_of

# hostX and hostY (4 slots each) and two of hostA@provider's four: the first host is the
# consumer's own, so the consumer starts the job; the provider learns of the two slots
# from the consumer's answer to its next offer. The preference levels fix the hosts'
# order: at one level they are ranked by r15s, which each virtual host reads from this
# machine at its own moment (a CI run once had hostY first).
sj=$(cjob -n 10 -m "hostX+2 hostY+1 hostA@provider" -o /dev/null sleep 60)
check "a 10-slot job spans hostX, hostY and hostA@provider" wait_for 20 bash -c \
  "[ \"\$(hosts_of $sj)\" = '4*hostX 4*hostY 2*hostA@provider ' ]"
check "the provider sees the lease it did not start" wait_for 10 bash -c "bclusters | grep -Eq '^consumer +EXPORT +ok$'"
pj=$(submit -m hostA -o /dev/null sleep 60)
sleep 3
check "the provider's own job does not get hostA, leased by the spanning job" state_is "$pj" PEND
# The provider takes back all but one of hostA's slots: the spanning job holds two, so
# it is killed and requeued as the jobs the provider started would be; with one slot of
# hostA it no longer fits, and waits.
RESOURCES=$(ls "$TEST_DIR"/conf/lsbatch/*/configdir/lsb.resources)
sed -i '0,/^SLOTS *= *4/s//SLOTS = 1/' "$RESOURCES"
check "provider reconfig: hostA exports 1 slot" bash -c "badmin reconfig >/dev/null"
check "the spanning job is killed and requeued" wait_for 20 bash -c "[ \"\$(cstate $sj)\" = 'PEND -' ]"
check "no lease left: the provider's job gets hostA" wait_for 20 state_is "$pj" RUN
consumer bkill "$sj" >/dev/null
bkill "$pj" >/dev/null
check "hostA is free again" wait_for 20 bash -c "[ \"\$(bjobs -noheader -o stat $pj)\" = EXIT ]"
sed -i '0,/^SLOTS *= *1/s//SLOTS = 4/' "$RESOURCES"
check "provider reconfig: hostA exports 4 slots again" bash -c "badmin reconfig >/dev/null"
check "the consumer is offered them" wait_for 10 bash -c \
  "consumer bhosts hostA@provider | awk 'NR == 2 {print \$4}' | grep -qx 4"

# hostA@provider first: the provider starts the job on hostA, which names the consumer's
# host as hostX@consumer.
bj=$(cjob -n 6 -m "hostA@provider+2 hostX" -o "$TEST_DIR/span.out" 'echo $LSB_HOSTS; sleep 3')
check "a 6-slot job led by hostA@provider, 2 slots on hostX" wait_for 20 bash -c \
  "[ \"\$(hosts_of $bj)\" = '4*hostA@provider 2*hostX ' ]"
check "... done there" wait_for 20 bash -c "[ \"\$(consumer bjobs -a -noheader -o stat $bj)\" = DONE ]"
check "... its LSB_HOSTS as the provider's host saw them" grep -qx \
  "hostA hostA hostA hostA hostX@consumer hostX@consumer" "$TEST_DIR/span.out"

# The provider takes no jobs from the consumer that span clusters.
printf 'Begin RemoteClusters\nCLUSTERNAME  RECV_FROM\nconsumer     N\nEnd RemoteClusters\n' \
  >>"$TEST_DIR/conf/lsf.cluster.provider"
check "provider reconfig with RECV_FROM = N" bash -c "badmin reconfig >/dev/null"
sleep 3  # the next offer carries it
nj=$(cjob -n 10 -m "hostX hostY hostA@provider" -o /dev/null sleep 60)
oj=$(cjob -n 2 -m hostA@provider -o /dev/null sleep 60)
check "a job within the provider still runs there" wait_for 20 bash -c "[ \"\$(cstate $oj)\" = 'RUN hostA@provider:hostA@provider' ]"
check "the 10-slot job waits: one cluster cannot hold it" wait_for 10 bash -c \
  "consumer bjobs -p $nj | grep -q 'Not enough hosts in one cluster'"
check "... and stays pending" bash -c "[ \"\$(cstate $nj)\" = 'PEND -' ]"
consumer bkill "$nj" "$oj" >/dev/null
harness_done
