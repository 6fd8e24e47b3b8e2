#!/usr/bin/python3
"""attnviz state files (.safetensors, attnviz/state_file.h) from Python's side.

Usage:
  /usr/bin/python3 tests/engine/state_file_py.py write OUT_DIR
      writes state files with Debian's python3-torch, by hand (the safetensors
      package is not in Debian 12; the layout is the format's specification: an
      8-byte little-endian header length, the JSON header padded with spaces to a
      multiple of 8, then the raw little-endian data), each beside the same state as
      plain JSON; StateFilePython.* (tests/engine/test_state_file.cpp) reads both and
      wants equal states:
        torch_state    nn.Embedding-like X (torch.randn), nn.Linear Q/K/V with biases
                       and grouped-query K/V (2 of 4 heads), an output projection
                       with bias, RoPE, causal: every tensor F32, as attnviz writes
        torch_halves   W_q float16, W_k bfloat16, W_v float64 (the JSON holds the
                       float32 values torch converts them to)
        torch_seeded   seeded inputs: no tensors at all, the metadata only
  /usr/bin/python3 tests/engine/state_file_py.py check CLI OUT_DIR
      has attnviz-cli convert OUT_DIR/torch_state.json to a .safetensors file, reads
      that file with the small reader below (no attnviz code), checks its layout
      (header length, padding, 8-byte alignment, string-only metadata, F32 tensors
      whose data_offsets cover the data without holes) and that the state it holds,
      each tensor name replaced by its values, is the JSON state, number for number.
Exit status 0 when everything holds; a message and 1 otherwise.
"""
import json
import os
import struct
import subprocess
import sys

DTYPES = {"F32": 4, "F16": 2, "BF16": 2, "F64": 8}


def save(path, tensors, state):
    """tensors: name -> (dtype, shape, bytes); state: the JSON state naming them."""
    header, blobs, offset = {}, [], 0
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    header["__metadata__"] = {"attnviz_state_format": "1", "attnviz_state": json.dumps(state)}
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def raw(t):
    import torch
    t = t.detach().contiguous()
    return t.reshape(-1).view(torch.uint8).numpy().tobytes()


def write(out):
    import torch
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(2024)
    S, d, H, G = 5, 8, 4, 2
    hd = d // H
    X = torch.randn(S, d)
    q, k, v = torch.nn.Linear(d, d), torch.nn.Linear(d, G * hd), torch.nn.Linear(d, G * hd)
    o = torch.nn.Linear(d, d)
    base = {"version": 1, "tokens": ["Your", "journey", "starts", "with", "one"], "d_model": d, "d_out": d,
            "num_heads": H, "num_kv_heads": G, "qkv_bias": True, "out_proj": True, "out_bias": True,
            "causal": True, "positional": "rope", "rope": {"base": 10000, "style": "half"}}
    mats = {"embedding.values": X, "weights.W_q": q.weight.T, "weights.W_k": k.weight.T,
            "weights.W_v": v.weight.T, "weights.W_o": o.weight.T, "weights.b_q": q.bias,
            "weights.b_k": k.bias, "weights.b_v": v.bias, "weights.b_o": o.bias}
    tensors = {n: ("F32", t.shape, raw(t.float())) for n, t in mats.items()}
    named = dict(base, embedding={"values": "embedding.values"},
                 weights={n.split(".")[1]: n for n in mats if n.startswith("weights.")})
    save(os.path.join(out, "torch_state.safetensors"), tensors, named)
    values = dict(base, embedding={"values": X.tolist()},
                  weights={n.split(".")[1]: t.tolist() for n, t in mats.items() if n.startswith("weights.")})
    with open(os.path.join(out, "torch_state.json"), "w") as f:
        json.dump(values, f)

    # float16, bfloat16, float64: the JSON holds what torch's .float() gives.
    wq = (torch.randn(d, d) * 3).half()
    wk = torch.randn(d, d).bfloat16()
    wv = torch.randn(d, d, dtype=torch.float64) / 7
    halves = {"weights.W_q": ("F16", wq.shape, raw(wq)), "weights.W_k": ("BF16", wk.shape, raw(wk)),
              "weights.W_v": ("F64", wv.shape, raw(wv))}
    hstate = {"tokens": ["a", "b", "c"], "d_model": d, "d_out": d, "num_heads": 2}
    save(os.path.join(out, "torch_halves.safetensors"), halves,
         dict(hstate, weights={"W_q": "weights.W_q", "W_k": "weights.W_k", "W_v": "weights.W_v"}))
    with open(os.path.join(out, "torch_halves.json"), "w") as f:
        json.dump(dict(hstate, weights={"W_q": wq.float().tolist(), "W_k": wk.float().tolist(),
                                        "W_v": wv.float().tolist()}), f)

    seeded = {"tokens": ["我", "爱", "自然"], "causal": True, "dropout": {"p": 0.1, "training": True, "seed": 5}}
    save(os.path.join(out, "torch_seeded.safetensors"), {}, seeded)
    with open(os.path.join(out, "torch_seeded.json"), "w") as f:
        json.dump(seeded, f)


