#!/usr/bin/env bash
# mbatchd's /metrics through real daemons: a token-protected listener on a port
# mbatchd picks, read by Prometheus' own text parser (python3-prometheus-client), whose
# figures match what bjobs, bqueues and bhosts show; what a raw client sends that a
# scraper never would; badmin perfmon view and showstatus -json with the same health
# figures; a bad LSB_METRICS_PORT named by file and line.
#   metrics_test.sh BIN ROOT
source "$(dirname "$0")/harness.sh"
harness_init "$1" "$2"
PY=/usr/bin/python3

echo "s3cret-token-$RANDOM" >"$TEST_DIR/conf/metrics.token"
chmod 600 "$TEST_DIR/conf/metrics.token"
cat >>"$TEST_DIR/conf/lsf.conf" <<CONF
LSB_METRICS_PORT=0
LSB_METRICS_TOKEN_FILE=$TEST_DIR/conf/metrics.token
CONF
# A Limit and a fairshare queue, for what /metrics says of them.
CONFDIR=$(dirname "$PARAMS")
cat >>"$CONFDIR/lsb.resources" <<'RES'
Begin Limit
NAME  = cap
USERS = all
SLOTS = 100
End Limit
RES
sed -i '/^QUEUE_NAME *= *short/a FAIRSHARE    = USER_SHARES[[default,1]]' "$CONFDIR/lsb.queues"
cluster_start "$TEST_DIR" "$BIN" || exit 1
TOKEN=$(cat "$TEST_DIR/conf/metrics.token")
URL=$(badmin perfmon view -json | jq -r .METRICS_URL)
check "badmin perfmon view -json names the listener mbatchd bound" bash -c "[[ '$URL' =~ ^http://127\.0\.0\.1:[0-9]+/metrics$ ]]"
check "badmin perfmon view shows it too" bash -c "badmin perfmon view | grep -Eq '^Metrics endpoint +$URL\$'"
scrape() { curl -sf -H "Authorization: Bearer $TOKEN" "$URL"; }
# One sample's value from a scrape, as Prometheus' parser reads it: NAME 'k=v,k=v'.
value() {
  scrape | "$PY" -c '
import sys
from prometheus_client.parser import text_string_to_metric_families
name, want = sys.argv[1], dict(kv.split("=", 1) for kv in sys.argv[2].split(",") if kv)
for fam in text_string_to_metric_families(sys.stdin.read()):
    for s in fam.samples:
        if s.name == name and all(s.labels.get(k) == v for k, v in want.items()):
            print(int(s.value) if s.value == int(s.value) else s.value)
            sys.exit(0)
sys.exit(1)' "$1" "${2:-}"
}
export -f scrape value
export URL TOKEN PY

check "without the token: 401" bash -c "[ \$(curl -s -o /dev/null -w '%{http_code}' '$URL') = 401 ]"
check "a wrong token: 401" bash -c \
  "[ \$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer x$TOKEN' '$URL') = 401 ]"
check "with it: 200 in Prometheus' text format" bash -c \
  "curl -sf -D - -o /dev/null -H 'Authorization: Bearer $TOKEN' '$URL' | grep -qi '^Content-Type: text/plain; version=0.0.4'"
check "the whole scrape parses with prometheus_client" bash -c \
  "scrape | $PY -c 'import sys; from prometheus_client.parser import text_string_to_metric_families as p; n=sum(1 for _ in p(sys.stdin.read())); sys.exit(0 if n > 20 else 1)'"

# Jobs: four that finish, two held, four more running than the cluster has room for.
for i in 1 2 3; do submit -o /dev/null true >/dev/null; done
submit -q short -o /dev/null true >/dev/null  # charged to the user's share account there
for i in 1 2; do submit -H -o /dev/null true >/dev/null; done
check "four jobs done" wait_for 60 bash -c '[ "$(bjobs -a -u all -noheader 2>/dev/null | grep -c " DONE ")" = 4 ]'
slots=$(bhosts -noheader | awk '$2 == "ok" {n += $4} END {print n}')
for i in $(seq $((slots + 2))); do submit -q normal -o /dev/null sleep 300 >/dev/null; done
check "every slot taken, two pending" wait_for 60 bash -c \
  "[ \"\$(bjobs -u all -r -noheader 2>/dev/null | wc -l)\" = $slots ] && [ \"\$(bjobs -u all -p -noheader 2>/dev/null | grep -c ' PEND ')\" = 2 ]"
