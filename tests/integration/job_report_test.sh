#!/usr/bin/env bash
# The job report LSF appends to a job's -o file when the job ends, with the lines
# scripts grep for: the Sender and Subject header, `Successfully completed.` or
# `Exited with exit code N.`, the command under `# LSBATCH: User input`, the
# `Resource usage summary:` block. After -e, -oo, array elements and a parallel job.
# (Written as the job's user: security_test.sh.)
#   job_report_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2"
cluster_start "$TEST_DIR" "$BIN" || exit 1
has() { grep -qxF -- "$2" "$1"; }  # FILE LINE: the file has that whole line
export -f has

# --- a job that succeeds
id=$(submit -J okjob -o ok.%J.out 'echo hello')
check "a job with -o ends DONE" wait_for 20 state_is "$id" DONE
f=ok.$id.out
host=$(bjobs -w "$id" | awk 'NR==2 {print $6}')
check "its own output comes first (head -1)" [ "$(head -1 "$f")" = hello ]
check "then LSF's rule and Sender line" \
  bash -c "sed -n '2,4p' $f | tr '\n' '|' | grep -qxE '\|-{60}\|Sender: LSF System <[^@>]+@$host>\|'"
check "Subject names the job, its name, the cluster, Done" has "$f" "Subject: Job $id: <okjob> in cluster <quickstart> Done"
check "where it came from" grep -qE "^Job <okjob> was submitted from host <[^>]+> by user <root> in cluster <quickstart> at [A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} [0-9]{4}\$" "$f"
check "where it ran" grep -qE "^Job was executed on host\(s\) <$host>, in queue <normal>, as user <root> in cluster <quickstart> at " "$f"
check "its working directory" has "$f" "<$TEST_DIR/out> was used as the working directory."
check "Started, Terminated, Results reported" \
  bash -c "grep -q '^Started at ' $f && grep -q '^Terminated at ' $f && grep -q '^Results reported at ' $f"
check "the command under # LSBATCH: User input" \
  bash -c "grep -A1 -xF '# LSBATCH: User input' $f | tail -1 | grep -qx 'echo hello'"
check "Successfully completed." has "$f" "Successfully completed."
check "Resource usage summary:" has "$f" "Resource usage summary:"
check "CPU time, from column 49" grep -qE '^    CPU time :                                   [0-9]+\.[0-9]{2} sec\.$' "$f"
check "Run time and Turnaround time" \
  bash -c "grep -qE '^    Run time : +[0-9]+ sec\.\$' $f && grep -qE '^    Turnaround time : +[0-9]+ sec\.\$' $f"
check "The output (if any) is above this job summary." has "$f" "The output (if any) is above this job summary."
check "one report" [ "$(grep -c '^Sender: LSF System' "$f")" = 1 ]

# --- a job that exits non-zero
id=$(submit -J badjob -o bad.%J.out 'echo trying; exit 3')
check "a job that exits 3 ends EXIT" wait_for 20 state_is "$id" EXIT
f=bad.$id.out
check "Subject says Exited" has "$f" "Subject: Job $id: <badjob> in cluster <quickstart> Exited"
check "Exited with exit code 3." has "$f" "Exited with exit code 3."
check "  and not Successfully completed." bash -c "! grep -q 'Successfully completed' $f"
check "  with its usage summary" has "$f" "Resource usage summary:"

# --- a job killed by its owner: the reason with IBM's words
# (bkill once it runs its command: the SIGINT then ends it, exit code 130)
id=$(submit -o killed.%J.out 'touch ready.$LSB_JOBID; sleep 60')
wait_for 20 test -e "ready.$id"
bkill "$id" >/dev/null
check "a killed job's report" wait_for 20 has "killed.$id.out" "Exited with exit code 130."
check "  names TERM_OWNER as LSF does" has "killed.$id.out" "TERM_OWNER: job killed by owner."

# --- a script piped to bsub: shown as stored, with its #BSUB lines
printf '#!/bin/sh\n#BSUB -J piped\n#BSUB -o piped.%%J.out\necho from the script\n' >job.sh
id=$(bsub <job.sh | sed -n 's/^Job <\([0-9]*\)>.*/\1/p')
check "a piped script's job ends DONE" wait_for 20 state_is "$id" DONE
check "  its report shows the script as submitted" \
  bash -c "diff <(sed -n '/^# LSBATCH: User input\$/,/^-\{60\}\$/p' piped.$id.out) - <<'T'
# LSBATCH: User input
#!/bin/sh
#BSUB -J piped
#BSUB -o piped.%J.out
echo from the script
------------------------------------------------------------
T"

# --- -e apart: errors there, the report still in -o
id=$(submit -o sep.%J.out -e sep.%J.err 'echo out; echo err >&2')
check "with -e, the job ends DONE" wait_for 20 state_is "$id" DONE
check "  -e has the errors alone" [ "$(cat "sep.$id.err")" = err ]
check "  the report is in -o" has "sep.$id.out" "Successfully completed."

# --- -oo: the file is overwritten by the job, the report appended after its output
echo "old contents" >over.out
id=$(submit -oo over.out 'echo new')
check "with -oo, the job ends DONE" wait_for 20 state_is "$id" DONE
check "  the old contents are gone, the job's output is first" \
  bash -c "! grep -q 'old contents' over.out && [ \"\$(head -1 over.out)\" = new ]"
check "  and the report follows" has over.out "Subject: Job $id: <echo new> in cluster <quickstart> Done"

# --- array elements and a parallel job
id=$(submit -J "arr[1-2]" -o arr.%J.%I 'echo $LSB_JOBINDEX')
check "array elements end DONE" wait_for 20 bash -c "[ \$(bjobs -a $id | grep -c DONE) = 2 ]"
check "  an element's Subject names it Job N[i]" has "arr.$id.2" "Subject: Job $id[2]: <arr[2]> in cluster <quickstart> Done"
id=$(submit -n 5 -R 'span[ptile=4]' -o par.%J.out 'echo $LSB_HOSTS')
check "a parallel job ends DONE" wait_for 20 state_is "$id" DONE
check "  its hosts are listed as LSF lists them: <4*hostX>, <hostY>" \
  grep -qE '^Job was executed on host\(s\) <4\*host[ABC]>, <host[ABC]>, in queue' "par.$id.out"

harness_done
