#!/usr/bin/env bash
# First contact: scripts/quickstart starts the example cluster and runs its demo jobs
# (printing the job list only while jobs are unfinished), and `scripts/quickstart stop`
# stops everything it started (daemons, job supervisors, jobs), also when a daemon is
# gone already and a job ignores SIGTERM.
#   quickstart_test.sh BIN ROOT   (BIN must be ROOT/build/bin: quickstart uses that)
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2"
QS="$TEST_DIR/qs"
EXTRA_CLUSTERS="$QS"
export LSFSCHED_QUICKSTART_DIR="$QS"

check "quickstart runs" bash -c "bash '$ROOT/scripts/quickstart' >'$TEST_DIR/quickstart.out' 2>&1"
tables=$(grep -c '^JOBID ' "$TEST_DIR/quickstart.out")
check "the demo shows the job list a few times, not for a minute ($tables)" [ "$tables" -le 6 ]
check "the demo's failing job shows EXIT" grep -qE '^[0-9]+ +[^ ]+ +EXIT ' "$TEST_DIR/quickstart.out"
dashboard=$(sed -n 's/^The dashboard: \(http:[^ ]*\) .*/\1/p' "$TEST_DIR/quickstart.out")
check "it prints the dashboard's address, and the page is there ($dashboard)" bash -c \
  "[ -n '$dashboard' ] && curl -sf '$dashboard' | grep -q '<title>lsfsched dashboard</title>'"

# A cluster with work on it: a job, a job that ignores TERM and INT, and one host's
# sbatchd already gone (its pid file stale), as after a crash.
(
  source "$QS/env"
  bsub -q normal -o /dev/null sleep 300 >/dev/null
  bsub -q normal -o /dev/null "trap '' TERM INT; sleep 300" >/dev/null
)
check "both jobs run" wait_for 20 bash -c "source '$QS/env'; [ \"\$(bjobs -r -o stat -noheader | wc -l)\" = 2 ]"
check "their processes exist" [ -n "$(cluster_pids "$QS")" ]
first_host=$(ls "$QS"/sbatchd.*.pid | head -1)
kill -9 "$(cat "$first_host")"
check "quickstart stop succeeds" bash -c "bash '$ROOT/scripts/quickstart' stop >'$TEST_DIR/stop.out' 2>&1"
left=$(cluster_pids "$QS")
check "nothing of the cluster is left ($left)" [ -z "$left" ]
check "no pid file of a daemon is left" bash -c "! ls '$QS'/*.pid 2>/dev/null | grep -q ."
check "stop again: nothing to do, still success" bash -c "bash '$ROOT/scripts/quickstart' stop >/dev/null 2>&1"
harness_done
