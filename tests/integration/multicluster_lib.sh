# Two real clusters on 127.0.0.1 from conf-examples/multicluster, for the MultiCluster
# tests: the provider is the harness's cluster (TEST_DIR), the consumer another
# (CONSUMER). Sourced after harness.sh.
#
#   mc_init BIN ROOT   both clusters created with a shared pair key and started
#   mc_connect         each lsf.shared says where the other mbatchd listens; reconfig;
#                      waits until the consumer holds the provider's offer
#   consumer CMD...    CMD against the consumer cluster
#   cjob BSUB-ARGS     submits to the consumer, prints the job id
#   cstate ID          "STAT EXEC_HOST" of the consumer's job

mc_init() {
  harness_init "$1" "$2" multicluster/provider
  CONSUMER="$TEST_DIR/consumer"
  cluster_create "$CONSUMER" "$ROOT/conf-examples/multicluster/consumer"
  EXTRA_CLUSTERS="$CONSUMER"
  local params key
  for params in "$PARAMS" "$CONSUMER"/conf/lsbatch/consumer/configdir/lsb.params; do
    sed -i 's/^End Parameters/SBD_SLEEP_TIME = 1\nJOB_ACCEPT_INTERVAL = 0\nEnd Parameters/' "$params"
  done
  key=$(head -c 24 /dev/urandom | base64 -w0)
  echo "LSB_MC_KEY_consumer=$key" >>"$TEST_DIR/conf/lsf.sudoers"
  echo "LSB_MC_KEY_provider=$key" >>"$CONSUMER/conf/lsf.sudoers"
  export CONSUMER
  cluster_start "$TEST_DIR" "$BIN" && cluster_start "$CONSUMER" "$BIN"
}

mc_connect() {
  local pport cport shared
  pport=$(sed -n 's/^LSB_MBD_PORT=//p' "$TEST_DIR/conf/lsf.conf")
  cport=$(sed -n 's/^LSB_MBD_PORT=//p' "$CONSUMER/conf/lsf.conf")
  for shared in "$TEST_DIR/conf/lsf.shared" "$CONSUMER/conf/lsf.shared"; do
    sed -i "/^Begin Cluster/,/^End Cluster/c\\Begin Cluster\nClusterName  Servers\nprovider     127.0.0.1:$pport\nconsumer     127.0.0.1:$cport\nEnd Cluster" "$shared"
  done
  badmin reconfig >/dev/null && consumer badmin reconfig >/dev/null &&
    wait_for 10 bash -c "consumer bclusters | grep -Eq '^provider +IMPORT +conn$'"
}

# The consumer's mbatchd, killed without warning when asked, started again on its log.
consumer_restart() {
  kill -9 "$(cat "$CONSUMER/mbatchd.pid")"
  sleep 0.2
  consumer_start
}
consumer_start() {
  LSF_ENVDIR="$CONSUMER/conf" "$BIN/mbatchd" --host-name hostX --listen 127.0.0.1 >>"$CONSUMER/log/mbatchd.out" 2>&1 &
  echo $! >"$CONSUMER/mbatchd.pid"
  wait_for 10 consumer lsid
}

consumer() { LSF_ENVDIR="$CONSUMER/conf" "$@"; }
cjob() { consumer bsub "$@" | sed -n 's/^Job <\([0-9]*\)> is submitted.*/\1/p'; }
cstate() { consumer bjobs -a -o 'stat exec_host' -noheader "$1" | awk '{print $1, $2}'; }
export -f consumer cstate
