#!/usr/bin/env bash
# Compares lsfsched with Slurm side by side on this one machine and prints a markdown
# table. Never fails on a time.
#   tests/bench/vs_slurm.sh [BIN_DIR] [ROUNDS] [N] [M] [K]
# BIN_DIR holds mbatchd, sbatchd and the commands (default build/bin); ROUNDS (3) rounds
# of: N (1000) held submissions one after another, the same N from 8 submitters at once,
# M (2000) /bin/true jobs submitted one by one and run (first submit to last done), M as
# one array, submit-to-start latency over K (50) jobs one at a time, and the controller's
# CPU (utime + stime of mbatchd, slurmctld) over the M jobs one by one. Each measurement
# runs on one system and then the other, the order swapped every round; the table holds
# the median of the rounds.
#
# Installs Debian's slurm-wlm and munge when they are missing (apt-get, as root), then
# runs a one-node Slurm out of a temporary directory: its own munged (key and socket
# there), slurmctld -D and slurmd -D as root on free ports, no accounting
# (jobcomp/filetxt counts the finished jobs), cons_tres with config_overrides so the node
# has as many CPUs as lsfsched has job slots (3 virtual hosts with MXJ 32), and the
# scheduler's timers turned down (Slurm's defaults wait seconds before starting a job).
# lsfsched is a fresh local cluster from conf-examples/quickstart as in
# run_benchmarks.sh. Everything it started is stopped on exit and the temporary
# directories removed.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="$(cd "${1:-$ROOT/build/bin}" && pwd)" || exit 1
ROUNDS="${2:-3}"
N="${3:-1000}"
M="${4:-2000}"
K="${5:-50}"
WAIT_S=600 # the longest any one wait may take
# shellcheck source=scripts/cluster_lib.sh
source "$ROOT/scripts/cluster_lib.sh"

