#!/usr/bin/env bash
# The layering rules of docs/ARCHITECTURE.md, checked on the sources: who may
# include whom, and <sqlite3.h> only inside harness/store/. A rule broken is a
# failure naming the file, the line and the rule.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
fail=0
bad() { echo "layout: $*" >&2; fail=1; }

# Where each project header lives (its folder); two headers of one name would
# make the map ambiguous, and the rules with it.
declare -A home
while IFS= read -r h; do
  name=${h##*/}
  [ -n "${home[$name]:-}" ] && bad "header $name exists twice: ${home[$name]} and ${h%/*}"
  home[$name]=${h%/*}
done < <(find kernels bench harness \( -name '*.h' -o -name '*.inc' -o -name '*.def' \) | sort)

# allowed FOLDER-PATTERNS for files under DIR (no exceptions: a header that two
# siblings share belongs a floor down)
check_dir() {
  local dir=$1 allowed=$2 f line inc where ok
  while IFS= read -r f; do
    while IFS= read -r line; do
      inc=${line#*:}
      inc=${inc#*\"}; inc=${inc%%\"*}
      where=${home[$inc]:-}
      if [ -z "$where" ]; then
        bad "$f:${line%%:*}: includes \"$inc\", which is not a header of the project"
        continue
      fi
      ok=0
      for a in $allowed; do
        case $where in $a) ok=1 ;; esac
      done
      [ $ok -eq 1 ] || bad "$f:${line%%:*}: includes $where/$inc ($dir may include: $allowed)"
    done < <(grep -n '^#include "' "$f")
  done < <(find "$dir" -name '*.[ch]' | sort)
}

check_dir kernels "kernels"
check_dir bench "bench bench/* kernels"
# run/, study/ and store/ see a workload through its row (bench/sb_workload.h)
# and bench/'s own headers, never a header of a workload's folder
# (bench/gemm, bench/distilbert, ...): what they need of it is the row's
check_dir harness/store "harness/store bench kernels"
check_dir harness/study "harness/study harness/store bench kernels"
check_dir harness/run "harness/run harness/store bench kernels"

# SQL lives in the store only.
while IFS= read -r hit; do
  case $hit in harness/store/*) ;; *) bad "$hit: <sqlite3.h> outside harness/store/" ;; esac
done < <(grep -rln '#include <sqlite3.h>' kernels bench harness)
# The connection behind the store's interface stays inside it (and the tests).
while IFS= read -r hit; do
  case $hit in harness/store/*) ;; *) bad "$hit: includes sb_db_internal.h outside harness/store/" ;; esac
done < <(grep -rl '#include "sb_db_internal.h"' kernels bench harness)
# kernels/ computes: no MPI, SQLite, hwloc or JSON there.
while IFS= read -r hit; do bad "$hit: kernels/ includes a library it must not"; done < \
  <(grep -rlE '#include <(mpi|sqlite3|hwloc|jansson)\.h>' kernels)

# The size limits: no function under harness/ over 150 lines, no file under
# harness/study/ over 800, no harness/cmd_*.c over 300, none under kernels/,
# bench/ or harness/ over 1,000 (tests/code_limits.py counts them).
if [ -f tests/code_limits.py ]; then
  python3 tests/code_limits.py . >/dev/null 2>"${TMPDIR:-/tmp}/limits.$$" || {
    while IFS= read -r l; do bad "${l#limits: }"; done <"${TMPDIR:-/tmp}/limits.$$"; }
  rm -f "${TMPDIR:-/tmp}/limits.$$"
fi

# A command's options are rows of its table (harness/sb_cli.h sb_cli_opts
# over bench/sb_opts.h), never a getopt loop of its own: one place says how
# an option is parsed, given twice, or unknown.
while IFS= read -r hit; do
  bad "${hit%%:*}:$(cut -d: -f2 <<<"$hit"): getopt_long in a command (its options go on the table: sb_cli_opts)"
done < <(grep -nE '\bgetopt_long[[:space:]]*\(' harness/cmd_*.c)

# The report is computed, then drawn: its sections read the model its load
# step filled (study/sb_report_model.c), never the store.
while IFS= read -r hit; do
  bad "$hit: the report reads the store while it draws (sb_db_* outside sb_report_model.c)"
done < <(grep -nE '\bsb_db_[a-z_]+\(' harness/study/sb_report*.c | grep -v '^harness/study/sb_report_model\.c:' | cut -d: -f1,2)

# No report section, figure or gate names a workload or a kernel by a
# literal (#45): they ask a workload's row for its capabilities (SB_WL_*) and
# fields (bench/sb_workload.h) and the kernel registry for a kernel's
# (kernels/sb_kernel_caps.h). The names come from the tables themselves
# (bench/sb_workloads.def, kernels/sb_kernels.def: a kernel by its family,
# "amx-", "onednn-"); comment lines do not count.
wl_names=$(sed -n 's/^SB_WORKLOAD(\([a-z0-9_]*\),.*/\1/p' bench/sb_workloads.def | paste -sd'|')
kn_families=$({ sed -n 's/^SB_KERNEL_OWN([a-z0-9_]*, *"\([a-z0-9]*\)-.*/\1/p' kernels/sb_kernels.def
  sed -n 's/^SB_KERNEL_LIB(\([a-z0-9]*\)_.*/\1/p' kernels/sb_kernels.def; } | sort -u | paste -sd'|')
if [ -n "$wl_names" ] && [ -n "$kn_families" ]; then
  while IFS= read -r hit; do
    bad "$hit: names a workload or kernel by a literal (ask its row's capability or field, or the kernel registry)"
  done < <(grep -nE "\"($wl_names)\"|\"($kn_families)-" harness/study/*.c |
    grep -vE '^[^:]+:[0-9]+:[[:space:]]*(\*|/\*|//)' | cut -d: -f1,2)
else
  bad "bench/sb_workloads.def or kernels/sb_kernels.def: no workload or kernel names read"
fi

# No include loop between modules (a module: a .c and the headers of its
# stem, a private sb_x_int.h or sb_x_internal.h counting as sb_x's), across
# kernels/, bench/ and harness/ (tests/include_loops.py finds them).
if [ -f tests/include_loops.py ]; then
  python3 tests/include_loops.py . 2>"${TMPDIR:-/tmp}/loops.$$" || {
    while IFS= read -r l; do bad "${l#loops: }"; done <"${TMPDIR:-/tmp}/loops.$$"; }
  rm -f "${TMPDIR:-/tmp}/loops.$$"
fi

if [ $fail -eq 0 ]; then
  echo "layout: ok (${#home[@]} headers; kernels, bench, harness/run, study and store within their rules; harness/ functions <= 150 lines, study/ files <= 800, cmd_*.c files <= 300 and on the option table, kernels/, bench/ and harness/ files <= 1000; no include loop between modules; the report's sections read its model; no literal workload or kernel name in study/)"
fi
exit $fail
