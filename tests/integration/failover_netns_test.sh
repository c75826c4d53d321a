#!/usr/bin/env bash
# Master failover between separate hosts (network namespaces, netns_lib.sh): three
# master candidates hostA hostB hostC, each with its own address, and LSB_SHAREDIR on a
# file server that each host reaches over a link of its own, so that a host can lose its
# network cable, its file server, or both.
#  (a) hostA (master) loses its cable but still reaches the file server: its lease beats,
#      so no candidate takes over although none can reach it; commands elsewhere fail
#      meanwhile, and with the cable back the cluster is as it was (one master, term 1).
#  (b) partition: hostA loses its cable and the file server. hostB takes term 2 and
#      serves hostB and hostC; a job running on hostC runs on. A bsub on hostA is never
#      acknowledged. With the links back, hostA's mbatchd finds term 2, steps down
#      without acknowledging anything, and hostA follows the new master; the job
#      submitted on hostA during the cut exists nowhere, the running job ends DONE.
#   failover_netns_test.sh BIN ROOT
# Needs root, `ip netns` and bindfs (skipped, exit 77, without them).
source "$(dirname "$0")/harness.sh"
source "$(dirname "$0")/netns_lib.sh"
netns_init "$1" "$2" hostA hostB hostC
netns_shared_fs
sed -i 's/^LSF_MASTER_LIST=.*/LSF_MASTER_LIST="hostA hostB hostC"/' "$TEST_DIR/conf/lsf.conf"
OUT="$TEST_DIR/out"
LOGDIR="$TEST_DIR/server/work/quickstart/logdir"
log_of() { echo "$TEST_DIR/hosts/$1/log/mbatchd.log.$1"; }

master_term() { ls "$LOGDIR" 2>/dev/null | sed -n 's/^lsb\.master\.\([0-9]*\)$/\1/p' | sort -n | tail -1; }
term_holder() { awk '{print $2}' "$LOGDIR/lsb.master.$1" 2>/dev/null; }
mbatchd_pid() {  # HOST: its mbatchd's pid, if one runs
  local p
  for p in $(ip netns pids "$(ns_of "$1")" 2>/dev/null); do
    [ "$(cat /proc/"$p"/comm 2>/dev/null)" = mbatchd ] && echo "$p"
  done
}
lsid_says() { on "$1" lsid 2>/dev/null | grep -qx "My master name is $2"; }
# As netns_lib's, through a given host (the master moves).
state_on() { on "$1" bjobs -a -u all "$2" 2>/dev/null | awk 'NR==2 {print $3}'; }
state_on_is() { [ "$(state_on "$1" "$2")" = "$3" ]; }
all_ok_on() {
  local rows
  rows=$(on "$1" bhosts 2>/dev/null | awk 'NR>1')
  [ "$(echo "$rows" | grep -c ' ok ')" = 3 ]
}

# Every host a candidate: hostA's sbatchd starts the first mbatchd.
for h in hostA hostB hostC; do start_sbatchd "$h"; done
check "hostA's sbatchd starts mbatchd, which takes term 1" \
  wait_for 30 bash -c "[ \"\$(ls '$LOGDIR' 2>/dev/null | grep -c '^lsb\.master\.1$')\" = 1 ]"
check "lsid on hostC names hostA" wait_for 20 lsid_says hostC hostA
check "all three hosts ok" wait_for 30 all_ok_on hostA
long=$(submit hostC -m hostC -o /dev/null "sleep 100; echo survived >$OUT/long")
check "a long job runs on hostC" wait_for 20 state_on_is hostA "$long" RUN

# --- (a) hostA's cable out; it still reaches the file server.
cut hostA
sleep 6  # twice the takeover time of the last candidate, and its probe
check "(a) no candidate takes over while the master's lease beats" [ "$(master_term)" = 1 ]
check "(a) hostB has no mbatchd" [ -z "$(mbatchd_pid hostB)" ]
on hostC timeout 15 bsub -o /dev/null true >"$OUT/a-bsub" 2>&1
check "(a) bsub on hostC finds no master" bash -c "! grep -q 'is submitted' '$OUT/a-bsub'"
restore hostA
check "(a) with the cable back, still one master, term 1" bash -c "[ '$(master_term)' = 1 ]"
check "(a) all three hosts ok again" wait_for 40 all_ok_on hostA
check "(a) the long job runs on" state_on_is hostA "$long" RUN

# --- (b) partition: hostA without cable and without file server.
old=$(mbatchd_pid hostA)
cut hostA
cut_fs hostA
# A submission on the master's own host, during the cut.
(on hostA timeout 120 bsub -J cut_submit -o /dev/null true >"$OUT/b-bsub" 2>&1; echo $? >"$OUT/b-bsub.rc") &
check "(b) hostB takes term 2" wait_for 30 bash -c "[ \"\$(ls '$LOGDIR' | grep -c '^lsb\.master\.2$')\" = 1 ]"
check "(b) term 2 is hostB's" [ "$(term_holder 2)" = hostB ]
check "(b) lsid on hostC names hostB" wait_for 30 lsid_says hostC hostB
j=$(submit hostC -o /dev/null -J after_cut "true")
check "(b) bsub on hostC is taken by hostB" [ -n "$j" ]
check "(b) and the job ends DONE" wait_for 40 state_on_is hostC "$j" DONE
check "(b) the long job on hostC runs on" state_on_is hostC "$long" RUN
check "(b) the bsub on hostA has had no answer" [ ! -s "$OUT/b-bsub.rc" ]
restore_fs hostA
restore hostA
check "(b) hostA's old mbatchd stops" wait_for 30 bash -c "! kill -0 ${old:-0} 2>/dev/null"
check "(b) it says it stepped down" grep -q "stepping down: this mbatchd's term 1 was taken over by hostB" "$(log_of hostA)"
# The old master acknowledged nothing. The bsub either gave up, or, told by the old
# master that it is master no more, went on to the new one, which took it: then the job
# is there, once.
wait_for 150 test -s "$OUT/b-bsub.rc"
acked=$(sed -n 's/^Job <\([0-9]*\)> is submitted.*/\1/p' "$OUT/b-bsub")
found=$(on hostC bjobs -a -u all -J cut_submit -noheader -o jobid 2>/dev/null | tr -d ' ' | xargs)
if [ -n "$acked" ]; then
  echo "     (b) the bsub on hostA was taken by the new master, as job $acked"
  check "(b) the job of that bsub is on the new master, once" [ "$found" = "$acked" ]
else
  echo "     (b) the bsub on hostA gave up: $(head -1 "$OUT/b-bsub")"
  check "(b) no job of that bsub exists on the new master" [ -z "$found" ]
fi
check "(b) hostA follows the new master" wait_for 30 lsid_says hostA hostB
check "(b) all three hosts ok under hostB" wait_for 40 all_ok_on hostC
check "(b) the long job ends DONE" wait_for 150 state_on_is hostC "$long" DONE
check "(b) it ran to its end once" bash -c "[ \"\$(cat '$OUT/long' 2>/dev/null)\" = survived ]"
check "(b) still term 2: hostA did not take the role back" [ "$(master_term)" = 2 ]

netns_done
