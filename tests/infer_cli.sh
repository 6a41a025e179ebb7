# sprbench infer at CLI level: the answers of `predict` and `infer` on an f32
# kernel are the same file; an int8 kernel's result document holds every
# metric; bad input is one line, exit 2, nothing written; a kernel this machine
# cannot run is exit 3 with a 'skipped' result (as train).
. "$(dirname "$0")/lib.sh"
B=$SPRBENCH

# a small checkpoint (a few steps: enough to have non-trivial weights)
"$B" train --model tiny --synth-train 200 --batch 8 --seq 64 --stride 16 --max-steps 4 \
    --threads 2 --save "$T/ckpt" >/dev/null 2>"$T/err" || { cat "$T/err"; echo FAIL; exit 1; }
"$B" squad-synth --questions 40 --dev --lengths short --out "$T/dev.json" >/dev/null
COMMON=(--init "$T/ckpt" --data "$T/dev.json" --seq 64 --stride 16 --threads 2)

expect_rc 0 "$B" infer --help
expect_grep "usage: sprbench infer" "$T/out"
expect_grep "requests" "$T/out"

# predict and infer share one forward path and post-processing
F32=$(best_f32_kernel)
expect_rc 0 "$B" predict "${COMMON[@]}" --kernel "$F32" --batch 8 --out "$T/pred.json"
expect_rc 0 "$B" infer "${COMMON[@]}" --kernel "$F32" --batch 8 --out "$T/inf.json" \
    --result-file "$T/r32.json"
if cmp -s "$T/pred.json" "$T/inf.json"; then ok; else fail "predict and infer ($F32) answers differ"; fi
# and the batch does not change them (f32: one path, same answers)
expect_rc 0 "$B" infer "${COMMON[@]}" --kernel "$F32" --batch 3 --no-latency --out "$T/inf3.json"
if cmp -s "$T/pred.json" "$T/inf3.json"; then ok; else fail "infer --batch 3 answers differ"; fi

# an int8 kernel: the metrics, bounded by --requests, compared with f32
K8=$(first_available vnni-int8 avx2-int8 onednn-int8)
if [ -n "$K8" ]; then
  expect_rc 0 "$B" infer "${COMMON[@]}" --kernel "$K8" --batch 4 --requests 10 --compare-f32 \
      --out "$T/p8.json" --result-file "$T/r8.json"
  expect_grep "latency at batch 1: p50" "$T/out"
  expect_grep "identical answers" "$T/out"
  python3 - "$T/r8.json" "$T/p8.json" "$K8" <<'PY' || fail "int8 result document"
import json, sys
d = json.load(open(sys.argv[1]))
m, c = d["metrics"], d["config"]
assert d["status"] == "ok" and d["workload"] == "infer", d["status"]
assert d["kernel"] == sys.argv[3] and d["dtype"] == "int8"
for k in ("latency_p50_ms", "latency_p90_ms", "latency_p99_ms", "sequences_per_s",
          "tokens_per_s", "em", "f1", "f32_agreement_pct", "f32_em", "f32_f1", "peak_rss_mb"):
    assert k in m, k
assert 0 < m["latency_p50_ms"] <= m["latency_p90_ms"] <= m["latency_p99_ms"]
assert m["sequences_per_s"] > 0 and abs(m["tokens_per_s"] - 64 * m["sequences_per_s"]) < 1e-6 * m["tokens_per_s"]
assert 0 <= m["f32_agreement_pct"] <= 100
assert c["questions"] == 10 and c["questions_in_data"] == 40 and c["quant"] == "row"
assert c["attention_kernel"].endswith("-f32"), c["attention_kernel"]
assert len(d["latency_samples"]) == 10 and len(d["samples"]) == 3   # 10 features in batches of 4
assert len(json.load(open(sys.argv[2]))) == 10
PY
  ok
  expect_rc 0 "$B" infer "${COMMON[@]}" --kernel "$K8" --requests 5 --quant tensor --no-latency
  expect_grep "activations per tensor" "$T/out"
  # 7-bit activations (avx2-int8: its vpmaddubsw path), recorded as such
  expect_rc 0 "$B" infer "${COMMON[@]}" --kernel "$K8" --requests 5 --quant row7 --no-latency \
      --result-file "$T/r7.json"
  expect_grep "activations per row, 7 bits" "$T/out"
  python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['config']['quant'] == 'row7'" \
      "$T/r7.json" && ok || fail "row7 not recorded in the result's config"
  # both attention products in int8 too (sb_qattn): answers come, recorded as such
  expect_rc 0 "$B" infer "${COMMON[@]}" --kernel "$K8" --requests 10 --quant row7 --no-latency \
      --attention int8 --compare-f32 --result-file "$T/ra.json"
  expect_grep "identical answers" "$T/out"
  expect_grep "activations per row, 7 bits, int8 attention\)" "$T/out"
  python3 - "$T/ra.json" "$K8" <<'PY' && ok || fail "--attention int8 not recorded"
