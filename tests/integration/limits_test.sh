#!/usr/bin/env bash
# RUNLIMIT and CPULIMIT, enforced by sbatchd. LSF limits are in minutes, so this test
# takes a little over one.
#   limits_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2"
# An application profile's RUNLIMIT applies to jobs without -W.
cat >"$(dirname "$PARAMS")/lsb.applications" <<'EOF'
Begin Application
NAME     = oneminute
RUNLIMIT = 1
End Application
EOF
cluster_start "$TEST_DIR" "$BIN" || exit 1

check "-W above the queue's RUNLIMIT is refused" \
  bash -c "bsub -q short -W 11 true 2>&1 | grep -qx \"Cannot exceed queue's hard limit(s). Job not submitted.\""
run=$(submit -W 1 -o /dev/null 'sleep 600')
cpu=$(submit -c 1 -o /dev/null 'while :; do :; done')
app=$(submit -app oneminute -o /dev/null 'sleep 600')
check "the limited jobs run" wait_for 10 bash -c "[ \"\$(job_state $run)\$(job_state $cpu)\$(job_state $app)\" = RUNRUNRUN ]"
sleep 50
check "still running before the limits" bash -c "[ \"\$(job_state $run)\$(job_state $app)\" = RUNRUN ]"
check "job past -W is killed" wait_for 30 state_is "$run" EXIT
check "... with TERM_RUNLIMIT" bash -c "bjobs_l_flat $run | grep -q 'TERM_RUNLIMIT: job killed after reaching LSF run time limit'"
check "job past its application profile's RUNLIMIT is killed" wait_for 30 state_is "$app" EXIT
check "... with TERM_RUNLIMIT" bash -c "bjobs_l_flat $app | grep -q 'TERM_RUNLIMIT: job killed after reaching LSF run time limit'"
# A minute of CPU takes longer than a minute of wall time when the machine is busy (a
# 2-core machine shared with builds gives the loop a quarter of a core): wait longer.
check "job past -c is killed" wait_for 240 state_is "$cpu" EXIT
check "... with TERM_CPULIMIT" bash -c "bjobs_l_flat $cpu | grep -q 'TERM_CPULIMIT: job killed after reaching LSF CPU usage limit'"
check "its CPU time is recorded" bash -c "bjobs_l_flat $cpu | grep -Eq 'The CPU time used is (5[5-9]|6[0-9])\.[0-9] seconds'"

harness_done
