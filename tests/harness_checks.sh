#!/bin/bash
# Errors that used to pass, and checks that used to come after the work, as a
# user meets them: each is exit 2 with one line on stderr naming what is
# wrong (file and line for plans), and nothing is run, created or written:
#  - list flags and plan values: an empty item, an item listed twice, a plan
#    key given twice, a value out of the worker's range, an empty value;
#  - empty path values (--init '' would read /config.json);
#  - output paths checked before the work: --result-file, --save, --out,
#    --plots, --junit, --db (a missing directory, or for a directory to
#    create, a missing parent: only the last component is ever created);
#  - gate --metric with a name no point holds;
#  - a message holding newlines or escapes is still one line.
. "$SB_SOURCE_DIR/tests/lib.sh"
W="$T/work"
mkdir "$W" && cd "$W" || exit 1
S=$SPRBENCH

# nothing_done: the work directory holds only what the test put there
# (no database, no results/ directory, no plots, no report, no temp file)
inputs=()
nothing_done() {
  local got want
  got=$(ls -A "$W" | sort | tr '\n' ' ')
  want=$(printf '%s\n' "${inputs[@]}" | sed '/^$/d' | sort | tr '\n' ' ')
  if [ "$got" = "$want" ]; then ok; else fail "after '$*': the directory holds [$got], expected [$want]"; fi
  [ -e /missing ] && fail "/missing was created" || ok
}
# refused LINE_REGEX CMD...: exit 2, one line matching, nothing written
refused() {
  local re=$1; shift
  expect_rc 2 "$@"
  expect_one_error_line "$re"
  [ -s "$T/out" ] && fail "stdout not empty after: $*: $(head -c 200 "$T/out")" || ok
  nothing_done "$@"
}

# --- lists, plan keys and values --------------------------------------------

refused '^sprbench sweep: --kernels: .scalar-f32. is listed twice$' \
  "$S" sweep --kernels scalar-f32,scalar-f32 --threads 1 --shapes 8x8x8 --db r.db
refused "^sprbench sweep: --threads: empty item 2 of 3 in '1,,2'$" \
  "$S" sweep --kernels scalar-f32 --threads 1,,2 --shapes 8x8x8 --db r.db
refused '^sprbench sweep: --threads: empty item 2 of 2' "$S" sweep --threads 1, --db r.db
refused '^sprbench sweep: --threads: 2 is listed twice$' "$S" sweep --threads 2,1,2 --db r.db
refused '^sprbench sweep: --shapes: .8X8X8. is listed twice$' "$S" sweep --shapes 8x8x8,8X8X8 --db r.db
refused '^sprbench sweep: --threads given twice$' "$S" sweep --threads 1 --threads 2 --db r.db
refused "^sprbench sweep: --sizes: '64K' is listed twice$" \
  "$S" sweep --workload allreduce --sizes 64K,64K --db r.db
refused '^sprbench sweep: --batch: -1 is out of range \[1, 65536\]$' \
  "$S" sweep --workload train --kernels scalar-f32 --batch -1 --db r.db
refused '^sprbench sweep: --label: empty value$' "$S" sweep --label '' --db r.db
# an option with a value given twice, in every command (the last silently
# won): refused by name; a flag twice means what it means once, and the
# options documented as repeatable (gate --metric, report --db, tune
# --kernel) still collect
refused '^sprbench sweep: --db given twice$' "$S" sweep --db r.db --db s.db --dry-run
refused '^sprbench sweep: --plots given twice$' "$S" sweep --threads 1 --plots p --plots q --db r.db
refused '^sprbench gemm: --tune-file given twice$' \
  "$S" gemm --kernel scalar-f32 --m 8 --n 8 --k 8 --tune-file a.json --tune=b.json
refused '^sprbench gemm: --m given twice$' "$S" gemm --kernel scalar-f32 --m 8 --n 8 --k 8 --m 9
refused '^sprbench train: --threads given twice$' "$S" train --model tiny --threads 2 --threads 1
refused '^sprbench infer: --batch given twice$' "$S" infer --model tiny --batch 2 --batch=1
refused '^sprbench info: --tune-file given twice$' "$S" info --tune-file a.json --tune-file b.json
refused '^sprbench peak: --seconds given twice$' "$S" peak --seconds 0.1 --seconds 0.2
refused '^sprbench tune: --seconds given twice$' "$S" tune --seconds 1 --seconds 2 --db r.db
refused '^sprbench db: --sweep given twice$' "$S" db points --sweep 1 --sweep 2 --db r.db
refused '^sprbench plot: --out given twice$' "$S" plot --db r.db --out p --out q
refused '^sprbench report: --out given twice$' \
  "$S" report --db r.db --baseline a --candidate b --out p --out q
