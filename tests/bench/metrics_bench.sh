#!/usr/bin/env bash
# What /metrics costs the cluster it watches: N `/bin/true` jobs from 8 API submitters
# through a fresh quickstart cluster, once left alone and once watched by a Prometheus
# and the dashboards an operator keeps open, alternating which goes first each round. Prints submissions per second, first
# submission to last DONE, the passes' mean and p99 (badmin perfmon view), and the time
# one scrape takes with the jobs held. Prints figures; never fails on a time. Of the
# SCRAPERS (11) clients, one scrapes /metrics every second and the others poll as the
# dashboard's page does (/api/state every 2 s, /api/hosts every 5 s).
#   tests/bench/metrics_bench.sh [BUILD_DIR] [ROUNDS] [N] [SCRAPERS]
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${1:-$ROOT/build}/bin"
ROUNDS="${2:-3}"
N="${3:-3000}"
SCRAPERS="${4:-11}"
source "$ROOT/scripts/cluster_lib.sh"

DIR=""
PIDS=""
stop() {
  for p in $PIDS; do kill "$p" 2>/dev/null; done
  # Only the watchers: the cluster's daemons are children of this shell too.
  [ -n "$PIDS" ] && wait $PIDS 2>/dev/null
  PIDS=""
  [ -n "$DIR" ] && cluster_stop "$DIR" >/dev/null 2>&1 && rm -rf "$DIR"
  DIR=""
}
trap stop EXIT

run() {  # scrapers
  local scrapers="$1"
  DIR="$(mktemp -d "${TMPDIR:-/tmp}/lsfsched-metrics.XXXXXX")"
  cluster_create "$DIR" "$ROOT/conf-examples/quickstart"
  sed -i 's/^default .*/default     32    ()     ()        ()/' "$DIR/conf/lsbatch/quickstart/configdir/lsb.hosts"
  sed -i 's/^LSF_LOG_MASK=.*/LSF_LOG_MASK=LOG_WARNING/' "$DIR/conf/lsf.conf"
  echo "LSB_METRICS_PORT=0" >>"$DIR/conf/lsf.conf"
  cluster_start "$DIR" "$BIN" >/dev/null || exit 1
  export LSF_ENVDIR="$DIR/conf"
  local url
  url=$("$BIN/badmin" perfmon view -json | jq -r .METRICS_URL)
  # One Prometheus scraping every second, and `scrapers` - 1 dashboards, each polling
  # /api/state every 2 s and /api/hosts every 5 s as the page does.
  local base=${url%metrics} k
  if [ "$scrapers" -gt 0 ]; then
    (while :; do curl -sf -o /dev/null "$url"; sleep 1; done) &
    PIDS="$PIDS $!"
  fi
  for k in $(seq 2 "$scrapers"); do
    (n=0; while :; do
      curl -sf -o /dev/null "${base}api/state"
      [ $((n % 5)) = 0 ] && curl -sf -o /dev/null "${base}api/hosts"
      n=$((n + 2)); sleep 2
    done) &
    PIDS="$PIDS $!"
  done
  local start end rate
  start=$(date +%s.%N)
  rate=$("$BIN/rpc_bench" submit --clients 8 --jobs "$N" | awk '{for (i = 1; i <= NF; i++) if ($i == "jobs/s") print $(i - 1)}')
  for _ in $(seq 1 6000); do
    [ "$("$BIN/bqueues" 2>/dev/null | awk 'NR>1 {n += $8} END {print n + 0}')" = 0 ] && break
    sleep 0.1
  done
  end=$(date +%s.%N)
  local scrape_ms
  scrape_ms=$(for _ in 1 2 3 4 5; do curl -sf -o /dev/null -w '%{time_total}\n' "$url"; done | sort -n | sed -n 3p)
  local pm
  pm=$("$BIN/badmin" perfmon view -json)
  awk -v s="$start" -v e="$end" -v n="$N" -v r="$rate" -v k="$scrapers" -v t="$scrape_ms" \
    -v avg="$(jq -r .AVERAGE_PASS_MS <<<"$pm")" -v p99="$(jq -r .PASS_P99_MS <<<"$pm")" \
    -v passes="$(jq -r .PASSES <<<"$pm")" \
    'BEGIN {printf "%2d watchers: %6.0f submissions/s, %d jobs done in %6.2f s, %5d passes, mean %.3f ms, p99 %.3f ms; one scrape %.2f ms\n", k, r, n, e - s, passes, avg, p99, t * 1000}'
  stop
}

for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then
    run 0
    run "$SCRAPERS"
  else
    run "$SCRAPERS"
    run 0
  fi
done
