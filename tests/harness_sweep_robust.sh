#!/usr/bin/env bash
# Sweeps that lose nothing: a crashing worker, a hanging worker, SIGINT,
# kill -9 of the harness then --resume, and two sweeps on one database.
. "$(dirname "$0")/lib.sh"
cd "$T"
DB="$T/r.db"
q() { sqlite3 "$DB" "$1"; }
common=(--kernels scalar-f32 --threads 1 --reps 5 --no-peak --db "$DB")

# crash (SIGSEGV) and hang (--point-timeout): recorded, the sweep goes on
SPRBENCH_TEST_FAULT=crash:9 expect_rc 1 "$SPRBENCH" sweep "${common[@]}" --shapes 8x8x8,9x8x8,10x8x8
[ "$(q "SELECT status FROM point WHERE shape LIKE '9x%'")" = failed ] && ok || fail "crash not failed"
q "SELECT reason FROM point WHERE shape LIKE '9x%'" | grep -q 'signal 11' && ok || fail "crash reason lacks the signal"
[ "$(q "SELECT COUNT(*) FROM point WHERE status='ok' AND sweep_id=1")" -eq 2 ] && ok || fail "sweep did not go on after the crash"
SPRBENCH_TEST_FAULT=hang:9 expect_rc 1 "$SPRBENCH" sweep "${common[@]}" --shapes 9x8x8,10x8x8 --point-timeout 2
[ "$(q "SELECT status FROM point WHERE sweep_id=2 AND shape LIKE '9x%'")" = timeout ] && ok || fail "hang not timeout"
[ "$(q "SELECT status FROM point WHERE sweep_id=2 AND shape LIKE '10x%'")" = ok ] && ok || fail "sweep did not go on after the hang"
pgrep -f "SPRBENCH_TEST_FAULT" >/dev/null; pgrep -f "gemm --kernel scalar-f32 --shape 9x8x8:NN " >/dev/null && fail "hung worker left behind" || ok

# SIGINT: the running point is marked interrupted, finished ones stay, resume completes
SPRBENCH_TEST_FAULT=slow:12 "$SPRBENCH" sweep "${common[@]}" --shapes 11x8x8,12x8x8,13x8x8 >"$T/int.out" 2>&1 &
pid=$!
for _ in $(seq 100); do [ "$(q "SELECT COUNT(*) FROM point WHERE sweep_id=3 AND status='running' AND shape LIKE '12x%'" 2>/dev/null)" = 1 ] && break; sleep 0.1; done
kill -INT $pid; wait $pid; rc=$?
[ $rc -eq 1 ] && ok || fail "SIGINT sweep exit $rc, expected 1"
[ "$(q "SELECT status FROM point WHERE sweep_id=3 AND shape LIKE '11x%'")" = ok ] && ok || fail "finished point lost on SIGINT"
[ "$(q "SELECT status FROM point WHERE sweep_id=3 AND shape LIKE '12x%'")" = interrupted ] && ok || fail "running point not interrupted"
[ "$(q "SELECT status FROM sweep WHERE id=3")" = interrupted ] && ok || fail "sweep not marked interrupted"
expect_grep 'resume with --resume 3' "$T/int.out"
expect_rc 0 "$SPRBENCH" sweep --resume 3 --db "$DB"
[ "$(q "SELECT COUNT(*) FROM point WHERE sweep_id=3 AND status='ok'")" -eq 3 ] && ok || fail "resume did not finish sweep 3"
[ "$(q "SELECT COUNT(*) FROM sample s JOIN point p ON p.id=s.point_id WHERE p.sweep_id=3")" -eq 15 ] && ok || fail "resume: samples not exactly once"

# kill -9 of the harness mid-sweep loses no finished point; resume completes exactly once
SPRBENCH_TEST_FAULT=slow:15 "$SPRBENCH" sweep "${common[@]}" --shapes 14x8x8,15x8x8,16x8x8 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do [ "$(q "SELECT COUNT(*) FROM point WHERE sweep_id=4 AND status='running' AND shape LIKE '15x%'" 2>/dev/null)" = 1 ] && break; sleep 0.1; done
kill -9 $pid; wait $pid 2>/dev/null
[ "$(q "SELECT status FROM point WHERE sweep_id=4 AND shape LIKE '14x%'")" = ok ] && ok || fail "kill -9 lost a finished point"
expect_rc 0 "$SPRBENCH" sweep --resume 4 --db "$DB"
[ "$(q "SELECT COUNT(*) FROM point WHERE sweep_id=4 AND status='ok'")" -eq 3 ] && ok || fail "resume after kill -9"
[ "$(q "SELECT COUNT(*) FROM sample s JOIN point p ON p.id=s.point_id WHERE p.sweep_id=4")" -eq 15 ] && ok || fail "kill -9 + resume: each point exactly once"

# two sweeps writing one database at once both complete
"$SPRBENCH" sweep "${common[@]}" --shapes 20x8x8,21x8x8,22x8x8,23x8x8 --label A >"$T/a.out" 2>&1 &
a=$!
"$SPRBENCH" sweep "${common[@]}" --shapes 30x8x8,31x8x8,32x8x8,33x8x8 --label B >"$T/b.out" 2>&1 &
b=$!
wait $a; ra=$?; wait $b; rb=$?
[ $ra -eq 0 ] && [ $rb -eq 0 ] && ok || { fail "concurrent sweeps exit $ra/$rb"; cat "$T/a.out" "$T/b.out" >&2; }
[ "$(q "SELECT COUNT(*) FROM point p JOIN sweep s ON s.id=p.sweep_id WHERE s.label IN ('A','B') AND p.status='ok'")" -eq 8 ] && ok || fail "concurrent sweeps lost points"
[ "$(q "PRAGMA integrity_check")" = ok ] && ok || fail "integrity"

# --resume of a sweep that does not exist; --resume with plan options
expect_rc 2 "$SPRBENCH" sweep --resume 999 --db "$DB"; expect_one_error_line 'no sweep 999'
expect_rc 2 "$SPRBENCH" sweep --resume 1 --kernels scalar-f32 --db "$DB"

finish harness_sweep_robust
