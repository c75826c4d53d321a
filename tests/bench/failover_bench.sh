#!/usr/bin/env bash
# Master takeover time on a local failover cluster (conf-examples/failover: three
# candidates, each virtual host on its own loopback address, the default timing):
# from kill -9 of every process of the master host to the first submission the new
# master accepts. The dead host is revived after each round, so the master moves
# round the three candidates. Prints each round, then the median and the worst.
# Never fails on a time.
#   tests/bench/failover_bench.sh [BUILD_DIR] [ROUNDS] [JOBS]
# JOBS: pending jobs put in the log first (every host closed, so they stay), to see
# what a big log costs the new master's recovery.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="$(cd "${1:-$ROOT/build}/bin" && pwd)"
ROUNDS="${2:-20}"
JOBS="${3:-0}"
source "$ROOT/scripts/cluster_lib.sh"

DIR="$(mktemp -d "${TMPDIR:-/tmp}/lsfsched-bench.XXXXXX")"
trap 'cluster_stop "$DIR" >/dev/null 2>&1; rm -rf "$DIR"' EXIT
cluster_create "$DIR" "$ROOT/conf-examples/failover"
sed -i 's/^LSF_LOG_MASK=.*/LSF_LOG_MASK=LOG_WARNING/' "$DIR/conf/lsf.conf"
cluster_start "$DIR" "$BIN" >/dev/null || exit 1
disown -a  # their kill -9 is the point: no "Killed" from this shell
export LSF_ENVDIR="$DIR/conf" PATH="$BIN:$PATH"
LOGDIR=$(ls -d "$DIR"/work/*/logdir)

if [ "$JOBS" -gt 0 ]; then
  badmin hclose >/dev/null 2>&1
  "$BIN/rpc_bench" submit --clients 8 --jobs "$JOBS" >/dev/null
  echo "# $(bjobs -u all -noheader 2>/dev/null | wc -l) jobs in the log"
fi

master() { awk '{print $2}' "$LOGDIR/lsb.master.$(ls "$LOGDIR" | sed -n 's/^lsb\.master\.\([0-9]*\)$/\1/p' | sort -n | tail -1)"; }
times=()
for round in $(seq 1 "$ROUNDS"); do
  m=$(master)
  start=$(date +%s%N)
  cluster_fail_host "$DIR" "$m"
  for i in $(seq 1 1200); do
    bsub -o /dev/null true >/dev/null 2>&1 && break
    sleep 0.05
  done
  ms=$((($(date +%s%N) - start) / 1000000))
  times+=("$ms")
  echo "round $round: $m killed, $(master) took over, first submission accepted after $ms ms"
  cluster_revive_host "$DIR" "$BIN" "$m"
  disown -a
  # The revived host is a candidate again once its sbatchd reports.
  for i in $(seq 1 200); do
    bhosts "$m" 2>/dev/null | awk 'NR == 2 {print $2}' | grep -qvE '^(unavail|unreach)$' && break
    sleep 0.1
  done
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
echo "takeover over $ROUNDS kills: median $(echo "$sorted" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}') ms," \
  "worst $(echo "$sorted" | tail -1) ms"
