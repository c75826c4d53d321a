#!/usr/bin/env bash
# bkill as LSF does it: SIGINT, then SIGTERM, then SIGKILL, JOB_TERMINATE_INTERVAL
# apart (2 s here), so a job can trap the first two and clean up; the exit code is what
# the signal that ended the job gives; bkill -r and parallel jobs get SIGKILL alone
# (LSB_USE_SEQUENTIAL_SIGNAL=Y gives parallel jobs the sequence); a second bkill does
# not start the sequence over; a job keeps being terminated across an sbatchd restart.
#   terminate_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2"
sed -i '/^Begin Parameters/a JOB_TERMINATE_INTERVAL = 2' "$PARAMS"
cluster_start "$TEST_DIR" "$BIN" || exit 1

# Job scripts, piped to bsub as LSF users submit them (their traps are then the job's
# own shell's), that say what reached them: "int <epoch s>" / "term <epoch s>" lines in
# marks.<job id>, and ready.<job id> once their traps are set.
cat >exit3.sh <<'JOB'
trap 'echo "int $(date +%s)" >>marks.$LSB_JOBID' INT
trap 'echo "term $(date +%s)" >>marks.$LSB_JOBID; exit 3' TERM
touch ready.$LSB_JOBID
while :; do sleep 0.2; done
JOB
cat >stay.sh <<'JOB'
trap 'echo "int $(date +%s)" >>marks.$LSB_JOBID' INT
trap 'echo "term $(date +%s)" >>marks.$LSB_JOBID' TERM
touch ready.$LSB_JOBID
while :; do sleep 0.2; done
JOB
cat >plain.sh <<'JOB'
touch ready.$LSB_JOBID
sleep 60
JOB
cat >deaf.sh <<'JOB'
trap '' INT TERM
touch ready.$LSB_JOBID
while :; do sleep 0.2; done
JOB
run_script() {  # SCRIPT [bsub options]: submits, waits until its traps are set; prints the id
  local script="$1" id
  shift
  id=$(submit "$@" -o /dev/null <"$script")
  wait_for 20 test -e "ready.$id" || echo "job $id never got ready" >&2
  echo "$id"
}
marks() { cut -d' ' -f1 "marks.$1" 2>/dev/null | tr '\n' ' '; }
export -f marks
job_pid() { awk '$1 == "pid" {print $2; exit}' "$TEST_DIR/work/quickstart/sbatchd/$(bjobs -w "$1" | awk 'NR==2 {print $6}')/$1.0.run"; }

# --- a job that does not trap: SIGINT ends it, exit code 130
id=$(run_script plain.sh)
bkill "$id" >/dev/null
check "an untrapped SIGINT ends the job: EXIT" wait_for 20 state_is "$id" EXIT
check "  Exited with exit code 130, TERM_OWNER" \
  bash -c "bjobs_l_flat $id | grep -q 'Exited with exit code 130.' && bjobs_l_flat $id | grep -q 'TERM_OWNER: job killed by owner.'"

# --- a job that traps INT (and goes on) and TERM (and exits 3)
id=$(run_script exit3.sh)
bkill "$id" >/dev/null
check "a job that traps INT and TERM ends EXIT" wait_for 20 state_is "$id" EXIT
check "  it got SIGINT, then SIGTERM" [ "$(marks "$id")" = "int term " ]
check "  JOB_TERMINATE_INTERVAL apart" \
  bash -c "awk '{t[NR]=\$2} END {exit !(t[2] - t[1] >= 1)}' marks.$id"
check "  its exit code is its TERM trap's: 3" bash -c "bjobs_l_flat $id | grep -q 'Exited with exit code 3.'"
check "  as TERM_OWNER" bash -c "bjobs_l_flat $id | grep -q 'TERM_OWNER: job killed by owner.'"
check "  bhist says the same" bash -c "bhist -l $id | tr -d '\n' | tr -s ' ' | grep -q 'Exited with exit code 3'"

