#!/bin/bash
# The store cannot be hurt and loses nothing, as a user meets it:
#  - the hostile exports of tests/fixtures/hostile (expect.tsv): each import
#    exits 2 with its one error line, creates no database where there was
#    none and leaves an existing one byte-identical;
#  - files that are not sprbench databases (another program's SQLite file,
#    rollback or WAL, a newer sprbench's, text, an empty file) given to
#    every command that takes --db: exit 2, one line naming the file, the file
#    byte-identical (sha256) and nothing created beside it;
#  - a database in a read-only directory, and one of an older schema, read
#    as they are;
#  - inputs that are missing create nothing (db import/merge, sweep --resume);
#  - sweeps: a label that breaks the text rules is refused before anything
#    is written; points never stored are derived again by --resume; two
#    resumes of one sweep at once: the second exits 2 naming the first; a
#    dead holder is taken over; each point's worker output is kept (db log).
# Every check looks at the exit code, the one stderr line, and that nothing
# in the work directory changed besides what the step made on purpose;
# temporary files go to a private TMPDIR that must stay empty.
. "$SB_SOURCE_DIR/tests/lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
command -v sha256sum >/dev/null || skip "sha256sum not found"
command -v sqlite3 >/dev/null || skip "sqlite3 not found"
HOSTILE="$SB_SOURCE_DIR/tests/fixtures/hostile"
W="$T/w"
mkdir -p "$W" "$T/tmp"
export TMPDIR="$T/tmp"
cd "$W"

