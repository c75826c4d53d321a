#!/usr/bin/env bash
# CPU a command costs, user + system, averaged over N runs: a bare `-V` (start-up and
# exit alone) of bsub, bjobs and lsid, and with LSF_ENVDIR naming a running cluster
# whose hosts are closed, a held submission (`bsub -H`), which includes the round trip
# to mbatchd. Prints figures; never fails on a time.
#   tests/bench/command_cpu.sh [BIN_DIR] [N]
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${1:-$ROOT/build/bin}"
N="${2:-500}"

# This shell's children's CPU so far, in ms, into CHILD_MS: bash's `times` (second
# line), which must run in this shell, not in a $(...) subshell whose children are its
# own.
TIMES=$(mktemp)
trap 'rm -f "$TIMES"' EXIT
snap() {
  times >"$TIMES"
  CHILD_MS=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
    printf "%.3f", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 }' "$TIMES")
}
per_run() {  # LABEL CMD...
  local label="$1" before after
  shift
  snap
  before=$CHILD_MS
  for ((i = 0; i < N; i++)); do "$@" >/dev/null 2>&1; done
  snap
  after=$CHILD_MS
  awk -v l="$label" -v b="$before" -v a="$after" -v n="$N" 'BEGIN {printf "%-28s %.2f ms of CPU per run (%d runs)\n", l, (a - b) / n, n}'
}

per_run "bsub -V" "$BIN/bsub" -V
per_run "bjobs -V" "$BIN/bjobs" -V
per_run "lsid -V" "$BIN/lsid" -V
if [ -n "${LSF_ENVDIR:-}" ] && "$BIN/lsid" >/dev/null 2>&1; then
  per_run "bsub -H (held submission)" "$BIN/bsub" -H -o /dev/null true
  per_run "bjobs (one job listed)" "$BIN/bjobs" -noheader 1
else
  echo "(no cluster at LSF_ENVDIR: held submission not measured)"
fi
