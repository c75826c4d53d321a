#!/usr/bin/env bash
# Who is asking, and what they may do: the kernel names local callers, TCP callers
# need the cluster key, users control only their own jobs, queue ADMINISTRATORS their
# queue's jobs and the queue, LSF administrators everything. Every refusal is shown
# with its message and with nothing changed.
#   identity_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2"

for u in lsfsched_it lsfsched_qa lsfsched_ca; do
  id -u "$u" >/dev/null 2>&1 || useradd -M -s /bin/sh "$u"
done
CONF="$TEST_DIR/conf"
QUEUES="$CONF/lsbatch/quickstart/configdir/lsb.queues"
sed -i '/^QUEUE_NAME   = night/a ADMINISTRATORS = lsfsched_qa' "$QUEUES"
sed -i 's/^RUN_WINDOW.*//' "$QUEUES"  # night jobs run at any hour here
sed -i 's/^Administrators = root$/Administrators = root lsfsched_ca/' "$CONF/lsf.cluster.quickstart"
sed -i 's/^staff .*/&\nqa           (lsfsched_qa)/' "$CONF/lsbatch/quickstart/configdir/lsb.users"
cat >"$CONF/lsbatch/quickstart/configdir/lsb.serviceclasses" <<'SC'
Begin ServiceClass
NAME        = gold
PRIORITY    = 10
GOALS       = [VELOCITY 10 timeWindow ()]
USER_GROUP  = qa
DESCRIPTION = for the qa group only
End ServiceClass
SC
cluster_start "$TEST_DIR" "$BIN" || exit 1
allow_other_users
job_of() { sed -n 's/^Job <\([0-9]*\)>.*/\1/p'; }
queue_of() { bjobs -a -u all -w "$1" | awk 'NR==2 {print $4}'; }
queue_status() { bqueues "$1" | awk 'NR==2 {print $3}'; }
host_status() { bhosts "$1" | awk 'NR==2 {print $2}'; }
refused() {  # EXPECTED-MESSAGE command...
  local want="$1" out
  shift
  out=$("$@" 2>&1)
  [ "$out" = "$want" ] || { echo "    got: $out" >&2; return 1; }
}

# --- the local socket: the kernel names the caller
check "mbatchd listens on its local socket" test -S "$TEST_DIR/work/mbatchd.$(sed -n 's/^LSB_MBD_PORT=//p' "$CONF/lsf.conf").sock"
mine=$(as lsfsched_it bsub -o /dev/null sleep 300 | job_of)
check "a user's job belongs to that user" bash -c "bjobs -w -u all $mine | awk 'NR==2{print \$2}' | grep -qx lsfsched_it"

# --- TCP: only with the cluster key
REMOTE="$TEST_DIR/remote"  # lsf.conf as a host with neither mbatchd's nor sbatchd's socket sees it
mkdir -p "$REMOTE" && cp "$CONF/lsf.conf" "$REMOTE/" && printf 'LSB_MBD_SOCKET=none\nLSB_SBD_SOCKET=none\n' >>"$REMOTE/lsf.conf"
before=$(job_count)
check "unsigned TCP submission is refused" refused \
  "Authentication failed: the request is not signed with the cluster key (this host has neither mbatchd's socket nor sbatchd's (LSB_SBD_SOCKET=none), and the cluster key is not readable: run the command on the master host, or on a host whose sbatchd is running). Job not submitted." \
  env LSF_ENVDIR="$REMOTE" bsub -o /dev/null true
check "  and no job was created" [ "$(job_count)" = "$before" ]
(umask 077 && echo 'LSF_EAUTH_KEY=not the cluster key at all' >"$REMOTE/lsf.sudoers")
out=$(LSF_ENVDIR="$REMOTE" bjobs 2>&1)
check "a wrong key is refused" grep -q "^Authentication failed: the request's signature does not match the cluster key" <<<"$out"
cp -p "$CONF/lsf.sudoers" "$REMOTE/lsf.sudoers"
check "signed with the key, TCP is served" bash -c "LSF_ENVDIR='$REMOTE' bjobs -w -u all $mine | grep -q lsfsched_it"
chmod 644 "$CONF/lsf.sudoers"
out=$(timeout 10 "$BIN/sbatchd" --host-name hostC --port 0 2>&1)
chmod 600 "$CONF/lsf.sudoers"
check "a daemon refuses a key others can read" grep -q "lsf.sudoers: must not be readable or writable by group or others (mode 0644)" <<<"$out"

