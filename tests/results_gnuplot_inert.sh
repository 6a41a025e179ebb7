#!/bin/bash
# Results that cannot hurt: a database full of hostile text (an imported
# export whose host name, CPU model, microarchitecture, OS kernel, AMX
# reason, sweep label, GEMM kernel and shape hold backquoted commands, $(...),
# system("..."), @macros, quotes, backslashes, |pipes, ;!shell lines, %
# formats, markup and newlines; scaling points added with SQL), drawn by
# `sprbench plot` and `sprbench report`, also into --out directories named
# like commands and pipes. Every command in the text would create a file
# named ran-*: none may appear. The commands succeed, the plots exist, the
# hostile text is shown literally (escaped for SVG, HTML, Markdown), and
# every script sprbench sent to gnuplot passes the independent checker of
# fuzz/fuzz_gnuplot.c ($SB_GP_CHECK).
. "$SB_SOURCE_DIR/tests/lib.sh"
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
command -v gnuplot >/dev/null || { echo "gnuplot not found: skipped"; exit 77; }
cd "$T"

# gnuplot as sprbench runs it, but each script it is sent is kept for the checker
mkdir scripts
cat >gp <<EOF
#!/bin/bash
n=\$(ls "$T/scripts" | wc -l)
cat >"$T/scripts/\$n.gp"
exec gnuplot "\$@" <"$T/scripts/\$n.gp"
EOF
chmod +x gp
export SB_GNUPLOT="$T/gp"

expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1,2 --shapes 16x16x16,24x24x24 \
  --reps 4 --no-peak --db a.db --label plain
expect_rc 0 "$SPRBENCH" db export --db a.db --out a.json

# The hostile machine: the same measurements under another fingerprint. The
# expected renderings are written beside it: e_* as gnuplot's SVG shows the
# text (newlines as spaces, & and < escaped), md_*/html_* as the report does.
python3 - <<'PY' || fail "could not build the hostile export"
import json, uuid
def P(tag, short=False):
    if short:
        return (f"`touch ran-{tag}-bq` system(\"touch ran-{tag}-sys\") |touch ran-{tag}-p "
                f"%s 5% @x 'q' \"d\" <&\nz")
    # it starts with a quote and holds doubled ones: gnuplot 5.4 read the
    # single-quoted literals of before as several (issue 25); and it closes a
    # quote to call system() if a template put it inside one
    extra = ".system(\"touch ran-dot\")# [c](javascript:x) ![x](http://evil/x.png) \u202e_e_ " \
        if tag == 'host' else ""
    return (f"'{tag}'''' {extra}"
            f"`touch ran-{tag}-bq` $(touch ran-{tag}-sh) system(\"touch ran-{tag}-sys\") @x 'q' "
            f"\"dq\" \\ |touch ran-{tag}-pipe; !touch ran-{tag}-bang\n%s 100% <b>&amp; {{/Symbol a}}_x")
d = json.load(open('a.json'))
m = d['machines'][0]
fp = 'badc0ffee0000001'
m.update(fingerprint=fp, hostname=P('host'), cpu_model=P('cpu'), microarch=P('ua', True),
         kernel=P('oskernel'), amx_reason=P('amx'), vendor="`touch ran-v`|x'")
for s in d['sweeps']:
    s.update(uuid=uuid.uuid4().hex, machine=fp, label=P('label'))
kern = P('kern', True)
for p in d['points']:
    p.update(uuid=uuid.uuid4().hex, sweep=d['sweeps'][0]['uuid'], machine=fp, kernel=kern)
json.dump(d, open('h.json', 'w'))
# one shape keeps its name (the title then holds only the machine), one does
# not: an import refuses a shape outside the grammar, so this one goes in by
# SQL below, as an older or another tool's database could hold it
open('shape_suffix', 'w').write(P('shape'))
svg = lambda s: s.replace('\n', ' ').replace('\u202e', '').replace('&', '&amp;').replace('<', '&lt;')
# a vendor no table knows keeps its stored name, with the AMX state
amx = {1: ' (AMX)', 0: ' (no AMX)'}.get(m.get('amx_os_permitted'), '')
machine = f"{m['hostname']}: {m['cpu_model']} ({m['microarch']}{amx}, {m['cores']} cores)"
assert len(machine.encode()) < 511   # plot titles keep 511 bytes of it
open('e_kern', 'w').write('<text>' + svg(kern) + '</text>')
open('e_machine', 'w').write('<text>' + svg(machine) + '</text>')
open('e_shape', 'w').write('<text>' + svg('GEMM 24x24x24:NN' + P('shape')) + '</text>')
def mdesc(t):
    o = []
    for i, c in enumerate(t):
        nx = t[i + 1] if i + 1 < len(t) else ''
        pv = t[i - 1] if i else ''
        if c in '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069':
            o.append('[U+%04X]' % ord(c)); continue
        esc = c in '\\`*|<>~&' or (c == '_' and not (pv.isalnum() and nx.isalnum())) \
            or (c == ']' and nx in ('(', '[', ':')) or (c == '[' and nx == ']')
        o.append(('\\' if esc else '') + (' ' if c in '\r\n' else c))
    return ''.join(o)
