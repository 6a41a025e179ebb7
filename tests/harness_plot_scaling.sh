#!/usr/bin/env bash
# Scaling plots from constructed training points at 1, 2 and 4 nodes, with the
# published study overlaid; the scaling model's projection of that series
# (`model --from-sweep`, and at the end of a resumed train sweep) stored as
# status 'projected' points, drawn dashed, never gated, kept by export/import.
. "$(dirname "$0")/lib.sh"
DB="$T/s.db"
# a real sweep creates the schema and the machine
expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --reps 5 --no-peak --db "$DB"
# Measured: 88524 features, per-rank batch 32, 2 ranks/node -> 1384, 692, 346
# steps per epoch; steps of 1.0, 1.1 and 1.2 s (the extra 0.2 s at 4 nodes is
# the network: 2 x 7/8 x 265457672 B / 0.2 s = 2.32 GB/s bus bandwidth).
points_sql() {   # sweep id, uuid prefix
  cat <<SQL
INSERT INTO point (uuid, sweep_id, seq, workload, kernel, dtype, shape, threads, ppn, nodes, status, machine_id, result_json)
  VALUES ('${2}0000000000000000000000000000001', $1, 0, 'train', 'avx512-bf16', 'bf16', 'model=tiny', 1, 2, 1, 'ok', 1, '{"config": {"features": 88524, "batch": 32}}'),
         ('${2}0000000000000000000000000000002', $1, 1, 'train', 'avx512-bf16', 'bf16', 'model=tiny', 1, 2, 2, 'ok', 1, '{"config": {"features": 88524, "batch": 32}}'),
         ('${2}0000000000000000000000000000004', $1, 2, 'train', 'avx512-bf16', 'bf16', 'model=tiny', 1, 2, 4, 'ok', 1, '{"config": {"features": 88524, "batch": 32}}');
INSERT INTO metric (point_id, name, value, projected) SELECT id, 'step_seconds',
  CASE nodes WHEN 1 THEN 1.0 WHEN 2 THEN 1.1 ELSE 1.2 END, 0 FROM point WHERE sweep_id = $1;
INSERT INTO metric (point_id, name, value, projected) SELECT id, 'epoch_seconds',
  CASE nodes WHEN 1 THEN 1384 WHEN 2 THEN 761.2 ELSE 415.2 END, 0 FROM point WHERE sweep_id = $1;
INSERT INTO metric (point_id, name, value, projected) SELECT id, 'tokens_per_s', 100.0 * nodes, 0 FROM point WHERE sweep_id = $1;
WITH RECURSIVE r(rep) AS (SELECT 0 UNION ALL SELECT rep + 1 FROM r WHERE rep < 5)
INSERT INTO sample (point_id, rep, seconds) SELECT p.id, r.rep, m.value FROM point p JOIN r
  JOIN metric m ON m.point_id = p.id AND m.name = 'step_seconds' WHERE p.sweep_id = $1;
SQL
}
{ echo "INSERT INTO sweep (uuid, label, workload, machine_id, status) VALUES ('5ca1000000000000000000000000000a', 'scaling', 'train', 1, 'done');"
  points_sql 2 a; } | sqlite3 "$DB"
expect_rc 0 "$SPRBENCH" plot --db "$DB" --sweep 2 --out "$T/p"
for f in scaling-nodes.png scaling-nodes.svg scaling-ranks.png; do
  [ -s "$T/p/$f" ] && ok || fail "$f missing"
done
# a tiny model is not the published study's workload: no overlay
! grep -q 'published study' "$T/p/scaling-nodes.svg" && ok || fail "study overlaid on a tiny model"
grep -q 'ideal (y = x)' "$T/p/scaling-nodes.svg" && ok || fail "ideal line missing"
grep -q 'ideal (1/ranks' "$T/p/scaling-ranks.svg" && ok || fail "ideal line missing from scaling-ranks"
for f in scaling-nodes.gp scaling-nodes.dat scaling-ranks.gp scaling-ranks.dat; do
  [ -s "$T/p/$f" ] && ok || fail "$f missing"
done
# the script beside the image draws it again without sprbench
gnuplot "$T/p/scaling-ranks.gp" >"$T/again.png" && [ "$(head -c 4 "$T/again.png" | od -An -c | tr -d ' ')" = '211PNG' ] &&
  ok || fail "scaling-ranks.gp does not draw a PNG"
# DistilBERT-base at seq 384 (the default) is: the published points, labelled so
sqlite3 "$DB" "UPDATE point SET shape = 'model=distilbert-base batch=32' WHERE sweep_id = 2"
expect_rc 0 "$SPRBENCH" plot --db "$DB" --sweep 2 --out "$T/pb"
grep -q 'published study (SPR bf16, HF blog 2023; published figures' "$T/pb/scaling-nodes.svg" && ok ||
  fail "study overlay missing on DistilBERT-base"
