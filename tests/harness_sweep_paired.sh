#!/bin/bash
# The paired sweep's own side (#44), at CLI level with fake workers (scripts
# that take `sprbench gemm`'s options and write crafted results):
# - a resumed paired sweep runs the rest in pairs, with the binaries its
#   stored plan keeps; an old paired sweep whose plan keeps none, or one
#   whose binary is gone or rebuilt, is refused (exit 2, one line);
# - each binary is resolved once to the absolute path of a regular
#   executable file (a bare name on PATH, as exec finds it) and that runs;
# - --point-timeout bounds the point (all its runs together), not each run;
# - a worker's output in TMPDIR is kept to a bounded size;
# - a run's result is the plan row's point: another identity, a value that
#   is not finite, <= 0 or absurd, or a sample that is not a number is
#   refused with the reason.
# No assertion here is about time: the sleeps only make the cases certain.
. "$SB_SOURCE_DIR/tests/lib.sh"
cd "$T"
mkdir -p tmp bin
export TMPDIR=$T/tmp

# fake-worker TAG -- GEMM OPTIONS: appends "TAG M" to $FAKE_LOG and writes
# --reps samples of 10 ms. Told through the environment (for B, the
# candidate, unless said):
#   FAKE_INT=M        B on shape M sends SIGINT to the sweep (once: the flag
#                     file $T/int.done stops it)
#   FAKE_SLEEP=S      each run sleeps S seconds
#   FAKE_SPAM=BYTES   B writes that many bytes to stdout, then logs the
#                     size of $TMPDIR as "DU BYTES"
#   FAKE_DTYPE, FAKE_THREADS, FAKE_GFLOPS, FAKE_SAMPLES: B's result says so
cat >fake-worker <<'FAKE'
#!/bin/bash
tag=$1; shift 2
reps=3 out="" kernel=scalar-f32 threads=1 m=0
while [ $# -gt 0 ]; do case $1 in
  --reps) reps=$2; shift 2 ;; --result-file) out=$2; shift 2 ;; --shape) m=${2%%x*}; shift 2 ;;
  --kernel) kernel=$2; shift 2 ;; --threads) threads=$2; shift 2 ;; *) shift ;; esac; done
echo "$tag $m" >>"$FAKE_LOG"
if [ "$tag" = B ] && [ "${FAKE_INT:-}" = "$m" ] && [ ! -e "$FAKE_DIR/int.done" ]; then
  # the sweep: the first sprbench above this worker (a run's guard, sb-guard,
  # stands between them)
  p=$PPID
  while [ "$p" -gt 1 ] && [ "$(cat /proc/$p/comm)" != sprbench ]; do
    p=$(awk '{print $4}' /proc/$p/stat)
  done
  touch "$FAKE_DIR/int.done"; kill -INT "$p"; sleep 5
fi
sleep "${FAKE_SLEEP:-0.01}"
dtype=f32 gf=1.0
s=$(awk -v r="$reps" 'BEGIN{for(i=0;i<r;i++) printf "%s%.9f", i?",":"", 0.01*(1+0.0002*i)}')
if [ "$tag" = B ]; then
  if [ -n "${FAKE_SPAM:-}" ]; then
    head -c "$FAKE_SPAM" /dev/zero | tr '\0' 'x'
    echo "DU $(du -sb "$TMPDIR" | cut -f1)" >>"$FAKE_LOG"
  fi
  dtype=${FAKE_DTYPE:-$dtype} threads=${FAKE_THREADS:-$threads} gf=${FAKE_GFLOPS:-$gf} s=${FAKE_SAMPLES:-$s}
fi
printf '{"workload":"gemm","kernel":"%s","dtype":"%s","threads":%s,"status":"ok","reason":"","samples":[%s],"metrics":{"gflops":%s},"units":{"gflops":"GFLOP/s"}}\n' \
  "$kernel" "$dtype" "$threads" "$s" "$gf" >"$out"
FAKE
chmod +x fake-worker
mkbin() { # PATH TAG
  printf '#!/bin/bash\nexec %q %s -- "$@"\n' "$T/fake-worker" "$2" >"$1"; chmod +x "$1"
}
mkbin base A
mkbin cand B
export FAKE_LOG=$T/log FAKE_DIR=$T
PAIR=(--kernels scalar-f32 --threads 1 --no-peak --pairs 2:2)
q() { sqlite3 "$1" "$2"; }

# ---- a resumed paired sweep stays paired ----
rm -f log
FAKE_INT=24 "$SPRBENCH" sweep "${PAIR[@]}" --shapes 16x16x16,24x24x24 --db res.db \
  --pair-baseline ./base --pair-candidate ./cand >out 2>err
[ $? = 1 ] && ok || fail "an interrupted paired sweep should exit 1"
expect_grep 'resume with --resume 1' err
[ "$(q res.db "SELECT status FROM point ORDER BY seq")" = "$(printf 'ok\ninterrupted')" ] && ok ||
  fail "interrupted sweep: $(q res.db 'SELECT seq, status, reason FROM point')"
