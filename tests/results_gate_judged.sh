#!/bin/bash
# A gate that cannot stay green on nothing (#41), at CLI level on crafted
# databases (`db import` of exports built from one real sweep's):
# - no row PASSed or FAILed (sides with no configuration in common, WARNs
#   alone across machines) exits 1 with one line "nothing judged: ..."
#   (JSON, JUnit too); --allow-nothing-judged keeps exit 0 and says so;
# - gate --paired on a sweep with no paired point is exit 2, one line; an
#   ok point without pairs inside a paired sweep is a FAIL;
# - a paired row's interval is the one behind its verdict (a PASS "within
#   5 %" has its upper end below 1.05), its p values labelled;
# - the pooled table's columns give its ratio;
# - one round a side of sub-millisecond samples warns and names the fix.
. "$SB_SOURCE_DIR/tests/lib.sh"
cd "$T" || exit 1
expect_rc 0 "$SPRBENCH" sweep --db t.db --kernels scalar-f32 --threads 1 --shapes 16x16x16 \
  --reps 6 --no-peak
expect_rc 0 "$SPRBENCH" db export --db t.db --out tpl.json
# mk OUT SPEC: an export of one sweep per SPEC entry, from tpl.json's (tests/mk_export.py)
mk() { python3 "$SB_SOURCE_DIR/tests/mk_export.py" tpl.json "$@" || fail "mk $1"; }
db() { rm -f "$1"; shift; local d=$1; shift; "$SPRBENCH" db import --db "$d" "$@" >/dev/null || fail "import $*"; }
S8='[1e-3,1.001e-3,1.002e-3,1.003e-3,1.004e-3,1.005e-3,1.006e-3,1.007e-3]'
S3='[1e-3,1.001e-3,1.002e-3]'

# ---- disjoint points (a renamed kernel): nothing judged, exit 1 ----
mk base.json "[{\"points\":[{\"samples\":$S8},{\"shape\":\"24x24x24:NN\",\"samples\":$S8}]}]"
mk renamed.json "[{\"points\":[{\"kernel\":\"scalar2-f32\",\"samples\":$S8},{\"kernel\":\"scalar2-f32\",\"shape\":\"24x24x24:NN\",\"samples\":$S8}]}]"
db x base.db base.json; db x ren.db renamed.json
expect_rc 1 "$SPRBENCH" gate --baseline base.db --candidate ren.db --junit j.xml
expect_grep '^gate: 4 compared: 0 PASS, 4 WARN, 0 FAIL, 0 SKIP: FAIL \(nothing judged\)$' out
[ "$(tail -n1 out)" = "nothing judged: the sides share no configuration (4 on one side only; e.g. scalar-f32 16x16x16:NN t1): a kernel, shape or machine renamed? Gate runs of the same points; or pass --allow-nothing-judged to accept it" ] &&
  ok || fail "last line: $(tail -n1 out)"
expect_grep '<failure type="nothing-judged" message="nothing judged: the sides share no configuration' j.xml
python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' j.xml && ok || fail "JUnit is not XML"
GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY=$T/sum.md expect_rc 1 "$SPRBENCH" gate --baseline base.db --candidate ren.db
expect_grep '^::error title=sprbench gate FAIL::nothing judged: the sides share' err
expect_grep '^### sprbench gate: FAIL' sum.md
expect_rc 1 "$SPRBENCH" gate --baseline base.db --candidate ren.db --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["verdict"] == "FAIL" and d["fail"] == 0 and d["nothing_judged"].startswith("nothing judged: the sides share no configuration") and d["nothing_judged_allowed"] is False, d' out &&
  ok || fail "gate --json: nothing judged"
# the opt-out: exit 0, and the output says it was accepted
expect_rc 0 "$SPRBENCH" gate --baseline base.db --candidate ren.db --allow-nothing-judged --junit j2.xml
expect_grep '^gate: 4 compared: 0 PASS, 4 WARN, 0 FAIL, 0 SKIP: WARN \(nothing judged\)$' out
expect_grep '^nothing judged: the sides share no configuration .*; accepted \(--allow-nothing-judged\): exit 0$' out
grep -q 'nothing-judged' j2.xml && fail "an accepted nothing-judged is no JUnit failure" || ok
# one point judged is enough: the same sides plus a shared point pass
mk both.json "[{\"points\":[{\"samples\":$S8},{\"kernel\":\"scalar2-f32\",\"samples\":$S8}]}]"
db x both.db both.json
expect_rc 0 "$SPRBENCH" gate --baseline base.db --candidate both.db
grep -q 'nothing judged' out && fail "a PASS is something judged" || ok

