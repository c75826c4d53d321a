#!/usr/bin/env bash
# Maui-style throttling through real daemons, with conf-examples/maui-throttle: the
# worked example of policies.md §4 (10 jobs -> 8 idle, 2 blocked; a blocked job promoted
# when an idle one leaves the idle part) as users see it in showq and bjobs -pe / -pi,
# with a held job shown as UserHold and running jobs as ACTIVE.
#   throttle_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2" maui-throttle

# User-assigned job priority (bsub -sp) up to 100.
sed -i 's/^End Parameters/MAX_USER_PRIORITY = 100\nEnd Parameters/' "$PARAMS"
cluster_start "$TEST_DIR" "$BIN" || exit 1
for h in host1 host2 host3 host4; do badmin hclose "$h" >/dev/null; done

# Every host closed: all ten wait; the user's IDLE_JOBS = 8 lets eight be eligible.
ids=""
for i in $(seq 10); do ids="$ids $(submit -W 10 -o /dev/null sleep 600)"; done
last=${ids##* }
# Job rows only (not the "8 Idle Jobs" summary): a state in the third column.
rows() { showq "$@" | awk '$3 ~ /^(Running|Suspended|Idle|UserHold|Deferred)$/' | wc -l; }
export -f rows
check "showq: 8 idle, 2 blocked" wait_for 15 bash -c '[ $(rows -i) = 8 ] && [ $(rows -b) = 2 ]'
check "showq's totals line" bash -c \
  "showq | grep -qx 'Total Jobs: 10   Active Jobs: 0   Idle Jobs: 8   Blocked Jobs: 2'"
check "showq's layout: sections, headers, a blocked row in Maui's columns" bash -c \
  "out=\$(showq) && grep -qx 'ACTIVE JOBS--------------------' <<<\"\$out\" &&
   grep -qx 'IDLE JOBS----------------------' <<<\"\$out\" && grep -qx 'BLOCKED JOBS----------------' <<<\"\$out\" &&
   grep -qx 'JOBNAME            USERNAME      STATE  PROC     WCLIMIT            QUEUETIME' <<<\"\$out\" &&
   grep -qx '8 Idle Jobs' <<<\"\$out\" &&
   grep -Eq '^$last +[a-z0-9_]+ +Idle +1 +0:10:00  [A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8}\$' <<<\"\$out\""
check "bjobs -pe lists the eight, -pi the two, with the limit that blocks them" bash -c \
  "[ \$(bjobs -pe -noheader | grep -c '^[0-9]') = 8 ] && [ \$(bjobs -pi -noheader | grep -c '^[0-9]') = 2 ] &&
   bjobs -pi | grep -qF 'The idle jobs limit of user <' &&
   bjobs -pi | grep -qF 'is reached: hard limit 8, 8 in use (Limit <per_user>)'"
check "-pe and -pi together are refused" bash -c "! bjobs -pe -pi >/dev/null 2>&1"
check "blimits: the user's 8 idle jobs of 8, 8 running plus idle of 72, no processor-seconds in use" bash -c \
  "blimits | grep -E '^ +per_user ' | grep -Eq ' 8/8 +8/72 +0/72000/1080000\$' &&
   blimits | grep -E '^ +per_account ' | grep -Eq ' 8/30 +- +-\$'"

# A held job leaves the idle part: a blocked one is promoted, the held one is UserHold.
held=$(echo $ids | awk '{print $1}')
bstop "$held" >/dev/null
check "after bstop: 8 idle again, 1 blocked by policy, 1 UserHold" wait_for 15 bash -c \
  "[ \$(rows -i) = 8 ] && showq -b | grep -Eq '^$held +[a-z0-9_]+ +UserHold ' &&
   [ \$(showq -b | grep -c ' Idle ') = 1 ]"

# One host of 8 slots opens: eight start, the rest are eligible or held.
badmin hopen host1 >/dev/null
check "showq: 8 active on 8 of 32 processors and 1 of 4 nodes, 1 idle, the held one blocked" wait_for 15 bash -c \
  "out=\$(showq) && grep -qx '8 Active Jobs   8 of 32 Processors Active (25.00%)' <<<\"\$out\" &&
   grep -qx '                1 of 4 Nodes Active      (25.00%)' <<<\"\$out\" &&
   grep -qx 'Total Jobs: 10   Active Jobs: 8   Idle Jobs: 1   Blocked Jobs: 1' <<<\"\$out\""
check "blimits after 8 start: 1 idle (the held one is not), 8 running plus 1 idle, about 8 x 600 s outstanding" bash -c \
  "blimits | grep -E '^ +per_user ' | grep -Eq ' 1/8 +9/72 +4[0-9]{3}/72000/1080000\$'"
check "an active row: Running, 1 processor, time left up to the 10-minute limit" bash -c \
  "showq -r | grep -Eq '^[0-9]+ +[a-z0-9_]+ +Running +1 +0:(0[0-9]|10):[0-9]{2}  [A-Z][a-z]{2} '"
check "showq -json: the summary and the lists" bash -c \
  "out=\$(showq -json) && grep -q '\"ACTIVE_JOBS\": 8, \"IDLE_JOBS\": 1, \"BLOCKED_JOBS\": 1' <<<\"\$out\" &&
   grep -q '\"STATE\": \"UserHold\"' <<<\"\$out\""
check "showq -u: another user's view is empty" bash -c \
  "showq -u nosuchuser | grep -qx 'Total Jobs: 0   Active Jobs: 0   Idle Jobs: 0   Blocked Jobs: 0'"

# Absolute priority: the example's queue weights expansion factor and queue time
# (APS_PRIORITY). Three more jobs wait behind the full host; once they have waited a
# few seconds the shortest is ahead, though submitted between the other two.
long=$(submit -W 60 -o /dev/null sleep 600)
short=$(submit -W 10 -o /dev/null sleep 600)
mid=$(submit -W 30 -o /dev/null sleep 600)
pend_order() { bjobs -aps -noheader | awk '$3 == "PEND" {print $1}' | tr '\n' ' '; }
export -f pend_order
check "bjobs -aps: pending jobs by APS value, the short job ahead of the longer ones" wait_for 30 bash -c \
  "[[ \"\$(pend_order)\" == *\"$short $mid $long \"* ]]"
check "bjobs -aps: LSF's columns with APS last, values with two decimals" bash -c \
  "bjobs -aps | head -1 | grep -Eq '^JOBID +USER +STAT +QUEUE +FROM_HOST +EXEC_HOST +JOB_NAME +SUBMIT_TIME +APS\$' &&
   bjobs -aps | grep -Eq '^$short +.* [0-9]+\.[0-9]{2}\$'"
check "bjobs -prio: a column per weighted factor, the expansion factor above 1 for a job that has waited" wait_for 30 bash -c \
  "bjobs -prio | head -1 | grep -Eq '^JOBID +USER +QUEUE +APS +FSTARGET +QUEUETIME +XFACTOR +TARGETQUEUETIME +QOS\$' &&
   bjobs -prio | awk '\$1 == $short {exit !(\$7 > 1 && \$7 < 2)}'"
check "showq lists the idle jobs in priority order" bash -c \
  "order=\$(showq -i | awk '\$3 == \"Idle\" {print \$1}' | tr '\\n' ' ') && [[ \"\$order\" == *\"$short $mid $long \"* ]]"

# Administrators set a system value (ahead of every calculated one) or an admin factor;
# users may not.
allow_other_users
id -u lsfsched_it >/dev/null 2>&1 || useradd -M -s /bin/sh lsfsched_it
# Even on the user's own job.
own=$(as lsfsched_it bsub -W 10 -o /dev/null sleep 600 | sed -n 's/^Job <\([0-9]*\)> is submitted.*/\1/p')
refusal=$(as lsfsched_it bmod -aps 'system=10' "$own" 2>&1)
check "a user may not set an APS value, even on their own job" bash -c \
  "grep -qF 'Job <$own>: User permission denied' <<<'$refusal' && ! bjobs_l_flat $own | grep -q 'System Absolute'"
check "bmod -aps system=10 is accepted" bash -c \
  "bmod -aps 'system=10' $long | grep -qx 'Parameters of job <$long> are being changed'"
check "the system value puts the long job first, shown in parentheses" wait_for 30 bash -c \
  "[ \"\$(pend_order | awk '{print \$1}')\" = $long ] && bjobs -aps | grep -Eq '^$long +.* \(10\)\$'"
check "bjobs -l shows the system value" bash -c "bjobs_l_flat $long | grep -qF 'System Absolute Priority <10>'"
check "bjobs -aps -json and -prio -json: the value and each factor for scripts" bash -c \
  "bjobs -aps -json | grep -qF '\"APS\":\"(10)\"' && bjobs -aps -json | grep -qF '\"SUBMIT_TIME\":' &&
   bjobs -prio -json | grep -Eq '\"XFACTOR\":\"1\.[0-9]{2}\"' && bjobs -prio -json | grep -qF '\"JOBID\":\"$long\"'"
check "bjobs -o 'jobid aps' -json gives the APS value to scripts" bash -c \
  "bjobs -o 'jobid aps' -json $long | grep -qF '\"APS\":\"(10)\"' &&
   bjobs -o 'jobid aps' -json $short | grep -Eq '\"APS\":\"[0-9]+\.[0-9]{2}\"'"
check "bmod -aps admin=-1000 adds to the calculated value and drops the system one" bash -c \
  "bmod -aps 'admin=-1000' $long >/dev/null && bjobs_l_flat $long | grep -qF 'Admin factor value <-1000>'"
check "the long job is last of the three once its admin factor counts" wait_for 30 bash -c \
  "[[ \"\$(pend_order)\" == *\"$short $mid $long \"* ]] && bjobs -prio | awk '\$1 == $long {exit !(\$NF == \"-1000.00\")}'"
check "bmod -apsn removes it; a bad -aps is refused" bash -c \
  "bmod -apsn $long >/dev/null && ! bjobs_l_flat $long | grep -q 'Admin factor' &&
   ! bmod -aps 'boost=3' $long 2>/dev/null"

# bsub -sp: users up to MAX_USER_PRIORITY, administrators beyond; bjobs -l shows the
# job's priority (half the maximum without -sp); bmod -spn removes it.
over=$(as lsfsched_it bsub -sp 200 -o /dev/null sleep 1 2>&1)
check "a user's -sp above MAX_USER_PRIORITY is refused" bash -c \
  "grep -qF -- '-sp 200: more than MAX_USER_PRIORITY (100). Job not submitted.' <<<'$over'"
check "bsub -sp 0 is refused" bash -c "bsub -sp 0 -o /dev/null sleep 1 2>&1 | grep -qF 'must be a positive integer'"
urgent=$(submit -sp 200 -o /dev/null sleep 600)
check "an administrator's -sp 200 is taken and shown" bash -c "bjobs_l_flat $urgent | grep -qF 'Job Priority <200>'"
check "bmod -spn: back to half the maximum" bash -c \
  "bmod -spn $urgent >/dev/null && bjobs_l_flat $urgent | grep -qF 'Job Priority <50>'"

bkill -u all 0 >/dev/null 2>&1
harness_done
