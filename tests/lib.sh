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
# skip REASON: this test cannot run on this machine; ctest shows it skipped
# (SKIP_RETURN_CODE 77) with the reason, it never passes vacuously.
skip() { echo "SKIP: $*"; exit 77; }
# kernel_available NAME: whether `sprbench info` says this machine runs it
# (the SB_FORCE_NO_* variables in the environment count, as for any run).
kernel_available() {
  [ -s "$T/.info.json" ] || "$SPRBENCH" info --json >"$T/.info.json" || return 1
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
sys.exit(0 if any(k["name"] == sys.argv[2] and k["available"] for k in d["kernels"]) else 1)' \
    "$T/.info.json" "$1"
}
# first_available K...: the first of the kernels this machine runs, "" if none
first_available() { local k; for k in "$@"; do kernel_available "$k" && { echo "$k"; return 0; }; done; echo ""; }
# best_f32_kernel: the f32 kernel `sprbench train` picks by default here
best_f32_kernel() { first_available avx512-f32 avx2-f32 onednn-f32 scalar-f32; }
# import_shipped_records DB: the shipped records the report tests compare
# (Emerald Rapids without AMX, with AMX at batch 8 and at batch 4, Zen 4)
# into DB; their paths in $noamx, $amx, $amx4, $zen4
import_shipped_records() {
  local M="${SB_SOURCE_DIR:?}/results/machines"
  noamx="$M/emr-xeon-noamx-2026-12-03.json"
  amx="$M/emr-xeon-amx-b8-2026-12-01.json"
  amx4="$M/emr-xeon-2026-12-01-amx.json"
  zen4="$M/zen4-epyc-2026-12-03.json"
  expect_rc 0 "$SPRBENCH" db import --db "$1" "$noamx" "$amx" "$amx4" "$zen4"
}
