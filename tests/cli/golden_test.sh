#!/usr/bin/env bash
# Golden outputs: the commands users script against, run against real daemons, compared
# with tests/golden/<case>.txt. What differs between runs is masked (times, pids,
# the temporary directory); the submitting host is named `submithost` by running the
# test in its own UTS namespace, so column widths are checked as printed.
#   golden_test.sh BIN ROOT        UPDATE_GOLDEN=1 rewrites the files instead
if [ "${GOLDEN_NAMESPACE:-}" != 1 ]; then
  export GOLDEN_NAMESPACE=1
  if unshare --uts true 2>/dev/null; then exec unshare --uts bash "$0" "$@"; fi
  exec unshare --user --map-root-user --uts bash "$0" "$@"
fi
hostname submithost || exit 1
source "$(dirname "$0")/../integration/harness.sh"
harness_init "$1" "$2"
GOLDEN="$2/tests/golden"
# Load pinned, so lsload and lshosts print the same everywhere.
for h in hostA hostB hostC; do
  printf 'r15s = 0.5\nr1m = 0.7\nr15m = 1.2\nut = 0.25\npg = 1.5\nls = 2\nit = 12\ntmp = 20480\nswp = 4096\nmem = 15360\nncpus = 4\nmaxmem = 16384\nmaxswp = 8192\nmaxtmp = 102400\n' >"$TEST_DIR/load.$h"
done
cat >"$TEST_DIR/conf/lsbatch/quickstart/configdir/lsb.resources" <<'LIMITS'
Begin Limit
NAME     = per_user_slots
PER_USER = all
SLOTS    = 6
End Limit

Begin Limit
NAME   = normal_on_hostB
QUEUES = normal
HOSTS  = hostB
JOBS   = 3
MEM    = 4096
End Limit

# Maui-style throttles for a project no job uses: shown as configured.
Begin Limit
NAME         = maui
PER_USER     = all
PROJECTS     = physics
JOBS         = 6/8
IDLE_JOBS    = 8
TOTAL_JOBS   = 72
PROC_SECONDS = 72000/1080000
End Limit

Begin ReservationUsage
RESOURCE   METHOD
licA       PER_JOB
mem        PER_SLOT
End ReservationUsage

# MultiCluster exports to two consumers no link reaches yet (bhosts -e shows them "disc").
Begin HostExport
PER_HOST     = hostA hostB
SLOTS        = 2
DISTRIBUTION = ([cl_east, 1] [cl_west, 1])
End HostExport

Begin HostExport
RES_SELECT   = bigmem
NHOSTS       = 2
MEM          = 1024
DISTRIBUTION = [cl_east, 1]
End HostExport

Begin SharedResourceExport
NAME         = licA
NINSTANCES   = 2
DISTRIBUTION = ([cl_east, 1] [cl_west, 1])
End SharedResourceExport
LIMITS
sed -i 's/^quickstart$/quickstart\ncl_east\ncl_west/' "$TEST_DIR/conf/lsf.shared"
# A queue with load thresholds, a RES_REQ and one host, for bqueues -l and bjobs -l's
# SCHEDULING PARAMETERS and RESOURCE REQUIREMENT DETAILS, and bsub -m's check.
cat >>"$TEST_DIR/conf/lsbatch/quickstart/configdir/lsb.queues" <<'QUEUE'

Begin Queue
QUEUE_NAME  = tuned
PRIORITY    = 25
HOSTS       = hostC
RES_REQ     = select[bigmem] rusage[mem=100]
r1m         = 0.7/2.0
ut          = 0.9/
idle        = 5/
pg          = /8
mem         = 500/100
DESCRIPTION = Thresholds and a resource requirement.
End Queue
QUEUE
# hostA's own thresholds, far above the pinned load: bhosts -l shows them.
sed -i 's|^default .*|&\nhostA       4     ()     3.5/5.0   ()|' "$TEST_DIR/conf/lsbatch/quickstart/configdir/lsb.hosts"
cluster_start "$TEST_DIR" "$BIN" || exit 1

