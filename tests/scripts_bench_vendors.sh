#!/usr/bin/env bash
# scripts/bench-kernels and scripts/bench-amx compare our kernels with the
# faster vendor at each point and name it: MKL where its figure is higher,
# oneDNN where oneDNN's is, the other way round with the figures swapped,
# oneDNN alone where this sprbench has no MKL, and a vendor kernel that
# cannot run here named with its reason. Over a stand-in sprbench with fixed
# rates (tests/fixtures/results/fake-sprbench-vendors): nothing is timed.
. "$(dirname "$0")/lib.sh"
S="${SB_SOURCE_DIR:?}/scripts"
FAKE="$SB_SOURCE_DIR/tests/fixtures/results/fake-sprbench-vendors"
cd "$T"
kern() { expect_rc 0 "$S/bench-kernels" --sprbench "$FAKE" --shapes 64x64x64:NN --threads 1 \
  --reps 7 --rounds 2 --dtypes "f32 bf16 int8 avx2-int8"; cp out "$1"; }
amx() { expect_rc 0 "$S/bench-amx" --sprbench "$FAKE" --threads 1 --rounds 1 \
  --shapes "2048x2048x2048:NN 3072x768x768:NN"; cp out "$1"; }

# ---- both vendors: oneDNN the faster in f32 and int8, MKL in bf16 ----
kern k.txt
expect_grep '^f32 +64x64x64 +NN +1 +200\.0 +80\.0%  oneDNN \(onednn-f32\) +210\.0 +84\.0% +0\.952x  MKL 190\.0 ' k.txt
expect_grep '^bf16 +64x64x64 +NN +1 +400\.0 +20\.0%  MKL \(mkl-bf16\) +1101\.0 +55\.0% +0\.363x  oneDNN 1009\.0 +fake:mkl-bf16$' k.txt
expect_grep '^int8 +64x64x64 +NN +1 +900\.0 +22\.5%  oneDNN \(onednn-int8\) +2914\.0 .* 0\.309x  -' k.txt
# no runnable vendor for this row: said, not compared
expect_grep '^avx2-int8 +64x64x64 +NN +1 +100\.0 +- +- +- +- +- +-' k.txt
expect_grep '^# mkl-int8 not run: no int8 in this MKL \(fake\)$' k.txt
amx a.txt
expect_grep $'^# 1\t2048x2048x2048:NN\tamx-bf16 917\\.0 vs MKL \\(mkl-bf16\\) 1101\\.0: 0\\.83x\tother: oneDNN \\(onednn-bf16\\) 1009\\.0$' a.txt
expect_grep $'^# 1\t3072x768x768:NN\tamx-int8 2731\\.0 vs oneDNN \\(onednn-int8\\) 2914\\.0: 0\\.94x\tother: MKL \\(mkl-int8\\) not run$' a.txt
expect_grep '^# mkl-int8 not run: no int8 in this MKL \(fake\)$' a.txt
expect_grep $'^1\t2048x2048x2048:NN\tmkl-bf16\t1101' a.txt

# ---- the figures swapped: every pick flips ----
export FAKE_SWAP=1
kern ks.txt
expect_grep '^f32 +64x64x64 +NN +1 +200\.0 +80\.0%  MKL \(mkl-f32\) +210\.0 +84\.0% +0\.952x  oneDNN 190\.0 ' ks.txt
expect_grep '^bf16 +64x64x64 +NN +1 +400\.0 +20\.0%  oneDNN \(onednn-bf16\) +1101\.0 +55\.0% +0\.363x  MKL 1009\.0 ' ks.txt
amx as.txt
expect_grep $'^# 1\t2048x2048x2048:NN\tamx-bf16 917\\.0 vs oneDNN \\(onednn-bf16\\) 1101\\.0: 0\\.83x\tother: MKL \\(mkl-bf16\\) 1009\\.0$' as.txt
unset FAKE_SWAP

# ---- no MKL in this sprbench (today's build): oneDNN, as before ----
export FAKE_NO_MKL=1
kern kn.txt
expect_grep '^bf16 +64x64x64 +NN +1 +400\.0 +20\.0%  oneDNN \(onednn-bf16\) +1009\.0 +50\.5% +0\.396x  - +fake:onednn-bf16$' kn.txt
expect_grep '^# mkl-bf16 not run: not in this sprbench$' kn.txt
amx an.txt
expect_grep $'^# 1\t2048x2048x2048:NN\tamx-bf16 917\\.0 vs oneDNN \\(onednn-bf16\\) 1009\\.0: 0\\.91x\tother: MKL \\(mkl-bf16\\) not run$' an.txt
if grep -q $'\tmkl-' an.txt; then fail "bench-amx ran an MKL kernel this sprbench lacks"; else ok; fi
unset FAKE_NO_MKL

# scripts/bench-vendors: bad input is one line and exit 2, before anything
# is built or timed
for bad in "--shapes 12x34" "--shapes 0x8x8" "--dtypes f64" "--seconds abc" "--seconds 0" \
           "--rounds 0" "--threads x" "--bogus"; do
  # shellcheck disable=SC2086
  expect_rc 2 "$S/bench-vendors" --sprbench "$FAKE" $bad
  expect_one_error_line '^bench-vendors: '
done
expect_rc 2 "$S/bench-vendors" --shapes
expect_one_error_line '^bench-vendors: --shapes needs a value'
finish scripts_bench_vendors
