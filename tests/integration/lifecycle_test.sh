#!/usr/bin/env bash
# Every job and host/queue state transition of the runtime, driven only through the
# real commands against real daemons, and the output formats users parse.
#   lifecycle_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2"
cluster_start "$TEST_DIR" "$BIN" || exit 1

# --- formats (times masked)
check "lsid names cluster and master" bash -c 'lsid | grep -qx "My cluster name is quickstart" && lsid | grep -qx "My master name is hostA"'
check "bhosts header is LSF's" bash -c '[ "$(bhosts | head -1)" = "HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV " ]'
check "bhosts rows" bash -c '[ "$(bhosts | sed -n 2p)" = "hostA              ok              -      4      0      0      0      0      0" ]'
check "bqueues table" bash -c 'diff <(bqueues) - <<T
QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP
short            40  Open:Active       -    4    -    -     0     0     0     0
normal           30  Open:Active       -    -    -    -     0     0     0     0
$(printf "%s%-18s" "night            20  " "$(bqueues | awk "/^night/{print \$3}")")-    -    -    -     0     0     0     0
T'
check "bqueues -l" bash -c "bqueues -l short | grep -qx 'QUEUE: short' && bqueues -l short | grep -q 'Open:Active'"
check "bhosts -w" bash -c "bhosts -w | sed -n 2p | grep -q '^hostA  *ok '"
check "bsub -x to a queue without EXCLUSIVE" bash -c "bsub -x true 2>&1 | grep -qx 'Queue does not accept EXCLUSIVE jobs. Job not submitted.'"
check "no jobs: No unfinished job found" bash -c '[ "$(bjobs 2>&1)" = "No unfinished job found" ]'
check "bsub confirmation, default queue" bash -c 'bsub -o /dev/null true | grep -Eqx "Job <[0-9]+> is submitted to default queue <normal>."'
check "bsub confirmation, named queue" bash -c 'bsub -q short -o /dev/null true | grep -Eqx "Job <[0-9]+> is submitted to queue <short>."'

# --- PEND -> RUN -> DONE, with output, environment and exit codes
id=$(submit -J envjob -o env.%J.out 'echo "$LSB_JOBID $LSB_JOBNAME $LSB_QUEUE $LSB_HOSTS"; pwd')
check "job runs to DONE" wait_for 10 state_is "$id" DONE
check "job environment and cwd" bash -c "grep -qx '$id envjob normal host[ABC]' env.$id.out && grep -qx '$TEST_DIR/out' env.$id.out"
check "bjobs default line" bash -c "bjobs -a $id | sed -n 2p | grep -Eq '^$id +root +DONE  normal     [^ ]+ +host[ABC]       envjob     [A-Z][a-z]{2} [ 0-9]{2} [0-9]{2}:[0-9]{2}\$'"
id=$(submit -o /dev/null 'exit 3')
check "non-zero exit is EXIT" wait_for 10 state_is "$id" EXIT
check "bjobs -l says the exit code" bash -c "bjobs_l_flat $id | grep -q 'Exited with exit code 3.'"
bsub -K -o /dev/null 'exit 5' >/dev/null
check "bsub -K returns the job's exit code" [ $? = 5 ]

# --- a command of plain words runs without the shell, as the shell would have run it
id=$(submit -o plain.%J.out printenv LSB_JOBID)
check "a plain command finds its program along PATH and gets the job's environment" \
  wait_for 10 bash -c "grep -qx '$id' plain.$id.out"
printf '#!/bin/sh\necho "args: $*"\n' >withbang.sh
printf 'echo "no #! line: $1"\n' >nobang.sh
chmod +x withbang.sh nobang.sh
id=$(submit -o bang.%J.out ./withbang.sh a b)
check "  a script with #! gets its words as arguments" wait_for 10 bash -c "grep -qx 'args: a b' bang.$id.out"
id=$(submit -o nobang.%J.out ./nobang.sh x)
check "  a script without #! is run by sh, as sh runs it" wait_for 10 bash -c "grep -qx 'no #! line: x' nobang.$id.out"
id=$(submit -o missing.%J.out no_such_program_here arg)
check "  a program not found ends EXIT with sh's exit code 127" wait_for 10 state_is "$id" EXIT
check "  and sh's message in the output" bash -c "grep -q 'no_such_program_here: .*not found' missing.$id.out && \
  bjobs_l_flat $id | grep -q 'Exited with exit code 127.'"
