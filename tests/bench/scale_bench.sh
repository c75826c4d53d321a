#!/usr/bin/env bash
# Site-scale figures on one machine: mbatchd with HOSTS emulated hosts of 32 slots
# (tests/bench/host_emulator.cc --run-jobs: each host registers, reports its load every
# SBD_SLEEP_TIME, takes StartJobs and "runs" each job, without a process, for the N of
# its `sleep N`, then reports its end, through the RPCs a real sbatchd uses) and JOBS
# jobs of `sleep R`, R from 1 to SLEEP_MAX s at random. Prints, never failing on a time:
#   - how long until every host is registered, and mbatchd's CPU per load report (idle);
#   - jobs finished per second, the JOBS submitted to an inactive queue which then
#     turns active (bqueues counts every 2 s: the best 30 s window, or a third of the
#     run if shorter, and from badmin qact to the last end), and mbatchd's CPU per job
#     (submission to end);
#   - bjobs, bjobs -u all -p and bhosts latency, p50 and p99, while 32 clients submit;
#   - mbatchd restart with that state: kill -9, then how long until lsid answers (the
#     log replayed), until bhosts shows every host ok (each registration lists the jobs
#     the host runs), and the RUN count then against the one before the kill;
#   - mbatchd's resident memory.
#
#   tests/bench/scale_bench.sh [BUILD_DIR] [HOSTS] [JOBS]       (defaults: build 5000 100000)
# Environment: SLEEP_MAX (60), CLIENTS (32, the latency phase's submitters), LOAD_JOBS
# (the most they submit, JOBS; they are stopped once the commands have been timed
# SAMPLES times), SAMPLES (20 of each command), EMU_THREADS (64: host_emulator's
# connections to mbatchd, each reporting for a slice of the hosts one call at a time;
# real sbatchds each have their own, and with 8 the hosts took a third longer to
# register again after the restart), SBD_SLEEP_TIME (30, LSF's default), REPORT_WINDOW (seconds of idle load reports
# measured; 2 x SBD_SLEEP_TIME), SUBMIT_CLIENTS (8, for the JOBS), KEEP (set: the
# cluster's directory is kept).
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="$(cd "${1:-$ROOT/build}/bin" && pwd)"
HOSTS="${2:-5000}"
JOBS="${3:-100000}"
SLEEP_MAX="${SLEEP_MAX:-60}"
CLIENTS="${CLIENTS:-32}"
LOAD_JOBS="${LOAD_JOBS:-$JOBS}"
SAMPLES="${SAMPLES:-20}"
EMU_THREADS="${EMU_THREADS:-64}"
SBD_SLEEP="${SBD_SLEEP_TIME:-30}"
REPORT_WINDOW="${REPORT_WINDOW:-$((2 * SBD_SLEEP))}"
SUBMIT_CLIENTS="${SUBMIT_CLIENTS:-8}"
source "$ROOT/scripts/cluster_lib.sh"

DIR="$(mktemp -d "${TMPDIR:-/tmp}/lsfsched-scale.XXXXXX")"
EMU=""
LOADER=""
cleanup() {
  [ -n "$LOADER" ] && kill "$LOADER" 2>/dev/null
  if [ -n "$EMU" ]; then
    kill "$EMU" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$EMU" 2>/dev/null || break; sleep 0.1; done
  fi
  cluster_stop "$DIR" >/dev/null 2>&1
  if [ -n "${KEEP:-}" ]; then echo "kept $DIR"; else rm -rf "$DIR"; fi
}
trap cleanup EXIT
cluster_create "$DIR" "$ROOT/conf-examples/quickstart"
CONF="$DIR/conf/lsf.cluster.quickstart"
CONFDIR="$DIR/conf/lsbatch/quickstart/configdir"
# The emulated hosts after the three of the example (whose sbatchds are not started:
# they stay unavail and take nothing), 32 slots each.
for i in $(seq 1 "$HOSTS"); do printf 'emu%04d    Generic   LINUX64   1       -    ()\n' "$i"; done >"$DIR/rows"
{ sed '/^End Host/,$d' "$CONF"; cat "$DIR/rows"; sed -n '/^End Host/,$p' "$CONF"; } >"$CONF.new" && mv "$CONF.new" "$CONF"
sed -i 's/^default .*/default     32    ()     ()        ()/' "$CONFDIR/lsb.hosts"
sed -i "s/^SBD_SLEEP_TIME.*/SBD_SLEEP_TIME = $SBD_SLEEP/" "$CONFDIR/lsb.params"
sed -i 's/^LSF_LOG_MASK=.*/LSF_LOG_MASK=LOG_WARNING/' "$DIR/conf/lsf.conf"
export LSF_ENVDIR="$DIR/conf" PATH="$BIN:$PATH"
cluster_start_mbatchd "$DIR" "$BIN" || exit 1
disown -a  # its kill -9 is part of the benchmark: no "Killed" from this shell

