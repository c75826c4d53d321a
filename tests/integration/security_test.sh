#!/usr/bin/env bash
# What a hostile local user or network client can do, tried as they would: files a
# daemon opens for a user are opened with that user's rights (a swapped -o link, a
# FIFO), the job report is appended as the user, job files are private, root's jobs
# need LSF_ROOT_USER, a job that cannot open its files ends EXIT with the reason, the
# wire refuses oversized frames, idle connections and replays, and a stalled mbatchd
# gets an honest answer and no duplicate job.
#   security_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2"

id -u lsfsched_it >/dev/null 2>&1 || useradd -M -s /bin/sh lsfsched_it
CONF="$TEST_DIR/conf"
cluster_start "$TEST_DIR" "$BIN" || exit 1
allow_other_users
SHARED="$TEST_DIR/shared"
PORT=$(sed -n 's/^LSB_MBD_PORT=//p' "$CONF/lsf.conf")
job_of() { sed -n 's/^Job <\([0-9]*\)>.*/\1/p'; }
host_of() { bjobs -w "$1" | awk 'NR==2 {print $6}'; }
statedir_of() { echo "$TEST_DIR/work/quickstart/sbatchd/$1"; }

# --- §1: bpeek reads a -o file with the user's rights, and never blocks on it
echo "the secret of root" >"$TEST_DIR/root-only" && chmod 600 "$TEST_DIR/root-only"
id1=$(as lsfsched_it bsub -o "$SHARED/out1" 'echo started; sleep 60' | job_of)
check "a user's job starts" wait_for 20 state_is "$id1" RUN
check "  and writes its output" wait_for 10 grep -q started "$SHARED/out1"
out=$(as lsfsched_it bpeek "$id1" 2>&1)
check "bpeek shows the user's own output" grep -q started <<<"$out"
as lsfsched_it bash -c "rm -f '$SHARED/out1' && ln -s '$TEST_DIR/root-only' '$SHARED/out1'"
out=$(as lsfsched_it bpeek "$id1" 2>&1)
check "a -o swapped for a link to a root-only file is not read as root" bash -c "! grep -q 'secret of root' <<<'$out'"
check "  and the refusal says why" grep -q "Permission denied" <<<"$out"
as lsfsched_it bash -c "rm -f '$SHARED/out1' && ln -s '$CONF/lsf.sudoers' '$SHARED/out1'"
out=$(as lsfsched_it bpeek "$id1" 2>&1)
check "  nor a link to lsf.sudoers (the cluster key)" bash -c "! grep -q LSF_EAUTH_KEY <<<'$out'"
as lsfsched_it bash -c "rm -f '$SHARED/out1' && mkfifo '$SHARED/out1'"
start=$(date +%s)
out=$(as lsfsched_it timeout 20 bpeek "$id1" 2>&1)
check "a -o swapped for a FIFO is refused at once" grep -q "not a regular file" <<<"$out"
check "  without stalling sbatchd (answered within 5 s)" [ $(($(date +%s) - start)) -lt 5 ]
check "  whose host stays ok" bash -c "bhosts $(host_of "$id1") | awk 'NR==2{print \$2}' | grep -qx ok"
check "  and whose job stays RUN" state_is "$id1" RUN
bkill "$id1" >/dev/null

# --- §1: job files are root's alone
host=$(host_of "$id1")
sdir=$(statedir_of "$host")
check "sbatchd's state directory may be passed through, not listed" [ "$(stat -c %a "$sdir")" = 711 ]
id2=$(as lsfsched_it bsub -o /dev/null -e /dev/null 'sleep 60' | job_of)
wait_for 20 state_is "$id2" RUN
h2=$(host_of "$id2")
jf=$(ls "$(statedir_of "$h2")"/"$id2".0.job 2>/dev/null)
check "a job's state file exists" [ -n "$jf" ]
check "  readable by root only (it holds the environment)" [ "$(stat -c %a "$jf")" = 600 ]
check "  and not by its user" bash -c "! runuser -u lsfsched_it -- cat '$jf' >/dev/null 2>&1"
bkill "$id2" >/dev/null

