#!/usr/bin/env bash
# Guarantee pools through real daemons, with conf-examples/package-guarantee: the pool's
# hosts by RES_SELECT on reported memory, its packages and each class's share in
# bresources -g, what others may take and what they may borrow, CLOSE_ON_DEMAND, a host
# leaving the pool, bsla, ACCESS_CONTROL and AUTO_ATTACH.
#   guarantee_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2" package-guarantee

sed -i 's/^SBD_SLEEP_TIME.*/SBD_SLEEP_TIME = 1/' "$PARAMS"
# sc3 attaches every job (AUTO_ATTACH, USERS[all]); off until the end, so plain jobs
# stay plain.
CLASSES="$(dirname "$PARAMS")/lsb.serviceclasses"
sed -i 's/^AUTO_ATTACH .*/AUTO_ATTACH    = N/' "$CLASSES"
# host1 and host3 have the memory RES_SELECT asks (mem > 16000); host4 (also in
# hgroup1) does not. 8 slots each: example_pool = 8 + 8 = 16 packages of 1 slot + 1000 MB;
# 25/25/30 % -> 4, 4, 4. host2 is slotPool (mysla: 2).
for h in host1 host3; do printf 'mem = 30000\nmaxmem = 32000\n' >"$TEST_DIR/load.$h"; done
printf 'mem = 8000\nmaxmem = 8000\n' >"$TEST_DIR/load.host4"
cluster_start "$TEST_DIR" "$BIN" || exit 1
pool_line() { bresources -g | awk -v p="$1" '$1 == p'; }
export -f pool_line

check "bresources -g: example_pool has 16 packages, 12 guaranteed, all free" wait_for 15 bash -c \
  "pool_line example_pool | awk '{exit !(\$2 == \"package\" && \$3 == \"ok\" && \$4 == 16 && \$5 == 16 && \$6 == 12 && \$7 == 0)}'"
check "... and slotPool 8 slots, 2 guaranteed" bash -c "pool_line slotPool | awk '{exit !(\$4 == 8 && \$6 == 2)}'"
check "bresources -g -l -m: type, loans, hosts, summary and owners" bash -c \
  "out=\$(bresources -g -l -m example_pool) &&
   grep -qx 'GUARANTEED RESOURCE POOL: example_pool' <<<\"\$out\" &&
   grep -qx 'TYPE: package\[slots=1:mem=1000\]' <<<\"\$out\" &&
   grep -qx 'LOAN_POLICIES: QUEUES\[short\] DURATION\[10\] CLOSE_ON_DEMAND' <<<\"\$out\" &&
   grep -qx 'HOSTS: host1 host3' <<<\"\$out\" &&
   grep -Eq '^TOTAL +16 +62.5G +16\$' <<<\"\$out\" &&
   grep -Eq '^ALLOCATED +12 +11.7G +12\$' <<<\"\$out\" &&
   grep -Eq '^sc3 +slots +4 +0 +0 +0\$' <<<\"\$out\" &&
   grep -Eq '^host3 +ok +8 +8\$' <<<\"\$out\""
check "bresources -g -json: a record per pool" bash -c \
  "out=\$(bresources -g -json) && grep -q '\"POOLS\":2' <<<\"\$out\" &&
   grep -q '\"POOL_NAME\":\"example_pool\"' <<<\"\$out\" && grep -q '\"GUAR_CONFIG\":\"12\"' <<<\"\$out\""
check "bresources -g names an unknown pool" bash -c "bresources -g nosuch 2>&1 | grep -qx 'nosuch: No such guaranteed resource pool'"

# --- an owner's job counts against its guarantee
o1=$(submit -sla sc1 -n 2 -R 'span[hosts=1]' -m 'host1 host3' -o /dev/null sleep 600)
check "sc1's job runs and counts 2 of its 4" wait_for 10 bash -c \
  "state_is $o1 RUN && bresources -g -l example_pool | grep -Eq '^sc1 +slots +4 +2 ' &&
   bresources -g -l example_pool | grep -Eq '^OWNER USE +2 '"

