#!/usr/bin/env bash
# bsim as a user runs it: the hand-worked trace of tests/unit/simulator_test.cc through
# conf-examples/bsim's three queues (greedy, reserve, easy), every start time checked
# in the CSV; the SWF output; the same input giving the same bytes; clear errors.
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
for q in greedy reserve easy; do
  "$bsim" -c "$conf" --trace "$tmp/t.swf" --queue $q --csv "$tmp/$q.csv" -q >"$tmp/$q.out"
  check '[ $? -eq 0 ]' "$q: exit code"
done
check '[ "$(starts "$tmp/greedy.csv")" = "1,0 2,27 3,2 4,7 5,4 " ]' "greedy starts: $(starts "$tmp/greedy.csv")"
check '[ "$(starts "$tmp/reserve.csv")" = "1,0 2,10 3,20 4,20 5,20 " ]' "reserve starts: $(starts "$tmp/reserve.csv")"
check '[ "$(starts "$tmp/easy.csv")" = "1,0 2,10 3,2 4,20 5,4 " ]' "easy starts: $(starts "$tmp/easy.csv")"
check 'grep -q "^all  *5  *0  *0 " "$tmp/easy.out"' "summary row: $(grep '^all' "$tmp/easy.out")"
check 'grep -q "5 jobs simulated" "$tmp/easy.out"' "summary header"
check 'grep -q "Cluster: 4 hosts, 4 slots" "$tmp/easy.out"' "host model from MaxProcs"

# The same input, the same bytes; the SWF output carries the simulated waits.
"$bsim" -c "$conf" --trace "$tmp/t.swf" --queue easy --csv "$tmp/again.csv" --swf "$tmp/out.swf" -q >"$tmp/again.out"
check 'cmp -s "$tmp/easy.csv" "$tmp/again.csv" && cmp -s "$tmp/easy.out" "$tmp/again.out"' "not deterministic"
check 'grep -q "^4 3 17 20 2 " "$tmp/out.swf"' "SWF output: $(grep '^4 ' "$tmp/out.swf")"
gzip -c "$tmp/t.swf" >"$tmp/t.swf.gz"
"$bsim" -c "$conf" --trace "$tmp/t.swf.gz" --queue easy --csv "$tmp/gz.csv" -q >/dev/null
check 'cmp -s "$tmp/easy.csv" "$tmp/gz.csv"' "gzipped trace differs"

# --compare: a row per configuration and queue; --plot: three charts, a line per run.
"$bsim" --trace "$tmp/t.swf" --compare "$conf:greedy" --compare "$conf:easy" --plot "$tmp/p" -q >"$tmp/cmp.out"
check '[ $? -eq 0 ]' "compare: exit code"
check 'grep -q "^$conf:greedy  *5 " "$tmp/cmp.out" && grep -q "^$conf:easy  *5 " "$tmp/cmp.out"' "compare rows: $(cat "$tmp/cmp.out")"
check '[ "$(grep "^$conf:easy " "$tmp/cmp.out" | tr -s " " | cut -d" " -f2-)" = "$(grep "^all " "$tmp/easy.out" | tr -s " " | cut -d" " -f2-)" ]' \
  "compare's easy row differs from the single run"
for chart in queue util wait; do
  check '[ "$(grep -c "<polyline" "$tmp/p.$chart.svg")" = 2 ] && tail -1 "$tmp/p.$chart.svg" | grep -qx "</svg>"' "chart $chart"
done
out=$("$bsim" --trace "$tmp/t.swf" --compare "$conf" --csv "$tmp/x.csv" -q 2>&1); rc=$?
check '[ $rc -eq 2 ] && grep -qF "not with --compare" <<<"$out"' "compare with csv: $out"

# --map-queue / --map-partition: the trace's queue 1 (every job here) to easy; a
# partition mapping wins over the queue's.
"$bsim" -c "$conf" --trace "$tmp/t.swf" --map-queue 1=easy --csv "$tmp/mapped.csv" -q >/dev/null
check 'cmp -s "$tmp/easy.csv" "$tmp/mapped.csv"' "--map-queue 1=easy: $(starts "$tmp/mapped.csv")"
"$bsim" -c "$conf" --trace "$tmp/t.swf" --map-queue 1=easy --map-partition -1=reserve --csv "$tmp/part.csv" -q >/dev/null
check 'cmp -s "$tmp/reserve.csv" "$tmp/part.csv"' "--map-partition -1=reserve: $(starts "$tmp/part.csv")"
out=$("$bsim" -c "$conf" --trace "$tmp/t.swf" --map-queue 1=nosuch -q 2>&1); rc=$?
check '[ $rc -eq 1 ] && grep -qF "bsim: --map-queue 1=nosuch: no queue nosuch" <<<"$out"' "map to unknown queue: $out"
out=$("$bsim" -c "$conf" --trace "$tmp/t.swf" --map-queue easy -q 2>&1); rc=$?
check '[ $rc -eq 2 ] && grep -qF "bsim: --map-queue easy: give NUMBER=QUEUE" <<<"$out"' "bad map: $out"

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
