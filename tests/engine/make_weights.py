#!/usr/bin/python3
"""Writes the weight files the WeightsFiles.* tests read (tests/engine/test_weights_files.cpp).

Usage: /usr/bin/python3 tests/engine/make_weights.py OUT_DIR

Debian's python3-torch and python3-numpy only; the safetensors python package is
not in Debian 12, so .safetensors files are written by hand (8-byte little-endian
header length, JSON header padded with spaces to a multiple of 8, raw data), as
the format's specification says. Nothing is downloaded: every module is freshly
seeded.

Files:
  mha.safetensors, mha.npz, mha_compressed.npz
      two nn.MultiheadAttention(8, 2) layers as "layers.<i>.self_attn.*"
      (in_proj_weight, in_proj_bias, out_proj.weight, out_proj.bias), plus an
      int64 buffer; mha.json: X (5 × 8), the tokens, and layer 1's own forward
      (output, per-head attention weights) on X.
  halves.safetensors, halves.json
      float16, bfloat16 and float64 tensors and the float32 values torch converts them to.
  gpt2.safetensors
      GPT-2 style Conv1D names (transformer.h.<i>.attn.c_attn / c_proj) for two layers.
  W_query.npy   a big-endian float64 array (x·W, 4 × 3)
  fortran.npy   a Fortran-ordered array (refused)
  llama_gqa.safetensors, llama_gqa.json
      a Llama-style attention with grouped-query K/V heads, two layers as
      "model.layers.<i>.self_attn.{q,k,v,o}_proj.weight" (no biases): d_model 8,
      4 query heads, 2 K/V heads (num_key_value_heads), head_dim 2, so q_proj is
      8 × 8 and k_proj, v_proj are 4 × 8 in PyTorch's (out, in) layout;
      llama_gqa.json: X (5 × 8), the tokens, and layer 0's forward without RoPE
      (output, per-head attention weights), K and V repeated as Llama's repeat_kv.
  npy/W_q.npy, npy/W_k.npy, npy/W_v.npy, npy/W_o.npy
      mha.safetensors' layer 0 as four bare x·W arrays (in_proj_weight's thirds
      and out_proj.weight, transposed), to be opened together.
"""
import json
import os
import sys

import numpy as np
import torch

ST_DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
             torch.float64: "F64", torch.int64: "I64"}


