#!/usr/bin/env bash
# GPUs against real daemons, with GPU description files on the virtual hosts (hostA:
# two V100s, hostB: one A100, hostC: none): lshosts -gpu and lsload -gpu / -gpuload,
# bsub -gpu and its refusals, GPU_REQ in a queue, CUDA_VISIBLE_DEVICES as allocated,
# two exclusive jobs never on one device and a third pending with the figures,
# bjobs -l -gpu, bhosts -gpu, bhist -l -gpu, rusage[ngpus_physical], bmod -gpu, the
# allocation kept across a restart of mbatchd, and per-task CUDA_VISIBLE_DEVICES<n>.
#   gpu_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2"
cat >"$TEST_DIR/gpus.hostA" <<'EOF'
id=0 model=TeslaV100_SXM2_32GB mem=32510M socket=0 factor=7.0 driver=535.104 ut=10% mused=1G temp=40
id=1 model=TeslaV100_SXM2_32GB mem=32510M socket=1 factor=7.0 driver=535.104 ut=20% mused=2G temp=42
EOF
cat >"$TEST_DIR/gpus.hostB" <<'EOF'
id=0 model=NVIDIAA100_SXM4_80GB mem=80G socket=0 factor=8.0 driver=535.104
EOF
QUEUES=$(dirname "$PARAMS")/lsb.queues
cat >>"$QUEUES" <<'EOF'

Begin Queue
QUEUE_NAME = gpu
PRIORITY   = 20
GPU_REQ    = "num=1:mode=exclusive_process"
End Queue
EOF
cluster_start "$TEST_DIR" "$BIN" || exit 1
gpus_reported() { lshosts -gpu | grep -q NVIDIAA100; }
check "the hosts report their GPUs" wait_for 20 gpus_reported

check "lshosts -gpu: LSF's columns" bash -c "lshosts -gpu | head -1 | grep -Eq '^HOST_NAME +gpu_id +gpu_model +gpu_driver +gpu_factor +numa_id +vendor$'"
check "lshosts -gpu: a row per GPU, the host named once" bash -c "
  lshosts -gpu | awk 'NR>1' >g.txt && [ \$(wc -l <g.txt) = 3 ] &&
  grep -Eq '^hostA +0 +TeslaV100_SXM2_32GB +535.104 +7.0 +0 +nvidia$' g.txt &&
  grep -Eq '^ +1 +TeslaV100_SXM2_32GB +535.104 +7.0 +1 +nvidia$' g.txt && ! grep -q hostC g.txt"
check "lsload -gpu: a host's GPUs in sum" bash -c "lsload -gpu | grep -Eq '^hostA +ok +2 +0% +15% +2$'"
check "lsload -gpuload: each GPU's load" bash -c "
  lsload -gpuload | grep -Eq '^hostA +0 +TeslaV100_SXM2_32GB +0.0 +40C +0.0 +10% +0% +32G +1.0G +- +ok +-$'"
check "select[] sees ngpus" bash -c "lshosts -R 'select[ngpus>1]' | awk 'NR>1 {print \$1}' | tr '\n' ' ' | grep -qx 'hostA '"

# Refusals name the option and change nothing.
check "a malformed -gpu is refused by bsub" \
  bash -c "bsub -gpu 'num=0' true 2>&1 | grep -q 'Bad GPU requirement (-gpu): num=0: the number of GPUs must be a whole number from 1 to 1024'"
check "an unknown option is refused" bash -c "bsub -gpu 'num=1:colour=red' true 2>&1 | grep -q 'unknown GPU option \"colour\"'"
check "refused: no job" [ "$(job_count)" = 0 ]