id=$(submit -o hostfile.%J.out 'cat "$LSB_DJOB_HOSTFILE"; echo "$LSB_HOSTS"')
check "LSB_DJOB_HOSTFILE lists the job's slot" wait_for 10 bash -c "[ \"\$(sed -n 1p hostfile.$id.out)\" = \"\$(sed -n 2p hostfile.$id.out)\" ] && grep -qx 'host[ABC]' <(sed -n 1p hostfile.$id.out)"
id=$(submit -n 2 -R 'span[ptile=1]' -o hostfile2.%J.out 'cat "$LSB_DJOB_HOSTFILE"')
check "  one line per slot for a job on two hosts" wait_for 10 bash -c "[ \"\$(sed -n '1,2p' hostfile2.$id.out | sort -u | grep -c '^host[ABC]\$')\" = 2 ]"

# --- scripts with #BSUB, -i/-e, pre-exec, load-based select
printf '#!/bin/sh\n#BSUB -J scripted\n#BSUB -o script.%%J.out\necho "from script $LSB_JOBNAME"\n' >job.sh
id=$(bsub <job.sh | sed -n 's/^Job <\([0-9]*\)>.*/\1/p')
check "script on stdin runs with #BSUB options" wait_for 10 bash -c "grep -qx 'from script scripted' script.$id.out"
id=$(bsub -J fromcli <job.sh | sed -n 's/^Job <\([0-9]*\)>.*/\1/p')
check "  the command line wins over #BSUB, as in LSF" wait_for 10 bash -c "grep -qx 'from script fromcli' script.$id.out"
held=$(submit -H -J held true)
check "bjobs -w: a job that never ran has EXEC_HOST -, so fields split into their columns" \
  bash -c "bjobs -w $held | awk 'NR==2 {print \$6, \$7}' | grep -qx -- '- held'"
check "  bjobs -w -W too" bash -c "bjobs -w -W $held | awk 'NR==2 {print \$6, \$7}' | grep -qx -- '- held'"
check "bjobs -l: continuation lines are indented 21 spaces, as parsers that strip 21 expect" \
  bash -c "bjobs -l $held | sed -zE 's/\\n {21}//g' | grep -q 'Project <default>, Status <PSUSP>, Queue <[a-z]*>, Job Priority <[0-9]*>, Command <true>'"
