#!/usr/bin/env bash
# Runs every fuzz harness of a build (LSFSCHED_FUZZ=ON), builds nothing: first over its
# whole corpus (tests/fuzz/corpus/<name>/: seeds and the inputs that once crashed it),
# then for FUZZ_SECONDS (default 5) of new inputs. New inputs go to a scratch directory,
# not into the repository. Prints each harness's executions and rate; exits non-zero on
# the first crash, leaking, timeout or sanitizer report, leaving the input in $OUT_DIR.
#
#   tests/fuzz/run.sh [BUILD_DIR]          (default: build-fuzz)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${1:-$ROOT/build-fuzz}"
SECONDS_EACH="${FUZZ_SECONDS:-5}"
OUT_DIR="${FUZZ_OUT_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/lsfsched-fuzz.XXXXXX")}"
HARNESSES=(frame config resreq dependency time_window array_index bsub request)

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

for h in "${HARNESSES[@]}"; do
  bin="$BUILD/bin/fuzz_$h"
  [ -x "$bin" ] || { echo "run.sh: $bin is not built (cmake --build $BUILD --target fuzzers)" >&2; exit 2; }
  seeds="$ROOT/tests/fuzz/corpus/$h"
  scratch="$OUT_DIR/$h"
  mkdir -p "$scratch"
  log="$OUT_DIR/$h.log"
  # The corpus once, every input: a regression input that crashes again fails here.
  if ! "$bin" -runs=0 "$seeds" >"$log.corpus" 2>&1; then
    echo "FAIL $h: an input of $seeds crashes it (see $log.corpus)" >&2
    tail -30 "$log.corpus" >&2
    exit 1
  fi
  # New inputs for a bounded time; -timeout: one input taking a second is a finding.
  if ! "$bin" -max_total_time="$SECONDS_EACH" -timeout=1 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$OUT_DIR/$h-" "$scratch" "$seeds" >"$log" 2>&1; then
    echo "FAIL $h: crash found, input in $OUT_DIR/$h-* (see $log)" >&2
    tail -40 "$log" >&2
    exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  printf '%-12s %10s runs %8s exec/s\n' "$h" "${runs:-?}" "${rate:-?}"
done