sqlite3 "$DB" "UPDATE point SET shape = 'model=distilbert-base seq=128' WHERE sweep_id = 2"
expect_rc 0 "$SPRBENCH" plot --db "$DB" --sweep 2 --out "$T/pc"
! grep -q 'published study' "$T/pc/scaling-nodes.svg" && ok || fail "study overlaid at seq 128"
sqlite3 "$DB" "UPDATE point SET shape = 'model=tiny' WHERE sweep_id = 2"
! grep -q 'projected' "$T/p/scaling-nodes.svg" && ok || fail "a measured-only sweep drew a projection"

# --- the model from the sweep's measured 1-node point, stored beside it ---
q() { sqlite3 "$DB" "$1"; }
expect_rc 0 "$SPRBENCH" model --from-sweep 2 --db "$DB" --nodes 1,2,4,8,16
expect_grep 'step 1.0000 s per rank \(measured: sweep 2 point' "$T/out"
expect_grep 'bus bandwidth 2.32[0-9] GB/s.*calibrated on the measured 4-node point' "$T/out"
expect_grep "stored as status 'projected' points in sweep 2" "$T/out"
[ "$(q "SELECT COUNT(*) FROM point WHERE sweep_id = 2 AND status = 'projected'")" = 5 ] && ok || fail "5 projected points expected"
[ "$(q "SELECT group_concat(nodes) FROM (SELECT nodes FROM point WHERE sweep_id = 2 AND status = 'projected' ORDER BY nodes)")" = "1,2,4,8,16" ] && ok || fail "projected node counts"
[ "$(q "SELECT COUNT(*) FROM point WHERE sweep_id = 2 AND status = 'projected' AND workload = 'train' AND kernel = 'avx512-bf16' AND dtype = 'bf16' AND shape = 'model=tiny' AND ppn = 2 AND threads = 1")" = 5 ] && ok || fail "projected points do not extend the measured series"
[ "$(q "SELECT COUNT(*) FROM metric m JOIN point p ON p.id = m.point_id WHERE p.status = 'projected' AND m.projected = 1 AND m.source LIKE 'scaling model:%overlap folded in%'")" = 30 ] && ok || fail "6 projected metrics with their source per point expected"
[ "$(q "SELECT COUNT(*) FROM metric m JOIN point p ON p.id = m.point_id WHERE p.status = 'projected' AND m.projected = 0")" = 0 ] && ok || fail "a projected point has a metric not marked projected"
[ "$(q "SELECT COUNT(*) FROM metric m JOIN point p ON p.id = m.point_id WHERE p.status = 'ok' AND m.projected = 1")" = 0 ] && ok || fail "measured metrics were touched"
# calibrated on the 4-node point: without overlap the model gives its measured epoch back
[ "$(q "SELECT printf('%.1f', m.value) FROM metric m JOIN point p ON p.id = m.point_id WHERE p.status = 'projected' AND p.nodes = 4 AND m.name = 'epoch_seconds_no_overlap'")" = 415.2 ] && ok || fail "no-overlap projection at the calibration point"
# the calibrated bandwidth already holds that run's overlap: the headline passes through it too
[ "$(q "SELECT printf('%.1f', m.value) FROM metric m JOIN point p ON p.id = m.point_id WHERE p.status = 'projected' AND p.nodes = 4 AND m.name = 'epoch_seconds'")" = 415.2 ] && ok || fail "projection does not pass through the calibration point"
[ "$(q "SELECT printf('%.3f', m.value) FROM metric m JOIN point p ON p.id = m.point_id WHERE p.status = 'projected' AND p.nodes = 1 AND m.name = 'speedup'")" = 1.000 ] && ok || fail "speedup not against the projection's own 1-node point"
# again: replaces, never duplicates
expect_rc 0 "$SPRBENCH" model --from-sweep 2 --db "$DB" --nodes 1,2,4,8,16
[ "$(q "SELECT COUNT(*) FROM point WHERE sweep_id = 2 AND status = 'projected'")" = 5 ] && ok || fail "a second projection duplicated points"

expect_rc 0 "$SPRBENCH" plot --db "$DB" --sweep 2 --out "$T/p2"
grep -q 'avx512-bf16, 2 rank(s)/node, projected (model, not measured)' "$T/p2/scaling-nodes.svg" && ok || fail "projected series missing from the SVG"
grep -q 'avx512-bf16, 2 rank(s)/node<' "$T/p2/scaling-nodes.svg" && ok || fail "measured series missing from the SVG"
grep -q 'projected (model, not measured)' "$T/p2/scaling-ranks.svg" && ok || fail "projected points not a series of their own in scaling-ranks"