bkill "$held" >/dev/null 2>&1
echo "input line" >in.txt
id=$(submit -i in.txt -o io.%J.out -e io.%J.err 'cat; echo oops >&2')
check "-i feeds stdin, -e gets stderr" wait_for 10 bash -c "grep -qx 'input line' io.$id.out && grep -qx oops io.$id.err"
id=$(submit -E "test -f $TEST_DIR/out/flag" -o pre.%J.out 'echo ran')
check "failed pre-exec keeps the job pending" wait_for 10 bash -c "bjobs -p $id | grep -q \"The job's pre-exec command exited with non-zero status;\""
touch flag
check "job runs once pre-exec succeeds" wait_for 15 bash -c "grep -qx ran pre.$id.out"
# A pre-exec that fails three times, then passes: each failure is reported for its own
# run, the job waits between tries, and the job itself runs exactly once.
pre="n=\$(cat $TEST_DIR/out/tries.\$LSB_JOBID 2>/dev/null || echo 0); n=\$((n+1)); echo \$n >$TEST_DIR/out/tries.\$LSB_JOBID; [ \$n -ge 4 ]"
t0=$(date +%s)
id=$(submit -E "$pre" -o /dev/null "echo ran >>$TEST_DIR/out/runs.\$LSB_JOBID")
check "flaky pre-exec: the job ends DONE" wait_for 20 state_is "$id" DONE
t1=$(date +%s)
check "  after exactly four pre-execs" [ "$(cat tries.$id)" = 4 ]
check "  and one run of the job" [ "$(wc -l <runs.$id)" = 1 ]
check "  requeued three times" bash -c "[ \$(bhist -l $id | tr -d '\n' | tr -s ' ' | grep -o 'Job has been requeued' | wc -l) = 3 ]"
check "  with a pause of at least a second before each retry" [ $((t1 - t0)) -ge 3 ]
# LOCAL_MAX_PREEXEC_RETRY: past it the job is held (PSUSP), or exits under ..._ACTION=EXIT;
# a pre-exec exiting 99 ends the job at once.
sed -i '/^Begin Parameters/a LOCAL_MAX_PREEXEC_RETRY = 2' "$PARAMS"
badmin reconfig >/dev/null 2>&1
id=$(submit -E "$pre" -o /dev/null "echo ran >>$TEST_DIR/out/runs.\$LSB_JOBID")
check "retry limit: held in PSUSP after 2 failures" wait_for 20 state_is "$id" PSUSP
check "  the pre-exec ran twice" [ "$(cat tries.$id)" = 2 ]
bresume "$id" >/dev/null
check "  bresume lets it try again: it runs once the pre-exec passes" wait_for 20 state_is "$id" DONE
check "  at its fourth pre-exec" [ "$(cat tries.$id)" = 4 ]
sed -i '/^Begin Parameters/a LOCAL_MAX_PREEXEC_RETRY_ACTION = EXIT' "$PARAMS"
badmin reconfig >/dev/null 2>&1
id=$(submit -E "$pre" -o /dev/null "echo ran >>$TEST_DIR/out/runs.\$LSB_JOBID")
check "retry limit with EXIT: the job exits" wait_for 20 state_is "$id" EXIT
check "  having never run" bash -c "[ ! -e runs.$id ] && [ \$(cat tries.$id) = 2 ]"
sed -i '/LOCAL_MAX_PREEXEC_RETRY/d' "$PARAMS"
badmin reconfig >/dev/null 2>&1
id=$(submit -E "exit 99" -o /dev/null true)
check "pre-exec exit 99: the job exits without retry" wait_for 10 state_is "$id" EXIT
check "  as TERM_PREEXEC_FAIL" bash -c "bjobs_l_flat $id | grep -q TERM_PREEXEC_FAIL"
echo "r1m = 9.5" >"$TEST_DIR/load.hostA"
echo "r1m = 9.5" >"$TEST_DIR/load.hostB"
echo "r1m = 0.5" >"$TEST_DIR/load.hostC"  # not the machine's real load, which a busy CI may push past 5
check "load from the load file reaches mbatchd" wait_for 10 bash -c "bhosts -l hostA | grep -q ' Total *[0-9.]* *9.5' && bhosts -l hostB | grep -q ' Total *[0-9.]* *9.5' && bhosts -l hostC | grep -q ' Total *[0-9.]* *0.5'"
id=$(submit -R 'select[r1m < 5]' -o sel.%J.out 'echo $LSB_HOSTS')
check "select[] on load picks the idle host" wait_for 10 bash -c "grep -qx hostC sel.$id.out"
: >"$TEST_DIR/load.hostA"
: >"$TEST_DIR/load.hostB"
: >"$TEST_DIR/load.hostC"

