#!/bin/bash
# Builds the libFuzzer harnesses with clang (ASan + UBSan) and runs each for a
# while, one at a time. Not part of the default build or ctest.
#   fuzz/run.sh [SECONDS_EACH] [harness...]     (default 120 s; all harnesses)
# Harnesses: tokenizer squad safetensors (the SQuAD data path), import
# hostfile plan (the results side), and gnuplot (the plot script writer,
# each script checked by an independent checker of what gnuplot would
# execute; needs no build). The code under test is compiled with
# -fsanitize=fuzzer,address,undefined; what the results-side targets call
# besides (kernel registry, CLI helpers) comes from the gcc build's static
# libraries in $BUILD (default build/; run scripts/run-tests or cmake first).
# Needs clang and libFuzzer's runtime (Debian: clang, libclang-rt-14-dev).
# Corpora and crash files go to build-fuzz/ (or $FUZZ_OUT); exit 1 when a
# crash file exists.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-120}
shift || true
HARNESSES=${*:-"tokenizer squad safetensors import hostfile plan gnuplot"}
BUILD=${BUILD:-$ROOT/build}
OUT=${FUZZ_OUT:-"$ROOT/build-fuzz"}
mkdir -p "$OUT"
CC=${CC:-clang}
FLAGS=(-g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -I"$ROOT"/harness -I"$ROOT"/harness/run -I"$ROOT"/harness/study
       -I"$ROOT"/harness/store -I"$ROOT"/bench
       -I"$ROOT"/bench/distilbert -I"$ROOT"/kernels)
DATA_SRC=("$ROOT"/bench/distilbert/sb_tokenizer.c "$ROOT"/bench/distilbert/sb_squad.c
          "$ROOT"/bench/distilbert/sb_features.c "$ROOT"/bench/distilbert/sb_squad_eval.c
          "$ROOT"/bench/distilbert/sb_squad_synth.c "$ROOT"/bench/distilbert/sb_safetensors.c
          "$ROOT"/bench/distilbert/sb_hf.c "$ROOT"/bench/sb_io.c "$ROOT"/kernels/sb_err.c)
DATA_LIBS=($(pkg-config --cflags --libs jansson libutf8proc) -lm)
results_libs() {
    [ -f "$BUILD/harness/libsb_harness.a" ] ||
        { echo "fuzz/run.sh: build $BUILD first (cmake -S . -B $BUILD && cmake --build $BUILD)" >&2; exit 2; }
    RES_LIBS=("$BUILD"/harness/libsb_harness.a "$BUILD"/bench/libsb_bench.a
              "$BUILD"/kernels/libsb_kernels.a
              $(pkg-config --libs sqlite3 jansson hwloc libutf8proc ompi-c) -ldnnl -fopenmp -lm -ldl)
}
for h in $HARNESSES; do
    case $h in
    tokenizer|squad|safetensors) SRC=("${DATA_SRC[@]}"); LIBS=("${DATA_LIBS[@]}") ;;
    import)   results_libs; SRC=("$ROOT"/harness/store/sb_import.c "$ROOT"/harness/store/sb_import_check.c "$ROOT"/harness/store/sb_export.c "$ROOT"/harness/store/sb_ptset.c "$ROOT"/harness/store/sb_db.c "$ROOT"/harness/store/sb_db_ingest.c "$ROOT"/harness/store/sb_db_sweep.c "$ROOT"/bench/sb_text.c "$ROOT"/bench/sb_stats.c); LIBS=("${RES_LIBS[@]}") ;;
    hostfile) results_libs; SRC=("$ROOT"/harness/run/sb_launch.c); LIBS=("${RES_LIBS[@]}") ;;
    # the plan reader checks allreduce sizes with the worker's own parser (MPI's headers)
    plan)     results_libs; SRC=("$ROOT"/harness/run/sb_plan.c -I"$ROOT"/bench/allreduce $(pkg-config --cflags ompi-c))
              LIBS=("${RES_LIBS[@]}") ;;
    gnuplot)  SRC=("$ROOT"/harness/study/sb_gnuplot.c "$ROOT"/harness/study/sb_gnuplot_tmpl.c "$ROOT"/bench/sb_text.c "$ROOT"/bench/sb_io.c "$ROOT"/kernels/sb_err.c)
              LIBS=($(pkg-config --cflags --libs jansson libutf8proc) -lm) ;;
    *) echo "fuzz/run.sh: unknown harness '$h'" >&2; exit 2 ;;
    esac
    "$CC" "${FLAGS[@]}" -o "$OUT/fuzz_$h" "$ROOT/fuzz/fuzz_$h.c" "${SRC[@]}" "${LIBS[@]}"
