#!/usr/bin/env bash
# host_emulator --run-jobs (a test tool) against a real mbatchd: its hosts register,
# take jobs, end them after their `sleep N`, take bkill, and a restarted mbatchd
# regains what they run from their registrations.
#   tests/bench/host_emulator_test.sh BIN ROOT
source "$2/tests/integration/harness.sh"
harness_init "$1" "$2"
CONF="$TEST_DIR/conf/lsf.cluster.quickstart"
printf 'emu%04d    Generic   LINUX64   1       -    ()\n' 1 2 3 >"$TEST_DIR/rows"
{ sed '/^End Host/,$d' "$CONF"; cat "$TEST_DIR/rows"; sed -n '/^End Host/,$p' "$CONF"; } >"$CONF.new" && mv "$CONF.new" "$CONF"
# Only the emulated hosts can take jobs: the example's own hosts get no sbatchd.
cluster_start_mbatchd "$TEST_DIR" "$BIN" || exit 1
"$BIN/host_emulator" --hosts 3 --run-jobs --threads 2 --print-seconds 3600 >"$TEST_DIR/emulator.out" 2>&1 &
EMU=$!
trap 'kill $EMU 2>/dev/null; harness_cleanup' EXIT
emulated_ok() { [ "$(bhosts 2>/dev/null | awk '$1 ~ /^emu/ && $2 == "ok"' | wc -l)" -eq 3 ]; }
exec_host() { bjobs -a -u all "$1" 2>/dev/null | awk 'NR==2 {print $6}'; }
check "the emulated hosts register" wait_for 20 emulated_ok

short=$(submit -o /dev/null sleep 2)
instant=$(submit -o /dev/null true)
long=$(submit -o /dev/null sleep 1000)
check "a job starts on an emulated host" wait_for 20 state_is "$short" RUN
check "... which reports its start" bash -c "bjobs_l_flat $short | grep -q 'Execution CWD'"
case "$(exec_host "$short")" in emu*) check "... named in EXEC_HOST" true ;; *) check "... named in EXEC_HOST" false ;; esac
check "a job without a sleep ends at once, DONE" wait_for 20 state_is "$instant" DONE
check "sleep 2 ends DONE after its 2 s" wait_for 20 state_is "$short" DONE
check "sleep 1000 still runs" state_is "$long" RUN
bkill "$long" >/dev/null
check "bkill ends it, EXIT" wait_for 20 state_is "$long" EXIT

kept=$(submit -o /dev/null sleep 1000)
check "another long job runs" wait_for 20 state_is "$kept" RUN
restart_mbatchd
check "after an mbatchd restart the hosts register again" wait_for 30 emulated_ok
check "... and the job still runs" state_is "$kept" RUN
bkill "$kept" >/dev/null
check "... where bkill reaches it" wait_for 20 state_is "$kept" EXIT
kill "$EMU"
wait "$EMU"
check "the emulator stops on SIGTERM and counts its jobs" grep -q "jobs: 4 started, 4 ended, 0 running" "$TEST_DIR/emulator.out"
harness_done