# ---- across machines, WARNs alone ("3 compared: 0 PASS, 3 WARN") ----
mk few.json "[{\"machine\":\"00aa00aa00aa00aa\",\"points\":[{\"samples\":$S3},{\"shape\":\"24x24x24:NN\",\"samples\":$S3},{\"shape\":\"32x32x32:NN\",\"samples\":$S3}]}]"
mk base3.json "[{\"points\":[{\"samples\":$S8},{\"shape\":\"24x24x24:NN\",\"samples\":$S8},{\"shape\":\"32x32x32:NN\",\"samples\":$S8}]}]"
db x few.db few.json; db x base3.db base3.json
expect_rc 1 "$SPRBENCH" gate --baseline base3.db --candidate few.db --cross-machine
expect_grep '^gate: 3 compared: 0 PASS, 3 WARN, 0 FAIL, 0 SKIP: FAIL \(nothing judged\)$' out
expect_grep '^nothing judged: none of the 3 compared point\(s\) PASSed or FAILed \(3 undecided \(too few samples' out

# ---- --paired: no paired point is exit 2; an unpaired point in a paired sweep FAILs ----
expect_rc 2 "$SPRBENCH" gate --paired --candidate base3.db
expect_one_error_line '^sprbench gate: --paired: base3\.db holds no paired point \(3 ok point\(s\), none measured in pairs\): sweep with --pair-baseline B --pair-candidate C, or gate it with --baseline$'
SAME='[1.0,1.001,0.999,1.002,0.998,1.0,1.001,0.999,1.0,1.002]'
mk resumed.json "[{\"points\":[{\"ratios\":$SAME},{\"shape\":\"24x24x24:NN\",\"samples\":$S8}]}]"
db x res.db resumed.json
expect_rc 1 "$SPRBENCH" gate --paired --candidate res.db
expect_grep '^PASS .*16x16x16:NN t1 ' out
expect_grep '^FAIL .*24x24x24:NN t1 .*not measured in pairs, inside a paired sweep \(resumed\?\)' out
# ... while a plain sweep beside a paired one stays a WARN
mk two.json "[{\"points\":[{\"ratios\":$SAME}]},{\"points\":[{\"shape\":\"24x24x24:NN\",\"samples\":$S8}]}]"
db x two.db two.json
expect_rc 0 "$SPRBENCH" gate --paired --candidate two.db
expect_grep '^WARN .*24x24x24:NN t1 .*not measured in pairs \(sweep --pair-baseline' out

# ---- a paired PASS's interval lies within the tolerance ----
# ten pairs 5-10 % faster, two 11.7-12 % slower: the signed-rank test says
# "within 5 %"; the sign-test interval shown before reached 1.117
WITHIN='[0.90,0.91,0.92,0.93,0.94,0.95,0.905,0.915,0.925,0.935,1.117,1.12]'
mk within.json "[{\"points\":[{\"ratios\":$WITHIN}]}]"
db x within.db within.json
expect_rc 0 "$SPRBENCH" gate --paired --candidate within.db --json
python3 - "$T/out" <<'PY' && ok || fail "paired PASS: interval $(cat "$T/out" | head -40)"
import json, sys
r = json.load(open(sys.argv[1]))['rows'][0]
lo, hi = r['interval']
assert r['verdict'] == 'PASS', r
assert lo <= r['cost_ratio'] <= hi < 1.05, (lo, r['cost_ratio'], hi)
PY
expect_rc 0 "$SPRBENCH" gate --paired --candidate within.db
expect_grep 'p\(slower\)' out
expect_grep '^PASS .*within the tolerance 5\.0% \(one-sided Wilcoxon signed-rank p\(within\) [0-9.e-]+\)' out
expect_grep '^ratio: the pair ratios. Hodges-Lehmann estimate; interval: its 98% interval' out
# a FAIL's interval lies above 1, and an UNSURE's p values are named
SLOW='[1.20,1.21,1.19,1.22,1.18,1.20,1.21,1.19,1.20,1.22]'
mk slow.json "[{\"points\":[{\"ratios\":$SLOW}]}]"
db x slow.db slow.json
expect_rc 1 "$SPRBENCH" gate --paired --candidate slow.db --json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"][0]; lo,hi=r["interval"]; assert r["verdict"]=="FAIL" and 1.05 < lo <= r["cost_ratio"] <= hi, r' out &&
  ok || fail "paired FAIL interval"