import json, sys
d = json.load(open(sys.argv[1]))
c, m = d["config"], d["metrics"]
assert d["status"] == "ok" and c["attention"] == "int8" and c["attention_kernel"] == sys.argv[2], c
assert m["sequences_per_s"] > 0 and 0 <= m["f32_agreement_pct"] <= 100
PY
  python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['config']['attention'] == 'f32'" \
      "$T/r7.json" && ok || fail "the default attention (f32) not recorded"
else
  echo "no int8 kernel runs here: int8 checks left out"
fi

# a random model of a shape, for speed runs
expect_rc 0 "$B" infer --model tiny --requests 6 --batch 4 --threads 1 --result-file "$T/rt.json"
expect_grep '"model": "tiny"' "$T/rt.json"

# sweep --workload infer: every kernel (int8 included) by default, the worker's
# options passed through, points stored
expect_rc 0 "$B" sweep --workload infer --model tiny --requests 4 --batch 2 --threads 1 \
    --db "$T/dry.db" --dry-run
expect_grep "infer --kernel vnni-int8 .*--requests 4" "$T/out"
expect_grep "infer --kernel amx-int8 " "$T/out"
printf 'workload = infer\nmodel = tiny\nrequests = 4\nbatch = 2\nthreads = 1\nfull-attention = 1\nkernels = %s%s\n' \
    "$F32" "${K8:+,$K8}" >"$T/plan.txt"
expect_rc 0 "$B" sweep --plan "$T/plan.txt" --db "$T/sw.db" --label inf
NPTS=1; [ -n "$K8" ] && NPTS=2
expect_grep "sweep 1: $NPTS ok, 0 skipped, 0 failed" "$T/out"
expect_rc 2 "$B" sweep --workload infer --requests 0 --db "$T/sw2.db" --dry-run
expect_rc 2 "$B" sweep --workload infer --eval --db "$T/sw2.db" --dry-run

