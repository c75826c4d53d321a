#!/usr/bin/env bash
# Writes the seed inputs of tests/fuzz/corpus/<harness>/ from real examples: the
# configuration files of conf-examples/ and the compatibility corpus, the -R, -w and
# window strings the tests and manuals use, and signed-style request frames. Run it
# again after adding examples; inputs found by fuzzing (crashes kept as regressions)
# live beside these under their own names and are not touched.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CORPUS="$ROOT/tests/fuzz/corpus"
COMPAT="${COMPAT_DIR:-/work/shared/compat}"

# seed HARNESS NAME TEXT: one input, written with printf %b (\x00 is a NUL, \n a newline).
seed() {
  mkdir -p "$CORPUS/$1"
  printf '%b' "$3" >"$CORPUS/$1/seed-$2"
}

# config: the first byte picks the file kind, in config_fuzz.cc's order.
kinds=(lsf.conf lsf.shared lsf.cluster lsf.task lsb.params lsb.queues lsb.hosts lsb.users lsb.resources
  lsb.serviceclasses lsb.applications lsb.modules)
n=0
while IFS= read -r f; do
  base="$(basename "$f" .in)"
  [ "${base#lsf.cluster}" != "$base" ] && base=lsf.cluster
  for i in "${!kinds[@]}"; do
    if [ "${kinds[$i]}" = "$base" ]; then
      mkdir -p "$CORPUS/config"
      { printf "\\x$(printf %02x "$i")"; cat "$f"; } >"$CORPUS/config/seed-$n-$base"
      n=$((n + 1))
    fi
  done
done < <(find "$ROOT/conf-examples" "$COMPAT" -type f -name 'ls[fb].*' 2>/dev/null | sort)
seed config if-time '\x05#if time(5:19:00-1:8:30 20:00-8:30) && !(time(12:00-13:00) || time(1:0:00-1:1:00 EST))\nBegin Queue\nQUEUE_NAME = a\nRES_REQ = select[mem>100 && (type==any || !fs)] order[-mem:r1m]\nRUN_WINDOW = 20:00-8:00\n#elif time(8:00-9:00)\nQUEUE_NAME = b\n#else\nQUEUE_NAME = c\n#endif\nEnd Queue\n'
seed config include '\x07#INCLUDE "lsb.users.extra"\nBegin UserGroup\nGROUP_NAME GROUP_MEMBER USER_SHARES\ng1 (u1 u2 g2) ([u1,3] [default,1])\ng2 (u3 g1) ()\nEnd UserGroup\n'

# resreq: bsub -R and RES_REQ as the tests, scenarios and LSF's manuals write them.
i=0
for r in 'select[mem>1000 && type==LINUX64]' 'select[bigmem]' 'rusage[licA=2]' 'span[hosts=1]' \
  'select[r1m < 5]' 'select[(swp>50 && mem>=10 && type==MIPS) || (swp>35 && type==LINUX64)]' \
  'select[((2*r15s + 3*r1m + r15m)/6 < 1.0) && fs && (cpuf > 4.0)]' 'r15m=1.5:mem=20:-ultrix' \
  'select[type==local && defined(fs)] order[-mem:r15s] rusage[mem=200:licA=1:duration=2h:decay=1]' \
  'rusage[mem=100, lic=1:duration=10 || mem=50] span[ptile=4] same[type:model] cu[type=rack:pref=maxavail:maxcus=2:balance]' \
  'select[maxmem - mem > 12000] select[!cs] affinity[core(1)]' 'mem>1000 order[r1m] span[ptile='"'"'!'"'"']' \
  'select[-mem < 0 && "LINUX64" == type && 1e3 < mem / 2]' 'span[block=4] cu[excl:usablecuslots=2]'; do
  seed resreq "$i" "$r"
  i=$((i + 1))
done

# dependency: bsub -w as the tests and LSF's manuals write it.
i=0
for w in 'done(12) && (exit("nightly*", != 2) || ended(13[4])) && numdone(20, >= 5)' 'done(4242)' \
  'exit(first, == 4)' '!done(3) || started(7[*])' 'numdone(7, *) && numrun(7, == 1) && numpend(7, 1)' \
  'post_done(1) && post_err(2) && numexit(3, < 2) && numhold(4, > 0) && numstart(5, != 1) && numended(6, <= 9)' \
  "ended('build job') && 12 && build*"; do
  seed dependency "$i" "$w"
  i=$((i + 1))
done

# time_window: RUN_WINDOW, DISPATCH_WINDOW and #if time() values.
i=0
for t in '20:00-8:00 5:19:00-1:8:00' '5:19:00-1:8:30 20:00-8:30' '(8-17)' '0:0:00-6:23:59' '12:30-12:30'; do
  seed time_window "$i" "$t"
  i=$((i + 1))
done