md = mdesc(m['hostname'])
html = m['hostname'].replace('\u202e', '[U+202E]').replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;').replace('"', '&quot;')
open('md_host', 'w').write(md)
open('html_host', 'w').write(html)
PY
expect_rc 0 "$SPRBENCH" db import --db h.db a.json h.json
expect_grep '^h.json: 4 point\(s\) added' out

# Scaling points of the hostile machine (bound parameters: the text goes in as is).
SCALING=$(python3 - <<'PY'

import sqlite3
db = sqlite3.connect('h.db')
mid = db.execute("SELECT id FROM machine WHERE fingerprint = 'badc0ffee0000001'").fetchone()[0]
db.execute("UPDATE point SET shape = shape || ? WHERE machine_id = ? AND shape LIKE '24x%'",
           (open('shape_suffix').read(), mid))
k = "`touch ran-sk-bq` system(\"touch ran-sk-sys\") |touch ran-sk-p %s @x 'q' \"d\" <&\nz"
cur = db.execute("INSERT INTO sweep (uuid, label, workload, machine_id, status)"
                 " VALUES ('5ca1000000000000000000000000000b', ?, 'train', ?, 'done')",
                 ("scaling `touch ran-sl`", mid))
sweep = cur.lastrowid
for i, (nodes, step, epoch) in enumerate(((1, 1.0, 1384.0), (2, 1.1, 761.2), (4, 1.2, 415.2))):
    pid = db.execute("INSERT INTO point (uuid, sweep_id, seq, workload, kernel, dtype, shape, threads,"
                     " ppn, nodes, status, machine_id, result_json) VALUES (?, ?, ?, 'train', ?, 'bf16',"
                     " 'model=tiny', 1, 2, ?, 'ok', ?, '{}')",
                     ('5ca1%028x' % (i + 1), sweep, i, k, nodes, mid)).lastrowid
    for name, v in (('step_seconds', step), ('epoch_seconds', epoch), ('tokens_per_s', 100.0 * nodes)):
        db.execute("INSERT INTO metric (point_id, name, value, projected) VALUES (?, ?, ?, 0)", (pid, name, v))
    for rep in range(5):
        db.execute("INSERT INTO sample (point_id, rep, seconds) VALUES (?, ?, ?)", (pid, rep, step))
db.commit()
print(sweep)
PY
)
[ -n "$SCALING" ] && ok || fail "could not add the scaling points"

# Inference points of the hostile machine: a hostile kernel at two batches and
# a hostile precision, with every metric the inference figures draw.
INFER=$(python3 - <<'PY'
import sqlite3
db = sqlite3.connect('h.db')
mid = db.execute("SELECT id FROM machine WHERE fingerprint = 'badc0ffee0000001'").fetchone()[0]
k = "`touch ran-ik-bq` system(\"touch ran-ik-sys\") |touch ran-ik-p %s @x 'q' \"d\" <&\nz"
dt = "`touch ran-idt-bq` %s 'q'\n|x"
sweep = db.execute("INSERT INTO sweep (uuid, label, workload, machine_id, status)"
                   " VALUES ('1f0e0000000000000000000000000001', ?, 'infer', ?, 'done')",
                   ("infer `touch ran-il`", mid)).lastrowid
for i, (kernel, dtype, batch) in enumerate(((k, 'int8', 1), (k, 'int8', 4), ('scalar-f32', dt, 1))):
    pid = db.execute("INSERT INTO point (uuid, sweep_id, seq, workload, kernel, dtype, shape, config,"
                     " threads, ppn, nodes, status, machine_id, result_json) VALUES (?, ?, ?, 'infer',"
                     " ?, ?, ?, '{}', 1, 1, 1, 'ok', ?, '{}')",
                     ('1f0e%028x' % (i + 1), sweep, i, kernel, dtype, 'model=tiny batch=%d' % batch,
                      mid)).lastrowid
    for name, v in (('sequences_per_s', 10.0 * batch), ('tokens_per_s', 320.0 * batch),
                    ('latency_p50_ms', 5.0), ('latency_p90_ms', 6.0), ('latency_p99_ms', 8.0),
                    ('em', 50.0), ('f1', 60.0), ('f32_agreement_pct', 90.0)):
        db.execute("INSERT INTO metric (point_id, name, value, projected) VALUES (?, ?, ?, 0)", (pid, name, v))
    for rep in range(6):
        db.execute("INSERT INTO sample (point_id, rep, seconds) VALUES (?, ?, ?)", (pid, rep, batch / 10.0))
db.commit()
print(sweep)
PY
)
[ -n "$INFER" ] && ok || fail "could not add the inference points"

