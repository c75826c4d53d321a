#!/usr/bin/env bash
# Master takeover time on a local failover cluster (conf-examples/failover: three
# candidates, each virtual host on its own loopback address, the default timing):
# from kill -9 of every process of the master host to the first submission the new
# master accepts. The dead host is revived after each round, so the master moves
# round the three candidates. Prints each round, then the median and the worst.
# Never fails on a time.
#   tests/bench/failover_bench.sh [BUILD_DIR] [ROUNDS] [JOBS] [HOSTS]
# JOBS: pending jobs put in the log first (every host closed, so they stay), to see
# what a big log costs the new master's recovery.
# HOSTS: emulated hosts emu0001 ... added to lsf.cluster (not candidates; MXJ 0 in
# lsb.hosts, so they run nothing) and kept registered by tests/bench/host_emulator.cc,
# which follows the master as sbatchds do; each round then also prints how long until
# the new master has every one of them registered again (as bhosts shows it).
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="$(cd "${1:-$ROOT/build}/bin" && pwd)"
ROUNDS="${2:-20}"
JOBS="${3:-0}"
HOSTS="${4:-0}"
source "$ROOT/scripts/cluster_lib.sh"

DIR="$(mktemp -d "${TMPDIR:-/tmp}/lsfsched-bench.XXXXXX")"
EMU=""
stop_emulator() {
  [ -n "$EMU" ] || return 0
  kill "$EMU" 2>/dev/null
  # (disown -a below takes it out of this shell's jobs: wait would not wait.)
  local i
  for i in $(seq 1 50); do kill -0 "$EMU" 2>/dev/null || break; sleep 0.1; done
  EMU=""
}
trap 'stop_emulator; cluster_stop "$DIR" >/dev/null 2>&1; rm -rf "$DIR"' EXIT
cluster_create "$DIR" "$ROOT/conf-examples/failover"
sed -i 's/^LSF_LOG_MASK=.*/LSF_LOG_MASK=LOG_WARNING/' "$DIR/conf/lsf.conf"
REAL_HOSTS=$(cluster_hosts "$DIR")
if [ "$HOSTS" -gt 0 ]; then
  # After cluster_create, so that only the real hosts get loopback addresses of their own.
  add_rows() {  # FILE FORMAT: a row for each emulated host, before the file's first "End Host"
    for i in $(seq 1 "$HOSTS"); do printf "$2" "$i"; done >"$DIR/rows"
    { sed '/^End Host/,$d' "$1"; cat "$DIR/rows"; sed -n '/^End Host/,$p' "$1"; } >"$DIR/rows.new" && mv "$DIR/rows.new" "$1"
  }
  add_rows "$DIR/conf/lsf.cluster.failover" 'emu%04d    Generic   LINUX64   1       -    ()\n'
  add_rows "$DIR/conf/lsbatch/failover/configdir/lsb.hosts" 'emu%04d     0     ()     ()        ()\n'
fi
# cluster_start would start an sbatchd for every host of lsf.cluster: only the real ones.
cluster_start_mbatchd "$DIR" "$BIN" || exit 1
for host in $REAL_HOSTS; do
  touch "$DIR/load.$host"
  cluster_start_sbatchd "$DIR" "$BIN" "$host"
done
disown -a  # their kill -9 is the point: no "Killed" from this shell
export LSF_ENVDIR="$DIR/conf" PATH="$BIN:$PATH"
LOGDIR=$(ls -d "$DIR"/work/*/logdir)
for i in $(seq 1 200); do
  [ "$(bhosts $REAL_HOSTS 2>/dev/null | awk 'NR > 1 && $2 == "ok"' | wc -l)" -eq "$(echo $REAL_HOSTS | wc -w)" ] && break
  sleep 0.1
done

# Emulated hosts that the master has registered (bhosts: neither unavail nor unreach).
emulated_ok() { bhosts 2>/dev/null | awk '$1 ~ /^emu[0-9]/ && $2 != "unavail" && $2 != "unreach"' | wc -l; }
# Waits (at most LIMIT seconds) until every emulated host is registered; prints the ms
# since START, or what it saw when the time ran out.
wait_emulated() {  # START LIMIT
  local i n=0
  for i in $(seq 1 $(($2 * 5))); do
    n=$(emulated_ok)
    [ "$n" -ge "$HOSTS" ] && { echo $((($(date +%s%N) - $1) / 1000000)); return; }
    sleep 0.2
  done
  echo "more than $(($2 * 1000)) (only $n registered)"
}
if [ "$HOSTS" -gt 0 ]; then
  "$BIN/host_emulator" --hosts "$HOSTS" --print-seconds 30 >"$DIR/emulator.out" 2>&1 &
  EMU=$!
  start=$(date +%s%N)
  echo "# $HOSTS emulated hosts registered after $(wait_emulated "$start" 300) ms"
fi

if [ "$JOBS" -gt 0 ]; then
  badmin hclose >/dev/null 2>&1
  "$BIN/rpc_bench" submit --clients 8 --jobs "$JOBS" >/dev/null
  echo "# $(bjobs -u all -noheader 2>/dev/null | wc -l) jobs in the log"
fi

master() { awk '{print $2}' "$LOGDIR/lsb.master.$(ls "$LOGDIR" | sed -n 's/^lsb\.master\.\([0-9]*\)$/\1/p' | sort -n | tail -1)"; }
times=()
regs=()
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
  line="round $round: $m killed, $(master) took over, first submission accepted after $ms ms"
  if [ "$HOSTS" -gt 0 ]; then
    reg=$(wait_emulated "$start" 300)
    # (A round that timed out counts as its limit.)
    case "$reg" in *[!0-9]*) regs+=(300000) ;; *) regs+=("$reg") ;; esac
    line+=", all $HOSTS emulated hosts registered with it after $reg ms"
  fi
  echo "$line"
  cluster_revive_host "$DIR" "$BIN" "$m"
  disown -a
  # The revived host is a candidate again once its sbatchd reports.
  for i in $(seq 1 200); do
    bhosts "$m" 2>/dev/null | awk 'NR == 2 {print $2}' | grep -qvE '^(unavail|unreach)$' && break
    sleep 0.1
  done
done
summary() {  # TIMES...
  local sorted
  sorted=$(printf '%s\n' "$@" | sort -n)
  echo "median $(echo "$sorted" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}') ms, worst $(echo "$sorted" | tail -1) ms"
}
echo "takeover over $ROUNDS kills: $(summary "${times[@]}")"
if [ "$HOSTS" -gt 0 ]; then
  echo "every emulated host registered with the new master over $ROUNDS kills: $(summary "${regs[@]}")"
  stop_emulator
  tail -1 "$DIR/emulator.out"
fi
