#!/usr/bin/env bash
# "What AMX gives", like for like (#41), over the shipped records: the same
# Emerald Rapids model without AMX and with it leads with the gain AMX gives
# on the AMX guest alone; rows name their mismatches (batch, tool version),
# carry spreads and noisy flags; a vendor kernel whose stored impl names AMX
# competes for the AMX column; a kernel without AMX that differs between the
# sides is said not to be AMX; one paragraph relates the gains to the study's
# 8x, the computed figure labelled projected.
. "$(dirname "$0")/lib.sh"
cd "$T"
import_shipped_records m.db

# ---- the same model, no AMX -> AMX ----
expect_rc 0 "$SPRBENCH" report --db m.db --baseline "$noamx" --candidate emerald-rapids-amx --out r1 --no-plots
R=r1/report.md
# the report leads with the same-machine gain, before the headline's cross-side ratio
lead=$(grep -n '^First, what AMX gives: both sides are one CPU model (family 6 model 207), with AMX on the candidate only' $R | cut -d: -f1)
head=$(grep -n '^## Headline' $R | cut -d: -f1)
[ -n "$lead" ] && [ -n "$head" ] && [ "$lead" -lt "$head" ] && ok || fail "no lead with the same-machine AMX gain before the headline ($lead, $head)"
expect_grep 'On Emerald Rapids \(AMX\) alone, like for like, AMX gives [0-9.]+x \[[0-9.]+, [0-9.]+\] in training \(amx-bf16 against avx512-f32, batch 8, seq 384, 2 threads, one tool version: like for like\)' $R
expect_grep '^### What AMX gives on Emerald Rapids \(AMX\)' $R
expect_grep '^The same CPU model \(family 6 model 207\) without AMX \(Emerald Rapids \(no AMX\)\) and with it' $R
# a kernel without AMX that is faster on the candidate: that part is not AMX
expect_grep 'avx512-f32 is already 1\.[0-9]+x \[[0-9.]+, [0-9.]+\] faster on the candidate \(training, batch 8, seq 384, 2 threads, tool version [^)]*\): that much of the gap is not AMX' $R
expect_grep "^The headline's [0-9.]+x, taken apart \\(projected: a product of measured ratios\\): [0-9.]+x is avx512-f32 itself running faster on the candidate \\(not AMX" $R
# the best AMX implementation of a precision, own or vendor, named with its impl
expect_grep '^\| gemm (bf16|int8) \| [^|]+ \| [12] \| oneDNN onednn-(bf16|int8) \(brg:avx512_core_amx_(bf16|int8)\) [0-9.]+ \[' $R
# spreads and noisy flags in the GEMM rows
expect_grep '^\| gemm bf16 \| 1024x1024x1024:NN \| 2 \| [^|]+ [0-9.]+ \[[0-9.]+, [0-9.]+\] GFLOP/s \| [^|]+ \| [0-9.]+x \[[0-9.]+, [0-9.]+\]' $R
# a point whose samples form two groups is flagged in its row (made so in a copy)
cp m.db noisy.db
sqlite3 noisy.db "UPDATE sample SET seconds = CASE WHEN rep % 2 = 0 THEN 0.004 ELSE 0.008 END WHERE point_id IN
  (SELECT id FROM point WHERE workload = 'gemm' AND dtype = 'bf16' AND threads = 1
   AND shape LIKE '1024x1024x1024%' AND (kernel = 'amx-bf16' OR kernel = 'onednn-bf16'))"
expect_rc 0 "$SPRBENCH" report --db noisy.db --baseline "$noamx" --candidate emerald-rapids-amx --out rn --no-plots
expect_grep '^\| gemm bf16 \| 1024x1024x1024:NN \| 1 \| .* \(noisy: samples in two groups, not a finding\) \|' rn/report.md
# training rows: like for like, or the mismatch named in the row
expect_grep '^\| 8 x 384 \| 2 \| amx-bf16 [0-9]+ h [0-9]+ min \[[^]]+\] \(SQuAD epoch, projected\) \| avx512-f32 .* \| yes \|$' $R
expect_grep '^\| 4 x 384 \| 2 \| amx-bf16 .* \| no: [^|]*batch 4 vs 8[^|]*tool version [^|]+ \|$' $R
# three-step runs: no test on two steady steps, said in the ratio
expect_grep '^\| 8 x 384 \| 2 \| .* \| [0-9.]+x \[[0-9.]+, [0-9.]+\] \(2 and 2 steady steps: too few for a test\) \|' $R
# no row sets batch 4 against batch 8 without saying so (the old section did)
if grep -E '^Training on .*per kernel:' $R >/dev/null; then fail "the old run-on training sentence"; else ok; fi
# the study's 8x, the computed part labelled projected
expect_grep "^Against the study's 8x \\(results/reference/study.csv: one Ice Lake node 3 h 30 min, one Sapphire Rapids node 26 min.*cores, clock, memory.*precision and AMX.*would have to give [0-9.]+x \\(projected: 8 / [0-9.]+\\)" $R
[ "$(grep -c '^### What AMX gives' $R)" -eq 1 ] && ok || fail "What AMX gives on the no-AMX side"

# ---- two models: Zen 4 -> Emerald Rapids (AMX): no same-model lead, the gains still first ----
expect_rc 0 "$SPRBENCH" report --db m.db --baseline "$zen4" --candidate "$amx" --out r2 --no-plots
R=r2/report.md
if grep -q '^First, what AMX gives' $R; then fail "a same-model lead for two models"; else ok; fi
expect_grep '^Emerald Rapids \(AMX\) ran AMX and Zen 4 \(no AMX\) did not: what AMX gives is measured on Emerald Rapids \(AMX\) alone, like for like: [0-9.]+x' $R
expect_grep '^Kernels that do not use AMX, on both sides: ' $R
# the headline's ratio is taken apart only where a run without AMX of the
# baseline's kernel ran on the candidate at its configuration: else said why
expect_grep "^The headline's [0-9.]+x (, taken apart \\(projected|sets amx-bf16 on the candidate against [a-z0-9-]+ on the baseline; it cannot be taken apart)" $R

finish results_report_amx
