#!/usr/bin/env bash
# plots/ templates and plots at scale, on a synthetic Sapphire Rapids-like
# database (scripts/gen-synthetic-db, imported through `db import`): 9
# kernels x threads 1..56 with a peak probe, a training sweep over 1-8 nodes
# with projections, an inference sweep (8 kernels x threads 1..56 x batch 1,
# 8, 32), and five older sweeps whose amx-bf16 56-thread point regressed at
# v0.1.3. Checks the scripts and data written beside each
# image, the templates' search order and refusals, `plot --history`, `gate
# --history`, and what `cmake --install` puts where.
. "$(dirname "$0")/lib.sh"
command -v gnuplot >/dev/null || skip "gnuplot not found"
command -v python3 >/dev/null || skip "python3 not found"
SRC=${SB_SOURCE_DIR:?}
DB="$T/s.db"
expect_rc 0 python3 "$SRC/scripts/gen-synthetic-db" "$DB" --sprbench "$SPRBENCH"
expect_grep '703 point\(s\) added' "$T/out"

# --- throughput and speedup at 56 threads x 9 kernels (sweep 6) ---
expect_rc 0 "$SPRBENCH" plot --db "$DB" --sweep 6 --out "$T/g"
[ "$(wc -l <"$T/out")" -eq 8 ] && ok || fail "expected 8 files (2 figures x png svg gp dat)"
TP="$T/g/throughput-1024x1024x1024_NN"
SP="$T/g/speedup-1024x1024x1024_NN"
# readable ticks: powers of two on a log axis, and the largest count
expect_grep '^set logscale x 2$' "$TP.gp"
expect_grep '^set xtics \(1, 2, 4, 8, 16, 32, 56\)$' "$TP.gp"
# 100x between scalar and AMX: log y by itself; linear on request
expect_grep '^set logscale y 10$' "$TP.gp"
expect_rc 0 "$SPRBENCH" plot --db "$DB" --sweep 6 --out "$T/lin" --y-scale linear
! grep -q 'logscale y' "$T/lin/throughput-1024x1024x1024_NN.gp" && ok || fail "--y-scale linear drew log y"
expect_rc 2 "$SPRBENCH" plot --db "$DB" --out "$T/x" --y-scale loglog
expect_one_error_line '^sprbench plot: --y-scale: auto, linear or log'
# a colour and a point type of its own per kernel
n=$(grep -o "\$d[0-9]* using 1:2:3:4 with yerrorlines lw 2 lc rgb \"#[0-9a-f]*\" pt [0-9]*" "$TP.gp" |
    sed 's/.*lc rgb//' | sort -u | wc -l)
[ "$n" -eq 9 ] && ok || fail "9 kernels should have 9 distinct colour+point pairs, got $n"
n=$(grep -o "\$d[0-9]* using 1:2:3:4 with yerrorlines lw 2 lc rgb \"#[0-9a-f]*\"" "$TP.gp" | sed 's/.*rgb //' | sort -u | wc -l)
[ "$n" -eq 9 ] && ok || fail "9 kernels should have 9 distinct colours, got $n"
# the measured peak of each instruction path, from the peak probe
expect_grep 'peak amx_bf16, measured: 1900 GFLOP/s/core' "$TP.svg"
expect_grep 'peak int8, measured: 480 GOP/s/core' "$TP.svg"
# the speedup and efficiency panels: spread columns and the ideal line
expect_grep 'using 1:2:3:4 with yerrorlines' "$SP.gp"
expect_grep 'using 1:5:6:7 with yerrorlines' "$SP.gp"
expect_grep 'ideal \(linear\)' "$SP.svg"
# the data beside the image: one block per kernel, numbers only
[ "$(grep -c '^# \$d' "$TP.dat")" -eq 9 ] && ok || fail "throughput .dat: 9 kernel blocks expected"
! grep -v '^#' "$TP.dat" | grep -qvE '^([-0-9.e+]+|NaN)( ([-0-9.e+]+|NaN))*$|^$' && ok || fail ".dat holds non-numbers"
# the script beside the image draws it again without sprbench
gnuplot "$SP.gp" >"$T/again.png" 2>"$T/gp.err" && [ -s "$T/again.png" ] && ok || fail "speedup .gp does not draw: $(head -2 "$T/gp.err")"

