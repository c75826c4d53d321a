#!/usr/bin/env bash
# A shared lease (conf-examples/multicluster: hostD's 4 slots, TYPE=shared, to the
# consumer), with MC_RECLAIM_DELAY shortened to 3 s. The consumer starts with one slot;
# at each recomputation busy slots stay where they run and every idle slot goes to the
# side whose pending jobs ask for more: to the consumer, then back to the provider.
# Before that, a SharedResourceExport lends only the instances the provider has free.
#   multicluster_shared_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
source "$(dirname "$0")/multicluster_lib.sh"
mc_init "$1" "$2" || exit 1
sed -i 's/^MC_RECLAIM_DELAY.*/MC_RECLAIM_DELAY = 0.05/' "$PARAMS"
# licB, three cluster-wide licences, all exported; the provider's job holds one of them
# before the consumer is reached, so only two are available to lend.
for shared in "$TEST_DIR/conf/lsf.shared" "$CONSUMER/conf/lsf.shared"; do
  sed -i 's/^licA .*/&\nlicB          Numeric  ()        N           (Floating licence B)/' "$shared"
done
sed -i 's/^licA .*/&\nlicB          (3@[all])/' "$TEST_DIR/conf/lsf.cluster.provider"
printf 'Begin SharedResourceExport\nNAME = licB\nNINSTANCES = 3\nDISTRIBUTION = ([consumer, 1])\nEnd SharedResourceExport\n' \
  >>"$(ls "$TEST_DIR"/conf/lsbatch/*/configdir/lsb.resources)"
check "provider reconfig with licB" bash -c "badmin reconfig >/dev/null"
lb=$(submit -m hostC -R 'rusage[licB=1]' -o /dev/null sleep 300)
check "the provider's job holds a licB" wait_for 10 state_is "$lb" RUN
check "the consumer has the provider's offer" mc_connect
check "bhosts -e -s: licB, only the two available" bash -c \
  "[ \"\$(bhosts -e -s | awk '\$1 == \"licB\" {print \$2, \$3}')\" = 'consumer 2' ]"
check "the consumer's bhosts -s counts 2 licB" wait_for 10 bash -c \
  "consumer bhosts -s | awk '\$1 == \"licB\" {print \$2}' | grep -qx 2.0"
bkill "$lb" >/dev/null
check "bparams shows the shortened delay" bash -c "bparams -a | grep -Eq 'MC_RECLAIM_DELAY = 0.05$'"
dmax() { consumer bhosts hostD@provider | awk 'NR == 2 {print $4}'; }
nrun() { consumer bjobs -noheader -o stat 2>/dev/null | grep -c RUN; }
export -f dmax nrun
check "at first the consumer has one slot of hostD" wait_for 10 bash -c "[ \"\$(dmax)\" = 1 ]"

# The consumer asks for four slots: one runs, and at the next recomputation the three
# idle provider slots move to it.
for i in 1 2 3 4; do cjob -m hostD@provider -o /dev/null sleep 300 >/dev/null; done
check "all four of the consumer's jobs run once the idle slots move to it" wait_for 30 bash -c "[ \"\$(nrun)\" = 4 ]"
check "... its bhosts shows 4 slots of hostD@provider" bash -c "[ \"\$(dmax)\" = 4 ]"
p1=$(submit -m hostD -o /dev/null sleep 300)
sleep 4
check "the provider's own job waits: every slot is busy with the consumer's jobs" state_is "$p1" PEND

# Two consumer jobs end; the provider now has the demand: the two idle slots go back,
# the two busy ones stay with the consumer.
p2=$(submit -m hostD -o /dev/null sleep 300)
for j in $(consumer bjobs -noheader -o jobid | head -2); do consumer bkill "$j" >/dev/null; done
check "the provider's two jobs run once the idle slots come back" wait_for 30 bash -c "state_is $p1 RUN && state_is $p2 RUN"
check "... the consumer keeps the two slots its jobs use" bash -c "[ \"\$(dmax)\" = 2 ] && [ \"\$(nrun)\" = 2 ]"
check "the provider logs the moves" grep -q "shared lease of hostD: cluster consumer has 2 of its 4 slots" "$TEST_DIR"/log/mbatchd.log.hostA
harness_done