# --- a host without mbatchd's socket: a user's command goes through sbatchd's (issue 38)
RELAYED="$TEST_DIR/relayed"
mkdir -p "$RELAYED" && cp "$CONF/lsf.conf" "$RELAYED/" && echo "LSB_MBD_SOCKET=none" >>"$RELAYED/lsf.conf"
chmod 755 "$RELAYED"
SBD_SOCKET=$(ls "$TEST_DIR"/work/sbatchd.*.sock 2>/dev/null | head -1)
check "sbatchd listens on its local socket" test -S "$SBD_SOCKET"
relayed=$(LSF_ENVDIR="$RELAYED" as lsfsched_it bsub -o /dev/null sleep 300 | job_of)
check "a user's bsub through sbatchd is taken" [ -n "$relayed" ]
check "  and the job is that user's" bash -c "bjobs -w -u all $relayed | awk 'NR==2{print \$2}' | grep -qx lsfsched_it"
out=$(LSF_ENVDIR="$RELAYED" as lsfsched_it bkill "$mine" 2>&1)
check "  who may bkill their own job that way" grep -q "is being terminated" <<<"$out"
check "a relayed request is never a daemon's, even root's" refused \
  "User permission denied: only an sbatchd holding the cluster key may send this" \
  env RPC_PROBE_SOCKET="$SBD_SOCKET" "$BIN/rpc_probe" job-finish hostA "$relayed"
check "  and that job still runs" wait_for 10 state_is "$relayed" RUN
mine=$relayed

# --- only a daemon with the key may speak as sbatchd
daemon_only="User permission denied: only an sbatchd holding the cluster key may send this"
check "a user may not register a host" refused "$daemon_only" as lsfsched_it "$BIN/rpc_probe" register-host hostB 1
check "a user may not report a job's end, even root locally" refused "$daemon_only" "$BIN/rpc_probe" job-finish hostA "$mine"
check "  and that job still runs" wait_for 10 state_is "$mine" RUN
probe=$(submit -m hostB -o /dev/null true)
check "  and hostB still runs jobs" wait_for 10 state_is "$probe" DONE

# --- users control only their own jobs
theirs=$(submit -o /dev/null sleep 300)
held=$(submit -H -o /dev/null sleep 1)
check "root's job runs" wait_for 10 state_is "$theirs" RUN
for cmd in bkill bstop brequeue; do
  check "$cmd of another's job is refused" refused "Job <$theirs>: User permission denied" as lsfsched_it $cmd "$theirs"
done
check "  and it still runs" state_is "$theirs" RUN
check "bresume of another's held job is refused" refused "Job <$held>: User permission denied" as lsfsched_it bresume "$held"
check "  and it is still held" state_is "$held" PSUSP
check "bmod of another's job is refused" refused "Job <$held>: User permission denied" as lsfsched_it bmod -J renamed "$held"
check "  and its name is unchanged" [ "$(bjobs -o job_name -noheader "$held")" = "sleep 1" ]
check "bswitch of another's job is refused" refused "Job <$held>: User permission denied" as lsfsched_it bswitch short "$held"
check "  and it stays in its queue" [ "$(queue_of "$held")" = normal ]
check "btop of another's job is refused" refused "Job <$held>: User permission denied" as lsfsched_it btop "$held"
check "bpeek of another's job is refused" refused "Job <$theirs>: User permission denied" as lsfsched_it bpeek "$theirs"
check "brun is for administrators" refused "Job <$held>: User permission denied" as lsfsched_it brun -m hostA "$held"
check "  and the job is still held" state_is "$held" PSUSP

# --- bsub -G: only a group the user belongs to
before=$(job_count)
check "bsub -G of a group the user is not in is refused" refused \
  "User <lsfsched_it> is not a direct member of user group <qa>. Job not submitted." as lsfsched_it bsub -G qa true
check "  and no job was created" [ "$(job_count)" = "$before" ]
grouped=$(as lsfsched_qa bsub -G qa -H true | job_of)
check "a member's job carries the group" bash -c "[ \"\$(bjobs -o ugroup -noheader $grouped)\" = qa ]"
bkill "$grouped" >/dev/null 2>&1

# --- bsub -sla: only a service class whose USER_GROUP admits the user
before=$(job_count)
check "bsub -sla of a class the user may not use is refused" refused \
  "User <lsfsched_it> may not submit to service class <gold>. Job not submitted." as lsfsched_it bsub -sla gold true
check "  and no job was created" [ "$(job_count)" = "$before" ]
attached=$(as lsfsched_qa bsub -sla gold -H true | job_of)
check "a member's job is attached to the class" bash -c "[ \"\$(bjobs -o sla -noheader $attached)\" = gold ]"
check "  bjobs -sla lists it" bash -c "bjobs -u all -sla gold -o jobid -noheader | grep -qx $attached"
bkill "$attached" >/dev/null 2>&1

# --- only the owner types into a terminal job
as lsfsched_it bsub -Ip -J ptyjob 'sleep 30' </dev/null >"$TEST_DIR/shared/ptyjob.out" 2>&1 &
follower=$!
check "the user's terminal job runs" wait_for 10 bash -c "bjobs -u lsfsched_it -r -J ptyjob 2>/dev/null | grep -q RUN"
ptyjob=$(bjobs -u lsfsched_it -J ptyjob -o jobid -noheader)
check "another user may not type into it" refused "Job <$ptyjob>: User permission denied" as lsfsched_qa "$BIN/rpc_probe" job-input "$ptyjob" x
check "  nor may an administrator" refused "Job <$ptyjob>: User permission denied" "$BIN/rpc_probe" job-input "$ptyjob" x
bkill "$ptyjob" >/dev/null 2>&1
timeout 20 tail --pid="$follower" -f /dev/null  # bsub -Ip returns once its job is killed

