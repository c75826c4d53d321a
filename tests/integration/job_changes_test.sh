#!/usr/bin/env bash
# brequeue, bswitch and bmod against real daemons: what each changes, what each refuses
# (with nothing changed), and that the changes survive an mbatchd restart.
#   job_changes_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2"
cluster_start "$TEST_DIR" "$BIN" || exit 1
field() { bjobs -a -o "$2" -noheader "$1"; }

# --- brequeue
run=$(submit -m hostB -o /dev/null sleep 300)
check "job runs" wait_for 10 state_is "$run" RUN
check "brequeue -H says so" bash -c "[ \"\$(brequeue -H $run)\" = 'Job <$run> is being requeued' ]"
check "killed and requeued held (PSUSP)" wait_for 10 state_is "$run" PSUSP
check "requeued job has no execution host" [ "$(field "$run" exec_host)" = "-" ]
done_job=$(submit -m hostA -o twice.out 'echo ran')
check "job finishes" wait_for 10 state_is "$done_job" DONE
check "brequeue without -d refuses a DONE job" bash -c "brequeue $done_job 2>&1 | grep -qx 'Job <$done_job>: Job has already finished'"
check "refused: still DONE" state_is "$done_job" DONE
brequeue -d "$done_job" >/dev/null
check "brequeue -d runs it again" wait_for 10 bash -c "[ \$(grep -c '^ran\$' twice.out) = 2 ]"
check "and it is DONE again" wait_for 10 state_is "$done_job" DONE
check "brequeue of a held job without -p is refused" bash -c "brequeue $run 2>&1 | grep -qx 'Job <$run>: Job has not started yet'"
check "brequeue of an unknown job" bash -c "brequeue 9999 2>&1 | grep -qx 'Job <9999>: No matching job found'"

# --- bswitch
check "bswitch moves a held job" bash -c "[ \"\$(bswitch short $run)\" = 'Job <$run> is switched to queue <short>' ]"
check "the job is in short" [ "$(field "$run" queue)" = short ]
check "bswitch to an unknown queue is refused" bash -c "bswitch nosuch $run 2>&1 | grep -qx 'Job <$run>: nosuch: No such queue'"
check "refused: still in short" [ "$(field "$run" queue)" = short ]
check "bswitch of a finished job is refused" bash -c "bswitch short $done_job 2>&1 | grep -qx 'Job <$done_job>: Job has already finished'"

# --- bmod
check "bmod -W says so" bash -c "[ \"\$(bmod -W 10 $run)\" = 'Parameters of job <$run> are being changed' ]"
check "run limit is 10 minutes" [ "$(field "$run" runtimelimit)" = 10.0 ]
check "bmod -n beyond the cluster is refused" bash -c "bmod -n 99 $run 2>&1 | grep -qx 'Job <$run>: Too many processors requested'"
check "refused: -n unchanged" [ "$(field "$run" nreq_slot)" = 1 ]
check "bmod -R that does not parse is refused" bash -c "bmod -R 'select[' $run 2>&1 | grep -q '^Job <$run>: '"
check "refused: no requirement" [ "$(field "$run" effective_resreq)" = "-" ]
bmod -J renamed -P projB "$run" >/dev/null
check "bmod -J and -P" [ "$(field "$run" "job_name proj_name")" = "renamed projB" ]
running=$(submit -m hostC -o /dev/null sleep 300)
check "second job runs" wait_for 10 state_is "$running" RUN
check "bmod of a running job is refused" bash -c "bmod -W 5 $running 2>&1 | grep -qx 'Job <$running>: Job has already started'"
check "bmod without options" bash -c "bmod $run 2>&1 | grep -qx 'No options to modify. Job not modified.'"

# --- all of it survives a restart (the events replay)
restart_mbatchd
check "after restart: queue" [ "$(field "$run" queue)" = short ]
check "after restart: run limit, name, project" [ "$(field "$run" "runtimelimit job_name proj_name")" = "10.0 renamed projB" ]
check "after restart: held" state_is "$run" PSUSP
bmod -Wn "$run" >/dev/null
check "bmod -Wn removes the run limit" [ "$(field "$run" runtimelimit)" = "-" ]
bmod -R 'select[maxmem>999999999]' "$run" >/dev/null
check "bmod -R: the job's requirement is the new one" bash -c "bjobs_l_flat $run | grep -q 'Combined: select\[maxmem>999999999\]'"
bmod -Rn "$run" >/dev/null
check "bmod -Rn removes it from what the scheduler reads" bash -c "! bjobs_l_flat $run | grep -q 'maxmem>999999999'"
bresume "$run" >/dev/null
check "released, it runs in its new queue" wait_for 10 state_is "$run" RUN

