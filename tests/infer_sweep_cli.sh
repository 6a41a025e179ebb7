#!/usr/bin/env bash
# sweep --workload infer as a user meets it: a small real sweep over kernels
# (the best f32 one, and an int8 one where this machine runs one) x threads 1
# x batch 1,4 on the tiny model; each batch its own point (db points --json,
# a resume that reruns a batch-4 point with its batch); the inference plots
# (throughput per batch, latency, accuracy per precision) with their data;
# the report's inference section beside training; gate pairing only the
# points of the same batch across two sweeps; bad batches and quant
# values refused in one line, exit 2, no database written.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
B=$SPRBENCH
F32=$(best_f32_kernel)
K8=$(first_available vnni-int8 avx2-int8 onednn-int8)
KERNELS=$F32${K8:+,$K8}
NK=1; [ -n "$K8" ] && NK=2
[ -n "$K8" ] || echo "no int8 kernel runs here: the sweep runs $F32 only"

# --- the sweep: kernels x threads 1 x batch 1,4 ---
expect_rc 0 "$B" sweep --workload infer --model tiny --requests 6 --kernels "$KERNELS" \
    --threads 1 --batch 1,4 --compare-f32 --db "$T/s.db" --label inf --dry-run
expect_grep "^# $((2 * NK)) point\(s\), workload infer, batch 1,4$" "$T/out"
expect_grep "infer --kernel $F32 --batch 1 --model tiny" "$T/out"
expect_grep "infer --kernel $F32 --batch 4 --model tiny" "$T/out"
# latency (at batch 1 whatever the batch) only on the smallest batch's points
expect_grep "infer --kernel $F32 --batch 4 --model tiny .*--no-latency" "$T/out"
if grep -q "infer --kernel $F32 --batch 1 --model tiny .*--no-latency" "$T/out"; then
  fail "the batch-1 point skips its latency"
else ok; fi
[ ! -e "$T/s.db" ] && ok || fail "--dry-run wrote a database"
expect_rc 0 "$B" sweep --workload infer --model tiny --requests 6 --kernels "$KERNELS" \
    --threads 1 --batch 1,4 --compare-f32 --db "$T/s.db" --label inf
expect_grep "^sweep 1: $((2 * NK)) ok, 0 skipped, 0 failed" "$T/out"
expect_grep "infer $F32 model=tiny batch=4 threads=1" "$T/out"
# the summary counts answered sequences for inference
expect_grep "^$F32 +model=tiny batch=4 +1 +1 +1 +ok +[0-9.]+ seq/s " "$T/out"

# each batch its own point, the batch in its series key; int8 points say their quant
points() {
  "$B" db points --db "$T/s.db" --sweep 1 --json >"$T/points.json" || fail "db points --json"
  python3 - "$T/points.json" "$F32" "$K8" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pts = d["points"] if isinstance(d, dict) else d
f32, k8 = sys.argv[2], sys.argv[3]
want = {(k, b) for k in [f32] + ([k8] if k8 else []) for b in (1, 4)}
got = {(p["kernel"], int(p["shape"].split("batch=")[1].split()[0])) for p in pts}
assert got == want, (got, want)
for p in pts:
    assert p["workload"] == "infer" and p["status"] == "ok", p
    assert p["shape"] == "model=tiny batch=%d" % (1 if "batch=1" in p["shape"] else 4), p["shape"]
    cfg = p["config"] if isinstance(p["config"], str) else json.dumps(p["config"])
    assert ('"quant":"row"' in cfg.replace(" ", "")) == (p["dtype"] == "int8"), (p["kernel"], cfg)
    for m in ("sequences_per_s", "em", "f1", "f32_agreement_pct"):
        assert m in p["metrics"], (p["kernel"], m)
    # latency (always at batch 1) is measured on the smallest batch's point only
    small = "batch=1" in p["shape"]
    for m in ("latency_p50_ms", "latency_p99_ms"):
        assert (m in p["metrics"]) == small, (p["kernel"], p["shape"], m)
    assert p["samples_seconds"], p
print(len(pts))
PY
}
[ "$(points)" = "$((2 * NK))" ] && ok || fail "db points: the points and their batches"

