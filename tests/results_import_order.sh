#!/usr/bin/env bash
# One answer per question: the records on file (results/machines/*.json),
# imported in several orders, give byte-identical reports (Markdown) and gate
# verdicts, sweep ids (which follow the order of import), the database's
# path and the time of writing aside. "The newest point of a configuration"
# is the one of the sweep started last (ties by uuid), never the one imported
# last. And --baseline-sweeps/--candidate-sweeps pin a side exactly, with
# exit 2 for a sweep that does not exist or is not on that side.
. "$(dirname "$0")/lib.sh"
M="${SB_SOURCE_DIR:?}/results/machines"
files=("$M"/*.json)
n=${#files[@]}
[ "$n" -ge 3 ] || { fail "fewer than three records in $M"; finish results_import_order; exit 1; }
# the orders: as globbed, reversed, a rotation, and one file per import
fwd=("${files[@]}")
rev=(); for ((i = n - 1; i >= 0; i--)); do rev+=("${files[$i]}"); done
rot=("${files[@]:n/2}" "${files[@]:0:n/2}")
expect_rc 0 "$SPRBENCH" db import --db "$T/o1.db" "${fwd[@]}"
expect_rc 0 "$SPRBENCH" db import --db "$T/o2.db" "${rev[@]}"
expect_rc 0 "$SPRBENCH" db import --db "$T/o3.db" "${rot[@]}"
for ((i = n - 1; i >= 0; i -= 2)); do expect_rc 0 "$SPRBENCH" db import --db "$T/o4.db" "${files[$i]}"; done
for ((i = n - 2; i >= 0; i -= 2)); do expect_rc 0 "$SPRBENCH" db import --db "$T/o4.db" "${files[$i]}"; done
# the sweep ids differ between the orders (else this test proves nothing)
a=$(sqlite3 "$T/o1.db" "SELECT id FROM sweep ORDER BY uuid" | tr '\n' ' ')
b=$(sqlite3 "$T/o2.db" "SELECT id FROM sweep ORDER BY uuid" | tr '\n' ' ')
[ "$a" != "$b" ] && ok || fail "the orders gave the same sweep ids: nothing tested"
# sweep ids, the database, the time and the version of writing: not content
norm() {
  sed -E -e 's/\bsweep [0-9]+\b/sweep N/g' \
    -e 's/Database [^ ]+, generated [^ ]+ by sprbench [^ ]+\./Database D, generated T by sprbench V./' \
    "$1"
}
same_report() { # NAME ARGS...: the report of every order, compared with the first's
  local name=$1; shift
  for k in 1 2 3 4; do
    expect_rc 0 "$SPRBENCH" report --db "$T/o$k.db" "$@" --out "$T/$name.$k" --no-plots
    norm "$T/$name.$k/report.md" >"$T/$name.$k.md"
    tail -1 "$T/out" >"$T/$name.$k.line"
  done
  for k in 2 3 4; do
    if cmp -s "$T/$name.1.md" "$T/$name.$k.md" && cmp -s "$T/$name.1.line" "$T/$name.$k.line"; then
      ok
    else
      fail "$name: order $k's report differs from order 1's"
      diff "$T/$name.1.md" "$T/$name.$k.md" | head -10 >&2
    fi
  done
}
same_report zen4-emr --baseline zen4 --candidate emerald-rapids-amx
same_report amx --baseline emerald-rapids-no-amx --candidate emerald-rapids-amx
same_report zen3-zen4 --baseline zen3 --candidate zen4
# the side with two GEMM sweeps takes the one started last, and says so beside
# the summary's figure
expect_grep "Sweeps used \(where several sweeps of a side ran one configuration, the one started last\)" "$T/amx.1/report.md"
expect_grep "the candidate's GEMM points are from sweep [0-9]+ default-gemm \(sprbench 0053bfb, started 2026-12-01T19:46:20Z\), the newest of the 2 sweeps" "$T/amx.1/report.md"
expect_grep "emr-amx-default \(sprbench 0.1.0, started 2026-12-01T18:56:53Z, none used" "$T/amx.1/report.md"
# the gate's choice of point is the same too
for k in 1 2 3 4; do
  "$SPRBENCH" gate --db "$T/o$k.db" --baseline zen4 --candidate emerald-rapids-amx --cross-machine \
    >"$T/gate.$k" 2>&1
  norm "$T/gate.$k" >"$T/gate.$k.n"
done
for k in 2 3 4; do
  cmp -s "$T/gate.1.n" "$T/gate.$k.n" && ok || { fail "gate: order $k differs"; diff "$T/gate.1.n" "$T/gate.$k.n" | head -6 >&2; }
done
# pinned sweeps, by label (looked up on the side's machine) or uuid prefix
same_report pinned --baseline emerald-rapids-no-amx --candidate emerald-rapids-amx \
  --candidate-sweeps emr-amx-default,emr-amx-train
expect_grep "Candidate: Emerald Rapids \(AMX\) [^)]*\), sweeps 7672732e, 6f4e3877 \(87 points\)" "$T/pinned.1/report.md"
expect_grep "candidate sweep [0-9]+ emr-amx-default \(sprbench 0.1.0, started 2026-12-01T18:56:53Z, 81 point\(s\)\), sweep [0-9]+ emr-amx-train" "$T/pinned.1/report.md"
expect_rc 0 "$SPRBENCH" report --db "$T/o2.db" --baseline emerald-rapids-no-amx --candidate emerald-rapids-amx \
  --candidate-sweeps 7672732e,6f4e3877 --out "$T/pin-uuid" --no-plots
norm "$T/pin-uuid/report.md" >"$T/pin-uuid.md"
cmp -s "$T/pinned.1.md" "$T/pin-uuid.md" && ok || fail "pinned by uuid and by label differ"
expect_rc 2 "$SPRBENCH" report --db "$T/o1.db" --baseline zen4 --candidate emerald-rapids-amx \
  --candidate-sweeps emr-amx-default,no-such-sweep --out "$T/bad" --no-plots
expect_one_error_line "report: --candidate-sweeps: no sweep 'no-such-sweep' in the database"
expect_rc 2 "$SPRBENCH" report --db "$T/o1.db" --baseline zen4 --candidate emerald-rapids-amx \
  --baseline-sweeps emr-amx-train --out "$T/bad" --no-plots
expect_one_error_line "report: --baseline-sweeps: sweep 'emr-amx-train' \(sweep [0-9]+\) is not on this side"
# two records of one machine, each naming its own sweeps: two runs compared,
# not a machine against itself
expect_rc 0 "$SPRBENCH" report --db "$T/o1.db" --baseline "$M/zen4-epyc-2026-12-01.json" \
  --candidate "$M/zen4-epyc-2026-12-03.json" --out "$T/zz" --no-plots
expect_grep '^Warning: both sides ran on the same machine: the differences below are between runs' "$T/zz/report.md"
if grep -q 'compared with itself' "$T/zz/report.md"; then fail "two records of one machine read as one side"; else ok; fi
# a record file's sweeps, then --candidate-sweeps: the pin replaces the record's
expect_rc 0 "$SPRBENCH" report --db "$T/o1.db" --baseline "$M/zen4-epyc-2026-12-01.json" \
  --candidate "$M/zen4-epyc-2026-12-03.json" --candidate-sweeps 12d43a6f --out "$T/zz2" --no-plots
expect_grep 'Candidate: Zen 4 \(no AMX\) vm \(6299f44b6ad52317\), sweeps 12d43a6f \(89 points\)' "$T/zz2/report.md"
# a rerun of the Zen 4 record two days later (new uuids, same figures):
# imported before or after the original, the rerun's points are used, and
# the headline says beside its figure which sweep it took and why
python3 - "$M/zen4-epyc-2026-12-03.json" "$T/rerun.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d['sweeps']:
    s['uuid'] = s['uuid'][::-1]
    s['started'] = s['started'].replace('2026-12-03', '2026-12-05')
    s['label'] = 'rerun-' + s['label']
for p in d['points']:
    p['uuid'] = p['uuid'][::-1]
    p['sweep'] = p['sweep'][::-1]
json.dump(d, open(sys.argv[2], 'w'))
PY
expect_rc 0 "$SPRBENCH" db import --db "$T/r1.db" "$T/rerun.json" "$M/zen4-epyc-2026-12-03.json" "$M/emr-xeon-noamx-2026-12-03.json"
expect_rc 0 "$SPRBENCH" db import --db "$T/r2.db" "$M/emr-xeon-noamx-2026-12-03.json" "$M/zen4-epyc-2026-12-03.json" "$T/rerun.json"
for k in 1 2; do
  expect_rc 0 "$SPRBENCH" report --db "$T/r$k.db" --baseline zen4 --candidate emerald-rapids-no-amx --out "$T/rr$k" --no-plots
  norm "$T/rr$k/report.md" >"$T/rr$k.md"
done
cmp -s "$T/rr1.md" "$T/rr2.md" && ok || { fail "rerun: the two orders differ"; diff "$T/rr1.md" "$T/rr2.md" | head -6 >&2; }
expect_grep "The baseline's onednn-bf16 point is from sweep [0-9]+ rerun-default-train \(sprbench 520ea93, started 2026-12-05T03:51:07Z\), the newest of the 2 sweeps of that side that ran it" "$T/rr1/report.md"
expect_grep "baseline sweep [0-9]+ default-gemm \(sprbench 520ea93, started 2026-12-03T03:47:38Z, none used: a later sweep ran each of its configurations\)" "$T/rr1/report.md"
finish results_import_order
