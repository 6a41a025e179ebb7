#!/bin/bash
# The environment that changes results is recorded with every result, as the
# worker ran with it, and gate and report say when two sides differ in it:
#  - gemm, train, allreduce and model result files hold "env" (every OMP_*,
#    KMP_*, GOMP_*, ONEDNN_*/DNNL_*, OPENBLAS_*, MKL_*, SB_*, MALLOC_*,
#    LD_PRELOAD, GLIBC_TUNABLES variable present, sorted, nothing else) and
#    "env_scope"; what the run sets itself shows as in force (--threads as
#    OMP_NUM_THREADS, --onednn-isa as ONEDNN_MAX_CPU_ISA);
#  - a sweep's workers record theirs, and the database keeps it;
#  - gate prints one "env:" line naming the variables in which the compared
#    points differ (and none when they do not), JUnit carries it; report has
#    it in its Environment section; results without a record say so.
. "$SB_SOURCE_DIR/tests/lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
cd "$T" || exit 1
S=$SPRBENCH
GEMM=("$S" gemm --kernel scalar-f32 --m 16 --n 16 --k 16 --reps 6 --threads 1)

# check_env FILE PY_EXPR...: each Python expression over d (the document) and
# env (its "env") holds
check_env() {
  local f=$1; shift
  python3 - "$f" "$@" <<'PY' || fail "$f: environment record not as expected"
import json, sys
d = json.load(open(sys.argv[1]))
env = d.get("env")
assert isinstance(env, dict), "no env object"
assert "ONEDNN_*" in d.get("env_scope", ""), "no env_scope"
assert list(env) == sorted(env), f"not sorted: {list(env)}"
assert all(isinstance(v, str) for v in env.values()), "values are not strings"
for expr in sys.argv[2:]:
    assert eval(expr), f"{expr} is false; env = {env}"
PY
  ok
}

# --- gemm: the variables present, and what the run put in force ---------------
export ONEDNN_MAX_CPU_ISA=SSE41 KMP_AFFINITY=compact MALLOC_ARENA_MAX=2 \
  GLIBC_TUNABLES=glibc.malloc.hugetlb=1 OPENBLAS_CORETYPE=Haswell NOT_A_RESULT_VAR=1
expect_rc 0 "${GEMM[@]}" --result-file g.json
check_env g.json 'env["ONEDNN_MAX_CPU_ISA"] == "SSE41"' 'env["KMP_AFFINITY"] == "compact"' \
  'env["MALLOC_ARENA_MAX"] == "2"' 'env["GLIBC_TUNABLES"] == "glibc.malloc.hugetlb=1"' \
  'env["OPENBLAS_CORETYPE"] == "Haswell"' 'env["OMP_NUM_THREADS"] == "1"' \
  '"NOT_A_RESULT_VAR" not in env' '"PATH" not in env' '"HOME" not in env'
# --onednn-isa replaces the variable for this run: the record says what ran
expect_rc 0 "${GEMM[@]}" --onednn-isa avx2 --result-file g2.json
check_env g2.json 'env["ONEDNN_MAX_CPU_ISA"] == "AVX2"'
unset ONEDNN_MAX_CPU_ISA KMP_AFFINITY MALLOC_ARENA_MAX GLIBC_TUNABLES OPENBLAS_CORETYPE NOT_A_RESULT_VAR
expect_rc 0 "${GEMM[@]}" --result-file g3.json
check_env g3.json '"ONEDNN_MAX_CPU_ISA" not in env' '"KMP_AFFINITY" not in env'
# a value that is not UTF-8 or has a newline is kept readable and one string
SB_ODD=$'a\nb\xffc' expect_rc 0 "${GEMM[@]}" --result-file g4.json
check_env g4.json 'env["SB_ODD"] == "a\nb?c"'

# --- train, model, allreduce -------------------------------------------------------
ONEDNN_VERBOSE=0 expect_rc 0 "$S" train --model tiny --threads 1 --max-steps 2 --synth-train 64 \
  --synth-dev 8 --result-file t.json
check_env t.json 'env["OMP_NUM_THREADS"] == "1"' 'env["ONEDNN_VERBOSE"] == "0"'
expect_rc 0 "$S" model --step-seconds 1 --busbw-gbs 5 --nodes 1,2 --result-file m.json
check_env m.json '"OMP_NUM_THREADS" not in env or env["OMP_NUM_THREADS"] == "1"'
if command -v mpirun >/dev/null; then
  MKL_DEBUG_CPU_TYPE=5 expect_rc 0 "$S" allreduce --sizes 4,64 --iters 2 --warmup 1 --result-file a.json
  check_env a.json 'env["MKL_DEBUG_CPU_TYPE"] == "5"' 'isinstance(d.get("mpi_env"), dict)'
