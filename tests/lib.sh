# Shared by the bash tests: a temp dir removed on exit, and assertions that
# say what they expected.
set -u
SPRBENCH=${SPRBENCH:?SPRBENCH must name the sprbench binary}
T=$(mktemp -d /tmp/sb-test-XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
checks=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
ok() { checks=$((checks + 1)); }
# expect_rc RC CMD... : runs CMD, checks its exit status; stdout/stderr in $T/out, $T/err
expect_rc() {
  local want=$1; shift
  "$@" >"$T/out" 2>"$T/err"; local got=$?
  if [ "$got" -ne "$want" ]; then
    fail "expected exit $want, got $got: $*"; sed 's/^/  stderr: /' "$T/err" | head -5 >&2
  else ok; fi
}
# expect_one_error_line PATTERN : stderr is exactly one line matching PATTERN
expect_one_error_line() {
  local n; n=$(wc -l <"$T/err")
  if [ "$n" -ne 1 ] || ! grep -qE "$1" "$T/err"; then
    fail "expected one stderr line matching /$1/, got $n line(s):"; sed 's/^/  /' "$T/err" | head -5 >&2
  else ok; fi
}
expect_grep() { if grep -qE -- "$1" "$2"; then ok; else fail "no /$1/ in $2"; head -20 -- "$2" >&2; fi; }
finish() { echo "$1: $checks checks, $fails failed"; [ "$fails" -eq 0 ]; }