DIR="" SDIR="" MUNGED_PID="" CTLD_PID="" SLURMD_PID=""
cleanup() {
  [ -n "$DIR" ] && { cluster_stop "$DIR" >/dev/null 2>&1; rm -rf "$DIR"; }
  if [ -n "$SDIR" ]; then
    [ -n "$CTLD_PID" ] && scancel -u "$(id -un)" >/dev/null 2>&1
    local pid i
    for pid in $SLURMD_PID $CTLD_PID $MUNGED_PID; do kill "$pid" 2>/dev/null; done
    for pid in $SLURMD_PID $CTLD_PID $MUNGED_PID; do
      for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null
    done
    # What slurmd started (slurmstepd and jobs, reparented): they carry our SLURM_CONF.
    local conf="$SDIR/slurm.conf" p
    unset SLURM_CONF
    for p in /proc/[0-9]*; do
      [ "${p#/proc/}" = $$ ] && continue
      grep -qzxF "SLURM_CONF=$conf" "$p/environ" 2>/dev/null && kill -9 "${p#/proc/}" 2>/dev/null
    done
    rm -rf "$SDIR"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { echo "$EPOCHREALTIME"; }
# Polls the command until it succeeds, every INTERVAL seconds, for at most WAIT_S seconds.
wait_until() { # INTERVAL COMMAND...
  local interval="$1" end
  shift
  end=$((SECONDS + WAIT_S))
  while [ $SECONDS -lt $end ]; do
    "$@" && return 0
    sleep "$interval"
  done
  echo "timed out waiting for: $*" >&2
  return 1
}

# ---- Slurm
install_slurm() {
  local p
  for p in slurmctld slurmd sbatch munged mungekey; do command -v "$p" >/dev/null || break; done
  command -v "$p" >/dev/null && return 0
  echo "== installing slurm-wlm and munge"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null 2>&1 ||
    { apt-get update >/dev/null && apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null; } ||
    { echo "cannot install slurm-wlm" >&2; exit 1; }
}

port_free() { [ -z "$(ss -Htln "sport = :$1" 2>/dev/null)" ]; }
free_port() {
  local p i
  for i in $(seq 1 100); do
    p=$((20000 + RANDOM % 40000))
    port_free "$p" && port_free $((p + 1)) && { echo "$p"; return 0; }
  done
  echo "no free port" >&2
  exit 1
}

start_slurm() { # CPUS
  SDIR="$(mktemp -d "${TMPDIR:-/tmp}/vs-slurm.XXXXXX")"
  mkdir -p "$SDIR/state" "$SDIR/spool" "$SDIR/work"
  mungekey --create --keyfile="$SDIR/munge.key" >/dev/null || exit 1
  chmod 600 "$SDIR/munge.key"
  munged --foreground --force --key-file="$SDIR/munge.key" --socket="$SDIR/munge.socket" \
    --pid-file="$SDIR/munged.pid" --log-file="$SDIR/munged.log" --seed-file="$SDIR/munged.seed" \
    >>"$SDIR/munged.out" 2>&1 &
  MUNGED_PID=$!
  wait_until 0.1 test -S "$SDIR/munge.socket" || { cat "$SDIR/munged.out" "$SDIR/munged.log" >&2; exit 1; }
  local port
  port=$(free_port)
  cat >"$SDIR/slurm.conf" <<CONF
ClusterName=vsbench
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SDIR/munge.socket
StateSaveLocation=$SDIR/state
SlurmdSpoolDir=$SDIR/spool
SlurmctldPidFile=$SDIR/slurmctld.pid
SlurmdPidFile=$SDIR/slurmd.pid
SlurmctldLogFile=$SDIR/slurmctld.log
SlurmdLogFile=$SDIR/slurmd.log
SlurmctldDebug=error
SlurmdDebug=error
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$SDIR/jobcomp.txt
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0,sched_interval=1,bf_interval=1,bf_continue,default_queue_depth=1000
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MaxJobCount=$((ROUNDS * (2 * N + 2 * M + K) + 10000))
MaxArraySize=$((M > 1000 ? M + 1 : 1001))
NodeName=vsnode NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=$1 State=UNKNOWN
PartitionName=vs Nodes=vsnode Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF="$SDIR/slurm.conf"
  slurmctld -D -i -f "$SLURM_CONF" >>"$SDIR/slurmctld.out" 2>&1 &
  CTLD_PID=$!
  slurmd -D -N vsnode -f "$SLURM_CONF" >>"$SDIR/slurmd.out" 2>&1 &
  SLURMD_PID=$!
  if ! wait_until 0.2 slurm_idle; then
    sinfo >&2
    tail -20 "$SDIR"/*.out "$SDIR"/*.log >&2
    exit 1
  fi
}
slurm_idle() { [ "$(sinfo -h -o %t 2>/dev/null)" = idle ]; }

# ---- lsfsched
start_lsfsched() {
  DIR="$(mktemp -d "${TMPDIR:-/tmp}/vs-lsfsched.XXXXXX")"
  cluster_create "$DIR" "$ROOT/conf-examples/quickstart"
  sed -i 's/^default .*/default     32    ()     ()        ()/' "$DIR/conf/lsbatch/quickstart/configdir/lsb.hosts"
  sed -i 's/^LSF_LOG_MASK=.*/LSF_LOG_MASK=LOG_WARNING/' "$DIR/conf/lsf.conf"
  [ "$M" -le 1000 ] || sed -i "s/^End Parameters/MAX_JOB_ARRAY_SIZE = $M\n&/" "$DIR/conf/lsbatch/quickstart/configdir/lsb.params"
  cluster_start "$DIR" "$BIN" >/dev/null || exit 1
  export LSF_ENVDIR="$DIR/conf"
}

# ---- one measurement on one system: sys is "lsf" or "slurm"; each prints one figure.
submit_one() { # SYS [options before the command]
  local sys="$1"
  shift
  if [ "$sys" = lsf ]; then "$BIN/bsub" "$@" -o /dev/null true >/dev/null; else sbatch "$@" -o /dev/null --wrap true >/dev/null; fi
}
none_left() { # SYS: no unfinished job
  if [ "$1" = lsf ]; then [ -z "$("$BIN/bjobs" -u all -noheader -o stat 2>/dev/null)" ]; else [ -z "$(squeue -h -o %i 2>/dev/null)" ]; fi
}
kill_all() { # SYS
  if [ "$1" = lsf ]; then "$BIN/bkill" -u all 0 >/dev/null 2>&1; else scancel -u "$(id -un)" >/dev/null 2>&1; fi
  wait_until 0.2 none_left "$1"
}
first_id() { # SYS OUTPUT-OF-SUBMISSION
  if [ "$1" = lsf ]; then sed -n 's/^Job <\([0-9]*\)>.*/\1/p' <<<"$2"; else awk '{print $NF}' <<<"$2"; fi
}

# 1 and 2: held submissions from P submitters; jobs/s.
m_submit() { # SYS P
  local sys="$1" p="$2" start end w i
  start=$(now)
  for w in $(seq 1 "$p"); do
    (for i in $(seq "$w" "$p" "$N"); do submit_one "$sys" -H; done) &
  done
  wait
  end=$(now)
  kill_all "$sys"
  awk -v s="$start" -v e="$end" -v n="$N" 'BEGIN {printf "%.0f\n", n / (e - s)}'
}

# Finished jobs counted so far (lsfsched: DONE among ids >= $1; Slurm: COMPLETED lines).
done_count() { # SYS [FIRST-ID]
  if [ "$1" = lsf ]; then
    "$BIN/bjobs" -a -u all -noheader -o "jobid stat" 2>/dev/null | awk -v f="$2" '$1 >= f && $2 == "DONE"' | wc -l
  else
    touch "$SDIR/jobcomp.txt"
    awk '/JobState=COMPLETED/ {n++} END {print n + 0}' "$SDIR/jobcomp.txt"
  fi
}
cpu_ticks() { # SYS: utime + stime of the controller
  local pid
  if [ "$1" = lsf ]; then pid=$(cat "$DIR/mbatchd.pid"); else pid=$CTLD_PID; fi
  awk '{print $14 + $15}' "/proc/$pid/stat"
}

# 3 and 4: M /bin/true jobs, one by one or as one array; jobs/s from the first
# submission to the last done, and the controller's CPU in ms per job.
m_run() { # SYS one|array
  local sys="$1" how="$2" start end out first before c0 c1 i n
  before=$(done_count "$sys" 0)
  c0=$(cpu_ticks "$sys")
  start=$(now)
  if [ "$how" = array ]; then
    if [ "$sys" = lsf ]; then
      out=$("$BIN/bsub" -J "a[1-$M]" -o /dev/null true)
    else
      out=$(sbatch --array=1-"$M" -o /dev/null --wrap true)
    fi
    first=$(first_id "$sys" "$out")
    [ -n "$first" ] || { echo "($sys: the array was not submitted)" >&2; echo "0 0"; return; }
  else
    out=$(submit_one_id "$sys")
    first=$(first_id "$sys" "$out")
    for i in $(seq 2 "$M"); do submit_one "$sys"; done
  fi
  wait_until 0.1 none_left "$sys"
  end=$(now)
  c1=$(cpu_ticks "$sys")
  if [ "$sys" = lsf ]; then n=$(done_count lsf "$first"); else n=$(($(done_count slurm) - before)); fi
  [ "$n" -eq "$M" ] || echo "($sys: $n of $M jobs done)" >&2
  awk -v s="$start" -v e="$end" -v n="$M" -v c="$((c1 - c0))" -v hz="$(getconf CLK_TCK)" \
    'BEGIN {printf "%.0f %.3f\n", n / (e - s), c * 1000 / hz / n}'
}
submit_one_id() { # SYS: one job, its submission's output
  if [ "$1" = lsf ]; then "$BIN/bsub" -o /dev/null true; else sbatch -o /dev/null --wrap true; fi
}

# 5: submit to start, the job writing its start time; p50 and p99 in ms. Slurm starts
# jobs from a loop that runs once a second, so a job submitted right after the previous
# one ended would always meet the same phase of it: each submission waits a random
# 0-1 s first, on both systems, as jobs come to an idle cluster at random times.
m_latency() { # SYS
  local sys="$1" i t0 f cmd
  for i in $(seq 1 "$K"); do
    f="$WORK/lat.$sys.$i"
    cmd="date +%s.%N >$f.tmp && mv $f.tmp $f"
    sleep "0.$(printf '%03d' $((RANDOM % 1000)))"
    t0=$(now)
    if [ "$sys" = lsf ]; then "$BIN/bsub" -o /dev/null "$cmd" >/dev/null; else sbatch -o /dev/null --wrap "$cmd" >/dev/null; fi
    WAIT_S=60 wait_until 0.002 test -s "$f" || continue
    awk -v t="$t0" '{printf "%.1f\n", ($1 - t) * 1000}' "$f"
    rm -f "$f"
    wait_until 0.02 none_left "$sys"
  done | sort -n | awk '{v[NR] = $1} END {
      p50 = int(NR * 0.5 + 0.999); p99 = int(NR * 0.99 + 0.999)
      printf "%s %s\n", v[p50], v[p99]}'
}

median() { sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# ---- the run
install_slurm
start_lsfsched
SLOTS=$("$BIN/bhosts" | awk 'NR > 1 {s += $4} END {print s}')
start_slurm "$SLOTS"
WORK="$SDIR/work"
cd "$WORK" || exit 1
SLURM_VERSION=$(sbatch --version | awk '{print $2}')
echo "lsfsched: $BIN, $SLOTS slots on 3 virtual hosts; Slurm $SLURM_VERSION: one node, $SLOTS CPUs"
echo "ROUNDS=$ROUNDS N=$N M=$M K=$K, $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC')"
declare -A R # R[measure.sys] = figures of every round, one per line

record() { # KEY VALUE
  R[$1]+="$2"$'\n'
  printf '  %-28s %s\n' "$1" "$2"
}
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) -eq 1 ]; then order="lsf slurm"; else order="slurm lsf"; fi
  echo "== round $round ($order)"
  for sys in $order; do record "serial_submit.$sys" "$(m_submit "$sys" 1)"; done
  for sys in $order; do record "parallel_submit.$sys" "$(m_submit "$sys" 8)"; done
  for sys in $order; do
    read -r rate cpu <<<"$(m_run "$sys" one)"
    record "run_one_by_one.$sys" "$rate"
    record "ctl_cpu.$sys" "$cpu"
  done
  for sys in $order; do
    read -r rate cpu <<<"$(m_run "$sys" array)"
    record "run_array.$sys" "$rate"
  done
  for sys in $order; do
    read -r p50 p99 <<<"$(m_latency "$sys")"
    record "latency_p50.$sys" "$p50"
    record "latency_p99.$sys" "$p99"
  done
