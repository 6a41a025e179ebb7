#!/bin/bash
# No workflow command through a Unicode blank (#44): a GitHub runner trims
# every Unicode white space from the start of a line before it looks for
# "::", and its culture-aware comparisons skip the soft hyphen and the
# zero-width characters, inside "::" and "##[" too. Stored and foreign text
# that holds them (a worker's log, an imported export's kernel names,
# labels, host names and reasons) is shown with such commands defused on
# every output: db log, db points / sweeps / info, db export (CSV to
# stdout, JSON), report, gate and a resumed sweep's summary table.
. "$SB_SOURCE_DIR/tests/lib.sh"
W="$T/work"
mkdir "$W" && cd "$W" || exit 1
command -v sqlite3 >/dev/null || skip "sqlite3 not found"

# the white space a runner trims, then the invisible characters, as the
# decimal code points sqlite3's char() takes
SPACES="160 5760 8192 8193 8194 8195 8196 8197 8198 8199 8200 8201 8202 8232 8233 8239 8287 12288"
INVISIBLE="173 8203 8204 8205 8288 65279 6158"

# inert FILE...: no line a runner would obey: after the invisible
# characters are taken out, a line (LF or CR ends one) whose start, past
# Unicode white space, is "::" (other than the gate's own annotations), or
# that holds "##["
inert() {
  if python3 - "$@" <<'EOF'
import re, sys
invisible = set('\u00ad\u200b\u200c\u200d\u200e\u200f\u2060\ufeff\u180e\u034f\u061c')
invisible |= {chr(c) for c in range(0x202a, 0x202f)} | {chr(c) for c in range(0x2061, 0x2070)}
bad = 0
for path in sys.argv[1:]:
    text = open(path, encoding='utf-8', errors='replace').read()
    for line in re.split('[\r\n]', text):
        s = ''.join(c for c in line if c not in invisible)
        head = s.lstrip(' \t\v\f\x85\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006'
                        '\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000')
        if '##[' in s or (head.startswith('::') and
                          not re.match(r'::(error|warning) title=sprbench gate (FAIL|WARN)::', head)):
            print(f"{path}: obeyable line: {line!r}"); bad = 1
sys.exit(bad)
EOF
  then ok; else fail "obeyable output in $*"; return 1; fi
}

SW=(--kernels scalar-f32 --threads 1 --shapes 16x16x16,24x24x24 --reps 8 --no-peak)
expect_rc 0 "$SPRBENCH" sweep --db t.db "${SW[@]}" --label base
expect_rc 0 "$SPRBENCH" sweep --db t.db "${SW[@]}" --label cand

# --- db log: a worker's output with each blank, alone and repeated, before
# "::", after a CR inside a line, and each invisible character inside "::"
# and "##["
log="'ok'"
for cp in $SPACES $INVISIBLE; do
  log="$log||char(10)||char($cp)||'::add-mask::one$cp'"
  log="$log||char(10)||char($cp,$cp,$cp)||' '||char($cp)||'::error::many$cp'"
  log="$log||char(13)||char($cp)||'::warning::cr$cp'"
done
for cp in $INVISIBLE; do
  log="$log||char(10)||':'||char($cp)||':stop-commands::in$cp'"
  log="$log||char(10)||'x #'||char($cp)||'#[set-output name=v]hash$cp'"
  log="$log||char(10)||'##'||char($cp,$cp)||'[error]end$cp'"
done
sqlite3 t.db "UPDATE point_log SET stdout=$log WHERE point_id=1;" || fail "sqlite3"
expect_rc 0 "$SPRBENCH" db log 1 --db t.db
cp "$T/out" log.txt
inert log.txt
# every line is still shown
n=$(grep -cE '(one|many|in|hash|end)[0-9]+(\^M.*)?$' log.txt)
[ "$n" -eq 71 ] && ok || fail "db log shows $n of the 71 crafted lines"

# --- an imported export whose names start with a blank and a command
expect_rc 0 "$SPRBENCH" db export --db t.db --out ex.json
python3 - "$SPACES" "$INVISIBLE" <<'EOF' || fail "crafting the export"
import json, sys
d = json.load(open("ex.json"))
cps = [int(c) for c in sys.argv[1].split()] + [int(c) for c in sys.argv[2].split()]
inv = [int(c) for c in sys.argv[2].split()]
for i, p in enumerate(d["points"]):
    c = chr(cps[i % len(cps)])
    p["kernel"] = c + "::add-mask::kern%d" % i
    if p.get("reason") is None and p["status"] == "ok":
        p["status"], p["reason"] = "failed", "r\n" + c * 2 + "::stop-commands::tok%d" % i
for i, s in enumerate(d["sweeps"]):
    s["label"] = chr(cps[-1 - i]) + "::error::label%d #%s#[set-output name=v]x" % (i, chr(inv[i]))
for i, m in enumerate(d.get("machines", [])):
    m["hostname"] = "\u3000::add-mask::host%d" % i
json.dump(d, open("crafted.json", "w"), ensure_ascii=False)
EOF
expect_rc 0 "$SPRBENCH" db import --db imp.db crafted.json
for sub in "sweeps" "sweeps --json" "points --sweep 1" "points --sweep 2 --json" "info" \
           "export --csv --out -" "log 1"; do
  # shellcheck disable=SC2086
  expect_rc 0 "$SPRBENCH" db $sub --db imp.db
  cp "$T/out" out.txt; cp "$T/err" err.txt
  inert out.txt err.txt || echo "  in db $sub"
done
# the text is kept: the CSV still names each kernel, the JSON reads back
expect_rc 0 "$SPRBENCH" db export --csv --db imp.db --out -
n=$(grep -c 'add-mask::kern' "$T/out")
[ "$n" -eq 4 ] && ok || fail "db export --csv names $n of the 4 kernels"
expect_rc 0 "$SPRBENCH" db sweeps --db imp.db --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "#\u00ad#[set-output" in d["sweeps"][0]["label"]' \
  "$T/out" && ok || fail "db sweeps --json changed the label"
expect_rc 0 "$SPRBENCH" report --db imp.db --baseline 1 --candidate 2 --out rep --no-plots
inert rep/report.md rep/report.html
export GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$W/summary.md"
"$SPRBENCH" gate --db imp.db --baseline 1 --candidate 2 --junit j.xml >out.txt 2>err.txt
[ $? -le 1 ] && ok || fail "gate on the imported sweeps: $(head -3 err.txt)"
inert out.txt err.txt summary.md j.xml
"$SPRBENCH" gate --db imp.db --baseline 1 --candidate 2 --json >out.txt 2>err.txt
inert out.txt err.txt
unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY

# --- a resumed sweep's summary table: a stored point's kernel name starts
# with NBSP and ::add-mask::
cp t.db res.db
sqlite3 res.db "PRAGMA foreign_keys=ON; DELETE FROM point WHERE id=2; UPDATE sweep SET status='interrupted' WHERE id=1;
UPDATE point SET kernel=char(160)||'::add-mask::secret' WHERE id=1;" || fail "sqlite3"
expect_rc 0 "$SPRBENCH" sweep --resume 1 --db res.db
cp "$T/out" out.txt; cp "$T/err" err.txt
inert out.txt err.txt
LC_ALL=C expect_grep "^$(printf '\302\240'):\\?add-mask::secret +16x16x16" out.txt

finish results_inert_unicode