# a resume reruns a batch-4 point with its own batch (read back from its key)
python3 - "$T/s.db" <<'PY' || fail "could not mark a point pending"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE point SET status = 'pending' WHERE shape = 'model=tiny batch=4'")
db.commit()
PY
expect_rc 0 "$B" sweep --resume 1 --db "$T/s.db"
expect_grep "^sweep 1: $NK point\(s\) to run" "$T/out"
expect_grep "infer $F32 model=tiny batch=4 threads=1 ppn=1 nodes=1: ok" "$T/out"
[ "$(points)" = "$((2 * NK))" ] && ok || fail "db points after the resume"
python3 - "$T/s.db" <<'PY' && ok || fail "the resumed point's command lacks its batch"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
cmds = [r[0] for r in db.execute("SELECT command FROM point WHERE shape = 'model=tiny batch=4'")]
assert cmds and all(" --batch 4 " in c for c in cmds), cmds
PY

# --- plots: throughput per batch (sequences/s), latency, accuracy per precision ---
# the sweep named by its label, as db and report take it; an unknown one: exit 2
expect_rc 2 "$B" plot --db "$T/s.db" --sweep no-such-label --out "$T/p2"
expect_one_error_line "no sweep 'no-such-label'"
[ ! -e "$T/p2" ] && ok || fail "an unknown sweep made the --out directory"
expect_rc 0 "$B" plot --db "$T/s.db" --sweep inf --out "$T/p"
# one thread count: a throughput figure per batch, no speedup figure (every
# point would be 1.0)
[ "$(wc -l <"$T/out")" -eq 16 ] && ok || fail "expected 16 files (2 batches + 2 figures, x 4)"
for f in throughput-model_tiny_batch_1 throughput-model_tiny_batch_4 latency accuracy; do
  for x in png svg gp dat; do [ -s "$T/p/$f.$x" ] && ok || fail "$f.$x missing or empty"; done
done
[ ! -e "$T/p/speedup-model_tiny_batch_4.png" ] && ok || fail "a speedup figure for one thread count"
for b in 1 4; do
  F="$T/p/throughput-model_tiny_batch_$b"
  expect_grep '^set ylabel "sequences/s' "$F.gp"
  expect_grep "SQuAD inference model=tiny batch=$b" "$F.svg"
  [ "$(grep -c '^# \$d' "$F.dat")" -eq "$NK" ] && ok || fail "batch $b: $NK kernel series expected"
done
# latency: a series per kernel, its row the batch-1 point (last column: the batch)
[ "$(grep -c '^# \$l' "$T/p/latency.dat")" -eq "$NK" ] && ok || fail "latency: $NK series expected"
[ "$(grep -cE '^1 [0-9.e+-]+ [0-9.e+-]+ [0-9.e+-]+ 1$' "$T/p/latency.dat")" -eq "$NK" ] && ok ||
  fail "latency: one row at threads 1, batch 1 per kernel expected"
expect_grep "title \"$F32\"" "$T/p/latency.gp"
# accuracy: a row per kernel with EM, F1 and the agreement with f32, by precision
python3 - "$T/p/accuracy.dat" "$NK" <<'PY' && ok || fail "accuracy.dat: a row per kernel with three values"
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith('#')]
assert len(rows) == int(sys.argv[2]), rows
for r in rows:
    assert len(r) == 8 and 'NaN' not in r[:6], r
    assert 0 <= float(r[1]) <= 100 and 0 <= float(r[3]) <= 100 and 0 <= float(r[5]) <= 100, r
PY
if [ -n "$K8" ]; then
  expect_grep '^set x2tics \("f32" [0-9.]+, "int8" [0-9.]+\)$' "$T/p/accuracy.gp"
else
  expect_grep '^set x2tics \("f32" [0-9.]+\)$' "$T/p/accuracy.gp"
fi

# --- report: the inference section, for one sweep and beside training ---
expect_rc 0 "$B" report --db "$T/s.db" --baseline 1 --candidate 1 --out "$T/r1"
R="$T/r1/report.md"
expect_grep '^## Inference \(DistilBERT SQuAD question answering\)$' "$R"
expect_grep '^### Inference accuracy$' "$R"
for b in 1 4; do
  expect_grep "^\| $F32 \| f32 \| model=tiny batch=$b \| 1 \| [0-9.]+ \[" "$R"
  [ -z "$K8" ] || expect_grep "^\| $K8 \| int8 \| model=tiny batch=$b quant=row \| 1 \| " "$R"