# --- §1: a job that cannot open its files ends EXIT with the reason
mkdir -p "$TEST_DIR/private" && chmod 700 "$TEST_DIR/private"
id3=$(as lsfsched_it bsub -o "$TEST_DIR/private/out" true | job_of)
check "a job whose -o the user may not write ends EXIT" wait_for 20 state_is "$id3" EXIT
check "  with the reason in bjobs -l" bash -c "bjobs_l_flat $id3 | grep -q 'cannot open the job.s output file $TEST_DIR/private/out: Permission denied'"
check "  and in mbatchd's log" grep -q "job $id3 could not start on .*Permission denied" "$TEST_DIR/log/mbatchd.log.hostA"
check "  and in lsb.acct" grep -q "Permission denied" "$TEST_DIR/work/quickstart/logdir/lsb.acct"
id4=$(as lsfsched_it bsub -cwd /nonexistent/dir -o /dev/null true | job_of)
check "a job whose working directory is missing ends EXIT" wait_for 20 state_is "$id4" EXIT
check "  naming the directory" bash -c "bjobs_l_flat $id4 | grep -q 'working directory /nonexistent/dir'"

# --- §1: the job report is appended to the -o file as the job's user, never as root
id5=$(as lsfsched_it bsub -o "$SHARED/rep1" 'echo mine' | job_of)
check "a user's job gets its report in its -o file" wait_for 20 grep -qx 'Successfully completed.' "$SHARED/rep1"
id6=$(as lsfsched_it bsub -o "$SHARED/rep2" "echo mine; rm -f '$SHARED/rep2'" | job_of)
check "a -o file the job removed comes back with the report" wait_for 20 grep -qx 'Successfully completed.' "$SHARED/rep2"
check "  owned by the user, not by root" [ "$(stat -c %U "$SHARED/rep2")" = lsfsched_it ]
id7=$(as lsfsched_it bsub -o "$SHARED/rep3" \
  "echo mine; rm -f '$SHARED/rep3'; ln -s '$TEST_DIR/root-only' '$SHARED/rep3'" | job_of)
check "a job that swaps its -o for a link to a root-only file ends" wait_for 20 state_is "$id7" DONE
check "  and the report is not written into that file" [ "$(cat "$TEST_DIR/root-only")" = "the secret of root" ]
id8=$(as lsfsched_it bsub -o "$SHARED/rep4" "echo mine; rm -f '$SHARED/rep4'; mkfifo '$SHARED/rep4'" | job_of)
check "a job that swaps its -o for a FIFO ends (the report does not wait on it)" wait_for 20 state_is "$id8" DONE

id9=$(as lsfsched_it bsub -o "$SHARED/plain" /usr/bin/id -un | job_of)
check "a plain command (run without the shell) runs as the user" wait_for 20 grep -qx lsfsched_it "$SHARED/plain"
id10=$(as lsfsched_it bsub -o "$SHARED/hostfile" \
  'cat "$LSB_DJOB_HOSTFILE"; echo hostX >>"$LSB_DJOB_HOSTFILE" 2>/dev/null && echo WROTE' | job_of)
wait_for 20 state_is "$id10" DONE
check "the user's job reads LSB_DJOB_HOSTFILE" grep -qx "$(host_of "$id10")" "$SHARED/hostfile"
check "  but may not write it (other jobs read the same file)" bash -c "! grep -qx WROTE '$SHARED/hostfile'"

# --- §1: LSB_SBD_STATEDIR in a directory users share: a user's link there is refused,
# before sbatchd opens its lock file (as root) through it
mkdir -p "$TEST_DIR/shm" "$TEST_DIR/rootdir" "$TEST_DIR/attack-conf"
chmod 1777 "$TEST_DIR/shm"
echo "the secret of root" >"$TEST_DIR/rootdir/sbatchd.lock"
as lsfsched_it mkdir -p "$TEST_DIR/shm/quickstart"
as lsfsched_it ln -s "$TEST_DIR/rootdir" "$TEST_DIR/shm/quickstart/hostA"
cp -r "$CONF"/. "$TEST_DIR/attack-conf/"
echo "LSB_SBD_STATEDIR=$TEST_DIR/shm" >>"$TEST_DIR/attack-conf/lsf.conf"
out=$(LSF_ENVDIR="$TEST_DIR/attack-conf" timeout 10 "$BIN/sbatchd" --host-name hostA --listen 127.0.0.1 --port 0 2>&1)
check "sbatchd refuses a state directory that is a user's link" grep -q "quickstart/hostA is a link of uid" <<<"$out"
check "  and writes nothing where it leads" [ "$(cat "$TEST_DIR/rootdir/sbatchd.lock")" = "the secret of root" ]