# Two exclusive jobs on hostA's two V100s; the third waits with the figures.
one=$(submit -gpu "num=1:mode=exclusive_process" -m hostA -o cvd.%J 'echo $CUDA_VISIBLE_DEVICES; sleep 60')
two=$(submit -gpu "num=1:mode=exclusive_process" -m hostA -o cvd.%J 'echo $CUDA_VISIBLE_DEVICES; sleep 60')
check "both exclusive jobs run" wait_for 20 bash -c "state_is $one RUN && state_is $two RUN"
check "each got its own device" wait_for 20 bash -c "[ -s cvd.$one ] && [ -s cvd.$two ] &&
  [ \"\$(head -qn1 cvd.$one cvd.$two | sort | tr '\n' ' ')\" = '0 1 ' ]"
three=$(submit -gpu "num=1:mode=exclusive_process" -m hostA -o /dev/null true)
check "the third pends for lack of GPUs, with the figures" wait_for 20 bash -c \
  "bjobs -l $three | sed -zE 's/\n {21}//g' | grep -q 'Not enough GPUs on the host: 0 free, 1 requested'"
check "bjobs -l: Requested GPU and the requirement in full" bash -c "
  bjobs_l_flat $one >l.txt && grep -q 'Requested GPU <num=1:mode=exclusive_process>' l.txt &&
  grep -q 'GPU REQUIREMENT DETAILS:' l.txt &&
  grep -q 'Combined: num=1:mode=exclusive_process:mps=no:j_exclusive=no' l.txt &&
  grep -q 'Effective: num=1:mode=exclusive_process:mps=no:j_exclusive=no' l.txt"
check "bjobs -l -gpu: GPU_ALLOCATION with the device's facts" bash -c "
  bjobs -l -gpu $one >a.txt && grep -q 'GPU_ALLOCATION:' a.txt &&
  grep -Eq '^ hostA +0 +[01] +- +- +TeslaV100_SXM2_32GB +32G +7.0 +0M +[01] +-$' a.txt"

check "bhosts -w -gpu: LSF's columns" bash -c "bhosts -w -gpu | head -1 | grep -Eq '^HOST_NAME +GPU_ID +MODEL +MUSED +MRSV +NJOBS +RUN +SUSP +RSV$'"
check "bhosts -w -gpu: each device with its job" bash -c "
  bhosts -w -gpu >bh.txt && grep -Eq '^hostA +0 +TeslaV100_SXM2_32GB +1.0G +0M +1 +1 +0 +0$' bh.txt &&
  grep -Eq '^ +1 +TeslaV100_SXM2_32GB +2.0G +0M +1 +1 +0 +0$' bh.txt &&
  grep -Eq '^hostB +0 +NVIDIAA100_SXM4_80GB +0M +0M +0 +0 +0 +0$' bh.txt && ! grep -q hostC bh.txt"
check "bhosts -gpu cuts the model name as bhosts cuts names" bash -c "bhosts -gpu hostA | grep -Eq '^hostA +0 +TeslaV100_SXM2_ +1.0G '"
check "bhosts -l -gpu adds the memory and mode" bash -c "
  bhosts -l -gpu hostB | grep -Eq '^HOST_NAME +GPU_ID +MODEL +MTOTAL +MUSED +MRSV +NJOBS +RUN +SUSP +RSV +MODE$' &&
  bhosts -l -gpu hostB | grep -Eq '^hostB +0 +NVIDIAA100_SXM4_80GB +80G +0M +0M +0 +0 +0 +0 +shared$'"
check "bhist -l -gpu: the allocation at the dispatch" bash -c "
  bhist -l -gpu $one >h.txt && grep -q 'GPU_ALLOCATION:' h.txt && grep -Eq '^ hostA +0 +[01] +- +- +TeslaV100_SXM2_32GB ' h.txt"
check "bhist -gpu without -l is refused" bash -c "bhist -gpu $one 2>&1 | grep -q 'bhist: -gpu: use it with -l'"
check "bjobs -gpu without -l is refused" bash -c "bjobs -gpu $one 2>&1 | grep -q 'bjobs: -gpu: use it with -l'"

# LSF's other way to ask: -R "rusage[ngpus_physical=N]" is -gpu "num=N".
r=$(submit -R "rusage[ngpus_physical=1]" -m hostB -o cvd.%J 'echo $CUDA_VISIBLE_DEVICES')
check "rusage[ngpus_physical=1] runs with a GPU" wait_for 20 bash -c "state_is $r DONE && [ \"\$(head -1 cvd.$r)\" = 0 ]"
check "rusage[ngpus_physical=1]: bjobs -l shows the GPU request" bash -c "bjobs_l_flat $r | grep -q 'Requested GPU <num=1>'"
check "rusage[ngpus_physical=0.5] is refused" bash -c "
  bsub -R 'rusage[ngpus_physical=0.5]' true 2>&1 | grep -q 'ngpus_physical=0.5\]: the number of GPUs must be a whole number'"

# The queue's GPU_REQ makes its jobs GPU jobs; -gpu - takes it whole.
q=$(submit -q gpu -H -o /dev/null true)
check "GPU_REQ of the queue" bash -c "bjobs_l_flat $q | grep -q 'Combined: num=1:mode=exclusive_process:mps=no:j_exclusive=no'"
check "bqueues -l shows GPU_REQ" bash -c "bqueues -l gpu | grep -q 'GPU_REQ:  num=1:mode=exclusive_process'"
check "bmod -gpu changes a pending job's requirement" bash -c "
  bmod -gpu 'num=2:gmem=1G' $q >/dev/null && bjobs_l_flat $q | grep -q 'Combined: num=2:mode=exclusive_process:mps=no:j_exclusive=no:gmem=1024M'"
check "bmod -gpun removes the job's own part" bash -c "
  bmod -gpun $q >/dev/null && bjobs_l_flat $q | grep -q 'Combined: num=1:mode=exclusive_process:mps=no:j_exclusive=no$'"
check "a bad bmod -gpu is refused and changes nothing" bash -c "
  ! bmod -gpu 'mode=turbo' $q 2>/dev/null && bjobs_l_flat $q | grep -q 'Combined: num=1:mode=exclusive_process:mps=no:j_exclusive=no$'"
plain=$(submit -H -o /dev/null true)
check "a job without -gpu asks for no GPU" bash -c "! bjobs -l $plain | grep -q 'GPU REQUIREMENT'"

# The allocation survives a restart: the third job still waits, and runs on the device
# the first gives back.
before=$(head -1 cvd.$one)
restart_mbatchd
wait_for 20 bash -c "lshosts -gpu | grep -q NVIDIAA100"
sleep 2
check "after a restart the third still pends" state_is "$three" PEND
check "after a restart bjobs -l -gpu shows the same device" bash -c "bjobs -l -gpu $one | grep -Eq '^ hostA +0 +$before '"
bkill "$one" >/dev/null
check "once the first ends, the third starts on its device" wait_for 30 bash -c "state_is $three DONE || state_is $three RUN"
check "the third's allocation is the device given back" bash -c "bjobs -l -gpu $three | grep -Eq '^ hostA +0 +$before '"
bkill -u all 0 >/dev/null 2>&1

# num=1/task: each of the job's tasks on the host gets its own device, named by
# CUDA_VISIBLE_DEVICES<n>; CUDA_VISIBLE_DEVICES names them all.
hosta_free() { bhosts -w -gpu hostA | awk 'NR>1 && $(NF-3) != 0 {busy=1} END {exit busy}'; }
check "hostA's GPUs are free again" wait_for 30 hosta_free
t=$(submit -n 2 -R "span[hosts=1]" -gpu "num=1/task" -m hostA -o env.%J 'env | grep ^CUDA_VISIBLE | sort')
check "num=1/task: the job runs" wait_for 20 state_is "$t" DONE
check "num=1/task: CUDA_VISIBLE_DEVICES<n> per task" bash -c "
  grep -Eq '^CUDA_VISIBLE_DEVICES=(0,1|1,0)$' env.$t && grep -Eq '^CUDA_VISIBLE_DEVICES0=[01]$' env.$t &&
  grep -Eq '^CUDA_VISIBLE_DEVICES1=[01]$' env.$t &&
  [ \"\$(grep -h '^CUDA_VISIBLE_DEVICES[01]=' env.$t | cut -d= -f2 | sort | tr '\n' ' ')\" = '0 1 ' ]"
harness_done