refused '^sprbench gate: --db given twice$' "$S" gate --db r.db --db s.db --baseline 1 --candidate 2
refused '^sprbench layernorm: --dim given twice$' "$S" layernorm --dim 16 --dim 32
refused '^sprbench stream: --mib given twice$' "$S" stream --mib 1 --mib 2
refused '^sprbench allreduce: --iters given twice$' "$S" allreduce --iters 1 --iters 2
refused '^sprbench model: --study given twice$' "$S" model --step-seconds 1 --busbw-gbs 5 --study a --study b
refused '^sprbench squad-synth: --questions given twice$' "$S" squad-synth --questions 1 --questions 2
refused '^sprbench tokenize: --vocab given twice$' "$S" tokenize --vocab a --vocab b
expect_rc 0 "$S" layernorm --batch 1 --seq 8 --dim 8 --iters 1 --threads 1 --json --json
expect_rc 2 "$S" gate --metric gflops --metric ns_per_row --db r.db --baseline 1 --candidate 2
if grep -q 'given twice' "$T/err"; then fail "gate --metric is repeatable"; else ok; fi
expect_rc 2 "$S" report --db r.db --db s.db --baseline a --candidate b --out new/rep
if grep -q 'given twice' "$T/err"; then fail "report --db is repeatable"; else ok; fi
expect_rc 2 "$S" tune --kernel nope --kernel scalar-f32 --db r.db
expect_one_error_line "^sprbench tune: unknown kernel 'nope'"
nothing_done "repeatable options"

cat >dup.plan <<'EOF'
kernels = scalar-f32
threads = 1
shapes  = 8x8x8
reps    = 5
threads = 2        # a second threads: which one runs?
EOF
inputs=(dup.plan)
refused "^sprbench sweep: dup.plan:5: key 'threads' given twice \(first on line 2\)$" \
  "$S" sweep --plan dup.plan --db r.db
cat >batch.plan <<'EOF'
workload = train
kernels  = scalar-f32
model    = tiny
batch    = -1
EOF
inputs=(dup.plan batch.plan)
refused '^sprbench sweep: batch.plan:4: batch: -1 is out of range \[1, 65536\]$' \
  "$S" sweep --plan batch.plan --db r.db
printf 'workload = train\nkernels = scalar-f32\ninit =\n' >empty.plan
printf 'kernels = scalar-f32\nthreads = 1,,2\n' >items.plan
printf 'workload = train\nkernels = scalar-f32\nvocab = %s\n' "$W/no-such-vocab.txt" >vocab.plan
inputs=(dup.plan batch.plan empty.plan items.plan vocab.plan)
refused "^sprbench sweep: empty.plan:3: 'init' has no value$" "$S" sweep --plan empty.plan --db r.db
refused '^sprbench sweep: items.plan:2: threads: empty item 2 of 3' "$S" sweep --plan items.plan --db r.db
# a file the workers would read, missing: said once, before any point runs
refused '^sprbench sweep: .*/no-such-vocab.txt: cannot read \(vocab\): No such file or directory$' \
  "$S" sweep --plan vocab.plan --db r.db
# the same plan with its key given once runs (the checks refuse only what is wrong)
printf 'kernels = scalar-f32\nthreads = 1\nshapes = 8x8x8\nreps = 5\n' >good.plan
expect_rc 0 "$S" sweep --plan good.plan --no-peak --db good.db
expect_grep '1 ok, 0 skipped, 0 failed' "$T/out"
rm -f good.plan good.db good.db-wal good.db-shm

# model reads an allreduce result with a size limit (it read any size)
truncate -s 17M big.json
inputs=(dup.plan batch.plan empty.plan items.plan vocab.plan big.json)
refused '^sprbench model: big.json: larger than 16 MiB, the limit for a sprbench allreduce result$' \
  "$S" model --step-seconds 1 --allreduce-file big.json
rm big.json
inputs=(dup.plan batch.plan empty.plan items.plan vocab.plan)

