#!/usr/bin/env bash
# Runs the runtime benchmarks against a fresh local cluster and prints the figures
# docs/performance.md records. Never fails on a time.
#   tests/bench/run_benchmarks.sh [BUILD_DIR]
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${1:-$ROOT/build}/bin"
source "$ROOT/scripts/cluster_lib.sh"

fresh_cluster() {
  [ -n "${DIR:-}" ] && cluster_stop "$DIR" >/dev/null 2>&1 && rm -rf "$DIR"
  DIR="$(mktemp -d "${TMPDIR:-/tmp}/lsfsched-bench.XXXXXX")"
  cluster_create "$DIR" "$ROOT/conf-examples/quickstart"
  # Finished jobs are kept in the log for a while; MXJ high enough for /bin/true storms.
  sed -i 's/^default .*/default     32    ()     ()        ()/' "$DIR/conf/lsbatch/quickstart/configdir/lsb.hosts"
  sed -i 's/^LSF_LOG_MASK=.*/LSF_LOG_MASK=LOG_WARNING/' "$DIR/conf/lsf.conf"
  cluster_start "$DIR" "$BIN" >/dev/null || exit 1
  export LSF_ENVDIR="$DIR/conf"
}
trap 'cluster_stop "$DIR" >/dev/null 2>&1; rm -rf "$DIR"' EXIT

echo "== durable submissions (hosts closed, so only submission is measured)"
for clients in 1 8 32; do
  fresh_cluster
  "$BIN/badmin" hclose >/dev/null 2>&1
  "$BIN/rpc_bench" submit --clients "$clients" --jobs 20000
done
fresh_cluster
"$BIN/badmin" hclose >/dev/null 2>&1
start=$(date +%s.%N)
for i in $(seq 1 500); do "$BIN/bsub" -o /dev/null true >/dev/null; done
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN {printf "bsub processes, one after another: %.0f jobs/s\n", 500 / (e - s)}'

echo "== mbatchd memory per pending job"
rss() { awk '/VmRSS/ {print $2}' "/proc/$(cat "$DIR/mbatchd.pid")/status"; }
before=$(rss)
"$BIN/rpc_bench" submit --clients 8 --jobs 100000 >/dev/null
after=$(rss)
awk -v b="$before" -v a="$after" 'BEGIN {printf "resident memory: %.0f bytes per pending job (100000 pending; %d KB -> %d KB)\n", (a - b) * 1024 / 100000, b, a}'

echo "== end to end: 10000 /bin/true jobs on three virtual hosts"
fresh_cluster
start=$(date +%s.%N)
"$BIN/rpc_bench" submit --clients 8 --jobs 10000
for i in $(seq 1 1200); do
  [ -z "$("$BIN/bjobs" 2>/dev/null | awk 'NR>1' | head -1)" ] && break
  sleep 0.5
done
end=$(date +%s.%N)
done_jobs=$("$BIN/bjobs" -a 2>/dev/null | awk '$3=="DONE"' | wc -l)
awk -v s="$start" -v e="$end" -v n="$done_jobs" 'BEGIN {printf "first submit to last DONE: %.1f s, %.0f jobs/s (%d DONE)\n", e - s, n / (e - s), n}'

echo "== submit-to-RUN latency"
fresh_cluster
"$BIN/rpc_bench" latency --jobs 300

echo "== replay"
"$BIN/rpc_bench" replay --events 1000000

echo "== mbatchd's passes with 100,000 pending behind a full cluster (state thread: view, applying)"
fresh_cluster
sed -i 's/^LSF_LOG_MASK=.*/LSF_LOG_MASK=LOG_INFO/' "$DIR/conf/lsf.conf"
cluster_stop "$DIR" >/dev/null 2>&1
cluster_start "$DIR" "$BIN" >/dev/null || exit 1
slots=$("$BIN/bhosts" | awk 'NR > 1 {s += $4} END {print s}')
for i in $(seq 1 "$slots"); do "$BIN/bsub" -o /dev/null sleep 1000 >/dev/null; done
"$BIN/rpc_bench" submit --clients 8 --jobs 100000 >/dev/null
"$BIN/bkill" "$("$BIN/bjobs" -r | awk 'NR == 2 {print $1}')" >/dev/null  # one ends; a job starts each pass
sleep 5
grep -h "pass .*pending" "$(find "$DIR" -name 'mbatchd.log*' | head -1)" | tail -3 | sed 's/^.* info //'

echo "== scheduling pass (5,000 hosts, 20 queues, every pending job considered)"
"$BIN/pass_bench" --pending 100000
"$BIN/pass_bench" --pending 1000000 --repeat 1

echo "== bsim: whole traces of 200,000+ jobs (issue 6's target: under 10 s each with backfill)"
W="$ROOT/../shared/workloads"
if [ -d "$W" ]; then
  bsim_run() {  # trace, policy directory, queue, extra options
    local start end
    start=$(date +%s.%N)
    line=$("$BIN/bsim" --trace "$W/$1.swf.gz" -c "$ROOT/conf-examples/$2/conf" --queue "$3" ${4:-} -q | awk '$1 == "all"')
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" -v t="$1" -v q="$3" -v l="$line" \
      'BEGIN {printf "%-22s %-13s %5.1f s   %s\n", t, q, e - s, l}'
  }
  for q in easy greedy; do bsim_run HPC2N-2002-2.2-cln bsim "$q"; done
  bsim_run HPC2N-2002-2.2-cln bsim-plan conservative
  for q in easy greedy; do bsim_run SDSC-BLUE-2000-4.2-cln bsim "$q" "--hosts 144 --slots 8"; done
  bsim_run SDSC-BLUE-2000-4.2-cln bsim-plan conservative "--hosts 144 --slots 8"
else
  echo "(no $W: skipped)"
fi