mask() {
  perl -pe '
    s/\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:\d\d:\d\d/Www Mmm dd hh:mm:ss/g;
    s/\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:\d\d/Mmm dd hh:mm/g;
    s/\b\d\d\/\d\d-\d\d:\d\d:\d\d\b/MM\/DD-hh:mm:ss/g;
    s/\Q$ENV{TEST_DIR}\E/<dir>/g;
    s/MAX MEM: [\d.]+ [KMG]bytes/MAX MEM: N Mbytes/g;
  '
}
export TEST_DIR

# golden CASE COMMAND: runs COMMAND with bash, stdout and stderr together, and compares.
golden() {
  local name="$1" cmd="$2" out rc
  # From a directory every machine has, so that CWDs in -l lines are the same everywhere.
  out=$(cd /tmp && bash -c "$cmd" 2>&1)
  rc=$?
  out=$({ echo "\$ $cmd"; printf '%s\n' "$out"; [ $rc = 0 ] || echo "[exit $rc]"; } | mask)
  if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
    printf '%s\n' "$out" >"$GOLDEN/$name.txt"
    echo "wrote $name"
  elif [ ! -f "$GOLDEN/$name.txt" ]; then
    echo "FAIL - $name: no golden file (run with UPDATE_GOLDEN=1)"
    FAILURES=$((FAILURES + 1))
  elif diff -u "$GOLDEN/$name.txt" <(printf '%s\n' "$out") >"$TEST_DIR/diff"; then
    echo "ok   - $name"
  else
    echo "FAIL - $name"
    cat "$TEST_DIR/diff"
    FAILURES=$((FAILURES + 1))
  fi
}

# --- the jobs every case below looks at
golden bsub_default_queue 'bsub -J golden1 -P projA -m hostA -o /dev/null true'
golden bsub_named_queue 'bsub -q short -m hostA -o /dev/null "exit 3"'
golden bsub_hold 'bsub -H -J held -q short sleep 100'
golden bsub_parallel 'bsub -J runner -n 2 -m hostB -W 30 sleep 300'
golden bsub_array 'bsub -J "arr[1-4]" -m hostA -o /dev/null true'
golden bsub_too_many_processors 'bsub -n 64 sleep 1'
golden bsub_bad_option 'bsub -Z sleep 1'
golden bsub_bad_sla 'bsub -sla gold sleep 1'
golden bsub_bad_group 'bsub -G nosuch sleep 1'
golden bsub_interactive_twice 'bsub -I -Is sleep 1'
check "jobs settle" wait_for 20 bash -c '[ "$(bjobs -u all -o stat -noheader | sort | tr "\n" " ")" = "PSUSP RUN " ] && [ "$(bjobs -d -o stat -noheader | wc -l)" = 6 ]'
badmin qinact short >/dev/null
golden bsub_to_inactive_queue 'bsub -J waiting -q short -m hostC sleep 1'
check "pending reason set" wait_for 20 bash -c 'bjobs -p 6 | grep -q inactivated'

