#!/bin/bash
# --save writes a directory Hugging Face's DistilBertForQuestionAnswering
# loads: config.json with the DistilBertConfig keys, and model.safetensors
# whose tensors load with strict=True into the same model built in PyTorch
# (tests/ref/torch_distilbert.py, the module tree of modeling_distilbert.py),
# and `sprbench predict` reads it back. Skipped without Debian's python3-torch.
set -u
B=${SPRBENCH:?}
SRC=${SB_SOURCE_DIR:?}
if ! /usr/bin/python3 -c "import torch" 2> /dev/null; then
    echo "skipped: python3-torch is not installed"
    exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$B" train --model tiny --synth-train 100 --batch 8 --seq 64 --stride 16 --max-steps 3 \
    --threads 2 --save "$T/ckpt" > /dev/null 2> "$T/err" || { cat "$T/err"; echo FAIL; exit 1; }
"$B" squad-synth --questions 20 --seed 3 --dev --lengths short --out "$T/dev.json" > /dev/null
"$B" predict --init "$T/ckpt" --data "$T/dev.json" --out "$T/ours.json" --seq 64 --stride 16 \
    > /dev/null || { echo "FAIL: predict"; exit 1; }
"$B" features --vocab /dev/null --data "$T/dev.json" > /dev/null 2>&1   # (not needed; keeps PATH simple)
/usr/bin/python3 - "$SRC" "$T" <<'PY'
import json, struct, sys
import numpy as np, torch
src, tmp = sys.argv[1], sys.argv[2]
sys.dont_write_bytecode = True
sys.path.insert(0, src + "/tests/ref")
from torch_distilbert import DistilBertForQuestionAnswering
cfg = json.load(open(tmp + "/ckpt/config.json"))
need = ["vocab_size", "dim", "n_layers", "n_heads", "hidden_dim", "max_position_embeddings",
        "model_type", "architectures"]
missing = [k for k in need if k not in cfg]
assert not missing, "config.json lacks %s" % missing
assert cfg["model_type"] == "distilbert" and "DistilBertForQuestionAnswering" in cfg["architectures"]
raw = open(tmp + "/ckpt/model.safetensors", "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
hdr = json.loads(raw[8:8 + n])
assert hdr.get("__metadata__", {}).get("format") == "pt", "metadata format pt missing"
state = {}
for name, t in hdr.items():
    if name == "__metadata__":
        continue
    assert t["dtype"] == "F32"
    b, e = t["data_offsets"]
    state[name] = torch.from_numpy(np.frombuffer(raw[8 + n + b:8 + n + e], dtype="<f4").copy()
                                   .reshape(t["shape"]))
m = DistilBertForQuestionAnswering(cfg["vocab_size"], cfg["dim"], cfg["n_layers"], cfg["n_heads"],
                                   cfg["hidden_dim"], cfg["max_position_embeddings"])
m.load_state_dict(state, strict=True)
print("ok   strict load of %d tensors into DistilBertForQuestionAnswering" % len(state))
PY
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: PyTorch could not load the saved model"; exit 1; }
echo "ok   saved model loads in PyTorch"
