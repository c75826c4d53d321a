#!/usr/bin/env bash
# The export examples of reference/policies.md section 5, between three real clusters
# on 127.0.0.1: a provider and two consumers, c1 and c2.
# - PER_HOST=hostA hostB SLOTS=2 to [c1,1] [c2,1]: one slot of each host to each cluster.
# - RES_SELECT NHOSTS=2 to [c1,1] [c2,1]: one whole host to each.
# - RES_SELECT NHOSTS=4 with 3 matching hosts: 3 exported; 4 once a fourth matches.
#   multicluster_split_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2" multicluster/provider
CONF="$TEST_DIR/conf"
# Five more provider hosts: hostE (LINUX64), hostF..hostH (LINUX2), and hostI, DLINUX
# without SWP, which no export takes until it is made LINUX2.
sed -i 's/^DLINUX$/DLINUX\nLINUX2/' "$CONF/lsf.shared"
sed -i 's/^End Host$/hostE      Generic   LINUX64   1       ()\nhostF      Generic   LINUX2    1       ()\nhostG      Generic   LINUX2    1       ()\nhostH      Generic   LINUX2    1       ()\nhostI      Generic   DLINUX    1       ()\nEnd Host/' \
  "$CONF/lsf.cluster.provider"
cat >"$(ls "$CONF"/lsbatch/*/configdir/lsb.resources)" <<'RES'
Begin HostExport
PER_HOST     = hostA hostB
SLOTS        = 2
DISTRIBUTION = ([c1, 1] [c2, 1])
End HostExport

Begin HostExport
RES_SELECT   = type==LINUX64
NHOSTS       = 2
DISTRIBUTION = ([c1, 1] [c2, 1])
End HostExport

Begin HostExport
RES_SELECT   = type==LINUX2
NHOSTS       = 4
DISTRIBUTION = ([c1, 1])
End HostExport
RES
sed -i 's/^End Parameters/SBD_SLEEP_TIME = 1\nJOB_ACCEPT_INTERVAL = 0\nEnd Parameters/' "$PARAMS"
# Two consumers made from the example consumer, renamed.
for c in c1 c2; do
  d="$TEST_DIR/$c"
  cluster_create "$d" "$ROOT/conf-examples/multicluster/consumer"
  mv "$d/conf/lsf.cluster.consumer" "$d/conf/lsf.cluster.$c"
  mv "$d/conf/lsbatch/consumer" "$d/conf/lsbatch/$c"
  sed -i 's/^End Parameters/SBD_SLEEP_TIME = 1\nJOB_ACCEPT_INTERVAL = 0\nEnd Parameters/' "$d/conf/lsbatch/$c/configdir/lsb.params"
  key=$(head -c 24 /dev/urandom | base64 -w0)
  echo "LSB_MC_KEY_$c=$key" >>"$CONF/lsf.sudoers"
  echo "LSB_MC_KEY_provider=$key" >>"$d/conf/lsf.sudoers"
done
EXTRA_CLUSTERS="$TEST_DIR/c1 $TEST_DIR/c2"
# Every lsf.shared names the three clusters; where they listen is known once they run.
clusters() {  # the Cluster section, with SERVERS lines given on stdin
  sed -i "/^Begin Cluster/,/^End Cluster/c\\Begin Cluster\nClusterName  Servers\n$(cat)\nEnd Cluster" "$1"
}
for d in "$TEST_DIR" "$TEST_DIR/c1" "$TEST_DIR/c2"; do
  printf 'provider     ()\\nc1           ()\\nc2           ()' | clusters "$d/conf/lsf.shared"
done
cluster_start "$TEST_DIR" "$BIN" || exit 1
cluster_start "$TEST_DIR/c1" "$BIN" || exit 1
cluster_start "$TEST_DIR/c2" "$BIN" || exit 1
port() { sed -n 's/^LSB_MBD_PORT=//p' "$1/conf/lsf.conf"; }
for d in "$TEST_DIR" "$TEST_DIR/c1" "$TEST_DIR/c2"; do
  printf '%s\\n%s\\n%s' "provider     127.0.0.1:$(port "$TEST_DIR")" "c1           127.0.0.1:$(port "$TEST_DIR/c1")" \
    "c2           127.0.0.1:$(port "$TEST_DIR/c2")" | clusters "$d/conf/lsf.shared"
  LSF_ENVDIR="$d/conf" badmin reconfig >/dev/null
