#!/usr/bin/env bash
# bpeek and bwait against real daemons: the output of a running job with and without
# -o, -f until the job ends, the refusals; conditions that hold, never hold, or time out.
#   peek_wait_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2"
cluster_start "$TEST_DIR" "$BIN" || exit 1

spooled=$(submit 'echo first; sleep 1; echo second; sleep 30')
to_file=$(submit -o peek.%J.out 'echo into the file; sleep 30')
check "both run" wait_for 10 bash -c "state_is $spooled RUN && state_is $to_file RUN"
check "bpeek shows output spooled without -o" wait_for 10 bash -c "bpeek $spooled | grep -qx second"
check "bpeek starts with LSF's header" bash -c "[ \"\$(bpeek $spooled | head -1)\" = '<< output from stdout >>' ]"
check "bpeek reads the -o file" wait_for 10 bash -c "bpeek $to_file | grep -qx 'into the file'"
check "bpeek without a job: the latest started one" wait_for 10 bash -c "bpeek | grep -qx 'into the file'"
held=$(submit -H sleep 1)
check "bpeek of a pending job" bash -c "bpeek $held 2>&1 | grep -qx 'Job <$held> : Not yet started.'"
check "bpeek of an unknown job" bash -c "bpeek 9999 2>&1 | grep -qx 'Job <9999>: No matching job found'"
# Followed from before its first line: bpeek refuses a job not started yet, and a job
# that ended before bpeek came has nothing left to follow: either can happen on a
# loaded machine when bpeek -f comes right after bsub.
short=$(submit 'sleep 3; for i in 1 2 3; do echo tick $i; sleep 0.5; done')
check "the job to follow runs" wait_for 10 state_is "$short" RUN
check "bpeek -f follows until the job ends" bash -c "timeout 20 bpeek -f $short | tail -1 | grep -qx 'tick 3'"
bkill "$spooled" "$to_file" "$held" >/dev/null

quick=$(submit -o /dev/null sleep 1)
failing=$(submit -o /dev/null 'exit 4')
check "bwait returns once done() holds" bash -c "timeout 30 bwait -w 'done($quick)'"
check "job is DONE when bwait returns" state_is "$quick" DONE
check "the failing job exits" wait_for 10 state_is "$failing" EXIT
check "bwait on done() of a job that exited: never (exit 1)" bash -c "timeout 10 bwait -w 'done($failing)'; [ \$? = 1 ]"
check "bwait on exit(id, == 4)" bash -c "timeout 10 bwait -w 'exit($failing, == 4)'"
slow=$(submit -o /dev/null sleep 300)
check "bwait -t 1 times out (exit 1)" bash -c "timeout 90 bwait -t 1 -w 'done($slow)' 2>&1 | grep -qx 'bwait: timed out'"
check "bwait on an unknown job" bash -c "bwait -w 'done(9999)' 2>&1 | grep -qx 'Job <9999>: No matching job found'"
check "bwait on a bad condition" bash -c "bwait -w 'done((' 2>&1 | grep -qx 'Dependency condition syntax error'"
bkill "$slow" >/dev/null

# --- bsub -I: progress on stderr, the output as it comes, the job's exit code
timeout 60 bsub -I 'echo one; sleep 1; echo two; exit 3' >"$TEST_DIR/i.out" 2>"$TEST_DIR/i.err"
code=$?
check "bsub -I returns the job's exit code" [ "$code" = 3 ]
check "bsub -I prints the job's output after the submission line" bash -c \
  "sed 1d '$TEST_DIR/i.out' | tr '\n' ' ' | grep -qx 'one two '"
check "bsub -I says it waits and where it starts, on stderr" bash -c \
  "sed -n 1p '$TEST_DIR/i.err' | grep -qx '<<Waiting for dispatch ...>>' && sed -n 2p '$TEST_DIR/i.err' | grep -qE '^<<Starting on host[ABC]>>\$'"
bytes=$(timeout 60 bsub -I 'head -c 3000000 /dev/zero | tr "\0" x' 2>/dev/null | sed 1d | wc -c)
check "bsub -I brings all of a 3 MB output, written just before the end" [ "$bytes" = 3000000 ]

# --- bsub -Is/-Ip: the job on a pseudo-terminal, fed by what bsub reads
printf 'echo pty-$((6*7))\ntty\nexit 5\n' | timeout 60 bsub -Is sh >"$TEST_DIR/pty.out" 2>/dev/null
code=$?
check "bsub -Is returns the shell's exit code" [ "$code" = 5 ]
check "  the shell ran what was typed" bash -c "tr -d '\r' <'$TEST_DIR/pty.out' | grep -qx 'pty-42'"
check "  on a terminal" bash -c "tr -d '\r' <'$TEST_DIR/pty.out' | grep -qE '^(# )?/dev/pts/[0-9]+\$'"
printf 'hello\n' | timeout 60 bsub -Ip cat >"$TEST_DIR/cat.out" 2>/dev/null
code=$?
check "bsub -Ip: the end of input ends cat (exit 0)" [ "$code" = 0 ]
check "  which printed what it read" bash -c "[ \$(tr -d '\r' <'$TEST_DIR/cat.out' | grep -cx hello) = 2 ]"  # echoed, then cat's
harness_done
