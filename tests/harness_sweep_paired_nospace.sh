#!/bin/bash
# A full TMPDIR under a paired sweep (#44): a run that cannot write its
# output or result there is the machine's want of space, said so, and not
# blamed on either binary. A small tmpfs, mounted in a mount namespace of
# this test's own, stands for the full disk: root only (skipped otherwise).
. "$SB_SOURCE_DIR/tests/lib.sh"
cd "$T"
[ "$(id -u)" = 0 ] || skip "needs root to mount a small tmpfs as a full TMPDIR"
command -v unshare >/dev/null || skip "no unshare(1)"
unshare -m true 2>/dev/null || skip "no mount namespace can be made here"
# fake-worker -- GEMM OPTIONS: a result of 10 ms samples in --result-file
cat >fake-worker <<'FAKE'
#!/bin/bash
out=""; reps=3
while [ $# -gt 0 ]; do case $1 in
  --result-file) out=$2; shift 2 ;; --reps) reps=$2; shift 2 ;; *) shift ;; esac; done
echo "fake worker: a line of output"
s=$(awk -v r="$reps" 'BEGIN{for(i=0;i<r;i++) printf "%s0.01", i?",":""}')
printf '{"workload":"gemm","kernel":"scalar-f32","dtype":"f32","threads":1,"status":"ok","reason":"","samples":[%s],"metrics":{"gflops":1.0}}\n' "$s" >"$out"
FAKE
chmod +x fake-worker
cp fake-worker base && cp fake-worker cand
mkdir small
cat >inside.sh <<'IN'
mount -t tmpfs -o size=256k tmpfs "$T/small" || exit 77
# everything but a few hundred bytes taken
dd if=/dev/zero of="$T/small/fill" bs=1k 2>/dev/null
TMPDIR=$T/small "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 16x16x16 --no-peak \
  --pairs 2:2 --db "$T/full.db" --pair-baseline "$T/base" --pair-candidate "$T/cand"
IN
T=$T SPRBENCH=$SPRBENCH unshare -m --propagation private bash inside.sh >out 2>err
rc=$?
[ $rc = 77 ] && skip "cannot mount a tmpfs here"
[ $rc = 1 ] && ok || fail "a sweep whose point could not run should exit 1, got $rc: $(cat err)"
got=$(sqlite3 full.db 'SELECT status || ": " || reason FROM point')
[[ "$got" =~ ^failed:\ no\ space\ left\ in\ TMPDIR\ \($T/small/sprbench-sweep-[^\)]+\):\  ]] && ok ||
  fail "a full TMPDIR: $got"
[[ "$got" == *"binary $T/"* ]] && fail "a full TMPDIR blamed on a binary: $got" || ok
finish harness_sweep_paired_nospace