# --- §2: the wire before authentication
out=$("$BIN/wire_probe" claim "$PORT" 16000000)
check "a frame of 16 MB before authentication is refused unread" \
  grep -q "exceeds the maximum of 65536 bytes before the connection has authenticated" <<<"$out"
"$BIN/wire_probe" idle "$PORT" 300 8 >"$TEST_DIR/idle.out" &
idle=$!
check "300 idle connections are opened" wait_for 10 grep -q "opened 300" "$TEST_DIR/idle.out"
start=$(date +%s%N)
check "  and bjobs still answers" bash -c "bjobs -u all >/dev/null"
echo "    bjobs with 300 idle connections open: $((($(date +%s%N) - start) / 1000000)) ms"
wait "$idle"

# --- §2: a captured signed request is not accepted again after a restart, nor by sbatchd
"$BIN/wire_probe" capture "$TEST_DIR/captured"
check "a signed request is accepted once" bash -c "'$BIN/wire_probe' replay $PORT '$TEST_DIR/captured' | grep -qx accepted"
check "  but not twice" bash -c "'$BIN/wire_probe' replay $PORT '$TEST_DIR/captured' | grep -q 'already received once'"
sbd_port=$(sed -n 's/.*sbatchd for host hostA listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$TEST_DIR/log/sbatchd.log.hostA" | tail -1)
check "  nor by an sbatchd" bash -c "'$BIN/wire_probe' replay $sbd_port '$TEST_DIR/captured' | grep -q 'addressed to mbatchd, not to this daemon (sbatchd@hostA)'"
# --- an sbatchd runs only what is meant for its own host and run (issue 38)
out=$("$BIN/rpc_probe" sbatchd-start "$sbd_port" hostA hostB "$TEST_DIR/wrong_host" 2>&1)
check "an sbatchd refuses a job for another host" grep -q 'is for host hostB, not for hostA' <<<"$out"
sleep 1
check "  and does not run it" [ ! -e "$TEST_DIR/wrong_host" ]
check "  and logs what to check" grep -q 'check --advertise and --listen' "$TEST_DIR/log/sbatchd.log.hostA"
long=$(submit -m hostA -o /dev/null sleep 60)
check "a job runs on hostA" wait_for 20 state_is "$long" RUN
out=$("$BIN/rpc_probe" sbatchd-kill "$sbd_port" hostA hostB "$long" 1 2>&1)
check "an sbatchd refuses a signal for another host" grep -q "on host hostB reached hostA" <<<"$out"
out=$("$BIN/rpc_probe" sbatchd-kill "$sbd_port" hostA hostA "$long" 7 2>&1)
check "  and one for another run of the job" grep -q "run 7 is not on this host (run 1 is)" <<<"$out"
sleep 1
check "  and the job still runs" state_is "$long" RUN
bkill "$long" >/dev/null 2>&1

# --- a host's clock: a gap within the allowed skew is measured and shown, one past it
# is shown with the refusal (issue 38)
MBD_LOG="$TEST_DIR/log/mbatchd.log.hostA"
clock_shown() {  # SECONDS PATTERN: sends a report that far behind, then reads bhosts -l
  "$BIN/rpc_probe" clock-report hostB "$1" >/dev/null 2>&1
  bhosts -l hostB | grep -q "$2"
}
check "bhosts -l shows a host clock 5 s behind" wait_for 10 clock_shown 5 "CLOCK: 5.[0-9] s behind the master's$"
check "  and mbatchd logs it" grep -q "host hostB's clock is 5.[0-9] s behind the master's: job end times" "$MBD_LOG"
check "bhosts -l shows one 400 s behind, whose sbatchd is refused" \
  wait_for 10 clock_shown 400 "CLOCK: 40[0-9].[0-9] s behind the master's; its sbatchd is refused until the clocks agree"
check "  and mbatchd logs that too" grep -q "hostB's clock is 40[0-9].[0-9] s behind the master's: its sbatchd's requests are refused" "$MBD_LOG"
check "hostB's own reports put it right again" wait_for 10 bash -c "! bhosts -l hostB | grep -q CLOCK"

"$BIN/wire_probe" capture "$TEST_DIR/captured2"
sleep 1.1  # the restart happens in a later second than the signature
restart_mbatchd
check "  nor after mbatchd restarts" bash -c "'$BIN/wire_probe' replay $PORT '$TEST_DIR/captured2' | grep -q 'signed before this daemon started'"

# --- §5: a stalled mbatchd: an honest answer, and no duplicate after the retry
SLOW="$TEST_DIR/slow"
mkdir -p "$SLOW" && cp "$CONF/lsf.conf" "$SLOW/" && echo "LSB_RPC_TIMEOUT=2" >>"$SLOW/lsf.conf"
before=$(job_count)
kill -STOP "$(cat "$TEST_DIR/mbatchd.pid")"
out=$(LSF_ENVDIR="$SLOW" bsub -o /dev/null -J stalled true 2>&1)
kill -CONT "$(cat "$TEST_DIR/mbatchd.pid")"
check "bsub to a stalled mbatchd says the job may have been submitted" \
  grep -qx "bsub: Request timed out; the job may have been submitted. Check with bjobs." <<<"$out"
check "  never that it was not" bash -c "! grep -q 'not submitted' <<<'$out'"
check "  and the job it sent twice exists once" wait_for 10 bash -c "[ \$(bjobs -a -u all -J stalled 2>/dev/null | awk 'NR>1' | wc -l) = 1 ]"
check "  (one job more than before)" wait_for 10 bash -c "[ \$(bjobs -a -u all 2>/dev/null | awk 'NR>1' | wc -l) = $((before + 1)) ]"

# --- numbers are refused, never wrapped; NUL bytes are refused
check "-W beyond the largest limit is refused" bash -c "bsub -W 4294967297 true 2>&1 | grep -q 'Bad runtime specification'"
check "-M beyond the largest amount is refused" bash -c "bsub -M 18446744073709551617 true 2>&1 | grep -q 'Bad memory limit specification'"
check "-n beyond the largest count is refused" bash -c "bsub -n 4294967297 true 2>&1 | grep -q 'Bad argument for option -n'"
printf 'echo one\0echo two\n' >"$TEST_DIR/nul.sh"
check "a script with a NUL byte is refused, not cut" bash -c "bsub -o /dev/null <'$TEST_DIR/nul.sh' 2>&1 | grep -q 'contains a NUL character. Job not submitted.'"

# --- §4: deep nesting and long lists get a clear error, and mbatchd answers at once after
deep="select[$(printf '(%.0s' $(seq 1 200))mem>1$(printf ')%.0s' $(seq 1 200))]"
out=$(bsub -R "$deep" true 2>&1)
check "a select[] nested 200 deep is refused naming the limit" grep -q "nests deeper than 64 levels" <<<"$out"
chain="select[$(printf 'mem>1 && %.0s' $(seq 1 5000))mem>1]"
out=$(bsub -o /dev/null -R "$chain" true 2>&1)
check "a flat chain of 5,000 && is accepted" grep -q "is submitted" <<<"$out"
long="x[$(printf '1-1000,%.0s' $(seq 1 3000))1]"
start=$(date +%s%N)
out=$(bsub -J "$long" true 2>&1)
check "a long array index list is refused" grep -q "Job array index too large" <<<"$out"
check "  and mbatchd answers within a second after" bash -c "timeout 1 bjobs -u all >/dev/null 2>&1"
echo "    long array list refused in $((($(date +%s%N) - start) / 1000000)) ms"
dep="$(printf 'done(1) && %.0s' $(seq 1 5000))done(1)"
out=$(bsub -w "$dep" true 2>&1)
check "a dependency of 5,001 terms gets an answer, not a crash" bash -c "lsid >/dev/null"

# --- root submits and runs jobs only with LSF_ROOT_USER=Y
sed -i '/^LSF_ROOT_USER=/d' "$CONF/lsf.conf"
restart_mbatchd
check "root's bsub is refused without LSF_ROOT_USER" bash -c \
  "bsub true 2>&1 | grep -qx 'User permission denied: root may not submit jobs (LSF_ROOT_USER is not Y). Job not submitted.'"
out=$(as lsfsched_it bsub -o /dev/null true 2>&1)
check "  a user's is not" grep -q "is submitted" <<<"$out"

exit $FAILURES
