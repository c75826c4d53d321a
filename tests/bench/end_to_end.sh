#!/usr/bin/env bash
# End-to-end throughput: N `/bin/true` jobs on the quickstart cluster's three virtual
# hosts (MXJ 32), first submission to last DONE, beside the machine's fork+exec ceiling
# measured in the same run. Prints figures; never fails on a time.
#   tests/bench/end_to_end.sh [BUILD_DIR] [ROUNDS] [N] [single|array] [STATEDIR]
# With "array" the jobs come as one array of N elements (bsub -J "e2e[1-N]"). With
# STATEDIR (a tmpfs such as /dev/shm, say) sbatchd keeps its jobs' files below it
# (LSB_SBD_STATEDIR) rather than under LSB_SHAREDIR.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${1:-$ROOT/build}/bin"
ROUNDS="${2:-3}"
N="${3:-10000}"
MODE="${4:-single}"
STATEBASE="${5:-}"
source "$ROOT/scripts/cluster_lib.sh"

DIR=""
STATE=""
stop() {
  [ -n "$DIR" ] && cluster_stop "$DIR" >/dev/null 2>&1 && rm -rf "$DIR"
  [ -n "$STATE" ] && rm -rf "$STATE"
  DIR=""
  STATE=""
}
trap stop EXIT

round() {
  DIR="$(mktemp -d "${TMPDIR:-/tmp}/lsfsched-e2e.XXXXXX")"
  cluster_create "$DIR" "$ROOT/conf-examples/quickstart"
  sed -i 's/^default .*/default     32    ()     ()        ()/' "$DIR/conf/lsbatch/quickstart/configdir/lsb.hosts"
  sed -i 's/^LSF_LOG_MASK=.*/LSF_LOG_MASK=LOG_WARNING/' "$DIR/conf/lsf.conf"
  sed -i "s/^Begin Parameters\$/Begin Parameters\nMAX_JOB_ARRAY_SIZE = $N/" "$DIR/conf/lsbatch/quickstart/configdir/lsb.params"
  if [ -n "$STATEBASE" ]; then
    STATE="$(mktemp -d "$STATEBASE/lsfsched-e2e.XXXXXX")"
    echo "LSB_SBD_STATEDIR=$STATE" >>"$DIR/conf/lsf.conf"
  fi
  cluster_start "$DIR" "$BIN" >/dev/null || exit 1
  export LSF_ENVDIR="$DIR/conf"
  local start end done_jobs
  start=$(date +%s.%N)
  if [ "$MODE" = array ]; then
    "$BIN/bsub" -J "e2e[1-$N]" -o /dev/null /bin/true >/dev/null
  else
    "$BIN/rpc_bench" submit --clients 8 --jobs "$N" >/dev/null
  fi
  # Bounded: a run that stalls ends after 20 minutes with what it finished.
  for _ in $(seq 1 12000); do
    [ "$("$BIN/bqueues" 2>/dev/null | awk 'NR>1 {n += $8} END {print n + 0}')" = 0 ] && break
    sleep 0.1
  done
  end=$(date +%s.%N)
  done_jobs=$("$BIN/bjobs" -a 2>/dev/null | awk '$3=="DONE"' | wc -l)
  awk -v s="$start" -v e="$end" -v n="$done_jobs" -v m="$MODE" \
    -v where="${STATEBASE:-LSB_SHAREDIR}" \
    'BEGIN {printf "end to end (%s, job files in %s): first submit to last DONE %.2f s, %.0f jobs/s (%d DONE)\n", m, where, e - s, n / (e - s), n}'
  stop
}

for r in $(seq 1 "$ROUNDS"); do
  "$BIN/rpc_bench" spawn --jobs "$N"
  round
done
