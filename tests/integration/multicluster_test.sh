#!/usr/bin/env bash
# MultiCluster links between two real clusters on 127.0.0.1 (conf-examples/multicluster):
# the provider's export plan (bhosts -e), offers reaching the consumer once lsf.shared
# says where each mbatchd listens (bclusters on both sides), and the provider keeping
# its resources while the consumer is away; an exclusive lease: consumer jobs on
# hostA@provider and hostB@provider (started, killed and reported through the provider),
# the provider kept off the leased host until the lease ends; requeue and pre-exec retry
# limits on a borrowed host; hclose by either side's administrator.
#   multicluster_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
source "$(dirname "$0")/multicluster_lib.sh"
mc_init "$1" "$2" || exit 1
exports() { bhosts -e | awk 'NR>1 {print $1, $2, $3, $4, $5, $6, $7}' | tr '\n' ';'; }
lease() { "$@" bclusters | awk -v f="$FLOW" '$2 == f {print $1, $3}'; }
export -f exports

# PER_HOST=hostA SLOTS=4; RES_SELECT type==LINUX64 NHOSTS=2 takes hostB and hostC (hostA
# is the first export's) with MEM 2000; the DLINUX hostD shared, with its SWP.
check "bhosts -e: the split, nothing reached" [ "$(exports)" = \
  "hostA consumer slots 4 - - disc;hostB consumer host 4 2000M - disc;hostC consumer host 4 2000M - disc;hostD consumer shared 4 - 1000M disc;" ]
check "bhosts -e -s: licA, two instances" [ "$(bhosts -e -s | awk 'NR>1 {print $1, $2, $3, $4}')" = "licA consumer 2 disc" ]
check "provider's bclusters: EXPORT, disc" [ "$(FLOW=EXPORT lease)" = "consumer disc" ]
check "consumer's bclusters: IMPORT from the cluster its queue names, disc" [ "$(FLOW=IMPORT lease consumer)" = "provider disc" ]

# Where each mbatchd listens, in both lsf.shared, then reconfig; the consumer's retry and
# requeue limits, for jobs on borrowed hosts as on its own.
CQ=$(ls "$CONSUMER"/conf/lsbatch/*/configdir/lsb.queues)
sed -i '/^QUEUE_NAME  = borrowed/a REQUEUE_EXIT_VALUES = 42' "$CQ"
sed -i '/^Begin Parameters/a LOCAL_MAX_PREEXEC_RETRY = 2' "$(ls "$CONSUMER"/conf/lsbatch/*/configdir/lsb.params)"
check "both reconfigured, the consumer has the provider's offer" mc_connect
check "the provider reaches the consumer" wait_for 10 bash -c "bclusters | grep -Eq '^consumer +EXPORT +conn$'"
check "bhosts -e: offered" bash -c "[ \"\$(exports)\" = 'hostA consumer slots 4 - - conn;hostB consumer host 4 2000M - conn;hostC consumer host 4 2000M - conn;hostD consumer shared 4 - 1000M conn;' ]"
check "the consumer counts what is offered" bash -c \
  "consumer bclusters -json | tr -d ' \n' | grep -q '\"REMOTE_CLUSTER\":\"provider\",\"RESOURCE_FLOW\":\"IMPORT\",\"STATUS\":\"conn\",\"HOSTS\":\"4\",\"SLOTS\":\"13\"'"

# The two licA instances exported are the consumer's: two of three jobs that each ask
# for one run, the third waits.
for i in 1 2 3; do lic[$i]=$(cjob -R 'rusage[licA=1]' -o /dev/null sleep 60); done
check "two consumer jobs run on the two licA instances lent" wait_for 20 bash -c \
  "[ \"\$(consumer bjobs -noheader -o stat ${lic[*]} | sort | tr '\n' ' ')\" = 'PEND RUN RUN ' ]"
check "the consumer's bhosts -s counts 2 licA, 2 reserved" bash -c \
  "consumer bhosts -s | awk '\$1 == \"licA\" {print \$2, \$3}' | grep -qx '2.0 2.0'"
consumer bkill "${lic[@]}" >/dev/null

# (hostD is a shared lease: the consumer starts with one of its four slots.)

