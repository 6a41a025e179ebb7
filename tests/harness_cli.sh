#!/usr/bin/env bash
# info, gemm and the bad inputs of issue 2, as a user meets them.
. "$(dirname "$0")/lib.sh"

expect_rc 0 "$SPRBENCH" --help; expect_grep 'sweep' "$T/out"
expect_rc 2 "$SPRBENCH" frobnicate; expect_one_error_line "unknown command 'frobnicate'"
expect_rc 2 "$SPRBENCH"

# info --json carries the documented keys
expect_rc 0 "$SPRBENCH" info --json
python3 - "$T/out" <<'PY' || fail "info --json lacks keys"
import json, sys
d = json.load(open(sys.argv[1]))
for k in ["model", "microarch"]: assert k in d["cpu"], k
for k in ["avx2", "fma", "os_avx", "avx_vnni", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile",
          "amx_bf16", "amx_int8", "amx_os_permitted"]:
    assert isinstance(d["isa"][k], bool), k
# forced names the SB_FORCE_NO_* variables set to 1 here (none, outside a forced run)
import os
want = " ".join("SB_FORCE_NO_" + f for f in ["AVX2", "AVX512", "AVX512_BF16", "AVX512_VNNI", "AVX_VNNI", "AMX", "ONEDNN"]
                if os.environ.get("SB_FORCE_NO_" + f, "") not in ("", "0"))
assert d["isa"]["forced"] == want, (d["isa"]["forced"], want)
for k in ["packages", "numa_nodes", "cores", "pus"]: assert d["topology"][k] >= 1, k
assert len(d["fingerprint"]) == 16
names = [k["name"] for k in d["kernels"]]
assert "scalar-f32" in names
if not d["isa"]["amx_tile"]:
    amx = [k for k in d["kernels"] if k["name"].startswith("amx")]
    assert all(not k["available"] and k["reason"] for k in amx), amx
PY
ok
expect_rc 0 "$SPRBENCH" info; expect_grep 'microarchitecture' "$T/out"
expect_rc 2 "$SPRBENCH" info --bogus; expect_one_error_line 'unknown option'

# gemm: a checked, timed point and its result document
expect_rc 0 "$SPRBENCH" gemm --kernel scalar-f32 --m 17 --n 5 --k 3 --threads 2 --reps 5 --result-file "$T/r.json"
expect_grep 'max rel error 0' "$T/out"
python3 - "$T/r.json" <<'PY' || fail "gemm result document"
import json, sys
d = json.load(open(sys.argv[1]))
for k in ["workload", "kernel", "dtype", "m", "n", "k", "threads", "status", "reason", "samples", "metrics", "repro"]:
    assert k in d, k
assert d["status"] == "ok" and len(d["samples"]) == 5
for k in ["gflops", "median_s", "min_s", "max_rel_error"]: assert k in d["metrics"], k
assert d["repro"].startswith("sprbench gemm --kernel scalar-f32 --m 17 --n 5 --k 3")
PY
ok
# weight reuse: B packed once, checked and timed through the packed entry
# (by the fastest f32 kernel here that packs: scalar-f32 does not)
PK=$(first_available avx512-f32 avx2-f32 onednn-f32)
[ -n "$PK" ] || skip "no f32 kernel with pre-packed weights runs here"
expect_rc 0 "$SPRBENCH" gemm --kernel "$PK" --m 33 --n 47 --k 65 --trans NT --threads 2 --reps 5 --prepack --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["status"]=="ok" and d["config"]["prepack"] and "pack_s" in d["metrics"] and d["metrics"]["max_rel_error"]==0, d' "$T/out" && ok || fail "prepack result"
# every transpose
for t in NN NT TN TT; do expect_rc 0 "$SPRBENCH" gemm --kernel scalar-f32 --m 9 --n 7 --k 5 --trans $t --reps 5; done

# bad input: one line, exit 2, nothing written
for args in "--kernel nope --m 1 --n 1 --k 1" "--kernel scalar-f32 --m 0 --n 1 --k 1" \
            "--kernel scalar-f32 --m -5 --n 1 --k 1" "--kernel scalar-f32 --m 99999999 --n 1 --k 1" \
            "--kernel scalar-f32 --m 1x --n 1 --k 1" "--kernel scalar-f32 --m 1 --n 1" \
            "--kernel scalar-f32 --m 1 --n 1 --k 1 --trans XY" "--kernel scalar-f32 --m 1 --n 1 --k 1 --threads 0"; do
  # shellcheck disable=SC2086
  expect_rc 2 "$SPRBENCH" gemm $args --result-file "$T/bad.json"
  expect_one_error_line '^sprbench gemm: '
  [ ! -e "$T/bad.json" ] && ok || fail "result written for bad input: $args"
done
expect_rc 2 "$SPRBENCH" gemm --kernel scalar-f32 --m 60000 --n 60000 --k 60000
expect_one_error_line 'GB'
# a kernel this machine cannot run (made so on any CPU with a test force):
# one line with the reason, the result file says skipped, exit 3
SB_FORCE_NO_AVX512=1 expect_rc 3 "$SPRBENCH" gemm --kernel avx512-f32 --m 8 --n 8 --k 8 --result-file "$T/skip.json"
expect_one_error_line '^sprbench gemm: kernel avx512-f32 cannot run on this machine: AVX-512 forced off'
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["status"]=="skipped" and "forced off" in d["reason"], d' "$T/skip.json" && ok || fail "skipped result file"
expect_rc 3 "$SPRBENCH" gemm --kernel scalar-f32 --m 8 --n 8 --k 8 --prepack
expect_one_error_line 'cannot run as asked: .*pre-packed'
# a force the machine honours: info shows it, the fingerprint stays the hardware's
"$SPRBENCH" info --json >"$T/info0.json"
SB_FORCE_NO_AVX512=1 expect_rc 0 "$SPRBENCH" info --json
python3 - "$T/out" "$T/info0.json" <<'PY' && ok || fail "forced info"
import json, sys
f, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert "SB_FORCE_NO_AVX512" in f["isa"]["forced"].split() and not f["isa"]["avx512f"], f["isa"]
assert f["fingerprint"] == d["fingerprint"]
assert not any(k["available"] for k in f["kernels"] if k["name"].startswith(("avx512", "vnni", "amx")))
PY
# unknown force variables or values: one line, exit 2, before any work
SB_FORCE_NO_AVX513=1 expect_rc 2 "$SPRBENCH" gemm --kernel scalar-f32 --m 8 --n 8 --k 8 --result-file "$T/f.json"
expect_one_error_line 'unknown variable SB_FORCE_NO_AVX513'
SB_FORCE_NO_AVX2=yes expect_rc 2 "$SPRBENCH" info
expect_one_error_line "SB_FORCE_NO_AVX2='yes'"
[ ! -e "$T/f.json" ] && ok || fail "result written under a bad force"

# an unwritable result file: one line, exit 2
expect_rc 2 "$SPRBENCH" gemm --kernel scalar-f32 --m 4 --n 4 --k 4 --reps 5 --result-file /nonexistent/dir/r.json
expect_one_error_line 'cannot write'

finish harness_cli
