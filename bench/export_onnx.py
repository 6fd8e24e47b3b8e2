#!/usr/bin/python3
"""export_onnx.py: the multi-head attention forward of `attnviz-cli bench` as an
ONNX model, for bench/ort_bench.mjs (onnxruntime-web). Run with /usr/bin/python3
(Debian's python3-torch 1.13: torch.onnx.export, no `onnx` package needed).

  bench/export_onnx.py --d-model D --heads H [--d-out D2] [--causal] [--seed N] --out FILE
      weights drawn as bench/torch_bench.py draws them (uniform in ±1/√fan_in,
      torch.Generator seeded with --seed), stored in the model as initializers
  bench/export_onnx.py --state STATE.json --out FILE
      weights from a state's explicit values (x·W orientation, qkv_bias,
      out_proj, out_bias, scale head_dim), for bench/check_peers.py

The model's inputs are X (S × d_model, S dynamic) and, when causal, mask
(S × S bool, True above the diagonal). Every stage is a graph output, in this
order, so onnxruntime can neither skip nor fuse one away (its fusions leave a
node alone when its result is a graph output):

  Q, K, V    = X·W_q + b_q, X·W_k + b_k, X·W_v + b_v      (S × d_out)
  Qh, Kh, Vh = split heads                                (H × S × hd)
  scores     = Qh · Khᵀ                                   (H × S × S)
  scaled     = scores / √hd
  masked     = scaled.masked_fill(mask, -inf)             (causal only: else scaled is the last score stage)
  weights    = softmax over the last axis
  context    = weights · Vh                               (H × S × hd)
  concat     = merge heads                                (S × d_out)
  output     = concat · W_o + b_o                         (S × d_out)
"""
import argparse
import json
import math
import os
import sys

import torch

OPSET = 17  # the newest torch 1.13 writes; onnxruntime-web 1.30 runs it
WEIGHT_KEYS = ("W_q", "b_q", "W_k", "b_k", "W_v", "b_v", "W_o", "b_o")


class Attention(torch.nn.Module):
    """The forward above; `params` maps WEIGHT_KEYS to float32 tensors (x·W orientation)."""

    def __init__(self, params, heads, causal):
        super().__init__()
        for k in WEIGHT_KEYS:
            self.register_buffer(k, params[k].contiguous())
        # Python numbers, not traced shapes: the graph holds them as constants.
        self.heads, self.causal, self.d_out = heads, causal, params["W_q"].shape[1]

    def forward(self, X, mask=None):
        d_out, H = self.d_out, self.heads
        hd = d_out // H
        Q, K, V = X @ self.W_q + self.b_q, X @ self.W_k + self.b_k, X @ self.W_v + self.b_v
        Qh, Kh, Vh = (t.reshape(-1, H, hd).transpose(0, 1) for t in (Q, K, V))
        scores = Qh @ Kh.transpose(1, 2)
        scaled = scores / math.sqrt(hd)
        masked = scaled.masked_fill(mask, float("-inf")) if self.causal else scaled
        weights = torch.softmax(masked, dim=-1)
        context = weights @ Vh
        concat = context.transpose(0, 1).reshape(-1, d_out)
        output = concat @ self.W_o + self.b_o
        stages = [Q, K, V, Qh, Kh, Vh, scores, scaled] + ([masked] if self.causal else [])
        return tuple(stages + [weights, context, concat, output])


def output_names(causal):
    return (["Q", "K", "V", "Qh", "Kh", "Vh", "scores", "scaled"] + (["masked"] if causal else [])
            + ["weights", "context", "concat", "output"])


def seeded_params(D, d_out, seed):
    """nn.Linear's init range, in bench/torch_bench.py's order (it draws X first from the same
    generator; here X comes from ort_bench.mjs)."""
    g = torch.Generator().manual_seed(seed)

    def u(*shape, r):
        return (torch.rand(*shape, generator=g) * 2 - 1) * r

    r1, ro = 1 / math.sqrt(D), 1 / math.sqrt(d_out)
    return {"W_q": u(D, d_out, r=r1), "W_k": u(D, d_out, r=r1), "W_v": u(D, d_out, r=r1),
            "b_q": u(d_out, r=r1), "b_k": u(d_out, r=r1), "b_v": u(d_out, r=r1),
            "W_o": u(d_out, d_out, r=ro), "b_o": u(d_out, r=ro)}


def state_params(path):
    """(params, heads, causal, d_model) of a state file with explicit weights."""
    with open(path) as f:
        s = json.load(f)
    params = {k: torch.tensor(s["weights"][k], dtype=torch.float32) for k in WEIGHT_KEYS}
    return params, s["num_heads"], bool(s.get("causal")), params["W_q"].shape[0]


def export(model, D, out):
    """Traces with S = 4 and writes `out` (through a temporary file: a cache
    that two runs fill at once never holds half a model)."""
    S = 4
    args = (torch.zeros(S, D), torch.triu(torch.ones(S, S, dtype=torch.bool), 1)) if model.causal \
        else (torch.zeros(S, D),)
    inputs = ["X", "mask"] if model.causal else ["X"]
    names = output_names(model.causal)
    dyn = {"X": {0: "S"}, "mask": {0: "S", 1: "S"}}
    for n in names:
        dyn[n] = {0: "H", 1: "S"} if n in ("Qh", "Kh", "Vh", "scores", "scaled", "masked", "weights", "context") \
            else {0: "S"}
    dyn = {k: v for k, v in dyn.items() if k in inputs + names}
    tmp = f"{out}.{os.getpid()}.tmp"
    with torch.no_grad():
        torch.onnx.export(model, args, tmp, input_names=inputs, output_names=names,
                          dynamic_axes=dyn, opset_version=OPSET, do_constant_folding=False)
    os.replace(tmp, out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d-model", type=int)
    ap.add_argument("--d-out", type=int, default=0)
    ap.add_argument("--heads", type=int)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--seed", type=int, default=123)
    ap.add_argument("--state", help="take the weights, heads and causal flag from this state file")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.state:
        params, heads, causal, D = state_params(a.state)
    else:
        d_out = a.d_out or a.d_model
        if not (a.d_model and a.heads) or d_out % a.heads:
            ap.exit(2, json.dumps({"error": "need --d-model and --heads (dividing d_out)", "field": ""}) + "\n")
        params, heads, causal, D = seeded_params(a.d_model, d_out, a.seed), a.heads, a.causal, a.d_model
    export(Attention(params, heads, causal), D, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
