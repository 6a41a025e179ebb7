#!/bin/bash
# Builds and runs the results helper's libFuzzer harnesses (the export
# importer, the hostfile parser, the plan parser), one at a time, the same
# way as fuzz/run.sh does the trainer's. Not part of the default build.
#   fuzz/run-results.sh [SECONDS_EACH] [import|hostfile|plan ...]   (default 120 s, all)
# The target sources are compiled with clang -fsanitize=fuzzer,address,undefined;
# what they call besides (kernel registry, CLI helpers) comes from the gcc
# build's static libraries ($BUILD, default build-results, built first).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-120}
shift || true
HARNESSES=${*:-"import hostfile plan"}
BUILD=${BUILD:-$ROOT/build-results}
OUT="$ROOT/build-fuzz"
mkdir -p "$OUT"
CC=${CC:-clang}
[ -f "$BUILD/harness/libsb_harness.a" ] || { echo "build $BUILD first (cmake)"; exit 2; }
FLAGS=(-g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -I"$ROOT"/harness -I"$ROOT"/bench -I"$ROOT"/kernels)
LIBS=("$BUILD"/harness/libsb_harness.a "$BUILD"/bench/libsb_bench.a "$BUILD"/kernels/libsb_kernels.a
      $(pkg-config --libs sqlite3 jansson hwloc libutf8proc) -ldnnl -fopenmp -lm)
for h in $HARNESSES; do
    case $h in
    import)   SRC=("$ROOT"/harness/sb_export.c "$ROOT"/harness/sb_db.c) ;;
    hostfile) SRC=("$ROOT"/harness/sb_launch.c) ;;
    plan)     SRC=("$ROOT"/harness/sb_plan.c) ;;
    *) echo "unknown harness $h"; exit 2 ;;
    esac
    "$CC" "${FLAGS[@]}" -o "$OUT/fuzz_$h" "$ROOT/fuzz/fuzz_$h.c" "${SRC[@]}" "${LIBS[@]}"
done
# Seeds: a small valid export, hostfiles, plans.
mkdir -p "$OUT"/corpus_import "$OUT"/corpus_hostfile "$OUT"/corpus_plan
cp "$ROOT"/tests/fixtures/results/*.json "$OUT"/corpus_import/ 2>/dev/null || true
printf '# two nodes\nnode1 slots=2 max_slots=4\nnode2 slots = 2\nnode1\n' >"$OUT/corpus_hostfile/seed1"
printf 'localhost count=1 max-slots=8\n10.0.0.2\n' >"$OUT/corpus_hostfile/seed2"
printf 'workload = gemm\nkernels = scalar-f32\nthreads = 1,2\nshapes = 64x64x64:NT, 32x16x8\nreps = 5\n' \
    >"$OUT/corpus_plan/seed1"
printf 'workload = train\nkernels = scalar-f32\nthreads = 1\nbatch = 2\nseq = 64\nmax-steps = 2\n' \
    >"$OUT/corpus_plan/seed2"
for h in $HARNESSES; do
    echo "== fuzz_$h for $SECS s"
    # only the stat lines and any report: the fuzzer's progress lines are noise here
    (cd "$OUT" && ./fuzz_$h -max_total_time="$SECS" -max_len=8192 -print_final_stats=1 \
        -artifact_prefix="$OUT/crash_${h}_" "corpus_$h" 2>&1 |
        grep -E "^(#[0-9]+ *DONE|stat::number_of_executed_units|stat::peak_rss|==.*ERROR|SUMMARY|artifact)" || true)
done
ls "$OUT"/crash_* 2>/dev/null && { echo "crashes above"; exit 1; } || echo "no crash files"