# plot: every sweep, with the hostile machine in each title and legend
expect_rc 0 "$SPRBENCH" plot --db h.db --sweep 2 --out p2
# two shapes x (throughput, speedup) x (png, svg, gp, dat)
[ "$(wc -l <out)" -eq 16 ] && ok || fail "plot of sweep 2: expected 16 files, got $(wc -l <out)"
# the script written beside each image is the one gnuplot was sent, under a
# comment: as inert; its data file holds numbers only
mkdir kept
for f in p2/*.gp; do grep -v '^#' "$f" >"kept/$(basename "$f")"; done
if [ -n "${SB_GP_CHECK:-}" ]; then
  "$SB_GP_CHECK" --check kept/*.gp >kept.out 2>&1 && ok ||
    { fail "a script written beside a figure fails the checker:"; head -5 kept.out >&2; }
fi
! grep -hv '^#' p2/*.dat | grep -qvE '^(-?[0-9.e+-]+|NaN)( (-?[0-9.e+-]+|NaN))*$|^$' && ok ||
  fail "a .dat file holds something other than numbers"
expect_grep 'throughput-16x16x16_NN.svg' out
F=p2/throughput-16x16x16_NN.svg
grep -qF -- "$(cat e_kern)" "$F" && ok || fail "the kernel name is not shown literally in $F"
grep -qF -- "$(cat e_machine)" "$F" && ok || fail "the machine is not shown literally in $F"
F=$(ls p2/throughput-24x24x24_NN*.svg 2>/dev/null | head -1)
[ -n "$F" ] && grep -qF -- "$(cat e_shape)" "$F" && ok || fail "the hostile shape is not shown literally"
# each saved script draws again with gnuplot alone, in a fresh directory,
# running nothing (a NAME.gp is as inert as its image)
mkdir redraw
for f in p2/*.gp; do
  (cd redraw && gnuplot "../$f" >img.png 2>gp.err) && [ -s redraw/img.png ] && ok ||
    fail "$f does not draw again: $(head -2 redraw/gp.err)"
done
[ "$(ls redraw)" = "$(printf 'gp.err\nimg.png')" ] && ok || fail "redrawing created files: $(ls redraw)"
expect_rc 0 "$SPRBENCH" plot --db h.db --sweep $SCALING --out p3
for f in scaling-nodes.png scaling-nodes.svg scaling-ranks.svg; do
  [ -s "p3/$f" ] && ok || fail "p3/$f missing"
done
grep -qF 'ran-sk-bq` system("touch ran-sk-sys") |touch ran-sk-p %s @x '"'q'"' "d" &lt;&amp; z, 2 rank(s)/node' \
  p3/scaling-nodes.svg && ok || fail "the scaling legend is not shown literally"
expect_rc 0 "$SPRBENCH" plot --db h.db --sweep $INFER --out p4
for f in latency.png latency.svg accuracy.png accuracy.svg throughput-model_tiny_batch_4.svg; do
  [ -s "p4/$f" ] && ok || fail "p4/$f missing"
done
grep -qF 'ran-ik-bq` system("touch ran-ik-sys") |touch ran-ik-p %s @x '"'q'"' "d" &lt;&amp; z' \
  p4/latency.svg && ok || fail "the hostile kernel is not shown literally in the latency legend"
grep -qF "ran-idt-bq\` %s 'q' |x" p4/accuracy.svg && ok || fail "the hostile precision is not shown literally"

# report: the hostile machine as the candidate, plots on, a hostile title
TITLE=$'Report `touch ran-title-bq` $(touch ran-title-sh) system("touch ran-title-sys") %s\n|touch ran-title-p'
expect_rc 0 "$SPRBENCH" report --db h.db --baseline 1 --candidate badc0ffee0000001 --out rep \
  --title "$TITLE"
expect_grep '^wrote rep/report.md and rep/report.html \([0-9]+ table rows, [2-9] plots' out
[ -s rep/gemm.png ] && [ -s rep/scaling1.png ] && ok || fail "report plots missing"
# the hostile machine's inference points: the section and its charts, labels inert
[ -s rep/infer.png ] && [ -s rep/infer-latency.png ] && ok || fail "report inference charts missing"
grep -qF 'ran-ik-bq\` system("touch ran-ik-sys") \|touch ran-ik-p %s @x '"'q'"' "d" \<\& z | int8 | model=tiny batch=4 |' \
  rep/report.md && ok || fail "the hostile kernel's inference row is not escaped as expected"
grep -qF -- "$(cat md_host)" rep/report.md && ok || fail "host name not escaped as expected in report.md"
# no live link, image or bidi control from the database (issue 25)
grep -qF '\](javascript' rep/report.md && ! grep -qE '(^|[^\\])\]\((javascript|http://evil)' rep/report.md && ok ||
  fail "a database text made a link or an image in report.md"
! grep -q $'\u202e' rep/report.md rep/report.html && ok || fail "a bidi control reached the report"
grep -qF -- "$(cat html_host)" rep/report.html && ok || fail "host name not escaped as expected in report.html"
grep -qF 'Report \`touch ran-title-bq\` $(touch ran-title-sh)' rep/report.md && ok || fail "title not in report.md"

# a title that is not UTF-8 is refused (one line, exit 2); a long one is cut
# between characters (699 bytes of 'a' then 'é': the cut falls inside it)
expect_rc 2 "$SPRBENCH" report --db h.db --baseline 1 --candidate 2 --out rept --title $'bad\xff'
expect_one_error_line '^sprbench report: --title: invalid UTF-8'
expect_rc 0 "$SPRBENCH" report --db h.db --baseline 1 --candidate 2 --out rept --no-plots \
  --title "$(printf 'a%.0s' $(seq 699))é"
python3 -c "open('rept/report.md', encoding='utf-8').read(); open('rept/report.html', encoding='utf-8').read()" &&
  ok || fail "a cut title made invalid UTF-8"

# --out: directories named like commands are just names; a pipe is a directory
D='o`touch ran-out-bq`$(touch ran-out-sh);touch ran-out-semi'
expect_rc 0 "$SPRBENCH" plot --db h.db --sweep 1 --out "$D"
[ -s "$D/throughput-16x16x16_NN.svg" ] && ok || fail "no plot in the directory named like a command"
expect_rc 0 "$SPRBENCH" plot --db h.db --sweep 1 --out '|touch ran-out-pipe'
[ -s '|touch ran-out-pipe/speedup-24x24x24_NN.png' ] && ok || fail "no plot in the directory named like a pipe"
expect_rc 0 "$SPRBENCH" report --db h.db --baseline 1 --candidate 2 --out '|touch ran-rep-pipe`touch ran-rep-bq`'
[ -s '|touch ran-rep-pipe`touch ran-rep-bq`/gemm.png' ] && ok || fail "no report plot in the pipe-named directory"
# a directory that cannot be made: exit 2, one line, even with a newline in the name
expect_rc 2 "$SPRBENCH" plot --db h.db --sweep 1 --out "|touch $T/ran-out-abs"
expect_one_error_line '^sprbench plot: .*cannot create directory'
expect_rc 2 "$SPRBENCH" plot --db h.db --sweep 1 --out $'no/such\n`touch ran-nl`'
expect_one_error_line '^sprbench plot: no/such\?`touch ran-nl`: cannot create directory'

# nothing ran; every script sent to gnuplot is inert by the checker's rules
RAN=$(find "$T" -name 'ran-*' | head -5)
[ -z "$RAN" ] && ok || fail "a command from the database or the command line ran: $RAN"
NS=$(ls scripts | wc -l)
[ "$NS" -ge 20 ] && ok || fail "expected >= 20 gnuplot scripts, saw $NS"
grep -lq 'ran-kern-bq' scripts/*.gp && grep -lq 'ran-host-bq' scripts/*.gp && ok ||
  fail "the hostile text never reached gnuplot: the test would prove nothing"
if [ -n "${SB_GP_CHECK:-}" ]; then
  "$SB_GP_CHECK" --check scripts/*.gp >check.out 2>&1 && ok ||
    { fail "a script sprbench sent to gnuplot fails the checker:"; head -5 check.out >&2; }
else
  echo "SB_GP_CHECK not set: the scripts were not checked"
fi
finish results_gnuplot_inert