# array_index: bsub -J "name[...]" lists.
i=0
for a in '1-1000' '1-1000:2,5' '1,2,3,10-20:3' '7' '1-10:4, 5, 2'; do
  seed array_index "$i" "$a"
  i=$((i + 1))
done

# bsub: argv words separated by NUL; after a blank line, a script on stdin.
seed bsub 0 '-q\x00normal\x00-n\x004,8\x00-R\x00select[mem>1000] span[hosts=1]\x00-J\x00sim[1-100:2]%10\x00-w\x00done(12)\x00./run.sh\x00arg'
seed bsub 1 '-o\x00out.%J\x00-W\x001:30\x00-M\x004G\x00-b\x0012:00\x00-E\x00/bin/true\x00-Q\x001 2 EXCLUDE(3)\x00-env\x00all, ~HOME, X=1\x00sleep\x00100'
seed bsub 2 '-H\x00-x\x00-r\x00-P\x00proj\x00-G\x00grp\x00-sla\x00gold\x00-app\x00fluent\x00-cwd\x00/tmp\n\n#!/bin/sh\n#BSUB -n 2 -R "rusage[licA=1]"\n#BSUB -J "arr[1-10]"\necho hi\n'
seed bsub 3 '-Is\x00-K\x00bash'

# frame: request envelopes as commands send them, each behind its 4-byte length.
frame() {
  local name="$1" text="$2" body
  mkdir -p "$CORPUS/frame"
  body="$(mktemp)"
  printf '%s' "$text" | protoc --proto_path="$ROOT/proto" --encode=lsf.wire.RequestEnvelope lsf.proto >"$body"
  local n
  n=$(stat -c %s "$body")
  { printf "\\x$(printf %02x $((n >> 24 & 255)))\\x$(printf %02x $((n >> 16 & 255)))"
    printf "\\x$(printf %02x $((n >> 8 & 255)))\\x$(printf %02x $((n & 255)))"
    cat "$body"; } >"$CORPUS/frame/seed-$name"
  rm -f "$body"
}
frame ping 'protocol_version: 1 caller { uid: 1000 gid: 1000 user_name: "alice" host_name: "hostA" } ping {}'
frame submit 'protocol_version: 1 caller { uid: 1000 user_name: "alice" } submit { spec { command: "sleep 10" queues: "normal" res_req: "select[mem>100]" dependency: "done(1)" array_spec: "1-10" } }'
frame signed 'protocol_version: 1 caller { user_name: "root" } auth { time: 1800000000 nonce: "0123456789abcdef" mac: "00000000000000000000000000000000" cluster: "east" } jobs { user: "all" }'