# --- the training sweep: DistilBERT-base seq 384, so the study is overlaid ---
expect_rc 0 "$SPRBENCH" plot --db "$DB" --sweep 7 --out "$T/t"
expect_grep 'published study \(SPR bf16, HF blog 2023; published figures, not measured here\)' "$T/t/scaling-nodes.svg"
expect_grep 'amx-bf16, 2 rank\(s\)/node, projected \(model, not measured\)' "$T/t/scaling-ranks.svg"
expect_grep 'ideal \(1/ranks from the fewest-ranks measured point\)' "$T/t/scaling-ranks.svg"
expect_grep '^set key below' "$T/t/scaling-nodes.gp"

# --- the inference sweep: throughput per batch, latency, accuracy per precision ---
expect_rc 0 "$SPRBENCH" plot --db "$DB" --sweep 8 --out "$T/i"
[ "$(wc -l <"$T/out")" -eq 32 ] && ok || fail "expected 32 files (3 batches x 2 + 2 figures, x 4)"
for b in 1 8 32; do
  F="$T/i/throughput-model_distilbert-base_batch_${b}_seq_384"
  expect_grep '^set ylabel "sequences/s \(median, p10-p90\), log scale"' "$F.gp"
  [ "$(grep -c '^# \$d' "$F.dat")" -eq 8 ] && ok || fail "batch $b: 8 kernel blocks expected"
done
L="$T/i/latency"
expect_grep '^set xtics \(1, 2, 4, 8, 16, 32, 56\)$' "$L.gp"
expect_grep '^set logscale y 10$' "$L.gp"
expect_grep 'using 1:2:2:4 with yerrorlines' "$L.gp"
# one block per kernel, one row per thread count (the batch-1 point of each)
[ "$(grep -c '^# \$l' "$L.dat")" -eq 8 ] && ok || fail "latency: 8 kernel blocks expected"
[ "$(grep -cE '^[0-9]+ .* 1$' "$L.dat")" -eq 56 ] && ok || fail "latency: 8 x 7 rows at batch 1 expected"
A="$T/i/accuracy"
expect_grep '^set x2tics \("f32" [0-9.]+, "bf16" [0-9.]+, "int8" [0-9.]+\)$' "$A.gp"
expect_grep '^set xtics \("avx2-f32" 0, "avx512-f32" 1, "avx512-bf16" 2.6, ' "$A.gp"
[ "$(grep -v '^#' "$A.dat" | grep -c .)" -eq 8 ] && ok || fail "accuracy: 8 kernels expected"
expect_grep '^5.92 77 6.2 85.2 6.48 96.8 1 1$' "$A.dat"
for f in latency accuracy; do
  [ -s "$T/i/$f.png" ] && [ -s "$T/i/$f.svg" ] && ok || fail "$f image missing"
  gnuplot "$T/i/$f.gp" >"$T/again.png" 2>"$T/gp.err" && [ -s "$T/again.png" ] && ok ||
    fail "$f.gp does not draw: $(head -2 "$T/gp.err")"
done
expect_grep 'same answer as f32' "$A.svg"

