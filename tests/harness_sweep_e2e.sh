#!/usr/bin/env bash
# The sweep end to end in a temporary directory: every table gets rows, the
# plots are real images, and the bad inputs of issue 2 are refused cleanly.
. "$(dirname "$0")/lib.sh"
cd "$T"
DB="$T/s.db"

# dry run: points and exact commands, nothing written
expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1,2 --shapes 32x16x8,8x8x8:NT --dry-run --db "$DB"
[ "$(grep -c ' gemm --kernel scalar-f32' "$T/out")" -eq 4 ] && ok || fail "dry run should list 4 commands"
# a GEMM point's worker gets its shape as the sweep stores it, one word (#45)
expect_grep ' gemm --kernel scalar-f32 --shape 8x8x8:NT --threads 2 ' "$T/out"
expect_grep ' --shape 32x16x8:NN ' "$T/out"
! grep -qE -- '--(m|n|k|trans) ' "$T/out" && ok || fail "dry run still writes --m/--n/--k/--trans"
[ ! -e "$DB" ] && ok || fail "dry run created the database"
# the peak probe comes first, at the sweep's largest thread count (#41)
expect_grep 'peak --threads 2 --result-file' "$T/out"
expect_grep "first the machine's peak, on 2 thread\\(s\\)" "$T/out"
expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 16x8x4:TN --prepack 1 --dry-run --no-peak --db "$DB"
expect_grep ' --shape 16x8x4:TN\+prepack ' "$T/out"
expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --dry-run --no-peak --db "$DB"
! grep -q ' peak ' "$T/out" && ok || fail "--no-peak dry run lists the peak"

# the peak of a --threads 1 sweep runs on one thread and is stored so: the
# point, its command and its result say 1 (it ran on every core, stored 2)
expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --reps 5 --db "$T/p1.db"
[ "$(sqlite3 "$T/p1.db" "SELECT threads || '|' || json_extract(result_json, '$.threads') || '|' || (command LIKE '% peak --threads 1 %') FROM point WHERE workload = 'peak'")" = "1|1|1" ] \
  && ok || fail "peak of a 1-thread sweep: $(sqlite3 "$T/p1.db" "SELECT threads, command FROM point WHERE workload = 'peak'")"
expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --dry-run --db "$T/p1.db"
if [ "$(sqlite3 "$T/p1.db" "SELECT status FROM point WHERE workload = 'peak'")" = ok ]; then
  expect_grep 'the peak is stored for this machine: no peak probe' "$T/out"
  ! grep -q ' peak --threads' "$T/out" && ok || fail "dry run lists a peak already stored"
else # no path could run (SB_FORCE_NO_AVX2): nothing stored, so the next sweep probes again
  expect_grep 'peak --threads 1 --result-file' "$T/out"
fi

# a real sweep (peak first, then the points)
expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1,2 --shapes 48x32x16,16x16x16:TN --reps 5 --db "$DB" --label e2e --plots "$T/plots"
expect_grep 'sweep 1: ' "$T/out"
expect_grep 'speedup' "$T/out"
for table in machine sweep point sample metric; do
  n=$(sqlite3 "$DB" "SELECT COUNT(*) FROM $table")
  [ "$n" -gt 0 ] && ok || fail "table $table is empty"
done
[ "$(sqlite3 "$DB" "SELECT COUNT(*) FROM point WHERE workload='gemm' AND status='ok'")" -eq 4 ] && ok || fail "4 ok gemm points expected"
[ "$(sqlite3 "$DB" "SELECT COUNT(*) FROM sample s JOIN point p ON p.id=s.point_id WHERE p.workload='gemm'")" -eq 20 ] && ok || fail "20 gemm samples expected"
[ "$(sqlite3 "$DB" "SELECT COUNT(*) FROM point WHERE command LIKE '%gemm --kernel scalar-f32%'")" -eq 4 ] && ok || fail "commands stored"
# each stored command passes the point's stored shape text, as it is (#45)
[ "$(sqlite3 "$DB" "SELECT COUNT(*) FROM point WHERE workload = 'gemm' AND instr(command, ' --shape ' || shape || ' ') > 0")" -eq 4 ] \
  && ok || fail "commands without their stored shape: $(sqlite3 "$DB" "SELECT shape, command FROM point WHERE workload = 'gemm'")"
