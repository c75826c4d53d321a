#!/usr/bin/env bash
# Job groups against real daemons: bgadd / bgmod / bgdel with LSF's messages, groups
# bsub -g creates, a group limit holding jobs back with its pending reason, bjgroup's
# counts, bjobs -g and bkill -g over a group and its subgroups, who may change a group,
# and groups and limits surviving an mbatchd restart.
#   job_groups_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2"
id -u lsfsched_it >/dev/null 2>&1 || useradd -M -s /bin/sh lsfsched_it
cluster_start "$TEST_DIR" "$BIN" || exit 1
allow_other_users
me=$(id -un)
row() { bjgroup | awk -v g="$1" '$1 == g {print $2, $3, $4, $5, $6, $7, $8, $9, $10}'; }

check "bgadd says so" bash -c "[ \"\$(bgadd /risk)\" = 'Job group </risk> was added.' ]"
check "bgadd of an existing group is refused" bash -c "bgadd /risk 2>&1 | grep -qx 'Job group </risk> already exists'"
check "bgadd of a bad name is refused" bash -c "bgadd risk 2>&1 | grep -q '^Bad job group name <risk>'"
check "bgadd -L creates a subgroup with a limit" bash -c "[ \"\$(bgadd -L 1 /risk/a)\" = 'Job group </risk/a> was added.' ]"
check "bjgroup's header" bash -c "bjgroup | head -1 | grep -Eq '^GROUP_NAME +NJOBS +PEND +RUN +SSUSP +USUSP +FINISH +SLA +JLIMIT +OWNER$'"
check "bjgroup: no jobs, the limit and the owner" [ "$(row /risk/a)" = "0 0 0 0 0 0 () 0/1 $me" ]

first=$(submit -g /risk/a -o /dev/null sleep 300)
second=$(submit -g /risk/a -o /dev/null sleep 300)
check "one job of the group runs" wait_for 10 state_is "$first" RUN
check "the other waits for the group's limit" wait_for 10 bash -c \
  "bjobs -p $second | grep -q 'The job group has reached its job limit: /risk/a (1 of 1 started)'"
check "bjgroup counts the group's jobs" [ "$(row /risk/a)" = "2 1 1 0 0 0 () 1/1 $me" ]
check "... and the group above counts its subgroups'" [ "$(row /risk)" = "2 1 1 0 0 0 () 1/- $me" ]
check "bjobs -g takes the subgroups" bash -c "[ \"\$(bjobs -g /risk -noheader -o jobid | sort -n | tr '\n' ' ')\" = '$first $second ' ]"
check "bjobs -l names the group" bash -c "bjobs_l_flat $first | grep -q 'Job Group </risk/a>'"
check "bjobs -o job_group" [ "$(bjobs -o job_group -noheader "$first")" = /risk/a ]
check "bjobs -g of an unknown group" bash -c "bjobs -g /nosuch 2>&1 | grep -qx 'Job group </nosuch> does not exist'"

# Only the owner (or one of a group above, or an administrator) changes a group.
refusal=$(as lsfsched_it bgmod -L 5 /risk/a 2>&1)
check "another user may not change the limit" [ "$refusal" = "User permission denied" ]
check "a limit above a parent's limit is refused" bash -c "bgmod -L 1 /risk && bgmod -L 2 /risk/a 2>&1 | grep -q 'exceeds the limit 1 of </risk>'"
bgmod -Ln /risk >/dev/null
check "bgmod says so" bash -c "[ \"\$(bgmod -L 2 /risk/a)\" = 'Job group /risk/a is modified.' ]"
check "the raised limit lets the second job start" wait_for 10 state_is "$second" RUN

# bsub -g creates the groups it names, owned by the submitter.
theirs=$(as lsfsched_it bsub -g /teams/qa -o /dev/null sleep 300 | sed -n 's/^Job <\([0-9]*\)>.*/\1/p')
check "bsub -g created the group and the one above it" bash -c "bjgroup -s /teams | awk 'NR>1 {print \$1, \$NF}' | tr '\n' ' ' | grep -qx '/teams lsfsched_it /teams/qa lsfsched_it '"
check "bjgroup -s /X/ shows that group alone" bash -c "[ \$(bjgroup -s /teams/ | awk 'NR>1' | wc -l) = 1 ]"

# Groups and limits survive a restart (the event log).
restart_mbatchd
# The jobs are UNKWN until hostA registers again.
wait_for 10 state_is "$theirs" RUN
check "after restart: the limit and the jobs" [ "$(row /risk/a)" = "2 0 2 0 0 0 () 2/2 $me" ]
check "after restart: created groups" bash -c "bjgroup | grep -q '^/teams/qa '"

check "bgdel of a group with unfinished jobs is refused" bash -c "bgdel /risk 2>&1 | grep -q 'has unfinished jobs'"
check "bkill -g 0 kills the group's jobs, subgroups included" bash -c "bkill -g /risk 0 | sort | tr '\n' ' ' | grep -qx 'Job <$first> is being terminated Job <$second> is being terminated '"
check "the other group's job is untouched" state_is "$theirs" RUN
check "killed" wait_for 10 bash -c "[ \"\$(job_state $first)\$(job_state $second)\" = EXITEXIT ]"
check "bgdel says so" bash -c "[ \"\$(bgdel /risk)\" = 'Job group /risk is deleted.' ]"
check "the group and its subgroups are gone" bash -c "! bjgroup | grep -q '^/risk'"
check "badmin hist tells the group changes" bash -c "badmin hist | sed -zE 's/\\n {21,22}//g' | grep -q 'Job group </risk/a> modified by user <$me> (limit 2).'"
bkill -u all 0 >/dev/null

harness_done
