#!/usr/bin/env bash
# Nothing a run starts outlives it (#44): a pair binary that is a wrapper
# script starting a child, a detached grandchild (setsid) and an orphan
# (nohup in a subshell), one that ignores SIGTERM too, after a clean sweep
# and after `kill -9` of the sweep; and `sweep --resume` and `db unlock`
# refuse while a process of a killed sweep's runs lives (one planted in
# its run group), and work once it has ended. Every process of the test
# carries $M in its command line, and all of them are killed on the way out.
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

# ---- resume and unlock wait for a killed sweep's runs ----
fresh
DB=d.db
TMPDIR="$M/tmp" SPRBENCH_TEST_FAULT=hang:9 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 \
  --reps 3 --no-peak --db $DB --shapes 8x8x8,9x8x8 >d.out 2>&1 &
pid=$!
for _ in $(seq 300); do
  [ "$(sqlite3 $DB "SELECT COUNT(*) FROM point WHERE shape LIKE '9x%' AND status='running'" 2>/dev/null)" = 1 ] && break
  sleep 0.05
done
g=$(sqlite3 $DB "SELECT holder_group FROM sweep WHERE id = 1" 2>/dev/null)
[ -n "$g" ] && ok || fail "the sweep recorded no run group"
# plant NAME: a process named NAME that joins the run group, its pid in
# $planted once it is both
plant() {
  python3 -c 'import os, sys; os.setpgid(0, int(sys.argv[1])); os.execv(sys.argv[2], sys.argv[2:])' \
    "$g" "$M/$1" 600 &
  local p=$! want="$g ${1:0:15}"
  for _ in $(seq 200); do [ "$(ps -o pgid=,comm= -p $p | xargs)" = "$want" ] && break; sleep 0.05; done
  [ "$(ps -o pgid=,comm= -p $p | xargs)" = "$want" ] && ok || fail "the planted $1 never joined group $g"
  planted=$p
}
planted="" stranger=""
if [ -n "$g" ]; then
  ln -s "$(command -v sleep)" "$M/sb-guard-planted"
  # a guard of its runs that outlives it (the store knows guards by their
  # name), and a stranger in its group (as when the group id is reused)
  plant sb-guard-planted
  guard=$planted
  plant sleep
  stranger=$planted
  planted=$guard
fi
{ kill -9 $pid; wait $pid; } 2>/dev/null
expect_rc 2 "$SPRBENCH" sweep --resume 1 --db $DB
expect_one_error_line "sweep 1 was run by process $pid, which is gone, but processes of its runs still live on this host \(process group $g, being stopped\): resume once they have ended$"
expect_rc 2 "$SPRBENCH" db unlock --sweep 1 --db $DB
expect_one_error_line "sweep 1 was run by process $pid, which is gone, but processes of its runs still live on this host \(process group $g, being stopped\): unlock once they have ended$"
[ -n "$planted" ] && { kill $planted; wait $planted; } 2>/dev/null
# its own guard ends once its hanging worker has (the stranger is not one)
for _ in $(seq 300); do [ -z "$(pgrep -g "$g" '^sb-guard')" ] && break; sleep 0.1; done
[ -z "$(pgrep -g "$g" '^sb-guard')" ] && ok || fail "a guard of the SIGKILLed sweep never ended"
expect_rc 0 "$SPRBENCH" sweep --resume 1 --db $DB
[ -n "$stranger" ] && { kill $stranger; wait $stranger; } 2>/dev/null
# its hanging worker (its command names $M/tmp) was ended by its guard
if wait_none 30; then ok; else fail "processes outlived the SIGKILLed sweep:"; show >&2; fi
[ "$(sqlite3 $DB "SELECT COUNT(*) FROM point WHERE status = 'ok'")" = 2 ] && ok || fail "the resume after them"
[ "$(sqlite3 $DB "SELECT COUNT(*) FROM sweep WHERE holder_pid IS NULL AND holder_group IS NULL")" = 1 ] && ok ||
  fail "a finished sweep keeps its claim or run group"

finish harness_sweep_procs
