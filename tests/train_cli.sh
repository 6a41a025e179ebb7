#!/bin/bash
# sprbench train / predict as a user meets them: help, bad input (one line,
# exit 2, nothing written), a short synthetic run with a result file, save ->
# predict -> evaluate, --init from the saved directory, repeatability by
# seed, and a NaN loss recorded as a failed run.
set -u
B=${SPRBENCH:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
# expect_usage NAME ARGS...: exit 2, exactly one line on stderr, no result file
expect_usage() {
    local name=$1; shift
    rm -f "$T/r.json"
    "$B" train "$@" --result-file "$T/r.json" > "$T/out" 2> "$T/err"
    local rc=$?
    check "$name: exit 2 (got $rc)" "[ $rc -eq 2 ]"
    check "$name: one line on stderr: $(head -c 150 "$T/err")" "[ \$(wc -l < '$T/err') -eq 1 ]"
    check "$name: no result file" "[ ! -e '$T/r.json' ]"
}
SMALL="--model tiny --synth-train 120 --synth-dev 40 --batch 8 --seq 64 --stride 16 --threads 2"

"$B" train --help > "$T/help"; rc=$?
check "train --help exits 0" "[ $rc -eq 0 ]"
check "train --help names --max-steps" "grep -q -- --max-steps '$T/help'"
"$B" predict --help > /dev/null; check "predict --help exits 0" "[ $? -eq 0 ]"

expect_usage "batch 0" ${SMALL/--batch 8/--batch 0}
expect_usage "seq beyond positions" --model tiny --seq 1024
expect_usage "unknown kernel" $SMALL --kernel no-such-kernel
expect_usage "int8 kernel" $SMALL --kernel vnni-int8
expect_usage "missing train file" $SMALL --vocab "$T/none.txt" --train "$T/none.json"
expect_usage "train without vocab" $SMALL --train "$T/none.json"
expect_usage "missing init dir" $SMALL --init "$T/nothing"
expect_usage "bad model spec" --model 2,60,7,100
expect_usage "unknown option" $SMALL --frobnicate

# A kernel this machine cannot run (so on any CPU under the test force): one
# line, exit 3, the result file recorded as skipped so a sweep keeps the point.
rm -f "$T/r.json"
SB_FORCE_NO_AVX512=1 "$B" train $SMALL --kernel avx512-f32 --max-steps 1 --result-file "$T/r.json" > /dev/null 2> "$T/err"
rc=$?
check "unavailable kernel: exit 3 (got $rc)" "[ $rc -eq 3 ]"
check "unavailable kernel: one line naming the reason" "[ \$(wc -l < '$T/err') -eq 1 ] && grep -q 'avx512-f32 cannot run on this machine: AVX-512 forced off' '$T/err'"
check "unavailable kernel: result skipped" "grep -q '\"skipped\"' '$T/r.json'"
SB_FORCE_NO_AVX512=1 "$B" predict --init "$T/none" --data "$T/none.json" --out "$T/p.json" --kernel avx512-f32 > /dev/null 2> "$T/err"
rc=$?
check "predict, unavailable kernel: exit 3 (got $rc)" "[ $rc -eq 3 ] && [ ! -e '$T/p.json' ]"
# The default kernel is the fastest f32 one this machine runs; with AVX-512
# forced off it is what an AVX2-only CPU would get.
for force in "" SB_FORCE_NO_AVX512 SB_FORCE_NO_AVX2; do
    if [ -n "$force" ]; then env "$force=1" "$B" info --json > "$T/i.json"; else "$B" info --json > "$T/i.json"; fi
    want=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); a=[k["name"] for k in d["kernels"] if k["available"]]
print(next(k for k in ["avx512-f32","avx2-f32","onednn-f32","scalar-f32"] if k in a))' "$T/i.json")
    if [ -n "$force" ]; then env "$force=1" "$B" train $SMALL --max-steps 1 --result-file "$T/d.json" > /dev/null 2> "$T/err"
    else "$B" train $SMALL --max-steps 1 --result-file "$T/d.json" > /dev/null 2> "$T/err"; fi
    check "default kernel ${force:-unforced}: $want" "grep -q '\"kernel\": \"$want\"' '$T/d.json'"
done

# A short run on synthetic data.
"$B" train $SMALL --max-steps 4 --eval --save "$T/ckpt" --result-file "$T/r.json" \
    > "$T/out" 2> "$T/err"; rc=$?
