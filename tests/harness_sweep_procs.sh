#!/usr/bin/env bash
# Nothing a run starts outlives it (#44): a pair binary that is a wrapper
# script starting a child, a detached grandchild (setsid) and an orphan
# (nohup in a subshell), one that ignores SIGTERM too, after a clean sweep
# and after `kill -9` of the sweep. Every process of the test carries $M in
# its command line, and all of them are killed on the way out.
. "$(dirname "$0")/lib.sh"
cd "$T"
command -v sqlite3 >/dev/null || skip "sqlite3 not found"
command -v pgrep >/dev/null || skip "pgrep not found"
command -v setsid >/dev/null || skip "setsid not found"
M="$T/m"
mkdir -p "$M/tmp"
trap 'pkill -KILL -f -- "$M/" 2>/dev/null; rm -rf "$T"' EXIT
ln -s "$(command -v sleep)" "$M/sleep"
export SPRBENCH

# the pair binary: once per sweep (the first run) it starts its three
# sleepers, then runs the worker as a child (it lives on beside it);
# WRAP_STUBBORN: it and they ignore SIGTERM; WRAP_HANG: no worker, it waits
cat >"$M/wrap" <<'WRAP'
#!/bin/bash
d=${0%/*}
[ -n "${WRAP_STUBBORN:-}" ] && trap '' TERM
if mkdir "$d/started" 2>/dev/null; then
  "$d/sleep" 300 &
  setsid "$d/sleep" 301 </dev/null >/dev/null 2>&1 &
  ( nohup "$d/sleep" 302 </dev/null >/dev/null 2>&1 & )
  echo $$ >"$d/wrapper.pid"
fi
if [ -n "${WRAP_HANG:-}" ]; then "$d/sleep" 303; exit 0; fi
"$SPRBENCH" "$@"
WRAP
chmod +x "$M/wrap"

# the test's processes still alive (pgrep leaves itself out; zombies show
# no command line)
survivors() { pgrep -f -- "$M/" | tr '\n' ' '; }
# wait_none SECONDS: until none is left (the bound is generous: the guard
# gives SIGTERM 3 s before SIGKILL)
wait_none() {
  local end=$((SECONDS + $1))
  while [ $SECONDS -lt $end ]; do [ -z "$(survivors)" ] && return 0; sleep 0.1; done
  return 1
}
show() { local p; for p in $(survivors); do tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null; echo; done | head -5; }
# fresh: no sleeper of an earlier case, and they start again
fresh() { pkill -KILL -f -- "$M/" 2>/dev/null; wait_none 10; rm -rf "$M/started" "$M/wrapper.pid"; }
PAIR=(sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --no-peak --pairs 2:2
  --pair-baseline "$M/wrap" --pair-candidate "$M/wrap")

# ---- a clean sweep: its wrapper's child, detached grandchild and orphan end with the run ----
fresh
expect_rc 0 "$SPRBENCH" "${PAIR[@]}" --db a.db
[ -s "$M/wrapper.pid" ] && ok || fail "the wrapper never started its sleepers"
[ "$(sqlite3 a.db "SELECT status FROM point")" = ok ] && ok || fail "the wrapped sweep's point is not ok"
if [ -z "$(survivors)" ]; then ok; else fail "a clean sweep left processes behind:"; show >&2; fi

# ---- the same with a wrapper and sleepers that ignore SIGTERM ----
fresh
WRAP_STUBBORN=1 expect_rc 0 "$SPRBENCH" "${PAIR[@]}" --db b.db
[ -s "$M/wrapper.pid" ] && ok || fail "the stubborn wrapper never started its sleepers"
if [ -z "$(survivors)" ]; then ok; else fail "a clean sweep left SIGTERM-proof processes:"; show >&2; fi

# ---- kill -9 of the sweep while a stubborn wrapper hangs: all of it ends ----
fresh
WRAP_STUBBORN=1 WRAP_HANG=1 "$SPRBENCH" "${PAIR[@]}" --db c.db >c.out 2>&1 &
pid=$!
for _ in $(seq 300); do [ -s "$M/wrapper.pid" ] && break; sleep 0.05; done
[ -s "$M/wrapper.pid" ] && ok || fail "the hanging wrapper never started"
{ kill -9 $pid; wait $pid; } 2>/dev/null
if wait_none 30; then ok; else fail "processes outlived the SIGKILLed sweep:"; show >&2; fi
expect_rc 0 "$SPRBENCH" db unlock --sweep 1 --db c.db

finish harness_sweep_procs
