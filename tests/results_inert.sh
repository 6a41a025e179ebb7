#!/bin/bash
# Nothing a database stores is obeyed, nothing forged passes: a label, host
# name, kernel name or failure reason holding a newline and a workflow
# command (::stop-commands::, ::error::, ::add-mask::, ##[set-output]), an
# escape sequence, U+FFFE or invalid UTF-8 is shown inert on every output of
# gate (table, --json, JUnit, annotations, step summary), db (listings,
# --json, log) and report; a baseline that holds the candidate's own sweep
# (a copy, a hard link, the same file) is refused by content; and a gate
# that could not write an output exits 2, never 1 (a FAIL).
. "$SB_SOURCE_DIR/tests/lib.sh"
W="$T/work"
mkdir "$W" && cd "$W" || exit 1
command -v sqlite3 >/dev/null || skip "sqlite3 not found"
SW=(--kernels scalar-f32 --threads 1 --shapes 16x16x16 --reps 8 --no-peak)
expect_rc 0 "$SPRBENCH" sweep --db t.db "${SW[@]}" --label base
expect_rc 0 "$SPRBENCH" sweep --db t.db "${SW[@]}" --label cand
expect_rc 0 "$SPRBENCH" sweep --db t.db "${SW[@]}" --label third
# point 2 (the candidate's) failed with a reason that forges commands; the
# sweep labels, the host name and the kernel name carry more
sqlite3 t.db "UPDATE point SET status='failed', reason='x'||char(10)||'::stop-commands::tok1'||char(10)||'##[set-output name=verdict]PASS'||char(27)||']52;c;aGk='||char(7)||char(65534)||char(65535) WHERE id=2;
UPDATE sweep SET label='l'||char(10)||'::error::lab'||char(27)||'[31m' WHERE id=2;
UPDATE sweep SET label='##[set-output name=verdict]PASS' WHERE id=1;
UPDATE machine SET hostname='h'||char(10)||'::add-mask::x';
UPDATE point SET kernel='k'||char(13)||char(10)||'  ::warning::kern' WHERE id=3;" || fail "sqlite3"
sqlite3 t.db "UPDATE point_log SET stdout='ok'||char(10)||'::error::from-log'||char(10)||' ##[error]x' WHERE point_id=2;"

# inert FILE...: no line a runner would obey (a "::" starting a line other
# than the gate's own annotations, "##[" anywhere), no ESC/BEL, valid UTF-8
# without U+FFFE/U+FFFF
inert() {
  python3 - "$@" <<'EOF' || fail "obeyable output in $*"
import re, sys
bad = 0
for path in sys.argv[1:]:
    raw = open(path, 'rb').read()
    try:
        text = raw.decode('utf-8')
    except UnicodeDecodeError as e:
        print(f"{path}: invalid UTF-8: {e}"); bad = 1; continue
    for ch in ('\x1b', '\x07', '\ufffe', '\uffff', '\r'):
        if ch in text:
            print(f"{path}: holds {ch!r}"); bad = 1
    for line in text.split('\n'):
        s = line.lstrip()
        if '##[' in line or (s.startswith('::') and not re.match(r'::(error|warning) title=sprbench gate (FAIL|WARN)::', s)):
            print(f"{path}: obeyable line: {line!r}"); bad = 1
sys.exit(bad)
EOF
  ok
}

export GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$W/summary.md"
for args in "1 --baseline 1 --candidate 2" "1 --baseline 1 --candidate 2 --json" \
            "1 --baseline 1 --candidate 3 --cross-machine" "1 --baseline 3 --candidate 1 --json"; do
  # (1 against 3: point 3's kernel is renamed, the sides share no
  # configuration: nothing judged, exit 1 since #41, its line inert too)
  # shellcheck disable=SC2086
  set -- $args
  rc=$1; shift
  expect_rc "$rc" "$SPRBENCH" gate --db t.db "$@" --junit "$W/j.xml"
  cp "$T/out" out.txt; cp "$T/err" err.txt
  inert out.txt err.txt summary.md j.xml
  python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' j.xml && ok ||
    fail "JUnit is not XML ($args)"