check "short run exits 0 (got $rc)" "[ $rc -eq 0 ]"
check "says it trains on squad-synth" "grep -q squad-synth '$T/err'"
check "result status ok" "python3 -c 'import json,sys; d=json.load(open(\"$T/r.json\")); sys.exit(0 if d[\"status\"]==\"ok\" and d[\"workload\"]==\"train\" else 1)'"
check "result has the metrics" "python3 -c '
import json,sys
d=json.load(open(\"$T/r.json\")); m=d[\"metrics\"]
need=[\"tokens_per_s\",\"sequences_per_s\",\"step_seconds\",\"achieved_gflops\",\"epoch_seconds\",\"projected\",\"loss_first\",\"loss_final\",\"em\",\"f1\",\"peak_rss_mb\"]
sys.exit(0 if all(k in m for k in need) and m[\"projected\"]==1 and len(d[\"samples\"])==4 and \"epoch_seconds\" in d[\"projected\"] and m[\"tokens_per_s\"]>0 else 1)'"
check "saved config.json and model.safetensors" "[ -s '$T/ckpt/config.json' -a -s '$T/ckpt/model.safetensors' ]"

# Every result records its padding (padding_pct, % of the training features'
# positions); a model other than tiny trains on squad-synth at SQuAD v1.1's
# lengths: at seq 384 / stride 128 about SQuAD v1.1 dev's 53 % (band 45-61),
# where the short set tiny learns is 93 % (#41).
"$B" train --model 2,32,2,64 --seq 384 --batch 2 --synth-train 300 --max-steps 1 --threads 2 \
    --result-file "$T/pad.json" > /dev/null 2> "$T/pad.err"; rc=$?
check "seq 384 run exits 0 (got $rc)" "[ $rc -eq 0 ]"
check "says it trains at SQuAD's lengths" "grep -q \"SQuAD v1.1's lengths\" '$T/pad.err'"
check "padding_pct recorded, SQuAD's: $(python3 -c "import json; print(json.load(open('$T/pad.json'))['metrics'].get('padding_pct'))" 2>/dev/null)" "python3 -c '
import json,sys
d=json.load(open(\"$T/pad.json\")); p=d[\"metrics\"][\"padding_pct\"]
sys.exit(0 if 45 < p < 61 and d[\"units\"][\"padding_pct\"] == \"%\" and abs(p - 100 * d[\"config\"][\"padding_share\"]) < 1e-6 else 1)'"
check "tiny's run records its padding too" "python3 -c '
import json,sys
m=json.load(open(\"$T/r.json\"))[\"metrics\"]; sys.exit(0 if 0 < m[\"padding_pct\"] < 100 else 1)'"

# Repeatable: the same seed gives the same losses.
"$B" train $SMALL --max-steps 3 --result-file "$T/a.json" 2> /dev/null > /dev/null
"$B" train ${SMALL/--threads 2/--threads 1} --max-steps 3 --result-file "$T/b.json" 2> /dev/null > /dev/null
check "same seed, same final loss (1 or 2 threads)" "python3 -c '
import json,sys
a=json.load(open(\"$T/a.json\"))[\"metrics\"]; b=json.load(open(\"$T/b.json\"))[\"metrics\"]
print(\"   \", a[\"loss_final\"], b[\"loss_final\"])
sys.exit(0 if abs(a[\"loss_final\"]-b[\"loss_final\"]) <= 1e-5*abs(a[\"loss_final\"]) else 1)'"

# Attention stops at each sequence's last real token; --full-attention attends
# over the padding too, as PyTorch does: the same model, byte for byte.
"$B" train $SMALL --max-steps 3 --save "$T/skip" --result-file "$T/skip.json" 2> "$T/skip.err" > /dev/null
"$B" train $SMALL --max-steps 3 --save "$T/full" --full-attention --result-file "$T/full.json" \
    2> "$T/full.err" > /dev/null
check "padded keys skipped or attended: identical checkpoints" \
    "cmp -s '$T/skip/model.safetensors' '$T/full/model.safetensors'"
check "the run says how much is padding and what attention does with it" \
    "grep -q '% padding, skipped by attention' '$T/skip.err' && grep -q '% padding, attended' '$T/full.err'"
check "result config: padding_share in (0, 1), full_attention recorded" "python3 -c '
import json,sys
a=json.load(open(\"$T/skip.json\"))[\"config\"]; b=json.load(open(\"$T/full.json\"))[\"config\"]
print(\"   \", a[\"padding_share\"], a[\"full_attention\"], b[\"full_attention\"])
sys.exit(0 if 0 < a[\"padding_share\"] < 1 and a[\"full_attention\"] is False and b[\"full_attention\"] is True else 1)'"

# The binding in force is recorded for one process too: left to the OS by
# default, bound one thread per core with --bind core.
check "one process: binding recorded, mode none by default" "python3 -c '
import json,sys
d=json.load(open(\"$T/b.json\")); sys.exit(0 if d[\"binding\"][\"mode\"]==\"none\" and \"threads\" in d[\"per_rank\"][0][\"binding\"] else 1)'"
"$B" train ${SMALL/--threads 2/--threads 1} --max-steps 1 --bind core --result-file "$T/bc.json" 2> /dev/null > /dev/null
check "one process with --bind core: its thread on one core" "python3 -c '
import json,re,sys
d=json.load(open(\"$T/bc.json\")); b=d[\"per_rank\"][0][\"binding\"]; print(\"   \", b)
sys.exit(0 if d[\"binding\"][\"mode\"]==\"core\" and re.search(r\"threads [0-9]+$\", b) else 1)'"

# --profile: every layer kind with its time, the matrix-product kinds with GFLOP/s
"$B" train $SMALL --max-steps 2 --profile > "$T/prof" 2> /dev/null
check "--profile: 11 kinds, 6 of them with GFLOP/s" "[ \$(grep -cE '^  [a-z].* s +[0-9.]+ %' '$T/prof') -eq 11 ] && [ \$(grep -c '^  .*GFLOP/s\$' '$T/prof') -eq 6 ]"

# scripts/bench-vs-pytorch (its runs need PyTorch; its usage errors do not):
# --help works, bad options give one line and exit 2 before anything runs.
BVP="${SB_SOURCE_DIR:-$(dirname "$0")/..}/scripts/bench-vs-pytorch"
check "bench-vs-pytorch --help" "/usr/bin/python3 '$BVP' --help > /dev/null 2>&1"
for bad in "--steps 1 --sprbench $B" "--rounds 0 --sprbench $B" "--precisions f16 --sprbench $B" "--batches 0,8 --sprbench $B" \
           "--sprbench /nonexistent" "--bogus --sprbench $B" "--train $T/dev.json --sprbench $B" \
           "--vocab /nonexistent --train /nonexistent --sprbench $B" "--isa avx3 --sprbench $B" \
           "--isa avx2 --precisions bf16 --sprbench $B"; do
    timeout 60 /usr/bin/python3 "$BVP" $bad > "$T/out" 2> "$T/err"; rc=$?
    check "bench-vs-pytorch $bad: exit 2 with one line" "[ $rc -eq 2 ] && [ \$(wc -l < '$T/err') -eq 1 ]"
done

# predict -> evaluate with the saved checkpoint.
"$B" squad-synth --questions 30 --seed 5 --dev --lengths short --out "$T/dev.json" > /dev/null
"$B" predict --init "$T/ckpt" --data "$T/dev.json" --out "$T/preds.json" --seq 64 --stride 16 \
    > "$T/out" 2> "$T/err"; rc=$?
check "predict exits 0 (got $rc: $(head -c 200 "$T/err"))" "[ $rc -eq 0 ]"
check "predictions: one per question" "python3 -c 'import json,sys; sys.exit(0 if len(json.load(open(\"$T/preds.json\")))==30 else 1)'"
"$B" evaluate --data "$T/dev.json" --predictions "$T/preds.json" > "$T/score"; rc=$?
check "evaluate scores the predictions" "[ $rc -eq 0 ] && grep -q exact_match '$T/score'"

# --init from the saved directory continues from its weights.
"$B" train $SMALL --init "$T/ckpt" --max-steps 1 --result-file "$T/c.json" > /dev/null 2>&1; rc=$?
check "--init from a saved directory (got $rc)" "[ $rc -eq 0 ]"
if [ -r "${SB_SHARED_DATA:-/nonexistent}/bert-base-uncased/vocab.txt" ]; then
    rm -f "$T/p2.json"
    "$B" predict --init "$T/ckpt" --vocab "$SB_SHARED_DATA/bert-base-uncased/vocab.txt" \
        --data "$T/dev.json" --out "$T/p2.json" 2> "$T/err"; rc=$?
    check "predict: vocab size vs checkpoint -> exit 2 (got $rc)" "[ $rc -eq 2 ] && [ ! -e '$T/p2.json' ]"
fi

# A checkpoint with a wrong tensor: config says dim 32, the tensors are dim 64.
cp -r "$T/ckpt" "$T/bad"
python3 -c "
import json; p='$T/bad/config.json'; c=json.load(open(p)); c['dim']=32; c['hidden_dim']=128
json.dump(c, open(p,'w'))"
expect_usage "checkpoint with wrong tensors" $SMALL --init "$T/bad"
"$B" predict --init "$T/bad" --data "$T/dev.json" --out "$T/p3.json" 2> "$T/err"; rc=$?
check "predict: wrong tensors -> exit 2, nothing written" "[ $rc -eq 2 ] && [ ! -e '$T/p3.json' ]"

# A NaN loss stops training with its step, recorded as failed, exit 1.
SB_TRAIN_TEST_NAN_STEP=2 "$B" train $SMALL --max-steps 4 --result-file "$T/n.json" \
    > /dev/null 2> "$T/err"; rc=$?
check "NaN loss: exit 1 (got $rc)" "[ $rc -eq 1 ]"
check "NaN loss: names step 2: $(tail -1 "$T/err")" "grep -q 'NaN at step 2' '$T/err'"
check "NaN loss: result failed with the step" "python3 -c '
import json,sys; d=json.load(open(\"$T/n.json\"))
sys.exit(0 if d[\"status\"]==\"failed\" and \"step 2\" in d[\"reason\"] and d[\"config\"][\"failed_step\"]==2 else 1)'"
exit $fail
