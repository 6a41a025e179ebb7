#!/bin/bash
# What a gate, an import and a merge take as numbers (#44), at CLI level on
# crafted databases (`db import` of exports built from one real sweep's, and
# copies edited with sqlite3), no timing:
# - a pair number a database holds (10^8, 2^31 - 1, 2^32, -1, past the
#   point's paired samples) or a side other than 0/1 is one line naming the
#   point, exit 2, never an allocation sized by it; 60,000 pairs are judged
#   (their verdict checked; `timeout` only guards against a hang);
# - a sample of 0, -1, inf or 5e-324 is refused by import, merge and gate
#   (either side, paired or not), one line naming the point and its sweep;
# - a metric that gives no cost ratio (a rate of 0) is a WARN saying so,
#   never "within tolerance (-nan%)";
# - a pairing on a workload the sweep never pairs (stream) is refused at
#   import and merge;
# - an exact --references line and a wildcard line gate a point once: the
#   exact line, whatever their order.
. "$SB_SOURCE_DIR/tests/lib.sh"
cd "$T" || exit 1
expect_rc 0 "$SPRBENCH" sweep --db t.db --kernels scalar-f32 --threads 1 --shapes 16x16x16 \
  --reps 6 --no-peak
expect_rc 0 "$SPRBENCH" db export --db t.db --out tpl.json
mk() { python3 "$SB_SOURCE_DIR/tests/mk_export.py" tpl.json "$@" || fail "mk $1"; }
db() { rm -f "$1"; shift; local d=$1; shift; "$SPRBENCH" db import --db "$d" "$@" >/dev/null || fail "import $*"; }
q() { sqlite3 "$1" "$2"; }
S8='[1e-3,1.001e-3,1.002e-3,1.003e-3,1.004e-3,1.005e-3,1.006e-3,1.007e-3]'
SLOW='[1.20,1.21,1.19,1.22,1.18,1.20,1.21,1.19,1.20,1.22]'
POINT='point [0-9]+ \([0-9a-f]{8} of sweep [0-9a-f]{8}'

# ---- pair numbers: a range check on read, never a size ----
mk slow.json "[{\"points\":[{\"ratios\":$SLOW}]}]"
db x p.db slow.json
expect_rc 1 "$SPRBENCH" gate --paired --candidate p.db
expect_grep '^FAIL .*over 10 abba pairs' out
for v in 100000000 2147483647 4294967296 -1 25; do
  cp p.db pair.db
  q pair.db "UPDATE sample SET pair = $v WHERE pair = 9"
  expect_rc 2 timeout 120 "$SPRBENCH" gate --paired --candidate pair.db
  expect_one_error_line "^sprbench gate: $POINT\): .*pair $v"
done
cp p.db side.db
q side.db "UPDATE sample SET side = 2 WHERE pair = 9"
expect_rc 2 "$SPRBENCH" gate --paired --candidate side.db
expect_one_error_line "^sprbench gate: $POINT\): a sample of side 2 in pair 9"
# the report reads points the same way: refused too, not a crash
expect_rc 2 "$SPRBENCH" db points --db pair.db >/dev/null
# a merge reads the source's pairs and checks them as an import does
rm -f m.db
expect_rc 2 "$SPRBENCH" db merge --db m.db pair.db
expect_one_error_line 'pairing\.pair\[[0-9]+\]: an integer in \[0, 19\], below the number of samples \(point [0-9a-f]{8} of sweep [0-9a-f]{8}\)$'
[ ! -e m.db ] || [ "$(q m.db 'SELECT COUNT(*) FROM point')" = 0 ] && ok || fail "a refused merge stored points"
# an import: a pair number past the samples (within 10^6) is refused
python3 -c "
import json; d = json.load(open('slow.json')); d['points'][0]['pairing']['pair'][3] = 25
json.dump(d, open('pair25.json', 'w'))"
rm -f i.db
expect_rc 2 "$SPRBENCH" db import --db i.db pair25.json
expect_one_error_line '^sprbench db: pair25\.json: points\[0\]\.pairing\.pair\[3\]: an integer in \[0, 19\]'
# 60,000 pairs: judged once grouped (their verdict; timeout is a hang guard only)
python3 -c "print('[{\"points\":[{\"ratios\":[' + ','.join('%.4f' % (1.2 + 0.001 * (k % 7)) for k in range(60000)) + ']}]}]')" >r60k
mk big.json @r60k
db x big.db big.json
expect_rc 1 timeout 600 "$SPRBENCH" gate --paired --candidate big.db
expect_grep '^FAIL .*over 60000 abba pairs' out

