#!/usr/bin/env bash
# sweep --workload infer as a user meets it: a small real sweep over kernels
# (the best f32 one, and an int8 one where this machine runs one) x threads 1
# x batch 1,4 on the tiny model; each batch its own point (db points --json,
# a resume that reruns a batch-4 point with its batch); the inference plots
# (throughput per batch, latency, accuracy per precision) with their data;
# the report's inference section beside training; bad batches and quant
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
[ ! -e "$T/s.db" ] && ok || fail "--dry-run wrote a database"
expect_rc 0 "$B" sweep --workload infer --model tiny --requests 6 --kernels "$KERNELS" \
    --threads 1 --batch 1,4 --compare-f32 --db "$T/s.db" --label inf
expect_grep "^sweep 1: $((2 * NK)) ok, 0 skipped, 0 failed" "$T/out"
expect_grep "infer $F32 model=tiny batch=4 threads=1" "$T/out"

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
    for m in ("sequences_per_s", "latency_p50_ms", "latency_p99_ms", "em", "f1",
              "f32_agreement_pct"):
        assert m in p["metrics"], (p["kernel"], m)
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
PAT="^sprbench sweep: --quant: quant 'col' is not row or tensor" bad --workload infer --quant col
printf 'workload = infer\nmodel = tiny\nquant = foo\n' >"$T/bad.plan"
PAT="^sprbench sweep: $T/bad.plan:3: quant 'foo' is not row or tensor" bad --plan "$T/bad.plan"
PAT="option 'batch' does not apply to workload gemm" bad --batch 2

finish infer_sweep_cli