# the plan stored with the sweep keeps both binaries, absolute
expect_rc 0 q res.db "SELECT plan FROM sweep"
expect_grep "^pair-baseline = $T/base\$" out
expect_grep "^pair-candidate = $T/cand\$" out
expect_grep '^pair-candidate-digest = [0-9a-f]{16}$' out
expect_grep '^pairs = 2:2$' out
rm -f log
expect_rc 0 "$SPRBENCH" sweep --db res.db --resume 1
expect_grep "^sweep 1: resumed in pairs \(abba\): baseline $T/base, candidate $T/cand\$" out
expect_grep '24x24x24:NN threads=1 .* ok (PASS|UNSURE) after 2 pair' out
[ "$(awk '{printf "%s", $1}' log)" = ABBA ] && ok || fail "resumed point: runs $(cat log)"
[ "$(q res.db "SELECT COUNT(*) FROM point_pairing WHERE baseline = '$T/base' AND candidate = '$T/cand'")" = 2 ] &&
  ok || fail "resumed point not paired: $(q res.db 'SELECT * FROM point_pairing')"
[ "$(q res.db "SELECT COUNT(DISTINCT side) FROM sample s JOIN point p ON p.id = s.point_id WHERE p.seq = 1")" = 2 ] &&
  ok || fail "resumed point holds one side"
expect_rc 0 "$SPRBENCH" gate --paired --candidate res.db --allow-nothing-judged
grep -q 'not measured in pairs' out && fail "the gate found an unpaired point" || ok

# pairing options beside --resume: the stored plan's pairing decides
expect_rc 2 "$SPRBENCH" sweep --db res.db --resume 1 --pair-baseline ./base --pair-candidate ./cand
expect_one_error_line 'resume takes the stored plan, its pairing too: give no --pair-\* options'

# a binary that is gone: refused, nothing runs
rm -f int.done
FAKE_INT=24 "$SPRBENCH" sweep "${PAIR[@]}" --shapes 16x16x16,24x24x24 --db gone.db \
  --pair-baseline ./base --pair-candidate ./cand >/dev/null 2>&1
cp cand cand.keep && rm cand && rm -f log
expect_rc 2 "$SPRBENCH" sweep --db gone.db --resume 1
expect_one_error_line "sweep 1 runs in pairs, and its candidate binary $T/cand is no longer an executable file"
[ ! -e log ] && ok || fail "a refused resume ran: $(cat log)"
[ "$(q gone.db "SELECT status FROM point WHERE seq = 1")" = interrupted ] && ok || fail "refused resume changed the point"
mv cand.keep cand
# a binary rebuilt since the sweep began: refused, two builds would share it
cp cand cand.keep && echo '# rebuilt' >>cand
expect_rc 2 "$SPRBENCH" sweep --db gone.db --resume 1
expect_one_error_line "sweep 1 runs in pairs, and its candidate binary $T/cand changed since the sweep began"
[ ! -e log ] && ok || fail "a resume with a rebuilt binary ran: $(cat log)"
mv cand.keep cand
expect_rc 0 "$SPRBENCH" sweep --db gone.db --resume 1
expect_grep '^sweep 1: resumed in pairs' out

# a paired sweep stored before plans kept the pairing: refused, not run alone
rm -f int.done
FAKE_INT=24 "$SPRBENCH" sweep "${PAIR[@]}" --shapes 16x16x16,24x24x24 --db old.db \
  --pair-baseline ./base --pair-candidate ./cand >/dev/null 2>&1
python3 - <<'PY'
import sqlite3
db = sqlite3.connect('old.db')
plan = db.execute('SELECT plan FROM sweep').fetchone()[0]
kept = ''.join(l for l in plan.splitlines(True) if not l.startswith('pair'))
db.execute('UPDATE sweep SET plan = ?', (kept,))
db.commit()
PY
q old.db "SELECT plan FROM sweep" | grep -q pair && fail "the old plan still holds its pairing" || ok
rm -f log
expect_rc 2 "$SPRBENCH" sweep --db old.db --resume 1
expect_one_error_line 'sweep 1 was measured in pairs, but its stored plan does not keep the two binaries'
[ ! -e log ] && ok || fail "an old paired sweep ran unpaired: $(cat log)"

# ---- the binaries: resolved once, a regular executable file ----
mkbin bin/sbfake-pair-base A
mkbin bin/sbfake-pair-cand B
printf '#!/bin/bash\nexit 9\n' >sbfake-pair-cand; chmod +x sbfake-pair-cand  # not what PATH finds
rm -f log
PATH=$T/bin:$PATH expect_rc 0 "$SPRBENCH" sweep "${PAIR[@]}" --shapes 16x16x16 --db bare.db \
  --pair-baseline sbfake-pair-base --pair-candidate sbfake-pair-cand
[ "$(q bare.db 'SELECT baseline, candidate FROM point_pairing')" = "$T/bin/sbfake-pair-base|$T/bin/sbfake-pair-cand" ] &&
  ok || fail "bare names stored as: $(q bare.db 'SELECT * FROM point_pairing')"
