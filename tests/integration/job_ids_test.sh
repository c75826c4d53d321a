#!/usr/bin/env bash
# Job ids and filters as LSF's job commands take them, against real daemons: index
# lists ("12[1-5,7]") in bjobs/bstop/bresume/bkill/bhist/bpeek; bkill/bstop/bresume
# -J/-q/-m/-stat with job ID 0, without a job ID (the last job) and with named jobs;
# bjobs -s and -ps with their reasons; bqueues -u and -m.
#   job_ids_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2"
conf_dir=$(dirname "$PARAMS")
cat >>"$conf_dir/lsb.queues" <<'Q'

Begin Queue
QUEUE_NAME   = team
PRIORITY     = 10
USERS        = devs
HOSTS        = allhosts
End Queue
Q
sed -i '/^staff/a devs         (alice)' "$conf_dir/lsb.users"
cluster_start "$TEST_DIR" "$BIN" || exit 1
lines() { "$@" 2>&1 | tr '\n' '|'; }

# --- index lists: each element of the list, LSF's errors for bad or too large ones
arr=$(submit -J "arr[1-10]" -o /dev/null sleep 300)
check "the array runs" wait_for 15 bash -c "[ \$(bjobs -r -noheader $arr | wc -l) = 10 ]"
check "bjobs \"ID[2-6:2]\" shows those elements" \
  [ "$(lines bjobs -noheader -o job_name "$arr[2-6:2]")" = "arr[2]|arr[4]|arr[6]|" ]
check "bstop \"ID[1,3,5-6]\" stops each" \
  [ "$(lines bstop "$arr[1,3,5-6]")" = "Job <$arr[1]> is being stopped|Job <$arr[3]> is being stopped|Job <$arr[5]> is being stopped|Job <$arr[6]> is being stopped|" ]
check "  and only those" [ "$(bjobs -noheader -o job_name -s "$arr" | tr '\n' ' ')" = "arr[1] arr[3] arr[5] arr[6] " ]
check "bresume \"ID[1, 3]\"" [ "$(lines bresume "$arr[1, 3]")" = "Job <$arr[1]> is being resumed|Job <$arr[3]> is being resumed|" ]
out=$(bkill "$arr[9-12]" 2>"$TEST_DIR/err")
rc=$?
check "bkill \"ID[9-12]\": the elements there are killed" \
  [ "$(tr '\n' '|' <<<"$out")" = "Job <$arr[9]> is being terminated|Job <$arr[10]> is being terminated|" ]
check "  the others are not found" \
  [ "$(tr '\n' '|' <"$TEST_DIR/err")" = "Job <$arr[11]>: No matching job found|Job <$arr[12]>: No matching job found|" ]
check "  exit status 255" [ "$rc" = 255 ]
check "bjobs of elements that are not there" [ "$(lines bjobs "$arr[11-12]")" = "Job <$arr[11]> is not found|Job <$arr[12]> is not found|" ]
check "a bad list is refused with LSF's words" [ "$(lines bjobs "$arr[5-1]")" = "$arr[5-1]: Bad job array index list.|" ]
check "a list past MAX_JOB_ARRAY_SIZE is refused before it is expanded" \
  [ "$(lines bkill "$arr[1-2147483647]")" = "$arr[1-2147483647]: Job array index too large (MAX_JOB_ARRAY_SIZE is 1000).|" ]
check "  and bkill acted on nothing" [ "$(bjobs -noheader -o stat "$arr[1-8]" | grep -c EXIT)" = 0 ]
check "bhist \"ID[2-3]\" shows those two elements" \
  bash -c "[ \"\$(bhist -w '$arr[2-3]' | awk 'NR>2 {print \$3}' | tr '\n' ' ')\" = 'arr[2] arr[3] ' ]"
check "bpeek takes one element only" [ "$(lines bpeek "$arr[1-2]")" = "$arr[1-2]: Illegal job array index. One element only.|" ]
bkill "$arr" >/dev/null 2>&1

# --- filters: 0 is every matching job, no job ID the last one, named jobs where they match
a=$(submit -J alpha -q short -o /dev/null sleep 300)
b=$(submit -J beta -o /dev/null sleep 300)
c=$(submit -J alpha2 -o /dev/null sleep 300)
p=$(submit -J later -b 23:59 -o /dev/null sleep 300)
check "the jobs run" wait_for 15 bash -c "[ \"\$(job_state $a)\$(job_state $b)\$(job_state $c)\" = RUNRUNRUN ]"
check "bstop -J 'alpha*' without a job ID stops the last such job" \
  [ "$(lines bstop -J 'alpha*')" = "Job <$c> is being stopped|" ]
check "bjobs -s: the suspending reason under the job" \
  bash -c "bjobs -s $c | sed -n 3p | grep -qx ' The job was suspended by user;'"
check "bresume -J 'alpha*' 0 resumes every such job" \
  bash -c "bresume -J 'alpha*' 0 2>&1 | grep -qx 'Job <$c> is being resumed'"
check "bkill -J with a named job that does not match" \
  [ "$(lines bkill -J 'alpha*' "$b")" = "Job <$b>: No matching job found|" ]
check "  leaves it running" state_is "$b" RUN
check "bkill -stat pend kills the pending job only" [ "$(lines bkill -stat pend)" = "Job <$p> is being terminated|" ]
check "bkill -q short -stat run" [ "$(lines bkill -q short -stat run)" = "Job <$a> is being terminated|" ]
check "  the others still run" wait_for 10 bash -c "[ \"\$(job_state $b)\$(job_state $c)\" = RUNRUN ]"
check "bkill -J of a name no job has" [ "$(lines bkill -J nosuch)" = "Job <nosuch> is not found|" ]
check "bkill -q of a queue without jobs" [ "$(lines bkill -q night 0)" = "No unfinished job found in queue <night>|" ]
check "bkill -m of a host without jobs" [ "$(lines bkill -m nosuch 0)" = "No unfinished job found on host/group <nosuch>|" ]
check "bkill -stat takes run, pend or susp" bash -c "bkill -stat done 2>&1 | head -1 | grep -qx 'bkill: -stat takes run, pend or susp'"
check "bkill -u alone kills the last job of the user" [ "$(lines bkill -u "$(id -un)")" = "Job <$c> is being terminated|" ]
check "  not the one before it" state_is "$b" RUN
held=$(submit -H -o /dev/null true)
check "bjobs -ps: pending and suspended jobs with their reasons" \
  bash -c "bjobs -ps | grep -A1 '^$held ' | sed -n 2p | grep -qx ' The job was suspended by the user while pending;'"
bkill 0 >/dev/null 2>&1

# --- bqueues -u and -m
queues() { bqueues -noheader "$@" 2>&1 | awk '{print $1}' | tr '\n' ' '; }
check "bqueues -u USER: the queues that user may submit to" [ "$(queues -u alice)" = "short normal night team " ]
check "  another user: not team (USERS = devs)" [ "$(queues -u "$(id -un)")" = "short normal night " ]
check "bqueues -u GROUP: the queues that name it (or all users)" [ "$(queues -u devs)" = "short normal night team " ]
check "bqueues -m HOST: the queues that use it" [ "$(queues -m hostA)" = "short normal team " ]
check "bqueues -m HOST_GROUP" [ "$(queues -m allhosts)" = "short normal team " ]
check "bqueues -m all: the queues on every host" [ "$(queues -m all)" = "short normal " ]
check "bqueues -m of an unknown host" [ "$(lines bqueues -m nosuch)" = "nosuch: Bad host name, host group name or cluster name|" ]
harness_done