# --- parallel and arrays
id=$(submit -n 6 -o par.%J.out 'echo $LSB_MCPU_HOSTS')
check "parallel job spans hosts" wait_for 10 state_is "$id" DONE
check "LSB_MCPU_HOSTS lists 6 slots" bash -c "awk '{s=0; for(i=2;i<=NF;i+=2) s+=\$i; exit s!=6}' par.$id.out"
# The variables LSF sets for job execution that scripts read (IBM's list).
id=$(submit -n 2,3 -P envproj -o env.%J.out -e env.%J.err 'env | grep -E "^(LSB_|LS_)" | sort; echo "own pid $$"')
check "env job DONE" wait_for 10 state_is "$id" DONE
envline() { sed -n "s/^$1=//p" "env.$id.out"; }
check "LSB_ERRORFILE is the -e file" [ "$(envline LSB_ERRORFILE)" = "env.$id.err" ]
check "LSB_DJOB_NUMPROC counts the slots given" [ "$(envline LSB_DJOB_NUMPROC)" = "$(envline LSB_HOSTS | wc -w)" ]
check "LSB_MAX_NUM_PROCESSORS is the most asked for" [ "$(envline LSB_MAX_NUM_PROCESSORS)" = 3 ]
check "LSB_PROJECT_NAME" [ "$(envline LSB_PROJECT_NAME)" = envproj ]
check "LSB_EXEC_CLUSTER" [ "$(envline LSB_EXEC_CLUSTER)" = quickstart ]
check "LS_EXECCWD is where it ran" [ "$(envline LS_EXECCWD)" = "$PWD" ]
check "LS_JOBPID is the job's own pid" bash -c "grep -qx \"own pid \$(sed -n 's/^LS_JOBPID=//p' env.$id.out)\" env.$id.out"
id=$(submit -J "arr[1-5]%2" -o arr.%J.%I 'echo $LSB_JOBINDEX; sleep 0.5')
check "array limit holds elements back" wait_for 5 bash -c "bjobs -p $id | grep -q 'The job array has reached its running element limit (2 of 2 running);'"
check "array elements all DONE" wait_for 15 bash -c "[ \$(bjobs -a $id | grep -c DONE) = 5 ]"
check "array outputs use %I" bash -c "[ \"\$(head -1 arr.$id.3)\" = 3 ]"
check "an element by index" bash -c "bjobs -a '$id[2]' | grep -q 'arr\[2\]'"

# --- -m: hosts and host groups, with preference levels
id=$(submit -m "hostC+2" -o m.%J.out 'echo $LSB_HOSTS')
check "-m host runs there" wait_for 10 bash -c "grep -qx hostC m.$id.out"
id=$(submit -m allhosts -o m.%J.out 'echo $LSB_HOSTS')
check "-m host group runs on a member" wait_for 10 bash -c "grep -Eqx 'host[ABC]' m.$id.out"

# --- dependencies
a=$(submit -J first -o /dev/null 'sleep 1')
b=$(submit -w "done($a)" -o /dev/null true)
check "dependent job waits" wait_for 3 bash -c "bjobs -p $b | grep -q 'Job dependency condition not satisfied;'"
check "dependent job runs after" wait_for 10 state_is "$b" DONE
c=$(submit -w 'exit(first)' -o /dev/null true)
check "never-satisfiable dependency says so" wait_for 5 bash -c "bjobs -p $c | grep -q 'Dependency condition invalid or never satisfied;'"
bkill "$c" >/dev/null

# --- begin time, -noheader
later=$(date -d '+5 min' +%H:%M)
id=$(submit -b "$later" -o /dev/null true)
check "bsub -b keeps the job pending" wait_for 5 bash -c "bjobs -p $id | grep -q 'The job has a specified start time;'"
check "bjobs -noheader" bash -c "[ \"\$(bjobs -noheader $id | awk '{print \$1, \$3}')\" = '$id PEND' ]"
bkill "$id" >/dev/null

# --- control: kill, stop, resume
id=$(submit -o /dev/null 'sleep 30')
check "running" wait_for 10 state_is "$id" RUN
check "bstop message" bash -c "[ \"\$(bstop $id)\" = 'Job <$id> is being stopped' ]"
check "USUSP after bstop" state_is "$id" USUSP
job_pid() {  # the job's process (group leader), from its sbatchd's state directory
  local host
  host=$(bjobs "$1" | awk 'NR==2 {print $6}')
  awk '$1 == "pid" {print $2; exit}' "$TEST_DIR/work/quickstart/sbatchd/$host/$1.0.run"
}
pid=$(job_pid "$id")
check "process really stopped" wait_for 5 bash -c "ps -o stat= -p $pid | grep -q T"
check "bresume message" bash -c "[ \"\$(bresume $id)\" = 'Job <$id> is being resumed' ]"
# bresume makes it SSUSP, as in LSF; the next pass resumes it once the host's load allows.
check "RUN after bresume" wait_for 10 state_is "$id" RUN
check "process running again" wait_for 5 bash -c "ps -o stat= -p $pid | grep -qv T"
check "bkill -s message" bash -c "[ \"\$(bkill -s USR1 $id)\" = 'Job <$id> is being signaled' ]"
check "bkill message" bash -c "[ \"\$(bkill $id)\" = 'Job <$id> is being terminated' ]"
check "killed job is EXIT" wait_for 10 state_is "$id" EXIT
check "bkill of a finished job" bash -c "bkill $id 2>&1 | grep -qx 'Job <$id>: Job has already finished'"
check "bkill of an unknown job" bash -c "bkill 999999 2>&1 | grep -qx 'Job <999999>: No matching job found'"
id=$(submit -H -o /dev/null true)
check "bsub -H is PSUSP" state_is "$id" PSUSP
bresume "$id" >/dev/null
check "resumed held job runs" wait_for 10 state_is "$id" DONE

