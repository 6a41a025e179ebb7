#!/usr/bin/env bash
# A CPU named from what it does (#40), end to end: `info` under SB_CPU_UARCH
# names it so and says it was set so (text and JSON); a machine stored under
# a wrong name (a Xeon whose hypervisor reports Rocket Lake's model number
# with AMX and a 480 MiB L3) is Granite Rapids-class with AMX in `db sweeps`,
# `db info`, report titles and "What AMX gives", and is selected as
# granite-rapids, never shown as Rocket Lake; the two Emerald Rapids records
# (AMX granted, AMX hidden) are told apart; an override stored in a record is
# kept; no clock above 6.5 GHz is imported, shown or derived by `peak`.
. "$(dirname "$0")/lib.sh"
M="${SB_SOURCE_DIR:?}/results/machines"
cd "$T" || exit 1

# ---- info: the override, named and recorded as one ----
expect_rc 0 env -u SB_CPU_UARCH "$SPRBENCH" info
grep -E -- '-> microarchitecture ' out | grep -q 'set by SB_CPU_UARCH' &&
  fail "info says 'set by SB_CPU_UARCH' without the variable" || ok
expect_rc 0 env SB_CPU_UARCH=granite-rapids "$SPRBENCH" info
expect_grep '^ +family [0-9]+ model [0-9]+ stepping [0-9]+ -> microarchitecture Granite Rapids \(set by SB_CPU_UARCH; the CPU.s signature names it .+\)$' out
expect_rc 0 env SB_CPU_UARCH='Lab Part 9' "$SPRBENCH" info --json
python3 - out <<'PY' && ok || fail "info --json under SB_CPU_UARCH: cpu.microarch and its source"
import json, sys
c = json.load(open(sys.argv[1]))['cpu']
assert c['microarch'] == 'Lab Part 9', c
assert c['microarch_source'] == 'override', c
assert c['microarch_how'].startswith('set by SB_CPU_UARCH'), c
PY
expect_rc 0 env -u SB_CPU_UARCH "$SPRBENCH" info --json
python3 - out <<'PY' && ok || fail "info --json: microarch_source, how, hypervisor and the new flags"
import json, sys
d = json.load(open(sys.argv[1]))
c = d['cpu']
assert c['microarch_source'] in ('model', 'features', 'unknown'), c
assert c['microarch_how'] and isinstance(c['hypervisor'], bool), c
assert all(isinstance(d['isa'][k], bool) for k in ('avx512_fp16', 'amx_fp16', 'avx10')), d['isa']
PY

# ---- a sweep records the override, also on a machine the database knows ----
expect_rc 0 env -u SB_CPU_UARCH "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 \
  --shapes 16x16x16 --reps 2 --no-peak --db o.db --label plain
expect_rc 0 env SB_CPU_UARCH='Lab Part 9' "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 \
  --shapes 16x16x16 --reps 2 --no-peak --db o.db --label named
expect_rc 0 "$SPRBENCH" db info --db o.db
expect_grep '^[0-9a-f]{16} +[^ ]+ +Lab Part 9 \((no )?AMX\) ' out
[ "$(sqlite3 o.db "SELECT json_extract(info_json, '$.cpu.microarch_source') || '|' ||
  substr(json_extract(info_json, '$.cpu.microarch_how'), 1, 19) FROM machine")" = \
  'override|set by SB_CPU_UARCH' ] && ok || fail "the machine row does not record the override"
# taken back: the signature's name again
expect_rc 0 env -u SB_CPU_UARCH "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 \
  --shapes 16x16x16 --reps 2 --no-peak --db o.db --label plain2
expect_rc 0 "$SPRBENCH" db info --db o.db
grep -q 'Lab Part 9' out && fail "the override outlived the run that set it" || ok

# ---- records: the masked Xeon, the two Emerald Rapids, an override ----
# The masked Xeon as issue #40 recorded it (family 6 model 167, stored as
# "Rocket Lake", AMX, 2 MiB L2, 480 MiB L3, f32_clock_ghz 7.55): the real
# record where the shared data has it, and always the same signature made
# from the Emerald Rapids record, so this runs in every checkout.
python3 - "$M/emr-xeon-2026-12-01-amx.json" "$M/zen4-epyc-2026-12-03.json" <<'PY' ||
import json, sys, uuid
def load(p):
    return json.load(open(p))
d = load(sys.argv[1])
uuids = {s['uuid']: uuid.uuid4().hex for s in d['sweeps']}
fp = 'a7a7a7a7a7a7a7a7'
m = d['machines'][0]
m.update(fingerprint=fp, model=167, stepping=1, microarch='Rocket Lake', l3_bytes=480 << 20)
info = m['info_json'] if isinstance(m['info_json'], dict) else json.loads(m['info_json'])
info.update(fingerprint=fp)
info['cpu'].update(model_number=167, stepping=1, microarch='Rocket Lake')
m['info_json'] = info
for s in d['sweeps']:
    s.update(uuid=uuids[s['uuid']], machine=fp, label='masked-' + s['label'])
