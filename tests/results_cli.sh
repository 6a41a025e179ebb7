#!/bin/bash
# The results commands as a user meets them: a real sweep, export, a second
# "machine" made by editing the export, import (twice), merge, CSV, report,
# gate (identical, 10 % and 2 % slower, too few samples, JUnit, references),
# and hostile files that must change nothing.
. "$SB_SOURCE_DIR/tests/lib.sh"
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
cd "$T"

for c in db report gate; do
  expect_rc 0 "$SPRBENCH" $c --help
  expect_grep "usage: sprbench $c" "$T/out"
done
expect_rc 2 "$SPRBENCH" db frobnicate; expect_one_error_line '^sprbench db: unknown subcommand'
expect_rc 2 "$SPRBENCH" db info --db "$T/none.db"; expect_one_error_line 'no such database'
expect_rc 2 "$SPRBENCH" gate --candidate 1; expect_one_error_line '^sprbench gate: give --baseline'
expect_rc 2 "$SPRBENCH" report --baseline a --candidate b; expect_one_error_line '^sprbench report: --out'
expect_rc 2 "$SPRBENCH" gate --baseline 1 --candidate 1 --tolerance 5 --db x
expect_one_error_line 'tolerance'

# a real sweep: two tiny GEMM points, 12 samples each (a 2.5x difference stays
# significant by the gate's test through a spike or two of a busy machine)
expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 16x16x16,24x24x24 \
  --reps 12 --no-peak --db a.db --label first
expect_rc 0 "$SPRBENCH" db sweeps --db a.db; expect_grep 'first' out
# listings never cut what a selector takes: a long label shows whole
expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --reps 8 --no-peak \
  --db long.db --label "zen3 distilbert-base nightly seq384 batch32 run"
expect_rc 0 "$SPRBENCH" db sweeps --db long.db
expect_grep ' zen3 distilbert-base nightly seq384 batch32 run ' out
# plot names the sweep it drew (on stderr; stdout lists the files)
if command -v gnuplot >/dev/null; then
  expect_rc 0 "$SPRBENCH" plot --db a.db --out pl0
  expect_grep '^sprbench plot: no --sweep given: drew the newest, sweep 1, first \(gemm on ' err
fi
expect_rc 0 "$SPRBENCH" db points --db a.db --sweep 1; expect_grep 'scalar-f32 .*ok' out
expect_rc 0 "$SPRBENCH" db export --db a.db --out a.json
FP=$(python3 -c "import json;print(json.load(open('a.json'))['machines'][0]['fingerprint'])")

# export/import round trip, idempotent
expect_rc 0 "$SPRBENCH" db import --db b.db a.json; expect_grep '^a.json: 2 point\(s\) added' out
expect_rc 0 "$SPRBENCH" db import --db b.db a.json; expect_grep '0 point\(s\) added .* 2 already present' out
expect_rc 0 "$SPRBENCH" db export --db b.db --out b.json
python3 - <<'PY' || fail "round trip changed the data"
import json
a, b = json.load(open('a.json')), json.load(open('b.json'))
assert all(a[k] == b[k] for k in ('machines', 'sweeps', 'points'))
PY
ok
# export nests JSON documents as objects (version 3); an older export's
# string form still imports, and exports the same objects again
python3 - <<'PY' || fail "export does not nest its JSON fields"
import json
d = json.load(open('a.json'))
assert d['version'] == 3
p, m = d['points'][0], d['machines'][0]
assert isinstance(m['isa'], dict) and isinstance(m['info_json'], dict) and 'avx2' in m['isa']
assert isinstance(p['config'], dict)
assert isinstance(p['result_json'], dict) and p['result_json']['kernel'] == 'scalar-f32'
for o in [m] + d['points']:   # the form versions 1 and 2 wrote
    for k in ('isa', 'info_json', 'config', 'result_json', 'binding'):
        if isinstance(o.get(k), (dict, list)): o[k] = json.dumps(o[k])