[ "$(sqlite3 "$DB" "SELECT label FROM sweep")" = "e2e" ] && ok || fail "label stored"

# plots: PNG signature, and more ink than a blank image of the same size
gnuplot -e "set terminal pngcairo size 900,560; set output '$T/blank.png'; unset border; unset tics; plot [0:1] NaN notitle" 2>/dev/null
blank=$(stat -c %s "$T/blank.png")
n=0
for f in "$T"/plots/*.png; do
  n=$((n + 1))
  sig=$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')
  [ "$sig" = "89504e470d0a1a0a" ] && ok || fail "$f is not a PNG"
  [ "$(stat -c %s "$f")" -gt $((blank * 2)) ] && ok || fail "$f is not larger than a blank image ($blank bytes)"
done
[ "$n" -eq 4 ] && ok || fail "expected 4 PNGs (2 shapes x throughput/speedup), got $n"
[ "$(ls "$T"/plots/*.svg | wc -l)" -eq 4 ] && ok || fail "expected 4 SVGs"
expect_rc 0 "$SPRBENCH" plot --db "$DB" --out "$T/plots2"
[ "$(ls "$T"/plots2/*.png | wc -l)" -eq 4 ] && ok || fail "plot command"

# bad input: one line, exit 2, nothing half-written
expect_rc 2 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --db /nonexistent/dir/x.db
expect_one_error_line 'x.db'
echo "just text, not a database" >"$T/text.db"
cp "$T/text.db" "$T/text.orig"
expect_rc 2 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --db "$T/text.db"
expect_one_error_line 'not a SQLite database'
cmp -s "$T/text.db" "$T/text.orig" && ok || fail "non-SQLite file was modified"
expect_rc 2 "$SPRBENCH" sweep --kernels 'avx512-f32; rm -rf /' --db "$DB"
expect_one_error_line "unknown kernel 'avx512-f32; rm -rf /'"
expect_rc 2 "$SPRBENCH" sweep --shapes 0x4x4 --db "$DB"
expect_rc 2 "$SPRBENCH" sweep --threads -1 --db "$DB"
expect_rc 2 "$SPRBENCH" sweep --bogus
expect_one_error_line 'unknown or incomplete option'
printf 'kernels = scalar-f32\nthreads = 1\nnonsense line\n' >"$T/bad.plan"
expect_rc 2 "$SPRBENCH" sweep --plan "$T/bad.plan" --db "$DB"
expect_one_error_line 'bad.plan:3'
[ "$(sqlite3 "$DB" "SELECT COUNT(*) FROM sweep")" -eq 1 ] && ok || fail "a refused sweep left rows"
expect_rc 2 "$SPRBENCH" plot --db "$DB" --sweep 99 --out "$T/p3"
expect_rc 2 "$SPRBENCH" plot --db "$T/missing.db" --out "$T/p3"
[ ! -e "$T/missing.db" ] && ok || fail "plot created a database"
SB_GNUPLOT=/nonexistent/gnuplot "$SPRBENCH" plot --db "$DB" --out "$T/p4" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && ok || fail "missing gnuplot should exit 2, got $rc"
expect_one_error_line 'gnuplot not found'
[ -z "$(ls -A "$T/p4" 2>/dev/null)" ] && ok || fail "missing gnuplot left files"

# a plan file
printf '# test plan\nworkload = gemm\nkernels = scalar-f32\nthreads = 1\nshapes = 8x8x8\nreps = 5\n' >"$T/ok.plan"
expect_rc 0 "$SPRBENCH" sweep --plan "$T/ok.plan" --db "$DB" --no-peak
[ "$(sqlite3 "$DB" "SELECT COUNT(*) FROM sweep")" -eq 2 ] && ok || fail "plan sweep stored"

finish harness_sweep_e2e