# --- jobs run as the submitting user; others may not kill them
id -u lsfsched_it >/dev/null 2>&1 || useradd -M -s /bin/sh lsfsched_it
chmod 755 "$TEST_DIR"
mkdir -p "$TEST_DIR/shared" && chmod 1777 "$TEST_DIR/shared"
as_user() { (cd "$TEST_DIR/shared" && runuser -u lsfsched_it -- env LSF_ENVDIR="$LSF_ENVDIR" "$@"); }
id=$(as_user "$BIN/bsub" -o "$TEST_DIR/shared/who.%J" 'id -un; sleep 2' | sed -n 's/^Job <\([0-9]*\)>.*/\1/p')
check "job submitted as another user" [ -n "$id" ]
check "it runs as that user" wait_for 10 bash -c "grep -qx lsfsched_it '$TEST_DIR/shared/who.$id'"
check "bjobs -w shows its owner" bash -c "bjobs -w -u all $id | grep -q lsfsched_it"
other=$(submit -o /dev/null 'sleep 5')
msg=$(as_user "$BIN/bkill" "$other" 2>&1)
check "the user may not kill another's job" [ "$msg" = "Job <$other>: User permission denied" ]
bkill "$other" >/dev/null
check "the owner's job ends DONE" wait_for 10 state_is "$id" DONE

# --- MEMLIMIT: the job's process group is killed past it
id=$(submit -M 20MB -o /dev/null '(head -c 100000000 /dev/zero; sleep 20) | tail -n 1')
check "job over MEMLIMIT is EXIT" wait_for 15 state_is "$id" EXIT
check "bjobs -l gives TERM_MEMLIMIT" bash -c "bjobs_l_flat $id | grep -q 'Completed <exit>; TERM_MEMLIMIT: job killed after reaching LSF memory usage limit.'"
id=$(submit -o /dev/null 'sleep 30')
wait_for 10 state_is "$id" RUN
bkill "$id" >/dev/null
check "killed job says TERM_OWNER" wait_for 10 bash -c "bjobs_l_flat $id | grep -q 'TERM_OWNER: job killed by owner'"

# --- bsub -pack: one submission per line, in one request; a bad line stops it there
printf '# two good lines, a bad one, a good one\n-q short -J packed1 -o /dev/null true\n\n-J "packed two" -o /dev/null echo "a b"\n-q nosuch true\n-J packed4 -o /dev/null true\n' >pack.txt
before=$(job_count)
bsub -pack pack.txt >pack.out 2>pack.err
code=$?
check "bsub -pack stops at the bad line (exit 255)" [ "$code" = 255 ]
check "  the lines before it became jobs" [ "$(grep -c '^Job <[0-9]*> is submitted to' pack.out)" = 2 ]
check "  and no others" [ $(($(job_count) - before)) = 2 ]
check "  quotes are a shell's: the name has its space" bash -c "bjobs -a -w -J 'packed two' | grep -q 'packed two'"
check "  the refusal names the file and line" grep -qx 'pack.txt:5: nosuch: No such queue. Job not submitted.' pack.err
echo "LSB_PACK_SKIP_ERROR=Y" >>"$LSF_ENVDIR/lsf.conf"
before=$(job_count)
bsub -pack pack.txt >pack.out 2>pack.err
check "with LSB_PACK_SKIP_ERROR=Y the good lines after it go too" [ $(($(job_count) - before)) = 3 ]
check "  the last line's job among them" bash -c "bjobs -a -w -J packed4 | grep -q packed4"
sed -i '/^LSB_PACK_SKIP_ERROR/d' "$LSF_ENVDIR/lsf.conf"