fi

# --- a sweep's workers record what they ran with; gate and report compare it ------
SW=("$S" sweep --kernels scalar-f32 --threads 1 --shapes 16x16x16,24x24x24 --reps 6 --no-peak)
expect_rc 0 "${SW[@]}" --db base.db
expect_rc 0 "${SW[@]}" --db same.db
ONEDNN_MAX_CPU_ISA=SSE41 LD_PRELOAD= expect_rc 0 "${SW[@]}" --db cand.db
python3 - <<'PY' || fail "the sweep's workers did not record the environment they ran with"
import json, sqlite3
rows = sqlite3.connect("cand.db").execute(
    "SELECT result_json FROM point WHERE workload = 'gemm'").fetchall()
assert len(rows) == 2, rows
for (doc,) in rows:
    env = json.loads(doc)["env"]
    assert env["ONEDNN_MAX_CPU_ISA"] == "SSE41", env
    assert env["LD_PRELOAD"] == "", env
    assert env["OMP_NUM_THREADS"] == "1", env   # the sweep sets it for the worker
PY
ok

# (a wide tolerance: this test is about the env lines, not about timing on a shared machine)
# the same environment: no env line
expect_rc 0 "$S" gate --tolerance 900% --baseline base.db --candidate same.db
if grep -q '^env:' "$T/out"; then fail "gate reports an environment difference between equal runs"; else ok; fi
# a different one: one line for the sweep pair, naming the variables and values
expect_rc 0 "$S" gate --tolerance 900% --baseline base.db --candidate cand.db --junit gate.xml
n=$(grep -c '^env:' "$T/out")
[ "$n" -eq 1 ] && ok || fail "expected one env line, got $n"
expect_grep "^env: environment differs in all 2 compared point pair\(s\): LD_PRELOAD \(baseline unset, candidate ''\), ONEDNN_MAX_CPU_ISA \(baseline unset, candidate 'SSE41'\)$" "$T/out"
expect_grep "environment differs: LD_PRELOAD \(baseline unset, candidate &apos;&apos;\), ONEDNN_MAX_CPU_ISA" gate.xml
# the other direction too, and with a metric
expect_rc 0 "$S" gate --tolerance 900% --baseline cand.db --candidate base.db --metric gflops
expect_grep "^env: .*ONEDNN_MAX_CPU_ISA \(baseline 'SSE41', candidate unset\)" "$T/out"

# report: the Environment section says the same
expect_rc 0 "$S" report --db base.db --db cand.db --baseline 1 --candidate 2 --out rep --no-plots
expect_grep '^## Environment' rep/report.md
expect_grep "environment differs in all 2 compared point pair\(s\): LD_PRELOAD \(baseline unset, candidate ''\), ONEDNN\\\\_MAX\\\\_CPU\\\\_ISA|environment differs in all 2 compared point pair\(s\): LD_PRELOAD \(baseline unset, candidate ''\), ONEDNN_MAX_CPU_ISA" rep/report.md
expect_grep "<h2 id=\"environment\">Environment</h2>" rep/report.html
expect_rc 0 "$S" report --db base.db --db same.db --baseline 1 --candidate 2 --out rep2 --no-plots
expect_grep 'with the same recorded environment variables' rep2/report.md

# results from before complete recording: not compared, and said so
python3 - <<'PY' || fail "could not make an old-style database"
import json, shutil, sqlite3
shutil.copy("cand.db", "old.db")
c = sqlite3.connect("old.db")
for pid, doc in c.execute("SELECT id, result_json FROM point").fetchall():
    d = json.loads(doc)
    d.pop("env_scope", None)
    d["env"] = {"OMP_NUM_THREADS": 1, "ONEDNN_MAX_CPU_ISA": ""}   # what gemm used to write
    c.execute("UPDATE point SET result_json = ? WHERE id = ?", (json.dumps(d), pid))
c.commit()
PY
expect_rc 0 "$S" gate --tolerance 900% --baseline old.db --candidate base.db
expect_grep '^env: environment not recorded for 2 of 2 compared point pair\(s\)' "$T/out"
if grep -q 'ONEDNN_MAX_CPU_ISA' "$T/out"; then fail "an old partial env was compared"; else ok; fi

finish results_env