done
# throughput tested on the timed batches, latency on the questions' latencies (6 each)
expect_grep '\| same \(1.00x\) \(not significant\) \|$' "$R"
expect_grep "^\| $F32 \| f32 \| model=tiny batch=1 \| [0-9.]+ / [0-9.]+ \| [0-9.]+ / [0-9.]+ \| \+0.00 points \| 100.00 % \| 100.00 % \|$" "$R"
for f in infer infer-latency; do [ -s "$T/r1/$f.png" ] && ok || fail "report chart $f.png missing"; done
# a training sweep beside it: two sweeps, one each, and the machine with both
expect_rc 0 "$B" sweep --workload train --model tiny --synth-train 200 --max-steps 3 --batch 8 \
    --kernels "$F32" --threads 1 --db "$T/s.db" --label tr
expect_rc 0 "$B" report --db "$T/s.db" --baseline 2 --candidate 1 --out "$T/r2"
R="$T/r2/report.md"
expect_grep "^\| $F32 \| f32 \| model=tiny batch=8 \| 1 \| [0-9.]+ \[.*\| not available \(not run\) \|" "$R"
expect_grep "^\| $F32 \| f32 \| model=tiny batch=4 \| 1 \| not available \(not run\) \| [0-9.]+ \[" "$R"
HOST=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["hostname"])' < <("$B" info --json))
expect_rc 0 "$B" report --db "$T/s.db" --baseline "$HOST" --candidate "$HOST" --out "$T/r3"
R="$T/r3/report.md"
expect_grep '^## Training \(DistilBERT SQuAD fine-tuning\)$' "$R"
expect_grep '^## Inference \(DistilBERT SQuAD question answering\)$' "$R"
expect_grep "^\| $F32 \| f32 \| model=tiny batch=8 \| 1 \| [0-9.]+ \[.*\| [0-9.]+ \[" "$R"
expect_grep "^\| $F32 \| f32 \| model=tiny batch=4 \| 1 \| [0-9.]+ \[.*\| [0-9.]+ \[" "$R"
for f in train infer infer-latency; do [ -s "$T/r3/$f.png" ] && ok || fail "report chart $f.png missing"; done

# --- gate compares like with like: a batch-4-only sweep against the batch 1,4 one ---
expect_rc 0 "$B" sweep --workload infer --model tiny --requests 6 --kernels "$KERNELS" \
    --threads 1 --batch 4 --db "$T/s.db" --label inf4
# the verdicts depend on timing (not asserted): only which points were paired
"$B" gate --db "$T/s.db" --baseline 1 --candidate 3 --json >"$T/gate.json" 2>"$T/err"
case $? in 0|1) ok ;; *) fail "gate: $(head -1 "$T/err")" ;; esac
python3 - "$T/gate.json" "$NK" <<'PY' && ok || fail "gate paired points of different batches"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
paired = [r for r in rows if r["baseline_point"] and r["candidate_point"]]
missing = [r for r in rows if "missing in the candidate" in r["note"]]
assert len(paired) == int(sys.argv[2]) and all("batch=4" in r["point"] for r in paired), paired
assert len(missing) == int(sys.argv[2]) and all("batch=1" in r["point"] for r in missing), missing
PY

# --- history keys on the configuration too: int8 per row and per tensor are
# two histories (sweeps 1 and 3 ran per row, sweep 4 per tensor) ---
if [ -n "$K8" ]; then
  # "newest" is by the sweep's start time (seconds; a tie goes by uuid): a
  # second between sweeps keeps the order this test means
  sleep 1
  expect_rc 0 "$B" sweep --workload infer --model tiny --requests 6 --kernels "$K8" \
      --threads 1 --batch 4 --quant tensor --db "$T/s.db" --label inf4t
  expect_rc 0 "$B" plot --db "$T/s.db" --history --kernel "$K8" --threads 1 \
      --shape "model=tiny batch=4" --out "$T/h"
  # the whole line, as sprbench plot prints the note sb_plot_history returns
  expect_grep '^sprbench plot: history of the newest point.s configuration \{"quant":"tensor"\}; 2 sweep\(s\) with another left out$' "$T/err"
  H=$(ls "$T"/h/history-*.dat)
  [ "$(grep -v '^#' "$H" | grep -c .)" -eq 1 ] && ok || fail "history: 1 per-tensor sweep expected"
  # a per-row sweep again: the newest configuration is per row, 3 sweeps of it
  sleep 1
  expect_rc 0 "$B" sweep --workload infer --model tiny --requests 6 --kernels "$K8" \
      --threads 1 --batch 4 --db "$T/s.db" --label inf4r
  expect_rc 0 "$B" plot --db "$T/s.db" --history --kernel "$K8" --threads 1 \
      --shape "model=tiny batch=4" --out "$T/h2"
  expect_grep '^sprbench plot: history of the newest point.s configuration \{"quant":"row"\}; 1 sweep\(s\) with another left out$' "$T/err"
  H=$(ls "$T"/h2/history-*.dat)
  [ "$(grep -v '^#' "$H" | grep -c .)" -eq 3 ] && ok || fail "history: 3 per-row sweeps expected"
