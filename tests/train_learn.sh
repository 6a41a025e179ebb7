#!/bin/bash
# Learning: plain `sprbench train --model tiny --eval` (its defaults: the
# synthetic set size, sequence length, batch, epochs and learning rate for
# tiny) trains a tiny DistilBERT from scratch on squad-synth data and reaches
# EM >= 90 on the held-apart synthetic dev set.
set -u
B=${SPRBENCH:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$B" train --model tiny --eval --result-file "$T/r.json" > "$T/out" 2> "$T/err"
rc=$?
cat "$T/out"
tail -3 "$T/err"
[ $rc -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }
python3 - "$T/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = d["metrics"]
print("em %.2f f1 %.2f loss %.4f -> %.4f, %d steps" % (m["em"], m["f1"], m["loss_first"],
                                                       m["loss_final"], m["steps"]))
ok = d["status"] == "ok" and m["em"] >= 90 and m["projected"] == 0
print("ok: EM >= 90 on the held-apart dev set" if ok else "FAIL: EM below 90")
sys.exit(0 if ok else 1)
PY