done

# ---- the table: medians; ratio > 1 means lsfsched does better
row() { # LABEL KEY higher|lower PRINTF-FORMAT
  local l s
  l=$(printf '%s' "${R[$2.lsf]}" | median)
  s=$(printf '%s' "${R[$2.slurm]}" | median)
  awk -v label="$1" -v l="$l" -v s="$s" -v better="$3" -v f="$4" 'BEGIN {
    r = better == "higher" ? (s > 0 ? l / s : 0) : (l > 0 ? s / l : 0)
    printf "| %s | " f " | " f " | %.2f (%s) |\n", label, l, s, r, better == "higher" ? "lsfsched/Slurm" : "Slurm/lsfsched"}'
}
echo
echo "Medians of $ROUNDS rounds, $(date -u '+%Y-%m-%d'), N=$N M=$M K=$K; ratio > 1: lsfsched better."
echo
echo "| what | lsfsched | Slurm $SLURM_VERSION | ratio |"
echo "|---|---|---|---|"
row "$N held submissions one after another (jobs/s)" serial_submit higher %.0f
row "$N held submissions, 8 submitters (jobs/s)" parallel_submit higher %.0f
row "$M /bin/true one by one, first submit to last done (jobs/s)" run_one_by_one higher %.0f
row "$M /bin/true as one array, first submit to last done (jobs/s)" run_array higher %.0f
row "submit to start, p50 over $K (ms)" latency_p50 lower %.0f
row "submit to start, p99 over $K (ms)" latency_p99 lower %.0f
row "controller CPU per job, $M one by one (ms)" ctl_cpu lower %.2f
