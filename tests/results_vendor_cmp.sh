#!/usr/bin/env bash
# Own against the faster vendor: at each GEMM point the sweep's closing table
# and the report compare our fastest kernel with the faster of oneDNN's and
# MKL's kernels there (by median), name it, give own/vendor and the other
# vendor beside it; the pick flips when the vendors' figures do; a point
# where no vendor ran says so; a database with oneDNN alone reads as oneDNN.
# Over tests/fixtures/results/vendors.py's made-up sweep (issue #40's table).
. "$(dirname "$0")/lib.sh"
F="${SB_SOURCE_DIR:?}/tests/fixtures/results"
cd "$T"

# mkdb NAME [vendors.py options]: NAME.db with the fixture sweep (sweep 1)
mkdb() {
  local name=$1; shift
  python3 "$F/vendors.py" "$name.json" "$@" || fail "vendors.py $*"
  expect_rc 0 "$SPRBENCH" db import --db "$name.db" "$name.json"
}
# summary NAME: the stored sweep's summary (a resume with nothing left to run)
summary() { expect_rc 0 "$SPRBENCH" sweep --db "$1.db" --resume 1 --no-peak; cp out "$1.sum"; }
# vrow FILE PRECISION SHAPE THREADS REST: a closing-table row
vrow() { expect_grep "^$2 +$3:NN +$4 +1 +1  $5" "$1"; }

# ---- both vendors: MKL the faster at some points, oneDNN at others ----
mkdb both
summary both
S=both.sum
expect_grep '^own against the faster vendor at each point \(medians; own/vendor below 1: ours is behind\):' $S
vrow $S f32 2048x2048x2048 1 'avx512-f32 +200\.0  MKL \(mkl-f32\) +230\.0 +0\.87x  oneDNN \(onednn-f32\) 210\.0$'
vrow $S bf16 2048x2048x2048 1 'amx-bf16 +917\.0  MKL \(mkl-bf16\) +1101\.0 +0\.83x  oneDNN \(onednn-bf16\) 1009\.0$'
vrow $S bf16 3072x768x768 1 'amx-bf16 +1045\.0  oneDNN \(onednn-bf16\) +1346\.0 +0\.78x  MKL \(mkl-bf16\) 1197\.0$'
vrow $S int8 3072x768x768 1 'amx-int8 +2731\.0  oneDNN \(onednn-int8\) +2914\.0 +0\.94x  MKL \(mkl-int8\) 2223\.0$'
# one vendor ran: that one, the other's skip named; own ahead is above 1
vrow $S bf16 2048x2048x2048 2 'amx-bf16 +1800\.0  oneDNN \(onednn-bf16\) +1500\.0 +1\.20x  mkl-bf16 skipped$'
# none ran: said so
vrow $S f32 2048x2048x2048 2 'avx512-f32 +390\.0  no vendor ran \(.*mkl-f32 skipped.*\)$'
grep -A20 '^own against' $S | grep -q 'onednn-f32 skipped' && ok || fail "the skipped onednn-f32 is not named"
# f32, bf16, int8 in that order, 6 rows
[ "$(grep -A20 '^own against' $S | grep -cE '^(f32|bf16|int8) ')" = 6 ] && ok || fail "not 6 rows"
# --json: the same rows
expect_rc 0 "$SPRBENCH" sweep --db both.db --resume 1 --no-peak --json
python3 - out <<'PY' && ok || fail "sweep --json vs_vendor"
import json, sys
d = json.load(open(sys.argv[1]))
rows = {(r['precision'], r['shape'], r['threads']): r for r in d['vs_vendor']}
assert len(rows) == 6, rows
r = rows[('bf16', '2048x2048x2048:NN', 1)]
assert r['own']['kernel'] == 'amx-bf16' and r['own']['vendor'] is None
assert r['vendor'] == {'kernel': 'mkl-bf16', 'vendor': 'MKL', 'median': 1101.0}, r
assert r['other_vendor']['kernel'] == 'onednn-bf16' and abs(r['own_vs_vendor'] - 917 / 1101) < 1e-9
assert r['unit'] == 'GFLOP/s'
r = rows[('int8', '3072x768x768:NN', 1)]
assert r['vendor']['vendor'] == 'oneDNN' and r['unit'] == 'GOP/s'
r = rows[('f32', '2048x2048x2048:NN', 2)]
assert r['vendor'] is None and r['own_vs_vendor'] is None and 'mkl-f32 skipped' in r['not_run']
PY