def save_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        t = t.detach().contiguous()
        raw = t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[name] = {"dtype": ST_DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for b in blobs:
            f.write(b)


def main(out):
    os.makedirs(out, exist_ok=True)

    # --- nn.MultiheadAttention, two layers; the tests import layer 1.
    torch.manual_seed(7)
    layers = [torch.nn.MultiheadAttention(8, 2, bias=True, batch_first=True) for _ in range(2)]
    for layer in layers:  # non-zero biases (PyTorch initialises in_proj_bias to 0)
        with torch.no_grad():
            layer.in_proj_bias.uniform_(-0.5, 0.5)
            layer.out_proj.bias.uniform_(-0.5, 0.5)
        layer.eval()
    state = {}
    for i, layer in enumerate(layers):
        for k, v in layer.state_dict().items():
            state[f"layers.{i}.self_attn.{k}"] = v
    state["layers.0.position_ids"] = torch.arange(5, dtype=torch.int64)
    save_safetensors(os.path.join(out, "mha.safetensors"), state)
    arrays = {k: v.numpy() for k, v in state.items()}
    np.savez(os.path.join(out, "mha.npz"), **arrays)
    np.savez_compressed(os.path.join(out, "mha_compressed.npz"), **arrays)

    x = torch.randn(1, 5, 8)
    with torch.no_grad():
        y, w = layers[1](x, x, x, need_weights=True, average_attn_weights=False)
    with open(os.path.join(out, "mha.json"), "w") as f:
        json.dump({"tokens": ["Your", "journey", "starts", "with", "one"],
                   "num_heads": 2,
                   "X": x[0].tolist(),
                   "output": y[0].tolist(),
                   "weights": w[0].tolist()}, f)

    # --- float16 / bfloat16 / float64 and their float32 values.
    vals = torch.tensor([1.0, -2.0, 0.1, 65504.0, 6.103515625e-05, 5.960464477539063e-08, 3.140625, -0.0])
    halves = {"h16": vals.to(torch.float16).reshape(2, 4),
              "b16": vals.to(torch.bfloat16).reshape(2, 4),
              "f64": torch.tensor([[0.1, 1e-40], [-3.5, 1e30]], dtype=torch.float64)}
    save_safetensors(os.path.join(out, "halves.safetensors"), halves)
    with open(os.path.join(out, "halves.json"), "w") as f:
        json.dump({k: [float(v) for v in t.to(torch.float32).reshape(-1)] for k, t in halves.items()}, f)

    # --- GPT-2 Conv1D names: c_attn.weight is (d, 3d), already x·W.
    torch.manual_seed(11)
    gpt = {}
    for i in range(2):
        p = f"transformer.h.{i}.attn."
        gpt[p + "c_attn.weight"] = torch.randn(6, 18)
        gpt[p + "c_attn.bias"] = torch.randn(18)
        gpt[p + "c_proj.weight"] = torch.randn(6, 6)
        gpt[p + "c_proj.bias"] = torch.randn(6)
        gpt[f"transformer.h.{i}.mlp.c_proj.weight"] = torch.randn(24, 6)
    save_safetensors(os.path.join(out, "gpt2.safetensors"), gpt)

    # --- single .npy files
    np.save(os.path.join(out, "W_query.npy"), (np.arange(12).reshape(4, 3) / 8).astype(">f8"))
    np.save(os.path.join(out, "fortran.npy"), np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3)))

    # --- several .npy files: layer 0 of the nn.MultiheadAttention above, as x·W.
    os.makedirs(os.path.join(out, "npy"), exist_ok=True)
    w = layers[0].in_proj_weight.detach()
    parts = {"W_q": w[0:8], "W_k": w[8:16], "W_v": w[16:24], "W_o": layers[0].out_proj.weight.detach()}
    for name, t in parts.items():
        np.save(os.path.join(out, "npy", name + ".npy"), np.ascontiguousarray(t.t().numpy()))

    # --- Llama-style grouped-query attention (num_key_value_heads < num_attention_heads).
    llama_gqa(out)


def llama_gqa(out):
    torch.manual_seed(13)
    d_model, heads, kv_heads = 8, 4, 2
    head_dim = d_model // heads
    state, mods = {}, []
    for i in range(2):
        m = {"q_proj": torch.nn.Linear(d_model, heads * head_dim, bias=False),
             "k_proj": torch.nn.Linear(d_model, kv_heads * head_dim, bias=False),
             "v_proj": torch.nn.Linear(d_model, kv_heads * head_dim, bias=False),
             "o_proj": torch.nn.Linear(heads * head_dim, d_model, bias=False)}
        for k, lin in m.items():
            state[f"model.layers.{i}.self_attn.{k}.weight"] = lin.weight.detach()
        state[f"model.layers.{i}.input_layernorm.weight"] = torch.ones(d_model)
        mods.append(m)
    save_safetensors(os.path.join(out, "llama_gqa.safetensors"), state)

    x = torch.randn(5, d_model)
    m = mods[0]
    with torch.no_grad():
        q = m["q_proj"](x).view(5, heads, head_dim).transpose(0, 1)
        k = m["k_proj"](x).view(5, kv_heads, head_dim).transpose(0, 1)
        v = m["v_proj"](x).view(5, kv_heads, head_dim).transpose(0, 1)
        k = k.repeat_interleave(heads // kv_heads, dim=0)  # repeat_kv
        v = v.repeat_interleave(heads // kv_heads, dim=0)
        w = torch.softmax(q @ k.transpose(1, 2) / head_dim ** 0.5, dim=-1)
        ctx = (w @ v).transpose(0, 1).reshape(5, heads * head_dim)
        y = m["o_proj"](ctx)
    with open(os.path.join(out, "llama_gqa.json"), "w") as f:
        json.dump({"tokens": ["Your", "journey", "starts", "with", "one"],
                   "num_heads": heads, "num_kv_heads": kv_heads,
                   "X": x.tolist(), "output": y.tolist(), "weights": w.tolist()}, f)


if __name__ == "__main__":
    main(sys.argv[1])
