#!/usr/bin/env bash
# The parsing rules the best-known LSF adapters apply (portals, workflow managers,
# schedulers' LSF back ends), run against this project's output:
#  - the submission line's regular expression, on every bsub;
#  - `bjobs -w -W -a -u all` split on whitespace, the fields before JOB_NAME taken from
#    the left and those after it from the right (a job name may hold spaces), each
#    compared with what -o -json says for the same job;
#  - `bjobs -l` unwrapped by joining lines that start with exactly 21 spaces, then read
#    with the `Key <value>` regular expressions, compared with -o -json;
#  - the LSF version read from `lsid | head -1` and from `bjobs -V`.
#   parsers_test.sh BIN ROOT
source "$(dirname "$0")/../integration/harness.sh"
harness_init "$1" "$2"
cluster_start "$TEST_DIR" "$BIN" || exit 1

# --- bsub: ^Job <id> is submitted to [default ]queue <name>.$
SUBMITTED='^Job <([0-9]+)> is submitted to (default )?queue <([^>]+)>\.$'
ids=()
sub() {
  local out
  out=$(bsub "$@" 2>&1)
  if [[ $out =~ $SUBMITTED ]]; then
    ids+=("${BASH_REMATCH[1]}")
  else
    echo "FAIL - bsub $*: '$out' does not match the submission regex"
    FAILURES=$((FAILURES + 1))
  fi
}
sub -o /dev/null true                                 # DONE
sub -q short -o /dev/null "exit 3"                    # EXIT, a name with a space
sub -J "two words" -n 2 -m hostB sleep 300            # RUN on two slots
sub -H -q short sleep 100                             # PSUSP, never ran
sub -J "arr[1-2]" -o /dev/null true                   # array elements
sub -q night -m hostB sleep 1                         # PEND (window closed or not)
sub -P proj1 -o /dev/null <<'SCRIPT'
#!/bin/sh
# a piped script: its lines become one command
echo one
echo two
SCRIPT
check "seven submissions" [ "${#ids[@]}" = 7 ]
check "jobs settle" wait_for 30 bash -c "[ \"\$(bjobs -d -u all -noheader 2>/dev/null | wc -l)\" -ge 5 ] && bjobs -r -u all -noheader 2>/dev/null | grep -q RUN"

FIELDS="jobid user stat queue from_host exec_host job_name proj_name"
json=$(bjobs -a -u all -o "$FIELDS" -json)
# What -json says, as one line per job: id|user|stat|queue|from|exec|name|project.
expected=$(jq -r '.RECORDS[] | [.JOBID,.USER,.STAT,.QUEUE,.FROM_HOST,.EXEC_HOST,.JOB_NAME,.PROJ_NAME] | join("|")' <<<"$json")
check "-json lists every job (${#ids[@]} submissions, arrays expanded)" [ "$(wc -l <<<"$expected")" -ge 8 ]

