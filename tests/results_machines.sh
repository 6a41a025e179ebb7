#!/usr/bin/env bash
# The machines on record (results/machines/*.json, real sweeps from real CPUs)
# import with this version and compare in a report: report always has real
# machines to set side by side.
. "$(dirname "$0")/lib.sh"
M="${SB_SOURCE_DIR:?}/results/machines"
set -- "$M"/*.json
[ "$#" -ge 2 ] || { fail "fewer than two machine records in $M"; finish results_machines; exit 1; }
expect_rc 0 "$SPRBENCH" db import --db "$T/m.db" "$@"
# every record adds its points and its machine, none is refused
[ "$(grep -c 'point(s) added' "$T/out")" -eq "$#" ] && ok || fail "not every record imported: $(cat "$T/out")"
[ "$(sqlite3 "$T/m.db" 'SELECT COUNT(DISTINCT microarch) FROM machine')" -ge 2 ] && ok || fail "two microarchitectures expected"
# the first GEMM sweep of each of two machines, compared
ids=$(sqlite3 "$T/m.db" "SELECT MIN(s.id) FROM sweep s JOIN point p ON p.sweep_id = s.id
  WHERE p.workload = 'gemm' GROUP BY p.machine_id ORDER BY 1 LIMIT 2" | tr '\n' ' ')
set -- $ids
[ "$#" -eq 2 ] && ok || fail "two GEMM sweeps on two machines expected, got '$ids'"
expect_rc 0 "$SPRBENCH" report --db "$T/m.db" --baseline "$1" --candidate "$2" --out "$T/rep" --no-plots
# the two machines compared (more records may be on file) are both named
for a in $(sqlite3 "$T/m.db" "SELECT DISTINCT m.microarch FROM machine m JOIN point p ON p.machine_id = m.id
  WHERE p.sweep_id IN ($1, $2)" | tr ' ' '_'); do
  expect_grep "microarchitecture .*${a//_/ }" "$T/rep/report.md"
done
# the points left out of the mean are counted by reason, each kernel once with
# its count (a line per point would bury the summary)
expect_grep 'Left out of the same-name mean \(not run ok by both sides[^)]*\): [0-9]+ point\(s\): [0-9]+ point\(s\) skipped: CPU has no AMX [^;]*: amx-bf16 \(8\), amx-int8 \(8\)[;.]' "$T/rep/report.md"
# a kernel both ran has its unit and a ratio in the report's one wording, not only "-"
expect_grep '^\| scalar-f32 \| f32 \| 1024x1024x1024:NN \| 1 \| GFLOP/s \| [0-9.]+ .*\| ([0-9.]+x (faster|slower)|same \(1\.00x\))' "$T/rep/report.md"
# a peak measured while the machine was busy (all cores below one core, as
# in the Emerald Rapids record's amx_bf16) is flagged, not shown as is
SHARED=${SB_SHARED_DATA:-$SB_SOURCE_DIR/../shared/data}/../machines
if [ -f "$SHARED/emr-xeon-2026-12-01.json" ] && [ -f "$SHARED/zen3-epyc-2026-12-01.json" ]; then
  expect_rc 0 "$SPRBENCH" db import --db "$T/s.db" "$SHARED/zen3-epyc-2026-12-01.json" \
    "$SHARED/emr-xeon-2026-12-01.json"
  z=$(sqlite3 "$T/s.db" "SELECT MIN(sweep_id) FROM point WHERE workload = 'peak' AND machine_id =
    (SELECT id FROM machine WHERE microarch LIKE '%Zen%')")
  x=$(sqlite3 "$T/s.db" "SELECT MIN(sweep_id) FROM point WHERE workload = 'peak' AND machine_id =
    (SELECT id FROM machine WHERE microarch NOT LIKE '%Zen%')")
  expect_rc 0 "$SPRBENCH" report --db "$T/s.db" --baseline "$z" --candidate "$x" --out "$T/rep2" \
    --no-plots
  expect_grep '^Warning: on the candidate, amx\\?_bf16\\?_gflops on all cores \(2455\) is below one core \(2927\)' "$T/rep2/report.md"
fi
finish results_machines
