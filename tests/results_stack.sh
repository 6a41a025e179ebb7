#!/usr/bin/env bash
# The software stack in every record (bench/sb_stack): a worker's result and
# `info` carry it, as this machine says it (nothing guessed where sysfs is
# silent); the CSV export has a column per field; a record from before it
# imports and reads "not recorded"; the report's environment section sets the
# sides side by side and its headline names a difference that can explain the
# gap, and only such a one.
. "$(dirname "$0")/lib.sh"
M="${SB_SOURCE_DIR:?}/results/machines"
cd "$T"

# ---- a worker's result and info ----
expect_rc 0 "$SPRBENCH" gemm --kernel scalar-f32 --shape 32x32x32 --reps 2 --result-file r.json
python3 - r.json <<'EOF' && ok || fail "the result's stack"
import json, os, sys
s = json.load(open(sys.argv[1]))["stack"]
for k in ("compiler", "build_type", "c_flags", "onednn", "mkl", "mpi", "kernel", "hypervisor"):
    assert isinstance(s.get(k), str) and s[k], (k, s.get(k))
assert s["kernel"] == os.uname().release, s["kernel"]
assert s["compiler"].split()[0] in ("GNU", "Clang"), s["compiler"]
def line(p):
    try:
        return open(p).readline().strip()
    except OSError:
        return None
# what sysfs says, or nothing: an unreadable file is an absent field
thp = line("/sys/kernel/mm/transparent_hugepage/enabled")
want = thp[thp.index("[") + 1:thp.index("]")] if thp and "[" in thp else None
assert s.get("thp") == want, (s.get("thp"), want)
gov = line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
assert s.get("governor") == (gov or None), (s.get("governor"), gov)
nt, boost = line("/sys/devices/system/cpu/intel_pstate/no_turbo"), line("/sys/devices/system/cpu/cpufreq/boost")
if nt in ("0", "1"):
    assert s.get("turbo", "").startswith("on" if nt == "0" else "off"), s.get("turbo")
elif boost in ("0", "1"):
    assert s.get("turbo", "").startswith("on" if boost == "1" else "off"), s.get("turbo")
else:
    assert "turbo" not in s, s.get("turbo")
flags = open("/proc/cpuinfo").read().split("\nflags", 1)[1].split("\n", 1)[0].split()
assert (s["hypervisor"] == "none") == ("hypervisor" not in flags), s["hypervisor"]
EOF
expect_rc 0 "$SPRBENCH" info --json
python3 -c "import json; d=json.load(open('out')); assert d['stack']['compiler'] and d['stack']['mpi']" \
  && ok || fail "info --json: no stack"
expect_rc 0 "$SPRBENCH" info
expect_grep '^software stack$' out
expect_grep '^  oneDNN +[0-9]+\.[0-9]+|^  oneDNN +not loaded' out
expect_grep '^  MPI +(Open MPI|MPICH)' out

# ---- a sweep's points and the CSV ----
expect_rc 0 "$SPRBENCH" sweep --db new.db --kernels scalar-f32 --threads 1 --shapes 32x32x32 --reps 2
expect_rc 0 "$SPRBENCH" db export --db new.db --csv --out new.csv
python3 - new.csv <<'EOF' && ok || fail "CSV: the stack columns"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows, "no rows"
for k in ("compiler", "build_type", "c_flags", "onednn", "mkl", "mpi", "kernel", "hypervisor",
          "threads_per_core", "thp", "governor", "turbo"):
    assert "stack_" + k in rows[0], k
for r in rows:
    if r["status"] == "ok":
        assert r["stack_compiler"] and r["stack_mpi"] and r["stack_kernel"], r
EOF
# an older record: imports, its CSV cells and the report say "not recorded"
zen4="$M/zen4-epyc-2026-12-03.json"
emr="$M/emr-xeon-noamx-2026-12-03.json"
expect_rc 0 "$SPRBENCH" db import --db old.db "$zen4" "$emr"
expect_rc 0 "$SPRBENCH" db export --db old.db --csv --sweep 1 --out old.csv
python3 -c "
import csv; rows = list(csv.DictReader(open('old.csv')))
assert rows and all(r['stack_onednn'] == 'not recorded' and r['stack_thp'] == 'not recorded' for r in rows)" \
  && ok || fail "CSV of an older record: stack cells not 'not recorded'"