now_ms() { echo $(($(date +%s%N) / 1000000)); }
mbd_pid() { cat "$DIR/mbatchd.pid"; }
# mbatchd's CPU so far (user + system), in ms.
mbd_cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{sub(/.*\) /, ""); print int(($12 + $13) * 1000 / hz)}' "/proc/$(mbd_pid)/stat"; }
mbd_rss_mb() { awk '/VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$(mbd_pid)/status"; }
emulated_ok() { bhosts 2>/dev/null | awk '$1 ~ /^emu[0-9]/ && $2 == "ok"' | wc -l; }
# Waits (at most LIMIT s) until every emulated host is ok; prints the ms since START.
wait_hosts_ok() {  # START LIMIT
  local n=0
  while [ $(($(now_ms) - $1)) -lt $(($2 * 1000)) ]; do
    n=$(emulated_ok)
    [ "$n" -ge "$HOSTS" ] && { echo $(($(now_ms) - $1)); return; }
    sleep 0.2
  done
  echo "more than $(($2 * 1000)) (only $n ok)"
}
# NJOBS PEND RUN of the normal queue.
queue_counts() { bqueues -o "njobs pend run" -noheader normal 2>/dev/null; }
# p50 and p99 of the numbers on stdin.
percentiles() { sort -n | awk '{a[NR] = $1} END {i50 = int(NR * 0.5 + 0.5); i99 = int(NR * 0.99 + 0.5); if (i50 < 1) i50 = 1; if (i99 < 1) i99 = 1; printf "p50 %d ms, p99 %d ms (%d runs)", a[i50], a[i99], NR}'; }

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs; $HOSTS emulated hosts x 32 slots, $JOBS jobs of sleep 1-$SLEEP_MAX s, SBD_SLEEP_TIME $SBD_SLEEP s"

# --- registration and load reports
start=$(now_ms)
"$BIN/host_emulator" --hosts "$HOSTS" --run-jobs --threads "$EMU_THREADS" --print-seconds 30 >"$DIR/emulator.out" 2>&1 &
EMU=$!
echo "every host registered after $(wait_hosts_ok "$start" 600) ms"
cpu0=$(mbd_cpu_ms)
sleep "$REPORT_WINDOW"
cpu1=$(mbd_cpu_ms)
awk -v c=$((cpu1 - cpu0)) -v h="$HOSTS" -v w="$REPORT_WINDOW" -v s="$SBD_SLEEP" 'BEGIN {
  n = h * w / s; printf "idle: mbatchd CPU %.1f%% of a core over %d s, %.0f us per load report (%.0f reports)\n", c / w / 10, w, c * 1000 / n, n }'
echo "mbatchd resident memory with the hosts registered: $(mbd_rss_mb) MB"

# --- throughput: the jobs wait in an inactive queue, then all may start at once
cpu0=$(mbd_cpu_ms)
badmin qinact normal >/dev/null 2>&1
"$BIN/rpc_bench" submit --clients "$SUBMIT_CLIENTS" --jobs "$JOBS" --sleep-max "$SLEEP_MAX"
badmin qact normal >/dev/null 2>&1
t0=$(now_ms)
: >"$DIR/samples"
last=-1
while :; do
  read -r njobs pend run < <(queue_counts) || { sleep 1; continue; }
  t=$(now_ms)
  echo "$((t - t0)) $((JOBS - njobs)) $pend $run" >>"$DIR/samples"
  [ "$njobs" -eq 0 ] && break
  if [ "$njobs" != "$last" ]; then last=$njobs; stalled=$t; fi
  [ $((t - stalled)) -gt 300000 ] && { echo "no job ended for 300 s: $njobs left ($pend PEND, $run RUN)"; break; }
  sleep 2
