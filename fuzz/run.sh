#!/bin/bash
# Builds the libFuzzer harnesses with clang (ASan + UBSan) and runs each for
# a while, one at a time. Not part of the default build or ctest.
#   fuzz/run.sh [SECONDS_EACH] [harness...]   (default 120 s; all harnesses)
# Needs clang and libFuzzer's runtime (Debian: clang, libclang-rt-14-dev),
# jansson and utf8proc. Corpora and crash files go to build-fuzz-squad/.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-120}
shift || true
HARNESSES=${*:-"tokenizer squad safetensors"}
OUT="$ROOT/build-fuzz-squad"
mkdir -p "$OUT"
CC=${CC:-clang}
SRC=("$ROOT"/bench/distilbert/sb_tokenizer.c "$ROOT"/bench/distilbert/sb_squad.c
     "$ROOT"/bench/distilbert/sb_features.c "$ROOT"/bench/distilbert/sb_squad_eval.c
     "$ROOT"/bench/distilbert/sb_squad_synth.c "$ROOT"/bench/distilbert/sb_safetensors.c
     "$ROOT"/bench/distilbert/sb_hf.c "$ROOT"/bench/sb_io.c "$ROOT"/kernels/sb_err.c)
FLAGS=(-g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -I"$ROOT"/bench -I"$ROOT"/bench/distilbert -I"$ROOT"/kernels)
LIBS=($(pkg-config --cflags --libs jansson libutf8proc) -lm)
for h in $HARNESSES; do
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
for h in $HARNESSES; do
    echo "== fuzz_$h for $SECS s"
    maxlen=4096
    (cd "$OUT" && ./fuzz_$h -max_total_time="$SECS" -max_len=$maxlen -print_final_stats=1 \
        -artifact_prefix="$OUT/crash_${h}_" "corpus_$h" 2>&1 | grep -E "^(#[0-9]+ *DONE|stat::number_of_executed_units|==.*ERROR|SUMMARY|artifact)" || true)
done