done
# the table still says what failed, and the real annotation is there
expect_rc 1 "$SPRBENCH" gate --db t.db --baseline 1 --candidate 2
expect_grep 'FAIL .*candidate failed: x\?::stop-commands::tok1\?#\?\[set-output' "$T/out"
expect_grep '^::error title=sprbench gate FAIL::' "$T/err"
# --json: still one document, the text readable (##[ escaped as JSON, so the
# value reads back the same)
expect_rc 1 "$SPRBENCH" gate --db t.db --baseline 1 --candidate 2 --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "candidate failed" in d["rows"][0]["note"]' \
  "$T/out" && ok || fail "gate --json is not one document"
unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY

for sub in "sweeps" "sweeps --json" "points --sweep 2" "points --sweep 2 --json" "info" "log 2"; do
  # shellcheck disable=SC2086
  expect_rc 0 "$SPRBENCH" db $sub --db t.db
  cp "$T/out" out.txt; cp "$T/err" err.txt
  inert out.txt err.txt || echo "in db $sub"
done
"$SPRBENCH" db sweeps --db t.db --json >sweeps.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["sweeps"][0]["label"].startswith("##[set-output")' \
  sweeps.json && ok || fail "db sweeps --json lost the label"
expect_rc 0 "$SPRBENCH" report --db t.db --baseline 1 --candidate 2 --out rep --no-plots \
  --title "$(printf 't\x1b[2J\n::error::t')"
inert rep/report.md rep/report.html
expect_rc 0 "$SPRBENCH" report --db t.db --baseline 1 --candidate 2 --out rep2 --no-plots
inert rep2/report.md rep2/report.html

# self-comparison, refused by content: a copy, a hard link, the same file,
# and a database file that holds the candidate's sweep
cp t.db copy.db; ln t.db link.db
sqlite3 t.db "UPDATE point SET status='ok', reason=NULL WHERE id=2;"
cp t.db copy.db; rm -f link.db; ln t.db link.db
for pair in "copy.db t.db" "link.db t.db" "t.db 2" "copy.db 3" "t.db t.db"; do
  set -- $pair
  expect_rc 2 "$SPRBENCH" gate --db t.db --baseline "$1" --candidate "$2" --cross-machine
  expect_one_error_line "holds the candidate's (sweep|point) .*gated against itself"
done
# two different runs still gate (point 3's kernel is renamed: nothing judged)
expect_rc 1 "$SPRBENCH" gate --db t.db --baseline 1 --candidate 3 --cross-machine
expect_grep '^nothing judged: the sides share no configuration' "$T/out"

# an output that cannot be written is exit 2 with one line, not 1 (a FAIL)
expect_rc 2 "$SPRBENCH" gate --db t.db --baseline 1 --candidate 3 --cross-machine --junit /dev/full
expect_one_error_line 'cannot|write'
expect_rc 2 bash -c '"$0" gate --db t.db --baseline 1 --candidate 3 --cross-machine >/dev/full' "$SPRBENCH"
expect_one_error_line 'cannot write the verdict to stdout'
mkfifo fifo
expect_rc 2 timeout 20 env GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$W/fifo" \
  "$SPRBENCH" gate --db t.db --baseline 1 --candidate 3 --cross-machine
grep -q 'step summary' "$T/err" && ok || fail "FIFO summary: $(cat "$T/err")"


# numbers every reader multiplies in an int: an import whose ppn x nodes
# passes 2^20 ranks is refused (each alone is in range), and a database
# written by another program that holds one is refused by what reads it
expect_rc 0 "$SPRBENCH" db export --db t.db --out ex.json
python3 - <<'EOF'
import json
d = json.load(open("ex.json"))
for p in d["points"]:
    p["ppn"], p["nodes"] = 1 << 20, 1 << 20