expect_rc 0 "$SPRBENCH" report --db old.db --baseline "$zen4" --candidate "$emr" --out rold --no-plots
expect_grep '^### Software stack' rold/report.md
expect_grep "^Neither side's results recorded their software stack .*not recorded" rold/report.md
if grep -q 'the sides differ in' rold/report.md out; then fail "a difference named without a stack"; else ok; fi

# ---- two records given stacks: the table and the headline ----
# every point of each record gets a stack: the sides differ in the compiler,
# oneDNN, THP and the OS kernel, and agree on MKL
python3 - "$zen4" "$emr" <<'EOF'
import json, sys
def give(src, dst, stack, drop=()):
    d = json.load(open(src))
    for p in d["points"]:
        r = p.get("result_json")
        if isinstance(r, dict):
            r["stack"] = {k: v for k, v in stack.items() if k not in drop}
    json.dump(d, open(dst, "w"))
base = {"compiler": "GNU 12.2.0", "onednn": "2.6.3", "mkl": "not loaded", "thp": "always",
        "kernel": "6.1.0", "hypervisor": "KVM", "threads_per_core": "1"}
cand = dict(base, compiler="GNU 13.2.0", onednn="3.2.0", thp="madvise", kernel="6.8.0")
give(sys.argv[1], "zen4.json", base)
give(sys.argv[2], "emr.json", cand)
give(sys.argv[2], "emr-same.json", base)
give(sys.argv[2], "emr-nothp.json", cand, drop=("thp",))
EOF
expect_rc 0 "$SPRBENCH" db import --db s.db zen4.json emr.json
expect_rc 0 "$SPRBENCH" report --db s.db --baseline zen4.json --candidate emr.json --out rs --no-plots
R=rs/report.md
expect_grep '^\| oneDNN \| 2\.6\.3 \| 3\.2\.0 \| yes \|' $R
expect_grep '^\| transparent huge pages \| always \| madvise \| yes \|' $R
expect_grep '^\| MKL \| not loaded \| not loaded \|  \|' $R
expect_grep '^\| CPU frequency governor \| not readable \| not readable \|  \|' $R
# the headline's best kernels are avx512-f32 (own) against onednn-bf16: the
# compiler and oneDNN can explain the gap, THP any; the OS kernel cannot
expect_grep 'the candidate is [0-9.]+x (faster|slower) \([^)]*\) \(the sides differ in compiler GNU 13\.2\.0 vs GNU 12\.2\.0, oneDNN 3\.2\.0 vs 2\.6\.3 and THP madvise vs always\)\.' $R
expect_grep '^SQuAD v1.1 epoch .*the candidate is [0-9.]+x (faster|slower) \(the sides differ in compiler GNU 13\.2\.0 vs GNU 12\.2\.0, oneDNN 3\.2\.0 vs 2\.6\.3 and THP madvise vs always\)' out
if grep -q 'differ in [^)]*OS kernel' $R out; then fail "the OS kernel named in the headline"; else ok; fi
# the same stack on both sides: no clause
expect_rc 0 "$SPRBENCH" db import --db same.db zen4.json emr-same.json
expect_rc 0 "$SPRBENCH" report --db same.db --baseline zen4.json --candidate emr-same.json --out rsame --no-plots
if grep -q 'the sides differ in' rsame/report.md out; then fail "a clause for equal stacks"; else ok; fi
# a field one side did not read is not named (nothing guessed), the rest is
expect_rc 0 "$SPRBENCH" db import --db nothp.db zen4.json emr-nothp.json
expect_rc 0 "$SPRBENCH" report --db nothp.db --baseline zen4.json --candidate emr-nothp.json --out rn --no-plots
expect_grep '\(the sides differ in compiler GNU 13\.2\.0 vs GNU 12\.2\.0 and oneDNN 3\.2\.0 vs 2\.6\.3\)' rn/report.md
expect_grep '^\| transparent huge pages \| always \| not readable \|  \|' rn/report.md
# one side recorded, the other not: its cells say so, no clause
expect_rc 0 "$SPRBENCH" db import --db half.db zen4.json "$emr"
expect_rc 0 "$SPRBENCH" report --db half.db --baseline zen4.json --candidate "$emr" --out rh --no-plots
expect_grep '^\| oneDNN \| 2\.6\.3 \| not recorded \|  \|' rh/report.md
if grep -q 'the sides differ in' rh/report.md out; then fail "a clause against an unrecorded side"; else ok; fi
finish results_stack