# --- bhist and bacct tell what happened, from the event log and lsb.acct
check "bhist -l: submitted, dispatched, started, requeued held, switched, changed, resumed" bash -c "
  bhist -l $run | sed -zE 's/\n {21}//g' >hist.txt
  grep -q 'Submitted from host <[^>]*>, to Queue <normal>' hist.txt &&
  grep -q 'Dispatched 1 Task(s) on Host(s) <hostB>, Allocated 1 Slot(s) on Host(s) <hostB>;' hist.txt && grep -q 'Starting (Pid [0-9]*);' hist.txt &&
  grep -q 'Job has been requeued and held;' hist.txt && grep -q 'Switched to Queue <short>;' hist.txt &&
  grep -q 'Parameters of Job are changed;' hist.txt"
check "bhist -l: events in order" bash -c "grep -o 'Submitted\|Dispatched\|requeued\|Switched' hist.txt | tr '\n' ' ' | grep -q '^Submitted Dispatched requeued Switched Dispatched'"
check "bhist default lists the caller's unfinished jobs" bash -c "bhist | awk 'NR>2{print \$1}' | sort -n | tr '\n' ' ' | grep -qx '$run $running '"
bkill "$run" "$running" >/dev/null
check "bhist -a includes finished jobs" bash -c "bhist -a | awk '{print \$1}' | grep -qx '$done_job'"
check "bacct -l: the job ran twice, both DONE" bash -c "[ \$(bacct -l $done_job | grep -c 'Completed <done>.') = 2 ]"
exit_job=$(submit -o /dev/null 'exit 3')
check "exit job ends" wait_for 10 state_is "$exit_job" EXIT
check "bacct -l: a plain exit is 'Completed <exit>.'" bash -c "bacct -l $exit_job | grep -qx '.*: Completed <exit>\.'"
check "bacct -l: SWAP is a size (0M: not measured)" bash -c "bacct -l $exit_job | grep -A1 'HOG_FACTOR    MEM    SWAP' | tail -n 1 | grep -Eq ' [0-9.]+[KMG] +0M\$'"
check "bacct -l: a killed job names its TERM_ reason" bash -c \
  "bacct -l $run | sed -zE 's/\n {21}//g' | grep -qx '.*: Completed <exit>; TERM_OWNER: job killed by owner\.'"
check "bacct -l: LSF 10's dispatch line" bash -c "bacct -l $exit_job | sed -zE 's/\n {21}//g' | grep -Eq 'Dispatched 1 Task\(s\) on Host\(s\) <host[A-C]>, Allocated 1 Slot\(s\) on Host\(s\) <host[A-C]>;'"
check "bacct header as LSF's" bash -c "bacct $exit_job | grep -qx '  - completed normally or exited' && bacct -u all $exit_job | grep -qx '  - submitted by all users.'"
check "bacct -C: completed in the interval" bash -c "bacct -C .-1, $exit_job | grep -Eq 'Total number of done jobs: +0 +Total number of exited jobs: +1'"
check "bacct -C: none outside it" bash -c "bacct -C 2001/1/1,2001/1/2 $exit_job | grep -qx 'No matching job found'"
check "bacct -S and -D: submitted and dispatched in the interval" bash -c \
  "bacct -S ,. -D .-1, $exit_job | grep -Eq 'exited jobs: +1' && bacct -S 2001/1/1,2001/1/2 $exit_job | grep -qx 'No matching job found'"
check "bacct -b is refused by name" bash -c "out=\$(bacct -b 2>&1); [ \$? = 255 ] && [ \"\$out\" = 'bacct: -b: option not supported' ]"
check "bacct -f is refused" bash -c "bacct -f lsb.acct.1 2>&1 | grep -q '^bacct: -f: option not supported'"

# --- bhist -l as LSF prints it: the execution line, the dated end lines, LSF 10's dispatch line
bhist -l "$exit_job" | sed -zE 's/\n {21}//g' >exit_hist.txt
check "bhist -l: Running with execution home, CWD and pid after Starting" bash -c \
  "grep -A1 'Starting (Pid' exit_hist.txt | grep -Eq ': Running with execution home <[^>]+>, Execution CWD <[^>]+>, Execution Pid <[0-9]+>;'"
check "bhist -l: a plain exit ends 'Completed <exit>;'" bash -c \
  "grep -A1 'Exited with exit code 3. The CPU time used is' exit_hist.txt | grep -qx '.*: Completed <exit>;'"
check "bhist -l: Dispatched 1 Task(s) ..., Allocated 1 Slot(s) ..." \
  grep -Eq 'Dispatched 1 Task\(s\) on Host\(s\) <host[A-C]>, Allocated 1 Slot\(s\) on Host\(s\) <host[A-C]>;' exit_hist.txt