# --- lsb.acct: one JOB_FINISH line per finished job
check "lsb.acct has JOB_FINISH records" bash -c "grep -c '^\"JOB_FINISH\" \"10.1\" ' '$TEST_DIR/work/quickstart/logdir/lsb.acct' | awk '{exit \$1 < 10}'"
check "lsb.acct records the queue and exit status" bash -c "grep -q '^\"JOB_FINISH\" \"10.1\" [0-9]* $id [0-9]* 0 1 .*\"normal\"' '$TEST_DIR/work/quickstart/logdir/lsb.acct'"

# --- hosts and queues
check "hclose message" bash -c "[ \"\$(badmin hclose hostA 2>&1)\" = 'Close <hostA> ...... done' ]"
check "closed_Adm" bash -c "bhosts hostA | grep -q closed_Adm"
badmin hclose hostB hostC >/dev/null 2>&1
id=$(submit -o /dev/null true)
check "job pends on closed hosts" wait_for 5 bash -c "bjobs -p $id | grep -q 'Closed by LSF administrator: 3 hosts;'"
badmin hopen >/dev/null 2>&1
check "hopen lets it run" wait_for 10 state_is "$id" DONE
check "qclose message" bash -c "[ \"\$(badmin qclose short)\" = 'Queue <short> is closed' ]"
check "closed queue refuses jobs" bash -c "bsub -q short true 2>&1 | grep -qx 'short: Queue has been closed. Job not submitted.'"
check "bqueues shows Closed" bash -c "bqueues short | grep -q 'Closed:Active'"
badmin qopen short >/dev/null
check "qinact message" bash -c "[ \"\$(badmin qinact normal)\" = 'Queue <normal> is inactivated' ]"
id=$(submit -o /dev/null true)
check "inactive queue holds jobs" wait_for 5 bash -c "bjobs -p $id | grep -q 'The queue is inactivated by the administrator;'"
badmin qact normal >/dev/null
check "qact lets it run" wait_for 10 state_is "$id" DONE

# --- reconfig
QUEUES="$TEST_DIR/conf/lsbatch/quickstart/configdir/lsb.queues"
cp "$QUEUES" "$TEST_DIR/lsb.queues.good"
printf '\nBegin Queue\nQUEUE_NAME = extra\nPRIORITY = 10\nJOB_STARTER = env STARTER=yes\nPRE_EXEC = touch %s/queue_pre\nPOST_EXEC = touch %s/queue_post\nEnd Queue\n' "$TEST_DIR/out" "$TEST_DIR/out" >>"$QUEUES"
long=$(submit -o /dev/null 'sleep 3')
wait_for 10 state_is "$long" RUN
check "reconfig applies" bash -c "badmin reconfig | grep -qx 'Reconfiguration initiated'"
check "new queue is there" bash -c "bqueues extra | grep -q '^extra'"
id=$(submit -q extra -Ep "touch $TEST_DIR/out/job_post" -o starter.%J.out printenv STARTER)
check "queue JOB_STARTER wraps the command" wait_for 10 bash -c "grep -qx yes starter.$id.out"
check "queue PRE_EXEC, POST_EXEC and job -Ep ran" wait_for 10 bash -c "[ -f queue_pre ] && [ -f queue_post ] && [ -f job_post ]"
check "running job untouched by reconfig" state_is "$long" RUN
printf '\nBegin Queue\nQUEUE_NAME = broken\nHOSTS = nosuchhost\nEnd Queue\n' >>"$QUEUES"
out=$(badmin reconfig)
check "bad reconfig fails" [ $? != 0 ]
check "bad reconfig names file and line" bash -c "grep -q 'lsb.queues:[0-9]*: .*nosuchhost' <<<'$out'"
check "bad reconfig keeps the running configuration" bash -c "bqueues extra >/dev/null && ! bqueues broken >/dev/null 2>&1"
cp "$TEST_DIR/lsb.queues.good" "$QUEUES"
check "long job ends DONE" wait_for 10 state_is "$long" DONE

harness_done
