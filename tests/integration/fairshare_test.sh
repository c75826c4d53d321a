#!/usr/bin/env bash
# User fairshare through real daemons: the user with more shares goes first although
# the other submitted earlier; bqueues -l shows the share tree; what finished jobs used
# is charged to their users and survives an mbatchd restart (replayed from the log).
#   fairshare_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2"

for u in lsfsched_fa lsfsched_fb; do
  id -u "$u" >/dev/null 2>&1 || useradd -M -s /bin/sh "$u"
done
CONF="$TEST_DIR/conf/lsbatch/quickstart/configdir"
# One job at a time in the queue, so each dispatch is a choice between the users.
cat >>"$CONF/lsb.queues" <<'QUEUES'

Begin Queue
QUEUE_NAME = fs
PRIORITY = 45
QJOB_LIMIT = 1
FAIRSHARE = USER_SHARES[[lsfsched_fa, 3] [lsfsched_fb, 1]]
End Queue

Begin Queue
QUEUE_NAME = pa
PRIORITY = 35
SLOT_POOL = pool1
SLOT_SHARE = 75
HOSTS = hostC
End Queue

Begin Queue
QUEUE_NAME = pb
PRIORITY = 35
SLOT_POOL = pool1
SLOT_SHARE = 25
HOSTS = hostC
End Queue

Begin Queue
QUEUE_NAME = hp
PRIORITY = 35
HOSTS = hostB
End Queue
QUEUES
# fsg holds fa; fs2 holds fa and fb: fa's jobs go to fsg unless bsub -G fs2 says so.
cat >"$CONF/lsb.users" <<'USERS'
Begin UserGroup
GROUP_NAME   GROUP_MEMBER                  USER_SHARES
staff        (all)                         ()
fsg          (lsfsched_fa)                 ([default, 1])
fs2          (lsfsched_fa lsfsched_fb)     ([default, 1])
End UserGroup
USERS
cat >>"$CONF/lsb.queues" <<'QUEUES'

Begin Queue
QUEUE_NAME = fg
PRIORITY = 35
FAIRSHARE = USER_SHARES[[fsg, 1] [fs2, 1]]
End Queue
QUEUES
cat >>"$CONF/lsb.hosts" <<'HOSTS'

Begin HostPartition
HPART_NAME = part1
HOSTS = hostB
USER_SHARES = [lsfsched_fa, 2] [others, 1]
End HostPartition
HOSTS
cluster_start "$TEST_DIR" "$BIN" || exit 1
allow_other_users
submit_as() {
  local user="$1"
  shift
  as "$user" bsub -q fs -o /dev/null "$@" | sed -n 's/^Job <\([0-9]*\)> is submitted.*/\1/p'
}
share_row() { bqueues -l fs | awk -v u="$1" '$1 == u'; }
export -f share_row

# --- a user without a share is refused at submission, as LSF refuses it
check "a user without a share may not submit to the queue" bash -c \
  "bsub -q fs -o /dev/null true 2>&1 | grep -qF 'has no share in fairshare queue <fs>'"

# --- the user with more shares goes first
first=$(submit_as lsfsched_fb sleep 2)
check "fb's first job runs" wait_for 10 state_is "$first" RUN
b2=$(submit_as lsfsched_fb sleep 600)
a1=$(submit_as lsfsched_fa sleep 600)
check "bqueues -l names the policy and the shares" bash -c \
  "bqueues -l fs | grep -qx 'SCHEDULING POLICIES:  FAIRSHARE' &&
   bqueues -l fs | grep -qx 'USER_SHARES:  \[lsfsched_fa, 3\] \[lsfsched_fb, 1\]' &&
   bqueues -l fs | grep -qx 'SHARE_INFO_FOR: fs/'"
check "... and fb's account with one job started" bash -c "share_row lsfsched_fb | awk '{exit !(\$2 == 1 && \$4 == 1)}'"
check "when fb's job ends, fa's later job starts" wait_for 20 state_is "$a1" RUN
check "... and fb's earlier one still waits" state_is "$b2" PEND
check "fb's finished job is charged to fb (RUN_TIME > 0)" bash -c "share_row lsfsched_fb | awk '{exit !(\$7 >= 1)}'"
before=$(share_row lsfsched_fb | awk '{print $7}')

# --- the history survives a restart of mbatchd
kill -9 "$(cat "$TEST_DIR/mbatchd.pid")"
sleep 0.5
LSF_ENVDIR="$TEST_DIR/conf" "$BIN/mbatchd" --host-name hostA --listen 127.0.0.1 >>"$TEST_DIR/log/mbatchd.out" 2>&1 &
echo $! >"$TEST_DIR/mbatchd.pid"
check "mbatchd comes back" wait_for 10 lsid
check "fb's charged run time is still there after the restart" bash -c \
  "share_row lsfsched_fb | awk -v b='$before' '{d = \$7 - b; exit !(b >= 1 && d <= 1 && d >= -1)}'"