d['version'] = 2
json.dump(d, open('a_v2.json', 'w'))
PY
ok
expect_rc 0 "$SPRBENCH" db import --db v2.db a_v2.json
expect_rc 0 "$SPRBENCH" db export --db v2.db --out v2.json
python3 -c "
import json
a, b = json.load(open('a.json')), json.load(open('v2.json'))
assert all(a[k] == b[k] for k in ('machines', 'sweeps', 'points'))" && ok || fail "a version-2 export did not come back as version 3"
expect_rc 0 "$SPRBENCH" db merge --db m.db a.db b.db
expect_grep '^b.db: 0 point\(s\) added' out

# CSV for pandas: a header and one row per point
expect_rc 0 "$SPRBENCH" db export --csv --db a.db --out a.csv
[ "$(wc -l <a.csv)" -eq 3 ] && ok || fail "a.csv has $(wc -l <a.csv) lines"
python3 - <<'PY' || fail "CSV unreadable"
import csv
rows = list(csv.DictReader(open('a.csv')))
assert len(rows) == 2 and rows[0]['kernel'] == 'scalar-f32' and float(rows[0]['gflops']) > 0
assert int(rows[0]["n_samples"]) == 12
PY
ok

# derived exports: another machine at 2.5x the time; the same machine 10 %,
# 2 % slower; and one with 3 samples
python3 - "$FP" <<'PY'
import json, sys, uuid
fp = sys.argv[1]
def derive(name, scale, newfp=None, cpu=None, nsamples=None, tight=False):
    d = json.load(open('a.json'))
    if tight:   # the real medians with +-0.5 % spread: a known, clean difference
        for p in d['points']:
            med = sorted(p['samples'])[len(p['samples']) // 2]
            p['samples'] = [med * (1 + 0.001 * (i % 11 - 5)) for i in range(len(p['samples']))]
    if newfp:
        d['machines'][0]['fingerprint'] = newfp
        d['machines'][0]['cpu_model'] = cpu
        d['machines'][0]['microarch'] = 'Ice Lake'
    for s in d['sweeps']:
        s['uuid'] = uuid.uuid4().hex
        s['machine'] = newfp or fp
        # the other machine's sweep started later: the newest of its label
        # by start time (uuids are random: a tie would be decided by chance)
        if newfp: s['started'] = '2099-01-01T00:00:00Z'
    for p in d['points']:
        p['uuid'] = uuid.uuid4().hex
        p['sweep'] = d['sweeps'][0]['uuid']
        p['machine'] = newfp or fp
        p['samples'] = [x * scale for x in p['samples']][:nsamples]
        for m in p['metrics']:
            if m['name'] == 'gflops': m['value'] /= scale
    json.dump(d, open(name, 'w'))
# both sides of the report tight: a spike of a busy machine in the real
# samples must not decide what the report's test finds
derive('icl.json', 2.5, 'feedface00000001', 'Intel Xeon Platinum 8380', tight=True)
derive('here.json', 1.0, tight=True)
derive('base.json', 1.0, tight=True)
derive('slow10.json', 1.10, tight=True)
derive('slow2.json', 1.02, tight=True)
derive('few.json', 1.10, nsamples=3, tight=True)
PY

# report: Ice Lake (baseline) against this machine (candidate)
expect_rc 0 "$SPRBENCH" db import --db r.db here.json
expect_rc 0 "$SPRBENCH" db import --db r.db icl.json
expect_rc 0 "$SPRBENCH" report --db r.db --baseline feedface --candidate "$FP" --out rep
for f in rep/report.md rep/report.html; do
  [ -s $f ] && ok || fail "$f missing"
  expect_grep 'feedface00000001' $f
  expect_grep "$FP" $f
  expect_grep 'Intel Xeon Platinum 8380' $f
  expect_grep '2\.50x' $f
done
if command -v gnuplot >/dev/null; then expect_grep 'src="data:image/png;base64,' rep/report.html; fi
# the bar charts come from the templates: a missing directory is refused before
# any work, a restyled copy is used (a template that breaks the rules is not)
expect_rc 2 "$SPRBENCH" report --db r.db --baseline feedface --candidate "$FP" --out rept \
  --templates "$T/no-templates"; expect_one_error_line '^sprbench report: --templates .*no throughput.gp'
[ ! -e rept ] && ok || fail "report wrote rept for a bad --templates"
if command -v gnuplot >/dev/null; then
  cp -r "$SB_SOURCE_DIR/plots" mytpl
  sed -i 's/^set grid .*/set grid xtics/' mytpl/report-dots.gp
  expect_rc 0 "$SPRBENCH" report --db r.db --baseline feedface --candidate "$FP" --out rept --templates mytpl
  expect_grep 'src="data:image/png;base64,' rept/report.html
  printf 'system "touch %s/pwned"\n' "$T" >> mytpl/report-dots.gp
  expect_rc 0 "$SPRBENCH" report --db r.db --baseline feedface --candidate "$FP" --out rept2 --templates mytpl
  [ ! -e "$T/pwned" ] && ok || fail "a template ran a command"
  expect_grep 'report-dots.gp' rept2/report.md
fi

# the report argues: an opening summary with the gate's test, one wording
# for ratios, units in the tables, and its word on every ratio
expect_grep '^## Summary' rep/report.md
expect_grep 'Same-name view: over the 2 point\(s\) both sides ran with the same kernel \(2 gemm\), the candidate is 2\.50x faster' rep/report.md
expect_grep 'with at least 6 samples a side and not noisy: 2 faster on the candidate, 0 slower, 0 not significant' rep/report.md
expect_grep '\| GFLOP/s \| .*\| 2\.50x faster \(significant, p=' rep/report.md
if grep -qE '[0-9]x \(|ratio [0-9.]+x' rep/report.md; then fail "a bare ratio in rep/report.md"; else ok; fi
# a noisy sweep on the same machine, named by its label (the newest "first"
# is the other machine's: sweep 1 is named by id): a large ratio the
# test cannot judge says so (its samples form two groups: the gate's
# "noisy" tag, shown in the report too), and the report warns that both
# sides are one machine
python3 - <<'PY'
import json, uuid
d = json.load(open('a.json'))
d['sweeps'][0]['uuid'] = uuid.uuid4().hex
d['sweeps'][0]['label'] = 'noisy'
# the newest by start time (a copy started in the same second would be
# ordered by its random uuid)
import datetime
st = datetime.datetime.strptime(d['sweeps'][0]['started'], '%Y-%m-%dT%H:%M:%SZ')
d['sweeps'][0]['started'] = (st + datetime.timedelta(hours=1)).strftime('%Y-%m-%dT%H:%M:%SZ')
for p in d['points']:
    p['uuid'] = uuid.uuid4().hex
    p['sweep'] = d['sweeps'][0]['uuid']
    med = sorted(p['samples'])[len(p['samples']) // 2]
    # half far below and half far above the real samples: a large ratio of
    # means with no shift in ranks, not significant at any sample count
    p['samples'] = [med * (100 if i % 2 else 0.01) for i in range(len(p['samples']))]
    for m in p['metrics']:
        if m['name'] == 'gflops': m['value'] /= 50.005
json.dump(d, open('noisy.json', 'w'))
PY
expect_rc 0 "$SPRBENCH" db import --db r.db noisy.json
expect_rc 0 "$SPRBENCH" report --db r.db --baseline 1 --candidate noisy --out rep3 --no-plots
expect_grep 'x slower \(noisy: a side.s samples form two groups, not judged\)' rep3/report.md
expect_grep ': 0 faster on the candidate, 0 slower, 0 not significant' rep3/report.md
expect_grep 'Noisy \(the gate.s tag\): 2 point\(s\)' rep3/report.md
expect_grep 'Warning: both sides ran on the same machine' rep3/report.md
expect_rc 0 "$SPRBENCH" report --db r.db --baseline noisy --candidate noisy --out rep4 --no-plots
expect_grep 'Warning: both sides are the same sweep' rep4/report.md

# machine-readable: --json is one JSON document on stdout
json_ok() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2" "$3" && ok || fail "$1: $3"; }
expect_rc 0 "$SPRBENCH" db sweeps --db r.db --json
json_ok 'db sweeps --json' 'assert "noisy" in [s["label"] for s in d["sweeps"]]' out
expect_rc 0 "$SPRBENCH" db points --db r.db --sweep noisy --json
json_ok 'db points --json' 'p = d["points"]; assert len(p) == 2 and len(p[0]["samples_seconds"]) == 12 and p[0]["metrics"]["gflops"]["unit"] == "GFLOP/s"' out
expect_rc 2 "$SPRBENCH" db info --db r.db --json; expect_one_error_line 'json belongs to sweeps and points'
# a label names the newest sweep of that label
expect_rc 0 "$SPRBENCH" db points --db r.db --sweep first --json
json_ok 'label: the newest sweep' 'assert d["sweep_id"] == 2' out
# (both rows noisy, WARN: nothing judged, exit 1 since #41)
expect_rc 1 "$SPRBENCH" gate --db r.db --baseline 1 --candidate noisy --json
json_ok 'gate --json' 'assert d["compared"] == 2 and d["fail"] == 0 and d["rows"][0]["verdict"] in ("PASS", "WARN") and d["rows"][0]["cost_ratio"] > 10' out
json_ok 'gate --json nothing judged' 'assert d["verdict"] == "FAIL" and d["nothing_judged"].startswith("nothing judged: none of the 2 compared point(s) PASSed or FAILed (2 noisy)")' out
expect_rc 1 "$SPRBENCH" gate --db r.db --baseline 1 --candidate feedface --cross-machine --json
json_ok 'gate --json FAIL' 'assert d["fail"] == 2 and all(r["verdict"] == "FAIL" for r in d["rows"])' out
expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 16x16x16 --reps 3 --no-peak \
  --db j.db --json
json_ok 'sweep --json' 'assert d["ok"] == 1 and d["rows"][0]["kernel"] == "scalar-f32" and d["rows"][0]["unit"] == "GFLOP/s"' out
expect_grep '^\[1/1\] gemm scalar-f32' err
expect_rc 2 "$SPRBENCH" sweep --json --dry-run; expect_one_error_line 'not with --dry-run'
# help CMD is CMD --help; --version names the commit; SPRBENCH_DB is the default --db
"$SPRBENCH" gate --help >h1.txt; expect_rc 0 "$SPRBENCH" help gate
cmp -s h1.txt out && ok || fail "sprbench help gate differs from gate --help"
expect_rc 0 "$SPRBENCH" help; expect_grep '^  report ' out
expect_rc 2 "$SPRBENCH" help frobnicate; expect_one_error_line "unknown command 'frobnicate'"
expect_rc 0 "$SPRBENCH" --version; expect_grep '^sprbench .* \(commit ([0-9a-f]{40}|unknown)\)$' out
SPRBENCH_DB=r.db expect_rc 0 "$SPRBENCH" db sweeps; expect_grep 'noisy' out
SPRBENCH_DB=r.db expect_rc 0 "$SPRBENCH" db points --sweep noisy; expect_grep 'scalar-f32' out
# the same from two databases, one per machine
expect_rc 0 "$SPRBENCH" db import --db icl_only.db icl.json
expect_rc 0 "$SPRBENCH" report --db icl_only.db --db a.db --baseline feedface --candidate "$FP" --out rep2
expect_grep '2\.50x' rep2/report.md
expect_grep 'icl_only.db \+ a.db' rep2/report.md
expect_rc 2 "$SPRBENCH" report --db r.db --baseline nosuch --candidate "$FP" --out rep2
expect_one_error_line "'nosuch' is neither a sweep .* nor a machine"

# gate: identical runs PASS (the tight copies of the real samples: a busy
# machine can make real samples bimodal, which the gate rightly leaves unjudged)
expect_rc 0 "$SPRBENCH" db import --db base.db base.json
expect_rc 0 "$SPRBENCH" db import --db same.db base.json
# (the same import is the same run: another run of the same numbers has
# uuids of its own)
sqlite3 same.db "UPDATE sweep SET uuid = lower(hex(randomblob(16)));
  UPDATE point SET uuid = lower(hex(randomblob(16)));" || fail "sqlite3"
expect_rc 0 "$SPRBENCH" gate --baseline base.db --candidate same.db --junit j0.xml
expect_grep '2 PASS, 0 WARN, 0 FAIL' out
# 10 % slower FAILs (exit 1) with valid JUnit naming the failures
expect_rc 0 "$SPRBENCH" db import --db slow10.db slow10.json
expect_rc 1 "$SPRBENCH" gate --baseline base.db --candidate slow10.db --junit j1.xml
expect_grep '0 PASS, 0 WARN, 2 FAIL' out
python3 - <<'PY' || fail "JUnit XML invalid"
import xml.etree.ElementTree as E
for f, fails in (('j0.xml', 0), ('j1.xml', 2)):
    r = E.parse(f).getroot()
    s = r.find('testsuite')
    assert r.tag == 'testsuites' and int(s.get('tests')) == 2 and int(s.get('failures')) == fails
    assert len(s.findall('testcase/failure')) == fails
PY
ok
# ... and with the sweep id form, in one database
expect_rc 0 "$SPRBENCH" db import --db s.db base.json slow10.json
expect_rc 1 "$SPRBENCH" gate --db s.db --baseline 1 --candidate 2
expect_grep '0 PASS, 0 WARN, 2 FAIL' out
# in GitHub Actions: an ::error annotation per FAIL on stderr (stdout stays
# the JSON document) and a table appended to the step summary
echo '# earlier step' >summary.md
expect_rc 1 env GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$PWD/summary.md" "$SPRBENCH" gate \
  --db s.db --baseline 1 --candidate 2 --json
python3 -c "import json; d = json.load(open('$T/out')); assert d['verdict'] == 'FAIL', d['verdict']" \
  && ok || fail "gate --json has no top-level verdict FAIL"
[ "$(grep -c '^::error title=sprbench gate FAIL::' "$T/err")" = 2 ] && ok \
  || fail "expected 2 ::error annotations: $(cat "$T/err")"
expect_grep '^# earlier step$' summary.md
expect_grep '^### sprbench gate: FAIL$' summary.md
expect_grep '^\| FAIL \| scalar-f32' summary.md
# ... and none outside it
expect_rc 1 "$SPRBENCH" gate --db s.db --baseline 1 --candidate 2
[ ! -s "$T/err" ] && ok || fail "annotations outside GitHub Actions: $(cat "$T/err")"
# stored text that is not UTF-8 (a host name as the machine gave it, a label
# an older sprbench or another tool wrote): --json still writes one valid
# document, U+FFFD where each bad byte was, and exits with the verdict
# (1 FAIL, 0 PASS), never "cannot write the JSON document"
cp s.db u.db
python3 - <<'PY' || fail "could not corrupt u.db"
import sqlite3
c = sqlite3.connect('u.db')
c.execute("UPDATE machine SET hostname = CAST(X'6869FF' AS TEXT)")
c.execute("UPDATE sweep SET label = CAST(X'6C61FE62' AS TEXT) WHERE id = 1")
c.commit()
PY
for run in '1 2 1 FAIL' '2 1 0 PASS'; do
  read -r b c want verdict <<<"$run"
  expect_rc "$want" "$SPRBENCH" gate --db u.db --baseline "$b" --candidate "$c" --json
  [ ! -s "$T/err" ] && ok || fail "gate --json on invalid UTF-8 wrote to stderr: $(head -3 "$T/err")"
  python3 -m json.tool "$T/out" >/dev/null && ok || fail "gate --json on invalid UTF-8: not JSON"
  json_ok "gate --json, invalid UTF-8, $verdict" "assert d['verdict'] == '$verdict' and d['compared'] == 2
s = {'1': ('sweep 1 la\\ufffdb on ', 'hi\\ufffd'), '2': ('sweep 2 first on ', 'hi\\ufffd')}
for got, (head, tail) in ((d['baseline'], s['$b']), (d['candidate'], s['$c'])):
    assert got.startswith(head) and got.endswith(tail), got" out
done
# sweep --json names a database and plots whose path is not UTF-8 (U+FFFD),
# never leaves them out
bad=$(printf 'u\377dir')
mkdir -p "$bad"
expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --reps 8 --no-peak \
  --db "$bad/x.db" --json
json_ok 'sweep --json, a path that is not UTF-8' 'assert d["database"] == "u\ufffddir/x.db"' out
# the JUnit file too (its test names carry the stored shape): UTF-8 that
# parses, U+FFFD where the bad byte was
cp u.db ju.db
python3 -c 'import sqlite3; c = sqlite3.connect("ju.db")
c.execute("UPDATE point SET shape = CAST(X'"'"'3878FF'"'"' AS TEXT)"); c.commit()' \
  || fail "could not corrupt ju.db"
"$SPRBENCH" gate --db ju.db --baseline 1 --candidate 2 --junit ju.xml >/dev/null 2>&1
python3 -c 'import sys, xml.etree.ElementTree as E
t = E.parse(sys.argv[1]).getroot()
assert "\ufffd" in E.tostring(t, encoding="unicode")' ju.xml && ok \
  || fail "gate --junit on invalid UTF-8: not UTF-8 XML with U+FFFD"
# the report names the machine by its repaired host name, as the gate does
expect_rc 0 "$SPRBENCH" report --db u.db --baseline 1 --candidate 2 --out repu --no-plots
expect_grep "$(printf 'hi\357\277\275')" repu/report.md
expect_rc 0 "$SPRBENCH" db sweeps --db u.db --json
json_ok 'db sweeps --json, invalid UTF-8' 'assert [s["label"] for s in d["sweeps"]][0] == "la\ufffdb" and all(s["hostname"] == "hi\ufffd" for s in d["sweeps"])' out
# 2 % slower: PASS or WARN, never FAIL
expect_rc 0 "$SPRBENCH" db import --db slow2.db slow2.json
expect_rc 0 "$SPRBENCH" gate --baseline base.db --candidate slow2.db
expect_grep ' 0 FAIL' out
# too few samples WARN
expect_rc 0 "$SPRBENCH" db import --db few.db few.json
expect_rc 1 "$SPRBENCH" gate --baseline base.db --candidate few.db   # nothing judged (#41)
expect_grep '^WARN .*too few samples' out
expect_grep '^nothing judged: none of the [0-9]+ compared point\(s\) PASSed or FAILed \([0-9]+ undecided .*\): measure more samples or rounds; or pass --allow-nothing-judged to accept it$' out
expect_rc 0 "$SPRBENCH" gate --baseline base.db --candidate few.db --allow-nothing-judged
# ... and a report counts and names them: in the mean, not tested
expect_rc 0 "$SPRBENCH" db import --db bf.db base.json few.json
expect_rc 0 "$SPRBENCH" report --db bf.db --baseline 1 --candidate 2 --out repf --no-plots
expect_grep 'In the mean but not tested \(fewer than 6 samples on a side\): [0-9]+ point\(s\): scalar-f32' repf/report.md
# another machine: refused with one line and the hint, unless asked to
# compare across machines
expect_rc 0 "$SPRBENCH" db import --db icl.db icl.json
expect_rc 2 "$SPRBENCH" gate --baseline icl.db --candidate b.db
expect_one_error_line '^sprbench gate: the candidate \(database b.db\) ran on machine .*never did .*add --cross-machine$' 
expect_rc 0 "$SPRBENCH" gate --baseline icl.db --candidate b.db --cross-machine
expect_rc 1 "$SPRBENCH" gate --baseline r.db --candidate b.db   # nothing judged (#41)
expect_grep '^ignored: 2 baseline' out
expect_grep '^nothing judged: none of the 2 compared point\(s\) PASSed or FAILed \(2 noisy\)' out
# a point missing on one side is reported
python3 -c "
import json; d = json.load(open('slow2.json')); d['points'] = d['points'][:1]; json.dump(d, open('one.json', 'w'))"
expect_rc 0 "$SPRBENCH" db import --db one.db one.json
expect_rc 0 "$SPRBENCH" gate --baseline base.db --candidate one.db
expect_grep '^WARN .*point missing in the candidate' out

# references (ReFrame style): around the measured gflops PASS, twice it FAILs
G=$(python3 -c "
import json; d = json.load(open('a.json'))
print([m['value'] for m in d['points'][0]['metrics'] if m['name'] == 'gflops'][0])")
S0=$(python3 -c "import json; print(json.load(open('a.json'))['points'][0]['shape'])")
printf '# ref\n%s gemm scalar-f32 %s 1 gflops %s -1%% +1%% GFLOP/s\n' "$FP" "$S0" "$G" > ok.ref
expect_rc 0 "$SPRBENCH" gate --references ok.ref --candidate b.db
expect_grep '1 PASS, 0 WARN, 0 FAIL' out
# twice the fastest point's gflops: every point falls short (the shapes'
# speeds differ, so the first point's alone would not do)
G2=$(python3 -c "
import json; d = json.load(open('a.json'))
print(2 * max(m['value'] for p in d['points'] for m in p['metrics'] if m['name'] == 'gflops'))")
printf '* gemm scalar-f32 * * gflops %s -10%% null GFLOP/s\n' "$G2" > bad.ref
expect_rc 1 "$SPRBENCH" gate --references bad.ref --candidate b.db --junit jr.xml
expect_grep '0 PASS, 0 WARN, 2 FAIL' out
printf 'x gemm\n' > broken.ref
expect_rc 2 "$SPRBENCH" gate --references broken.ref --candidate b.db
expect_one_error_line '^sprbench gate: broken.ref:1: expected'

# hostile files: exit 2, one line naming the file, nothing written
before=$("$SPRBENCH" db info --db b.db | grep -E '^(point|sample|metric|sweep|machine) ')
printf 'not json {' > h1.json
printf '{"format":"sprbench-export","version":1,"machines":[],"sweeps":[],"points":"x"}' > h2.json
python3 - <<'PY'
import json, copy
d = json.load(open('icl.json'))
def bad(name, f):
    x = copy.deepcopy(d); f(x); json.dump(x, open(name, 'w'))
bad('h3.json', lambda x: x['points'][1].__setitem__('samples', ['1.0']))
bad('h4.json', lambda x: x['points'][1].__setitem__('threads', 10**30))
bad('h5.json', lambda x: x['points'][1].__setitem__('status', "ok'; DROP TABLE point; --"))
bad('h6.json', lambda x: x['points'][1]['samples'].append(1e300))
bad('h7.json', lambda x: x['points'][1].__setitem__('kernel', 42))
bad('h8.json', lambda x: x['machines'][0].__setitem__('fingerprint', 'a b'))
v = '"version": %d' % d['version']
assert v in json.dumps(d)
open('h9.json', 'w').write(json.dumps(d).replace(v, v + ', ' + v))
PY
for h in h1 h2 h3 h4 h5 h6 h7 h8 h9; do
  expect_rc 2 "$SPRBENCH" db import --db b.db $h.json
  expect_one_error_line "^sprbench db: $h.json"
done
printf 'SQLite format 3\0garbage' > notadb.db
expect_rc 2 "$SPRBENCH" db merge --db b.db notadb.db
expect_one_error_line 'notadb.db'
expect_rc 2 "$SPRBENCH" gate --baseline notadb.db --candidate b.db
after=$("$SPRBENCH" db info --db b.db | grep -E '^(point|sample|metric|sweep|machine) ')
[ "$before" = "$after" ] && ok || fail "hostile imports changed b.db: $before -> $after"
# a SQL-looking kernel name is data, stored verbatim
python3 - <<'PY'
import json
d = json.load(open('icl.json'))
d['points'][0]['kernel'] = "avx512-f32; rm -rf /'); DROP TABLE point; --"
d['points'][1]['kernel'] = "=HYPERLINK(1)"
json.dump(d, open('sqlish.json', 'w'))
PY
expect_rc 0 "$SPRBENCH" db import --db q.db sqlish.json
expect_rc 0 "$SPRBENCH" db export --csv --db q.db --out -
expect_grep "avx512-f32; rm -rf /'\); DROP TABLE point; --" out
# ... and a spreadsheet formula stays text in the CSV
expect_grep "\"'=HYPERLINK\(1\)\"" out
expect_rc 0 "$SPRBENCH" db points --db q.db --sweep 1
expect_grep '=HYPERLINK' out
finish results_cli