fi

# --- --attention int8: the int8 points' workers take it, the f32 points' do
# not (they would refuse it); the int8 points' config says so ---
if [ -n "$K8" ]; then
  expect_rc 0 "$B" sweep --workload infer --model tiny --requests 4 --kernels "$F32,$K8" \
      --threads 1 --batch 4 --attention int8 --db "$T/a.db" --label attn --dry-run
  expect_grep "infer --kernel $K8 --batch 4 .*--attention int8" "$T/out"
  if grep -q "infer --kernel $F32 .*--attention" "$T/out"; then
    fail "the f32 point's worker was given --attention"
  else ok; fi
  expect_rc 0 "$B" sweep --workload infer --model tiny --requests 4 --kernels "$F32,$K8" \
      --threads 1 --batch 4 --attention int8 --db "$T/a.db" --label attn
  expect_grep "^sweep 1: 2 ok, 0 skipped, 0 failed" "$T/out"
  "$B" db points --db "$T/a.db" --sweep 1 --json >"$T/apoints.json" || fail "db points --json"
  python3 - "$T/apoints.json" "$K8" <<'PY' && ok || fail "--attention int8 not in the int8 point's config"
import json, sys
d = json.load(open(sys.argv[1]))
pts = d["points"] if isinstance(d, dict) else d
for p in pts:
    cfg = (p["config"] if isinstance(p["config"], str) else json.dumps(p["config"])).replace(" ", "")
    want = '{"quant":"row","attention":"int8"}' if p["kernel"] == sys.argv[2] else "{}"
    assert cfg == want, (p["kernel"], cfg)
PY
  # --attention f32 is the default: the same point identity as leaving it out
  expect_rc 0 "$B" sweep --workload infer --model tiny --requests 4 --kernels "$K8" \
      --threads 1 --batch 4 --attention f32 --db "$T/a.db" --label attn-f32
  "$B" db points --db "$T/a.db" --sweep 2 --json >"$T/apoints2.json" || fail "db points --json"
  python3 - "$T/apoints2.json" <<'PY' && ok || fail "--attention f32 changed the point's config"
import json, sys
d = json.load(open(sys.argv[1]))
pts = d["points"] if isinstance(d, dict) else d
assert len(pts) == 1
cfg = (pts[0]["config"] if isinstance(pts[0]["config"], str) else json.dumps(pts[0]["config"]))
assert cfg.replace(" ", "") == '{"quant":"row"}', cfg
PY
  # the report's inference table names it
  expect_rc 0 "$B" report --db "$T/a.db" --baseline 1 --candidate 1 --out "$T/arep"
  expect_grep "^\| $K8 \| int8 \| model=tiny batch=4 quant=row attention=int8 \| 1 \| " "$T/arep/report.md"
fi

# --- bad input: one line, exit 2, no database ---
bad() {
  rm -f "$T/bad.db"
  expect_rc 2 "$B" sweep "$@" --db "$T/bad.db"
  expect_one_error_line "$PAT"
  [ ! -e "$T/bad.db" ] && ok || fail "a database was written on bad input: $*"
}
PAT='^sprbench sweep: --batch: 0 is out of range' bad --workload infer --model tiny --batch 0
PAT="^sprbench sweep: --batch: empty item 2 of 3 in '1,,2'" bad --workload infer --batch 1,,2
PAT="^sprbench sweep: --batch: 4 is listed twice" bad --workload infer --batch 4,4
PAT="^sprbench sweep: --quant: quant 'col' is not row, tensor, row7 or tensor7" bad --workload infer --quant col
printf 'workload = infer\nmodel = tiny\nquant = foo\n' >"$T/bad.plan"
PAT="^sprbench sweep: $T/bad.plan:3: quant 'foo' is not row, tensor, row7 or tensor7" bad --plan "$T/bad.plan"
PAT="^sprbench sweep: --attention: attention 'bf16' is not f32 or int8" bad --workload infer --attention bf16
PAT="option 'attention' does not apply to workload train" bad --workload train --attention int8
PAT="option 'batch' does not apply to workload gemm" bad --batch 2

finish infer_sweep_cli
