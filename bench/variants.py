#!/usr/bin/python3
"""Issue 23's performance target: what RoPE, GQA, ALiBi and the window cost.

    python3 bench/variants.py [--cli build/native/attnviz-cli] [--runs 5] [--tokens 512] [--d-model 768] [--heads 12]

Runs `attnviz-cli bench` on the same seeded state (causal, 1 thread) with each
option alone and with RoPE + GQA (G = heads/4) + ALiBi together, interleaving
the configurations run by run so that load on this shared machine hits them
alike, and prints, per configuration, the median CPU time of the full forward
and of a one-token edit, and their ratios to the plain forward. The target:
RoPE + GQA + ALiBi within 1.2× of plain on the full forward; an option that is
off costs nothing (the plain figures are those of the engine before issue 23 —
compare with `attnviz-cli bench` on an older build). The load average is
printed beside the numbers: quote them together.
"""
import argparse
import json
import os
import statistics
import subprocess


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default="build/native/attnviz-cli")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tokens", type=int, default=512)
    ap.add_argument("--d-model", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    a = ap.parse_args()
    g = max(1, a.heads // 4)
    configs = {
        "plain": [],
        "rope": ["--rope"],
        f"gqa G={g}": ["--kv-heads", str(g)],
        "alibi": ["--alibi"],
        "window 128": ["--window", "128"],
        f"rope+gqa+alibi": ["--rope", "--kv-heads", str(g), "--alibi"],
    }
    base = [a.cli, "bench", "--tokens", str(a.tokens), "--d-model", str(a.d_model), "--heads", str(a.heads),
            "--causal", "--reps", "3", "--threads", "1"]
    got = {k: {"full": [], "edit": [], "append": []} for k in configs}
    loads = []
    for _ in range(a.runs):
        for name, extra in configs.items():
            out = subprocess.run(base + extra, capture_output=True, text=True, check=True).stdout
            j = json.loads(out)
            got[name]["full"].append(j["full_cpu_ms"])
            got[name]["edit"].append(j["incremental_cpu_ms"])
            got[name]["append"].append(j["append_cpu_ms"])
            loads.append(os.getloadavg()[0])
    plain_full = statistics.median(got["plain"]["full"])
    plain_edit = statistics.median(got["plain"]["edit"])
    print(f"S={a.tokens} d_model={a.d_model} heads={a.heads} causal, 1 thread, {a.runs} runs each, "
          f"load average {min(loads):.1f}…{max(loads):.1f} on {os.cpu_count()} cores")
    print(f"{'configuration':<18}{'full ms':>10}{'× plain':>9}{'edit ms':>10}{'× plain':>9}{'append ms':>11}")
    for name in configs:
        f = statistics.median(got[name]["full"])
        e = statistics.median(got[name]["edit"])
        ap_ = statistics.median(got[name]["append"])
        print(f"{name:<18}{f:>10.2f}{f / plain_full:>9.2f}{e:>10.3f}{e / plain_edit:>9.2f}{ap_:>11.3f}")


if __name__ == "__main__":
    main()