# --- others take only what is not held back: 16 - 2 = 14 free, 2 + 4 + 4 held -> 4
ids=""
for i in 1 2 3 4 5; do ids="$ids $(submit -m 'host1 host3' -o /dev/null sleep 600)"; done
running_of() { local n=0 j; for j in "$@"; do state_is "$j" RUN && n=$((n + 1)); done; echo $n; }
export -f running_of
check "four of five plain jobs run" wait_for 10 bash -c "[ \$(running_of $ids) = 4 ]"
last=${ids##* }
check "the fifth says the rest is held for guarantees" bash -c \
  "bjobs -p $last | grep -qF 'Resources reserved for service class guarantees: 2 hosts'"

# --- loans: QUEUES[short] DURATION[10]: a 5-minute job borrows, a 30-minute one does not
l1=$(submit -q short -W 5 -m 'host1 host3' -o /dev/null sleep 600)
l2=$(submit -q short -W 30 -m 'host1 host3' -o /dev/null sleep 600)
check "the 5-minute short job borrows" wait_for 10 state_is "$l1" RUN
check "the 30-minute one waits" bash -c "sleep 1; state_is $l2 PEND"
# CLOSE_ON_DEMAND: sc2 has an unused guarantee and a job pending (16 slots never fit).
d=$(submit -sla sc2 -n 16 -m 'host1 host3' -o /dev/null sleep 600)
l3=$(submit -q short -W 5 -m 'host1 host3' -o /dev/null sleep 600)
check "with an owner waiting, nothing more is lent" bash -c "sleep 2; state_is $d PEND && state_is $l3 PEND"
bkill "$d" >/dev/null
check "once the owner's demand goes, the loan is made" wait_for 10 state_is "$l3" RUN

# --- bsla: the classes and what they use
check "bsla shows sc1's guarantee and use" bash -c \
  "bsla sc1 | grep -qx 'SERVICE CLASS NAME:  sc1' && bsla sc1 | grep -qx 'ACCESS CONTROL:      QUEUES\[normal\]' &&
   bsla sc1 | grep -Eq '^example_pool +package +4 +2\$'"
check "bsla -json counts sc1's running slots" bash -c \
  "bsla -json sc1 | grep -q '\"SERVICE_CLASS_NAME\":\"sc1\"' && bsla -json sc1 | grep -q '\"RUN\":\"2\"'"

# --- a host that leaves (closed by the administrator) leaves the total, and its SLA
# jobs the count
host=$(bjobs -o 'exec_host' -noheader "$o1" | sed 's/^[0-9]*\*//; s/:.*//')
badmin hclose "$host" >/dev/null
# (25 % of the 8 packages left: 2 each).
check "closing $host leaves 8 packages, and sc1's job there no longer counts" wait_for 10 bash -c \
  "pool_line example_pool | awk '{exit !(\$4 == 8)}' && bresources -g -l example_pool | grep -Eq '^sc1 +slots +2 +0 '"
badmin hopen "$host" >/dev/null

# --- ACCESS_CONTROL = QUEUES[normal]: sc1 takes no job of short; AUTO_ATTACH
check "sc1 refuses a job of another queue" bash -c \
  "bsub -sla sc1 -q short -W 5 -o /dev/null true 2>&1 | grep -qF 'Service class <sc1> does not accept jobs of queue <short>'"
sed -i 's/^AUTO_ATTACH .*/AUTO_ATTACH    = Y/' "$CLASSES"
badmin reconfig >/dev/null 2>&1
a=$(submit -q normal -o /dev/null sleep 600)
check "with AUTO_ATTACH, a job without -sla joins sc3" bash -c "bjobs_l_flat $a | grep -qF 'Service Class <sc3>'"

bkill -u all 0 >/dev/null 2>&1
harness_done