# --- history: the amx-bf16 56-thread point over six versions ---
expect_rc 0 "$SPRBENCH" plot --db "$DB" --history --kernel amx-bf16 --threads 56 --shape 1024x1024x1024:NN --out "$T/h"
H="$T/h/history-gemm-amx-bf16-1024x1024x1024_NN-56t-1x1"
for x in png svg gp dat; do [ -s "$H.$x" ] && ok || fail "history .$x missing"; done
expect_grep 'v0.1.0 2026-11-20' "$H.svg"
expect_grep 'v0.1.5 2026-11-28' "$H.svg"
[ "$(grep -v '^#' "$H.dat" | grep -c .)" -eq 6 ] && ok || fail "history: 6 sweeps expected"
# the shape without its transposes is :NN, as sweep --shapes reads it; the
# y axis names the unit
expect_rc 0 "$SPRBENCH" plot --db "$DB" --history --kernel amx-bf16 --threads 56 --shape 1024x1024x1024 --out "$T/h1"
[ -s "$T/h1/history-gemm-amx-bf16-1024x1024x1024_NN-56t-1x1.png" ] && ok || fail "history without :NN"
expect_grep 'gflops, GFLOP/s' "$T/h1/history-gemm-amx-bf16-1024x1024x1024_NN-56t-1x1.gp"
expect_rc 2 "$SPRBENCH" plot --db "$DB" --history --kernel amx-bf16 --out "$T/h2"
expect_one_error_line '^sprbench plot: --history needs --kernel K and --threads T'
expect_rc 2 "$SPRBENCH" plot --db "$DB" --kernel amx-bf16 --out "$T/h2"
expect_one_error_line 'go with --history'
expect_rc 2 "$SPRBENCH" plot --db "$DB" --history --kernel nope --threads 56 --shape 1024x1024x1024:NN --out "$T/h2"
expect_one_error_line '^sprbench plot: no sweep on this machine has gflops for gemm nope'

# --- gate names the last version that passed ---
expect_rc 1 "$SPRBENCH" gate --db "$DB" --baseline 1 --candidate 6 --history
expect_grep '^FAIL .*amx-bf16 1024x1024x1024:NN t56' "$T/out"
expect_grep '^history: amx-bf16 1024x1024x1024:NN t56 seconds: last passed at tool version v0.1.2 \(sweep 3, 2026-11-22\); first not passing: v0.1.3 \(sweep 4, 2026-11-23\)' "$T/out"
expect_rc 0 "$SPRBENCH" gate --db "$DB" --baseline 4 --candidate 5 --history
! grep -q '^history:' "$T/out" && ok || fail "history lines without a FAIL"
expect_rc 2 "$SPRBENCH" gate --db "$DB" --references /dev/null --candidate 6 --history
expect_one_error_line '^sprbench gate: --history goes with --baseline'

# --- templates: the option, then the environment, then the source tree ---
cp -r "$SRC/plots" "$T/mine"
sed -i "s/^set ylabel {{ylabel}}$/set ylabel 'threads (restyled)'/" "$T/mine/throughput.gp"
expect_rc 0 "$SPRBENCH" plot --db "$DB" --sweep 6 --out "$T/r1" --templates "$T/mine"
expect_grep 'threads \(restyled\)' "$T/r1/throughput-1024x1024x1024_NN.svg"
SPRBENCH_PLOTS="$T/mine" expect_rc 0 "$SPRBENCH" plot --db "$DB" --sweep 6 --out "$T/r2"
expect_grep 'threads \(restyled\)' "$T/r2/throughput-1024x1024x1024_NN.svg"
SPRBENCH_PLOTS="$T/mine" expect_rc 0 "$SPRBENCH" plot --db "$DB" --sweep 6 --out "$T/r3" --templates "$SRC/plots"
! grep -q 'restyled' "$T/r3/throughput-1024x1024x1024_NN.svg" && ok || fail "--templates did not win over SPRBENCH_PLOTS"
expect_rc 2 "$SPRBENCH" plot --db "$DB" --sweep 6 --out "$T/r4" --templates "$T/none"
expect_one_error_line "^sprbench plot: --templates $T/none: no throughput.gp there"
# a template that would run, read or write something is refused, naming its
# line: gnuplot's abbreviations (set pr = set print, set o = set output),
# string expressions ([a:b] substrings, sprintf, concatenation), files read
# by plot, and a placeholder inside a quoted string, whose value would be
# read as code (issue 25)
for bad in "set title system('touch $T/ran')" "set output '$T/ran'" 'set title `touch ran`' \
           "load '$T/x'" "print 1" "set pr 'x|touch $T/ran'[2:]" "set o 'x|touch $T/ran'[2:]" \
           "set o '$T/ran'" "plot {{series}}, '/etc/hostname'" "set title 'Machine: {{machine}}'" \
           "set title \"Machine: {{machine}}\"" "set title sprintf('%s', 'x')" \
           "set title 'a'.'|b'[1:2]" "set title ''''" 'set title "\140"' \
           "set palette file '$T/x'" "set title 'a'; print 1" "set ti 'a'" \
           "set title {{title}}{{machine}}" "set title 'x' @m" "set title GPVAL_PWD" \
           "set xrange [0:1] '<touch $T/ran'" "set title 'x' . {{title}}[2:3]"; do
  cp "$SRC/plots/throughput.gp" "$T/mine/throughput.gp"
  printf '%s\n' "$bad" >>"$T/mine/throughput.gp"
  expect_rc 2 "$SPRBENCH" plot --db "$DB" --sweep 6 --out "$T/r5" --templates "$T/mine"
  expect_one_error_line "^sprbench plot: plot template $T/mine/throughput.gp:[0-9]+ refused"
