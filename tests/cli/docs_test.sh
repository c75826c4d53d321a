#!/usr/bin/env bash
# The lists the docs keep of things the code defines stay whole: every scheduling
# module registered is in libsched/README.md, every integration test CTest runs is in
# tests/integration/README.md, and docs/architecture.md counts the commands there are.
#   docs_test.sh ROOT
set -u
ROOT="$1"
fail=0
say_fail() { echo "FAIL - $*"; fail=1; }

# Each module declares itself beside its factory; registry.cc lists the declarations.
modules=$(for v in $(sed -n 's/^ *&\(kSchmod[A-Za-z]*\),$/\1/p' "$ROOT/libsched/modules/registry.cc"); do
  grep -h -A1 "ModuleDecl $v{" "$ROOT"/libsched/modules/*.cc | tr -d '\n' |
    sed -n 's/^.*ModuleDecl [A-Za-z]*{ *"\(schmod_[a-z]*\)".*/\1\n/p'
done)
[ -n "$modules" ] || say_fail "no modules found in libsched/modules/registry.cc"
for m in $modules; do
  grep -q "\`$m\`" "$ROOT/libsched/README.md" || say_fail "libsched/README.md does not name module $m"
done

tests=$(sed -n '/^foreach(t /,/)/p' "$ROOT/tests/CMakeLists.txt" | sed 's/^foreach(t //' | tr -d '()')
[ -n "$tests" ] || say_fail "no integration tests found in tests/CMakeLists.txt"
for t in $tests; do
  grep -q "\`${t}_test.sh\`" "$ROOT/tests/integration/README.md" ||
    say_fail "tests/integration/README.md does not describe ${t}_test.sh"
done

commands=$(grep -c '^lsfsched_command(' "$ROOT/cli/CMakeLists.txt")
grep -q "file per command ($commands of them" "$ROOT/docs/architecture.md" ||
  say_fail "docs/architecture.md does not say there are $commands commands"

# The newcomer's guides name the files to touch: each must still be there (a glob must
# match something; the example's own files, bfoo and schmod_example, are the new ones).
for guide in docs/adding-a-module.md docs/adding-a-command.md; do
  [ -f "$ROOT/$guide" ] || { say_fail "$guide is missing"; continue; }
  for path in $(grep -o '`[a-z_.-]*/[a-zA-Z_./*-]*`' "$ROOT/$guide" | tr -d '`' | sort -u); do
    case "$path" in *bfoo* | *schmod_example* | ../*) continue ;; esac
    compgen -G "$ROOT/${path%/}" >/dev/null || say_fail "$guide names $path, which is not in the tree"
  done
done

[ "$fail" = 0 ] && echo "ok   - the docs' lists match the code ($(wc -w <<<"$modules") modules, $(wc -w <<<"$tests") integration tests, $commands commands)"
exit "$fail"