check "lsf_jobs by state: as bjobs counts them" bash -c \
  "[ \"\$(value lsf_jobs state=DONE)\" = 4 ] && [ \"\$(value lsf_jobs state=PSUSP)\" = 2 ] &&
   [ \"\$(value lsf_jobs state=PEND)\" = 2 ] && [ \"\$(value lsf_jobs state=RUN)\" = $slots ]"
# bqueues' PEND counts held (PSUSP) jobs too.
check "lsf_queue_slots: bqueues' PEND and RUN for the normal queue" bash -c \
  "row=\$(bqueues -noheader normal) && [ \"\$(value lsf_queue_slots queue=normal,state=RUN)\" = \$(awk '{print \$10}' <<<\"\$row\") ] &&
   [ \$(( \$(value lsf_queue_slots queue=normal,state=PEND) + \$(value lsf_queue_slots queue=normal,state=PSUSP) )) = \$(awk '{print \$9}' <<<\"\$row\") ]"
check "lsf_user_jobs: this user's running jobs" bash -c \
  "[ \"\$(value lsf_user_jobs user=$(id -un),state=RUN)\" = $slots ]"
check "lsf_hosts and lsf_slots: as bhosts shows them" bash -c \
  "[ \"\$(value lsf_hosts status=closed_Full)\" = \$(bhosts -noheader | awk '\$2 == \"closed_Full\"' | wc -l) ] &&
   [ \"\$(value lsf_slots state=used)\" = $slots ] && [ \"\$(value lsf_slots state=total)\" = $slots ] &&
   [ \"\$(value lsf_mbatchd_sbatchds)\" = \$(bhosts -noheader | wc -l) ]"
check "health: passes, submissions, request times by type, the event log" bash -c \
  "[ \"\$(value lsf_sched_passes_total)\" -gt 0 ] && [ \"\$(value lsf_mbatchd_submissions_total)\" = $((slots + 8)) ] &&
   [ \"\$(value lsf_mbatchd_request_duration_seconds_count type=submit)\" = $((slots + 8)) ] &&
   [ \"\$(value lsf_event_log_records_total)\" -gt $((slots + 8)) ] && [ \"\$(value process_resident_memory_bytes)\" -gt 1000000 ]"

# Limits' use comes from a view at most 15 s old: within 30 s it shows what runs.
check "lsf_limit_max and lsf_limit_use: the Limit's cap and what runs under it (blimits)" wait_for 30 bash -c \
  "[ \"\$(value lsf_limit_max limit=cap,what=slots)\" = 100 ] &&
   blimits | grep -E '^ +cap ' | grep -q ' $slots/100 ' && [ \"\$(value lsf_limit_use limit=cap,what=slots)\" = $slots ]"
check "lsf_fairshare_priority: the fairshare queue's share account of the user" wait_for 30 bash -c \
  "scrape | grep -q '^lsf_fairshare_priority{queue=\"short\",account=\"$(id -un)\"}'"
check "badmin perfmon view: the request table and the event log" bash -c \
  "out=\$(badmin perfmon view) && grep -Eq '^submit +$((slots + 8)) ' <<<\"\$out\" &&
   grep -Eq '^Event log records written +[0-9]+' <<<\"\$out\" && grep -Eq '^sbatchds registered +[0-9]+' <<<\"\$out\""
check "badmin perfmon view -json is JSON with the same figures" bash -c \
  "j=\$(badmin perfmon view -json) && [ \"\$(jq -r '.REQUESTS[] | select(.TYPE == \"submit\") | .COUNT' <<<\"\$j\")\" = $((slots + 8)) ] &&
   [ \"\$(jq -r .JOB_SUBMISSIONS <<<\"\$j\")\" = $((slots + 8)) ]"
check "badmin showstatus: mbatchd's health under the summary" bash -c \
  "out=\$(badmin showstatus) && grep -Eq '^   Scheduling passes: +[0-9]+ \(p50 ' <<<\"\$out\" &&
   grep -Eq '^   sbatchds registered: +[0-9]+\$' <<<\"\$out\" && grep -Eq '^   Metrics and dashboard: +$URL\$' <<<\"\$out\""
check "badmin showstatus -json: jobs as bjobs counts them" bash -c \
  "j=\$(badmin showstatus -json) && [ \"\$(jq -r .JOBS_RUNNING <<<\"\$j\")\" = $slots ] &&
   [ \"\$(jq -r .METRICS_URL <<<\"\$j\")\" = '$URL' ] && [ \"\$(jq -r .PASSES <<<\"\$j\")\" -gt 0 ] &&
   [ \"\$(jq -r .JOBS_PENDING <<<\"\$j\")\" = 4 ] && [ \"\$(jq -r .COMMAND <<<\"\$j\")\" = 'badmin showstatus' ]"

# What a raw client sends and a scraper never would.
hostport=${URL#http://}
hostport=${hostport%/metrics}
raw() { "$PY" -c '
import socket, sys
host, port = sys.argv[1].rsplit(":", 1)
s = socket.create_connection((host, int(port)), timeout=20)
s.sendall(sys.stdin.buffer.read())
out = b""
while True:
    try:
        b = s.recv(4096)
    except (ConnectionResetError, socket.timeout):
        break
    if not b: break
    out += b
print(out.split(b"\r\n", 1)[0].decode(errors="replace"))' "$hostport"; }
export -f raw
export hostport
check "a 20 KiB request head: 431" bash -c \
  "printf 'GET /metrics HTTP/1.1\r\nX-Pad: %s\r\n\r\n' \$(head -c 20000 /dev/zero | tr '\\0' a) | raw | grep -q '^HTTP/1.1 431 '"
check "POST: 405" bash -c "printf 'POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc' | raw | grep -q '^HTTP/1.1 405 '"
check "garbage: 400" bash -c "printf 'hello\r\n\r\n' | raw | grep -q '^HTTP/1.1 400 '"
check "mbatchd still serves after all that" bash -c "bjobs -u all >/dev/null && scrape >/dev/null"

# A bad port is named with its file and line; badmin reconfig keeps the running config.
echo "LSB_METRICS_PORT=70000" >>"$TEST_DIR/conf/lsf.conf"
check "badmin ckconfig names lsf.conf, the line and the parameter" bash -c \
  "badmin ckconfig 2>&1 | grep -E 'lsf\.conf:[0-9]+' | grep -q 'LSB_METRICS_PORT'"
harness_done
