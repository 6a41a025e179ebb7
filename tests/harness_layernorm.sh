#!/usr/bin/env bash
# The LayerNorm workload (bench/layernorm), the worked example of a workload
# with a list axis (batch) and a headline of its own where lower is better
# (ns a row): it came in through five source files, and every reader gets
# its direction from the metric table, none from the metric's name (a name
# with "_per_" was a rate to the old guess). Checked as a user meets it: the
# worker's document, the sweep's speedup, the plot's speedup and band, the
# gate and the report on a copy of the sweep made 30 % slower. Timings are
# never asserted, only the direction of what is derived from them.
. "$(dirname "$0")/lib.sh"
DB="$T/l.db"
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# the worker
expect_rc 0 "$SPRBENCH" layernorm --batch 2 --seq 16 --dim 64 --iters 5 --threads 1 --result-file "$T/r.json"
expect_grep '^layernorm 2 x 16 rows of 64, 1 thread: [0-9.]+ ns/row \(median of 5\)' "$T/out"
[ "$(json "$T/r.json" 'd["status"], d["workload"], len(d["samples"]), d["units"]["ns_per_row"]')" = "ok layernorm 5 ns/row" ] \
  && ok || fail "result head: $(json "$T/r.json" 'd["status"], d["workload"], len(d["samples"])')"
[ "$(json "$T/r.json" 'd["better"]["ns_per_row"], d["better"]["layernorm_gbps"], d["better"]["max_abs_error"]')" = "lower higher lower" ] \
  && ok || fail "directions: $(json "$T/r.json" 'd["better"]')"
for bad in "--dim 4" "--batch 0" "--iters 0" "--seq x" "--batch 4096 --seq 4096" "--batch 4096 --seq 4096 --dim 1024"; do
  # shellcheck disable=SC2086
  expect_rc 2 "$SPRBENCH" layernorm $bad --result-file "$T/bad.json"
  expect_one_error_line '^sprbench layernorm: --'
done
# the refusal names the limit, and comes before any memory is taken
expect_rc 2 "$SPRBENCH" layernorm --batch 1024 --seq 512 --dim 1024
expect_one_error_line '^sprbench layernorm: --batch x --seq x --dim: 536870912 floats, over 2\^28'

[ ! -e "$T/bad.json" ] && ok || fail "a refused run wrote a result"
# a sweep checks the same limits when it reads the plan (its largest batch,
# the worker's defaults for what it leaves out), not when the point runs:
# one line, exit 2, with --dry-run too, and no database
for bad in "--batch 1,4096 --seq 4096" "--batch 2,1024 --seq 512 --dim 1024" "--seq 65536 --dim 1024" \
           "--batch 4096 --seq 4096 --dry-run"; do
  # shellcheck disable=SC2086
  expect_rc 2 "$SPRBENCH" sweep --workload layernorm $bad --threads 1 --db "$T/bad.db"
  expect_one_error_line '^sprbench sweep: batch x seq( x dim)?: [0-9]+ (rows|floats), over 2\^2[48]'
done
[ ! -e "$T/bad.db" ] && ok || fail "a refused sweep wrote a database"
expect_rc 0 "$SPRBENCH" sweep --workload layernorm --batch 1,2048 --seq 8192 --dim 16 --threads 1 --dry-run
expect_grep 'layernorm --batch 2048 --seq 8192 --dim 16' "$T/out"
expect_rc 0 "$SPRBENCH" layernorm --help
expect_grep 'lower is better' "$T/out"

