# Every metric every worker writes is in the metric table (bench/sb_metric.def)
# and its result document's "better" is the table's: tiny runs of gemm (plain
# and pre-packed), stream, peak, train (profile, eval), infer (latency,
# profile, and int8 against f32 where an int8 kernel runs; two ranks under
# mpirun where it is installed), allreduce (one
# rank, the gradient's size) and the scaling model, each document checked by
# test_results_metric --check. The table itself is test_results_metric's.
. "$(dirname "$0")/lib.sh"
B=$SPRBENCH
CHECKER=${SB_METRIC_CHECK:?SB_METRIC_CHECK must name test_results_metric}
export OMP_NUM_THREADS=1
docs=()
run() { # run NAME ARGS...: a worker writing $T/NAME.json
  local name=$1; shift
  local cmd=("$B"); [ "$1" = mpirun ] && cmd=()
  "${cmd[@]}" "$@" --result-file "$T/$name.json" >"$T/$name.out" 2>"$T/$name.err"; local rc=$?
  if [ $rc -ne 0 ] || [ ! -s "$T/$name.json" ]; then
    fail "$name: exit $rc: $*"; tail -3 "$T/$name.err" >&2
  else ok; docs+=("$T/$name.json"); fi
}

run gemm gemm --kernel scalar-f32 --m 8 --n 8 --k 8 --reps 3
KP=$(first_available avx512-f32 avx2-f32) # the own kernels offer a pre-packed B
[ -n "$KP" ] && run gemm-prepack gemm --kernel "$KP" --m 8 --n 8 --k 8 --reps 3 --prepack
K8=$(first_available avx512-int8 avx2-int8 onednn-int8)
[ -n "$K8" ] && run gemm-int8 gemm --kernel "$K8" --m 16 --n 16 --k 16 --reps 3
run stream stream --mib 1 --ntimes 3 --threads 1
run peak peak --threads 1 --seconds 0.01
SMALL=(--model tiny --synth-train 120 --synth-dev 40 --batch 8 --seq 64 --stride 16 --threads 1)
run train train "${SMALL[@]}" --max-steps 2 --eval --profile --save "$T/ckpt"
"$B" squad-synth --questions 12 --dev --out "$T/dev.json" >/dev/null 2>&1 || fail "squad-synth"
INF=(--init "$T/ckpt" --data "$T/dev.json" --seq 64 --stride 16 --threads 1 --batch 4)
run infer infer "${INF[@]}" --kernel scalar-f32 --requests 4 --profile
[ -n "$K8" ] && run infer-int8 infer "${INF[@]}" --kernel "$K8" --requests 4 --compare-f32
# two ranks: the data-parallel metrics (compute, communication, imbalance)
if command -v mpirun >/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
  DP=("${SMALL[@]}"); DP[7]=4  # batch 4 (a second --batch is refused)
  run train-dp mpirun -np 2 --oversubscribe --bind-to none -x OMP_NUM_THREADS=1 "$B" train \
    "${DP[@]}" --max-steps 1
fi
run allreduce allreduce --sizes 4..64,grad --iters 2 --warmup 1
run model model --study "$SB_SOURCE_DIR/results/reference/study.csv" --busbw-gbs 5 --nodes 1,2

# each document: every metric in the table, "better" the table's
for d in "${docs[@]}"; do
  if "$CHECKER" --check "$d" >"$T/check.out" 2>&1; then ok; cat "$T/check.out" >>"$T/check.all"
  else fail "$(basename "$d")"; sed 's/^/  /' "$T/check.out" | head -20 >&2; fi
done
# the families a worker writes are there (not an empty pass)
expect_grep '"busbw_gbs_grad"' "$T/allreduce.json"
expect_grep '"lat_us_64": "lower"' "$T/allreduce.json"
expect_grep '"triad_gbps": "higher"' "$T/stream.json"
expect_grep '"prof_[a-z_]*_s": "lower"' "$T/train.json"
expect_grep '"speedup_n2": "higher"' "$T/model.json"
expect_grep '"epoch_seconds_overlap_n2": "lower"' "$T/model.json"
expect_grep '"peak_rss_mb": "lower"' "$T/infer.json"
expect_grep '"latency_p99_ms": "lower"' "$T/infer.json"
[ -s "$T/train-dp.json" ] && expect_grep '"load_imbalance": "lower"' "$T/train-dp.json"
# gemm --json prints the document with its "better" (sealed, not written)
expect_rc 0 "$B" gemm --kernel scalar-f32 --m 8 --n 8 --k 8 --reps 3 --json
expect_grep '"gflops": "higher"' "$T/out"
# The directions study/ reads are the table's. plot --history: a rate's
# p10-p90 band is the median's work over the p90 and p10 sample times (STREAM's
# samples are seconds; the name guess drew triad_gbps's band as a time's).
if command -v gnuplot >/dev/null; then
  for s in 1 2; do
    expect_rc 0 "$B" sweep --workload stream --threads 1 --mib 1 --ntimes 6 --db "$T/s.db"
  done
  expect_rc 0 "$B" plot --db "$T/s.db" --history --workload stream --kernel none --threads 1 \
    --shape mib=1 --out "$T/hist"
  expect_rc 0 "$B" db points --db "$T/s.db" --sweep 2 --json
  python3 - "$T/out" "$T"/hist/history-*.gp <<'PY' && ok || fail "triad_gbps band not a rate's"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
v, med = p["metrics"]["triad_gbps"]["value"], p["median_seconds"]
lines = open(sys.argv[2]).read().split("$h << EOD\n")[1].split("EOD")[0].split("\n")
# sweep 2's row (i value lo hi sweep): the two sweeps may start in the same
# second, and then the newest is the one of the larger uuid, not sweep 2
row = [[float(x) for x in l.split()] for l in lines if l.split()[4:5] == ["2"]][0]
assert abs(row[1] - v) <= 1e-6 * v, (row, v)
want_lo, want_hi = v * med / p["p90_seconds"], v * med / p["p10_seconds"]
assert abs(row[2] - want_lo) <= 1e-6 * v and abs(row[3] - want_hi) <= 1e-6 * v, (row, want_lo, want_hi)
PY
fi
cat "$T"/check.all 2>/dev/null
finish results_metric_cli