check "bhist -l: a killed job ends with its TERM_ reason" bash -c \
  "bhist -l $run | sed -zE 's/\n {21}//g' | grep -qx '.*: Completed <exit>; TERM_OWNER: job killed by owner;'"
check "bhist -l: a DONE job ends 'Post job process done successfully;'" bash -c \
  "bhist -l $done_job | grep -A1 'Done successfully' | grep -qx '.*: Post job process done successfully;'"

# --- bhist: array elements and LSF's selection options
arr=$(submit -J "hx[1-3]" -o /dev/null true)
check "array finishes" wait_for 20 bash -c "[ \"\$(bjobs -a -o stat -noheader $arr | sort -u)\" = DONE ]"
check "bhist \"ID[i]\": that element only" bash -c "[ \"\$(bhist -a '$arr[2]' | awk 'NR>2 {print \$1}')\" = '$arr[2]' ]"
check "bhist -l \"ID[i]\": that element only" bash -c "[ \"\$(bhist -l '$arr[2]' | grep -o '^Job <[^>]*>')\" = 'Job <$arr[2]>' ]"
check "bhist ID: every element" bash -c "[ \$(bhist -a $arr | awk 'NR>2' | wc -l) = 3 ]"
check "bhist -J with a wildcard" bash -c "[ \"\$(bhist -a -J 'hx*' | awk 'NR>2 {print \$1}' | tr '\n' ' ')\" = '$arr[1] $arr[2] $arr[3] ' ]"
check "bhist -J: no match" bash -c "bhist -a -J nosuch 2>&1 | grep -qx 'No matching job found'"
check "bhist -q: by the job's queue now" bash -c "bhist -a -q short | awk '{print \$1}' | grep -qx $run && ! bhist -a -q short | awk '{print \$1}' | grep -qx $done_job"
check "bhist -m: jobs dispatched to the host" bash -c "bhist -a -m hostA | awk '{print \$1}' | grep -qx $done_job && bhist -a -m hostB | awk '{print \$1}' | grep -qx $run"
check "bhist -P: by the project (bmod -P too)" bash -c "[ \"\$(bhist -a -P projB | awk 'NR>2 {print \$1}')\" = $run ]"
check "bhist -C: completed in the interval" bash -c "bhist -C .-1, | awk '{print \$1}' | grep -qx $exit_job"
check "bhist -C: none outside it" bash -c "bhist -C 2001/1/1,2001/1/2 2>&1 | grep -qx 'No matching job found'"
check "bhist -S: submitted in the interval, any state" bash -c "bhist -S .-1,. | awk '{print \$1}' | grep -qx $done_job"
check "bhist -C with a bad time is refused" bash -c "bhist -C 2001/13/1, 2>&1 | grep -q '^bhist: -C 2001/13/1,: bad time interval'"
check "bhist -b is refused by name" bash -c "out=\$(bhist -b 2>&1); [ \$? = 255 ] && [ \"\$out\" = 'bhist: -b: option not supported' ]"
check "bhist -f is refused" bash -c "bhist -f lsb.events 2>&1 | grep -q '^bhist: -f: option not supported'"
check "bacct summary counts done and exited jobs" bash -c "bacct $done_job $exit_job | grep -Eq 'Total number of done jobs: +2 +Total number of exited jobs: +1'"
check "bacct -e: only exited" bash -c "bacct -e | grep -Eq 'Total number of done jobs: +0 +Total number of exited jobs: +[1-9]'"

# --- bsub -Q, -env, BSUB_STDERR; bkill -r
once=$(submit -Q 3 -o /dev/null 'if [ -f marker ]; then exit 0; fi; touch marker; exit 3')
check "-Q 3: requeued after exit 3, then DONE" wait_for 20 state_is "$once" DONE
check "-Q 3: bhist shows the requeue" bash -c "bhist -l $once | grep -q 'Job has been requeued'"
never=$(submit -Q "all ~3" -o /dev/null 'exit 3')
check "-Q 'all ~3': exit 3 is not requeued" wait_for 20 state_is "$never" EXIT
check "-Q with a bad value" bash -c "bsub -Q 300 true 2>&1 | grep -q 'Bad requeue exit value specification'"
export FOO=bar BAZ=1
none=$(submit -env "none, FOO" -o env_none.out 'echo "[$FOO][$BAZ]"')
except=$(submit -env "all, ~BAZ" -o env_except.out 'echo "[$FOO][$BAZ]"')
given=$(submit -env "FOO=other" -o env_given.out 'echo "[$FOO][$BAZ]"')
default=$(submit -o env_default.out 'echo "[$FOO][$BAZ]"')
check "-env jobs finish" wait_for 20 bash -c "state_is $none DONE && state_is $except DONE && state_is $given DONE && state_is $default DONE"
check "-env 'none, FOO'" [ "$(head -1 env_none.out)" = "[bar][]" ]
check "-env 'all, ~BAZ'" [ "$(head -1 env_except.out)" = "[bar][]" ]
check "-env 'FOO=other'" [ "$(head -1 env_given.out)" = "[other][]" ]
check "no -env: everything" [ "$(head -1 env_default.out)" = "[bar][1]" ]
unset FOO BAZ
check "BSUB_STDERR=y: the confirmation on standard error" bash -c \
  "out=\$(BSUB_STDERR=y bsub -o /dev/null true 2>err.txt); [ -z \"\$out\" ] && grep -Eq '^Job <[0-9]+> is submitted' err.txt"
