#!/usr/bin/env bash
# The dashboard in a real browser: headless Chromium (Debian's chromium) loads the page
# mbatchd serves on its metrics listener, runs its script against the live cluster, and
# the numbers it shows (jobs by state, slots, hosts by status, the queue table, the host
# table, pending reasons, a job's page with its history) are checked against bjobs,
# bhosts and bqueues. A screenshot is kept under the build directory
# (BUILD/test-artifacts/dashboard.png). Skipped (77) where there is no chromium.
#   dashboard_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
  echo "skipped: no chromium (scripts/test installs Debian's chromium)"
  exit 77
fi
harness_init "$1" "$2"
ARTIFACTS="$BIN/../test-artifacts"
mkdir -p "$ARTIFACTS"
PY=/usr/bin/python3

echo "LSB_METRICS_PORT=0" >>"$TEST_DIR/conf/lsf.conf"
cluster_start "$TEST_DIR" "$BIN" || exit 1
URL=$(badmin perfmon view -json | jq -r .METRICS_URL)
BASE=${URL%metrics}
export BASE CHROMIUM PY

# The page as the browser leaves it once its script has fetched and drawn (virtual
# time: the polling timers fire without the test waiting for them).
dom() {
  timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --user-data-dir="$TEST_DIR/chromium" --virtual-time-budget=4000 --dump-dom "$1" 2>/dev/null
}
# Text of the element with id $1 in the DOM on stdin.
by_id() {
  "$PY" -c '
import sys
from html.parser import HTMLParser
want = sys.argv[1]
class P(HTMLParser):
    depth = 0; text = None
    def handle_starttag(self, tag, attrs):
        if self.depth: self.depth += 1
        elif dict(attrs).get("id") == want: self.depth = 1; self.text = ""
    def handle_endtag(self, tag):
        if self.depth: self.depth -= 1
    def handle_data(self, d):
        if self.depth: self.text += d
p = P(); p.feed(sys.stdin.read())
if p.text is None: sys.exit(1)
print(p.text.strip())' "$1"
}
# The rows of table $1 in the DOM on stdin, cells joined by |.
rows() {
  "$PY" -c '
import sys
from html.parser import HTMLParser
want = sys.argv[1]
class P(HTMLParser):
    inside = 0; rows = []; row = None; cell = None
    def handle_starttag(self, tag, attrs):
        if tag == "table" and dict(attrs).get("id") == want: self.inside = 1
        elif self.inside and tag == "tbody": self.inside = 2
        elif self.inside == 2 and tag == "tr": self.row = []
        elif self.row is not None and tag == "td": self.cell = ""
    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None: self.row.append(self.cell.strip()); self.cell = None
        elif tag == "tr" and self.row is not None: self.rows.append(self.row); self.row = None
        elif tag == "table" and self.inside: self.inside = 0
    def handle_data(self, d):
        if self.cell is not None: self.cell += d
p = P(); p.feed(sys.stdin.read())
for r in p.rows: print("|".join(r))' "$1"
}
export -f dom by_id rows

check "the page, its script and style are served without a token" bash -c \
  "curl -sf '$BASE' | grep -q '<script src=\"/dashboard.js\">' && curl -sf '${BASE}dashboard.js' | grep -q api/state"

# Jobs: two done, every slot taken, three pending (one of them held).
submit -o /dev/null true >/dev/null
submit -o /dev/null true >/dev/null
check "two jobs done" wait_for 60 bash -c '[ "$(bjobs -a -u all -noheader 2>/dev/null | grep -c " DONE ")" = 2 ]'
slots=$(bhosts -noheader | awk '{n += $4} END {print n}')
for i in $(seq $((slots + 2))); do last=$(submit -o /dev/null sleep 300); done
held=$(submit -H -o /dev/null sleep 300)
check "every slot taken, two pending" wait_for 60 bash -c \
  "[ \"\$(bjobs -u all -r -noheader 2>/dev/null | wc -l)\" = $slots ] && [ \"\$(bjobs -u all -p -noheader 2>/dev/null | grep -c ' PEND ')\" = 2 ]"
# The state the page is compared with has settled: a pass has given the pending jobs
# their reasons and the hosts report full.
check "hosts closed_Full" wait_for 30 bash -c "[ \$(bhosts -noheader | grep -c closed_Full) = \$(bhosts -noheader | wc -l) ]"

page=$(dom "$BASE")
echo "$page" >"$ARTIFACTS/dashboard.html"
export page
check "the page shows the cluster's name as lsid does" bash -c \
  "[ \"\$(by_id cluster <<<\"\$page\")\" = \"\$(lsid | sed -n 's/^My cluster name is //p')\" ]"
