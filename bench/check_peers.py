#!/usr/bin/python3
"""check_peers.py: do the peers compute what attnviz computes?

Writes one small state with explicit, float32-exact X and weights (qkv_bias,
out_proj with bias, scale √head_dim, causal), runs `attnviz-cli run` on it and
the peers' --check mode on the same file, and compares every attention weight
of every head and every output number. Prints one JSON line; exits 1 when a
peer differs by more than the tolerance, 2 on bad usage.

  bench/check_peers.py --cli "build/native/attnviz-cli" [--tokens 9 --d-model 24 --heads 3]
  (--cli "node --no-experimental-fetch build/wasm/attnviz-cli.js" works too)

Peers: torch (bench/torch_bench.py), tfjs (bench/tfjs_bench.mjs) and ort-web
(bench/ort_bench.mjs, which exports the state's weights to ONNX with
bench/export_onnx.py first).

Tolerance 1e-5 absolute, the same for every peer: inputs are O(1), sums have at
most d_model terms, and float32 results of different summation orders (OpenBLAS,
XNNPACK, onnxruntime's MLAS, attnviz's kernels) differ by a few ulps, ~1e-7 each.
"""
import argparse
import json
import os
import random
import shlex
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOLERANCE = 1e-5
# Each peer's --check command; the state file's path is appended.
PEERS = {"torch": ["/usr/bin/python3", os.path.join(ROOT, "bench/torch_bench.py"), "--check"],
         "tfjs": ["node", os.path.join(ROOT, "bench/tfjs_bench.mjs"), "--check"],
         "ort-web": ["node", os.path.join(ROOT, "bench/ort_bench.mjs"), "--check"]}


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def matrix(rng, rows, cols, r):
    return [[f32(rng.uniform(-r, r)) for _ in range(cols)] for _ in range(rows)]


def make_state(S, D, H, seed):
    rng = random.Random(seed)
    r = D ** -0.5
    w = {k: matrix(rng, D, D, r) for k in ("W_q", "W_k", "W_v", "W_o")}
    w.update({k: matrix(rng, 1, D, r)[0] for k in ("b_q", "b_k", "b_v", "b_o")})
    return {"version": 1, "tokens": [f"t{i}" for i in range(S)], "d_model": D, "d_out": D,
            "num_heads": H, "embedding": {"values": matrix(rng, S, D, 2.0)}, "weights": w,
            "qkv_bias": True, "out_proj": True, "out_bias": True, "scale": "head_dim",
            "causal": True}


def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT).stdout
    return json.loads(out)


def max_diff(a, b, path="x"):
    """Largest |a - b| over two nested lists of numbers; raises on a shape mismatch."""
    if isinstance(a, list) or isinstance(b, list):
        if not (isinstance(a, list) and isinstance(b, list)) or len(a) != len(b):
            raise ValueError(f"shape differs at {path}")
        return max((max_diff(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b))), default=0.0)
    return abs(float(a) - float(b))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True, help="the attnviz-cli command, e.g. build/native/attnviz-cli")
    ap.add_argument("--tokens", type=int, default=9)
    ap.add_argument("--d-model", type=int, default=24)
    ap.add_argument("--heads", type=int, default=3)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--peers", default=",".join(PEERS))
    a = ap.parse_args()
    state = make_state(a.tokens, a.d_model, a.heads, a.seed)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(state, f)
        path = f.name
    try:
        report = run_json(shlex.split(a.cli) + ["run", path])
        ref = {"output": report["output"], "weights": [h["weights"] for h in report["heads"]]}
        result = {"S": a.tokens, "d_model": a.d_model, "heads": a.heads, "tolerance": TOLERANCE}
        ok = True
        for name in a.peers.split(","):
            got = run_json(PEERS[name] + [path])
            diffs = {k: max_diff(ref[k], got[k], k) for k in ("output", "weights")}
            result[name] = {f"{k}_max_abs_diff": v for k, v in diffs.items()}
            ok = ok and all(v <= TOLERANCE for v in diffs.values())
        result["ok"] = ok
        print(json.dumps(result))
        return 0 if ok else 1
    finally:
        os.unlink(path)


if __name__ == "__main__":
    sys.exit(main())
