#!/bin/bash
# The gate's verdicts that need no timing: a candidate point that broke is a
# FAIL even when the baseline never had it, and a row about a status shows its
# reason alone (text and JUnit), never "baseline 0, candidate 0, p -1".
. "$SB_SOURCE_DIR/tests/lib.sh"
cd "$T"
SMALL=(--kernels scalar-f32 --threads 1 --reps 6 --no-peak)

# ---- a broken candidate point the baseline never had ----
"$SPRBENCH" sweep --db base.db "${SMALL[@]}" --shapes 16x16x16 >/dev/null 2>&1 || fail "baseline sweep"
"$SPRBENCH" sweep --db cand.db "${SMALL[@]}" --shapes 1024x1024x1024 --point-timeout 1 >/dev/null 2>&1
expect_rc 1 "$SPRBENCH" gate --baseline base.db --candidate cand.db --junit g.xml
expect_grep '^FAIL +gemm +scalar-f32 1024x1024x1024:NN t1 +status .*candidate timeout: .*not in the baseline' out
expect_grep ': FAIL$' out
grep -q 'point not in the baseline (new)' out && fail "a timed-out point is not a new point" || ok
# ---- a status row's JUnit: the reason alone ----
expect_grep '<failure type="regression" message="candidate timeout[^"]*">candidate timeout' g.xml
grep -qE 'baseline 0,|ratio 0\.0000|p -1|samples 0/0' g.xml && fail "a status row shows zeros" || ok
# a new point that ran is still a WARN, exit 0
"$SPRBENCH" sweep --db new.db "${SMALL[@]}" --shapes 16x16x16,24x24x24 >/dev/null 2>&1
expect_rc 0 "$SPRBENCH" gate --baseline base.db --candidate new.db --tolerance 1000%
expect_grep '^WARN .*24x24x24.*point not in the baseline \(new\)' out
finish results_gate_paired
