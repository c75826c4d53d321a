#!/usr/bin/env bash
# Separate hosts: master, node1 and node2 each in a network namespace of its own (own
# address, host name, /etc/hosts, local disk), daemons started as the systemd units
# start them, commands run on the host they name. The happy path: every host ok, queries
# and submissions from any host, jobs where -m, -n/span and arrays put them, bkill,
# hclose/hopen, kill -9 of an sbatchd and of mbatchd while jobs run.
#   hosts_test.sh BIN ROOT
# Needs root and `ip netns` (skipped, exit 77, without them).
source "$(dirname "$0")/harness.sh"
source "$(dirname "$0")/netns_lib.sh"
netns_init "$1" "$2" master node1 node2
netns_start || exit 1
OUT="$TEST_DIR/out"

# --- every host up, queries from every host
ok_hosts() { awk 'NR>1 && $2 == "ok" {print $1}' | sort | tr '\n' ' '; }
check "bhosts: master node1 node2 all ok" [ "$(bhosts_on | ok_hosts)" = "master node1 node2 " ]
for h in master node1 node2; do
  check "lshosts on $h lists the three hosts" \
    [ "$(on "$h" lshosts 2>&1 | awk 'NR>1 {print $1}' | sort | tr '\n' ' ')" = "master node1 node2 " ]
  check "lsload on $h: the three hosts ok" [ "$(on "$h" lsload 2>&1 | ok_hosts)" = "master node1 node2 " ]
  check "bhosts on $h (mbatchd found by name)" [ "$(on "$h" bhosts 2>&1 | ok_hosts)" = "master node1 node2 " ]
done
check "each host has its own local disk: mbatchd's log is on the master's" \
  on master test -s "$TEST_DIR/local/log/mbatchd.log.master"
check "  and not on node1's" on node1 test ! -e "$TEST_DIR/local/log/mbatchd.log.master"

# --- a job from node1, and one put on node2
j=$(submit node1 -o "$OUT/from_node1" 'echo ran on $(hostname) for $LSB_SUB_HOST')
check "bsub from node1 is taken" [ -n "$j" ]
check "job from node1 finishes DONE" wait_for 20 state_is "$j" DONE
check "  with LSB_SUB_HOST naming node1" grep -q "for node1\$" "$OUT/from_node1"
j=$(submit node1 -m node2 -o "$OUT/on_node2" hostname)
check "bsub -m node2 finishes DONE" wait_for 20 state_is "$j" DONE
check "bsub -m node2 'hostname' writes node2" grep -qx node2 "$OUT/on_node2"

# --- two slots on two hosts
j=$(submit master -n 2 -R 'span[ptile=1]' -o "$OUT/span" 'echo "hosts: $LSB_HOSTS"')
check "-n 2 span[ptile=1] finishes DONE" wait_for 20 state_is "$j" DONE
check "-n 2 span[ptile=1] runs on two hosts" \
  bash -c "[ \"\$(sed -n 's/^hosts: //p' '$OUT/span' | tr ' ' '\n' | grep . | sort -u | wc -l)\" = 2 ]"

# --- an array over the hosts: 9 elements, at most 4 slots a host
j=$(submit node2 -J 'spread[1-9]' -o /dev/null "hostname >>$OUT/spread; sleep 2")
check "array is taken" [ -n "$j" ]
array_done() { [ "$(on master bjobs -a -u all "$j" 2>/dev/null | awk 'NR>1 && $3 == "DONE"' | wc -l)" = 9 ]; }
check "array: nine elements DONE" wait_for 40 array_done
check "array: elements ran on all three hosts" bash -c "[ \"\$(sort -u '$OUT/spread' | wc -l)\" = 3 ]"

# --- an ordinary user on a host that is not the master: no key, no mbatchd socket there;
# the command goes through node1's sbatchd, which names the user as its kernel does
id -u lsfsched_it >/dev/null 2>&1 || useradd -M -s /bin/sh lsfsched_it
allow_other_users
user_on() { local h="$1"; shift; (cd "$TEST_DIR/shared" && on "$h" runuser -u lsfsched_it -- "$@"); }
out=$(user_on node1 bjobs -u all 2>&1)
check "a user's bjobs on node1 is answered" grep -qE "^JOBID|No unfinished job" <<<"$out"
out=$(user_on node1 bsub -o "$TEST_DIR/shared/user.out" 'id -un; echo $LSB_SUB_HOST' 2>&1)
uj=$(sed -n 's/^Job <\([0-9]*\)> is submitted.*/\1/p' <<<"$out")
check "a user's bsub on node1 is taken" [ -n "$uj" ]
check "  and the job ends DONE" wait_for 20 state_is "$uj" DONE
check "  run as that user, submitted from node1" \
  bash -c "[ \"\$(head -2 '$TEST_DIR/shared/user.out' 2>/dev/null | tr '\n' ' ')\" = 'lsfsched_it node1 ' ]"
user_of() { on master bjobs -w -a -u all "$1" 2>/dev/null | awk 'NR==2 {print $2}'; }
check "  and bjobs names the user" [ "$(user_of "$uj")" = lsfsched_it ]
rj=$(submit master -o /dev/null 'sleep 30')
check "root's job runs" wait_for 20 state_is "$rj" RUN
user_on node1 bkill "$rj" >/dev/null 2>&1
sleep 1
check "  and a user on node1 cannot kill it" state_is "$rj" RUN
on master bkill "$rj" >/dev/null 2>&1

# --- bkill of a running job
j=$(submit node1 -m node1 -o /dev/null 'sleep 60')
check "long job runs" wait_for 20 state_is "$j" RUN
on node1 bkill "$j" >/dev/null 2>&1
check "bkill from node1: the job ends EXIT" wait_for 20 state_is "$j" EXIT

# --- hclose / hopen
on master badmin hclose node1 >/dev/null 2>&1
check "hclose node1: closed_Adm" wait_for 10 host_status_is node1 closed_Adm
j=$(submit master -m node1 -o /dev/null true)
sleep 2
check "a job for a closed host stays PEND" state_is "$j" PEND
on master badmin hopen node1 >/dev/null 2>&1
check "hopen node1: ok" wait_for 10 host_status_is node1 ok
check "the job then runs and is DONE" wait_for 20 state_is "$j" DONE

# --- kill -9 and restart of node1's sbatchd while its job runs
j=$(submit master -m node1 -o "$OUT/regained" 'sleep 4; echo finished on $(hostname)')
check "job on node1 runs" wait_for 20 state_is "$j" RUN
n=$(registrations node1)
kill_sbatchd node1
start_sbatchd node1
registered_since() { [ "$(registrations "$1")" -gt "$2" ]; }
check "node1's sbatchd registered again" wait_for 20 registered_since node1 "$n"
check "the job is regained and finishes DONE" wait_for 30 state_is "$j" DONE
check "its output says node1" grep -q "finished on node1" "$OUT/regained"

# --- kill -9 and restart of mbatchd while a job runs
j=$(submit node2 -m node2 -o "$OUT/kept" 'sleep 4; echo finished on $(hostname)')
check "job on node2 runs" wait_for 20 state_is "$j" RUN
kill_mbatchd
check "mbatchd restarts" start_mbatchd
check "the running job is kept and finishes DONE" wait_for 30 state_is "$j" DONE
check "its output says node2" grep -q "finished on node2" "$OUT/kept"
check "every host ok again" wait_for 20 hosts_ok

netns_done