# model --nodes: the same rule for every list
refused '^sprbench model: --nodes: 4 is listed twice$' \
  "$S" model --step-seconds 1 --busbw-gbs 5 --nodes 1,4,4
# allreduce --sizes: an empty item is not skipped
refused "^sprbench allreduce: --sizes: empty item 2 of 3 in '4,,8'$" "$S" allreduce --sizes 4,,8

# --- empty paths --------------------------------------------------------------

refused '^sprbench train: --init: empty value$' "$S" train --model tiny --init ''
refused '^sprbench train: --save: empty value$' "$S" train --model tiny --save ''
refused '^sprbench train: --vocab: empty value$' "$S" train --model tiny --vocab ''
refused '^sprbench train: --result-file: empty value$' "$S" train --model tiny --result-file ''
refused '^sprbench predict: --init: empty path$' "$S" predict --init '' --data d.json --out p.json
refused '^sprbench predict: --out: empty path$' "$S" predict --init m --data d.json --out ''
refused '^sprbench gemm: --result-file: empty path$' \
  "$S" gemm --kernel scalar-f32 --m 8 --n 8 --k 8 --result-file ''
refused '^sprbench sweep: --plan: empty path$' "$S" sweep --plan ''
refused '^sprbench sweep: --db: empty path$' "$S" sweep --db '' --dry-run
refused '^sprbench gate: --db: empty path$' "$S" gate --baseline 1 --candidate 2 --db ''
refused '^sprbench report: --db: empty path$' "$S" report --baseline 1 --candidate 2 --db '' --out rep
refused '^sprbench plot: --db: empty path$' "$S" plot --db '' --out p
refused '^sprbench model: --study: empty path$' "$S" model --step-seconds 1 --busbw-gbs 5 --study ''

# --- outputs checked before the work -------------------------------------------

refused '^sprbench gemm: /missing/r.json: cannot write \(--result-file\): directory /missing does not exist$' \
  "$S" gemm --kernel scalar-f32 --m 64 --n 64 --k 64 --result-file /missing/r.json
refused '^sprbench gemm: r.json/x: cannot write \(--result-file\): Not a directory$' \
  bash -c "touch r.json && '$S' gemm --kernel scalar-f32 --m 8 --n 8 --k 8 --result-file r.json/x; rc=\$?; rm r.json; exit \$rc"
refused '^sprbench train: /missing/dir/x: cannot create directory \(--save\): parent directory /missing/dir does not exist$' \
  "$S" train --model tiny --max-steps 2 --save /missing/dir/x
refused '^sprbench train: /missing/r.json: cannot write \(--result-file\): directory /missing does not exist$' \
  "$S" train --model tiny --max-steps 2 --result-file /missing/r.json
refused '^sprbench predict: /missing/p.json: cannot write \(--out\): directory /missing does not exist$' \
  "$S" predict --init m --data d.json --out /missing/p.json
refused '^sprbench allreduce: /missing/r.json: cannot write \(--result-file\): directory /missing does not exist$' \
  "$S" allreduce --sizes 4 --iters 1 --result-file /missing/r.json
refused '^sprbench model: /missing/m.json: cannot write \(--result-file\): directory /missing does not exist$' \
  "$S" model --step-seconds 1 --busbw-gbs 5 --result-file /missing/m.json
refused '^sprbench model: /missing/m.db: cannot write \(--db\): directory /missing does not exist$' \
  "$S" model --step-seconds 1 --busbw-gbs 5 --db /missing/m.db
# a sweep would have run every point before finding out: now nothing runs,
# no database is created
refused '^sprbench sweep: /missing/dir: cannot create directory \(--plots\): parent directory /missing does not exist$' \
  "$S" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --reps 5 --no-peak --db r.db --plots /missing/dir
refused '^sprbench sweep: /missing/r.db: cannot write \(--db\): directory /missing does not exist$' \
  "$S" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --reps 5 --no-peak --db /missing/r.db

# report, plot, gate need a database with points: one sweep
"$S" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --reps 6 --no-peak --db base.db >/dev/null 2>&1 ||
  fail "the sweep for the database failed"
