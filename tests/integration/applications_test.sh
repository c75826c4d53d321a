#!/usr/bin/env bash
# Application profiles (lsb.applications) against real daemons: bsub -app and
# DEFAULT_APPLICATION, what a profile gives a job (PROCLIMIT's default, RES_REQ, PRE_EXEC,
# JOB_STARTER, REQUEUE_EXIT_VALUES), bjobs -app / -l / -o app, bmod -app / -appn, bapp,
# and refusals that change nothing.
#   applications_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2"
CONFDIR=$(dirname "$PARAMS")
cat >"$CONFDIR/lsb.applications" <<'EOF'
Begin Application
NAME                = fluent
DESCRIPTION         = CFD runs
PROCLIMIT           = 1 2 3
RES_REQ             = span[hosts=1]
PRE_EXEC            = touch app_pre_ran
JOB_STARTER         = export APP_MARK=started_by_fluent; %USRCMD
REQUEUE_EXIT_VALUES = 42
End Application

Begin Application
NAME        = plain
DESCRIPTION = every job without -app
End Application

Begin Application
NAME       = rerun
RERUNNABLE = Y
End Application
EOF
sed -i 's/^End Parameters/DEFAULT_APPLICATION = plain\nEnd Parameters/' "$PARAMS"
cluster_start "$TEST_DIR" "$BIN" || exit 1
field() { bjobs -a -o "$2" -noheader "$1"; }

check "bapp lists the profiles with no jobs" bash -c "bapp | awk 'NR>1 {print \$1, \$2}' | tr '\n' ' ' | grep -qx 'fluent 0 plain 0 rerun 0 '"
check "bapp's header" bash -c "bapp | head -1 | grep -Eq '^APPLICATION_NAME +NJOBS +PEND +RUN +SUSP$'"

# Refusals change nothing.
check "an unknown profile is refused" \
  bash -c "bsub -app nosuch true 2>&1 | grep -qx 'nosuch: No such application profile. Job not submitted.'"
check "-n beyond PROCLIMIT is refused" \
  bash -c "bsub -app fluent -n 4 true 2>&1 | grep -q 'application profile <fluent> allows 1 to 3 processors (PROCLIMIT). Job not submitted.'"
check "refused: no job" [ "$(job_count)" = 0 ]

held=$(submit -app fluent -H -o /dev/null true)
check "without -n the job takes PROCLIMIT's default" [ "$(field "$held" nreq_slot)" = 2 ]
check "bjobs -o app" [ "$(field "$held" app)" = fluent ]
check "bjobs -l names the profile" bash -c "bjobs_l_flat $held | grep -q 'Application <fluent>'"
plain=$(submit -H -o /dev/null true)
check "without -app: DEFAULT_APPLICATION" [ "$(field "$plain" app)" = plain ]
check "bjobs -app lists the profile's jobs" bash -c "[ \"\$(bjobs -app fluent -noheader -o jobid)\" = $held ]"
check "bjobs -app of an unknown profile is refused" bash -c "bjobs -app nosuch 2>&1 | grep -qx 'nosuch: No such application profile'"
check "bapp counts slots by state" bash -c "bapp fluent | awk 'NR==2 {print \$2, \$3, \$4, \$5}' | grep -qx '2 2 0 0'"
check "bapp -l: description and parameters" bash -c "
  bapp -l fluent >l.txt && grep -q 'APPLICATION NAME: fluent' l.txt && grep -q -- '-- CFD runs' l.txt &&
  grep -q 'PROCLIMIT' l.txt && grep -q '^ 1 2 3$' l.txt && grep -q 'JOB_STARTER: export APP_MARK' l.txt"
check "bapp -l marks DEFAULT_APPLICATION" bash -c "bapp -l plain | grep -q 'APPLICATION NAME: plain (DEFAULT_APPLICATION)'"
check "bapp -json" bash -c "bapp -json | grep -q '\"APPLICATION_NAME\":\"fluent\"'"
check "bapp of an unknown profile" bash -c "bapp nosuch 2>&1 | grep -qx 'nosuch: No such application profile'"

# bmod
check "bmod -app to an unknown profile is refused" \
  bash -c "bmod -app nosuch $plain 2>&1 | grep -qx 'Job <$plain>: nosuch: No such application profile'"
check "refused: profile unchanged" [ "$(field "$plain" app)" = plain ]
bmod -app fluent "$plain" >/dev/null
check "bmod -app" [ "$(field "$plain" app)" = fluent ]
bmod -appn "$plain" >/dev/null
check "bmod -appn" [ "$(field "$plain" app)" = - ]
bkill "$held" "$plain" >/dev/null

# What the profile does when the job runs: RES_REQ merged (span[hosts=1] keeps three
# slots on one host), its PRE_EXEC, its JOB_STARTER around the command.
run=$(submit -app fluent -n 3 -o run.out 'echo $APP_MARK')
check "the profile's job runs and ends" wait_for 15 state_is "$run" DONE
check "its slots are on one host (RES_REQ span[hosts=1])" \
  bash -c "[ \$(bjobs -a -w $run | awk 'NR==2 {print \$6}' | tr ':' '\n' | sort -u | wc -l) = 1 ]"
check "its PRE_EXEC ran" [ -f app_pre_ran ]
check "its JOB_STARTER wrapped the command" grep -qx started_by_fluent run.out

# REQUEUE_EXIT_VALUES = 42: the first run exits 42 and the job goes back to PEND.
again=$(submit -app fluent -n 1 -o /dev/null '[ -f once ] || { touch once; exit 42; }')
check "a job exiting with the profile's requeue value runs again and is DONE" wait_for 20 state_is "$again" DONE
check "... after two runs" bash -c "bhist -l $again | grep -c 'Starting' | grep -qx 2"

# RERUNNABLE = Y makes the profile's jobs rerunnable (bmig moves them); bsub -rn says
# never, whatever the profile; bmod -r undoes -rn.
yes=$(submit -app rerun -m hostB -o /dev/null sleep 300)
never=$(submit -app rerun -rn -m hostB -o /dev/null sleep 300)
check "the profile's jobs run" wait_for 10 bash -c "state_is $yes RUN && state_is $never RUN"
check "bmig moves the profile's rerunnable job" bash -c "[ \"\$(bmig -m hostC $yes)\" = 'Job <$yes> is being migrated' ]"
check "bsub -rn: not rerunnable in a RERUNNABLE profile" \
  bash -c "bmig -m hostC $never 2>&1 | grep -q '^Job <$never>: Job is not rerunnable'"
bkill "$yes" "$never" >/dev/null 2>&1
undone=$(submit -app rerun -rn -H -m hostB -o /dev/null sleep 300)
bmod -r "$undone" >/dev/null && bresume "$undone" >/dev/null
check "bmod -r undoes -rn" wait_for 10 bash -c "state_is $undone RUN && [ \"\$(bmig -m hostC $undone)\" = 'Job <$undone> is being migrated' ]"
bkill "$undone" >/dev/null 2>&1

harness_done