done
[ ! -e "$T/ran" ] && [ ! -e ran ] && ok || fail "a refused template ran"
# a placeholder in a place for another kind of value: text in a range, a
# clause in a title, text as what is plotted
for bad in "set xrange [{{title}}:1]" "set title {{series}}" "plot {{title}}"; do
  cp "$SRC/plots/throughput.gp" "$T/mine/throughput.gp"
  printf '%s\n' "$bad" >>"$T/mine/throughput.gp"
  expect_rc 2 "$SPRBENCH" plot --db "$DB" --sweep 6 --out "$T/r5" --templates "$T/mine"
  expect_one_error_line 'cannot go there'
done
# what a restyled template may hold: double-quoted text with \n, keywords
# spelled out, a comment after a command, a range with * and a signed number
cp "$SRC/plots/throughput.gp" "$T/mine/throughput.gp"
printf '%s\n' "set key title \"kernels: it's\\nhere\" # mine" "set grid ytics lw 0.5" \
  "set offsets 0, 0, 0.1, 0" >>"$T/mine/throughput.gp"
sed -i 's/^plot /set xrange [*:+1e3]\nplot /' "$T/mine/throughput.gp"
expect_rc 0 "$SPRBENCH" plot --db "$DB" --sweep 6 --out "$T/r7" --templates "$T/mine"
! grep -q '# mine' "$T/r7/throughput-1024x1024x1024_NN.gp" && ok || fail "a trailing comment reached the script"
expect_grep '^set key title "kernels: it.s\\nhere"$' "$T/r7/throughput-1024x1024x1024_NN.gp"
cp "$SRC/plots/throughput.gp" "$T/mine/throughput.gp"
echo 'set title {{nosuch}}' >>"$T/mine/throughput.gp"
expect_rc 2 "$SPRBENCH" plot --db "$DB" --sweep 6 --out "$T/r6" --templates "$T/mine"
expect_one_error_line 'unknown placeholder \{\{nosuch\}\}'

# --- installed: the binary and the templates under the prefix ---
if [ -n "${SB_BINARY_DIR:-}" ] && command -v cmake >/dev/null; then
  expect_rc 0 cmake --install "$SB_BINARY_DIR" --prefix "$T/inst"
  [ -x "$T/inst/bin/sprbench" ] && ok || fail "sprbench not installed"
  for f in throughput.gp speedup.gp scaling-nodes.gp scaling-ranks.gp history.gp report-bars.gp \
           report-scaling.gp latency.gp accuracy.gp; do
    [ -s "$T/inst/share/sprbench/plots/$f" ] && ok || fail "$f not installed"
  done
fi
finish harness_plot_templates
