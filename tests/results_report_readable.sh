#!/usr/bin/env bash
# A report a reader can find their way in (#41): a table of contents with
# anchors in the HTML; --only-changed; batch in the training chart's labels;
# the environment diff limited to the variables a workload reads; baseline
# and candidate in every two-sided header; no "not significant" beside a p
# below alpha; a vendor kernel's implementation in its rows. Over the shipped
# records, with a few values changed in a copy where a case needs them.
. "$(dirname "$0")/lib.sh"
cd "$T"
import_shipped_records m.db

# gnuplot as sprbench runs it, each script kept (nothing drawn)
mkdir scripts
cat >gp <<EOF2
#!/bin/bash
cat >"$T/scripts/\$(ls "$T/scripts" | wc -l).gp"
EOF2
chmod +x gp

# ---- the same model without and with AMX ----
SB_GNUPLOT="$T/gp" expect_rc 0 "$SPRBENCH" report --db m.db --baseline "$noamx" --candidate emerald-rapids-amx --out r1
R=r1/report.md H=r1/report.html
# a table of contents whose every link lands on a heading's anchor
expect_grep '^<nav id="contents"><p><b>Contents</b></p>$' $H
expect_grep '<li><a href="#what-amx-gives-on-emerald-rapids-amx">What AMX gives on Emerald Rapids \(AMX\)</a></li>' $H
expect_grep '<h3 id="what-amx-gives-on-emerald-rapids-amx">What AMX gives on Emerald Rapids \(AMX\)</h3>' $H
bad=0
for a in $(grep -o 'href="#[^"]*"' $H | sed 's/href="#//; s/"$//'); do
  grep -q "id=\"$a\"" $H || { bad=1; echo "no anchor $a" >&2; }
done
[ $bad -eq 0 ] && ok || fail "a contents link without its anchor"
[ "$(grep -c '^<h[23]>' $H)" -eq 0 ] && ok || fail "a section heading without an anchor"
# training chart labels name the batch: two amx-bf16 t2 runs of batch 4 and 8
cat scripts/*.gp >all.gp
expect_grep 'amx-bf16 b4 s384 t2' all.gp
expect_grep 'amx-bf16 b8 s384 t2' all.gp
# every two-sided header says which side: the profile's, with a side without one
expect_grep '^\| layer kind \| baseline, Emerald Rapids \(no AMX\): [a-z0-9-]+ model=distilbert-base batch=8 seq=384 t2 \(s per step, share\) \| candidate, Emerald Rapids \(AMX\): no train --profile run \| candidate vs baseline \|' $R
# wording never contradicts its numbers: no "not significant" beside a p below alpha
if grep -oE 'not significant, p = [0-9.e+-]+' $R | awk -F'p = ' '$2 < 0.01 {f=1} END {exit !f}'; then
  fail "'not significant' beside p < 0.01"; else ok; fi
expect_grep 'within the 5 % tolerance, p = [0-9.e-]+' $R

# ---- Zen 4 -> Emerald Rapids (AMX): vendor implementations, environment ----
expect_rc 0 "$SPRBENCH" report --db m.db --baseline "$zen4" --candidate "$amx" --out r2 --no-plots
R=r2/report.md
expect_grep '^\| onednn-int8 \(baseline brg:avx512_core_vnni, candidate brg:avx512_core_amx_int8\) \| int8 \| 1024x1024x1024:NN \|' $R
expect_grep '^\| onednn-f32 \(brg:avx512_core\) \| f32 \|' $R
expect_grep 'oneDNN \(onednn-bf16\) \[brg:avx512_core_amx_bf16\] [0-9.]+ ' $R
# SB_TRAIN_BATCH (scripts/run-sweep's, recorded on the Zen 4 points) is read by no workload
if grep -q 'SB_TRAIN_BATCH' $R; then fail "SB_TRAIN_BATCH listed as an environment difference"; else ok; fi
# a variable GEMM reads is still a difference there, one only training reads is not
cp m.db env.db
sqlite3 env.db "UPDATE point SET result_json = json_set(result_json, '\$.env.SB_GEMM_MC', '64',
  '\$.env.SB_ATTN_ROWS', '8') WHERE workload = 'gemm' AND machine_id =
  (SELECT machine_id FROM point WHERE kernel = 'amx-bf16' AND status = 'ok' LIMIT 1)"
expect_rc 0 "$SPRBENCH" report --db env.db --baseline "$zen4" --candidate "$amx" --out r3 --no-plots
expect_grep '^environment differs in [0-9]+ of [0-9]+ compared point pair\(s\).*: SB_GEMM_MC \(baseline unset, candidate .64.\)\.$' r3/report.md
if grep -q 'SB_ATTN_ROWS' r3/report.md; then fail "SB_ATTN_ROWS listed on GEMM points"; else ok; fi

# ---- --only-changed: said at the top, only rows beyond the tolerance or significant ----
expect_rc 0 "$SPRBENCH" report --db m.db --baseline "$zen4" --candidate "$amx" --out r4 --no-plots --only-changed
R=r4/report.md
expect_grep '^Only what changed \(--only-changed\): the per-point tables .* show [0-9]+ of their [0-9]+ row\(s\)' $R
[ "$(grep -n '^Only what changed' $R | cut -d: -f1)" -lt "$(grep -n '^## Headline' $R | cut -d: -f1)" ] && ok || fail "--only-changed not said at the top"
all=$(awk '/^## GEMM throughput/,/^## Scaling/' r2/report.md | grep -c '^| ')
some=$(awk '/^## GEMM throughput/,/^## Scaling/' $R | grep -c '^| ')
[ "$some" -lt "$all" ] && ok || fail "--only-changed kept every GEMM row ($some of $all)"
# no row left that is both within the tolerance and not significant
if awk '/^## GEMM throughput/,/^## Scaling/' $R | grep -E '\| (same \([0-9.]+x\)|1\.0[0-4]x (faster|slower)) \((not significant|not tested)'; then
  fail "--only-changed kept an unchanged row"; else ok; fi
# nor a row one side did not run
if awk '/^## GEMM throughput/,/^## Scaling/' $R | grep -E '^\| amx-'; then fail "--only-changed kept a one-sided row"; else ok; fi
expect_rc 0 "$SPRBENCH" report --help
expect_grep '^  \-\-only-changed  the per-point tables' out

finish results_report_readable
