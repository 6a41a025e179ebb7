#!/usr/bin/env bash
# Nothing a user gives is silently ignored: the GEMM options (shapes, trans,
# reps, min-seconds, prepack) on another workload, and infer's --attention
# int8 with no int8 kernel to take it, are refused (exit 2, one line) before
# anything is stored; what does apply still runs.
. "$(dirname "$0")/lib.sh"
cd "$T"
for o in "--shapes 64x64x64" "--trans NT" "--reps 3" "--min-seconds 0.5" "--prepack 1"; do
  # shellcheck disable=SC2086
  expect_rc 2 "$SPRBENCH" sweep --workload stream $o --dry-run --db x.db
  key=${o%% *}
  expect_one_error_line "^sprbench sweep: option '${key#--}' does not apply to workload stream \(GEMM only\)$"
  # shellcheck disable=SC2086
  expect_rc 2 "$SPRBENCH" sweep --workload train $o --dry-run --db x.db
done
[ -e x.db ] && fail "a refused plan wrote x.db" || ok
expect_rc 2 "$SPRBENCH" sweep --workload infer --kernels avx512-f32,scalar-f32 --attention int8 --dry-run --db x.db
expect_one_error_line '^sprbench sweep: attention int8 applies to int8 kernels only, and the plan has none'
# with an int8 kernel it applies (to that kernel's points); f32 is the default and always fine
expect_rc 0 "$SPRBENCH" sweep --workload infer --kernels scalar-f32,vnni-int8 --attention int8 --threads 1 --dry-run --db x.db
expect_grep 'infer --kernel vnni-int8 .*--attention int8' "$T/out"
expect_rc 0 "$SPRBENCH" sweep --workload infer --kernels scalar-f32 --attention f32 --threads 1 --dry-run --db x.db
expect_rc 0 "$SPRBENCH" sweep --workload gemm --kernels scalar-f32 --shapes 8x8x8 --reps 3 --threads 1 --dry-run --db x.db
# mpirun's options where no point runs under mpirun (a one-process workload,
# or ppn and nodes 1 without a hostfile or Slurm): refused, not dropped
for w in stream layernorm; do
  for o in "--bind core" "--bind none" "--mpirun-args --oversubscribe"; do
    # shellcheck disable=SC2086
    expect_rc 2 "$SPRBENCH" sweep --workload $w $o --threads 1 --dry-run --db x.db
    key=${o%% *}
    expect_one_error_line "^sprbench sweep: ${key#--} does not apply to workload $w: it runs as one process"
  done
done
expect_rc 2 "$SPRBENCH" sweep --kernels scalar-f32 --shapes 8x8x8 --threads 1 --bind socket --dry-run --db x.db
expect_one_error_line "^sprbench sweep: bind applies to points run under mpirun, and this plan has none"
printf 'workload = stream\nbind = core\n' >plan
expect_rc 2 "$SPRBENCH" sweep --plan plan --threads 1 --dry-run --db x.db
expect_one_error_line "^sprbench sweep: bind does not apply to workload stream"
[ -e x.db ] && fail "a refused plan wrote x.db" || ok
# where points do run under mpirun they apply
expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --shapes 8x8x8 --threads 1 --ppn 1,2 --bind socket \
  --mpirun-args "--mca btl self" --dry-run --db x.db
expect_grep 'mpirun .*--mca btl self.*--bind-to socket|mpirun .*--bind-to socket.*--mca btl self' "$T/out"
finish harness_ignored_opts
