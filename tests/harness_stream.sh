#!/usr/bin/env bash
# The STREAM workload (bench/stream), added through the workload table: the
# worker's checks and result, then sweep, plot, report and gate with no code
# of their own for it. Timings are never asserted; only that they exist.
. "$(dirname "$0")/lib.sh"
DB="$T/s.db"
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# the worker: a result document with every loop's figures and the triad's samples
expect_rc 0 "$SPRBENCH" stream --mib 8 --ntimes 4 --threads 1 --result-file "$T/r.json"
expect_grep '^  triad +[0-9.]+ +[0-9.]+$' "$T/out"
[ "$(json "$T/r.json" 'd["status"], d["workload"], len(d["samples"])')" = "ok stream 3" ] \
  && ok || fail "result head: $(json "$T/r.json" 'd["status"], d["workload"], len(d["samples"])')"
for l in copy scale add triad; do
  [ "$(json "$T/r.json" "d['metrics']['${l}_gbps'] > 0 and d['metrics']['${l}_best_gbps'] >= d['metrics']['${l}_gbps'] and d['units']['${l}_gbps']")" = "GB/s" ] \
    && ok || fail "$l: no positive median <= best in GB/s"
done
# 3 x 8 MiB under 4x the last-level cache is the cache's bandwidth: said so
if [ "$(json "$T/r.json" 'd["config"]["llc_bytes"] * 4 > 3 * 8 << 20')" = True ]; then
  expect_grep 'not memory' "$T/err"
  [ "$(json "$T/r.json" 'len(d["warnings"])')" = 1 ] && ok || fail "no warning in the result"
fi
expect_grep '"max_rel_error"' "$T/r.json"
# bad input: one line, exit 2, no result
for bad in "--mib 0" "--ntimes 1" "--ntimes 201" "--threads 0" "--mib x"; do
  # shellcheck disable=SC2086
  expect_rc 2 "$SPRBENCH" stream $bad --result-file "$T/bad.json"
  expect_one_error_line '^sprbench stream: --'
done
# arrays the memory cannot hold: refused before any allocation, not killed
expect_rc 2 "$SPRBENCH" stream --mib 1048576 --result-file "$T/bad.json"
expect_one_error_line '^sprbench stream: --mib 1048576: three arrays need 3145728 MiB, over 80 % of'
[ ! -e "$T/bad.json" ] && ok || fail "a refused run wrote a result"
expect_rc 0 "$SPRBENCH" stream --help
expect_grep 'triad' "$T/out"
expect_rc 0 "$SPRBENCH" --help
expect_grep '^  stream ' "$T/out"

# a sweep: its rows' flags and keys come from the workload table
expect_rc 0 "$SPRBENCH" sweep --workload stream --help
expect_grep '^  stream +--mib, --ntimes$' "$T/out"
expect_rc 2 "$SPRBENCH" sweep --workload stream --ppn 2 --db "$DB"
expect_one_error_line 'runs as one process'
expect_rc 2 "$SPRBENCH" sweep --workload stream --kernels scalar-f32 --db "$DB"
expect_one_error_line 'has no kernels'
expect_rc 2 "$SPRBENCH" sweep --workload stream --batch 8 --db "$DB"
expect_one_error_line "'batch' does not apply"
expect_rc 2 "$SPRBENCH" sweep --workload stream --mib 0 --db "$DB"
expect_one_error_line '^sprbench sweep: --mib'
expect_rc 2 "$SPRBENCH" sweep --workload strem --db "$DB"
expect_one_error_line 'unknown workload .strem. \(gemm, train, infer, allreduce, stream, layernorm\)'
[ ! -e "$DB" ] && ok || fail "a refused sweep created the database"
expect_rc 0 "$SPRBENCH" sweep --workload stream --dry-run --threads 1,2 --mib 8 --ntimes 3 --db "$DB"
expect_grep 'stream --mib 8 --ntimes 3 --threads 2 --result-file' "$T/out"

for s in 1 2; do
  expect_rc 0 "$SPRBENCH" sweep --workload stream --threads 1,2 --mib 8 --ntimes 8 --label "s$s" \
    --db "$DB"
  expect_grep "^\[2/2\] stream none mib=8 threads=2 ppn=1 nodes=1: ok [0-9.]+ GB/s" "$T/out"
  expect_grep '^none +mib=8 +2 +1 +1 +ok +[0-9.]+ GB/s +[0-9.]+x' "$T/out"