# the gate never compares, counts or misses a projected point
# (a second run of the same numbers: a copy with uuids of its own, as a
# plain copy is the same run and refused)
cp "$DB" "$T/copy.db"
sqlite3 "$T/copy.db" "UPDATE sweep SET uuid = lower(hex(randomblob(16)));
  UPDATE point SET uuid = lower(hex(randomblob(16)));" || fail "sqlite3"
expect_rc 0 "$SPRBENCH" gate --baseline "$DB" --candidate "$T/copy.db"
grep -q '16x2 ranks\|8x2 ranks' "$T/out" && fail "gate listed projected points: $(grep -m2 'x2 ranks' "$T/out")" || ok
expect_grep '4x2 ranks' "$T/out"

# the report shows them only as projected
expect_rc 0 "$SPRBENCH" report --db "$DB" --baseline 2 --candidate 2 --out "$T/r" --no-plots
expect_grep 'scaling model, not measured' "$T/r/report.md"

# export + import keeps status 'projected' and the flags
expect_rc 0 "$SPRBENCH" db export --db "$DB" --sweep 2 --out "$T/x.json"
expect_rc 0 "$SPRBENCH" db import --db "$T/y.db" "$T/x.json"
[ "$(sqlite3 "$T/y.db" "SELECT COUNT(*) FROM point WHERE status = 'projected'")" = 5 ] && ok || fail "import lost status 'projected'"
[ "$(sqlite3 "$T/y.db" "SELECT COUNT(*) FROM metric WHERE projected = 1 AND source LIKE 'scaling model:%'")" = 30 ] && ok || fail "import lost projected metrics"
expect_rc 0 "$SPRBENCH" db import --db "$T/y.db" "$T/x.json"
[ "$(sqlite3 "$T/y.db" "SELECT COUNT(*) FROM point WHERE status = 'projected'")" = 5 ] && ok || fail "a second import duplicated projected points"

# --- the end of a train sweep: a resumed sweep with nothing left to run
# still derives the projection, at 1, 2, 4, ... 4x the largest measured ---
plan=$(printf 'workload = train\nkernels = avx512-bf16\nthreads = 1\nppn = 2\nnodes = 1,2,4\nhostfile = %s\n' "$T/hosts")
{ echo "INSERT INTO sweep (uuid, label, workload, plan, machine_id, status) VALUES ('5ca1000000000000000000000000000b', 'resumed', 'train', '$plan', 1, 'interrupted');"
  points_sql 3 b; } | sqlite3 "$DB"
expect_rc 0 "$SPRBENCH" sweep --resume 3 --db "$DB"
expect_grep '^projected avx512-bf16 model=tiny ppn=2 threads=1 at nodes 1,2,4,8,16 \(not measured\)' "$T/out"
expect_grep '^avx512-bf16 +model=tiny +1 +2 +16 +projected' "$T/out"
[ "$(q "SELECT group_concat(nodes) FROM (SELECT nodes FROM point WHERE sweep_id = 3 AND status = 'projected' ORDER BY nodes)")" = "1,2,4,8,16" ] && ok || fail "sweep-end projection at 1,2,4,8,16"
expect_rc 0 "$SPRBENCH" sweep --resume 3 --db "$DB"
[ "$(q "SELECT COUNT(*) FROM point WHERE sweep_id = 3 AND status = 'projected'")" = 5 ] && ok || fail "a second resume duplicated projected points"
[ "$(q "SELECT COUNT(*) FROM point WHERE sweep_id = 3 AND status = 'ok'")" = 3 ] && ok || fail "resume touched measured points"
# no room: the 4-node step no slower than the 1-node one -> one line, nothing stored
q "UPDATE metric SET value = 0.9 WHERE name = 'step_seconds' AND point_id IN (SELECT id FROM point WHERE sweep_id = 3 AND nodes = 4)"
q "PRAGMA foreign_keys = ON; DELETE FROM point WHERE sweep_id = 3 AND status = 'projected'"
expect_rc 0 "$SPRBENCH" sweep --resume 3 --db "$DB"
expect_grep '^not projected: avx512-bf16 model=tiny ppn=2 threads=1: the measured 4-node step' "$T/out"
[ "$(q "SELECT COUNT(*) FROM point WHERE sweep_id = 3 AND status = 'projected'")" = 0 ] && ok || fail "projected without room"
# project-nodes = none: off
q "UPDATE metric SET value = 1.2 WHERE name = 'step_seconds' AND point_id IN (SELECT id FROM point WHERE sweep_id = 3 AND nodes = 4)"
q "UPDATE sweep SET plan = plan || char(10) || 'project-nodes = none' || char(10) WHERE id = 3"
expect_rc 0 "$SPRBENCH" sweep --resume 3 --db "$DB"
! grep -q 'projected' "$T/out" && ok || fail "project-nodes = none still projected"
[ "$(q "SELECT COUNT(*) FROM point WHERE sweep_id = 3 AND status = 'projected'")" = 0 ] && ok || fail "project-nodes = none stored points"
finish harness_plot_scaling
