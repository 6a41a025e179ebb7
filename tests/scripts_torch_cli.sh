#!/usr/bin/env bash
# The PyTorch side-by-side scripts (bench-vs-pytorch, bench-infer-vs-pytorch,
# bench-dp-vs-pytorch) and their shared scripts/torch_stacks.py, offline:
# the helper's parsers, --help, one line and exit 2 on bad input, and no
# install attempted when a PyPI stack is missing under SB_TORCH_NO_INSTALL.
# With Debian's python3-torch installed, a tiny --torch debian --json run
# checks the row schema; without it that part is left out (said below).
. "$(dirname "$0")/lib.sh"
S="${SB_SOURCE_DIR:-$(dirname "$0")/..}/scripts"
expect_rc 0 /usr/bin/python3 "$S/torch_stacks.py" --selftest
expect_grep "self-test: ok" "$T/out"
for s in bench-vs-pytorch bench-infer-vs-pytorch bench-dp-vs-pytorch; do
  expect_rc 0 /usr/bin/python3 "$S/$s" --help
  expect_grep "--torch" "$T/out"
  for bad in "--torch nightly" "--torch latest,latest" "--torch ''" "--bogus"; do
    eval "expect_rc 2 /usr/bin/python3 '$S/$s' $bad --sprbench '$SPRBENCH'"
    expect_one_error_line "^$s: "
  done
  # sizes and thread counts are positive, on both sides (torch.set_num_threads(0)
  # and a zero-length sequence never reach a run)
  for bad in "--seq 0" "--seq -8" "--threads 0"; do
    # shellcheck disable=SC2086
    expect_rc 2 /usr/bin/python3 "$S/$s" $bad --sprbench "$SPRBENCH"
    expect_one_error_line "^$s: --.*(expected a positive whole number|at least 1)"
  done
  expect_rc 2 /usr/bin/python3 "$S/$s" --seq 0 --sprbench "$SPRBENCH"
  expect_one_error_line "^$s: --seq 0: expected a positive whole number"
done
expect_rc 2 /usr/bin/python3 "$S/bench-vs-pytorch" --threads 0 --sprbench "$SPRBENCH"
expect_one_error_line "^bench-vs-pytorch: --threads 0: expected a positive whole number"
expect_rc 2 /usr/bin/python3 "$S/bench-infer-vs-pytorch" --ipex-int8 qat --sprbench "$SPRBENCH"
expect_one_error_line "ipex-int8"
expect_rc 2 /usr/bin/python3 "$S/bench-infer-vs-pytorch" --precisions f16 --sprbench "$SPRBENCH"
expect_one_error_line "precisions"
for bad in avx2-int8:row9 avx2-int8:row7:bf16 avx2-int8:row:int8:x :row; do
  expect_rc 2 /usr/bin/python3 "$S/bench-infer-vs-pytorch" --kernels "$bad" --sprbench "$SPRBENCH"
  expect_one_error_line "^bench-infer-vs-pytorch: .*--kernels"
done
for bad in "--global-batch 3" "--ranks 1" "--backends nccl" "--steps 1"; do
  expect_rc 2 /usr/bin/python3 "$S/bench-dp-vs-pytorch" $bad --sprbench "$SPRBENCH"
  expect_one_error_line "^bench-dp-vs-pytorch: "
done
# a PyPI stack not made yet: with SB_TORCH_NO_INSTALL nothing is downloaded,
# one line says so, exit 2 (CI never installs from PyPI)
for s in bench-vs-pytorch bench-infer-vs-pytorch bench-dp-vs-pytorch; do
  SB_TORCH_NO_INSTALL=1 SB_TORCH_CACHE="$T/cache" expect_rc 2 /usr/bin/python3 "$S/$s" --torch ipex \
      --sprbench "$SPRBENCH"
  expect_one_error_line "not installed in .*SB_TORCH_NO_INSTALL"
