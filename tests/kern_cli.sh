#!/usr/bin/env bash
# sprbench peak and the kernels as a user meets them: help, the result file,
# skip reasons (forced with SB_FORCE_NO_*), bad input, and `sprbench gemm`
# on every registered kernel (ok or skipped, never a crash).
. "$(dirname "$0")/lib.sh"

expect_rc 0 "$SPRBENCH" peak --help
expect_grep 'usage: sprbench peak' "$T/out"
expect_grep 'amx_int8_gops' "$T/out"

expect_rc 2 "$SPRBENCH" peak --bogus
expect_one_error_line '^sprbench peak: .*--bogus'
expect_rc 2 "$SPRBENCH" peak --threads 0
expect_one_error_line '^sprbench peak: .*--threads'
expect_rc 2 "$SPRBENCH" peak --seconds abc
expect_one_error_line '^sprbench peak: .*--seconds'
expect_rc 2 "$SPRBENCH" peak extra
expect_one_error_line '^sprbench peak: '

# the result file: one JSON object, every metric either measured or skipped
expect_rc 0 "$SPRBENCH" peak --threads 2 --seconds 0.03 --result-file "$T/peak.json"
expect_grep '"workload": "peak"' "$T/peak.json"
expect_grep '"threads": 2' "$T/peak.json"
expect_grep '"machine_fingerprint"' "$T/peak.json"
for m in f32_gflops bf16_gflops int8_gops amx_bf16_gflops amx_int8_gops; do
  if grep -qE "\"${m}\": [0-9]" "$T/peak.json"; then
    expect_grep "\"${m}_1t\": [0-9]" "$T/peak.json"
  else
    expect_grep "\"${m}\": \"[^\"]+\"" "$T/peak.json"   # skipped with its reason
  fi
done
# the table names every path
expect_rc 0 "$SPRBENCH" peak --threads 1 --seconds 0.02
for p in f32 bf16 int8 amx_bf16 amx_int8; do expect_grep "^$p " "$T/out"; done

# forced off: skipped with the reason, still exit 0, still a file
SB_FORCE_NO_AVX512=1 SB_FORCE_NO_AMX=1 expect_rc 0 "$SPRBENCH" peak --threads 1 --seconds 0.02 \
  --result-file "$T/off.json"
expect_grep '"f32_gflops": ".*forced off' "$T/off.json"
expect_grep '"int8_gops": ".*forced off' "$T/off.json"
expect_grep '"amx_bf16_gflops": ".*forced off' "$T/off.json"
expect_grep '"status": "skipped"' "$T/off.json"

# the --json form is the same document on stdout
expect_rc 0 "$SPRBENCH" peak --threads 1 --seconds 0.02 --json
expect_grep '"workload": "peak"' "$T/out"

# unwritable result file: one line, exit 2 (bad path), nothing left behind
expect_rc 2 "$SPRBENCH" peak --threads 1 --seconds 0.02 --result-file "$T/no/such/dir/p.json"
expect_one_error_line '^sprbench peak: '

# every kernel through `sprbench gemm`: odd shapes, each transpose; ok or skipped
kernels="scalar-f32 avx512-f32 avx512-bf16 vnni-int8 amx-bf16 amx-int8 onednn-f32 onednn-bf16 onednn-int8"
for k in $kernels; do
  for tr in NN NT TN; do
    expect_rc 0 "$SPRBENCH" gemm --kernel "$k" --m 37 --n 45 --k 67 --trans "$tr" --threads 2 \
      --reps 1 --min-seconds 0.001 --result-file "$T/g.json"
    if ! grep -qE '"status": "(ok|skipped)"' "$T/g.json"; then
      fail "gemm $k $tr: neither ok nor skipped"; head -30 "$T/g.json" >&2
    else ok; fi
  done
done
# our kernels run here when the CPU has them, and are skipped with the flag's reason when forced off
SB_FORCE_NO_AVX512=1 expect_rc 0 "$SPRBENCH" gemm --kernel avx512-f32 --m 8 --n 8 --k 8 \
  --reps 1 --min-seconds 0.001 --result-file "$T/s.json"
expect_grep '"status": "skipped"' "$T/s.json"
expect_grep 'forced off' "$T/s.json"
SB_FORCE_NO_AMX=1 expect_rc 0 "$SPRBENCH" gemm --kernel amx-int8 --m 8 --n 8 --k 8 \
  --reps 1 --min-seconds 0.001 --result-file "$T/s.json"
expect_grep '"status": "skipped"' "$T/s.json"
# oneDNN reports the implementation it ran, and the ISA cap changes it; an
# unknown ISA cap is bad input
expect_rc 0 "$SPRBENCH" gemm --kernel onednn-f32 --m 256 --n 256 --k 256 --reps 1 \
  --min-seconds 0.001 --onednn-isa avx2 --result-file "$T/o.json"
expect_grep '"status": "ok"' "$T/o.json"
expect_grep '"impl": "[^"]+"' "$T/o.json"
if grep -q '"impl": ".*avx512' "$T/o.json"; then fail "oneDNN ran AVX-512 code under an avx2 cap"; else ok; fi
if grep -qw avx512f /proc/cpuinfo; then
  expect_rc 0 "$SPRBENCH" gemm --kernel onednn-f32 --m 256 --n 256 --k 256 --reps 1 \
    --min-seconds 0.001 --result-file "$T/o2.json"
  expect_grep '"impl": ".*avx512' "$T/o2.json"
fi
expect_rc 2 "$SPRBENCH" gemm --kernel onednn-f32 --m 16 --n 16 --k 16 --onednn-isa avx9000
expect_one_error_line '^sprbench gemm: .*avx9000'

finish kern_cli