done
# Seeds: the project's fixtures and, when present, the reference data.
seed() {
    local dir="$OUT/corpus_$1"; shift
    mkdir -p "$dir"
    for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/" || true; done
}
DATA="$ROOT/../shared/data"
seed tokenizer "$ROOT"/tests/fixtures/squad/vocab_small.txt
if [ -f "$DATA/tokenizer-conformance/tokref_sample_input.jsonl" ]; then
    i=0
    while IFS= read -r line; do printf '\001%s' "$line" >"$OUT/corpus_tokenizer/conf_$i"; i=$((i+1)); done \
        <"$DATA/tokenizer-conformance/tokref_sample_input.jsonl"
fi
seed squad "$ROOT"/tests/fixtures/squad/mini.json "$DATA"/squad/allennlp_test_fixture_squad.json
seed safetensors
printf '\x55\x00\x00\x00\x00\x00\x00\x00{"__metadata__":{"format":"pt"},"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}\x00\x3c\x00\xc0' \
    >"$OUT/corpus_safetensors/seed1"
printf '{"model_type":"distilbert","dim":8,"n_heads":2}' >"$OUT/corpus_safetensors/seed2"
seed import "$ROOT"/tests/fixtures/results/*.json
seed hostfile
printf '# two nodes\nnode1 slots=2 max_slots=4\nnode2 slots = 2\nnode1\n' >"$OUT/corpus_hostfile/seed1"
printf 'localhost count=1 max-slots=8\n10.0.0.2\n' >"$OUT/corpus_hostfile/seed2"
seed plan
printf 'workload = gemm\nkernels = scalar-f32\nthreads = 1,2\nshapes = 64x64x64:NT, 32x16x8\nreps = 5\n' \
    >"$OUT/corpus_plan/seed1"
printf 'workload = train\nkernels = scalar-f32\nthreads = 1\nbatch = 2\nseq = 64\nmax-steps = 2\n' \
    >"$OUT/corpus_plan/seed2"
# gnuplot: header (terminal, width, height, size check), then records
# (op, length, text): hostile titles, a tic label with %, a two-line title
seed gnuplot
printf '\000\070\070\001\000\060a `touch /tmp/sb-fuzz-pwned` system("id") @m '"'"'q'"'"' "dq" \\n |x\001\0111 %%s 100%%\002\003two\n\004\001k' \
    >"$OUT/corpus_gnuplot/seed1"
printf '\001\100\100\001\003\020\000\000\000\000\000\000\360\077\000\000\000\000\000\000\370\177\005\003d_1\006\010\000\000\000\000\000\000\360\177' \
    >"$OUT/corpus_gnuplot/seed2"
for h in $HARNESSES; do
    echo "== fuzz_$h for $SECS s"
    case $h in import|plan) maxlen=8192 ;; *) maxlen=4096 ;; esac
    # only the stat lines and any report: the fuzzer's progress lines are noise here
    (cd "$OUT" && ./fuzz_$h -max_total_time="$SECS" -max_len=$maxlen -print_final_stats=1 \
        -artifact_prefix="$OUT/crash_${h}_" "corpus_$h" 2>&1 |
        grep -E "^(#[0-9]+ *DONE|stat::number_of_executed_units|stat::peak_rss|==.*ERROR|SUMMARY|artifact)" || true)
done
ls "$OUT"/crash_* 2>/dev/null && { echo "crash files above"; exit 1; } || echo "no crash files"