# --- bjobs -w -W -a -u all, whitespace split
wide=$(bjobs -w -W -a -u all)
check "-w -W header has LSF's 15 names" [ "$(head -1 <<<"$wide" | awk '{print NF}')" = 15 ]
# Left: JOBID USER STAT QUEUE FROM_HOST EXEC_HOST; right: SUBMIT_TIME PROJ_NAME CPU_USED
# MEM SWAP PIDS START_TIME FINISH_TIME; JOB_NAME is what lies between.
parsed=$(tail -n +2 <<<"$wide" | perl -ne '
  chomp; my @f = split " ";
  if (@f < 15) { print "SHORT:$_\n"; next }
  my @left = @f[0..5]; my @right = @f[-8..-1]; my $name = join(" ", @f[6..$#f-8]);
  my $exec = $left[5] eq "-" ? "" : $left[5];
  print join("|", @left[0..4], $exec, $name, $right[1]), "\n";')
check "no -w -W line has fewer fields than the header" bash -c "! grep -q '^SHORT:' <<<\"\$0\"" "$parsed"
check "-w -W split on whitespace gives what -json gives" [ "$(sort <<<"$parsed")" = "$(sort <<<"$expected")" ]
if [ "$(sort <<<"$parsed")" != "$(sort <<<"$expected")" ]; then diff <(sort <<<"$expected") <(sort <<<"$parsed"); fi
# Times under -W are one token each, as parsers read them (MM/DD-HH:MM:SS or -).
check "-W times are MM/DD-HH:MM:SS or -" bash -c "tail -n +2 <<<\"\$0\" | awk '{ for (i = NF-1; i <= NF; i++) if (\$i != \"-\" && \$i !~ /^[0-9][0-9]\\/[0-9][0-9]-[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\$/) exit 1 }'" "$wide"

# --- bjobs -l, unwrapped at exactly 21 spaces, read with the adapters' expressions
while IFS= read -r want; do
  id=${want%%|*}
  # An array element is asked for as id[index]; -o jobid gives the id alone.
  [[ $want =~ \[([0-9]+)\]\|[^|]*$ ]] && id="$id[${BASH_REMATCH[1]}]"
  flat=$(bjobs -l "$id" | perl -0pe 's/\n {21}//g')
  got=$(perl -ne '
    $id = $1 if /^Job <(\d+)/; $name = $1 if /Job Name <([^>]*)>/; $user = $1 if /User <([^>]+)>/;
    $proj = $1 if /Project <([^>]*)>/; $stat = $1 if /Status <([A-Z]+)>/; $queue = $1 if /, Queue <([^>]+)>/;
    $from = $1 if /Submitted from host <([^>]+)>/;
    if (/: Started (\d+) Task\(s\) on Host\(s\) ((?:<[^>]+>,? ?)+), Allocated (\d+) Slot\(s\)/) {
      my @h; for my $e ($2 =~ /<([^>]+)>/g) { my ($n, $host) = $e =~ /^(\d+)\*(.*)$/ ? ($1, $2) : (1, $e); push @h, ($host) x $n }
      $exec = join(":", @h);
    }
    END { print join("|", $id, $user, $stat, $queue, $from, $exec // "", $name, $proj), "\n" }' <<<"$flat")
  check "bjobs -l $id unwrapped at 21 reads as -json ($want)" [ "$got" = "$want" ]
  # No key is split by the unwrapping: every `Word <` that opens also closes.
  check "bjobs -l $id: no field runs into the next" bash -c "! grep -qE '<[^>]*, [A-Z][a-z]+ [A-Za-z]* ?<' <<<\"\$0\"" "$flat"
done <<<"$expected"
piped=${ids[6]}
check "a piped script's command reads whole after unwrapping" bash -c \
  "bjobs -l $piped | perl -0pe 's/\n {21}//g' | grep -qF 'Command <#!/bin/sh;# a piped script: its lines become one command;echo one;echo two>'"
check "... and names the job" bash -c "[ \"\$(bjobs -o job_name -noheader $piped)\" = '#!/bin/sh;# a piped script: its lines become one command;echo one;echo two' ]"
exited=${ids[1]}
check "exit code read from -l" bash -c "bjobs -l $exited | perl -0pe 's/\n {21}//g' | grep -qE 'Exited with exit code 3\. The CPU time used is [0-9.]+ seconds\.'"
check "... and a dated Completed line" bash -c "bjobs -l $exited | grep -qE '^[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8}: Completed <exit>\.$'"

# --- the LSF version, as tools read it
check "lsid | head -1 gives an LSF 10.1 version" bash -c "lsid | head -1 | grep -qE '^IBM Spectrum LSF Standard 10\.1\.0\.[0-9]+, [A-Z][a-z]{2} [0-9]{2} [0-9]{4}$'"
check "lsid names this project on its own line" bash -c "lsid | sed -n 2p | grep -q '^lsfsched '"
check "bjobs -V prints the same first line (to stderr, as LSF)" bash -c "[ \"\$(bjobs -V 2>&1 >/dev/null | head -1)\" = \"\$(lsid | head -1)\" ]"

bkill -u all 0 >/dev/null 2>&1
harness_done