# ---- samples: seconds in [1e-9, 1e9], at import, merge and gate ----
mk b.json "[{\"points\":[{\"samples\":$S8}]}]"
mk c.json "[{\"points\":[{\"samples\":$S8}]}]"
db x b.db b.json; db x c.db c.json
expect_rc 0 "$SPRBENCH" gate --baseline b.db --candidate c.db
for v in 0 -1 9e999 5e-324; do
  # a database written by another program: the gate refuses either side
  cp c.db bad.db
  q bad.db "UPDATE sample SET seconds = $v WHERE rep = 3"
  expect_rc 2 "$SPRBENCH" gate --baseline b.db --candidate bad.db
  expect_one_error_line "^sprbench gate: candidate database bad\.db: $POINT: gemm scalar-f32 .*\) has a sample of [-0-9.e+inf]+ s: samples are seconds in \[1e-09, 1e\+09\]"
  expect_rc 2 "$SPRBENCH" gate --baseline bad.db --candidate b.db
  expect_one_error_line "^sprbench gate: baseline database bad\.db: $POINT"
  # a merge of it changes nothing
  rm -f m.db
  expect_rc 2 "$SPRBENCH" db merge --db m.db bad.db
  if [ "$v" = 9e999 ]; then  # no JSON number: the export of the source says so
    expect_one_error_line "^sprbench db: bad\.db: point [0-9]+: a sample of inf s is not a finite number of seconds"
  else
    expect_one_error_line "^sprbench db: bad\.db: points\[0\]\.samples\[3\]: not a number of seconds in \[1e-09, 1e\+09\] \(point [0-9a-f]{8} of sweep [0-9a-f]{8}\)$"
  fi
  [ ! -e m.db ] || [ "$(q m.db 'SELECT COUNT(*) FROM sample')" = 0 ] && ok || fail "a refused merge stored samples ($v)"
  # a paired point's samples, either side
  cp p.db pbad.db
  q pbad.db "UPDATE sample SET seconds = $v WHERE rep = 4"
  expect_rc 2 "$SPRBENCH" gate --paired --candidate pbad.db
  expect_one_error_line "^sprbench gate: candidate database pbad\.db: $POINT"
  # and references
  printf '* gemm scalar-f32 * * seconds 0.001 -50%% +50%%\n' >r.txt
  expect_rc 2 "$SPRBENCH" gate --references r.txt --candidate bad.db
  expect_one_error_line "^sprbench gate: candidate database bad\.db: $POINT"
done
# an import: 0, a negative and a denormal (JSON has no inf), both kinds of samples
for v in 0 -1 5e-324; do
  python3 - "$v" <<'PY'
import json, sys
v = float(sys.argv[1])
d = json.load(open('c.json')); d['points'][0]['samples'][2] = v; json.dump(d, open('s.json', 'w'))
d = json.load(open('slow.json')); d['points'][0]['pairing']['samples'][5] = v; json.dump(d, open('ps.json', 'w'))
PY
  rm -f i.db
  expect_rc 2 "$SPRBENCH" db import --db i.db s.json
  expect_one_error_line '^sprbench db: s\.json: points\[0\]\.samples\[2\]: not a number of seconds in \[1e-09, 1e\+09\] \(point [0-9a-f]{8} of sweep [0-9a-f]{8}\)$'
  expect_rc 2 "$SPRBENCH" db import --db i.db ps.json
  expect_one_error_line '^sprbench db: ps\.json: points\[0\]\.pairing\.samples\[5\]: not a number of seconds'
done
# the bounds themselves are samples
python3 - <<'PY'
import json
d = json.load(open('c.json')); d['points'][0]['samples'][:2] = [1e-9, 1e9]; json.dump(d, open('edge.json', 'w'))
PY
rm -f i.db
expect_rc 0 "$SPRBENCH" db import --db i.db edge.json

