#!/usr/bin/env bash
# Every command has a man page in docs/man that renders cleanly and documents every
# option its usage lists, and a section in docs/commands.md that gives each its status.
#   man_pages_test.sh BIN ROOT
set -u
BIN="$1"
ROOT="$2"
fail=0
commands=$(sed -n 's/^lsfsched_command(\([a-z]*\) .*/\1/p' "$ROOT/cli/CMakeLists.txt")
[ -n "$commands" ] || { echo "FAIL - no commands found in cli/CMakeLists.txt"; exit 1; }
for c in $commands; do
  page="$ROOT/docs/man/$c.1"
  if [ ! -f "$page" ]; then
    echo "FAIL - $c: no docs/man/$c.1"
    fail=1
    continue
  fi
  if command -v groff >/dev/null; then
    warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
    [ -z "$warnings" ] || { echo "FAIL - $c: groff warnings: $warnings"; fail=1; }
  fi
  usage=$("$BIN/$c" -h 2>&1)
  # Options are words of their own: "-l", "[-l", "|-l" (not the "-read" of "re-read").
  for opt in $(grep -oE -- '(^|[ [|])-[A-Za-z]+' <<<"$usage" | sed 's/^[ [|]//' | sort -u); do
    grep -qF -- "\\$opt" "$page" || { echo "FAIL - $c: usage lists $opt, the man page does not"; fail=1; }
  done
  # docs/commands.md: the section whose heading names the command lists each option.
  section=$(awk -v c="$c" '/^## / {inside = 0; n = split(substr($0, 4), names, /, /); for (i = 1; i <= n; i++) if (names[i] == c) inside = 1; next} inside' "$ROOT/docs/commands.md")
  if [ -z "$section" ]; then
    echo "FAIL - $c: no section in docs/commands.md"
    fail=1
  fi
  for opt in $(grep -oE -- '(^|[ [|])-[A-Za-z]+' <<<"$usage" | sed 's/^[ [|]//' | sort -u); do
    [ "$opt" = -h ] || [ "$opt" = -V ] && continue
    grep -qF -- "\`$opt\`" <<<"$section" || { echo "FAIL - $c: usage lists $opt, docs/commands.md does not"; fail=1; }
  done
  [ $fail = 0 ] && echo "ok   - $c"
done
exit $fail
