#!/bin/bash
# train --profile's per-product lines (issue #42): after the kinds, each of
# the 18 matrix products of a training step (the four linears' forward, dx
# and dW; attention's QK^T, PV, dV, dP, dQ, dK) with its shape, calls, FLOPs,
# core-seconds and GFLOP/s a core; checked for their presence and for being
# consistent with the model's sizes and with each other, never for a speed.
set -u
B=${SPRBENCH:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
# tiny: 2 layers, dim 64, 4 heads, ffn 256; 8 x 64 = 512 tokens a step
SMALL="--model tiny --synth-train 120 --synth-dev 40 --batch 8 --seq 64 --stride 16 --threads 2"
for k in avx512-f32 avx512-bf16 avx2-f32 scalar-f32; do
    "$B" train $SMALL --kernel $k --max-steps 3 > /dev/null 2>&1 || continue
    "$B" train $SMALL --kernel $k --max-steps 3 --profile > "$T/prof.$k" 2> /dev/null
    check "$k: --profile exits 0" "[ $? -eq 0 ]"
    check "$k: the kinds' lines as before (11 kinds, 6 with GFLOP/s)" \
        "[ \$(grep -cE '^  [a-z].* s +[0-9.]+ %' '$T/prof.$k') -eq 11 ] && [ \$(grep -c '^  .*GFLOP/s\$' '$T/prof.$k') -eq 6 ]"
    check "$k: the products after the kinds, 18 of them" "python3 - '$T/prof.$k' <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
head = [i for i, l in enumerate(lines) if l.startswith('products (per step, 2 threads')]
assert len(head) == 1, 'no products header'
kinds = [i for i, l in enumerate(lines) if l.startswith('  optimizer ')]
assert kinds and kinds[0] < head[0], 'products not after the kinds'
rows = {}
pat = re.compile(r'^    (\S+ \S+) +(NN|NT|TN) +(\d+) x (\d+) x (\d+) +(\d+) +([0-9.]+) +([0-9.]+) +([0-9.]+)$')
for l in lines[head[0] + 2:]:
    m = pat.match(l)
    assert m, 'bad product line: ' + l
    rows[m.group(1)] = m.groups()[1:]
names = ['qkv fwd', 'qkv dx', 'qkv dW', 'out fwd', 'out dx', 'out dW', 'lin1 fwd', 'lin1 dx',
         'lin1 dW', 'lin2 fwd', 'lin2 dx', 'lin2 dW', 'attn QK^T', 'attn PV', 'attn dV',
         'attn dP', 'attn dQ', 'attn dK']
assert sorted(rows) == sorted(names), sorted(rows)
N, D, F, L, S, H = 512, 64, 256, 2, 64, 4
want = {'qkv': (3 * D, D), 'out': (D, D), 'lin1': (F, D), 'lin2': (D, F)}
for kind, (o, i) in want.items():
    shapes = {'fwd': ('NT', N, o, i), 'dx': ('NN', N, i, o), 'dW': ('TN', o, i, N)}
    total = 0
    for op, (tt, m, n, k) in shapes.items():
        r = rows[kind + ' ' + op]
        assert (r[0], int(r[1]), int(r[2]), int(r[3])) == (tt, m, n, k), (kind, op, r)
        assert int(r[4]) == L, (kind, op, 'calls', r[4])
        total += float(r[5])
    # the three products of a kind: 6 FLOPs per weight per token, as the kinds' GFLOP/s count
    assert abs(total - 6.0 * L * o * i * N / 1e9) < 2e-4, (kind, total)
for name in names[12:]:
    r = rows[name]
    assert int(r[4]) == 8 * H * L, (name, 'calls', r[4])  # one per (sequence, head, layer)
dh = D // H
for name, tt in (('attn QK^T', 'NT'), ('attn dP', 'NT')):
    r = rows[name]
    assert r[0] == tt and int(r[1]) == S and int(r[3]) == dh and 1 <= int(r[2]) <= S, (name, r)
for name in ('attn PV', 'attn dQ'):
    r = rows[name]
    assert r[0] == 'NN' and int(r[1]) == S and int(r[2]) == dh and 1 <= int(r[3]) <= S, (name, r)
for name in ('attn dV', 'attn dK'):
    r = rows[name]
    assert r[0] == 'TN' and int(r[2]) == dh and int(r[3]) == S and 1 <= int(r[1]) <= S, (name, r)
for name, r in rows.items():
    gf, ms, rate = float(r[5]), float(r[6]), float(r[7])
    # no speed is assumed: on a loaded machine a product can take 0.5 s (0.0 GFLOP/s printed)
    assert gf > 0 and ms >= 0 and rate >= 0, (name, r)
    # GFLOP/s a core is the FLOPs over the core-seconds (to the printed digits)
    if ms > 0.01:
        assert abs(gf / (ms / 1e3) - rate) <= 0.05 * rate + 0.1, (name, gf / (ms / 1e3), rate)
PY"
done
check "at least one kernel ran" "ls '$T'/prof.* > /dev/null 2>&1"
"$B" train $SMALL --max-steps 2 > "$T/plain" 2> /dev/null
check "without --profile: no products" "! grep -q '^products' '$T/plain'"
exit $fail
