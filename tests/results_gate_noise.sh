#!/bin/bash
# scripts/gate-noise-study as a user meets it: --help, one line and exit 2 on
# bad input, and evaluate counting the gates of labelled sweeps (two tiny
# identical sweeps: a pair, its verdict counted under "same"; --rounds on
# too few iterations: no trial). The timed study itself (run) needs root and
# a cgroup and takes half an hour: docs/gating.md has its figures.
. "$SB_SOURCE_DIR/tests/lib.sh"
G="$SB_SOURCE_DIR/scripts/gate-noise-study"
cd "$T" || exit 1
expect_rc 0 "$G" --help
expect_grep '^ +scripts/gate-noise-study run' out
expect_rc 2 "$G" frobnicate
expect_one_error_line "^gate-noise-study: unknown mode 'frobnicate'"
expect_rc 2 "$G" evaluate --db none.db --sprbench "$SPRBENCH"
expect_one_error_line '^gate-noise-study: none.db: no such database'
expect_rc 2 "$G" evaluate --rounds 0 --sprbench "$SPRBENCH"
expect_one_error_line '^gate-noise-study: --rounds must be a positive integer'
for l in base-01 same-01; do
  expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --no-peak \
    --db n.db --label "$l"
done
expect_rc 0 "$G" evaluate --db n.db --sprbench "$SPRBENCH"
# one identical pair, counted once (FAIL or pass: timing is never asserted)
python3 - "$T/out" <<'PY' && ok || fail "evaluate did not count the one pair: $(cat "$T/out")"
import sys
rows = {l.split()[0]: l.split()[1:4] for l in open(sys.argv[1]) if l[:4] in ('same', 'q85 ', 'q70 ', 'isa ')}
assert sum(map(int, rows['same'])) == 1, rows
assert all(sum(map(int, rows[k])) == 0 for k in ('q85', 'q70', 'isa')), rows
PY
expect_rc 0 "$G" evaluate --db n.db --sprbench "$SPRBENCH" --rounds 3
expect_grep '^same +0 +0 +0 ' out
# gates: whole ci-gate runs, paired and rounds; its input is checked first
expect_rc 0 "$G" --help
expect_grep '^ +scripts/gate-noise-study gates \[--gates 20\]' out
expect_rc 2 "$G" gates --gates 0 --sprbench "$SPRBENCH"
expect_one_error_line '^gate-noise-study: --gates must be a positive integer'
finish results_gate_noise
