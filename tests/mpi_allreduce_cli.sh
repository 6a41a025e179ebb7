#!/usr/bin/env bash
# `sprbench allreduce` as a user meets it: one rank without mpirun, two ranks
# under mpirun, the result file, and bad input (one line, exit 2).
set -u
: "${SPRBENCH:?}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$SPRBENCH" allreduce --help > "$work/help" || fail "--help exit $?"
grep -q "busbw_gbs_<bytes>" "$work/help" || fail "--help does not name the metrics"

# One rank, no mpirun.
"$SPRBENCH" allreduce --sizes 4..4K --iters 3 --warmup 1 --result-file "$work/one.json" \
  > "$work/one.out" || fail "single rank exit $?"
grep -q "1 rank(s) on 1 node(s)" "$work/one.out" || fail "single-rank header: $(head -1 "$work/one.out")"

# Two ranks, with the gradient size among the messages.
timeout 100 mpirun -np 2 --oversubscribe --mca btl self,vader,tcp "$SPRBENCH" allreduce \
  --sizes 4,1K,64K,grad --iters 3 --warmup 1 --result-file "$work/two.json" > "$work/two.out" 2>&1 \
  || { cat "$work/two.out"; fail "mpirun -np 2"; }
grep -q "265457672 .*DistilBERT gradient" "$work/two.out" || fail "gradient row missing"
python3 - "$work/one.json" "$work/two.json" <<'PY' || fail "result files"
import json, sys
one, two = (json.load(open(p)) for p in sys.argv[1:3])
for d, ranks in ((one, 1), (two, 2)):
    assert d["workload"] == "allreduce" and d["status"] == "ok", d
    assert d["ranks"] == ranks and d["nodes"] == 1, (d["ranks"], d["nodes"])
    sizes = d["config"]["sizes"]
    assert sizes == sorted(sizes) and len(d["table"]) == len(sizes)
    for row in d["table"]:
        b = row["bytes"]
        assert row["lat_min_us"] <= row["lat_avg_us"] <= row["lat_max_us"], row
        assert d["metrics"]["lat_us_%d" % b] == row["lat_avg_us"]
        want = row["algbw_gbs"] * 2 * (ranks - 1) / ranks
        assert abs(d["metrics"]["busbw_gbs_%d" % b] - want) <= 1e-9 * max(1, want), row
        assert d["units"]["busbw_gbs_%d" % b] == "GB/s"
    assert "repro" in d and d["repro"].startswith("sprbench allreduce")
assert one["config"]["sizes"] == [4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096], one["config"]["sizes"]
assert two["config"]["grad_bytes"] == 265457672 == 66364418 * 4
assert 265457672 in two["config"]["sizes"] and "busbw_gbs_grad" in two["metrics"]
assert two["metrics"]["busbw_gbs_grad"] > 0 and len(two["samples"]) >= 2
assert one["metrics"]["busbw_gbs_4"] == 0
PY

# Bad input: one line on stderr, exit 2, nothing written.
for bad in "--sizes 4..2X" "--sizes 64..4" "--iters 0" "--sizes" "--frobnicate" "extra"; do
  # shellcheck disable=SC2086
  "$SPRBENCH" allreduce $bad --result-file "$work/bad.json" > "$work/bad.out" 2> "$work/bad.err"
  rc=$?
  [ $rc -eq 2 ] || fail "'$bad' exit $rc, want 2"
  [ "$(wc -l < "$work/bad.err")" -eq 1 ] || fail "'$bad' stderr: $(cat "$work/bad.err")"
  grep -q "^sprbench allreduce: " "$work/bad.err" || fail "'$bad' message: $(cat "$work/bad.err")"
  [ -e "$work/bad.json" ] && fail "'$bad' wrote a result file"
done
echo "ok: allreduce CLI"
