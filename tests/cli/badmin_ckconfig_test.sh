#!/usr/bin/env bash
# badmin ckconfig as an admin runs it: exit 0 and "No errors found." on a good tree;
# exit 1, every error with file:line, and the running configuration kept on a bad one.
set -u
badmin="$1"
src="$2"
fail=0
check() { if ! eval "$1"; then echo "FAILED: $2"; fail=1; fi; }

out=$(LSF_ENVDIR="$src/conf-examples/quickstart/conf" "$badmin" ckconfig -v); rc=$?
check '[ $rc -eq 0 ]' "quickstart: exit code $rc, expected 0"
check 'grep -q "^No errors found.$" <<<"$out"' "quickstart: no 'No errors found.'"
check 'grep -q "^  night  priority=20 hosts=(hostB hostC) RUN_WINDOW=(20:00-8:00 5:19:00-1:8:00)$" <<<"$out"' \
  "quickstart: -v summary lacks the night queue"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/conf-examples/quickstart/conf" "$tmp/conf"
cat >>"$tmp/conf/lsbatch/quickstart/configdir/lsb.queues" <<'Q'

Begin Queue
QUEUE_NAME = broken
HOSTS      = hostA hg9
PRIORITY   = high
End Queue
Q
out=$(LSF_ENVDIR="$tmp/conf" "$badmin" ckconfig); rc=$?
check '[ $rc -eq 1 ]' "broken: exit code $rc, expected 1"
check 'grep -qF "lsb.queues:26: queue \"broken\": PRIORITY = \"high\" is not a whole number of at least 0" <<<"$out"' \
  "broken: PRIORITY error missing"
check 'grep -qF "lsb.queues:25: queue \"broken\": HOSTS names unknown host or host group \"hg9\"" <<<"$out"' \
  "broken: HOSTS error missing"
check 'grep -q "^2 error(s) and 0 warning(s) found." <<<"$out"' "broken: no error count"
check 'grep -q "the running configuration is kept" <<<"$out"' "broken: does not say the running configuration is kept"

out=$(LSF_ENVDIR="$tmp/nowhere" "$badmin" ckconfig 2>&1); rc=$?
check '[ $rc -eq 1 ]' "no lsf.conf: exit code $rc, expected 1"
check 'grep -q "lsf.conf: cannot read" <<<"$out"' "no lsf.conf: no message"

"$badmin" frobnicate >/dev/null 2>&1; rc=$?
check '[ $rc -eq 2 ]' "unknown subcommand: exit code $rc, expected 2"
[ $fail -eq 0 ] && echo "badmin ckconfig: all checks passed"
exit $fail
