#!/usr/bin/env bash
# Examples that run as written: every `sprbench report|gate|plot|db` command
# README.md, docs/reference.md, results/machines/README.md and
# docs/examples/README.md show
# (tests/docs_commands.py finds them) runs, as written, in a directory set up
# as a reader's checkout with the records on file imported (the default
# database, machines.db, results/sprbench.db and ~/study.db each hold them).
# Each exits as documented: 0 (a gate 0 or 1, its verdict), or, for the few
# that show what to run on your own sweeps (a paired sweep, an inference
# sweep, a quick.db made by the sweep before it), 2 with the one line that
# names what the records lack: never an unknown option or an ambiguous name.
. "$(dirname "$0")/lib.sh"
SRC=${SB_SOURCE_DIR:?}
W="$T/w"
mkdir -p "$W/bin" "$W/build" "$W/results" "$W/home"
ln -s "$SRC/results/machines" "$W/results/machines"
ln -s "$SPRBENCH" "$W/bin/sprbench"
ln -s "$SPRBENCH" "$W/build/sprbench"
expect_rc 0 "$SPRBENCH" db import --db "$W/default.db" "$SRC"/results/machines/*.json
cp "$W/default.db" "$W/results/sprbench.db"
cp "$W/default.db" "$W/home/study.db"
cp "$W/default.db" "$W/machines.db"
# the commands that need sweeps the records do not hold: the exit and the
# line that says so
declare -A want=(
  ["build/sprbench plot --db quick.db --out quick-plots"]="2:quick.db: no such database"
  ["sprbench gate --paired --candidate ab.db"]="2:'ab.db' is neither a sweep"
  ["sprbench plot --sweep 3 --out figs --templates my-plots --y-scale linear"]="2:--templates my-plots: no throughput.gp"
  ["sprbench plot --history --kernel amx-bf16 --threads 56 --shape 1024x1024x1024:NN --out figs"]="2:no sweep on this machine has gflops for gemm amx-bf16"
  ["sprbench plot --sweep infer-zen4 --out figs"]="2:no sweep 'infer-zen4'"
  ["sprbench report --baseline infer-zen3 --candidate infer-zen4 --out report/"]="2:'infer-zen3' is neither a sweep"
  ["sprbench plot --sweep bw --out figs"]="2:no sweep 'bw'"
  ["sprbench report --baseline icelake-host --candidate spr-host --out report/"]="2:'icelake-host' is neither a sweep"
  ["sprbench gate --baseline baseline.db --candidate results/sprbench.db --junit gate.xml"]="2:'baseline.db' is neither a sweep"
  ["sprbench gate --baseline 1 --candidate 6 --history"]="2:ran on machine .*, the baseline .* never did"
)
python3 "$SRC/tests/docs_commands.py" "$SRC/README.md" "$SRC/docs/reference.md" \
  "$SRC/results/machines/README.md" "$SRC/docs/examples/README.md" >"$T/cmds" ||
  fail "docs_commands.py failed"
n=$(wc -l <"$T/cmds")
[ "$n" -ge 20 ] && ok || fail "only $n commands found in the docs"
# the records' own comparisons are among them
grep -q 'results/machines/emr-xeon-amx-b8-2026-12-01.json --out report/' "$T/cmds" && ok ||
  fail "results/machines/README.md's comparisons not found"
while IFS=$'\t' read -r file cmd; do
  (cd "$W" && PATH="$W/bin:$PATH" HOME="$W/home" SPRBENCH_DB="$W/default.db" \
    timeout 300 bash -o pipefail -c "$cmd" >"$T/out" 2>"$T/err" </dev/null)
  rc=$?
  exp=${want[$cmd]:-}
  if [ -n "$exp" ]; then
    if [ "$rc" -eq "${exp%%:*}" ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -qE -- "${exp#*:}" "$T/err"; then
      ok
    else
      fail "${file#$SRC/}: '$cmd' exited $rc, documented ${exp%%:*} with /${exp#*:}/"; head -3 "$T/err" >&2
    fi
  elif [ "$rc" -eq 0 ] || { [ "$rc" -eq 1 ] && [[ $cmd == *" gate "* ]]; }; then
    ok
  else
    fail "${file#$SRC/}: '$cmd' exited $rc"; head -3 "$T/err" >&2
  fi
done <"$T/cmds"
# docs/examples/ is what scripts/gen-examples writes with this binary: each
# of its reports, and nothing else
expect_rc 0 "$SRC/scripts/gen-examples" --sprbench "$SPRBENCH" --out "$T/ex"
for d in report-2threads report-amx report-synthetic; do
  [ -s "$T/ex/$d/report.md" ] && [ -s "$SRC/docs/examples/$d/report.md" ] && ok ||
    fail "docs/examples/$d: not written by scripts/gen-examples or not committed"
done
(cd "$SRC/docs/examples" && ls -d report-*/) | sed 's|/$||' >"$T/have"
(cd "$T/ex" && ls -d report-*/) | sed 's|/$||' >"$T/made"
cmp -s "$T/have" "$T/made" && ok || fail "docs/examples holds reports scripts/gen-examples does not write"
finish docs_commands
