#!/usr/bin/env bash
# The GPU support on a machine with a real NVIDIA GPU: a one-host cluster whose sbatchd
# detects the GPUs through NVML, and shows
#   - lshosts -gpu and lsload -gpuload with the model and memory nvidia-smi reports;
#   - a `bsub -gpu "num=1:mode=exclusive_process"` job whose CUDA_VISIBLE_DEVICES names
#     its allocated device, and whose `nvidia-smi -L` lists that device;
#   - with every GPU so taken, one more exclusive job pending with the GPU reason until
#     a job ends, then starting.
# Exits 0 when all of that holds, 77 (skipped) with a message on a machine without an
# NVIDIA GPU, 1 otherwise. Changes no GPU setting (compute mode, MIG, persistence):
# exclusivity is shown by the allocation.
#   tests/gpu/check_real_gpu.sh [BIN_DIR]
# BIN_DIR holds mbatchd, sbatchd and the commands (default build/bin, built when absent).
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${1:-$ROOT/build/bin}"
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP - no NVIDIA GPU here (nvidia-smi is missing or lists none)"
  exit 77
fi
if [ ! -x "$BIN/mbatchd" ]; then
  cmake -S "$ROOT" -B "$ROOT/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null && ninja -C "$ROOT/build" || exit 1
  BIN="$ROOT/build/bin"
fi
BIN="$(cd "$BIN" && pwd)"
# shellcheck source=scripts/cluster_lib.sh
source "$ROOT/scripts/cluster_lib.sh"
DIR="$(mktemp -d "${TMPDIR:-/tmp}/lsfsched-gpu.XXXXXX")"
cleanup() { cluster_stop "$DIR" >/dev/null 2>&1; rm -rf "$DIR"; }
trap cleanup EXIT
FAILURES=0
check() {
  local what="$1"
  shift
  if "$@"; then echo "ok   - $what"; else
    echo "FAIL - $what"
    FAILURES=$((FAILURES + 1))
  fi
}
wait_for() {
  local seconds="$1"
  shift
  for _ in $(seq 1 $((seconds * 10))); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}

# One host: the quickstart cluster with hostA alone, its sbatchd asking NVML.
cluster_create "$DIR" "$ROOT/conf-examples/quickstart" >/dev/null
sed -i '/^hostB\|^hostC/d' "$DIR/conf/lsf.cluster.quickstart"
sed -i 's/^SBD_SLEEP_TIME.*/SBD_SLEEP_TIME = 1/' "$DIR"/conf/lsbatch/*/configdir/lsb.params
export LSF_ENVDIR="$DIR/conf" PATH="$BIN:$PATH"
CLUSTER_REAL_GPUS=1 cluster_start "$DIR" "$BIN" >/dev/null || {
  echo "FAIL - the cluster did not start"
  exit 1
}
mkdir -p "$DIR/out" && cd "$DIR/out" || exit 1

echo "== nvidia-smi"
nvidia-smi --query-gpu=index,name,memory.total,compute_mode --format=csv,noheader | tee smi.txt
NGPUS=$(wc -l <smi.txt)
check "sbatchd reports the GPUs" wait_for 30 bash -c "lshosts -gpu | awk 'NR>1' | grep -q ."
echo "== lshosts -gpu"
lshosts -gpu | tee lshosts.txt
echo "== lsload -gpuload"
lsload -gpuload | tee gpuload.txt
model=$(head -1 smi.txt | cut -d, -f2 | sed 's/^ *//; s/ //g; s/-/_/g')
mem_mib=$(head -1 smi.txt | cut -d, -f3 | tr -dc 0-9)
check "lshosts -gpu: one row per GPU nvidia-smi lists" [ "$(awk 'NR>1' lshosts.txt | wc -l)" = "$NGPUS" ]
check "lshosts -gpu: GPU 0's model as nvidia-smi names it ($model)" grep -Eq "^hostA +0 +$model " lshosts.txt
# lsload prints the total as G with one decimal below 10 G, whole above.
want_mem=$(awk -v m="$mem_mib" 'BEGIN { g = m / 1024; printf(g < 10 ? "%.1fG" : "%.0fG", g) }')
check "lsload -gpuload: GPU 0's total memory ($want_mem)" grep -Eq "^hostA +0 +$model .* $want_mem " gpuload.txt

# Every GPU taken by an exclusive job; one more waits for one of them.
ids=()
for _ in $(seq 1 "$NGPUS"); do
  ids+=("$(bsub -gpu "num=1:mode=exclusive_process" -o "job.%J" \
    'echo "CVD=$CUDA_VISIBLE_DEVICES"; nvidia-smi -L; sleep 30' | sed -n 's/^Job <\([0-9]*\)>.*/\1/p')")
done
first=${ids[0]}
check "the exclusive jobs run" wait_for 30 bash -c "for j in ${ids[*]}; do bjobs -noheader -o stat \$j | grep -qx RUN || exit 1; done"
more=$(bsub -gpu "num=1:mode=exclusive_process" -o /dev/null true | sed -n 's/^Job <\([0-9]*\)>.*/\1/p')
check "one more exclusive job pends with the GPU reason" wait_for 20 bash -c \
  "bjobs -l $more | sed -zE 's/\n {21}//g' | grep -q 'Not enough GPUs on the host: 0 free, 1 requested'"
check "the first job's output arrived" wait_for 20 grep -q '^CVD=' "job.$first"
echo "== job $first"
cat "job.$first"
echo "== bjobs -l -gpu $first"
bjobs -l -gpu "$first" | sed -n '/GPU_ALLOCATION/,$p' | tee alloc.txt
allocated=$(awk '$1 == "hostA" {print $3}' alloc.txt)
check "CUDA_VISIBLE_DEVICES is the allocated device ($allocated)" grep -qx "CVD=$allocated" "job.$first"
uuid=$(nvidia-smi --query-gpu=index,uuid --format=csv,noheader | awk -F', ' -v i="$allocated" '$1 == i {print $2}')
check "nvidia-smi -L in the job lists that device" grep -q "$uuid" "job.$first"
check "the devices of the exclusive jobs differ" bash -c \
  "[ \$(for j in ${ids[*]}; do sed -n 's/^CVD=//p' job.\$j; done | sort -u | wc -l) = $NGPUS ]"
bkill "$first" >/dev/null
check "once a job ends, the waiting one starts" wait_for 30 bash -c "bjobs -a -noheader -o stat $more | grep -Eqx 'RUN|DONE'"
bkill 0 >/dev/null 2>&1
[ "$FAILURES" = 0 ] && echo "all checks passed" && exit 0
echo "$FAILURES check(s) failed"
for f in "$DIR"/log/*.log.*; do tail -n 20 "$f"; done
exit 1
