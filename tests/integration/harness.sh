# Shared by the integration tests: a temporary cluster from conf-examples/quickstart
# (or another example), checks that name what failed, and cleanup that always runs.
# Sourced by each test.
#
#   harness_init BIN ROOT [EXAMPLE]  temp dir, trap, cluster created (not started)
#   check "what" test-command  records a failure instead of stopping the test
#   wait_for SECONDS command   polls until the command succeeds (bounded)
#   job_state ID               the STAT column of bjobs -a for job ID
#   restart_mbatchd            kill -9 mbatchd and start it again on the same log
set -u
FAILURES=0

# Stops every cluster the test started (EXTRA_CLUSTERS: more cluster directories, inside
# TEST_DIR) and removes TEST_DIR unless a check failed.
EXTRA_CLUSTERS=""
harness_cleanup() {
  local d
  for d in $EXTRA_CLUSTERS; do cluster_stop "$d" >/dev/null 2>&1; done
  cluster_stop "$TEST_DIR" >/dev/null 2>&1
  [ "$FAILURES" = 0 ] && rm -rf "$TEST_DIR" || echo "kept $TEST_DIR for inspection"
}

harness_init() {
  # Absolute: the test runs in its temporary directory.
  BIN="$(cd "$1" && pwd)"
  ROOT="$(cd "$2" && pwd)"
  source "$ROOT/scripts/cluster_lib.sh"
  TEST_DIR="$(mktemp -d "${TMPDIR:-/tmp}/lsfsched-it.XXXXXX")"
  trap harness_cleanup EXIT
  cluster_create "$TEST_DIR" "$ROOT/conf-examples/${3:-quickstart}"
  PARAMS=$(ls "$TEST_DIR"/conf/lsbatch/*/configdir/lsb.params)
  # Fast host tracking for tests: reports every second.
  sed -i 's/^SBD_SLEEP_TIME.*/SBD_SLEEP_TIME = 1/' "$PARAMS"
  export LSF_ENVDIR="$TEST_DIR/conf"
  export PATH="$BIN:$PATH"
  mkdir -p "$TEST_DIR/out"
  cd "$TEST_DIR/out"
}

check() {
  local what="$1"
  shift
  if "$@"; then
    echo "ok   - $what"
  else
    echo "FAIL - $what"
    FAILURES=$((FAILURES + 1))
  fi
}

wait_for() {
  local seconds="$1" i
  shift
  for i in $(seq 1 $((seconds * 20))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.05
  done
  return 1
}

# For tests that run commands as other local users (`as USER command...`): the test
# directory readable by them, and a shared directory they may write their output to.
allow_other_users() {
  chmod 755 "$TEST_DIR"
  mkdir -p "$TEST_DIR/shared" && chmod 1777 "$TEST_DIR/shared"
}
as() {
  local user="$1"
  shift
  (cd "$TEST_DIR/shared" && runuser -u "$user" -- env LSF_ENVDIR="$LSF_ENVDIR" PATH="$BIN:/usr/bin:/bin" "$@")
}

job_state() { bjobs -a -u all "$1" 2>/dev/null | awk 'NR==2 {print $3}'; }
state_is() { [ "$(job_state "$1")" = "$2" ]; }
submit() { bsub "$@" | sed -n 's/^Job <\([0-9]*\)> is submitted.*/\1/p'; }
job_count() { bjobs -a -u all 2>/dev/null | awk 'NR>1' | wc -l; }
# bjobs -l with LSF's 80-column wrapping undone (continuation lines are indented 21
# spaces), as scripts that parse it do.
bjobs_l_flat() { bjobs -l "$1" | sed -zE 's/\n {21}//g'; }
export -f job_state state_is bjobs_l_flat

# mbatchd killed without warning (kill -9) and started again on the same log.
restart_mbatchd() {
  kill -9 "$(cat "$TEST_DIR/mbatchd.pid")"
  sleep 0.2
  LSF_ENVDIR="$TEST_DIR/conf" "$BIN/mbatchd" --host-name hostA --listen 127.0.0.1 >>"$TEST_DIR/log/mbatchd.out" 2>&1 &
  echo $! >"$TEST_DIR/mbatchd.pid"
  wait_for 10 lsid
}

harness_done() {
  if [ "$FAILURES" != 0 ]; then
    echo "$FAILURES check(s) failed; daemon logs:"
    local d
    for d in "$TEST_DIR" $EXTRA_CLUSTERS; do tail -n 30 "$d"/log/*.log.* 2>/dev/null; done
    exit 1
  fi
  exit 0
}