# --- An exclusive lease. The consumer's `borrowed` queue takes hostA@provider: its job
# runs there by way of the provider, and while it runs, hostA's four slots (all exported)
# are the consumer's alone.
lj=$(cjob -q borrowed -o /dev/null sleep 60)
check "the consumer's job runs on hostA@provider" wait_for 20 bash -c "[ \"\$(cstate $lj)\" = 'RUN hostA@provider' ]"
check "bclusters: the lease, on both sides" \
  bash -c "bclusters | grep -Eq '^consumer +EXPORT +ok$' && consumer bclusters | grep -Eq '^provider +IMPORT +ok$'"
pj=$(submit -m hostA -o /dev/null sleep 60)
sleep 3
check "the provider's own job does not get the leased hostA" state_is "$pj" PEND
consumer bkill "$lj" >/dev/null
check "the consumer's bkill reaches its job through the provider" wait_for 20 bash -c "[ \"\$(cstate $lj)\" = 'EXIT hostA@provider' ]"
check "no demand, no lease: the provider's job gets hostA" wait_for 20 state_is "$pj" RUN
check "bclusters: no lease left" bash -c "bclusters | grep -Eq '^consumer +EXPORT +conn$'"
bkill "$pj" >/dev/null
# REQUEUE_EXIT_VALUES and LOCAL_MAX_PREEXEC_RETRY on hostA@provider, as on a local host.
rq=$(cjob -q borrowed -o /dev/null "[ -f $TEST_DIR/once ] || { touch $TEST_DIR/once; exit 42; }")
check "a job exiting 42 on hostA@provider is requeued and runs again: DONE" wait_for 30 bash -c \
  "[ \"\$(cstate $rq)\" = 'DONE hostA@provider' ]"
check "... after two runs" bash -c "consumer bhist -l $rq | grep -c Starting | grep -qx 2"
pe=$(cjob -q borrowed -E "echo x >>$TEST_DIR/tries; false" -o /dev/null true)
check "a failing pre-exec on hostA@provider: held in PSUSP after 2 failures" wait_for 30 bash -c \
  "[ \"\$(consumer bjobs -noheader -o stat $pe)\" = PSUSP ]"
check "... the pre-exec ran twice" [ "$(wc -l <"$TEST_DIR/tries")" = 2 ]
consumer bkill "$pe" >/dev/null
# bsub -m host@cluster in a queue with allremote; the job's end and output come back.
dj=$(cjob -m hostB@provider -o "$TEST_DIR/remote.out" 'echo ran on $LSB_HOSTS')
check "bsub -m hostB@provider: DONE there" wait_for 20 bash -c "[ \"\$(cstate $dj)\" = 'DONE hostB@provider' ]"
check "... its output, written on the provider's host" grep -qx "ran on hostB" "$TEST_DIR/remote.out"
nj=$(cjob -q borrowed -m hostB@provider -o /dev/null true)
sleep 2
check "a queue that does not name hostB@provider does not take it" bash -c "[ \"\$(cstate $nj)\" = 'PEND -' ]"
consumer bkill "$nj" >/dev/null
check "an unknown cluster in -m is refused" \
  bash -c "consumer bsub -m hostB@nosuch true 2>&1 | grep -qx 'hostB@nosuch: Bad host name, host group name or cluster name. Job not submitted.'"

# The consumer's view of borrowed hosts: bhosts names them host@cluster with the slots
# offered; its administrator closes one for its own jobs only.
bh() { "$@" bhosts | awk -v h="$H" '$1 == h {print $2, $4}'; }
export -f bh
check "consumer's bhosts: hostC@provider ok, 4 slots" bash -c "[ \"\$(H=hostC@provider bh consumer)\" = 'ok 4' ]"
check "consumer's badmin hclose hostC@provider" bash -c \
  "consumer badmin hclose hostC@provider 2>&1 | grep -qx 'Close <hostC@provider> ...... done'"
check "... closed_Adm for the consumer" bash -c "[ \"\$(H=hostC@provider bh consumer)\" = 'closed_Adm 4' ]"
check "... the provider's hostC stays ok" bash -c "[ \"\$(H=hostC bh)\" = 'ok 4' ]"
cj=$(cjob -m hostC@provider -o /dev/null sleep 60)
sleep 2
check "a job for the closed borrowed host waits" bash -c "[ \"\$(cstate $cj)\" = 'PEND -' ]"
check "bmod -m hostB@provider" bash -c "consumer bmod -m hostB@provider $cj >/dev/null"
check "... and it runs there" wait_for 20 bash -c "[ \"\$(cstate $cj)\" = 'RUN hostB@provider' ]"
check "consumer's bhosts counts it on hostB@provider" bash -c \
  "consumer bhosts hostB@provider | awk 'NR == 2 {print \$1, \$2, \$5, \$6}' | grep -qx 'hostB@provider ok 1 1'"
