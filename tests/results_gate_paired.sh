#!/bin/bash
# The paired A/B gate at CLI level with fake workers: scripts that take
# `sprbench gemm`'s options, sleep a moment and report set seconds, so that
# no verdict here depends on this machine's noise. The pairing (ABBA order,
# random order, duet binding), what is stored (side, pair, binaries; export
# and import), the stopping rule, PASS / FAIL / UNSURE, failures of either
# binary, scripts/ci-gate's paired mode; and the gate's verdicts that need no
# timing: a candidate point that broke is a FAIL even when the baseline never
# had it, and a row about a status shows its reason alone (text and JUnit).
. "$SB_SOURCE_DIR/tests/lib.sh"
cd "$T"
SMALL=(--kernels scalar-f32 --threads 1 --reps 6 --no-peak)

# ---- a broken candidate point the baseline never had ----
"$SPRBENCH" sweep --db base.db "${SMALL[@]}" --shapes 16x16x16 >/dev/null 2>&1 || fail "baseline sweep"
"$SPRBENCH" sweep --db cand.db "${SMALL[@]}" --shapes 1024x1024x1024 --point-timeout 1 >/dev/null 2>&1
expect_rc 1 "$SPRBENCH" gate --baseline base.db --candidate cand.db --junit g.xml
expect_grep '^FAIL +gemm +scalar-f32 1024x1024x1024:NN t1 +status .*candidate timeout: .*not in the baseline' out
expect_grep ': FAIL$' out
grep -q 'point not in the baseline (new)' out && fail "a timed-out point is not a new point" || ok
# ---- a status row's JUnit: the reason alone ----
expect_grep '<failure type="regression" message="candidate timeout[^"]*">candidate timeout' g.xml
grep -qE 'baseline 0,|ratio 0\.0000|p -1|samples 0/0' g.xml && fail "a status row shows zeros" || ok
# a new point that ran is still a WARN, exit 0
"$SPRBENCH" sweep --db new.db "${SMALL[@]}" --shapes 16x16x16,24x24x24 >/dev/null 2>&1
expect_rc 0 "$SPRBENCH" gate --baseline base.db --candidate new.db --tolerance 1000%
expect_grep '^WARN .*24x24x24.*point not in the baseline \(new\)' out

# ---- fake workers ----
# fake-worker TAG SECONDS [FACTOR...] -- GEMM OPTIONS: logs "TAG N CPUS NS"
# (N its run number) when it ends, sleeps, writes --reps samples of SECONDS x the next
# FACTOR in turn (FAKE_EXIT: B exits with that status without a result;
# FAKE_HANG: B sleeps that long first; FAKE_SKIP=B or both: says skipped)
cat >fake-worker <<'FAKE'
#!/bin/bash
tag=$1 sec=$2; shift 2
cyc=(); while [ "$1" != "--" ]; do cyc+=("$1"); shift; done; shift
reps=3 out="" kernel=scalar-f32 threads=1
while [ $# -gt 0 ]; do case $1 in
  --reps) reps=$2; shift 2 ;; --result-file) out=$2; shift 2 ;;
  --kernel) kernel=$2; shift 2 ;; --threads) threads=$2; shift 2 ;; *) shift ;; esac; done
n=$(grep -c "^$tag " "$FAKE_LOG" 2>/dev/null); n=${n:-0}
t0=$(date +%s%N)
[ -n "${FAKE_HANG:-}" ] && [ "$tag" = B ] && sleep "$FAKE_HANG"
[ -n "${FAKE_EXIT:-}" ] && [ "$tag" = B ] && { echo "fake: told to fail" >&2; exit "$FAKE_EXIT"; }
if [ -n "${FAKE_SKIP:-}" ] && { [ "$tag" = B ] || [ "$FAKE_SKIP" = both ]; }; then
  printf '{"workload":"gemm","kernel":"%s","status":"skipped","reason":"no such ISA here"}\n' "$kernel" >"$out"
  exit 3