EDGE='[1.01,1.09,1.02,1.08,1.01,1.09,1.02,1.08,1.01,1.09]'
mk edge.json "[{\"points\":[{\"ratios\":$EDGE}]}]"
db x edge.db edge.json
expect_rc 1 "$SPRBENCH" gate --paired --candidate edge.db
expect_grep '^WARN .*UNSURE .*one-sided Wilcoxon signed-rank p\(slower\) [0-9.e-]+, p\(within\) [0-9.e-]+' out
expect_grep '^nothing judged: .*1 UNSURE after their pairs.*measure more pairs' out

# ---- pooled: the columns are the medians the ratio is taken from ----
R1='[1e-3,1e-3,1e-3,1e-3,1e-3,1e-3]' R3='[3e-3,3e-3,3e-3,3e-3,3e-3,3e-3]' R2='[2e-3,2e-3,2e-3,2e-3,2e-3,2e-3]'
mk pb.json "[{\"points\":[{\"samples\":$R1}]},{\"points\":[{\"samples\":$R3}]},{\"points\":[{\"samples\":$R3}]}]"
mk pc.json "[{\"points\":[{\"samples\":$R2}]},{\"points\":[{\"samples\":$R2}]},{\"points\":[{\"samples\":$R2}]}]"
db x pb.db pb.json; db x pc.db pc.json
for m in seconds gflops; do
  "$SPRBENCH" gate --baseline pb.db --candidate pc.db --pool --json --metric $m >out 2>err
  python3 - "$T/out" $m <<'PY' && ok || fail "pooled $m: columns and ratio: $(head -c 600 "$T/out")"
import json, sys
r = json.load(open(sys.argv[1]))['rows'][0]
b, c, q = r['baseline'], r['candidate'], r['cost_ratio']
ratio = c / b if sys.argv[2] == 'seconds' else b / c  # a rate: cost is its inverse
assert abs(ratio - q) < 1e-9 * q and abs(q - 2 / 3) < 1e-9, (b, c, q)
PY
done

# ---- one round a side of sub-millisecond samples: a warning with the fix ----
F='[25e-6,25.1e-6,25.2e-6,25.3e-6,25.4e-6,25.5e-6,25.6e-6,25.7e-6]'
G='[28.75e-6,28.8e-6,28.9e-6,29e-6,29.1e-6,29.2e-6,29.3e-6,29.4e-6]'
mk fb.json "[{\"points\":[{\"samples\":$F}]}]"; mk fc.json "[{\"points\":[{\"samples\":$G}]}]"
db x fb.db fb.json; db x fc.db fc.json
expect_rc 1 "$SPRBENCH" gate --baseline fb.db --candidate fc.db
expect_grep '^FAIL .*% slower \(tolerance 5\.0%\), significant, but on one round of sub-millisecond samples: confirm with --paired or rounds' out
expect_grep '^warning: 1 point\(s\) judged on one round a side of sub-millisecond samples \(median down to 2\.9.?e-05 s\).*gate --paired.*gate --pool' out
# milliseconds long, or three rounds a side: no warning
mk fb3.json "[{\"points\":[{\"samples\":$F}]},{\"points\":[{\"samples\":$F}]},{\"points\":[{\"samples\":$F}]}]"
mk fc3.json "[{\"points\":[{\"samples\":$G}]},{\"points\":[{\"samples\":$G}]},{\"points\":[{\"samples\":$G}]}]"
db x fb3.db fb3.json; db x fc3.db fc3.json
"$SPRBENCH" gate --baseline fb3.db --candidate fc3.db --pool >out 2>&1
grep -q '^warning:' out && fail "three rounds a side warned" || ok
"$SPRBENCH" gate --baseline base.db --candidate both.db >out 2>&1
grep -q '^warning:' out && fail "millisecond samples warned" || ok
finish results_gate_judged