done
cpu1=$(mbd_cpu_ms)
awk -v jobs="$JOBS" '{t[NR] = $1; f[NR] = $2; if ($4 > maxrun) maxrun = $4}
  END {
    best = 0; w = t[NR] / 3 < 30000 ? t[NR] / 3 : 30000
    for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) if (t[j] - t[i] >= w) {
      r = (f[j] - f[i]) * 1000 / (t[j] - t[i]); if (r > best) best = r; break }
    printf "jobs finished: %d in %.1f s from badmin qact, %.0f jobs/s overall; best %.0f s: %.0f jobs/s; at most %d running at once\n",
      f[NR], t[NR] / 1000, f[NR] * 1000 / t[NR], w / 1000, best, maxrun }' "$DIR/samples"
awk -v c=$((cpu1 - cpu0)) -v j="$JOBS" 'BEGIN {printf "mbatchd CPU per job (submission, dispatch, start and end reports, load reports meanwhile): %.0f us\n", c * 1000 / j}'
echo "mbatchd resident memory with $JOBS finished jobs: $(mbd_rss_mb) MB"

# --- query latency under submission load
"$BIN/rpc_bench" submit --clients "$CLIENTS" --jobs "$LOAD_JOBS" --sleep-max "$SLEEP_MAX" >"$DIR/loader.out" 2>&1 &
LOADER=$!
: >"$DIR/lat.bjobs"
: >"$DIR/lat.bjobs_p"
: >"$DIR/lat.bhosts"
timed() {  # OUT COMMAND...
  local out="$1" s
  shift
  s=$(date +%s%N)
  "$@" >/dev/null 2>&1
  echo $((($(date +%s%N) - s) / 1000000)) >>"$out"
}
for i in $(seq 1 "$SAMPLES"); do
  kill -0 "$LOADER" 2>/dev/null || break
  timed "$DIR/lat.bjobs" bjobs
  timed "$DIR/lat.bjobs_p" bjobs -u all -p
  timed "$DIR/lat.bhosts" bhosts
done
loaded=$(wc -l <"$DIR/lat.bhosts")
kill -TERM "$LOADER" 2>/dev/null
wait "$LOADER" 2>/dev/null
LOADER=""
echo "while $CLIENTS clients submit ($(cat "$DIR/loader.out"))"
[ "$loaded" -lt "$SAMPLES" ] && echo "  (the submissions ended after $loaded runs of each command: raise LOAD_JOBS)"
echo "  bjobs:             $(percentiles <"$DIR/lat.bjobs")"
echo "  bjobs -u all -p:   $(percentiles <"$DIR/lat.bjobs_p")"
echo "  bhosts:            $(percentiles <"$DIR/lat.bhosts")"

# --- restart with that state
read -r njobs pend run < <(queue_counts)
rss_before=$(mbd_rss_mb)
old=$(mbd_pid)
kill -9 "$old"
start=$(now_ms)
# Its lock goes with the last of its threads (a large one takes a while to go): until
# then a new mbatchd refuses to start.
while [ -e "/proc/$old" ] && [ "$(ls "/proc/$old/task" 2>/dev/null | wc -l)" -gt 1 -o \
  "$(awk '{sub(/.*\) /, ""); print $1}' "/proc/$old/stat" 2>/dev/null)" != Z ]; do sleep 0.01; done
LOCK=$(ls "$DIR"/work/*/mbatchd.*.lock | head -1)
until flock -n "$LOCK" true; do sleep 0.01; done
gone=$(($(now_ms) - start))
LSF_ENVDIR="$DIR/conf" "$BIN/mbatchd" --host-name hostA --listen 127.0.0.1 >>"$DIR/log/mbatchd.out" 2>&1 &
echo $! >"$DIR/mbatchd.pid"
disown -a
answered=""
for _ in $(seq 1 6000); do
  timeout 5 lsid >/dev/null 2>&1 && { answered=$(($(now_ms) - start)); break; }
  kill -0 "$(mbd_pid)" 2>/dev/null || { echo "mbatchd did not restart:"; tail -5 "$DIR/log/mbatchd.out"; exit 1; }
  sleep 0.05
done
registered=$(wait_hosts_ok "$start" 600)
read -r njobs2 pend2 run2 < <(queue_counts)
echo "restart (kill -9) with $njobs unfinished jobs ($run RUN, $pend PEND) and $(bjobs -u all -a -noheader 2>/dev/null | wc -l) in all:"
echo "  the killed mbatchd gone after $gone ms; lsid answers after ${answered:-more than 300000} ms; every host ok after $registered ms; then $run2 RUN, $pend2 PEND"
echo "mbatchd resident memory: $rss_before MB before the kill, $(mbd_rss_mb) MB after the restart"
tail -1 "$DIR/emulator.out"