# --- bjobs layouts
golden bjobs_default 'bjobs'
golden bjobs_all 'bjobs -a'
golden bjobs_wide 'bjobs -w -a'
golden bjobs_times 'bjobs -W 3 6'
golden bjobs_uncondensed 'bjobs -X -r'
golden bjobs_short_hostlist 'LSB_SHORT_HOSTLIST=1 bjobs -r'
golden bjobs_pending 'bjobs -p'
golden bjobs_noheader 'bjobs -noheader'
golden bjobs_arrays 'bjobs -A -a'
golden bjobs_summary 'bjobs -sum'
golden bjobs_project 'bjobs -d -P projA'
golden bjobs_queue 'bjobs -a -q short'
golden bjobs_name 'bjobs -a -J "arr*"'
golden bjobs_long_done 'bjobs -l 1'
golden bjobs_long_exit 'bjobs -l 2'
golden bjobs_long_pending 'bjobs -l 6'
golden bjobs_long_running 'bjobs -l 4'
golden bjobs_long_held 'bjobs -l 3'
golden bjobs_o 'bjobs -a -o "jobid stat user queue job_name exec_host proj_name exit_code nreq_slot runtimelimit"'
golden bjobs_o_widths 'bjobs -a -o "jobid:5 name:-8 stat: exec_host:6 queue:3"'
golden bjobs_o_delimiter "bjobs -a -o \"jobid stat exec_host pend_reason delimiter=','\""
golden bjobs_o_noheader 'bjobs -a -o "id name" -noheader'
golden bjobs_o_env 'LSB_BJOBS_FORMAT="jobid stat queue" bjobs'
golden bjobs_json 'bjobs -a -o "jobid stat user queue job_name exec_host proj_name exit_code pend_reason" -json'
golden bjobs_json_empty 'bjobs -o "jobid stat" -json -q night'
golden bjobs_o_bad_field 'bjobs -o "jobid nosuchfield"'
golden bjobs_json_without_o 'bjobs -json'
golden bjobs_job_group 'bjobs -g /proj'
golden bgadd 'bgadd -L 2 /proj/sub'
golden bjgroup 'bjgroup'
golden bjobs_job_group_empty 'bjobs -g /proj'
golden bjobs_not_found 'bjobs 999'
golden bjobs_some_not_found 'bjobs 1 999'
golden bjobs_json_not_found 'bjobs -o "jobid stat" -json 1 "999[2]"'
golden bjobs_name_not_found 'bjobs -J nosuch'
golden bjobs_no_jobs 'bjobs -q night'
golden bsub_dependency_unknown 'bsub -w "done(99999)" true'
golden bsub_dependency_unknown_name 'bsub -w "ended(nosuch)" true'
golden bsub_host_not_in_queue 'bsub -q tuned -m hostA sleep 1'
golden bsub_group_not_in_queue 'bsub -q night -m hostA sleep 1'

# --- round trips: -json and -o give back what -l says, for every job
FIELDS="jobid stat user queue job_name proj_name from_host exec_host"
for id in 1 2 3 4 6; do
  json=$(bjobs -o "$FIELDS" -json "$id")
  text=$(bjobs -o "$FIELDS delimiter='|'" -noheader "$id")
  long=$(cd /tmp && bjobs_l_flat "$id")
  from_json=$(jq -r '.RECORDS[0] | [.JOBID,.STAT,.USER,.QUEUE,.JOB_NAME,.PROJ_NAME,.FROM_HOST,.EXEC_HOST] | join("|")' <<<"$json")
  # -l names each host once with its slot count (<2*hostB>); -o lists one per slot.
  hosts=$(sed -n 's/.*Started .*on\( Host(s)\)\? \(<[^;]*>\)[,;].*/\2/p' <<<"$long" | cut -d, -f1 | tr -d '<>' |
    awk -F'*' '{ if (NF == 2) { s = $2; for (i = 1; i < $1; i++) s = s ":" $2; print s } else print $1 }')
  from_long=$(sed -n 's/^Job <\([0-9]*\)>, Job Name <\([^>]*\)>, User <\([^>]*\)>, Project <\([^>]*\)>, Status <\([A-Z]*\)>, Queue <\([^>]*\)>.*/\1|\5|\3|\6|\2|\4/p' <<<"$long")
  from_long="$from_long|$(sed -n 's/.*Submitted from host <\([^>]*\)>.*/\1/p' <<<"$long")|$hosts"
  check "job $id: -json matches -l ($from_long)" [ "$from_json" = "$from_long" ]
  check "job $id: -o matches -json" [ "$(sed 's/|-|/||/g; s/|-$/|/' <<<"$text")" = "$from_json" ]
