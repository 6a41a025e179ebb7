#!/usr/bin/env bash
# `sprbench gemm --shape MxNxK[:TT][+prepack]`: the sizes and transpose as one
# word, as a sweep names its points; the same run as --m/--n/--k/--trans (the
# same config and repro line), and refused with them or malformed.
. "$(dirname "$0")/lib.sh"
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
common=(--kernel scalar-f32 --threads 1 --reps 2)

expect_rc 0 "$SPRBENCH" gemm "${common[@]}" --shape 17x5x3:NT --result-file "$T/a.json"
expect_grep '^scalar-f32 f32 17x5x3 NT threads=1:' "$T/out"
expect_rc 0 "$SPRBENCH" gemm "${common[@]}" --m 17 --n 5 --k 3 --trans NT --result-file "$T/b.json"
for f in a b; do
  [ "$(json "$T/$f.json" 'd["m"], d["n"], d["k"], d["config"]["trans"], d["status"]')" = "17 5 3 NT ok" ] \
    && ok || fail "$f: $(json "$T/$f.json" 'd["m"], d["n"], d["k"], d["config"].get("trans"), d["status"]')"
done
# one run, one repro line, whichever way its shape was written
[ "$(json "$T/a.json" 'd["repro"]')" = "$(json "$T/b.json" 'd["repro"]')" ] && ok \
  || fail "repro lines differ: $(json "$T/a.json" 'd["repro"]') / $(json "$T/b.json" 'd["repro"]')"
# no transpose given: NN
expect_rc 0 "$SPRBENCH" gemm "${common[@]}" --shape 8X9x10 --json
expect_grep '"trans": "NN"' "$T/out"
# +prepack is --prepack: scalar-f32 has no pre-packed B, so the run says so (skipped)
expect_rc 3 "$SPRBENCH" gemm "${common[@]}" --shape 8x8x8+prepack
expect_one_error_line 'cannot run as asked: kernel offers no pre-packed B'
pk=$(first_available avx512-f32 avx2-f32)
if [ -n "$pk" ]; then
  expect_rc 0 "$SPRBENCH" gemm --kernel "$pk" --threads 1 --reps 2 --shape 16x16x16:NN+prepack --json
  expect_grep '"prepack": true' "$T/out"
fi

# refused, one line each, exit 2
for bad in "--shape 17x5" "--shape 17x5x3:XY" "--shape 17x5x3+foo" "--shape 0x5x3" \
           "--shape 17x5x70000" "--shape 17x5x3 --m 4" "--trans NT --shape 17x5x3" "--shape"; do
  # shellcheck disable=SC2086
  expect_rc 2 "$SPRBENCH" gemm --kernel scalar-f32 $bad
  expect_one_error_line '^sprbench gemm: '
done
expect_rc 0 "$SPRBENCH" gemm --help
expect_grep '[-]-shape S' "$T/out"
finish harness_gemm_shape
