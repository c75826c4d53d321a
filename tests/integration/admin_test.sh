#!/usr/bin/env bash
# badmin mbdrestart, hist and showstatus against real daemons.
#   admin_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2"
cluster_start "$TEST_DIR" "$BIN" || exit 1

run=$(submit -m hostB -o /dev/null sleep 300)
held=$(submit -H sleep 1)
check "job runs" wait_for 10 state_is "$run" RUN
badmin hclose -C "disk swap" hostC 2>/dev/null
badmin qinact night >/dev/null
pid=$(cat "$TEST_DIR/mbatchd.pid")
check "mbdrestart says so" bash -c "badmin mbdrestart | grep -qx 'MBD restart initiated'"
check "mbatchd answers again" wait_for 20 lsid
check "same process, new image" bash -c "kill -0 $pid && grep -q 'restarting' $TEST_DIR/log/mbatchd.log.*"
check "the running job is regained" wait_for 20 state_is "$run" RUN
check "the held job is still held" state_is "$held" PSUSP
check "hostC is still closed" wait_for 20 bash -c "bhosts hostC | awk 'NR==2{print \$2}' | grep -qx closed_Adm"
check "badmin hist: the host close with its comment" bash -c \
  "badmin hist | sed -zE 's/\n {21}//g' | grep -q 'Host <hostC> closed by administrator <[^>]*> with comment \"disk swap\".'"
check "badmin hist: the queue inactivation" bash -c "badmin hist | grep -q 'Queue <night> inactivated by user or administrator'"
check "badmin hist: two mbatchd starts" bash -c "[ \$(badmin hist | grep -c 'mbatchd started on host <hostA>') = 2 ]"
check "showstatus counts jobs" bash -c "badmin showstatus | grep -Eq '^ +Running: +1\$' && badmin showstatus | grep -Eq '^ +Pending: +1\$'"
check "showstatus counts servers" wait_for 20 bash -c "badmin showstatus | grep -Eq '^ +Ok: +2\$' && badmin showstatus | grep -Eq '^ +Closed: +1\$'"
check "showstatus names the mbatchd pid" bash -c "badmin showstatus | grep -Eq '^ +Active mbatchd PID: +$pid\$'"
check "unknown badmin command" bash -c "badmin nosuch 2>&1 | grep -q 'not a badmin command'"
bkill "$run" "$held" >/dev/null
harness_done
