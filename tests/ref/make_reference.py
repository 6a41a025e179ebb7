#!/usr/bin/python3
"""Regenerates tests/ref/tiny_ref.safetensors: a tiny DistilBertForQuestionAnswering
built in PyTorch exactly as Hugging Face's modeling_distilbert.py defines it
(transformers is not needed), with fixed weights, one fixed batch, and what
PyTorch computes from them: start/end logits, the loss, every gradient after
one backward, and the losses of 10 AdamW steps (Trainer's optimizer: betas
0.9/0.999, eps 1e-8, weight decay 0, linear decay to 0, grad-norm clip 1.0).
Dropout is off. Run with Debian's python3-torch:  /usr/bin/python3 make_reference.py
The C test test_train_ref compares the trainer with this file."""
import json, os, struct, sys
import numpy as np
import torch

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_distilbert import DistilBertForQuestionAnswering  # noqa: E402

torch.manual_seed(1234)
torch.set_num_threads(1)
V, D, L, H, F, P = 40, 24, 2, 3, 48, 12      # vocab, dim, layers, heads, ffn, positions
B, S = 3, 10
LR, STEPS = 1e-3, 10


def write_safetensors(path, tensors):
    header, blobs, off = {"__metadata__": {"format": "pt"}}, [], 0
    for name, arr in tensors:
        arr = np.ascontiguousarray(arr, dtype="<f4")
        header[name] = {"dtype": "F32", "shape": list(arr.shape),
                        "data_offsets": [off, off + arr.nbytes]}
        blobs.append(arr.tobytes())
        off += arr.nbytes
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
    os.replace(path + ".tmp", path)


model = DistilBertForQuestionAnswering(V, D, L, H, F, P, 0.0, 0.0, 0.0)
with torch.no_grad():   # non-trivial weights so every path carries signal
    for name, p in model.named_parameters():
        if "LayerNorm" in name or "layer_norm" in name:
            p.copy_(1.0 + 0.1 * torch.randn_like(p) if name.endswith("weight")
                    else 0.1 * torch.randn_like(p))
        elif name.endswith("bias"):
            p.copy_(0.05 * torch.randn_like(p))
        else:
            p.copy_(0.2 * torch.randn_like(p))
    model.distilbert.embeddings.word_embeddings.weight[0].zero_()

ids = torch.randint(1, V, (B, S))
mask = torch.ones(B, S, dtype=torch.long)
mask[1, 7:] = 0
mask[2, 4:] = 0
ids[mask == 0] = 0
start = torch.tensor([2, 5, S + 3])      # the last one is outside: ignored
end = torch.tensor([4, -1, 3])           # -1 clamps to 0, as in Hugging Face

out = [("cfg", np.array([V, D, L, H, F, P, B, S, LR, STEPS], dtype=np.float32)),
       ("in.input_ids", ids.numpy().astype(np.float32)),
       ("in.attention_mask", mask.numpy().astype(np.float32)),
       ("in.start_positions", start.numpy().astype(np.float32)),
       ("in.end_positions", end.numpy().astype(np.float32))]
out += [("w." + n, p.detach().numpy().copy()) for n, p in model.named_parameters()]

loss, sl, el = model(ids, mask, start, end)
loss.backward()
out += [("out.start_logits", sl.detach().numpy()), ("out.end_logits", el.detach().numpy()),
        ("out.loss", np.array([loss.item()], dtype=np.float32))]
out += [("grad." + n, p.grad.numpy().copy()) for n, p in model.named_parameters()]

opt = torch.optim.AdamW(model.parameters(), lr=LR, betas=(0.9, 0.999), eps=1e-8,
                        weight_decay=0.0)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: max(0.0, (STEPS - s) / STEPS))
opt.zero_grad()
losses = []
for step in range(STEPS):
    opt.zero_grad()
    loss, _, _ = model(ids, mask, start, end)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    losses.append(loss.item())
out.append(("out.losses", np.array(losses, dtype=np.float32)))

dst = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny_ref.safetensors")
write_safetensors(dst, out)
print("wrote", dst, "loss %.6f" % losses[0], "after %d steps %.6f" % (STEPS, losses[-1]),
      "torch", torch.__version__)