done
in_c() { LSF_ENVDIR="$TEST_DIR/$1/conf" "${@:2}"; }
offered() { in_c "$1" bhosts | awk 'NR > 1 && $1 ~ /@provider$/ {print $1, $4}' | sort | tr '\n' ';'; }
split() { bhosts -e | awk 'NR > 1 {print $1, $2, $3, $7}' | sort | tr '\n' ';'; }
export TEST_DIR
export -f in_c offered split
check "both consumers reached" wait_for 15 bash -c \
  "bclusters | grep -Eq '^c1 +EXPORT +conn$' && bclusters | grep -Eq '^c2 +EXPORT +conn$'"

check "PER_HOST SLOTS=2: one slot of each host per cluster; NHOSTS=2: one host each; NHOSTS=4: the 3 that match" \
  bash -c "[ \"\$(split)\" = 'hostA c1 slots conn;hostA c2 slots conn;hostB c1 slots conn;hostB c2 slots conn;hostC c1 host conn;hostE c2 host conn;hostF c1 host conn;hostG c1 host conn;hostH c1 host conn;' ]"
check "c1's bhosts: a slot of hostA and hostB, whole hostC, hostF, hostG, hostH" wait_for 10 bash -c \
  "[ \"\$(offered c1)\" = 'hostA@provider 1;hostB@provider 1;hostC@provider 4;hostF@provider 4;hostG@provider 4;hostH@provider 4;' ]"
check "c2's bhosts: a slot of hostA and hostB, whole hostE" wait_for 10 bash -c \
  "[ \"\$(offered c2)\" = 'hostA@provider 1;hostB@provider 1;hostE@provider 4;' ]"

# Both consumers run a job on their slot of hostA at once; the provider's own job does
# not get hostA's two exported slots while they do.
cj() { in_c "$1" bsub "${@:2}" | sed -n 's/^Job <\([0-9]*\)> is submitted.*/\1/p'; }
cst() { in_c "$1" bjobs -a -o 'stat exec_host' -noheader "$2" | awk '{print $1, $2}'; }
export -f cst
j1=$(cj c1 -m hostA@provider -o /dev/null sleep 60)
j2=$(cj c2 -m hostA@provider -o /dev/null sleep 60)
check "c1's job on its slot of hostA" wait_for 20 bash -c "[ \"\$(cst c1 $j1)\" = 'RUN hostA@provider' ]"
check "c2's job on its slot of hostA" wait_for 20 bash -c "[ \"\$(cst c2 $j2)\" = 'RUN hostA@provider' ]"
j3=$(cj c1 -m hostA@provider -o /dev/null sleep 60)
sleep 2
check "c1 has one slot of hostA: its second job waits" bash -c "[ \"\$(cst c1 $j3)\" = 'PEND -' ]"
check "the provider's bjobs shows both clusters' jobs on hostA" bash -c \
  "[ \"\$(bjobs -u all -noheader -o queue | sort | tr '\n' ' ')\" = 'normal@c1 normal@c2 ' ]"
in_c c1 bkill "$j1" "$j3" >/dev/null
in_c c2 bkill "$j2" >/dev/null

# A fourth host matches: hostI becomes LINUX2 and the lease grows to 4.
sed -i 's/^hostI      Generic   DLINUX /hostI      Generic   LINUX2 /' "$CONF/lsf.cluster.provider"
check "provider reconfig" bash -c "badmin reconfig >/dev/null"
check "NHOSTS=4: hostI joins" bash -c "bhosts -e | awk '\$1 == \"hostI\" {print \$2, \$3}' | grep -qx 'c1 host'"
check "c1 is offered it" wait_for 10 bash -c "offered c1 | grep -q 'hostI@provider 4;'"
harness_done
