#!/bin/bash
# An unpaired point's worker output (#44): however much it writes, the
# sweep's TMPDIR keeps its first and last 512 KiB a stream, and the point's
# stored log still counts every byte. The worker here is a fake mpirun on
# PATH (a point with ppn 2 runs under mpirun) that writes 3 MiB and fails.
. "$SB_SOURCE_DIR/tests/lib.sh"
cd "$T"
mkdir -p tmp bin
export TMPDIR=$T/tmp
cat >bin/mpirun <<'FAKE'
#!/bin/bash
head -c $((3 << 20)) /dev/zero | tr '\0' 'x'
head -c $((2 << 20)) /dev/zero | tr '\0' 'y' >&2
echo "DU $(du -sb "$TMPDIR" | cut -f1)" >>"$FAKE_LOG"
exit 1
FAKE
chmod +x bin/mpirun
export FAKE_LOG=$T/log
PATH=$T/bin:$PATH "$SPRBENCH" sweep --kernels scalar-f32 --shapes 16x16x16 --threads 1 \
  --ppn 2 --no-peak --db logs.db >out 2>&1
q() { sqlite3 "$1" "$2"; }
du=$(awk '/^DU / {print $2; exit}' log)
[ -n "$du" ] && [ "$du" -lt $((2 << 20)) ] && ok ||
  fail "TMPDIR held ${du:-?} bytes of a worker's 5 MiB of output: $(cat out)"
[ "$(q logs.db 'SELECT status FROM point')" = failed ] && ok ||
  fail "point: $(q logs.db 'SELECT status, reason FROM point')"
[ "$(q logs.db 'SELECT stdout_bytes, stderr_bytes FROM point_log')" = "$((3 << 20))|$((2 << 20))" ] && ok ||
  fail "bytes counted: $(q logs.db 'SELECT stdout_bytes, stderr_bytes FROM point_log')"
[ -z "$(ls tmp)" ] && ok || fail "the sweep left $(ls tmp) in TMPDIR"
finish harness_sweep_logs