def fail(msg):
    print("state_file_py.py check: " + msg)
    sys.exit(1)


def read(path):
    """A small reader that checks the layout; returns (metadata, {name: (dtype, shape, bytes)})."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    if (8 + n) % 8:
        fail(f"the data starts at byte {8 + n}, not a multiple of 8")
    text = data[8:8 + n]
    stripped = text.rstrip(b" ")
    if not text.startswith(b"{") or not stripped.endswith(b"}") or len(text) - len(stripped) >= 8:
        fail("the header is not a JSON object padded with fewer than 8 spaces")
    header = json.loads(text)
    meta = header.pop("__metadata__")
    if not all(isinstance(v, str) for v in meta.values()):
        fail("__metadata__ holds a value that is not a string")
    body = data[8 + n:]
    tensors, end = {}, 0
    for name, e in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
        b0, b1 = e["data_offsets"]
        if b0 != end:
            fail(f"{name} starts at {b0}, not where the previous tensor ended ({end}): a hole or an overlap")
        count = 1
        for s in e["shape"]:
            count *= s
        if e["dtype"] != "F32" or b1 - b0 != 4 * count:
            fail(f"{name}: dtype {e['dtype']}, shape {e['shape']}, {b1 - b0} bytes")
        tensors[name] = (e["dtype"], e["shape"], body[b0:b1])
        end = b1
    if end != len(body):
        fail(f"the data has {len(body)} bytes, the tensors index {end}")
    return meta, tensors


def values(shape, b):
    flat = list(struct.unpack("<%df" % (len(b) // 4), b))
    if len(shape) == 1:
        return flat
    rows, cols = shape
    return [flat[i * cols:(i + 1) * cols] for i in range(rows)]


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def same(a, b, path):
    if isinstance(a, dict):
        if not isinstance(b, dict) or set(a) != set(b):
            fail(f"{path}: keys {sorted(a) if isinstance(a, dict) else a} vs {sorted(b) if isinstance(b, dict) else b}")
        for k in a:
            same(a[k], b[k], path + "." + k)
    elif isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            fail(f"{path}: lists of different lengths")
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        if f32(a) != f32(b):
            fail(f"{path}: {a} vs {b}")
    elif a != b:
        fail(f"{path}: {a!r} vs {b!r}")


def check(cli, out):
    src = os.path.join(out, "torch_state.json")
    dst = os.path.join(out, "converted.safetensors")
    back = os.path.join(out, "converted.json")
    for args in ([src, dst], [dst, back]):
        r = subprocess.run(cli.split("|") + ["convert"] + args, capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"attnviz-cli convert {' '.join(args)} exited {r.returncode}: {r.stderr}")
    meta, tensors = read(dst)
    if meta.get("attnviz_state_format") != "1":
        fail(f"attnviz_state_format is {meta.get('attnviz_state_format')!r}")
    state = json.loads(meta["attnviz_state"])
    named = [state["embedding"]["values"]] + list(state["weights"].values())
    if sorted(named) != sorted(tensors):
        fail(f"the state names {sorted(named)}, the file holds {sorted(tensors)}")
    state["embedding"]["values"] = values(*tensors[state["embedding"]["values"]][1:])
    for k, name in state["weights"].items():
        state["weights"][k] = values(*tensors[name][1:])
    with open(src) as f:
        original = json.load(f)
    with open(back) as f:
        canonical = json.load(f)
    # The file's state is attnviz's canonical JSON of the input (every field written) ...
    same(state, canonical, "state")
    # ... and its numbers are the input's, as float32.
    same(state["embedding"]["values"], original["embedding"]["values"], "embedding.values")
    for k in original["weights"]:
        same(state["weights"][k], original["weights"][k], "weights." + k)
    print(f"state_file_py.py check: {dst} is a plain safetensors file holding the state ({len(tensors)} tensors)")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "write":
        write(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3])
    else:
        print(__doc__)
        sys.exit(2)