done

# --- shared resources and limits, while job 4 and a job holding two licences run
lic=$(submit -J lic -m hostC -R "rusage[licA=2]" -o /dev/null sleep 300)
check "licence job runs" wait_for 20 state_is "$lic" RUN
golden bhosts_shared 'bhosts -s'
golden bhosts_shared_named 'bhosts -s licA nosuch'
golden bhosts_exported 'bhosts -e'
golden bhosts_exported_resources 'bhosts -e -s'
golden bhosts_exported_json 'bhosts -e -json'
golden blimits 'blimits'
golden blimits_config 'blimits -c'
golden blimits_named 'blimits -n normal_on_hostB'
golden bresources 'bresources'
golden bresources_reservation_usage 'bresources -s'
golden bresources_pools 'bresources -g'
golden bsla_none 'bsla'
golden bapp_none 'bapp'

# --- job control messages
golden bkill_finished 'bkill 1'
golden bkill_not_found 'bkill 999'
golden bstop_running 'bstop 4'
golden bresume_running 'bresume 4'
golden bkill_running 'bkill 4'
bkill "$lic" >/dev/null

# --- cluster and queue views
golden lsid 'lsid'
golden bparams 'bparams'
golden bparams_long 'bparams -l'
golden bparams_all 'bparams -a'
golden busers 'busers'
golden busers_all 'busers all'
golden bmgroup 'bmgroup'
golden bmgroup_unknown 'bmgroup nosuch'
golden bugroup_long 'bugroup -l'
golden lsinfo 'lsinfo'
golden lsinfo_resource 'lsinfo mem bigmem'
golden lshosts 'lshosts'
golden lshosts_wide 'lshosts -w'
golden lshosts_long 'lshosts -l hostC'
golden lsload 'lsload'
golden lsload_long 'lsload -l'
golden lsload_select 'lsload -R "select[bigmem]"'
golden lshosts_select 'lshosts -R "select[mem>1000 && type==LINUX64]"'
golden bhosts_select_none 'bhosts -R "select[mem>999999]"'
golden lsload_bad_select 'lsload -R "select[mem>"'
golden bhosts_long 'bhosts -l hostA'
golden bhosts_default 'bhosts'
golden bqueues_default 'bqueues short normal'
golden bqueues_o 'bqueues -o "qname prio status max jl_u njobs pend run runlimit" short normal'
golden bqueues_json 'bqueues -o "queue_name status:8 njobs" -json short normal'
golden bqueues_env 'LSB_BQUEUES_FORMAT="qname:-8 prio" bqueues -noheader short normal'
golden bhosts_o 'bhosts -o "host_name status max njobs run"'
golden bhosts_json 'bhosts -o "hname stat max" -json hostA'
golden bhosts_noheader 'bhosts -noheader'
golden bhosts_json_without_o 'bhosts -json'
# bsub -G last: the job it makes changes no output above.
golden bsub_user_group 'bsub -G staff -J grouped -H -q short sleep 1'
golden bjobs_user_group 'bjobs -G staff -o "jobid user ugroup job_name"'
golden bjobs_long_user_group 'bjobs -l -G staff'
golden bqueues_long_thresholds 'bqueues -l tuned'
golden bsub_tuned 'bsub -q tuned -H -J tuned -R "rusage[licA=1]" -M 2G -c 5 sleep 1'
golden bjobs_long_thresholds 'bjobs -l -J tuned'
golden bjobs_user_group_field 'bjobs -G staff -o "jobid user_group"'

# --- bacct's header as LSF's, and options LSF has that are not built
golden bacct_no_match 'bacct 999'
golden bacct_all_users 'bacct -u all -q nosuch'
golden bacct_refused 'bacct -f lsb.acct.1'
golden bhist_refused 'bhist -f lsb.events'
golden bhist_refused_brief 'bhist -b'
harness_done
