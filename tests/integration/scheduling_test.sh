#!/usr/bin/env bash
# The scheduling policies through real daemons: slot limits, a dispatch window, an
# exclusive job, backfill around a slot reservation, preemption, load-based
# suspension from a load file, REQUEUE_EXIT_VALUES with EXCLUDE, btop, perfmon.
#   scheduling_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2"
CONF="$TEST_DIR/conf/lsbatch/quickstart/configdir"
hour=$((10#$(date +%H)))
closed="$(((hour + 2) % 24)):00-$(((hour + 3) % 24)):00"
cat >"$CONF/lsb.hosts" <<HOSTS
Begin Host
HOST_NAME   MXJ   r1m
hostC       2     2.0/4.0
default     2     ()
End Host
HOSTS
cat >>"$CONF/lsb.queues" <<QUEUES

Begin Queue
QUEUE_NAME = limited
PRIORITY = 30
End Queue

Begin Queue
QUEUE_NAME = closedwin
PRIORITY = 30
DISPATCH_WINDOW = $closed
End Queue

Begin Queue
QUEUE_NAME = excl
PRIORITY = 30
EXCLUSIVE = Y
End Queue

Begin Queue
QUEUE_NAME = big
PRIORITY = 35
SLOT_RESERVE = MAX_RESERVE_TIME[1000]
BACKFILL = Y
End Queue

Begin Queue
QUEUE_NAME = high
PRIORITY = 60
PREEMPTION = PREEMPTIVE[low]
End Queue

Begin Queue
QUEUE_NAME = low
PRIORITY = 10
End Queue

Begin Queue
QUEUE_NAME = predict
PRIORITY = 30
SLOT_RESERVE = MAX_RESERVE_TIME[1000]
RESERVATION_MODEL = PLAN
RUNTIME_ESTIMATE = PREDICT
End Queue

Begin Queue
QUEUE_NAME = requeue
PRIORITY = 30
REQUEUE_EXIT_VALUES = EXCLUDE(3)
End Queue
QUEUES
cat >"$CONF/lsb.resources" <<'RES'
Begin Limit
NAME = qlim
QUEUES = limited
SLOTS = 2
End Limit
RES
for h in hostA hostB hostC; do echo "r1m = 0.1" >"$TEST_DIR/load.$h"; done
cluster_start "$TEST_DIR" "$BIN" || exit 1

unfinished() { bjobs -u all 2>/dev/null | awk 'NR>1' | wc -l; }
clean() {
  bkill -u all 0 >/dev/null 2>&1
  wait_for 20 bash -c '[ "$(bjobs -u all 2>/dev/null | awk "NR>1" | wc -l)" = 0 ]'
}
reason_of() { bjobs -p "$1" 2>/dev/null | sed -n '3,$p'; }
export -f reason_of

# --- RUNTIME_ESTIMATE = PREDICT: the user's finished job gives the next ones' estimate
# (first: the user has no finished job yet)
first=$(submit -q predict -W 10 -o /dev/null sleep 2)
check "a first job runs, planned on its run limit (no history)" wait_for 10 bash -c \
  "state_is $first RUN && ! bjobs -l $first | grep -q 'Planned run time'"
check "... and ends" wait_for 20 state_is "$first" DONE
held=$(submit -q predict -W 10 -H -o /dev/null sleep 1)
check "a waiting job of the same user is planned on a prediction from it" wait_for 10 bash -c \
  "bjobs_l_flat $held | grep -Eq 'Planned run time: [2-4] seconds, predicted from the user.s last finished jobs'"
run=$(submit -q predict -W 10 -o /dev/null sleep 600)
check "a job started on a prediction keeps it" wait_for 10 bash -c \
  "state_is $run RUN && bjobs_l_flat $run | grep -Eq 'Planned run time: [2-4] seconds, predicted'"
bkill "$held" >/dev/null
six=$(submit -q predict -W 10 -n 6 -o /dev/null sleep 1)
check "a job that needs every slot books a planned start" wait_for 10 bash -c \
  "bjobs_l_flat $six | grep -q 'Planned start time: [A-Z][a-z][a-z] [A-Z][a-z][a-z]'"
restart_mbatchd
check "the estimate a job started with survives a restart" wait_for 20 bash -c \
  "bjobs_l_flat $run | grep -Eq 'Planned run time: [2-4] seconds, predicted'"
clean

# --- a Limit section on a queue
a=$(submit -q limited -o /dev/null sleep 60)
b=$(submit -q limited -o /dev/null sleep 60)
c=$(submit -q limited -o /dev/null sleep 60)
check "two jobs of the limited queue run" wait_for 10 bash -c "[ \"\$(job_state $a)\$(job_state $b)\" = RUNRUN ]"
check "the third waits for the queue's slot limit, with the numbers" wait_for 10 bash -c \
  "reason_of $c | grep -qF ' Resource (slot) limit defined on queue has been reached (limit qlim: 2 of 2 in use);'"

# --- btop: the moved job starts first when a slot frees up
d=$(submit -q limited -o /dev/null sleep 60)
check "btop answers as LSF does" bash -c "btop $d | grep -qx 'Job <$d> has been moved to position 1 from top.'"
bkill "$a" >/dev/null
check "the job moved to the top starts first" wait_for 10 state_is "$d" RUN
check "... and the earlier one still waits" state_is "$c" PEND
clean

# --- a dispatch window
w=$(submit -q closedwin -o /dev/null true)
check "a closed dispatch window keeps the job pending" wait_for 10 bash -c \
  "reason_of $w | grep -qF ' The queue is inactivated by its time windows;'"
clean

# --- an exclusive job
x=$(submit -q excl -x -m hostA -o /dev/null sleep 60)
check "the exclusive job runs" wait_for 10 state_is "$x" RUN
check "bhosts shows its host closed_Excl" wait_for 5 bash -c "bhosts hostA | awk 'NR==2 {print \$2}' | grep -qx closed_Excl"
y=$(submit -m hostA -o /dev/null sleep 60)
check "no other job goes to that host" wait_for 10 bash -c \
  "reason_of $y | grep -qF ' Running an exclusive job: 1 host;'"
check "bjobs -l names the hosts behind each reason" bash -c \
  "bjobs -l $y | grep -qx ' Running an exclusive job: hostA;' && bjobs -l $y | grep -qx ' Not specified in job submission: hostB, hostC;'"
clean

# --- backfill around a slot reservation
r=$(submit -q big -W 3 -m hostA -o /dev/null sleep 600)
check "a job with a run limit runs" wait_for 10 state_is "$r" RUN
p=$(submit -q big -n 6 -o /dev/null sleep 5)
check "the parallel job reserves the five free slots" wait_for 10 bash -c \
  "bjobs_l_flat $p | grep -q 'Reserved <5> job slot(s) on host(s)'"
check "... with an estimated start from the run limit" bash -c \
  "bjobs_l_flat $p | grep -q 'Estimated job start time: [A-Z][a-z][a-z] [A-Z][a-z][a-z]'"
s=$(submit -q big -W 1 -o /dev/null sleep 5)
check "a short job with a run limit backfills" wait_for 10 state_is "$s" RUN
n=$(submit -q big -o /dev/null sleep 5)
check "a job without a run limit may not use the reserved slots" wait_for 10 bash -c \
  "reason_of $n | grep -qF 'Job slots reserved for a pending parallel job'"
bkill "$r" >/dev/null
check "the parallel job starts once the slots are free" wait_for 20 state_is "$p" RUN
check "... ahead of the later job, which still waits" state_is "$n" PEND
clean

# --- preemption
lows=()
for i in 1 2 3 4 5 6; do lows+=("$(submit -q low -o /dev/null sleep 600)"); done
check "low-priority jobs fill the cluster" wait_for 10 bash -c \
  "[ \"\$(bjobs -u all -q low 2>/dev/null | awk 'NR>1 && \$3==\"RUN\"' | wc -l)\" = 6 ]"
h=$(submit -q high -o /dev/null sleep 3)
check "the high-priority job runs at once" wait_for 10 state_is "$h" RUN
victim=$(bjobs -u all -q low 2>/dev/null | awk 'NR>1 && $3=="SSUSP" {print $1}')
check "one low-priority job is suspended for it" bash -c "[ -n '$victim' ] && [ \$(echo '$victim' | wc -w) = 1 ]"
check "... with LSF's reason" bash -c \
  "bjobs_l_flat $victim | grep -qF 'The job was preempted by a higher priority job'"
check "the preempted job resumes when the preemptor is done" wait_for 20 state_is "$victim" RUN
clean

# --- load-based suspension (hostC: r1m loadSched 2.0, loadStop 4.0)
l1=$(submit -m hostC -o /dev/null sleep 600)
l2=$(submit -m hostC -o /dev/null sleep 600)
check "two jobs run on hostC" wait_for 10 bash -c "[ \"\$(job_state $l1)\$(job_state $l2)\" = RUNRUN ]"
printf 'r1m = 9\nit = 0\n' >"$TEST_DIR/load.hostC"
check "load past loadStop suspends the later job" wait_for 15 state_is "$l2" SSUSP
check "bhosts shows hostC closed_Busy" bash -c "bhosts hostC | awk 'NR==2 {print \$2}' | grep -qx closed_Busy"
check "... saying which index" bash -c \
  "bjobs_l_flat $l2 | grep -qF 'Host load exceeded threshold: 1-minute CPU run queue length (r1m)'"
check "the earlier job follows one SBD_SLEEP_TIME later" wait_for 15 state_is "$l1" SSUSP
f=$(submit -q closedwin -o /dev/null sleep 600)
check "brun -f answers as LSF does" bash -c "brun -f -m hostC $f | grep -qx 'Job <$f> is being forced to run.'"
check "the forced job runs on hostC, past the closed window and the load" wait_for 10 bash -c \
  "[ \"\$(bjobs -u all $f | awk 'NR==2 {print \$3, \$6}')\" = 'RUN hostC' ]"
sleep 3
check "... and is not suspended for load" state_is "$f" RUN
check "brun of a running job is refused" bash -c "brun -m hostA $f 2>&1 | grep -qx 'Job <$f>: Job has already started'"
printf 'r1m = 0.1\nit = 0\n' >"$TEST_DIR/load.hostC"
check "load under loadSched resumes the jobs" wait_for 20 bash -c "[ \"\$(job_state $l1)\$(job_state $l2)\" = RUNRUN ]"
clean

# --- REQUEUE_EXIT_VALUES = EXCLUDE(3): requeued, and never again on the failing host
q=$(submit -q requeue -m 'hostA+2 hostB' -o rq.%J.out '[ "$LSB_HOSTS" = hostA ] && exit 3; echo $LSB_HOSTS')
check "the job exiting 3 on hostA is requeued and runs on hostB" wait_for 20 state_is "$q" DONE
check "... where it ran the second time" bash -c "grep -qx hostB rq.$q.out"

check "badmin perfmon view reports the passes" bash -c \
  "badmin perfmon view | grep -Eq '^Scheduling passes +[1-9][0-9]*$'"
harness_done
