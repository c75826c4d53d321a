#!/usr/bin/env bash
# bsim as a user runs it: the hand-worked trace of tests/unit/simulator_test.cc through
# conf-examples/bsim's three queues (greedy, reserve, lsf_backfill), the literature's EASY and its predicting variants, every start time checked
# in the CSV, and conf-examples/bsim-plan's conservative backfill; the SWF output; the same input giving the same bytes; clear errors.
set -u
bsim="$1"
src="$2"
fail=0
check() { if ! eval "$1"; then echo "FAILED: $2"; fail=1; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
conf="$src/conf-examples/bsim/conf"

# Four processors; job submit wait run alloc . . req_procs req_time ... (18 fields).
cat >"$tmp/t.swf" <<'T'
; MaxProcs: 4
1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1
2 1 -1 10 4 -1 -1 4 10 -1 1 2 1 -1 1 -1 -1 -1
3 2 -1 5 1 -1 -1 1 5 -1 1 1 1 -1 1 -1 -1 -1
4 3 -1 20 2 -1 -1 2 20 -1 1 3 1 -1 1 -1 -1 -1
5 4 -1 3 1 -1 -1 1 3 -1 1 1 1 -1 1 -1 -1 -1
T
starts() { cut -d, -f1,3 "$1" | tail -n +2 | tr '\n' ' '; }
for q in greedy reserve lsf_backfill; do
  "$bsim" -c "$conf" --trace "$tmp/t.swf" --queue $q --csv "$tmp/$q.csv" -q >"$tmp/$q.out"
  check '[ $? -eq 0 ]' "$q: exit code"
done
check '[ "$(starts "$tmp/greedy.csv")" = "1,0 2,27 3,2 4,7 5,4 " ]' "greedy starts: $(starts "$tmp/greedy.csv")"
check '[ "$(starts "$tmp/reserve.csv")" = "1,0 2,10 3,20 4,20 5,20 " ]' "reserve starts: $(starts "$tmp/reserve.csv")"
check '[ "$(starts "$tmp/lsf_backfill.csv")" = "1,0 2,10 3,2 4,20 5,4 " ]' "lsf_backfill starts: $(starts "$tmp/lsf_backfill.csv")"
check 'grep -q "^all  *5  *0  *0 " "$tmp/lsf_backfill.out"' "summary row: $(grep '^all' "$tmp/lsf_backfill.out")"
check 'grep -q "5 jobs simulated" "$tmp/lsf_backfill.out"' "summary header"
check 'grep -q "Cluster: 4 hosts, 4 slots" "$tmp/lsf_backfill.out"' "host model from MaxProcs"

# conf-examples/bsim-plan: conservative backfill on the trace of simulator_test's
# EasyAndConservativePart, where it parts from EASY (4 books [4, 10), so 5 waits).
cat >"$tmp/part.swf" <<'T'
; MaxProcs: 4
1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1
2 0 -1 4 1 -1 -1 1 4 -1 1 1 1 -1 1 -1 -1 -1
3 1 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1
4 2 -1 6 2 -1 -1 2 6 -1 1 1 1 -1 1 -1 -1 -1
5 3 -1 7 1 -1 -1 1 7 -1 1 1 1 -1 1 -1 -1 -1
T
"$bsim" -c "$src/conf-examples/bsim-plan/conf" --trace "$tmp/part.swf" --csv "$tmp/cons.csv" -q >/dev/null
check '[ "$(starts "$tmp/cons.csv")" = "1,0 2,0 3,10 4,4 5,20 " ]' "conservative starts: $(starts "$tmp/cons.csv")"
"$bsim" -c "$conf" --trace "$tmp/part.swf" --queue lsf_backfill --csv "$tmp/easy2.csv" -q >/dev/null
check '[ "$(starts "$tmp/easy2.csv")" = "1,0 2,0 3,10 4,20 5,3 " ]' "lsf_backfill starts, second trace: $(starts "$tmp/easy2.csv")"

# The same input, the same bytes; the SWF output carries the simulated waits.
"$bsim" -c "$conf" --trace "$tmp/t.swf" --queue lsf_backfill --csv "$tmp/again.csv" --swf "$tmp/out.swf" -q >"$tmp/again.out"
check 'cmp -s "$tmp/lsf_backfill.csv" "$tmp/again.csv" && cmp -s "$tmp/lsf_backfill.out" "$tmp/again.out"' "not deterministic"
check 'grep -q "^4 3 17 20 2 " "$tmp/out.swf"' "SWF output: $(grep '^4 ' "$tmp/out.swf")"
gzip -c "$tmp/t.swf" >"$tmp/t.swf.gz"
"$bsim" -c "$conf" --trace "$tmp/t.swf.gz" --queue lsf_backfill --csv "$tmp/gz.csv" -q >/dev/null
check 'cmp -s "$tmp/lsf_backfill.csv" "$tmp/gz.csv"' "gzipped trace differs"

# --compare: a row per configuration and queue; --plot: three charts, a line per run.
"$bsim" --trace "$tmp/t.swf" --compare "$conf:greedy" --compare "$conf:lsf_backfill" --plot "$tmp/p" -q >"$tmp/cmp.out"
check '[ $? -eq 0 ]' "compare: exit code"
check 'grep -q "^$conf:greedy  *5 " "$tmp/cmp.out" && grep -q "^$conf:lsf_backfill  *5 " "$tmp/cmp.out"' "compare rows: $(cat "$tmp/cmp.out")"
check '[ "$(grep "^$conf:lsf_backfill " "$tmp/cmp.out" | tr -s " " | cut -d" " -f2-)" = "$(grep "^all " "$tmp/lsf_backfill.out" | tr -s " " | cut -d" " -f2-)" ]' \
  "compare's lsf_backfill row differs from the single run"
for chart in queue util wait; do
  check '[ "$(grep -c "<polyline" "$tmp/p.$chart.svg")" = 2 ] && tail -1 "$tmp/p.$chart.svg" | grep -qx "</svg>"' "chart $chart"
done
out=$("$bsim" --trace "$tmp/t.swf" --compare "$conf" --csv "$tmp/x.csv" -q 2>&1); rc=$?
check '[ $rc -eq 2 ] && grep -qF "not with --compare" <<<"$out"' "compare with csv: $out"

# The literature's EASY (RESERVATION_MODEL = PLAN, RESERVATION_DEPTH = 1) agrees with
# LSF-style backfill on the first trace; the predicting queues load and run.
for q in easy easy_predict easy_sjf easy_best; do
  "$bsim" -c "$conf" --trace "$tmp/t.swf" --queue $q --csv "$tmp/$q.csv" -q >"$tmp/$q.out"
  check '[ $? -eq 0 ] && [ "$(starts "$tmp/$q.csv")" = "1,0 2,10 3,2 4,20 5,4 " ]' "$q starts: $(starts "$tmp/$q.csv")"
done
"$bsim" -c "$conf" --trace "$tmp/part.swf" --queue easy --csv "$tmp/easyp.csv" -q >/dev/null
check '[ "$(starts "$tmp/easyp.csv")" = "1,0 2,0 3,10 4,20 5,3 " ]' "easy starts, second trace: $(starts "$tmp/easyp.csv")"

# Ids out of submit order, one used twice: jobs queue in submit order (FCFS: 8 before
# 7, which the old id order swapped), the CSV names the trace's ids, and the reuse is said.
cat >"$tmp/ids.swf" <<'T'
; MaxProcs: 4
9 0 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1
8 1 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1
7 2 -1 1 1 -1 -1 1 1 -1 1 1 1 -1 1 -1 -1 -1
7 3 -1 1 1 -1 -1 1 1 -1 1 1 1 -1 1 -1 -1 -1
T
out=$("$bsim" -c "$conf" --trace "$tmp/ids.swf" --queue reserve --csv "$tmp/ids.csv" -q 2>&1 >/dev/null)
check '[ "$(starts "$tmp/ids.csv")" = "9,0 8,10 7,20 7,20 " ]' "submit order: $(starts "$tmp/ids.csv")"
check 'grep -qF "ids.swf:5: job 7 again (first on line 4)" <<<"$out"' "duplicate id warning: $out"

# --filter standard: the archived studies' cleaning, each drop counted.
cat >"$tmp/dirty.swf" <<'T'
; MaxProcs: 4
1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1
2 1 -1 10 8 -1 -1 8 10 -1 1 1 1 -1 1 -1 -1 -1
3 2 -1 0 1 -1 -1 1 5 -1 1 1 1 -1 1 -1 -1 -1
4 3 -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1
5 4 -1 30 3 -1 -1 -1 20 -1 1 1 1 -1 1 -1 -1 -1
6 5 -1 5 -1 -1 -1 -1 10 -1 1 1 1 -1 1 -1 -1 -1
T
"$bsim" -c "$conf" --trace "$tmp/dirty.swf" --filter standard --queue reserve --csv "$tmp/clean.csv" -q >"$tmp/clean.out"
check 'grep -qF "Filter standard: 2 of 6 jobs kept; dropped 1 without processors, 1 wider than MaxProcs, 1 without a runtime, 1 without a requested time, 0 submitted before the start; 1 runtimes cut to the requested time" "$tmp/clean.out"' \
  "filter report: $(head -1 "$tmp/clean.out")"
check '[ "$(cut -d, -f1,3,6,7 "$tmp/clean.csv" | tail -n +2 | tr "\n" " ")" = "1,0,10,2 5,10,20,3 " ]' "filtered schedule: $(cat "$tmp/clean.csv")"
out=$("$bsim" -c "$conf" --trace "$tmp/t.swf" --filter strict -q 2>&1); rc=$?
check '[ $rc -eq 2 ] && grep -qF -- "--filter strict: the one filter is \`standard\`" <<<"$out"' "bad filter: $out"

# --map-queue / --map-partition: the trace's queue 1 (every job here) to easy; a
# partition mapping wins over the queue's.
"$bsim" -c "$conf" --trace "$tmp/t.swf" --map-queue 1=lsf_backfill --csv "$tmp/mapped.csv" -q >/dev/null
check 'cmp -s "$tmp/lsf_backfill.csv" "$tmp/mapped.csv"' "--map-queue 1=lsf_backfill: $(starts "$tmp/mapped.csv")"
"$bsim" -c "$conf" --trace "$tmp/t.swf" --map-queue 1=lsf_backfill --map-partition -1=reserve --csv "$tmp/part.csv" -q >/dev/null
check 'cmp -s "$tmp/reserve.csv" "$tmp/part.csv"' "--map-partition -1=reserve: $(starts "$tmp/part.csv")"
out=$("$bsim" -c "$conf" --trace "$tmp/t.swf" --map-queue 1=nosuch -q 2>&1); rc=$?
check '[ $rc -eq 1 ] && grep -qF "bsim: --map-queue 1=nosuch: no queue nosuch" <<<"$out"' "map to unknown queue: $out"
out=$("$bsim" -c "$conf" --trace "$tmp/t.swf" --map-queue easy -q 2>&1); rc=$?
check '[ $rc -eq 2 ] && grep -qF "bsim: --map-queue easy: give NUMBER=QUEUE" <<<"$out"' "bad map: $out"

# --scenario: the same five jobs as a scheduling-pass scenario (its own four one-slot
# hosts and the three queues) give the same starts as the trace.
cat >"$tmp/s.yaml" <<'S'
hosts:
  - {name: hostA}
  - {name: hostB}
  - {name: hostC}
  - {name: hostD}
config:
  lsb.hosts: |
    Begin Host
    HOST_NAME MXJ
    default   1
    End Host
  lsb.queues: |
    Begin Queue
    QUEUE_NAME = greedy
    PRIORITY = 30
    End Queue
    Begin Queue
    QUEUE_NAME = reserve
    PRIORITY = 30
    SLOT_RESERVE = MAX_RESERVE_TIME[1000000]
    End Queue
    Begin Queue
    QUEUE_NAME = easy
    PRIORITY = 30
    SLOT_RESERVE = MAX_RESERVE_TIME[1000000]
    BACKFILL = Y
    End Queue
steps:
  - {at: 0, submit: [{id: 1, n: 2, W: 10}]}
  - {at: 1, submit: [{id: 2, n: 4, W: 10}]}
  - {at: 2, submit: [{id: 3, W: 5}]}
  - {at: 3, submit: [{id: 4, n: 2, W: 20, user: bob}]}
  - {at: 4, submit: [{id: 5, W: 3, runtime: 3}]}
S
for q in greedy reserve easy; do
  "$bsim" --scenario "$tmp/s.yaml" --queue $q --csv "$tmp/s.$q.csv" -q >"$tmp/s.$q.out"
  check '[ $? -eq 0 ] && [ "$(starts "$tmp/s.$q.csv")" = "$(starts "$tmp/$q.csv")" ]' \
    "scenario $q starts: $(starts "$tmp/s.$q.csv")"
done
check 'grep -q "Scenario .*s.yaml: 5 jobs simulated" "$tmp/s.easy.out" && grep -q "Cluster: 4 hosts, 4 slots" "$tmp/s.easy.out"' \
  "scenario header: $(head -2 "$tmp/s.easy.out")"
"$bsim" --scenario "$tmp/s.yaml" --queue easy --by-user -q >"$tmp/s.users.out"
check 'grep -q "^  bob  *1 " "$tmp/s.users.out" && grep -q "^  alice  *4 " "$tmp/s.users.out"' "scenario users: $(cat "$tmp/s.users.out")"
sed 's/{id: 3, W: 5}/{id: 3, W: 5, R: "select[fs]"}/' "$tmp/s.yaml" >"$tmp/bad.yaml"
out=$("$bsim" --scenario "$tmp/bad.yaml" -q 2>&1); rc=$?
check '[ $rc -eq 1 ] && grep -qF "bad.yaml: job 3: \`R\` is not simulated" <<<"$out"' "unmodelled option: $out"
sed 's/{id: 1, n: 2, W: 10}/{id: 1, n: 2}/' "$tmp/s.yaml" >"$tmp/endless.yaml"
out=$("$bsim" --scenario "$tmp/endless.yaml" -q 2>&1); rc=$?
check '[ $rc -eq 1 ] && grep -qF "endless.yaml: job 1: give \`runtime\` or \`W\`, so it ends" <<<"$out"' "no runtime: $out"
out=$("$bsim" --scenario "$tmp/s.yaml" -c "$conf" -q 2>&1); rc=$?
check '[ $rc -eq 2 ] && grep -qF "brings its own configuration" <<<"$out"' "scenario with -c: $out"
check '[ -z "$(ls -d "${TMPDIR:-/tmp}"/bsim-scenario.* 2>/dev/null)" ]' "scenario configuration left behind"

# Errors name what is wrong.
echo "6 5 -1 3 1" >>"$tmp/t.swf"
out=$("$bsim" -c "$conf" --trace "$tmp/t.swf" -q 2>&1); rc=$?
check '[ $rc -eq 1 ] && grep -qF "t.swf:7: a job line has 18 numbers, this has 5" <<<"$out"' "short line: $out"
out=$("$bsim" -c "$conf" --trace "$tmp/none.swf" -q 2>&1); rc=$?
check '[ $rc -eq 1 ] && grep -qF "none.swf: cannot open" <<<"$out"' "missing trace: $out"
out=$("$bsim" -c "$conf" --trace "$tmp/t.swf.gz" --estimate fast -q 2>&1); rc=$?
check '[ $rc -eq 2 ] && grep -qF -- "--estimate fast: user, exact or a positive factor" <<<"$out"' "bad estimate: $out"
out=$("$bsim" -c "$conf" --trace "$tmp/t.swf.gz" --queue nosuch -q 2>&1); rc=$?
check '[ $rc -eq 1 ] && grep -qF "no queue nosuch" <<<"$out"' "bad queue: $out"

[ $fail = 0 ] && echo "ok - bsim"
exit $fail
