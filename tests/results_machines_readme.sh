#!/usr/bin/env bash
# results/machines/README.md's table says what the records say: their CPU,
# tool version, dates, OS kernel and software stack, as scripts/machines-readme
# writes it from the JSON exports. A table edited by hand, or a record added
# or changed without running the script, fails here.
. "$(dirname "$0")/lib.sh"
S="${SB_SOURCE_DIR:?}/scripts/machines-readme"
M="$SB_SOURCE_DIR/results/machines"
expect_rc 0 python3 "$S" --check "$M"
# the check can fail: a copy with one record's tool version changed
cp -r "$M" "$T/m"
f=$(ls "$T"/m/*.json | head -1)
python3 - "$f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["sweeps"]:
    s["tool_version"] = "feedbee-test"
json.dump(d, open(sys.argv[1], "w"))
PY
expect_rc 1 python3 "$S" --check "$T/m"
expect_grep 'the table is not what the records say' "$T/err"
expect_grep '^  \+\| .*\| feedbee-test \|' "$T/err"
# writing it brings the table in line, and nothing else of the README changes
cp "$T/m/README.md" "$T/before.md"
expect_rc 0 python3 "$S" "$T/m"
expect_rc 0 python3 "$S" --check "$T/m"
expect_grep "^\| $(basename "$f") \| .* \| feedbee-test \| " "$T/m/README.md"
[ "$(diff "$T/before.md" "$T/m/README.md" | grep -c '^[<>]')" -eq 2 ] && ok ||
  fail "more than the record's row changed: $(diff "$T/before.md" "$T/m/README.md")"
# a row edited by hand fails
sed -i 's/| feedbee-test |/| 1234567 |/' "$T/m/README.md"
expect_rc 1 python3 "$S" --check "$T/m"
# a record with a stack shows it; an older one says "not recorded"
python3 - "$f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["points"]:
    r = p.get("result_json")
    if isinstance(r, str):
        r = json.loads(r)
    if isinstance(r, dict):
        r["stack"] = {"compiler": "GNU 12.2.0", "build_type": "Release", "onednn": "3.2.0",
                      "mkl": "2026.2.1", "mpi": "Open MPI v4.1.4", "hypervisor": "KVM",
                      "threads_per_core": "2", "thp": "always"}
        p["result_json"] = r
json.dump(d, open(sys.argv[1], "w"))
PY
expect_rc 0 python3 "$S" "$T/m"
expect_grep "^\| $(basename "$f") \| .* \| compiler GNU 12\.2\.0; build Release; oneDNN 3\.2\.0; MKL 2026\.2\.1; MPI Open MPI v4\.1\.4; hypervisor KVM; threads per core 2; THP always; governor not readable; turbo not readable \|$" "$T/m/README.md"
expect_grep '\| not recorded \|$' "$T/m/README.md"
# a README without the markers is refused, not rewritten
printf '# no table\n' >"$T/m/README.md"
expect_rc 2 python3 "$S" "$T/m"
[ "$(cat "$T/m/README.md")" = "# no table" ] && ok || fail "a README without markers was changed"
finish results_machines_readme