# the report: each own kernel against the faster vendor, named, own/vendor
expect_rc 0 "$SPRBENCH" report --db both.db --baseline 1 --candidate 1 --out rb --no-plots
R=rb/report.md
expect_grep '^## Own kernels against the faster vendor \(GEMM\)' $R
expect_grep '^### Own kernels against the faster vendor on Sapphire Rapids' $R
expect_grep '^\| bf16 \| 2048x2048x2048:NN \| 1 \| amx-bf16 917 [^|]*GFLOP/s \| MKL \(mkl-bf16\) 1101 [^|]*GFLOP/s \| 0\.83x: behind \(significant[^|]*\| oneDNN \(onednn-bf16\) 1009 ' $R
expect_grep '^\| bf16 \| 3072x768x768:NN \| 1 \| amx-bf16 1045 [^|]* \| oneDNN \(onednn-bf16\) 1346 [^|]* \| 0\.78x: behind [^|]*\| MKL \(mkl-bf16\) 1197 ' $R
expect_grep '^\| bf16 \| 2048x2048x2048:NN \| 2 \| amx-bf16 1800 [^|]* \| oneDNN \(onednn-bf16\) 1500 [^|]* \| 1\.20x: ahead [^|]*\| mkl-bf16 skipped \|' $R
expect_grep '^\| f32 \| 2048x2048x2048:NN \| 2 \| avx512-f32 390 [^|]* \| no vendor ran \([^|]*skipped\) \| - \| - \|' $R
expect_grep '^On Sapphire Rapids( \(AMX\))?, our fastest kernel is 0\.91x the faster vendor \(geometric mean of own/vendor over 5 point\(s\): behind at 4, level or ahead at 1\); the faster vendor was MKL at 2 point\(s\), oneDNN at 3 point\(s\)\.$' $R
# one machine on both sides: said once
[ "$(grep -c '^### Own kernels against the faster vendor' $R)" = 1 ] && ok || fail "the one machine's view twice"

# ---- the vendors' figures swapped: every pick flips ----
mkdb swap --swap
summary swap
S=swap.sum
vrow $S f32 2048x2048x2048 1 'avx512-f32 +200\.0  oneDNN \(onednn-f32\) +230\.0 +0\.87x  MKL \(mkl-f32\) 210\.0$'
vrow $S bf16 2048x2048x2048 1 'amx-bf16 +917\.0  oneDNN \(onednn-bf16\) +1101\.0 +0\.83x  MKL \(mkl-bf16\) 1009\.0$'
vrow $S bf16 3072x768x768 1 'amx-bf16 +1045\.0  MKL \(mkl-bf16\) +1346\.0 +0\.78x  oneDNN \(onednn-bf16\) 1197\.0$'
vrow $S int8 3072x768x768 1 'amx-int8 +2731\.0  MKL \(mkl-int8\) +2914\.0 +0\.94x  oneDNN \(onednn-int8\) 2223\.0$'
expect_rc 0 "$SPRBENCH" report --db swap.db --baseline 1 --candidate 1 --out rs --no-plots
expect_grep '^\| bf16 \| 2048x2048x2048:NN \| 1 \| amx-bf16 917 [^|]* \| oneDNN \(onednn-bf16\) 1101 [^|]* \| 0\.83x: behind [^|]*\| MKL \(mkl-bf16\) 1009 ' rs/report.md
expect_grep '^\| bf16 \| 3072x768x768:NN \| 1 \| amx-bf16 1045 [^|]* \| MKL \(mkl-bf16\) 1346 [^|]* \| 0\.78x' rs/report.md

# ---- oneDNN alone (today's databases): oneDNN at every point ----
mkdb dnn --only-onednn
summary dnn
S=dnn.sum
vrow $S f32 2048x2048x2048 1 'avx512-f32 +200\.0  oneDNN \(onednn-f32\) +210\.0 +0\.95x  -$'
vrow $S bf16 2048x2048x2048 1 'amx-bf16 +917\.0  oneDNN \(onednn-bf16\) +1009\.0 +0\.91x  -$'
vrow $S bf16 2048x2048x2048 2 'amx-bf16 +1800\.0  oneDNN \(onednn-bf16\) +1500\.0 +1\.20x  -$'
vrow $S f32 2048x2048x2048 2 'avx512-f32 +390\.0  no vendor ran \(onednn-f32 skipped\)$'
if grep -A20 '^own against' $S | grep -q 'MKL\|mkl-'; then fail "MKL named without MKL points"; else ok; fi
expect_rc 0 "$SPRBENCH" report --db dnn.db --baseline 1 --candidate 1 --out rd --no-plots
expect_grep '^\| bf16 \| 2048x2048x2048:NN \| 1 \| amx-bf16 917 [^|]* \| oneDNN \(onednn-bf16\) 1009 [^|]* \| 0\.91x: behind [^|]*\| - \|' rd/report.md
expect_grep '^On Sapphire Rapids( \(AMX\))?, our fastest kernel is [0-9.]+x the faster vendor .*; the faster vendor was oneDNN at 5 point\(s\)\.$' rd/report.md

# ---- a sweep without a vendor kernel: no closing table; a report side
# ---- without one says so in a line (machines are named with their AMX state)
expect_rc 0 "$SPRBENCH" db import --db own.db "$F/small_export.json"
summary own
if grep -q '^own against the faster vendor' own.sum; then fail "a closing table without vendors"; else ok; fi
expect_rc 0 "$SPRBENCH" db import --db both.db "$F/small_export.json"
expect_rc 0 "$SPRBENCH" report --db both.db --baseline icl1 --candidate vendorbox --out r2 --no-plots
expect_grep '^[A-Za-z0-9 ]+( \((no )?AMX\))? ran no vendor GEMM kernel \(onednn-\\\*, mkl-\\\*\)\.' r2/report.md
expect_grep '^### Own kernels against the faster vendor on Sapphire Rapids' r2/report.md

finish results_vendor_cmp