done
[ ! -e "$T/cache/torch-ipex" ] && ok || fail "SB_TORCH_NO_INSTALL still made $T/cache/torch-ipex"
# A stack whose venv another user could have written is not run (its python
# could be anyone's); one that is ours runs. A fake venv (its python says the
# stack is blocked, and leaves a mark) stands in for a PyPI stack.
fake="$T/tcache/torch-latest"
mkdir -p "$fake/bin" && echo '{}' >"$fake/sprbench-stack.json"
printf '#!/bin/sh\ntouch "%s/ran"\necho "SB_BLOCKED a fake stack"\n' "$T" >"$fake/bin/python"
chmod 755 "$T/tcache" "$fake" "$fake/bin" "$fake/bin/python"
FAST=(--torch latest --batches 1 --seq 32 --steps 2 --precisions f32 --f32-peak 1)
chmod 777 "$fake"
SB_TORCH_CACHE="$T/tcache" expect_rc 2 /usr/bin/python3 "$S/bench-vs-pytorch" "${FAST[@]}" \
  --sprbench /bin/false
expect_one_error_line "^bench-vs-pytorch: the latest stack in .* is not run: .*writable by others"
[ ! -e "$T/ran" ] && ok || fail "the python of a world-writable venv ran"
chmod 755 "$fake"
# without its stamp (a venv left half-made) the same checks come first: pip
# would run that python to finish it
mv "$fake/sprbench-stack.json" "$T/stamp"
chmod 777 "$fake/bin"
SB_TORCH_CACHE="$T/tcache" expect_rc 2 /usr/bin/python3 "$S/bench-vs-pytorch" "${FAST[@]}" \
  --sprbench /bin/false
expect_one_error_line "^bench-vs-pytorch: the latest stack in .* is not run: .*bin is writable by others"
[ ! -e "$T/ran" ] && ok || fail "the python of a world-writable venv without its stamp ran"
chmod 755 "$fake/bin"
mv "$T/stamp" "$fake/sprbench-stack.json"
# --json is checked before the run, not after it
SB_TORCH_CACHE="$T/tcache" expect_rc 2 /usr/bin/python3 "$S/bench-vs-pytorch" "${FAST[@]}" \
  --sprbench /bin/false --json "$T/nodir/rows.json"
expect_one_error_line "^bench-vs-pytorch: --json .*nodir/rows.json: directory .* does not exist"
[ ! -e "$T/ran" ] && ok || fail "bench-vs-pytorch ran before refusing --json"
# every run failed (ours: /bin/false; PyTorch: blocked): exit 1, not 0
SB_TORCH_CACHE="$T/tcache" expect_rc 1 /usr/bin/python3 "$S/bench-vs-pytorch" "${FAST[@]}" \
  --sprbench /bin/false --json "$T/rows0.json"
expect_grep "nothing compared" "$T/err"
[ -e "$T/ran" ] && ok || fail "the fake stack of our own did not run"
if /usr/bin/python3 -c "import torch" 2> /dev/null; then
  expect_rc 0 /usr/bin/python3 "$S/bench-vs-pytorch" --torch debian --batches 1 --seq 32 --steps 2 \
      --sprbench "$SPRBENCH" --json "$T/rows.json"
  /usr/bin/python3 - "$T/rows.json" <<'PY' && ok || fail "--json rows lack the issue's keys"
import json, sys
rows = json.load(open(sys.argv[1]))
need = {"precision", "batch", "ours_tokens_per_s", "torch_tokens_per_s", "ratio", "torch_stack",
        "torch_version", "ours_pct_peak", "torch_pct_peak", "ours_peak_rss_mb",
        "torch_peak_rss_mb", "torch_packages", "torch_runtime"}
assert rows and all(need <= set(r) for r in rows), [need - set(r) for r in rows]
assert rows[0]["torch_stack"] == "debian" and rows[0]["ours_tokens_per_s"] > 0
PY
else
  echo "Debian's python3-torch is not installed: the --torch debian --json run is left out"
fi
finish scripts_torch_cli