# a sweep over the batch axis: the closing table's speedup is base / value
cat >"$T/plan" <<'P'
workload = layernorm
label = ln-base
threads = 1,2
batch = 1,2
seq = 16
dim = 64
iters = 30
P
expect_rc 0 "$SPRBENCH" sweep --plan "$T/plan" --db "$DB"
"$SPRBENCH" db points --db "$DB" --sweep ln-base --json >"$T/pts.json"
check_speedup() {   # the sweep's table and the plot's data against the stored values
  python3 - "$T/pts.json" "$T/out" "$1" <<'PY'
import json, re, sys
pts = json.load(open(sys.argv[1]))["points"]
ns = {(p["shape"].split()[0], p["threads"]): p["metrics"]["ns_per_row"]["value"]
      for p in pts if p["status"] == "ok"}
bad = 0
if sys.argv[3] == "table":
    for line in open(sys.argv[2]):
        m = re.match(r"none +(batch=\d) +(\d) +1 +1 +ok +[0-9.]+ ns/row +([0-9.]+)x", line)
        if m:
            want = ns[(m[1], 1)] / ns[(m[1], int(m[2]))]
            bad |= abs(float(m[3]) - want) > 0.01 + 0.005 * want
else:
    for shape in ("batch=1", "batch=2"):
        rows = [l.split() for l in open(f"{sys.argv[3]}/speedup-{shape.replace('=', '_')}_seq_16_dim_64.dat")
                if l[:1].isdigit()]
        got = {int(r[0]): float(r[1]) for r in rows if len(r) == 7}
        want = {t: ns[(shape, 1)] / ns[(shape, t)] for t in (1, 2)}
        bad |= any(abs(got[t] - want[t]) > 1e-6 * want[t] for t in (1, 2))
sys.exit(bad)
PY
}
check_speedup table && ok || fail "the sweep's speedup is not base/value for ns/row: $(grep ns/row "$T/out")"
expect_rc 0 "$SPRBENCH" plot --db "$DB" --sweep ln-base --out "$T/plots"
check_speedup "$T/plots" && ok || fail "the plot's speedup is not base/value for ns/row"
[ -f "$T/plots/throughput-batch_2_seq_16_dim_64.gp" ] && ok || fail "no throughput figure"
# the band of a time per row: lo and hi scale with the p10 and p90 samples
expect_rc 0 "$SPRBENCH" plot --db "$DB" --history --workload layernorm --kernel none --threads 1 --shape 'batch=2 seq=16 dim=64' --out "$T/hist"
python3 - "$T/pts.json" "$T"/hist/history-*.dat <<'PY' && ok || fail "history band of ns_per_row is not a time's"
import json, sys, statistics
p = next(p for p in json.load(open(sys.argv[1]))["points"] if p["shape"].startswith("batch=2") and p["threads"] == 1)
v = p["metrics"]["ns_per_row"]["value"]
row = next(l.split() for l in open(sys.argv[2]) if l[:1].isdigit())
med, lo, hi = (float(x) for x in row[1:4])
p10, p50, p90 = p["p10_seconds"], p["median_seconds"], p["p90_seconds"]
close = lambda a, b: abs(a - b) <= 1e-6 * abs(b)
time_band = close(lo, v * p10 / p50) and close(hi, v * p90 / p50)
rate_band = close(lo, v * p50 / p90) and close(hi, v * p50 / p10)
sys.exit(not (close(med, v) and time_band and not rate_band))
PY

# the same sweep made 30 % slower (samples and ns a row up, GB/s down)
expect_rc 0 "$SPRBENCH" db export --db "$DB" --sweep ln-base --out "$T/b.json"
python3 - "$T/b.json" "$T/slow.json" <<'PY'
import json, sys, uuid
d = json.load(open(sys.argv[1])); new = {}
for s in d["sweeps"]:
    new[s["uuid"]] = s["uuid"] = uuid.uuid4().hex
    s["label"] = "ln-slow"
for p in d["points"]:
    p["uuid"], p["sweep"] = uuid.uuid4().hex, new[p["sweep"]]
    p["samples"] = [x * 1.3 for x in p["samples"]]
    for m in p["metrics"]:
        m["value"] *= {"ns_per_row": 1.3, "layernorm_gbps": 1 / 1.3}.get(m["name"], 1)
json.dump(d, open(sys.argv[2], "w"))
PY
expect_rc 0 "$SPRBENCH" db import --db "$DB" "$T/slow.json"
expect_rc 1 "$SPRBENCH" gate --db "$DB" --baseline ln-base --candidate ln-slow --metric ns_per_row
expect_grep '^FAIL +layernorm .* ns_per_row .* 30.0% slower' "$T/out"
expect_rc 1 "$SPRBENCH" gate --db "$DB" --baseline ln-base --candidate ln-slow --metric layernorm_gbps
expect_rc 0 "$SPRBENCH" gate --db "$DB" --baseline ln-slow --candidate ln-base --metric ns_per_row
expect_grep '23.1% faster' "$T/out"
expect_rc 0 "$SPRBENCH" report --db "$DB" --baseline ln-base --candidate ln-slow --out "$T/rep" --no-plots
expect_grep '^\| LayerNorm per token \| none \| batch=1 seq=16 dim=64 \| 1 \| ns/row \| .* \| 1.30x slower' "$T/rep/report.md"
expect_rc 0 "$SPRBENCH" report --db "$DB" --baseline ln-slow --candidate ln-base --out "$T/rep2" --no-plots
expect_grep '^\| LayerNorm per token \| .* \| 1.30x faster' "$T/rep2/report.md"
finish harness_layernorm
