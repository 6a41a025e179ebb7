#!/usr/bin/env bash
# `sprbench model`: projections from a given network and from a measured
# all-reduce curve, the study check, the result file, and bad input.
set -u
: "${SPRBENCH:?}" "${SB_SOURCE_DIR:?}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
study="$SB_SOURCE_DIR/results/reference/study.csv"

"$SPRBENCH" model --help | grep -q "PROJECTED" || fail "--help"

"$SPRBENCH" model --study "$study" --busbw-gbs 5 --nodes 1,2,4,8 --result-file "$work/m.json" \
  > "$work/m.out" || fail "model with the study exit $?"
cat "$work/m.out"
grep -q "PROJECTED" "$work/m.out" || fail "output not marked projected"
grep -q "spr-4nodes .*published  *7m30s" "$work/m.out" || fail "no check against the 4-node point"
grep -q "implies .* GB/s" "$work/m.out" || fail "no implied bandwidth"
python3 - "$work/m.json" <<'PY' || fail "model result file"
import json, math, sys
d = json.load(open(sys.argv[1]))
m, proj = d["metrics"], d["projected"]
assert d["status"] == "ok" and set(m) == set(proj), "every metric must be marked projected"
steps = {1: math.ceil(math.ceil(88524 / 2) / 32), 4: math.ceil(math.ceil(88524 / 8) / 32)}
assert steps == {1: 1384, 4: 346}
rows = {r["nodes"]: r for r in d["table"]}
assert rows[1]["steps"] == 1384 and rows[4]["steps"] == 346
step = 1560 / 1384
for n, r in rows.items():
    # ring all-reduce at 5 GB/s bus bandwidth, alpha 5 us
    R = 2 * n
    comm = 0 if n == 1 else 2 * (R - 1) * 5e-6 + 2 * (R - 1) / R * 265457672 / 5e9
    assert abs(r["comm_s"] - comm) < 1e-9, (n, r["comm_s"], comm)
    assert abs(r["epoch_no_overlap_s"] - r["steps"] * (step + comm)) < 1e-6
    assert r["epoch_overlap_s"] <= r["epoch_no_overlap_s"] + 1e-9
    assert abs(r["ideal_s"] - rows[1]["epoch_overlap_s"] / n) < 1e-6
chk = {c["label"]: c for c in d["config"]["study_check"]}
assert chk["spr-4nodes"]["published_s"] == 450 and "gap_pct" in chk["spr-4nodes"]
# 0.1734 s extra per step over 2x7/8 x 265 MB -> about 2.68 GB/s
assert abs(chk["spr-4nodes"]["implied_busbw_gbs"] - 2.68) < 0.02, chk["spr-4nodes"]
PY

# From an all-reduce curve: a synthetic result file (measured ones are noisy on
# a shared machine, and tests never depend on timing), 4 ranks, alpha 10 us,
# bus bandwidth 2 GB/s: t = 6 alpha + 1.5 m / 2e9.
python3 - "$work/ar.json" <<'PY'
import json, sys
rows = [{"bytes": b, "lat_avg_us": (6 * 10e-6 + 1.5 * b / 2e9) * 1e6} for b in (4096, 1 << 20, 1 << 24, 1 << 26)]
json.dump({"workload": "allreduce", "ranks": 4, "status": "ok", "table": rows}, open(sys.argv[1], "w"))
PY
"$SPRBENCH" model --step-seconds 1.5 --allreduce-file "$work/ar.json" --nodes 1,4 --ppn 1 \
  > "$work/c.out" || fail "model from a curve exit $?"
grep -q "bus bandwidth 2.000 GB/s, alpha 10.00 us (fitted to" "$work/c.out" || fail "curve fit: $(cat "$work/c.out")"

# Bad input: one line, exit 2.
python3 -c 'import json,sys; json.dump({"workload": "allreduce", "ranks": 1, "table": [{"bytes": 4, "lat_avg_us": 1}, {"bytes": 64, "lat_avg_us": 2}]}, open(sys.argv[1], "w"))' "$work/one.json"
printf 'label,nodes\nx,1\n' > "$work/bad.csv"
printf 'label,machine,nodes,ppn,threads,batch,dtype,epoch_seconds,kind\nx,m,1,2,24,32,bf16,-5,measured\n' > "$work/neg.csv"
# bad_cases LABEL < lines of arguments: each gives exit 2 and one stderr line
bad_cases() {
  local i=0 args rc
  while IFS= read -r args; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    eval "\"$SPRBENCH\" model $args" > /dev/null 2> "$work/err"
    rc=$?
    [ $rc -eq 2 ] || fail "$1 case $i ($args): exit $rc"
    [ "$(wc -l < "$work/err")" -eq 1 ] || fail "$1 case $i ($args): $(cat "$work/err")"
  done
}
bad_cases usage <<EOF2
--step-seconds 1
--step-seconds 1 --busbw-gbs 0
--step-seconds 1 --allreduce-file $work/missing.json
--step-seconds 1 --allreduce-file $work/one.json
--busbw-gbs 5 --study $work/bad.csv
--busbw-gbs 5 --study $work/neg.csv
--step-seconds 1 --busbw-gbs 5 --nodes 1,x
--step-seconds 1 --busbw-gbs 5 --overlap-share 2
EOF2
"$SPRBENCH" model --busbw-gbs 5 --study "$work/neg.csv" 2>&1 | grep -q "neg.csv:2" || fail "bad row not named file:line"