# ---- a metric with no cost ratio: a WARN that says so, no nan ----
cp c.db g0.db
q g0.db "UPDATE metric SET value = 0 WHERE name = 'gflops'"
expect_rc 1 "$SPRBENCH" gate --baseline b.db --candidate g0.db --metric gflops
expect_grep "^WARN .*gflops .*no ratio: the candidate's gflops is 0, negative or past a double's range" out
grep -qiE 'nan|inf%' out && fail "a nan or inf in the gate's output: $(grep -iE 'nan|inf' out)" || ok
expect_rc 1 "$SPRBENCH" gate --baseline b.db --candidate g0.db --metric gflops --json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"][0]; assert r["verdict"] == "WARN" and r["cost_ratio"] is None, r' out &&
  ok || fail "no-ratio row in JSON: $(head -c 400 out)"

# ---- pairing only where the workload pairs ----
python3 - <<'PY'
import json
d = json.load(open('slow.json')); d['points'][0]['workload'] = 'stream'; json.dump(d, open('stream.json', 'w'))
PY
rm -f i.db
expect_rc 2 "$SPRBENCH" db import --db i.db stream.json
expect_one_error_line '^sprbench db: stream\.json: points\[0\]\.pairing: stream points are never measured in pairs .*\(point [0-9a-f]{8} of sweep [0-9a-f]{8}\)$'
[ ! -e i.db ] || [ "$(q i.db 'SELECT COUNT(*) FROM point')" = 0 ] && ok || fail "a refused import stored a point"
cp p.db st.db
q st.db "UPDATE point SET workload = 'stream'"
rm -f m.db
expect_rc 2 "$SPRBENCH" db merge --db m.db st.db
expect_one_error_line 'points\[0\]\.pairing: stream points are never measured in pairs'

# ---- --references: an exact line and a wildcard line gate a point once ----
mk two.json "[{\"points\":[{\"samples\":$S8},{\"shape\":\"24x24x24:NN\",\"samples\":$S8}]}]"
db x two.db two.json
FP=$(q two.db 'SELECT fingerprint FROM machine')
EXACT="$FP gemm scalar-f32 16x16x16:NN 1 seconds 0.001 -50% +50%"
WILD='* gemm scalar-f32 * * seconds 0.001 -5% +5%'
LOOSE='* gemm scalar-f32 * * seconds 0.0005 -5% +5%'  # fails any point it gates
for order in exact-first wild-first; do
  if [ $order = exact-first ]; then printf '%s\n%s\n' "$EXACT" "$LOOSE" >refs.txt
  else printf '%s\n%s\n' "$LOOSE" "$EXACT" >refs.txt; fi
  el=$([ $order = exact-first ] && echo 1 || echo 2) wl=$([ $order = exact-first ] && echo 2 || echo 1)
  expect_rc 1 "$SPRBENCH" gate --references refs.txt --candidate two.db
  [ "$(grep -c '16x16x16:NN' out)" = 1 ] && ok || fail "$order: 16x16x16 gated $(grep -c '16x16x16:NN' out) times"
  expect_grep "^PASS .*16x16x16:NN t1 .*from the reference \(line $el\)" out
  # the wildcard still gates what no exact line names
  expect_grep "^FAIL .*24x24x24:NN t1 .*outside .*\(line $wl\)" out
  expect_grep '^gate: 2 compared: 1 PASS, 0 WARN, 1 FAIL' out
done
# a prefix of the fingerprint with THREADS given outranks '*' with SHAPE given
printf '%s\n%s\n' "* gemm scalar-f32 16x16x16:NN * seconds 0.0005 -5% +5%" \
  "${FP:0:6} gemm scalar-f32 * 1 seconds 0.001 -50% +50%" >refs.txt
expect_rc 0 "$SPRBENCH" gate --references refs.txt --candidate two.db
expect_grep '^gate: 2 compared: 2 PASS, 0 WARN, 0 FAIL' out
printf '%s\n%s\n' "$EXACT" "$WILD" >refs.txt
expect_rc 0 "$SPRBENCH" gate --references refs.txt --candidate two.db
expect_grep '^gate: 2 compared: 2 PASS' out
expect_rc 0 "$SPRBENCH" gate --help
expect_grep 'the most exact line alone' out
finish results_gate_numerics