json.dump(d, open("big.json", "w"))
d = json.load(open("ex.json"))
d["points"][0]["workload"] = "nosuch"
json.dump(d, open("badwl.json", "w"))
EOF
expect_rc 2 "$SPRBENCH" db import --db big.db big.json
expect_one_error_line 'ppn x nodes is 1099511627776 ranks, more than 1048576'
# db export --csv to stdout (where a runner reads it): the stored text keeps
# its line breaks inside quoted cells, but no line starts a workflow command,
# no "##[" and no ESC/BEL is left
expect_rc 0 "$SPRBENCH" db export --csv --db t.db --out -
python3 - "$T/out" <<'EOF' && ok || fail "db export --csv to stdout carries an obeyable line"
import re, sys
text = open(sys.argv[1], encoding='utf-8', errors='replace').read()
bad = [l for l in text.split('\n') if re.match(r'\s*::', l) or '##[' in l]
assert len(text.splitlines()) > 2, 'no points in the CSV'
sys.exit(1 if bad or '\x1b' in text or '\x07' in text else 0)
EOF
# the import names every workload the table knows (it named four, stale)
expect_rc 2 "$SPRBENCH" db import --db bad.db badwl.json
expect_one_error_line "workload: 'nosuch' is not one of gemm, train, .*infer.*stream"
cp t.db wide.db
sqlite3 wide.db "UPDATE point SET ppn = 1048576, nodes = 4096 WHERE id = 1;"
for sub in "points --sweep 1" "points --sweep 1 --json" "export --csv --out -"; do
  # shellcheck disable=SC2086
  expect_rc 2 "$SPRBENCH" db $sub --db wide.db
  expect_one_error_line 'ppn 1048576 x nodes 4096 is more than 1048576 ranks'
done


# no temporary directory is left: a two-database report killed with SIGTERM
# while it merges (a database of 1M samples makes the merge long enough)
mkdir tmp
cp t.db big.db
sqlite3 big.db "UPDATE point SET uuid = lower(hex(randomblob(16))); UPDATE sweep SET uuid = lower(hex(randomblob(16)));
WITH RECURSIVE c(i) AS (SELECT 100 UNION ALL SELECT i + 1 FROM c WHERE i < 1000099)
INSERT INTO sample(point_id, rep, seconds) SELECT 1, i, 0.001 FROM c;"
TMPDIR="$W/tmp" "$SPRBENCH" report --db big.db --db t.db --baseline 1 --candidate 2 --out rep3 \
  --no-plots >/dev/null 2>&1 &
pid=$!
for _ in $(seq 400); do compgen -G "$W/tmp/sprbench-report-*" >/dev/null && break; sleep 0.01; done
seen=$(compgen -G "$W/tmp/sprbench-report-*" | wc -l)
kill -TERM $pid 2>/dev/null; wait $pid; rc=$?
if [ "$seen" -ge 1 ] && [ $rc -eq 143 ]; then
  [ -z "$(ls -A tmp)" ] && ok || fail "SIGTERM during report left $(ls -A tmp)"
else
  echo "note: the report ended (exit $rc) before SIGTERM could reach its merge; not checked"
fi


# a references file naming one configuration and metric twice is refused
# (the point would be gated twice), naming both lines
fp=$(sqlite3 t.db "SELECT fingerprint FROM machine LIMIT 1")
printf '%s gemm scalar-f32 16x16x16 1 gflops 1.0 -50%% null\n* gemm avx2-f32 * * gflops 1.0 null null\n%s gemm scalar-f32 16x16x16 1 gflops 9.0 -5%% null\n' \
  "$fp" "$fp" >dup.ref
expect_rc 2 "$SPRBENCH" gate --db t.db --references dup.ref --candidate 3
expect_one_error_line '^sprbench gate: dup.ref:3: the same configuration and metric as line 1'

finish results_inert