check "fa's running job is counted as started" wait_for 10 bash -c "share_row lsfsched_fa | awk '{exit !(\$4 == 1)}'"

bkill -u all 0 >/dev/null 2>&1
check "all jobs gone" wait_for 20 bash -c '[ "$(bjobs -u all 2>/dev/null | awk "NR>1" | wc -l)" = 0 ]'

# --- host-partition fairshare: hp runs on hostB only, so part1's tree orders it
h1=$(as lsfsched_fa bsub -q hp -o /dev/null sleep 600 | sed -n 's/^Job <\([0-9]*\)>.*/\1/p')
check "fa's job in the partition's queue runs" wait_for 10 state_is "$h1" RUN
check "bhpart shows the partition, its hosts and fa's started job" bash -c \
  "bhpart | grep -qx 'HOST_PARTITION_NAME: part1' && bhpart | grep -qx 'HOSTS: hostB' &&
   bhpart | grep -qx 'SHARE_INFO_FOR: part1/' &&
   bhpart part1 | awk '\$1 == \"lsfsched_fa\" {found = (\$2 == 2 && \$4 == 1)} END {exit !found}'"
check "bhpart names an unknown partition" bash -c "bhpart nosuch 2>&1 | grep -qx 'nosuch: No such host partition'"
bkill -u all 0 >/dev/null 2>&1
check "... and its job goes" wait_for 20 bash -c '[ "$(bjobs -u all 2>/dev/null | awk "NR>1" | wc -l)" = 0 ]'

# --- bsub -G picks the account; bjobs -l names the one charged (LSF's SAAP)
g1=$(as lsfsched_fa bsub -q fg -o /dev/null sleep 600 | sed -n 's/^Job <\([0-9]*\)>.*/\1/p')
g2=$(as lsfsched_fa bsub -q fg -G fs2 -o /dev/null sleep 600 | sed -n 's/^Job <\([0-9]*\)>.*/\1/p')
check "without -G, fa is charged to the first group holding fa" bash -c \
  "bjobs_l_flat $g1 | grep -qF 'Share group charged </fsg/lsfsched_fa>'"
check "with -G fs2, to fs2" bash -c "bjobs_l_flat $g2 | grep -qF 'User Group <fs2>' &&
   bjobs_l_flat $g2 | grep -qF 'Share group charged </fs2/lsfsched_fa>'"
check "both run, and bqueues -l counts one started job under each group" wait_for 10 bash -c \
  "state_is $g1 RUN && state_is $g2 RUN &&
   bqueues -l fg | awk '\$1 == \"fsg/\" || \$1 == \"fs2/\" {n += (\$4 == 1)} END {exit !(n == 2)}'"
check "busers counts fa's two running slots, which the two accounts share" bash -c \
  "busers lsfsched_fa | awk 'NR == 2 {exit !(\$1 == \"lsfsched_fa\" && \$6 == 2 && \$9 == 0)}'"
bkill -u all 0 >/dev/null 2>&1
check "... and they go" wait_for 20 bash -c '[ "$(bjobs -u all 2>/dev/null | awk "NR>1" | wc -l)" = 0 ]'

# --- a slot pool: hostC's 4 slots at 75/25 -> 3 and 1. Submitted while hostC is
# closed, so one pass sees both queues' jobs (a queue alone takes what is free).
badmin hclose hostC >/dev/null
for i in 1 2 3 4; do
  bsub -q pa -o /dev/null sleep 600 >/dev/null
  bsub -q pb -o /dev/null sleep 600 >/dev/null
done
badmin hopen hostC >/dev/null
running() { bjobs -u all -q "$1" 2>/dev/null | awk 'NR>1 && $3=="RUN"' | wc -l; }
export -f running
check "pa runs three jobs and pb one" wait_for 10 bash -c '[ "$(running pa)$(running pb)" = 31 ]'
check "bqueues -l shows the pool, the share and the part" bash -c \
  "bqueues -l pa | grep -qx 'SLOT_POOL: pool1    SLOT_SHARE: 75%' &&
   bqueues -l pa | grep -qx \" Entitled to 3 of the pool's 4 slots; 3 in use\""
check "the rest of pb's jobs say why they wait" bash -c \
  "bjobs -p -u all -q pb | grep -qF \"The queue's share of its slot pool has been reached (1 of 1 slots in use)\""
bkill -u all 0 >/dev/null 2>&1
harness_done