# --- badmin is for administrators
check "hclose by a user is refused" refused "User permission denied" as lsfsched_it badmin hclose hostB
check "  and hostB is still ok" [ "$(host_status hostB)" = ok ]
check "qclose by a user is refused" refused "Queue <normal>: User permission denied" as lsfsched_it badmin qclose normal
check "  and normal is still open" [ "$(queue_status normal)" = Open:Active ]
check "reconfig by a user is refused" bash -c "runuser -u lsfsched_it -- env LSF_ENVDIR=$LSF_ENVDIR $BIN/badmin reconfig 2>&1 | grep -qx 'User permission denied'"

# --- queue administrators: their queue's jobs and the queue, nothing else
night=$(as lsfsched_it bsub -q night -o /dev/null sleep 300 | job_of)
check "the night job runs" wait_for 10 state_is "$night" RUN
check "the queue admin stops a job in their queue" bash -c "[ \"\$(runuser -u lsfsched_qa -- env LSF_ENVDIR=$LSF_ENVDIR $BIN/bstop $night)\" = 'Job <$night> is being stopped' ]"
check "  and it is USUSP, suspended by an administrator" bash -c "state_is $night USUSP && bjobs_l_flat $night | grep -q 'The job was suspended by LSF admin or root'"
check "the queue admin may not stop a job in another queue" refused "Job <$mine>: User permission denied" as lsfsched_qa bstop "$mine"
check "  and it still runs" state_is "$mine" RUN
check "the queue admin closes their queue" bash -c "[ \"\$(runuser -u lsfsched_qa -- env LSF_ENVDIR=$LSF_ENVDIR $BIN/badmin qclose night)\" = 'Queue <night> is closed' ]"
check "  and it is closed" [ "$(queue_status night)" = Closed:Active ]
check "the queue admin may not close another queue" refused "Queue <short>: User permission denied" as lsfsched_qa badmin qclose short
check "  and it stays open" [ "$(queue_status short)" = Open:Active ]
check "the queue admin may not close a host" refused "User permission denied" as lsfsched_qa badmin hclose hostC
check "the queue admin kills a job in their queue" bash -c "[ \"\$(runuser -u lsfsched_qa -- env LSF_ENVDIR=$LSF_ENVDIR $BIN/bkill $night)\" = 'Job <$night> is being terminated' ]"
check "  which ends killed by an administrator" wait_for 10 bash -c "bjobs_l_flat $night | grep -q 'TERM_ADMIN'"

# --- a ClusterAdmin who is not root may do everything
check "a ClusterAdmin kills another user's job" bash -c "[ \"\$(runuser -u lsfsched_ca -- env LSF_ENVDIR=$LSF_ENVDIR $BIN/bkill $mine)\" = 'Job <$mine> is being terminated' ]"
check "a ClusterAdmin closes a host" bash -c "runuser -u lsfsched_ca -- env LSF_ENVDIR=$LSF_ENVDIR $BIN/badmin hclose hostC 2>&1 | grep -qx 'Close <hostC> ...... done'"
check "  and it is closed" wait_for 5 bash -c "bhosts hostC | awk 'NR==2{print \$2}' | grep -qx closed_Adm"

bkill "$theirs" "$held" >/dev/null 2>&1

# --- a user's btop reorders only their own jobs: nobody else's job moves back
check "the other jobs are gone" wait_for 10 bash -c "state_is $theirs EXIT && state_is $mine EXIT"
badmin hclose hostA >/dev/null 2>&1
r1=$(submit -n 4 -m hostA -o /dev/null sleep 2)
u1=$(as lsfsched_it bsub -n 4 -m hostA -o /dev/null sleep 2 | job_of)
u2=$(as lsfsched_it bsub -n 4 -m hostA -o /dev/null sleep 2 | job_of)
check "the user moves their later job to the top" bash -c \
  "[ \"\$(runuser -u lsfsched_it -- env LSF_ENVDIR=$LSF_ENVDIR $BIN/btop $u2)\" = 'Job <$u2> has been moved to position 1 from top.' ]"
badmin hopen hostA >/dev/null 2>&1
check "root's earlier job still starts first" wait_for 10 state_is "$r1" RUN
check "  while the user's two wait" bash -c "state_is $u1 PEND && state_is $u2 PEND"
check "then the job the user moved up" wait_for 20 bash -c "state_is $u2 RUN && state_is $u1 PEND"
bkill -u all 0 >/dev/null 2>&1
harness_done
