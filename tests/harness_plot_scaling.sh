#!/usr/bin/env bash
# Scaling plots from constructed training points at 1, 2 and 4 nodes, with the
# published study overlaid.
. "$(dirname "$0")/lib.sh"
DB="$T/s.db"
# a real sweep creates the schema and the machine
expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --reps 5 --no-peak --db "$DB"
sqlite3 "$DB" <<'SQL'
INSERT INTO sweep (uuid, label, workload, machine_id, status) VALUES ('scal', 'scaling', 'train', 1, 'done');
INSERT INTO point (uuid, sweep_id, seq, workload, kernel, dtype, shape, threads, ppn, nodes, status, machine_id)
  VALUES ('a1', 2, 0, 'train', 'avx512-bf16', 'bf16', 'model=tiny', 1, 2, 1, 'ok', 1),
         ('a2', 2, 1, 'train', 'avx512-bf16', 'bf16', 'model=tiny', 1, 2, 2, 'ok', 1),
         ('a4', 2, 2, 'train', 'avx512-bf16', 'bf16', 'model=tiny', 1, 2, 4, 'ok', 1);
INSERT INTO metric (point_id, name, value, projected) SELECT id, 'epoch_seconds',
  CASE nodes WHEN 1 THEN 1000 WHEN 2 THEN 540 ELSE 300 END, 0 FROM point WHERE sweep_id = 2;
INSERT INTO metric (point_id, name, value, projected) SELECT id, 'tokens_per_s', 100.0 * nodes, 0 FROM point WHERE sweep_id = 2;
SQL
expect_rc 0 "$SPRBENCH" plot --db "$DB" --sweep 2 --out "$T/p"
for f in scaling-nodes.png scaling-nodes.svg scaling-ranks.png; do
  [ -s "$T/p/$f" ] && ok || fail "$f missing"
done
grep -q 'published study' "$T/p/scaling-nodes.svg" && ok || fail "study overlay missing from the SVG"
grep -q 'ideal (y = x)' "$T/p/scaling-nodes.svg" && ok || fail "ideal line missing"
finish harness_plot_scaling