bad = 0
for p in d['points']:
    p.update(uuid=uuid.uuid4().hex, sweep=uuids[p['sweep']], machine=fp)
    if p['workload'] == 'peak' and not bad:
        # the clock 19a7687 stored: 241 GFLOP/s over Rocket Lake's 32 flop a cycle
        p['metrics'] = [x for x in p['metrics'] if x['name'] != 'f32_clock_ghz']
        p['metrics'].append({'name': 'f32_clock_ghz', 'value': 7.545644492, 'unit': 'GHz',
                             'projected': 0, 'source': None})
        bad = 1
assert bad
json.dump(d, open('masked.json', 'w'))
# a record whose name its user set (SB_CPU_UARCH): kept as given
z = load(sys.argv[2])
fz = 'ddddeeee00000001'
m = z['machines'][0]
info = m['info_json'] if isinstance(m['info_json'], dict) else json.loads(m['info_json'])
info['cpu'].update(microarch='Lab Part 9', microarch_source='override',
                   microarch_how='set by SB_CPU_UARCH; the CPU\'s signature names it Zen 4')
info.update(fingerprint=fz)
m.update(fingerprint=fz, microarch='Lab Part 9', info_json=info)
uz = {s['uuid']: uuid.uuid4().hex for s in z['sweeps']}
for s in z['sweeps']:
    s.update(uuid=uz[s['uuid']], machine=fz, label='lab-' + s['label'])
for p in z['points']:
    p.update(uuid=uuid.uuid4().hex, sweep=uz[p['sweep']], machine=fz)
json.dump(z, open('override.json', 'w'))
PY
  fail "could not build the masked and override records"
SHARED=${SB_SHARED_DATA:-$SB_SOURCE_DIR/../shared/data}/../machines
REAL=
for f in "$SHARED/masked-amx-xeon-2026-12-04.json" "$M/masked-amx-xeon-2026-12-04.json"; do
  [ -f "$f" ] && REAL=$f
done
expect_rc 0 "$SPRBENCH" db import --db t.db masked.json "$M/emr-xeon-2026-12-01-amx.json" \
  "$M/emr-xeon-noamx-2026-12-03.json" "$M/zen4-epyc-2026-12-03.json" override.json ${REAL:+"$REAL"}
# the stored clock of 7.55 GHz is not kept
[ "$(sqlite3 t.db "SELECT COUNT(*) FROM metric WHERE name LIKE '%clock_ghz' AND value > 6.5")" = 0 ] &&
  ok || fail "a clock above 6.5 GHz was imported"

expect_rc 0 "$SPRBENCH" db sweeps --db t.db
cp out sweeps.txt
expect_grep '^ +[0-9]+ +[0-9a-f]+ +masked-default-gemm +gemm +Granite Rapids-class \(AMX\) +vm ' sweeps.txt
expect_grep ' Emerald Rapids \(AMX\) +vm ' sweeps.txt
expect_grep ' Emerald Rapids \(no AMX\) +vm ' sweeps.txt
expect_grep ' Zen 4 \(no AMX\) +vm ' sweeps.txt
expect_grep ' Lab Part 9 \(no AMX\) +vm ' sweeps.txt
grep -q 'Rocket Lake' sweeps.txt && fail "db sweeps names a machine Rocket Lake" || ok
if [ -n "$REAL" ]; then
  expect_grep '^ +[0-9]+ +[0-9a-f]+ +masked-amx-xeon-default-gemm +gemm +Granite Rapids-class \(AMX\) ' sweeps.txt
fi
expect_rc 0 "$SPRBENCH" db info --db t.db
expect_grep '^a7a7a7a7a7a7a7a7 +vm +Granite Rapids-class \(AMX\) ' out
grep -q 'Rocket Lake' out && fail "db info names a machine Rocket Lake" || ok
expect_rc 0 "$SPRBENCH" db sweeps --db t.db --json
python3 - out <<'PY' && ok || fail "db sweeps --json: the masked machine's name"
import json, sys
d = json.load(open(sys.argv[1]))
names = {s['label']: s['microarch'] for s in d['sweeps']}
assert names['masked-default-gemm'] == 'Granite Rapids-class (AMX)', names
assert 'Rocket Lake' not in json.dumps(d), names
PY