consumer bkill "$cj" >/dev/null
check "badmin hopen hostC@provider" bash -c "consumer badmin hopen hostC@provider >/dev/null"
check "... ok again" bash -c "[ \"\$(H=hostC@provider bh consumer)\" = 'ok 4' ]"
# Only the provider's administrator closes the host itself, for both clusters.
check "provider's badmin hclose hostC" bash -c "badmin hclose hostC >/dev/null"
check "... closed for the consumer too" wait_for 10 bash -c "[ \"\$(H=hostC@provider bh consumer)\" = 'closed_Adm 4' ]"
check "... a consumer's hopen does not open it" bash -c \
  "consumer badmin hopen hostC@provider >/dev/null 2>&1; sleep 2; [ \"\$(H=hostC@provider bh consumer)\" = 'closed_Adm 4' ]"
badmin hopen hostC >/dev/null
check "provider's hopen: ok for the consumer again" wait_for 10 bash -c "[ \"\$(H=hostC@provider bh consumer)\" = 'ok 4' ]"
check "hclose of a host nobody lends is refused" bash -c \
  "consumer badmin hclose hostZ@provider 2>&1 | grep -qx 'hostZ@provider: Bad host name, host group name or cluster name'"

# The consumer goes away: the provider keeps its resources; it comes back: offered again.
kill "$(cat "$CONSUMER/mbatchd.pid")"
check "without the consumer: disc" wait_for 10 bash -c "bclusters | grep -Eq '^consumer +EXPORT +disc$'"
check "bhosts -e says the provider keeps it" bash -c "[ \"\$(bhosts -e | awk 'NR>1 {print \$7}' | sort | uniq -c | tr -s ' ')\" = ' 4 disc' ]"
consumer_start
check "the consumer is back" wait_for 10 bash -c "bclusters | grep -Eq '^consumer +EXPORT +conn$'"

# Servers lists a cluster's master candidates in order: the other cluster tries them in
# turn and stays with the one that answers as master. With nothing listening at the
# first entry (port 1), a restarted consumer, which starts from the first entry, still
# reaches the provider, and the provider the consumer.
pport=$(sed -n 's/^LSB_MBD_PORT=//p' "$TEST_DIR/conf/lsf.conf")
cport=$(sed -n 's/^LSB_MBD_PORT=//p' "$CONSUMER/conf/lsf.conf")
for shared in "$TEST_DIR/conf/lsf.shared" "$CONSUMER/conf/lsf.shared"; do
  sed -i -e "s/^provider .*/provider     (127.0.0.1:1 127.0.0.1:$pport)/" \
    -e "s/^consumer .*/consumer     (127.0.0.1:1 127.0.0.1:$cport)/" "$shared"
done
badmin reconfig >/dev/null
kill "$(cat "$CONSUMER/mbatchd.pid")"
wait_for 10 bash -c "bclusters | grep -Eq '^consumer +EXPORT +disc$'"
consumer_start
check "Servers' first entry dead: the consumer reaches the provider through the second" \
  wait_for 20 bash -c "consumer bclusters | grep -Eq '^provider +IMPORT +conn$'"
check "... and the provider the consumer" wait_for 20 bash -c "bclusters | grep -Eq '^consumer +EXPORT +conn$'"

# A cluster whose key does not match is not reached.
sed -i "s/^LSB_MC_KEY_provider=.*/LSB_MC_KEY_provider=not-the-shared-key/" "$CONSUMER/conf/lsf.sudoers"
kill "$(cat "$CONSUMER/mbatchd.pid")"
wait_for 10 bash -c "bclusters | grep -Eq '^consumer +EXPORT +disc$'"
consumer_start
sleep 3
check "with the wrong key: not reached" bash -c "bclusters | grep -Eq '^consumer +EXPORT +disc$'"
check "... and the provider says why" grep -q "cluster consumer not reached (.*does not match" "$TEST_DIR"/log/mbatchd.log.hostA
harness_done