forced=$(submit -o /dev/null sleep 300)
check "job to remove runs" wait_for 10 state_is "$forced" RUN
check "bkill -r says so" bash -c "[ \"\$(bkill -r $forced)\" = 'Job <$forced> is being terminated' ]"
check "bkill -r: EXIT at once" state_is "$forced" EXIT
check "bkill -r: TERM_FORCE_OWNER" bash -c "bjobs -a -o exit_reason -noheader $forced | grep -qx TERM_FORCE_OWNER"

# --- bmig: a rerunnable job starts over elsewhere; others are refused
mover=$(submit -r -m hostB -o /dev/null sleep 300)
stay=$(submit -m hostB -o /dev/null sleep 300)
check "jobs to migrate run" wait_for 10 bash -c "state_is $mover RUN && state_is $stay RUN"
check "bmig says so" bash -c "[ \"\$(bmig -m hostC $mover)\" = 'Job <$mover> is being migrated' ]"
check "migrated job runs on hostC" wait_for 20 bash -c "[ \"\$(bjobs -o exec_host -noheader $mover)\" = hostC ] && state_is $mover RUN"
check "bmig of a job that is not rerunnable is refused" bash -c "bmig $stay 2>&1 | grep -q '^Job <$stay>: Job is not rerunnable'"
check "refused: still on hostB" [ "$(bjobs -o exec_host -noheader "$stay")" = hostB ]
bkill "$mover" "$stay" >/dev/null

# --- bmod of a running job: -W and -M only, with LSB_MOD_ALL_JOBS=Y
hog=$(submit -o /dev/null '(head -c 60000000 /dev/zero; sleep 60) | tail -n 1')
check "the memory hog runs" wait_for 10 state_is "$hog" RUN
echo "LSB_MOD_ALL_JOBS=Y" >>"$LSF_ENVDIR/lsf.conf"
badmin reconfig >/dev/null 2>&1
check "other changes to a running job are still refused" bash -c \
  "bmod -J renamed $hog 2>&1 | grep -qx 'Job <$hog>: Job has already started; only -W, -Wn, -M and -Mn change a running job'"
check "  and its name is unchanged" bash -c "bjobs -o job_name -noheader $hog | grep -vq renamed"
check "bmod -M of a running job" bash -c "[ \"\$(bmod -M 20MB $hog)\" = 'Parameters of job <$hog> are being changed' ]"
check "  its host enforces the new limit: TERM_MEMLIMIT" wait_for 20 bash -c \
  "state_is $hog EXIT && bjobs_l_flat $hog | grep -q TERM_MEMLIMIT"

# --- bhist -n: how many event log files to read (after a snapshot moved the old one aside)
early=$(submit -o /dev/null true)
check "the early job is done" wait_for 10 state_is "$early" DONE
sed -i '/^Begin Parameters/a MAX_JOB_NUM = 1' "$PARAMS"
badmin reconfig >/dev/null 2>&1
late=$(submit -o /dev/null true)
check "a finished job past MAX_JOB_NUM moves lsb.events aside" wait_for 10 test -f "$TEST_DIR/work/quickstart/logdir/lsb.events.1"
check "bhist reads every file kept by default" bash -c "bhist -a $early | grep -q '^$early '"
check "bhist -n 0 reads them all too" bash -c "bhist -n 0 -a $early | grep -q '^$early '"
check "bhist -n 1 reads lsb.events only" bash -c "bhist -n 1 -a $early 2>&1 | grep -qx 'No matching job found'"
check "bhist -n 101 is refused" bash -c "bhist -n 101 2>&1 | grep -qx 'bhist: -n 101: the number of event log files must be 0 (all) to 100'"
harness_done
