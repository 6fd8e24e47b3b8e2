#!/usr/bin/python3
"""torch_bench.py: the native peer. The same multi-head attention forward as
`attnviz-cli bench` (every stage kept until the end) in PyTorch with OpenBLAS
(Debian's python3-torch 1.13 + libopenblas0-pthread). Run with /usr/bin/python3.

  bench/torch_bench.py --tokens S --d-model D --heads H [--causal] [--reps N]
                       [--d-out D2] [--seed N] [--threads T]
      prints {"peer": "torch", "full_ms": median, ...} (one line)
  bench/torch_bench.py --check STATE.json
      the forward on a state's explicit X and weights (x·W orientation,
      qkv_bias, out_proj, out_bias, scale head_dim, causal); prints
      {"output": [[...]], "weights": [[[...]]]} for bench/check_peers.py

Forward (S tokens, H heads, hd = d_out / H), each line one kept tensor:
  Q, K, V    = X·W_q + b_q, X·W_k + b_k, X·W_v + b_v      (S × d_out)
  Qh, Kh, Vh = split heads, contiguous                    (H × S × hd)
  scores     = Qh · Khᵀ                                   (H × S × S)
  scaled     = scores / √hd
  masked     = scaled.masked_fill(triu(ones, 1), -inf)
  weights    = softmax over the last axis
  context    = weights · Vh                               (H × S × hd)
  concat     = merge heads                                (S × d_out)
  output     = concat · W_o + b_o                         (S × d_out)
"""
import argparse
import json
import math
import os
import statistics
import sys
import time


def _threads_from_argv():
    """--threads, read before torch is imported: OpenBLAS (pthread build) sizes its
    own thread pool from OPENBLAS_NUM_THREADS at load time, and torch.set_num_threads
    only governs torch's OpenMP pool."""
    argv = sys.argv
    for i, arg in enumerate(argv):
        if arg == "--threads" and i + 1 < len(argv) and argv[i + 1].isdigit():
            return argv[i + 1]
    return "1"


os.environ["OPENBLAS_NUM_THREADS"] = _threads_from_argv()
os.environ["OMP_NUM_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"]
import torch  # noqa: E402  (after the environment above)


def blas_library():
    """The BLAS shared library torch loaded (Debian's torch calls the system libblas.so.3)."""
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "blas" in line.lower()}
    return ",".join(sorted(os.path.basename(x) for x in libs)) or "none found"


def forward(p, S, H, d_out, mask):
    hd = d_out // H
    t = {}
    t["Q"] = p["X"] @ p["W_q"] + p["b_q"]
    t["K"] = p["X"] @ p["W_k"] + p["b_k"]
    t["V"] = p["X"] @ p["W_v"] + p["b_v"]
    t["Qh"] = t["Q"].view(S, H, hd).transpose(0, 1).contiguous()
    t["Kh"] = t["K"].view(S, H, hd).transpose(0, 1).contiguous()
    t["Vh"] = t["V"].view(S, H, hd).transpose(0, 1).contiguous()
    t["scores"] = t["Qh"] @ t["Kh"].transpose(1, 2)
    t["scaled"] = t["scores"] / math.sqrt(hd)
    t["masked"] = t["scaled"].masked_fill(mask, float("-inf")) if mask is not None else t["scaled"]
    t["weights"] = torch.softmax(t["masked"], dim=-1)
    t["context"] = t["weights"] @ t["Vh"]
    t["concat"] = t["context"].transpose(0, 1).reshape(S, d_out)
    t["output"] = t["concat"] @ p["W_o"] + p["b_o"]
    return t


def causal_mask(S):
    return torch.triu(torch.ones(S, S, dtype=torch.bool), diagonal=1)


def run_check(path):
    with open(path) as f:
        s = json.load(f)
    w = s["weights"]
    p = {"X": torch.tensor(s["embedding"]["values"], dtype=torch.float32)}
    for k in ("W_q", "W_k", "W_v", "W_o", "b_q", "b_k", "b_v", "b_o"):
        p[k] = torch.tensor(w[k], dtype=torch.float32)
    S, d_out, H = p["X"].shape[0], p["W_q"].shape[1], s["num_heads"]
    t = forward(p, S, H, d_out, causal_mask(S) if s.get("causal") else None)
    print(json.dumps({"output": t["output"].tolist(), "weights": t["weights"].tolist()}))


def run_bench(a):
    torch.set_num_threads(a.threads)
    S, D, H, d_out = a.tokens, a.d_model, a.heads, a.d_out or a.d_model
    g = torch.Generator().manual_seed(a.seed)

    def u(*shape, r):  # nn.Linear's init range
        return (torch.rand(*shape, generator=g) * 2 - 1) * r

    r1, ro = 1 / math.sqrt(D), 1 / math.sqrt(d_out)
    p = {"X": torch.randn(S, D, generator=g),
         "W_q": u(D, d_out, r=r1), "W_k": u(D, d_out, r=r1), "W_v": u(D, d_out, r=r1),
         "b_q": u(d_out, r=r1), "b_k": u(d_out, r=r1), "b_v": u(d_out, r=r1),
         "W_o": u(d_out, d_out, r=ro), "b_o": u(d_out, r=ro)}
    mask = causal_mask(S) if a.causal else None
    wall, cpu = [], []
    with torch.no_grad():
        forward(p, S, H, d_out, mask)  # warm-up
        for _ in range(a.reps):
            c0, t0 = time.process_time(), time.perf_counter()
            t = forward(p, S, H, d_out, mask)
            t1, c1 = time.perf_counter(), time.process_time()
            wall.append((t1 - t0) * 1e3)
            cpu.append((c1 - c0) * 1e3)
            del t
    flops = 3 * (2 * S * D * d_out + S * d_out) + 4 * S * S * d_out + 2 * S * d_out * d_out + S * d_out
    full, full_cpu = statistics.median(wall), statistics.median(cpu)
    print(json.dumps({
        "peer": "torch", "version": torch.__version__, "threads": torch.get_num_threads(),
        "blas": blas_library(), "openblas_threads": os.environ["OPENBLAS_NUM_THREADS"],
        "S": S, "d_model": D, "d_out": d_out, "heads": H, "causal": a.causal, "reps": a.reps,
        "full_ms": round(full, 3), "full_min_ms": round(min(wall), 3),
        # CPU time sums all threads: comparable with wall time only at 1 thread.
        "full_cpu_ms": round(full_cpu, 3),
        "gflops": round(flops / (full * 1e6), 3), "gflops_cpu": round(flops / (full_cpu * 1e6), 3)}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int)
    ap.add_argument("--d-model", type=int)
    ap.add_argument("--heads", type=int)
    ap.add_argument("--d-out", type=int, default=0)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=123)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--check")
    a = ap.parse_args()
    if a.check:
        run_check(a.check)
        return
    if not (a.tokens and a.d_model and a.heads) or (a.d_out or a.d_model) % a.heads:
        ap.exit(2, json.dumps({"error": "need --tokens, --d-model and --heads (dividing d_out)",
                               "field": ""}) + "\n")
    run_bench(a)


if __name__ == "__main__":
    main()