# tight samples (0.1 % apart): a busy machine can make six real 8x8x8 timings
# bimodal, and the gate then rightly says WARN "noisy" where this test wants
# the metric path's PASS (seen once in a bare-root run beside another ctest)
sqlite3 base.db "UPDATE sample SET seconds = 1e-6 * (1 + 0.001 * rep);" || fail "sqlite3"
# a second run with the same numbers: a copy whose sweep and points have
# uuids of their own (a copy as it is would be the run gated against itself)
cp base.db base2.db
sqlite3 base2.db "UPDATE sweep SET uuid = lower(hex(randomblob(16)));
  UPDATE point SET uuid = lower(hex(randomblob(16)));" || fail "sqlite3"
inputs=(dup.plan batch.plan empty.plan items.plan vocab.plan base.db base2.db)
rm -f base.db-wal base.db-shm
# report --out creates its last component only (it used to create the whole path)
refused '^sprbench report: new/rep: cannot create directory \(--out\): parent directory new does not exist$' \
  "$S" report --db base.db --baseline 1 --candidate 1 --out new/rep --no-plots
refused '^sprbench plot: new/p: cannot create directory \(--out\): parent directory new does not exist$' \
  "$S" plot --db base.db --out new/p
refused '^sprbench gate: /missing/gate.xml: cannot write \(--junit\): directory /missing does not exist$' \
  "$S" gate --baseline base.db --candidate base.db --junit /missing/gate.xml
# a directory that may be created still is
expect_rc 0 "$S" report --db base.db --baseline 1 --candidate 1 --out rep --no-plots
[ -s rep/report.md ] && ok || fail "report --out rep wrote no rep/report.md"
rm -rf rep

# --- gate --metric: a typo compared nothing and passed ----------------------------

refused "^sprbench gate: unknown metric 'gflop' \(known: .*gflops.*seconds\)$" \
  "$S" gate --baseline base.db --candidate base2.db --metric gflop --junit gate.xml
refused "^sprbench gate: unknown metric 'tokens_per_s' " \
  "$S" gate --baseline base.db --candidate base2.db --metric gflops --metric tokens_per_s
expect_rc 0 "$S" gate --baseline base.db --candidate base2.db --metric gflops
expect_grep '^PASS +gemm +scalar-f32 .* gflops ' "$T/out"

# --- plot images go through the same writer as every output ---------------------
# A symlink among the images writes its target and stays a link; a device is
# written in place and stays a device (rename used to replace both).
if command -v gnuplot >/dev/null; then
  mkdir plots elsewhere
  echo old >elsewhere/t.png
  ln -s ../elsewhere/t.png plots/throughput-8x8x8_NN.png
  dev=
  if [ "$(id -u)" -eq 0 ] && mknod -m 666 plots/throughput-8x8x8_NN.svg c 1 3 2>/dev/null &&
     (echo x >plots/throughput-8x8x8_NN.svg) 2>/dev/null; then
    dev=plots/throughput-8x8x8_NN.svg   # a private null device (never /dev/null itself)
  fi
  expect_rc 0 "$S" plot --db base.db --out plots
  [ -L plots/throughput-8x8x8_NN.png ] && ok || fail "the symlinked plot is no longer a symlink"
  [ "$(head -c 4 elsewhere/t.png | tail -c 3)" = PNG ] && ok || fail "the link's target is not the PNG"
  if [ -n "$dev" ]; then [ -c "$dev" ] && ok || fail "$dev is no longer a character device"; fi
  if ls -A plots elsewhere | grep -q '\.tmp\.'; then fail "temp file left: $(ls -A plots elsewhere)"; else ok; fi
  # one thread count: no speedup figure (every point would be 1.0)
  [ -s plots/throughput-8x8x8_NN.gp ] && ok || fail "throughput-8x8x8_NN.gp not written"
  [ ! -e plots/speedup-8x8x8_NN.png ] && ok || fail "a speedup figure for one thread count"
  rm -rf plots elsewhere
fi

# --- one line, whatever the message holds -----------------------------------------

refused '^sprbench gemm: /missing\?dir\?\[31m/r.json: cannot write' \
  "$S" gemm --kernel scalar-f32 --m 8 --n 8 --k 8 --result-file $'/missing\ndir\e[31m/r.json'
refused '^sprbench gemm: unknown kernel .a\?b\?c. ' "$S" gemm --kernel $'a\nb\rc' --m 8 --n 8 --k 8
refused '^sprbench report: a\?b/c: cannot create directory' \
  "$S" report --db base.db --baseline 1 --candidate 1 --out $'a\nb/c'

finish harness_checks
