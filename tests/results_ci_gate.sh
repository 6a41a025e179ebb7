#!/bin/bash
# scripts/ci-gate end to end with tiny sweeps: mode A (two binaries, here the
# same one, interleaved) and mode B (stored baseline: created, then gated,
# then updated). Verdicts depend on timing, so only their form is checked.
. "$SB_SOURCE_DIR/tests/lib.sh"
CI="$SB_SOURCE_DIR/scripts/ci-gate"
cd "$T"
ARGS=(-- --kernels scalar-f32 --threads 1 --shapes 16x16x16 --reps 6 --no-peak)
expect_rc 0 "$CI" --help; expect_grep 'Mode A|mode A' out
expect_rc 2 "$CI" --candidate-bin "$SPRBENCH"; expect_grep 'baseline-bin' err
expect_rc 2 "$CI" --candidate-bin /nonexistent --baseline-db x.db

"$CI" --baseline-bin "$SPRBENCH" --candidate-bin "$SPRBENCH" --rounds 2 --work a "${ARGS[@]}" >out 2>err
rc=$?
[ $rc -le 1 ] && ok || fail "mode A exit $rc"
expect_grep '^gate: 1 compared' out
[ -s a/gate.xml ] && ok || fail "mode A wrote no JUnit"
# both sides hold both rounds, pooled: 12 samples per side
expect_grep ' 12/12 ' out
expect_grep '^ci-gate: 2-round gate took [0-9]+\.[0-9]{3} s$' out

expect_rc 0 "$CI" --baseline-db store/base.db --candidate-bin "$SPRBENCH" --rounds 2 --work b "${ARGS[@]}"
expect_grep 'no baseline yet' out
[ -f store/base.db ] && ok || fail "baseline not created"
"$CI" --baseline-db store/base.db --candidate-bin "$SPRBENCH" --rounds 1 --work b \
  --update-baseline --junit b.xml "${ARGS[@]}" >out 2>err
rc=$?
[ $rc -le 1 ] && ok || fail "mode B exit $rc"
expect_grep '^gate: 1 compared' out
[ -s b.xml ] && ok || fail "mode B wrote no JUnit"
if [ $rc -eq 0 ]; then
  expect_grep 'baseline store/base.db replaced' out
  "$SPRBENCH" db sweeps --db store/base.db >out
  [ "$(grep -c 'candidate round' out)" -eq 1 ] && ok || fail "updated baseline should hold one round"
fi
finish results_ci_gate