fi
f=1; [ ${#cyc[@]} -gt 0 ] && f=${cyc[$((n % ${#cyc[@]}))]}
sleep "${FAKE_SLEEP:-0.02}"
echo "$tag $n $(awk '/Cpus_allowed_list/ {print $2}' /proc/self/status) $t0 $(date +%s%N)" >>"$FAKE_LOG"
s=$(awk -v s="$sec" -v f="$f" -v r="$reps" 'BEGIN{for(i=0;i<r;i++) printf "%s%.9f", i?",":"", s*f*(1+0.0002*i)}')
printf '{"workload":"gemm","kernel":"%s","dtype":"f32","threads":%s,"status":"ok","reason":"","samples":[%s],"metrics":{"gflops":1.0},"units":{"gflops":"GFLOP/s"}}\n' \
  "$kernel" "$threads" "$s" >"$out"
FAKE
chmod +x fake-worker
mkbin() { # NAME TAG SECONDS [FACTOR...]
  local name=$1; shift
  printf '#!/bin/bash\nexec %q %s -- "$@"\n' "$T/fake-worker" "$*" >"$name"; chmod +x "$name"
}
mkbin base A 0.010
mkbin same B 0.010
mkbin slow B 0.012                         # 20 % slower in every pair
mkbin edge B 0.010 1.01 1.09 1.02 1.08     # 5 % +- 4 %: neither beyond nor within
export FAKE_LOG=$T/log
PAIR=(--kernels scalar-f32 --threads 1 --shapes 64x64x64 --no-peak)
q() { sqlite3 "$1" "$2"; }
order() { awk '{printf "%s", $1}' "$FAKE_LOG"; }

# ---- usage ----
expect_rc 2 "$SPRBENCH" sweep "${PAIR[@]}" --db u.db --pair-baseline ./base
expect_one_error_line 'go together'
expect_rc 2 "$SPRBENCH" sweep "${PAIR[@]}" --db u.db --pair-baseline ./base --pair-candidate ./nothere
expect_one_error_line "not an executable"
expect_rc 2 "$SPRBENCH" sweep "${PAIR[@]}" --db u.db --pair-baseline ./base --pair-candidate ./same --pairs 9:3
expect_one_error_line 'MAX 3 is below MIN 9'
expect_rc 2 "$SPRBENCH" sweep "${PAIR[@]}" --db u.db --pair-baseline ./base --pair-candidate ./same --pair-mode abab
expect_rc 2 "$SPRBENCH" sweep "${PAIR[@]}" --db u.db --pairs 8
expect_one_error_line 'need --pair-baseline'
expect_rc 2 "$SPRBENCH" sweep --workload stream --threads 1 --db u.db --pair-baseline ./base --pair-candidate ./same
expect_one_error_line 'GEMM sweeps'
[ ! -e u.db ] && ok || fail "a refused paired sweep created its database"
expect_rc 2 "$SPRBENCH" gate --paired --candidate base.db --baseline base.db
expect_one_error_line 'not with --baseline'
expect_rc 0 "$SPRBENCH" sweep --help; expect_grep 'pair-baseline B' out
expect_rc 0 "$SPRBENCH" gate --help; expect_grep 'gate --paired --candidate RUN' out
# the dry run names both commands, each run --pair-reps repetitions, each
# binary by the absolute path that runs (#44)
expect_rc 0 "$SPRBENCH" sweep "${PAIR[@]}" --pair-baseline ./base --pair-candidate ./same --pair-reps 4 --dry-run
expect_grep "^baseline:  $T/base gemm .*--reps 4 " out
expect_grep "^candidate: $T/same gemm .*--reps 4 " out

# ---- ABBA, identical binaries: PASS once decided, at MIN pairs ----
rm -f log
expect_rc 0 "$SPRBENCH" sweep "${PAIR[@]}" --db same.db --pair-baseline ./base --pair-candidate ./same --pairs 8:16
expect_grep 'ok PASS after 8 pair\(s\) \(abba\)' out
[ "$(order)" = ABBAABBAABBAABBA ] && ok || fail "ABBA order: got $(order)"
# every sample stored with its binary and pair: 4 quads x 4 runs x 3 reps
[ "$(q same.db 'SELECT COUNT(*), SUM(side), MIN(pair), MAX(pair) FROM sample')" = "48|24|0|7" ] && ok ||
  fail "stored pairing: $(q same.db 'SELECT COUNT(*), SUM(side), MIN(pair), MAX(pair) FROM sample')"
# the first A and the first B of each quad are a pair, the second B and second A the next
[ "$(q same.db "SELECT GROUP_CONCAT(side || ':' || pair, ' ') FROM (SELECT side, pair FROM sample WHERE rep % 3 = 0 AND rep < 24 ORDER BY rep)")" = \
  "0:0 1:0 1:1 0:1 0:2 1:2 1:3 0:3" ] && ok || fail "pairs of the ABBA quads"
[ "$(q same.db 'SELECT mode, baseline, candidate FROM point_pairing')" = "abba|$T/base|$T/same" ] && ok ||
  fail "stored binaries: $(q same.db 'SELECT * FROM point_pairing')"
expect_rc 0 "$SPRBENCH" gate --paired --candidate same.db --junit same.xml
expect_grep '^PASS .*64x64x64:NN t1 .* 24/24 .*over 8 abba pairs, within the tolerance .*A/A 0\.0% over 4 quad' out
expect_grep 'Wilcoxon signed-rank on the pairs' out
# the point's own samples (summary, plots, report) are the candidate's alone
expect_rc 0 "$SPRBENCH" db export --db same.db --out same.json
python3 - "$T" <<'PY' || fail "export of a paired point"
import json, sys
p = json.load(open('same.json'))['points'][0]
assert len(p['samples']) == 24, len(p['samples'])
pr = p['pairing']
t = sys.argv[1]
assert pr['mode'] == 'abba' and pr['baseline'] == t + '/base' and pr['candidate'] == t + '/same'
assert len(pr['samples']) == len(pr['side']) == len(pr['pair']) == 48
PY
ok
expect_rc 0 "$SPRBENCH" db import --db again.db same.json
expect_rc 0 "$SPRBENCH" gate --paired --candidate again.db
expect_grep '^PASS .* 24/24 .*over 8 abba pairs' out
# an import whose pairing is wrong changes nothing
python3 - <<'PY'
import json
d = json.load(open('same.json'))
d['points'][0]['pairing']['side'][3] = 2
json.dump(d, open('bad.json', 'w'))
PY
expect_rc 2 "$SPRBENCH" db import --db bad.db bad.json
expect_one_error_line 'points\[0\]\.pairing\.side\[3\]'

# ---- a real slowdown: FAIL, exit 1, decided at MIN pairs ----
rm -f log
expect_rc 0 "$SPRBENCH" sweep "${PAIR[@]}" --db slow.db --pair-baseline ./base --pair-candidate ./slow --pairs 8:16
expect_grep 'ok FAIL after 8 pair' out
expect_rc 1 "$SPRBENCH" gate --paired --candidate slow.db --json
python3 - <<'PY' || fail "paired JSON row"
import json
d = json.load(open('out'))
r = d['rows'][0]
assert d['verdict'] == 'FAIL' and r['outcome'] == 'FAIL' and r['pairs'] == 8, r
assert abs(r['cost_ratio'] - 1.2) < 1e-3 and r['aa_spread'] == 0 and r['p'] < 0.01, r
PY
ok

# ---- UNSURE: adds pairs up to the cap, then says so, a WARN; alone it
# judged nothing: exit 1 (#41), exit 0 with --allow-nothing-judged ----
rm -f log
expect_rc 0 "$SPRBENCH" sweep "${PAIR[@]}" --db edge.db --pair-baseline ./base --pair-candidate ./edge --pairs 8:12
expect_grep 'ok UNSURE after 12 pair' out
[ "$(grep -c '^B ' log)" = 12 ] && ok || fail "UNSURE should run to the cap of 12 pairs: $(grep -c '^B ' log) candidate runs"
expect_rc 1 "$SPRBENCH" gate --paired --candidate edge.db --junit edge.xml
expect_grep '^WARN .*UNSURE after 12 abba pairs: .*measure more pairs; A/A 0\.0%' out
expect_grep '<skipped message="WARN: UNSURE' edge.xml
expect_grep '^nothing judged: none of the 1 compared point\(s\) PASSed or FAILed \(1 UNSURE after their pairs\): measure more pairs' out
expect_grep '<failure type="nothing-judged" message="nothing judged: ' edge.xml
expect_rc 0 "$SPRBENCH" gate --paired --candidate edge.db --allow-nothing-judged
expect_grep '^WARN .*UNSURE after 12' out
expect_grep '^nothing judged: .*accepted \(--allow-nothing-judged\): exit 0$' out
# too few pairs for any p < 0.01 (2^-n): UNSURE, and the note says how many can
rm -f log
expect_rc 0 "$SPRBENCH" sweep "${PAIR[@]}" --db few.db --pair-baseline ./base --pair-candidate ./slow --pairs 4:4
expect_rc 1 "$SPRBENCH" gate --paired --candidate few.db
expect_grep '^WARN .*UNSURE after 4 abba pairs: \+20\.0%.*4 pairs cannot reach p < 0\.01: 7 can' out
# an ordinary sweep has no pairs to judge: an error, exit 2 (#41, #44)
"$SPRBENCH" sweep "${SMALL[@]}" --shapes 16x16x16 --db plain.db >/dev/null 2>&1
expect_rc 2 "$SPRBENCH" gate --paired --candidate plain.db
expect_one_error_line '^sprbench gate: --paired: plain\.db holds no paired point \(1 ok point\(s\), none measured in pairs\)'

# ---- random order: A A B B shuffled per quad, paired the same ----
rm -f log
expect_rc 0 "$SPRBENCH" sweep "${PAIR[@]}" --db rnd.db --pair-baseline ./base --pair-candidate ./same --pairs 8:8 --pair-mode random --pair-seed 3
o=$(order)
[ ${#o} = 16 ] && ok || fail "random: 16 runs expected, got $o"
for qd in 0 4 8 12; do
  part=${o:$qd:4}; na=${part//B/}
  [ ${#na} = 2 ] && ok || fail "random quad '$part' is not two A and two B"
done
[ "$o" != ABBAABBAABBAABBA ] && ok || fail "seed 3 should shuffle some quad"
[ "$(q rnd.db 'SELECT mode FROM point_pairing')" = random ] && ok || fail "random mode not stored"
[ "$(q rnd.db 'SELECT COUNT(DISTINCT side || pair) FROM sample')" = 16 ] && ok || fail "random: every pair holds both sides"

# ---- duet: both at once, each on its own CPU, swapped within a quad ----
if [ "$(nproc)" -ge 2 ]; then
  rm -f log
  FAKE_SLEEP=0.3 expect_rc 0 "$SPRBENCH" sweep "${PAIR[@]}" --db duet.db --pair-baseline ./base --pair-candidate ./same --pairs 6:6 --pair-mode duet
  [ "$(q duet.db 'SELECT mode FROM point_pairing')" = duet ] && ok || fail "duet not stored: $(q duet.db 'SELECT mode FROM point_pairing')"
  python3 - "$FAKE_LOG" <<'PY' || fail "duet binding"
import sys
runs = [l.split() for l in open(sys.argv[1])]
a = [r for r in runs if r[0] == 'A']; b = [r for r in runs if r[0] == 'B']
assert len(a) == len(b) == 6, runs
for i in range(6):
    # one CPU each, never the same one, and running at the same time
    assert a[i][2] != b[i][2] and ',' not in a[i][2] and '-' not in a[i][2], (a[i], b[i])
    assert int(a[i][3]) < int(b[i][4]) and int(b[i][3]) < int(a[i][4]), (a[i], b[i])
# the two pairs of a quad swap the CPUs
for i in range(0, 6, 2):
    assert a[i][2] == b[i + 1][2] and b[i][2] == a[i + 1][2], runs
PY
  ok
  expect_rc 0 "$SPRBENCH" gate --paired --candidate duet.db
  expect_grep '^PASS .*over 6 duet pairs' out
fi

# ---- a binary that fails or hangs fails the point, named ----
rm -f log
FAKE_EXIT=1 "$SPRBENCH" sweep "${PAIR[@]}" --db crash.db --pair-baseline ./base --pair-candidate ./same >out 2>&1
[ $? = 1 ] && ok || fail "a failed candidate run should fail the sweep"
expect_rc 1 "$SPRBENCH" gate --paired --candidate crash.db --junit crash.xml
expect_grep "^FAIL .* status .*failed: candidate binary $T/same: worker ended with exit 1 .*fake: told to fail" out
grep -qE 'ratio 0\.0000|p -1|samples 0/0' crash.xml && fail "a status row shows zeros" || ok
rm -f log
FAKE_HANG=5 "$SPRBENCH" sweep "${PAIR[@]}" --db hang.db --pair-baseline ./base --pair-candidate ./same --point-timeout 1 >out 2>&1
expect_rc 1 "$SPRBENCH" gate --paired --candidate hang.db
expect_grep "^FAIL .*timeout: candidate binary $T/same: timeout after 1 s" out

# a skip: the machine's when the baseline skips too (SKIP), a candidate that
# skips what the baseline ran fails
FAKE_SKIP=both "$SPRBENCH" sweep "${PAIR[@]}" --db skip.db --pair-baseline ./base --pair-candidate ./same >out 2>&1
expect_rc 1 "$SPRBENCH" gate --paired --candidate skip.db   # a SKIP alone judged nothing (#41)
expect_grep '^SKIP .*skipped: no such ISA here' out
expect_grep '^nothing judged: .*\(1 skipped\): gate points this machine can run' out
FAKE_SKIP=B "$SPRBENCH" sweep "${PAIR[@]}" --db skip2.db --pair-baseline ./base --pair-candidate ./same >out 2>&1
expect_rc 1 "$SPRBENCH" gate --paired --candidate skip2.db
expect_grep "^FAIL .*failed: candidate binary $T/same: skipped: no such ISA here" out
for seed in 1 2 3 4 5 6; do  # random: some seed puts the candidate first
  FAKE_SKIP=both "$SPRBENCH" sweep "${PAIR[@]}" --db skip3.db --pair-baseline ./base --pair-candidate ./same \
    --pair-mode random --pair-seed $seed >/dev/null 2>&1
done
[ "$(q skip3.db "SELECT GROUP_CONCAT(DISTINCT status) FROM point")" = skipped ] && ok ||
  fail "random order: a skip of both is the machine's: $(q skip3.db 'SELECT status, reason FROM point')"

# ---- scripts/ci-gate: mode A is paired; --rounds keeps the pooled rounds ----
CI="$SB_SOURCE_DIR/scripts/ci-gate"
rm -f log
"$CI" --baseline-bin ./base --candidate-bin ./slow --sprbench "$SPRBENCH" --work ci --pairs 8:12 -- "${PAIR[@]}" >out 2>err
[ $? = 1 ] && ok || fail "ci-gate paired: a 20 % slowdown should exit 1"
expect_grep '^FAIL .*over 8 abba pairs' out
expect_grep '^ci-gate: paired gate took [0-9]+\.[0-9]{3} s' out
[ -s ci/gate.xml ] && ok || fail "ci-gate paired wrote no JUnit"
expect_rc 0 "$CI" --baseline-bin ./base --candidate-bin ./same --sprbench "$SPRBENCH" --work ci --pairs 8:12 -- "${PAIR[@]}"
expect_grep '^PASS ' out
finish results_gate_paired
