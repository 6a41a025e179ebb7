#!/usr/bin/env bash
# The vendor references as a user meets them (sb_vendor, gemm_onednn.c,
# gemm_mkl.c): `info` names which oneDNN and MKL run or why not; a missing or
# broken library skips its kernels with the reason (gemm exit 3, a sweep's
# point stored as skipped), never a crash, while every other kernel runs; a
# vendor kernel's result records its library, version and implementation.
# With the PyPI cache (scripts/vendor-libs) the mkl-* kernels run and are
# checked against scalar-f32 as gemm checks every kernel; without it that part
# is skipped and said so.
. "$(dirname "$0")/lib.sh"
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
expect_json() {
  if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"; then ok
  else fail "$1: not ($2)"; head -c 1500 "$1" >&2; fi
}

# info: the stack's lines for each vendor, the JSON with both
expect_rc 0 "$SPRBENCH" info
expect_grep '^  oneDNN build +(PyPI onednn-cpu-gomp|Debian libdnnl2|cannot open)' "$T/out"
expect_grep '^  MKL build +(PyPI mkl|cannot open)' "$T/out"
for k in mkl-f32 mkl-bf16 mkl-int8; do expect_grep "^  $k " "$T/out"; done
"$SPRBENCH" info --json >"$T/info.json"
expect_json "$T/info.json" '[v["name"] for v in d["vendors"]] == ["oneDNN", "MKL"]'
expect_json "$T/info.json" 'all(v["loaded"] == (v["reason"] == "") for v in d["vendors"])'
onednn_loaded=$(json "$T/info.json" 'int(d["vendors"][0]["loaded"])')
mkl_loaded=$(json "$T/info.json" 'int(d["vendors"][1]["loaded"])')

# MKL missing: its kernels skipped with the reason, the rest unchanged
export SB_MKL_LIB="$T/no-such-libmkl_rt.so.3"
expect_rc 0 "$SPRBENCH" info
expect_grep '^  MKL +not loaded$' "$T/out"
expect_grep '^  MKL build +cannot open MKL .*no-such-libmkl_rt' "$T/out"
expect_grep '^  mkl-f32 +cannot open MKL' "$T/out"
expect_grep '^  scalar-f32 +available' "$T/out"
expect_rc 3 "$SPRBENCH" gemm --kernel mkl-f32 --m 32 --n 32 --k 32 --reps 2 --result-file "$T/skip.json"
expect_one_error_line '^sprbench gemm: kernel mkl-f32 cannot run on this machine: cannot open MKL'
expect_json "$T/skip.json" 'd["status"] == "skipped" and "cannot open MKL" in d["reason"] and d["library"]["name"] == "MKL" and not d["library"]["loaded"]'
expect_rc 0 "$SPRBENCH" gemm --kernel scalar-f32 --m 16 --n 16 --k 16 --reps 2
# a sweep stores the point as skipped, with the reason, and goes on
expect_rc 0 "$SPRBENCH" sweep --db "$T/s.db" --kernels scalar-f32,mkl-f32 --threads 1 \
  --shapes 32x32x32 --reps 2 --label vendors-missing
"$SPRBENCH" db points --db "$T/s.db" --sweep vendors-missing --json >"$T/pts.json"
expect_json "$T/pts.json" 'any(p["kernel"] == "mkl-f32" and p["status"] == "skipped" and "cannot open MKL" in p["reason"] for p in d["points"])'
expect_json "$T/pts.json" 'any(p["kernel"] == "scalar-f32" and p["status"] == "ok" for p in d["points"])'

# MKL broken: a library that is not MKL's single dynamic library
export SB_MKL_LIB=libm.so.6
expect_rc 0 "$SPRBENCH" info
expect_grep "^  MKL build +libm.so.6 is not MKL's single dynamic library" "$T/out"
expect_rc 3 "$SPRBENCH" gemm --kernel mkl-int8 --m 16 --n 16 --k 16 --reps 2
unset SB_MKL_LIB

# oneDNN missing, then of the other API generation than the headers built against
export SB_ONEDNN_LIB="$T/no-such-libdnnl.so"
expect_rc 0 "$SPRBENCH" info
expect_grep '^  oneDNN build +cannot open oneDNN .*no-such-libdnnl' "$T/out"
expect_grep '^  onednn-f32 +cannot open oneDNN' "$T/out"
expect_rc 3 "$SPRBENCH" gemm --kernel onednn-f32 --m 16 --n 16 --k 16 --reps 2
expect_one_error_line '^sprbench gemm: kernel onednn-f32 cannot run on this machine: cannot open oneDNN'
# --onednn-isa with no oneDNN: nothing to cap, the run is skipped, not refused
expect_rc 3 "$SPRBENCH" gemm --kernel onednn-f32 --m 16 --n 16 --k 16 --reps 2 --onednn-isa AVX2
built=$(json "$T/info.json" 'd["vendors"][0]["version"].split(".")[0]')
other=""
if [ "$onednn_loaded" = 1 ] && [ "$built" = 3 ]; then other=/usr/lib/x86_64-linux-gnu/libdnnl.so.2
elif [ "$onednn_loaded" = 1 ]; then other="$("$(dirname "$0")/../scripts/vendor-libs" dir)/onednn/lib/libdnnl.so.3"; fi
if [ -n "$other" ] && [ -e "$other" ]; then
  export SB_ONEDNN_LIB="$other"
  expect_rc 0 "$SPRBENCH" info
  expect_grep "^  oneDNN build +.* is oneDNN [0-9]+\.x, but this sprbench was built against oneDNN $built\.x headers" "$T/out"
else
  echo "note: no oneDNN of the other generation here to load against these headers"
fi
unset SB_ONEDNN_LIB

# a vendor kernel's result names its library and what ran
if [ "$onednn_loaded" = 1 ]; then
  expect_rc 0 "$SPRBENCH" gemm --kernel onednn-f32 --m 48 --n 40 --k 24 --reps 2 --prepack --result-file "$T/d.json"
  expect_json "$T/d.json" 'd["library"]["name"] == "oneDNN" and d["library"]["loaded"] and d["library"]["version"][0].isdigit() and d["impl"] != ""'
fi
expect_rc 0 "$SPRBENCH" gemm --kernel scalar-f32 --m 8 --n 8 --k 8 --reps 2 --result-file "$T/own.json"
expect_json "$T/own.json" '"library" not in d'
if [ "$mkl_loaded" = 1 ]; then
  for dt in f32 bf16 int8; do
    avail=$(json "$T/info.json" '[k["available"] for k in d["kernels"] if k["name"] == "mkl-'$dt'"][0]')
    [ "$avail" = True ] || { echo "note: mkl-$dt not available here: $(json "$T/info.json" '[k["reason"] for k in d["kernels"] if k["name"] == "mkl-'$dt'"][0]')"; continue; }
    for pre in "" --prepack; do
      # gemm checks C against scalar-f32 (exact on its small-integer inputs)
      expect_rc 0 "$SPRBENCH" gemm --kernel "mkl-$dt" --m 37 --n 29 --k 45 --trans TN --threads 2 --reps 2 $pre --result-file "$T/m.json"
      expect_json "$T/m.json" 'd["status"] == "ok" and d["metrics"]["max_rel_error"] <= d["metrics"]["error_bound"]'
      expect_json "$T/m.json" 'd["library"]["name"] == "MKL" and d["library"]["version"][:2] == "20" and d["impl"].startswith("mkl:cblas_")'
    done
  done
else
  echo "note: MKL not loaded here ($(json "$T/info.json" 'd["vendors"][1]["reason"]')): its kernels' runs not checked"
fi
finish kern_vendor_cli
