#!/usr/bin/env bash
# MultiCluster links between two real clusters on 127.0.0.1 (conf-examples/multicluster):
# the provider's export plan (bhosts -e), offers reaching the consumer once lsf.shared
# says where each mbatchd listens (bclusters on both sides), and the provider keeping
# its resources while the consumer is away.
#   multicluster_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2" multicluster/provider
CONSUMER="$TEST_DIR/consumer"
cluster_create "$CONSUMER" "$ROOT/conf-examples/multicluster/consumer"
EXTRA_CLUSTERS="$CONSUMER"
for params in "$PARAMS" "$CONSUMER"/conf/lsbatch/consumer/configdir/lsb.params; do
  sed -i 's/^End Parameters/SBD_SLEEP_TIME = 1\nEnd Parameters/' "$params"
done
# The key the two clusters share, in both lsf.sudoers.
key=$(head -c 24 /dev/urandom | base64 -w0)
echo "LSB_MC_KEY_consumer=$key" >>"$TEST_DIR/conf/lsf.sudoers"
echo "LSB_MC_KEY_provider=$key" >>"$CONSUMER/conf/lsf.sudoers"
cluster_start "$TEST_DIR" "$BIN" || exit 1
cluster_start "$CONSUMER" "$BIN" || exit 1
consumer() { LSF_ENVDIR="$CONSUMER/conf" "$@"; }
exports() { bhosts -e | awk 'NR>1 {print $1, $2, $3, $4, $5, $6, $7}' | tr '\n' ';'; }
lease() { "$@" bclusters | awk -v f="$FLOW" '$2 == f {print $1, $3}'; }
export CONSUMER
export -f consumer exports

# PER_HOST=hostA SLOTS=4; RES_SELECT type==LINUX64 NHOSTS=2 takes hostB and hostC (hostA
# is the first export's) with MEM 2000; the DLINUX hostD shared, with its SWP.
check "bhosts -e: the split, nothing reached" [ "$(exports)" = \
  "hostA consumer slots 4 - - disc;hostB consumer host 4 2000M - disc;hostC consumer host 4 2000M - disc;hostD consumer shared 4 - 1000M disc;" ]
check "bhosts -e -s: licA, two instances" [ "$(bhosts -e -s | awk 'NR>1 {print $1, $2, $3, $4}')" = "licA consumer 2 disc" ]
check "provider's bclusters: EXPORT, disc" [ "$(FLOW=EXPORT lease)" = "consumer disc" ]
check "consumer's bclusters: IMPORT from the cluster its queue names, disc" [ "$(FLOW=IMPORT lease consumer)" = "provider disc" ]

# Where each mbatchd listens, in both lsf.shared, then reconfig.
pport=$(sed -n 's/^LSB_MBD_PORT=//p' "$TEST_DIR/conf/lsf.conf")
cport=$(sed -n 's/^LSB_MBD_PORT=//p' "$CONSUMER/conf/lsf.conf")
for shared in "$TEST_DIR/conf/lsf.shared" "$CONSUMER/conf/lsf.shared"; do
  sed -i "/^Begin Cluster/,/^End Cluster/c\\Begin Cluster\nClusterName  Servers\nprovider     127.0.0.1:$pport\nconsumer     127.0.0.1:$cport\nEnd Cluster" "$shared"
done
check "provider reconfig" bash -c "badmin reconfig >/dev/null"
check "consumer reconfig" bash -c "consumer badmin reconfig >/dev/null"
check "the provider reaches the consumer" wait_for 10 bash -c "bclusters | grep -Eq '^consumer +EXPORT +conn$'"
check "the consumer has the provider's offer" wait_for 10 bash -c "consumer bclusters | grep -Eq '^provider +IMPORT +conn$'"
check "bhosts -e: offered" bash -c "[ \"\$(exports)\" = 'hostA consumer slots 4 - - conn;hostB consumer host 4 2000M - conn;hostC consumer host 4 2000M - conn;hostD consumer shared 4 - 1000M conn;' ]"
check "the consumer counts what is offered" bash -c \
  "consumer bclusters -json | tr -d ' \n' | grep -q '\"REMOTE_CLUSTER\":\"provider\",\"RESOURCE_FLOW\":\"IMPORT\",\"STATUS\":\"conn\",\"HOSTS\":\"4\",\"SLOTS\":\"16\"'"

# The consumer goes away: the provider keeps its resources; it comes back: offered again.
kill "$(cat "$CONSUMER/mbatchd.pid")"
check "without the consumer: disc" wait_for 10 bash -c "bclusters | grep -Eq '^consumer +EXPORT +disc$'"
check "bhosts -e says the provider keeps it" bash -c "[ \"\$(bhosts -e | awk 'NR>1 {print \$7}' | sort | uniq -c | tr -s ' ')\" = ' 4 disc' ]"
LSF_ENVDIR="$CONSUMER/conf" "$BIN/mbatchd" --host-name hostX >>"$CONSUMER/log/mbatchd.out" 2>&1 &
echo $! >"$CONSUMER/mbatchd.pid"
check "the consumer is back" wait_for 10 bash -c "bclusters | grep -Eq '^consumer +EXPORT +conn$'"

# A cluster whose key does not match is not reached.
sed -i "s/^LSB_MC_KEY_provider=.*/LSB_MC_KEY_provider=not-the-shared-key/" "$CONSUMER/conf/lsf.sudoers"
kill "$(cat "$CONSUMER/mbatchd.pid")"
wait_for 10 bash -c "bclusters | grep -Eq '^consumer +EXPORT +disc$'"
LSF_ENVDIR="$CONSUMER/conf" "$BIN/mbatchd" --host-name hostX >>"$CONSUMER/log/mbatchd.out" 2>&1 &
echo $! >"$CONSUMER/mbatchd.pid"
wait_for 10 consumer lsid
sleep 3
check "with the wrong key: not reached" bash -c "bclusters | grep -Eq '^consumer +EXPORT +disc$'"
check "... and the provider says why" grep -q "cluster consumer not reached (.*does not match" "$TEST_DIR"/log/mbatchd.log.hostA
harness_done