# --- a job that ignores INT and TERM: SIGKILL, two intervals after the bkill
id=$(run_script deaf.sh)
t0=$(date +%s)
bkill "$id" >/dev/null
check "a job that ignores INT and TERM is killed" wait_for 30 state_is "$id" EXIT
check "  no sooner than two intervals later" [ $(($(date +%s) - t0)) -ge 3 ]
check "  by SIGKILL: exit code 137, TERM_OWNER" \
  bash -c "bjobs_l_flat $id | grep -q 'Exited with exit code 137.' && bjobs_l_flat $id | grep -q TERM_OWNER"

# --- a second bkill while the job is being terminated does not start it over
id=$(run_script stay.sh)
bkill "$id" >/dev/null
wait_for 20 grep -q int "marks.$id"
check "a second bkill is answered as the first" bash -c "[ \"\$(bkill $id)\" = 'Job <$id> is being terminated' ]"
check "  the job still ends" wait_for 30 state_is "$id" EXIT
check "  having had one SIGINT and one SIGTERM" [ "$(marks "$id")" = "int term " ]

# --- a stopped job is continued, so it can act on the signals
id=$(run_script exit3.sh)
bstop "$id" >/dev/null
wait_for 20 state_is "$id" USUSP
bkill "$id" >/dev/null
check "a stopped job that is killed ends EXIT" wait_for 20 state_is "$id" EXIT
check "  through its own TERM trap (exit code 3)" bash -c "bjobs_l_flat $id | grep -q 'Exited with exit code 3.'"

# --- bkill -r: SIGKILL at once, no time for cleanup
id=$(run_script stay.sh)
pid=$(job_pid "$id")
bkill -r "$id" >/dev/null
check "bkill -r: the job leaves at once" state_is "$id" EXIT
check "  as TERM_FORCE_OWNER" bash -c "bjobs_l_flat $id | grep -q TERM_FORCE_OWNER"
check "  its processes are gone" wait_for 20 bash -c "! kill -0 -- -$pid"
check "  without a SIGINT or SIGTERM first" [ ! -e "marks.$id" ]

# --- a parallel job: SIGKILL alone, unless LSB_USE_SEQUENTIAL_SIGNAL=Y
id=$(run_script stay.sh -n 2)
bkill "$id" >/dev/null
check "a parallel job is killed" wait_for 20 state_is "$id" EXIT
check "  by SIGKILL alone (exit code 137, no SIGINT)" \
  bash -c "bjobs_l_flat $id | grep -q 'Exited with exit code 137.' && [ ! -e marks.$id ]"
echo "LSB_USE_SEQUENTIAL_SIGNAL=Y" >>"$LSF_ENVDIR/lsf.conf"
badmin reconfig >/dev/null 2>&1
id=$(run_script exit3.sh -n 2)
bkill "$id" >/dev/null
check "with LSB_USE_SEQUENTIAL_SIGNAL=Y a parallel job gets SIGINT, SIGTERM" wait_for 20 state_is "$id" EXIT
check "  and exits from its TERM trap" \
  bash -c "[ \"\$(marks $id)\" = 'int term ' ] && bjobs_l_flat $id | grep -q 'Exited with exit code 3.'"
sed -i '/^LSB_USE_SEQUENTIAL_SIGNAL/d' "$LSF_ENVDIR/lsf.conf"
badmin reconfig >/dev/null 2>&1

# --- sbatchd killed mid-sequence: the restarted one finishes it (the state file has it)
id=$(run_script stay.sh)
host=$(bjobs -w "$id" | awk 'NR==2 {print $6}')
bkill "$id" >/dev/null
wait_for 20 grep -q int "marks.$id"
kill -9 "$(cat "$TEST_DIR/sbatchd.$host.pid")"
cluster_start_sbatchd "$TEST_DIR" "$BIN" "$host"
check "after an sbatchd restart mid-sequence the job still ends" wait_for 30 state_is "$id" EXIT
check "  by SIGKILL, after one SIGINT and one SIGTERM" \
  bash -c "[ \"\$(marks $id)\" = 'int term ' ] && bjobs_l_flat $id | grep -q 'Exited with exit code 137.'"

harness_done