# state SUFFIX: every name, type and content hash under the work directory
state() { (cd "$W" && find . -printf '%p %y %m\n' | sort && find . -type f -exec sha256sum {} + | sort -k2) >"$T/state.$1"; }
unchanged() {   # unchanged WHAT: the work directory is as state.before says
  state after
  if cmp -s "$T/state.before" "$T/state.after"; then ok; else
    fail "$1 changed the work directory:"; diff "$T/state.before" "$T/state.after" | head -8 >&2
  fi
  [ -z "$(ls -A "$TMPDIR")" ] && ok || { fail "$1 left temporary files: $(ls -A "$TMPDIR")"; rm -rf "${TMPDIR:?}"/*; }
}
py() { python3 - "$@"; }

# ---- a real sweep to start from ----
expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 16x16x16,24x24x24 \
  --reps 3 --no-peak --db a.db --label "base"
expect_rc 0 "$SPRBENCH" db export --db a.db --out a.json
cp "$SB_SOURCE_DIR/tests/fixtures/results/small_export.json" good.json

# ---- the hostile exports ----
n=0
while IFS=$'\t' read -r f pattern; do
  case $f in '#'*|'') continue ;; esac
  cp "$HOSTILE/$f" .
  state before
  expect_rc 2 "$SPRBENCH" db import --db fresh.db "$f"
  expect_one_error_line "^sprbench db: $f$pattern"
  [ ! -e fresh.db ] && ok || fail "$f: a refused import created fresh.db"
  # into an existing database, after a good file: nothing of either is written
  expect_rc 2 "$SPRBENCH" db import --db a.db good.json "$f"
  expect_one_error_line "^sprbench db: $f$pattern"
  unchanged "db import $f"
  n=$((n + 1))
done <"$HOSTILE/expect.tsv"
[ "$n" -ge 15 ] && ok || fail "only $n hostile exports found in $HOSTILE/expect.tsv"
ls "$HOSTILE"/*.json | while read -r f; do
  grep -q "^$(basename "$f")"$'\t' "$HOSTILE/expect.tsv" || echo "$f"
done >"$T/unlisted"
[ ! -s "$T/unlisted" ] && ok || fail "hostile files without an expectation: $(cat "$T/unlisted")"

# the good ones import, and twice adds nothing
expect_rc 0 "$SPRBENCH" db import --db fresh.db good.json
expect_grep '^good.json: 2 point\(s\) added' "$T/out"
rm -f fresh.db

# ---- files that are not sprbench databases ----
py <<'PY'
import sqlite3
c = sqlite3.connect('foreign.db'); c.execute('CREATE TABLE notes (x)')
c.execute("INSERT INTO notes VALUES ('keep me')"); c.commit(); c.close()
c = sqlite3.connect('foreign-wal.db'); c.execute('PRAGMA journal_mode=WAL')
c.execute('CREATE TABLE point (x)'); c.execute('PRAGMA user_version = 1'); c.commit(); c.close()
c = sqlite3.connect('newer.db'); c.execute('CREATE TABLE sweep (x)')
c.execute('PRAGMA user_version = 99'); c.commit(); c.close()
open('text.db', 'w').write('a text file, not a database of any kind ' * 4 + '\n')
open('empty.db', 'w').close()
PY
for f in foreign-wal.db newer.db; do [ ! -e $f-wal ] && ok || fail "$f: fixture kept a -wal"; done
expect_what() {
  case $1 in
    foreign.db) echo 'is not a sprbench database \(another program.s SQLite file: no sprbench schema version\)' ;;
    foreign-wal.db) echo 'is not a sprbench database \(another program.s SQLite file: the sprbench tables are missing\)' ;;
    newer.db) echo 'schema version 99 is newer than this sprbench' ;;
    text.db) echo 'is not a SQLite database' ;;
    empty.db) echo 'is empty, not a sprbench database' ;;
  esac
}
for f in foreign.db foreign-wal.db newer.db text.db empty.db; do
  what=$(expect_what $f)
  state before
  # the commands that only read
  for cmd in "db info" "db sweeps" "db points --sweep 1" "db log 1" "db export --out x.json" \
             "db export --csv --out x.csv"; do
    expect_rc 2 "$SPRBENCH" $cmd --db $f
    expect_one_error_line "^sprbench db: $f: $what"
  done
  expect_rc 2 "$SPRBENCH" db merge --db new.db $f
  expect_one_error_line "^sprbench db: $f: $what"
  [ ! -e new.db ] && ok || fail "db merge of $f created new.db"
  expect_rc 2 "$SPRBENCH" plot --db $f --out p
  expect_one_error_line "^sprbench plot: $f: $what"
  expect_rc 2 "$SPRBENCH" report --db $f --baseline 1 --candidate 2 --out r
  expect_one_error_line "^sprbench report: $f: $what"
  expect_rc 2 "$SPRBENCH" gate --db $f --baseline 1 --candidate 2
  expect_one_error_line "^sprbench gate: $f: $what"
  expect_rc 2 "$SPRBENCH" gate --baseline $f --candidate a.db
  expect_one_error_line "^sprbench gate: $f: "
  # and the commands that write: the file is not theirs to change
  if [ $f != empty.db ]; then
    expect_rc 2 "$SPRBENCH" db import --db $f good.json
    expect_one_error_line "^sprbench db: $f: $what"
    expect_rc 2 "$SPRBENCH" sweep --resume 1 --db $f
    expect_one_error_line "^sprbench sweep: $f: $what"
    expect_rc 2 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --reps 2 \
      --no-peak --db $f
    expect_one_error_line "^sprbench sweep: $f: $what"
  fi
  unchanged "the commands on $f"
done

# ---- missing inputs create nothing ----
state before
expect_rc 2 "$SPRBENCH" sweep --resume 999 --db missing.db
expect_one_error_line '^sprbench sweep: missing.db: no such database'
expect_rc 2 "$SPRBENCH" db import --db missing.db nosuch.json
expect_one_error_line '^sprbench db: nosuch.json: '
expect_rc 2 "$SPRBENCH" db merge --db missing.db nosuch.db
expect_one_error_line '^sprbench db: nosuch.db: no such database'
expect_rc 2 "$SPRBENCH" db info --db missing.db
expect_one_error_line '^sprbench db: missing.db: no such database'
# a sweep that does not exist, in a database that does: nothing written to it
expect_rc 2 "$SPRBENCH" sweep --resume 999 --db a.db
expect_one_error_line '^sprbench sweep: a.db: no sweep 999 to resume'
unchanged "missing inputs"

# ---- text the store refuses, before anything is written ----
state before
expect_rc 2 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --reps 2 --no-peak \
  --db lbl.db --label $'caf\xe9'
expect_one_error_line '^sprbench sweep: (--)?label: invalid UTF-8 at byte 3'
LONG=$(printf 'é%.0s' $(seq 300))
expect_rc 2 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --reps 2 --no-peak \
  --db lbl.db --label "$LONG"
expect_one_error_line '^sprbench sweep: .*label'
unchanged "refused labels"

# ---- reading without writing: an older schema, a read-only directory ----
cp a.db old.db
py <<'PY'
import sqlite3
# schema version 2 as an older sprbench left it: no point_log, no claim
# columns, no pairing
c = sqlite3.connect('old.db')
c.executescript('DROP TABLE point_pairing; ALTER TABLE sample DROP COLUMN side;'
                'ALTER TABLE sample DROP COLUMN pair;'
                'DROP TABLE point_log; ALTER TABLE sweep DROP COLUMN holder_pid;'
                'ALTER TABLE sweep DROP COLUMN holder_host; ALTER TABLE sweep DROP COLUMN holder_start;'
                'ALTER TABLE sweep DROP COLUMN holder_since; PRAGMA user_version = 2;')
c.close()
PY
state before
expect_rc 0 "$SPRBENCH" db info --db old.db
expect_grep '^schema     2 \(older' "$T/out"
expect_rc 0 "$SPRBENCH" db sweeps --db old.db
expect_grep 'base' "$T/out"
expect_rc 0 "$SPRBENCH" db points --db old.db --sweep 1
expect_grep 'scalar-f32 .* ok ' "$T/out"
expect_rc 0 "$SPRBENCH" db log 1 --db old.db
expect_grep '^no worker output kept' "$T/out"
expect_rc 0 "$SPRBENCH" db export --db old.db --out - --csv
expect_grep '^point_uuid,' "$T/out"
unchanged "reading an older schema"
expect_rc 0 "$SPRBENCH" db export --db old.db --out old.json
py <<'PY' || fail "the older schema's export differs from the current one's"
import json
a, b = json.load(open('a.json')), json.load(open('old.json'))
for p in a['points']: p.pop('log', None)
assert a['points'] == b['points'] and a['sweeps'] == b['sweeps'], 'export differs'
PY
ok

mkdir ro && cp a.db ro/a.db && cp a.db ro/b.db && chmod 644 ro/a.db ro/b.db
# b.db: another run of the same numbers (a plain copy is the same run)
sqlite3 ro/b.db "UPDATE sweep SET uuid = lower(hex(randomblob(16)));
  UPDATE point SET uuid = lower(hex(randomblob(16)));" || fail "sqlite3"
RUN_AS=()
SB_RO=$SPRBENCH
if [ "$(id -u)" = 0 ]; then
  # root writes anywhere: read as nobody so that the directory's mode counts
  command -v setpriv >/dev/null || skip "running as root without setpriv"
  RUN_AS=(setpriv --reuid 65534 --regid 65534 --clear-groups)
  chmod 755 "$T" "$W"
  # nobody may not read the checkout (a clone under /root is 0700): it gets
  # the binary and the plot templates as readable copies, as a user would
  # hand them to another account
  cp -r "$SB_SOURCE_DIR/plots" "$T/plots-ro" && cp "$SPRBENCH" "$T/sprbench-ro" &&
    chmod -R a+rX "$T/plots-ro" "$T/sprbench-ro" || fail "cannot copy for nobody"
  RUN_AS+=(env SPRBENCH_PLOTS="$T/plots-ro")
  SB_RO=$T/sprbench-ro
fi
chmod 555 ro
state before
for cmd in "db info" "db sweeps" "db points --sweep 1" "db log 1" "db export --csv --out -"; do
  expect_rc 0 "${RUN_AS[@]}" "$SB_RO" $cmd --db ro/a.db
done
expect_grep '^point_uuid,' "$T/out"
expect_rc 0 "${RUN_AS[@]}" "$SB_RO" gate --baseline ro/a.db --candidate ro/b.db --allow-nothing-judged
expect_grep ' 0 FAIL' "$T/out"
# a run gated against itself passes whatever it measured: refused
expect_rc 2 "${RUN_AS[@]}" "$SB_RO" gate --db ro/a.db --baseline 1 --candidate 1
expect_one_error_line "^sprbench gate: the baseline \(.*\) holds the candidate's sweep .*gated against itself"
expect_rc 2 "${RUN_AS[@]}" "$SB_RO" gate --baseline ro/a.db --candidate ro/../ro/a.db
mkdir -m 777 "$TMPDIR/plots" "$TMPDIR/report"
expect_rc 0 "${RUN_AS[@]}" "$SB_RO" report --db ro/a.db --baseline 1 --candidate 1 --out "$TMPDIR/report"
if command -v gnuplot >/dev/null; then
  expect_rc 0 "${RUN_AS[@]}" "$SB_RO" plot --db ro/a.db --sweep 1 --out "$TMPDIR/plots"
fi
rm -rf "${TMPDIR:?}"/*
# the writing commands refuse in one line, and write nothing
expect_rc 2 "${RUN_AS[@]}" "$SB_RO" db import --db ro/a.db good.json
expect_one_error_line '^sprbench db: ro/a.db: '
unchanged "reading in a read-only directory"
# a write-ahead log left there without its -shm: refused, not misread
chmod 755 ro && printf 'log' >ro/a.db-wal && chmod 555 ro
expect_rc 2 "${RUN_AS[@]}" "$SB_RO" db sweeps --db ro/a.db
expect_one_error_line '^sprbench db: ro/a.db: .*write-ahead log'
chmod 755 ro && rm -f ro/a.db-wal

# ---- sweeps: nothing lost on resume, one run at a time, output kept ----
# points never stored (the transaction that adds them failed): derived again
expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8,12x12x12 --reps 2 \
  --no-peak --db r.db --label lost
py <<'PY'
import sqlite3
c = sqlite3.connect('r.db'); c.execute('PRAGMA foreign_keys = ON')
c.execute('DELETE FROM point'); c.execute("UPDATE sweep SET status = 'running'"); c.commit(); c.close()
PY
expect_rc 0 "$SPRBENCH" sweep --resume 1 --no-peak --db r.db
expect_grep '^sweep 1: its points were never stored; derived again from its plan' "$T/out"
expect_grep '^sweep 1: 2 point\(s\) to run' "$T/out"
expect_rc 0 "$SPRBENCH" db sweeps --db r.db
expect_grep ' 2 \(2/0/0\)' "$T/out"

# two resumes of one sweep at once: the second is refused, naming the first
py <<'PY'
import sqlite3
c = sqlite3.connect('r.db')
plan = c.execute('SELECT plan FROM sweep WHERE id = 1').fetchone()[0]
plan = '\n'.join(l for l in plan.splitlines() if not l.startswith('reps')) + '\nmin-seconds = 30\n'
c.execute('UPDATE sweep SET plan = ? WHERE id = 1', (plan,))
# a point that takes its time (about 30 s of 384^3 scalar GEMMs) while the second resume tries
c.execute("UPDATE point SET status = 'pending', shape = '384x384x384:NN' WHERE seq = 0")
c.commit(); c.close()
PY
"$SPRBENCH" sweep --resume 1 --db r.db >"$T/first.out" 2>&1 &
first=$!
for _ in $(seq 300); do
  [ -n "$(sqlite3 r.db 'SELECT holder_pid FROM sweep WHERE id = 1' 2>/dev/null)" ] && break
  sleep 0.1
done
expect_rc 2 "$SPRBENCH" sweep --resume 1 --db r.db
expect_one_error_line "^sprbench sweep: sweep 1 is already being run by process $first on this host"
kill -INT $first
wait $first
[ "$(sqlite3 r.db 'SELECT COUNT(*) FROM sweep WHERE holder_pid IS NOT NULL')" = 0 ] && ok ||
  fail "the interrupted run kept its claim"
# a holder that died without letting go (SIGKILL) is taken over
"$SPRBENCH" sweep --resume 1 --db r.db >"$T/first.out" 2>&1 &
first=$!
for _ in $(seq 300); do
  [ -n "$(sqlite3 r.db 'SELECT holder_pid FROM sweep WHERE id = 1' 2>/dev/null)" ] && break
  sleep 0.1
done
# the worker it started is in a process group of its own: end it too, by its pid
children=$(pgrep -P $first || true)
kill -KILL $first
wait $first 2>/dev/null
for c in $children; do kill -KILL -- -"$c" 2>/dev/null || kill -KILL "$c" 2>/dev/null; done
rm -rf "${TMPDIR:?}"/*
sqlite3 r.db "UPDATE sweep SET plan = replace(plan, 'min-seconds = 30', 'reps = 2') WHERE id = 1"
expect_rc 0 "$SPRBENCH" sweep --resume 1 --no-peak --db r.db
expect_grep '^sweep 1: 1 point\(s\) to run' "$T/out"
# a holder on another host: refused with the way out, then released
sqlite3 r.db "UPDATE sweep SET holder_pid = 4242, holder_host = 'elsewhere', holder_since = 'then' WHERE id = 1"
expect_rc 2 "$SPRBENCH" sweep --resume 1 --db r.db
expect_one_error_line '^sprbench sweep: sweep 1 is being run by process 4242 on host elsewhere since then; .*db unlock --sweep 1'
expect_rc 0 "$SPRBENCH" db unlock --sweep 1 --db r.db
expect_grep '^sweep 1: released the claim of process 4242 on host elsewhere' "$T/out"
expect_rc 0 "$SPRBENCH" sweep --resume 1 --no-peak --db r.db
expect_grep '^sweep 1: 0 point\(s\) to run' "$T/out"

# each point's worker output: stdout of a run, stderr of a skip
expect_rc 0 "$SPRBENCH" db log 1 --db r.db
expect_grep '^--- stdout: [0-9]+ byte\(s\) ---' "$T/out"
expect_grep 'GFLOP/s' "$T/out"
expect_rc 0 env SB_FORCE_NO_AVX512=1 "$SPRBENCH" sweep --kernels avx512-f32 --threads 1 \
  --shapes 8x8x8 --reps 2 --no-peak --db s.db
expect_rc 0 "$SPRBENCH" db log 1 --db s.db
expect_grep '^sprbench gemm: kernel avx512-f32 cannot run on this machine' "$T/out"
ID=$(sqlite3 s.db 'SELECT substr(uuid, 1, 8) FROM point')
expect_rc 0 "$SPRBENCH" db log "$ID" --db s.db
expect_grep 'status skipped' "$T/out"
# a uuid prefix of digits only (1 sweep in 40 makes one): no point of that
# number, so the uuids are searched as well
sqlite3 s.db "UPDATE point SET uuid = '82506749' || substr(uuid, 9)"
expect_rc 0 "$SPRBENCH" db log 82506749 --db s.db
expect_grep 'status skipped' "$T/out"
expect_rc 2 "$SPRBENCH" db log 99 --db s.db
expect_one_error_line "^sprbench db: no point '99'"
expect_rc 2 "$SPRBENCH" db log --db s.db
expect_one_error_line '^sprbench db: log: name one point'
# ... and it travels with an export
expect_rc 0 "$SPRBENCH" db export --db s.db --out s.json
expect_rc 0 "$SPRBENCH" db import --db s2.db s.json
expect_rc 0 "$SPRBENCH" db log 1 --db s2.db
expect_grep '^sprbench gemm: kernel avx512-f32 cannot run on this machine' "$T/out"
expect_rc 0 "$SPRBENCH" db --help
expect_grep '^  db log POINT ' "$T/out"
finish results_store