# request: one byte that picks the caller (request_fuzz.cc: bits 0-1 alice, bob,
# lsfadmin, root; bit 2 a caller with the cluster key), then the RequestEnvelope as the
# commands send it. Jobs 1-4 exist in every fresh daemon of the harness.
request() {
  local name="$1" who="$2" text="$3"
  mkdir -p "$CORPUS/request"
  { printf '%b' "$who"
    printf '%s' "protocol_version: 1 $text" | protoc --proto_path="$ROOT/proto" --encode=lsf.wire.RequestEnvelope lsf.proto
  } >"$CORPUS/request/seed-$name"
}
request ping '\x00' 'ping {}'
request cluster-info '\x00' 'cluster_info {}'
request submit '\x00' 'submit { spec { command: "sleep 10" job_name: "sim" queues: "short" queues: "normal" min_processors: 2 max_processors: 3 res_req: "select[mem>100] rusage[licA=1] span[hosts=1]" asked_hosts: "hostA+2" asked_hosts: "others" run_limit_s: 300 out_file: "out.%J" dependency: "done(1) || ended(build)" env { name: "X" value: "1" } project: "chem" user_priority: 10 app: "fluent" job_group: "/fuzz/b" request_id: "r-1" } }'
request submit-array '\x01' 'submit { spec { command: "./run.sh" job_name: "sweep" array_spec: "1-20:2,50" array_limit: 3 hold: true begin_time: 1800000000 pre_exec: "/bin/true" rerunnable: true } }'
request submit-night '\x00' 'submit { spec { command: "sleep 1" queues: "night" exclusive: true asked_hosts: "hostC" mem_limit_kb: 1048576 } }'
request submit-pack '\x01' 'submit_pack { specs { command: "sleep 1" } specs { command: "" } specs { command: "sleep 2" queues: "nosuch" } skip_errors: true }'
request jobs '\x00' 'jobs { user: "all" include_finished: true }'
request jobs-paged '\x03' 'jobs { user: "all" paged: true after { job_id: 2 } queue: "normal" job_name: "a*" }'
request jobs-named '\x01' 'jobs { jobs { job_id: 3 } jobs { job_id: 3 index: 2 } }'
request kill '\x00' 'signal_jobs { jobs { job_id: 1 } action: JOB_ACTION_KILL }'
request kill-all '\x03' 'signal_jobs { jobs { job_id: 0 } action: JOB_ACTION_KILL user: "all" remove: true }'
request stop '\x00' 'signal_jobs { jobs { job_id: 3 index: 2 } action: JOB_ACTION_STOP }'
request resume '\x02' 'signal_jobs { jobs { job_id: 4 } action: JOB_ACTION_RESUME }'
request signal '\x01' 'signal_jobs { jobs { job_id: 2 } action: JOB_ACTION_SIGNAL signal_name: "USR1" job_group: "/" }'
request queues '\x00' 'queues {}'
request queues-named '\x00' 'queues { names: "short" names: "nosuch" }'
request hosts '\x00' 'hosts {}'
request hosts-select '\x00' 'hosts { names: "allhosts" res_req: "select[bigmem && mem>0]" }'
request host-close '\x02' 'host_control { op: CONTROL_CLOSE hosts: "hostB" comment: "maintenance" }'
request host-open '\x03' 'host_control { op: CONTROL_OPEN }'
request queue-close '\x01' 'queue_control { op: CONTROL_CLOSE queues: "short" }'
request queue-inactivate '\x03' 'queue_control { op: CONTROL_INACTIVATE }'
request queue-open '\x02' 'queue_control { op: CONTROL_OPEN queues: "short" queues: "normal" }'
request reconfig '\x03' 'reconfig {}'
request mbdrestart '\x03' 'reconfig { restart: true }'
request perfmon '\x02' 'perfmon {}'
request btop '\x00' 'job_move { job { job_id: 3 } top: true position: 1 }'
request brun '\x03' 'force_run { job { job_id: 1 } hosts: "hostA" hosts: "hostB#2" }'
request brequeue '\x03' 'requeue { jobs { job_id: 0 } user: "all" states: JOB_RUN states: JOB_DONE hold: true }'
request bswitch '\x01' 'switch_queue { jobs { job_id: 2 } queue: "normal" }'
request bmod '\x00' 'modify { jobs { job_id: 1 } changes { run_limit_s: 60 res_req: "select[bigmem]" user_priority: 5 job_name: "renamed" } set: "run_limit_s" set: "res_req" set: "user_priority" set: "job_name" reset: "project" }'
request bmod-admin '\x03' 'modify { jobs { job_id: 3 } changes { aps_system: 10 app: "rerun" job_group: "/fuzz/c" } set: "aps_system" set: "app" set: "job_group" }'
request bparams '\x00' 'config_info {}'
request busers '\x00' 'users { names: "all" }'
request bhpart '\x00' 'host_partitions {}'
request bresources-g '\x00' 'guarantee_pools {}'
request bapp '\x00' 'applications {}'
request bgadd '\x00' 'job_group_control { op: JGRP_ADD path: "/fuzz/d" limit: 2 }'
request bgdel '\x03' 'job_group_control { op: JGRP_DEL path: "/fuzz" }'
request bjgroup '\x00' 'job_groups {}'
request bpeek '\x00' 'peek { job { job_id: 1 } }'
request bwait '\x00' 'wait_condition { condition: "done(1) && numended(3, >= 2)" }'
request bhist '\x00' 'history { user: "all" }'
request badmin-hist '\x03' 'history { cluster: true paged: true }'
request bacct '\x00' 'acct { user: "all" }'
request blimits '\x00' 'limits {}'
request bmig '\x03' 'migrate { jobs { job_id: 0 } user: "all" }'
request bresources '\x00' 'shared_resources {}'
request bclusters '\x00' 'clusters {}'
request exports '\x00' 'exports {}'
request register-host '\x04' 'caller { user_name: "root" } register_host { host_name: "hostA" port: 1 load { r1m: 0.5 mem_mb: 1000 ncpus: 4 maxmem_mb: 8000 } }'
request load-report '\x04' 'caller { user_name: "root" } load_report { host_name: "hostA" load { r15s: 0.1 mem_mb: 900 } }'
request job-status '\x04' 'caller { user_name: "root" } job_status { host_name: "hostA" job_id: 1 event: JOB_EVENT_FINISH wait_status: 256 cpu_time: 1.5 max_rss_kb: 1024 }'
request job-status-local '\x00' 'job_status { host_name: "hostA" job_id: 1 event: JOB_EVENT_EXECUTE pid: 42 }'
request job-status-batch '\x04' 'caller { user_name: "root" } job_status_batch { reports { host_name: "hostA" job_id: 3 index: 1 event: JOB_EVENT_STOPPED } reports { host_name: "hostA" job_id: 2 event: JOB_EVENT_START_FAILED message: "no such user" } }'
request job-input '\x00' 'job_input { job { job_id: 1 } data: "hello\n" }'
