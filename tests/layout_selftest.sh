#!/usr/bin/env bash
# tests/layout.sh must catch what it is there for: a copy of the sources with
# one rule broken at a time fails, naming the file; the copy as it is passes.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fresh() {
  rm -rf "$tmp/t" && mkdir -p "$tmp/t/tests" &&
    cp -r "$src/kernels" "$src/bench" "$src/harness" "$tmp/t/" &&
    cp "$src/tests/layout.sh" "$src/tests/code_limits.py" "$src/tests/include_loops.py" "$tmp/t/tests/"
}
expect() {   # expect RC WHAT-TO-FIND DESCRIPTION
  local out rc
  out=$(bash "$tmp/t/tests/layout.sh" 2>&1); rc=$?
  if [ "$rc" -ne "$1" ] || ! grep -q -- "$2" <<<"$out"; then
    echo "FAIL: $3 (exit $rc): $out" >&2; fails=$((fails + 1))
  else
    echo "ok: $3"
  fi
}
fresh; expect 0 "layout: ok" "the sources as they are"
fresh; sed -i '1i #include <sqlite3.h>' "$tmp/t/harness/study/sb_plot.c"
expect 1 "study/sb_plot.c: <sqlite3.h> outside harness/store/" "SQLite outside the store"
fresh; sed -i '1i #include "sb_sweep.h"' "$tmp/t/bench/sb_io.c"
expect 1 "bench/sb_io.c:1: includes harness/run/sb_sweep.h" "bench reaching up into harness"
fresh; sed -i '1i #include "sb_model.h"' "$tmp/t/kernels/sb_gemm.c"
expect 1 "kernels/sb_gemm.c:1: includes bench/distilbert/sb_model.h" "kernels reaching up into bench"
fresh; sed -i '1i #include "sb_cli.h"' "$tmp/t/harness/store/sb_db.c"
expect 1 "store/sb_db.c:1: includes harness/sb_cli.h" "the store including the CLI"
fresh; sed -i '1i #include "sb_report.h"' "$tmp/t/harness/run/sb_sweep.c"
expect 1 "run/sb_sweep.c:1: includes harness/study/sb_report.h" "run/ reaching sideways into study/"
fresh; sed -i '1i #include "sb_launch.h"' "$tmp/t/harness/study/sb_report.c"
expect 1 "study/sb_report.c:1: includes harness/run/sb_launch.h" "study/ reaching sideways into run/"
fresh; sed -i '1i #include "sb_db_internal.h"' "$tmp/t/harness/study/sb_gate.c"
expect 1 "sb_gate.c: includes sb_db_internal.h outside harness/store/" "the store's connection outside it"
fresh; sed -i '1i #include "sb_gemm_bench.h"' "$tmp/t/harness/run/sb_sweep.c"
expect 1 "run/sb_sweep.c:1: includes bench/gemm/sb_gemm_bench.h" "run/ reaching into a workload's folder"
fresh; sed -i '1i #include "sb_model.h"' "$tmp/t/harness/study/sb_gate.c"
expect 1 "study/sb_gate.c:1: includes bench/distilbert/sb_model.h" "study/ reaching into a workload's folder"
fresh; sed -i '1i #include "sb_allreduce.h"' "$tmp/t/harness/store/sb_db.c"
expect 1 "store/sb_db.c:1: includes bench/allreduce/sb_allreduce.h" "store/ reaching into a workload's folder"
fresh; python3 - "$tmp/t/harness/study/sb_gate.c" <<'PY'
import sys
p = sys.argv[1]
open(p, "a").write("int sb_layout_long(void);\nint sb_layout_long(void)\n{\n    int x = 0;\n" + "    x++;\n" * 160 + "    return x;\n}\n")
PY
expect 1 "harness/study/sb_gate.c:[0-9]*: a function of 16[0-9] lines (at most 150)" "a harness function over 150 lines"
fresh; for i in $(seq 1 820); do echo "/* filler */"; done >>"$tmp/t/harness/study/sb_gate.c"
expect 1 "harness/study/sb_gate.c: [0-9]* lines (a study/ file has at most 800)" "a study/ file over 800 lines"
fresh; sed -i '1i #include "sb_stackdiff.h"' "$tmp/t/harness/study/sb_envdiff.c"
sed -i '1i #include "sb_envdiff.h"' "$tmp/t/harness/study/sb_stackdiff.c"
expect 1 "an include loop between 2 modules: sb_envdiff sb_stackdiff (harness/study/sb_envdiff.c:1, harness/study/sb_stackdiff.c:1)" "two modules including each other"
fresh; sed -i '1i #include "sb_plot_int.h"' "$tmp/t/harness/study/sb_gnuplot_tmpl.c"
expect 1 "an include loop between [0-9]* modules: .*sb_gnuplot_tmpl sb_plot .*harness/study/sb_gnuplot_tmpl.c:1" "a loop through a module's private header"
fresh; printf 'static int sb_layout_peek(sb_db *db) { return sb_db_now_iso(0); }\n' >>"$tmp/t/harness/study/sb_report_gemm.c"
expect 1 "harness/study/sb_report_gemm.c:[0-9]*: the report reads the store while it draws" "a report section reading the store"
fresh; for i in $(seq 1 1010); do echo "/* filler */"; done >>"$tmp/t/harness/store/sb_query.h"
expect 1 "harness/store/sb_query.h: [0-9]* lines (a file under kernels/, bench/ or harness/ has at most 1000)" "a store/ file over 1,000 lines"
fresh; for i in $(seq 1 1010); do echo "/* filler */"; done >>"$tmp/t/bench/distilbert/sb_layers.c"
expect 1 "bench/distilbert/sb_layers.c: [0-9]* lines (a file under kernels/, bench/ or harness/ has at most 1000)" "a bench/ file over 1,000 lines"
fresh; for i in $(seq 1 1010); do echo "/* filler */"; done >>"$tmp/t/kernels/sb_gemm.c"
expect 1 "kernels/sb_gemm.c: [0-9]* lines (a file under kernels/, bench/ or harness/ has at most 1000)" "a kernels/ file over 1,000 lines"
fresh; for i in $(seq 1 310); do echo "/* filler */"; done >>"$tmp/t/harness/cmd_info.c"
expect 1 "harness/cmd_info.c: [0-9]* lines (a command file harness/cmd_\*.c has at most 300)" "a command file over 300 lines"
fresh; printf 'static int sb_layout_opts(int c, char **v) { return getopt_long(c, v, "h", NULL, NULL); }\n' >>"$tmp/t/harness/cmd_db.c"
expect 1 "harness/cmd_db.c:[0-9]*: getopt_long in a command" "a command parsing with getopt_long itself"
# a literal workload or kernel name in a report section, figure or gate (#45)
fresh; printf 'static int sb_layout_is_train(const char *w) { return !strcmp(w, "train"); }\n' >>"$tmp/t/harness/study/sb_report_profile.c"
expect 1 "harness/study/sb_report_profile.c:[0-9]*: names a workload or kernel by a literal" "a report section naming a workload"
fresh; printf 'static int sb_layout_is_amx(const char *k) { return !strncmp(k, "amx-", 4); }\n' >>"$tmp/t/harness/study/sb_report_amx.c"
expect 1 "harness/study/sb_report_amx.c:[0-9]*: names a workload or kernel by a literal" "a report section naming a kernel family"
[ $fails -eq 0 ]
