#!/usr/bin/env bash
# A sweep owns its workers: a sweep killed with SIGKILL leaves no worker
# running (gone at once; the check allows a loaded machine 3 s), a hang-up
# (SIGHUP) ends a sweep as SIGTERM does (worker stopped, point interrupted, resumable), and neither
# `db unlock` nor `--resume` takes a sweep whose holder still runs here; a
# --hostfile sweep leaves no temporary directory.
. "$(dirname "$0")/lib.sh"
cd "$T"
DB="$T/r.db"
q() { sqlite3 "$DB" "$1"; }
command -v sqlite3 >/dev/null || skip "sqlite3 not found"
command -v pgrep >/dev/null || skip "pgrep not found"
common=(--kernels scalar-f32 --threads 1 --reps 5 --no-peak --db "$DB")

# wait_running SWEEP SHAPE: until that point runs (its worker started)
wait_running() {
  for _ in $(seq 200); do
    [ "$(q "SELECT COUNT(*) FROM point WHERE sweep_id=$1 AND status='running' AND shape LIKE '$2x%'" 2>/dev/null)" = 1 ] && return 0
    sleep 0.05
  done
  fail "point $2 of sweep $1 never ran"
}
# worker_of PID: the sweep's worker (the child of its run's guard, which is
# the sweep's child), "" if none
worker_of() {
  local w="" c
  for _ in $(seq 100); do
    for c in $(pgrep -P "$1"); do w=$(pgrep -P "$c" | head -1); [ -n "$w" ] && break; done
    [ -n "$w" ] && break
    sleep 0.05
  done
  echo "$w"
}
# gone_within PID SECONDS: the process is gone (or a zombie) in time
gone_within() {
  local end=$((SECONDS + $2 + 1)) st
  while [ $SECONDS -lt $end ]; do
    st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)
    [ -z "$st" ] || [ "$st" = Z ] && return 0
    sleep 0.05
  done
  return 1
}

# SIGKILL: the worker (a hanging one, which only a signal ends) dies with it
SPRBENCH_TEST_FAULT=hang:9 "$SPRBENCH" sweep "${common[@]}" --shapes 8x8x8,9x8x8 >"$T/k.out" 2>&1 &
pid=$!
wait_running 1 9
w=$(worker_of $pid)
[ -n "$w" ] && ok || fail "no worker seen under sweep $pid"
# while the sweep runs: db unlock and --resume refuse (a resume would measure
# beside it)
expect_rc 2 "$SPRBENCH" db unlock --sweep 1 --db "$DB"
expect_one_error_line "sweep 1 is being run by process $pid on this host .* alive"
expect_rc 2 "$SPRBENCH" sweep --resume 1 --db "$DB"
expect_one_error_line "sweep 1 is already being run by process $pid on this host"
kill -9 $pid; wait $pid 2>/dev/null
if [ -n "$w" ]; then
  # the kernel sends the SIGTERM as the sweep dies: gone at once (the bound
  # is generous for a loaded machine; a worker nobody stops never goes)
  if gone_within "$w" 3; then ok; else fail "worker $w of the SIGKILLed sweep still runs"; kill -9 "$w" 2>/dev/null; fi
fi
# the holder is gone: unlock (and resume) may take it now
expect_rc 0 "$SPRBENCH" db unlock --sweep 1 --db "$DB"
expect_rc 0 "$SPRBENCH" sweep --resume 1 --db "$DB"
[ "$(q "SELECT COUNT(*) FROM point WHERE sweep_id=1 AND status='ok'")" -eq 2 ] && ok || fail "resume after SIGKILL"
[ "$(q "SELECT COUNT(*) FROM sample s JOIN point p ON p.id=s.point_id WHERE p.sweep_id=1")" -eq 10 ] && ok ||
  fail "SIGKILL + resume: each point exactly once"

# SIGHUP: handled as SIGTERM (point interrupted, sweep resumable, no worker left)
SPRBENCH_TEST_FAULT=hang:9 "$SPRBENCH" sweep "${common[@]}" --shapes 8x8x8,9x8x8 >"$T/h.out" 2>&1 &
pid=$!
wait_running 2 9
w=$(worker_of $pid)
kill -HUP $pid; wait $pid; rc=$?
[ $rc -eq 1 ] && ok || fail "SIGHUP sweep exit $rc, expected 1 (as SIGTERM)"
[ "$(q "SELECT status FROM point WHERE sweep_id=2 AND shape LIKE '9x%'")" = interrupted ] && ok ||
  fail "SIGHUP: the running point is not marked interrupted"
[ "$(q "SELECT status FROM sweep WHERE id=2")" = interrupted ] && ok || fail "SIGHUP: sweep not interrupted"
expect_grep 'resume with --resume 2' "$T/h.out"
if [ -n "$w" ]; then gone_within "$w" 3 && ok || { fail "SIGHUP left worker $w"; kill -9 "$w" 2>/dev/null; }; fi


# a --hostfile sweep leaves no temporary directory (its hosts.N were left,
# and with them the directory)
if command -v mpirun >/dev/null; then
  mkdir "$T/tmp"; echo "localhost slots=2" >"$T/hf"
  TMPDIR="$T/tmp" expect_rc 0 "$SPRBENCH" sweep "${common[@]}" --shapes 8x8x8 --hostfile "$T/hf"
  [ -z "$(ls -A "$T/tmp")" ] && ok || fail "a --hostfile sweep left $(ls -AR "$T/tmp" | tr '\n' ' ')"
fi

finish harness_sweep_owned