check "jobs by state: as bjobs counts them" bash -c \
  "[ \"\$(by_id jobs-RUN <<<\"\$page\")\" = $slots ] && [ \"\$(by_id jobs-PEND <<<\"\$page\")\" = 2 ] &&
   [ \"\$(by_id jobs-PSUSP <<<\"\$page\")\" = 1 ] && [ \"\$(by_id jobs-DONE <<<\"\$page\")\" = 2 ]"
check "slots used and total: as bhosts' NJOBS and MAX" bash -c \
  "[ \"\$(by_id slots-used <<<\"\$page\")\" = \$(bhosts -noheader | awk '{n += \$5} END {print n}') ] &&
   [ \"\$(by_id slots-total <<<\"\$page\")\" = $slots ]"
check "hosts by status: as bhosts shows them" bash -c \
  "[ \"\$(by_id hosts-closed_Full <<<\"\$page\")\" = \$(bhosts -noheader | wc -l) ]"
check "the queue table: bqueues' row for normal" bash -c \
  "row=\$(rows queues <<<\"\$page\" | grep '^normal|') && b=\$(bqueues -noheader normal) &&
   [ \"\$(cut -d'|' -f2 <<<\"\$row\")\" = \$(awk '{print \$2}' <<<\"\$b\") ] &&
   [ \"\$(cut -d'|' -f3 <<<\"\$row\")\" = \$(awk '{print \$3}' <<<\"\$b\") ] &&
   [ \"\$(cut -d'|' -f4 <<<\"\$row\")\" = \$(awk '{print \$8}' <<<\"\$b\") ] &&
   [ \"\$(cut -d'|' -f5 <<<\"\$row\")\" = \$(awk '{print \$9}' <<<\"\$b\") ] &&
   [ \"\$(cut -d'|' -f6 <<<\"\$row\")\" = \$(awk '{print \$10}' <<<\"\$b\") ]"
check "the host table: every host of bhosts with its status and slots" bash -c \
  "[ \"\$(rows hosts <<<\"\$page\" | awk -F'|' '{print \$1, \$2, \$3}' | sort)\" = \
     \"\$(bhosts -noheader | awk '{print \$1, \$2, \$5 \"/\" \$4}' | sort)\" ]"
check "pending reasons grouped, with the two jobs counted" bash -c \
  "[ \"\$(rows reasons <<<\"\$page\" | awk -F'|' '{n += \$1} END {print n}')\" = 3 ]"
check "the last passes are listed" bash -c "[ \"\$(rows passes <<<\"\$page\" | wc -l)\" -gt 0 ]"

job=$(dom "${BASE}#job=$last")
export job
check "a job's page: its user, queue, command and history" bash -c \
  "rows=\$(grep -o '<table id=\"job-fields\".*</table>' <<<\"\$job\") && grep -q '$(id -un)' <<<\"\$rows\" &&
   grep -q 'sleep 300' <<<\"\$rows\" && grep -q '>PEND<' <<<\"\$rows\" &&
   [ \"\$(rows job-history <<<\"\$job\" | grep -c jobNew)\" = 1 ]"
check "an unknown job's page says so" bash -c \
  "dom '${BASE}#job=99999' | grep -o '<table id=\"job-fields\".*</table>' | grep -q '99999'"

timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --user-data-dir="$TEST_DIR/chromium" \
  --virtual-time-budget=4000 --window-size=1400,2200 --screenshot="$ARTIFACTS/dashboard.png" "$BASE" >/dev/null 2>&1
check "a screenshot is kept under the build directory" test -s "$ARTIFACTS/dashboard.png"
echo "screenshot: $(cd "$ARTIFACTS" && pwd)/dashboard.png"

# The data needs the token when one is set; the page itself does not.
echo "tok-$RANDOM" >"$TEST_DIR/conf/metrics.token"
echo "LSB_METRICS_TOKEN_FILE=$TEST_DIR/conf/metrics.token" >>"$TEST_DIR/conf/lsf.conf"
restart_mbatchd
URL2=$(badmin perfmon view -json | jq -r .METRICS_URL)
export URL2
check "with a token: /api/state 401 without it, 200 with it; the page 200" bash -c \
  "b=\${URL2%metrics} && [ \$(curl -s -o /dev/null -w '%{http_code}' \${b}api/state) = 401 ] &&
   [ \$(curl -s -o /dev/null -w '%{http_code}' -H \"Authorization: Bearer \$(cat $TEST_DIR/conf/metrics.token)\" \${b}api/state) = 200 ] &&
   [ \$(curl -s -o /dev/null -w '%{http_code}' \$b) = 200 ]"
check "the page given the token in its address shows the jobs" bash -c \
  "p=\$(dom \"\${URL2%metrics}#token=\$(cat $TEST_DIR/conf/metrics.token)\") && [ \"\$(by_id jobs-RUN <<<\"\$p\")\" = $slots ]"
harness_done