# ---- report: titles, What AMX gives, selectors by the inferred name ----
expect_rc 0 "$SPRBENCH" report --db t.db --baseline a7a7a7a7 --candidate Zen-4 --out r0 --no-plots
expect_rc 0 "$SPRBENCH" report --db t.db --baseline zen4 --candidate a7a7a7a7 --out r1 --no-plots
R=r1/report.md
expect_grep '^# sprbench report: Granite Rapids-class \(AMX\) \(candidate\) vs Zen 4 \(no AMX\) \(baseline\)' $R
expect_grep '^### What AMX gives on Granite Rapids-class \(AMX\)' $R
expect_grep '^\| microarchitecture \| Zen 4 \(no AMX\) \| Granite Rapids-class \(AMX\) \|' $R
# and why: the record predates the hypervisor bit and AVX512-FP16
expect_grep '^\| named by \| by the model number; the features agree \| model 167 reported; inferred from AMX, a 2 MiB L2 and a 480 MiB L3 \|' $R
grep -q 'Rocket Lake' r1/report.md r1/report.html && fail "the report names Rocket Lake" || ok
# no clock above 6.5 GHz in any row
python3 - $R <<'PY' && ok || fail "the report shows a clock above 6.5 GHz"
import re, sys
for line in open(sys.argv[1]):
    if '_clock_ghz' in line:
        for v in re.findall(r'\| ([0-9.]+) \(one timed run', line):
            assert float(v) <= 6.5, line
PY
# selectors: the inferred name as people write it; only one machine is that
# part here unless the real record is imported too
if [ -z "$REAL" ]; then
  for sel in granite-rapids 'Granite Rapids-class' GRANITE_RAPIDS gnr; do
    expect_rc 0 "$SPRBENCH" report --db t.db --baseline zen4 --candidate "$sel" --out "r-$sel" \
      --no-plots
    expect_grep '^# sprbench report: Granite Rapids-class \(AMX\) \(candidate\)' "r-$sel/report.md"
  done
else
  expect_rc 2 "$SPRBENCH" report --db t.db --baseline zen4 --candidate granite-rapids --out rg \
    --no-plots
  expect_one_error_line "'granite-rapids' \(microarchitecture\) names 2 machines: .*Granite Rapids-class, .*AMX"
fi
expect_rc 2 "$SPRBENCH" report --db t.db --baseline zen4 --candidate rocket-lake --out rr --no-plots
expect_one_error_line "'rocket-lake' is neither a sweep .* nor a machine"
# the two Emerald Rapids are told apart in the selector's answer too
expect_rc 2 "$SPRBENCH" report --db t.db --baseline zen4 --candidate emerald-rapids --out re --no-plots
expect_one_error_line "names 2 machines: emerald-rapids-amx \([0-9a-f]+, Emerald Rapids, .*, AMX, host vm\); emerald-rapids-no-amx \([0-9a-f]+, Emerald Rapids, .*, no AMX, host vm\); the word before each bracket names that machine alone"
# and the word the answer gives (the displayed name with its AMX state, as
# people write it) names one
expect_rc 0 "$SPRBENCH" report --db t.db --baseline zen4 --candidate emerald-rapids-amx --out re --no-plots
expect_grep '^# sprbench report: Emerald Rapids \(AMX\) \(candidate\)' re/report.md
expect_rc 0 "$SPRBENCH" report --db t.db --baseline zen4 --candidate "Emerald Rapids (no AMX)" --out re2 --no-plots
expect_grep '^# sprbench report: Emerald Rapids \(no AMX\) \(candidate\)' re2/report.md
# the override's name selects its machine
expect_rc 0 "$SPRBENCH" report --db t.db --baseline zen4 --candidate lab-part-9 --out rl --no-plots
expect_grep '^# sprbench report: Lab Part 9 \(no AMX\) \(candidate\) vs Zen 4 \(no AMX\) \(baseline\)' rl/report.md

# ---- peak: a clock over 6.5 GHz is withheld with the reason ----
# Zen (Zen 1) splits a ymm FMA over two 128-bit pipes: 16 flop a cycle, half
# what any AVX2 CPU of today does, so its clock comes out twice the real one
if kernel_available avx2-f32; then
  expect_rc 0 env SB_CPU_UARCH=zen "$SPRBENCH" peak --paths avx2_f32 --threads 1 --seconds 0.05 \
    --result-file peak.json
  cp out peak.txt
  python3 - peak.json <<'PY' && ok || fail "peak stored a clock above 6.5 GHz"
import json, sys
d = json.load(open(sys.argv[1]))
assert d['microarch'] == 'Zen', d['microarch']
ghz = d['metrics'].get('avx2_f32_clock_ghz')
assert ghz is None or ghz <= 6.5, ghz
assert (ghz is None) == ('avx2_f32' in d['no_clock']), d
if ghz is None:
    assert '6.5 GHz' in d['no_clock']['avx2_f32'], d['no_clock']
PY
  python3 - peak.txt <<'PY' && ok || fail "peak printed a clock above 6.5 GHz"
import re, sys
for v in re.findall(r'([0-9.]+) GHz', open(sys.argv[1]).read()):
    assert float(v) <= 6.5, v
PY
fi
finish results_uarch_cli