# --db: the projection stored as a new sweep of status 'projected' points,
# every metric flagged projected, drawn by `sprbench plot` with the study.
db="$work/m.db"
"$SPRBENCH" model --study "$study" --busbw-gbs 5 --nodes 1,2,4 --db "$db" > "$work/d.out" \
  || fail "model --db exit $?"
grep -q "stored as status 'projected' points in sweep 1 of" "$work/d.out" || fail "--db: $(tail -2 "$work/d.out")"
[ "$(sqlite3 "$db" "SELECT label || '|' || workload || '|' || status FROM sweep")" = "scaling model|train|done" ] \
  || fail "--db sweep row: $(sqlite3 "$db" 'SELECT * FROM sweep')"
[ "$(sqlite3 "$db" "SELECT group_concat(nodes) FROM (SELECT nodes FROM point WHERE kernel = 'scaling-model' AND status = 'projected' AND workload = 'train' AND ppn = 2 ORDER BY nodes)")" = "1,2,4" ] \
  || fail "--db points: $(sqlite3 "$db" 'SELECT kernel, status, nodes FROM point')"
[ "$(sqlite3 "$db" "SELECT COUNT(*) FROM metric WHERE projected = 1 AND source LIKE 'scaling model:%'")" = 18 ] || fail "--db: 6 projected metrics per point"
[ "$(sqlite3 "$db" "SELECT COUNT(*) FROM metric WHERE projected = 0")" = 0 ] || fail "--db: a metric not flagged projected"
# the same figure as the printed table: 346 steps x (1560/1384 s + exposed) at 4 nodes
python3 - "$db" "$work/m.json" <<'PY' || fail "--db epoch differs from the result file's"
import json, sqlite3, sys
v = sqlite3.connect(sys.argv[1]).execute("SELECT m.value FROM metric m JOIN point p ON p.id = m.point_id"
    " WHERE p.nodes = 4 AND m.name = 'epoch_seconds'").fetchone()[0]
rows = {r["nodes"]: r for r in json.load(open(sys.argv[2]))["table"]}
assert abs(v - rows[4]["epoch_overlap_s"]) < 1e-6, (v, rows[4])
PY
if command -v gnuplot >/dev/null; then
  "$SPRBENCH" plot --db "$db" --sweep 1 --out "$work/plots" > /dev/null || fail "plot of the model's sweep"
  grep -q "scaling-model, 2 rank(s)/node, projected (model, not measured)" "$work/plots/scaling-nodes.svg" || fail "projected series not drawn"
  grep -q "published study" "$work/plots/scaling-nodes.svg" || fail "study overlay not drawn"
fi

# bad --from-sweep: one line, exit 2, the database unchanged (sweep 1 holds only projections)
before=$(sqlite3 "$db" .dump | md5sum)
bad_cases from-sweep <<EOF3
--from-sweep 99 --db $db
--from-sweep 1 --db $db
--from-sweep 1 --db $db --busbw-gbs 5
--from-sweep 1 --busbw-gbs 5
--from-sweep 1 --db $db --step-seconds 1 --busbw-gbs 5
--from-sweep 1 --db $work/absent.db --busbw-gbs 5
--from-sweep x --db $db
EOF3
"$SPRBENCH" model --from-sweep 99 --db "$db" 2>&1 | grep -q "no sweep 99" || fail "missing sweep not named"
"$SPRBENCH" model --from-sweep 1 --db "$db" 2>&1 | grep -q "no measured 1-node training point" || fail "no 1-node point not said"
[ "$(sqlite3 "$db" .dump | md5sum)" = "$before" ] || fail "a refused --from-sweep changed the database"
[ ! -e "$work/absent.db" ] || fail "a refused --from-sweep created a database"
echo "ok: model CLI"