[ "$(q bare.db 'SELECT status FROM point')" = ok ] && ok || fail "bare names: $(q bare.db 'SELECT reason FROM point')"
# a bare name found only in the current directory is not what exec runs
cp bin/sbfake-pair-base ./sbfake-only-here
expect_rc 2 "$SPRBENCH" sweep "${PAIR[@]}" --shapes 16x16x16 --db u.db \
  --pair-baseline sbfake-only-here --pair-candidate ./cand
expect_one_error_line "^sprbench sweep: --pair-baseline: 'sbfake-only-here' is not an executable file on PATH$"
# a directory is no executable file
expect_rc 2 "$SPRBENCH" sweep "${PAIR[@]}" --shapes 16x16x16 --db u.db --pair-baseline ./base --pair-candidate "$T/bin"
expect_one_error_line "^sprbench sweep: --pair-candidate: '$T/bin' is not an executable file$"
# a symbolic link runs the file it names
ln -s cand cand-link
expect_rc 0 "$SPRBENCH" sweep "${PAIR[@]}" --shapes 16x16x16 --pair-baseline ./base --pair-candidate ./cand-link --dry-run
expect_grep "^candidate: $T/cand gemm " out
[ ! -e u.db ] && ok || fail "a refused paired sweep created its database"

# ---- --point-timeout bounds the point, all its runs together ----
# 2 x 4 runs of 0.6 s each against a 2 s point: no run alone is past it
rm -f log
FAKE_SLEEP=0.6 "$SPRBENCH" sweep "${PAIR[@]/2:2/4:4}" --shapes 16x16x16 --db dl.db \
  --pair-baseline ./base --pair-candidate ./cand --point-timeout 2 >out 2>&1
[ "$(q dl.db 'SELECT status FROM point')" = timeout ] && ok ||
  fail "a point past its timeout: $(q dl.db 'SELECT status, reason FROM point')"
expect_grep "timeout after 2 s \(--point-timeout: the point's runs together\)" out
[ "$(wc -l <log)" -lt 8 ] && ok || fail "the point ran all its runs past its timeout: $(wc -l <log)"

# ---- a worker's output in TMPDIR is bounded ----
rm -f log
FAKE_SPAM=$((3 << 20)) "$SPRBENCH" sweep "${PAIR[@]}" --shapes 16x16x16 --db spam.db \
  --pair-baseline ./base --pair-candidate ./cand >/dev/null 2>&1
du=$(awk '/^DU / {print $2; exit}' log)
[ -n "$du" ] && [ "$du" -lt $((2 << 20)) ] && ok || fail "TMPDIR held $du bytes of a worker's 3 MiB of output"
[ "$(q spam.db 'SELECT status FROM point')" = ok ] && ok || fail "spam: $(q spam.db 'SELECT reason FROM point')"
# the point's stored tail still counts every byte the worker wrote
[ "$(q spam.db 'SELECT stdout_bytes FROM point_log')" = $((3 << 20)) ] && ok ||
  fail "stdout_bytes: $(q spam.db 'SELECT stdout_bytes FROM point_log')"
[ -z "$(ls tmp)" ] && ok || fail "the sweep left $(ls tmp) in TMPDIR"

# ---- the plan row says what a point is; values must be measurements ----
refused() { # DB PATTERN: the point failed, its reason naming the candidate and PATTERN
  local got; got=$(q "$1" 'SELECT status || ": " || reason FROM point')
  if [[ "$got" =~ ^failed:\ candidate\ binary\ $T/cand:\ result\ refused:\ $2 ]]; then ok
  else fail "$1: expected a refusal /$2/, got: $got"; fi
}
run_bad() { # DB ENV=VALUE...
  local db=$1; shift
  env "$@" "$SPRBENCH" sweep "${PAIR[@]}" --shapes 16x16x16 --db "$db" \
    --pair-baseline ./base --pair-candidate ./cand >/dev/null 2>&1
}
run_bad dt.db FAKE_DTYPE=int8
refused dt.db "its dtype \"int8\" is not the point's 'f32'"
[ "$(q dt.db 'SELECT dtype FROM point')" = f32 ] && ok || fail "a result relabelled the point's dtype"
run_bad th.db FAKE_THREADS=4
refused th.db "its threads 4 is not the point's 1"
run_bad big.db FAKE_GFLOPS=1e300
refused big.db 'its metric gflops 1e\+300 is not a rate'
run_bad neg.db FAKE_GFLOPS=-5
refused neg.db 'its metric gflops -5(\.0)? is not a rate'
run_bad tiny.db FAKE_SAMPLES=0.01,1e-12,0.01
refused tiny.db 'its samples\[1\] 1e-12 is not a time in \[1e-9, 1e9\] s'
run_bad word.db 'FAKE_SAMPLES=0.01,"fast",0.01'
refused word.db 'its samples\[1\] "fast" is not a number'
[ "$(q word.db 'SELECT COUNT(*) FROM sample')" = 0 ] && ok || fail "a refused point kept samples"
finish harness_sweep_paired