done
n=$(sqlite3 "$DB" "SELECT count(*) FROM metric m JOIN point p ON p.id = m.point_id
  WHERE p.workload = 'stream' AND m.name = 'triad_gbps' AND m.value > 0")
[ "$n" = 4 ] && ok || fail "expected 4 stored triad_gbps, got $n"
n=$(sqlite3 "$DB" "SELECT count(*) FROM sample s JOIN point p ON p.id = s.point_id WHERE p.sweep_id = 1")
[ "$n" = 14 ] && ok || fail "expected 2 x 7 triad samples, got $n"

# plot: the headline metric per series, with no plot code of its own
if command -v gnuplot >/dev/null; then
  expect_rc 0 "$SPRBENCH" plot --db "$DB" --sweep 2 --out "$T/plots"
  [ -s "$T/plots/throughput-mib_8.png" ] && [ -s "$T/plots/speedup-mib_8.png" ] && ok \
    || fail "no stream plots: $(ls "$T/plots" 2>&1)"
  expect_grep 'STREAM memory bandwidth' "$T/plots/throughput-mib_8.gp"
  expect_grep 'GB/s' "$T/plots/throughput-mib_8.gp"
  expect_grep 'title "stream"' "$T/plots/throughput-mib_8.gp"
fi

# report: the generic section by the headline metric
expect_rc 0 "$SPRBENCH" report --db "$DB" --baseline 1 --candidate 2 --out "$T/rep" --no-plots
expect_grep '^## Other workloads, by their headline metric' "$T/rep/report.md"
expect_grep '^\| STREAM memory bandwidth \| none \| mib=8 \| 2 \| GB/s \|' "$T/rep/report.md"

# gate: the two sweeps compared point by point (a verdict, whatever the noise)
"$SPRBENCH" gate --db "$DB" --baseline 1 --candidate 2 --json >"$T/g.json" 2>"$T/err"
rc=$?
[ "$rc" -le 1 ] && ok || fail "gate exited $rc: $(head -3 "$T/err")"
[ "$(json "$T/g.json" 'sorted({r["workload"] for r in d["rows"]})')" = "['stream']" ] && ok \
  || fail "gate rows: $(head -c 300 "$T/g.json")"
# plot --history: the point key's shape names its workload (mib=8 is
# stream's), whatever workload the sweep named by --sweep ran
if command -v gnuplot >/dev/null; then
  expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --reps 8 --no-peak \
    --db "$DB" --label g
  expect_rc 0 "$SPRBENCH" plot --db "$DB" --sweep g --history --kernel none --threads 2 \
    --shape mib=8 --out "$T/hist"
  [ -s "$T/hist/history-stream-none-mib_8-2t-1x1.png" ] && ok \
    || fail "no stream history: $(ls "$T/hist" 2>&1)"
  # its y axis in the unit the points stored, not the metric's name alone
  expect_grep '^set ylabel "triad_gbps, GB/s' "$T/hist/history-stream-none-mib_8-2t-1x1.gp"
fi

# The memory guard counts the room the cgroup leaves, not the machine's RAM:
# in a memory cgroup of 300 MiB, 3 x 200 MiB is refused (exit 2, naming the
# limit) instead of being killed while first touched. Needs a writable
# memory cgroup (root; v1 or v2), else this part is left out.
cg=""
if [ "$(id -u)" = 0 ] && [ -w /sys/fs/cgroup/memory ]; then
  cg=/sys/fs/cgroup/memory/sbstream$$
  mkdir "$cg" 2>/dev/null && echo $((300 << 20)) >"$cg/memory.limit_in_bytes" 2>/dev/null || cg=""
elif [ "$(id -u)" = 0 ] && grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
  cg=/sys/fs/cgroup/sbstream$$
  mkdir "$cg" 2>/dev/null && echo $((300 << 20)) >"$cg/memory.max" 2>/dev/null || cg=""
fi
if [ -n "$cg" ]; then
  expect_rc 2 bash -c 'echo $$ >"$1/cgroup.procs" && exec "$2" stream --mib 200 --ntimes 2' - "$cg" "$SPRBENCH"
  expect_one_error_line 'three arrays need 600 MiB, over 80 % of the [0-9]+ MiB of room under the cgroup limit of 300 MiB'
  rmdir "$cg" 2>/dev/null
else
  echo "note: no writable memory cgroup here: the cgroup guard is not checked"
fi
finish harness_stream
