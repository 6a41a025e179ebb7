#!/bin/bash
# sprbench sweep's command line on the option table (#45): its options are
# the plan's keys (the first ones take a value, the rest are flags) and its
# own, and each is refused as before, with one line on stderr and exit 2,
# nothing run or written: a plan key given twice (a flag too), an unknown
# --key, a value missing or given to a flag, an option of its own given
# twice, a stray argument. A flag plan key reaches the worker's command; the
# batch script of --sbatch runs the same sweep without --sbatch and --submit,
# however they were spelled.
. "$SB_SOURCE_DIR/tests/lib.sh"
W="$T/work"
mkdir "$W" && cd "$W" || exit 1
S=$SPRBENCH
unset SLURM_JOB_ID

# refused LINE_REGEX ARGS...: sweep ARGS exits 2 with that one line, nothing written
refused() {
  local re=$1; shift
  expect_rc 2 "$S" sweep "$@"
  expect_one_error_line "$re"
  [ -s "$T/out" ] && fail "stdout not empty after: $*" || ok
  [ -z "$(ls -A "$W")" ] && ok || fail "after '$*': the directory holds $(ls -A "$W")"
}

# plan keys, with a value and as flags
refused '^sprbench sweep: --threads given twice$' --threads 1 --threads 2 --db r.db
refused '^sprbench sweep: --eval given twice$' --workload train --eval --eval --db r.db
refused '^sprbench sweep: --compare-f32 given twice$' --compare-f32 --dry-run --compare-f32
refused "^sprbench sweep: unknown or incomplete option '--no-such-key' \(see --help\)$" \
  --no-such-key --db r.db
refused "^sprbench sweep: unknown or incomplete option '--kernels' \(see --help\)$" --kernels
refused "^sprbench sweep: unknown or incomplete option '--eval=1' \(see --help\)$" --eval=1
# an abbreviation two options share is neither
refused "^sprbench sweep: unknown or incomplete option '--no' \(see --help\)$" --no --db r.db
# the sweep's own options
refused '^sprbench sweep: --db given twice$' --db r.db --db s.db --dry-run
refused '^sprbench sweep: --sbatch given twice$' --sbatch a.sh --sbatch b.sh
refused '^sprbench sweep: --pair-mode given twice$' --pair-mode abba --pair-mode random
refused '^sprbench sweep: --resume given twice$' --resume 3 --resume 4
refused '^sprbench sweep: --resume: 0 is out of range \[1, 1099511627776\]$' --resume 0
refused "^sprbench sweep: --pair-mode: 'bogus' is not abba, random or duet$" --pair-mode bogus
refused "^sprbench sweep: unknown or incomplete option '--dry-run=1' \(see --help\)$" --dry-run=1
refused "^sprbench sweep: unexpected argument 'foo'$" --kernels scalar-f32 foo
refused '^sprbench sweep: --submit needs --sbatch FILE$' --submit --submit
refused '^sprbench sweep: --pair-\* options need --pair-baseline and --pair-candidate$' --pairs 8
# an error before --help is the error; --help first is the help
refused '^sprbench sweep: --threads given twice$' --threads 1 --threads 2 --help
refused "^sprbench sweep: unknown or incomplete option '--no-such-key' \(see --help\)$" \
  --no-such-key --help
expect_rc 0 "$S" sweep --help --no-such-key
expect_rc 0 "$S" sweep --threads 1 --help
expect_grep '^usage: sprbench sweep' "$T/out"
# a flag given twice that means what it means once: still one flag
expect_rc 0 "$S" sweep --dry-run --dry-run --kernels scalar-f32 --threads 1 --shapes 8x8x8 --db r.db
expect_grep 'gemm .*--kernel scalar-f32' "$T/out"

# a flag plan key reaches the worker, a value key with its value
expect_rc 0 "$S" sweep --workload infer --compare-f32 --no-latency --kernels scalar-f32 \
  --threads 1 --batch 4 --dry-run --db r.db
expect_grep 'infer .*--compare-f32' "$T/out"
expect_grep 'infer .*--no-latency' "$T/out"
expect_grep 'infer .*--batch 4' "$T/out"

# --sbatch: the script's sweep is this one less --sbatch FILE, --sbatch=FILE,
# an abbreviation and --submit; a value that looks like --submit is a value
for form in "--sbatch s.sh" "--sbatch=s.sh" "--sba s.sh"; do
  rm -f s.sh
  # shellcheck disable=SC2086 # the form is two words or one
  expect_rc 0 "$S" sweep --kernels scalar-f32 $form --threads 1 --shapes 8x8x8
  want="sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --launcher slurm\$"
  expect_grep "^exec [^ ]+ $want" s.sh
  expect_grep '^batch script s.sh: 1 node\(s\), 1 task\(s\) per node' "$T/out"
done
rm -f s.sh
expect_rc 0 "$S" sweep --kernels scalar-f32 --label --submit --sbatch s.sh --threads 1 \
  --shapes 8x8x8 --launcher slurm
expect_grep '^exec [^ ]+ sweep --kernels scalar-f32 --label --submit --threads 1 --shapes 8x8x8 --launcher slurm$' s.sh
expect_grep '^submit it with: sbatch s.sh$' "$T/out"

finish harness_sweep_cli