# bad input: one line, exit 2, nothing written
bad() {
  rm -f "$T/o.json" "$T/rb.json"
  expect_rc 2 "$B" infer "$@" --out "$T/o.json" --result-file "$T/rb.json"
  expect_one_error_line "$PAT"
  if [ -e "$T/o.json" ] || [ -e "$T/rb.json" ]; then fail "written on bad input: $*"; else ok; fi
}
PAT='batch: 0' bad "${COMMON[@]}" --batch 0
PAT='requests: 0' bad "${COMMON[@]}" --requests 0
PAT='unknown kernel' bad "${COMMON[@]}" --kernel no-such
PAT="quant 'col'" bad "${COMMON[@]}" --quant col
PAT="quant 'row8': expected row, tensor, row7 or tensor7" bad "${COMMON[@]}" --quant row8
PAT="attention 'bf16': expected f32 or int8" bad "${COMMON[@]}" --attention bf16
PAT='attention int8 needs an int8 kernel' bad "${COMMON[@]}" --kernel "$F32" --attention int8
PAT='exclude' bad "${COMMON[@]}" --model tiny
echo '{"version": "1.1", "data": []}' >"$T/empty.json"
PAT='no questions' bad --init "$T/ckpt" --data "$T/empty.json" --seq 64 --stride 16
# a vocabulary the checkpoint was not trained with
"$B" squad-synth --questions 1 --out "$T/x.json" --write-vocab "$T/vocab.txt" >/dev/null
printf '[extra1]\n[extra2]\n' >>"$T/vocab.txt"
PAT='tokens but' bad "${COMMON[@]}" --vocab "$T/vocab.txt"
# a config that does not match the weights
cp -r "$T/ckpt" "$T/ckpt2"
sed -i 's/"dim": 64/"dim": 96/' "$T/ckpt2/config.json"
PAT='ckpt2' bad --init "$T/ckpt2" --data "$T/dev.json" --seq 64 --stride 16
# weights that are not finite: refused when the checkpoint is read, on every
# kernel, by infer, predict and train (--init), one line naming the tensor,
# exit 1, no answers and no result written (issue 25: a NaN bias made f32
# inference exit 0 with EM 0, and predict write empty answers)
poke() { # DIR TENSOR ELEMENT VALUE [COUNT]: floats of a copy of the checkpoint
  rm -rf "$1"; cp -r "$T/ckpt" "$1"
  python3 - "$1/model.safetensors" "$2" "$3" "$4" "${5:-1}" <<'PY'
import json, struct, sys
p, name, el, val, cnt = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
b = bytearray(open(p, "rb").read())
n = struct.unpack("<Q", b[:8])[0]
h = json.loads(b[8:8 + n])
for i in range(cnt):
    off = 8 + n + h[name]["data_offsets"][0] + 4 * (el + i)
    b[off:off + 4] = struct.pack("<f", val)
open(p, "wb").write(bytes(b))
PY
}
refused() { # EXIT PATTERN COMMAND...: one line, nothing written, no result 'ok'
  local want=$1 pat=$2; shift 2
  rm -f "$T/o.json" "$T/rn.json"
  expect_rc "$want" "$@"
  expect_one_error_line "$pat"
  if [ -e "$T/o.json" ] || grep -qs '"status": "ok"' "$T/rn.json"; then
    fail "answers or an ok result written: $*"; else ok; fi
}
QB=distilbert.transformer.layer.0.attention.q_lin.bias
poke "$T/nan" "$QB" 3 nan
poke "$T/inf" distilbert.transformer.layer.1.ffn.lin2.weight 7 inf
NANPAT="nan: tensor $QB holds NaN at element 3"
for K in "$F32" ${K8:+"$K8"}; do
  refused 1 "$NANPAT" "$B" infer --init "$T/nan" --data "$T/dev.json" --seq 64 --stride 16 \
    --threads 2 --kernel "$K" --out "$T/o.json" --result-file "$T/rn.json"
  refused 1 'inf: tensor distilbert.transformer.layer.1.ffn.lin2.weight holds Inf at element 7' \
    "$B" infer --init "$T/inf" --data "$T/dev.json" --seq 64 --stride 16 --threads 2 \
    --kernel "$K" --out "$T/o.json"
done
refused 1 "$NANPAT" "$B" predict --init "$T/nan" --data "$T/dev.json" --seq 64 --stride 16 \
  --threads 2 --kernel "$F32" --out "$T/o.json"
rm -f "$T/rn.json"
expect_rc 1 "$B" train --init "$T/nan" --synth-train 20 --batch 4 --seq 64 --stride 16 \
  --max-steps 1 --threads 2 --kernel "$F32" --result-file "$T/rn.json"
expect_grep "$NANPAT" "$T/err"
! grep -qs '"status": "ok"' "$T/rn.json" && ok || fail "train wrote an ok result from NaN weights"
# finite weights whose results overflow: the first layer whose output (or,
# int8, whose input) is not finite is named (ffn lin2's weights all 3e38:
# its sums of products pass the largest float)
poke "$T/big" distilbert.transformer.layer.0.ffn.lin2.weight 0 3e38 $((64 * 256))
for K in "$F32" ${K8:+"$K8"}; do
  refused 1 'layer\.0\..*(NaN|Inf)' "$B" infer --init "$T/big" --data "$T/dev.json" \
    --seq 64 --stride 16 --threads 2 --kernel "$K" --out "$T/o.json" --result-file "$T/rn.json"
done

# a kernel this machine cannot run: exit 3, the result recorded as skipped, no answers
rm -f "$T/o.json" "$T/rs.json"
expect_rc 3 env SB_FORCE_NO_AVX2=1 "$B" infer "${COMMON[@]}" --kernel avx2-int8 --out "$T/o.json" \
    --result-file "$T/rs.json"
expect_one_error_line "cannot run on this machine"
expect_grep '"status": "skipped"' "$T/rs.json"
if [ -e "$T/o.json" ]; then fail "answers written for a skipped kernel"; else ok; fi

finish infer_cli
