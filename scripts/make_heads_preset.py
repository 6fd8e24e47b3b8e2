#!/usr/bin/python3
"""Writes assets/presets/07-heads-worth-comparing.json: 4 heads with hand-set weights,
each doing one recognisable job, so that Compare heads shows four plainly different
maps (issue 23). Untrained random heads all look alike; these do not.

Usage (from the repository root, Debian's /usr/bin/python3 with numpy):
  scripts/make_heads_preset.py                write the preset (and print what it measured)
  scripts/make_heads_preset.py --check        write nothing; fail (exit 1) unless the committed
                                              file is byte for byte what this script writes and
                                              its heads do their jobs
  ... --cli build/native/attnviz-cli          also run the real CLI on the committed preset: its
                                              attention weights must equal this script's to 1e-6
                                              and pass the same job checks
ctest runs `--check --cli <the tree's attnviz-cli>` as `preset_heads_worth_comparing`
(tests/engine/CMakeLists.txt).

The sentence: "the cat sat on the mat and the cat ate the fish" (12 tokens, 8 distinct
words; "the" 4 times, "cat" twice). Causal mask on, no output projection, scale
√head_dim = √4 = 2, d_model 8, d_out 16, 4 heads of head_dim 4.

X (12 × 8), one row per token at position p (0 … 11):
  column 0   1          a constant (lets a query add a fixed amount)
  column 1   p          the position
  column 2   p²         the position squared
  column 3   first      1 for the first token, else 0
  columns 4-7  code     the word's code: 4 numbers ±1. The 8 words get the 8 codes with an
                        even number of −1s, so two different words' codes have dot product 0
                        or −4 and a word's code with itself 4.

W_q, W_k, W_v (8 × 16, x·W orientation; head h owns columns 4h … 4h+3). Each head uses
only the columns it needs; every other entry is 0.

  head 0, previous token. q = (−8, 16·(p−1)), k = (p², p) (columns 0, 1 of the head), so
      score(i, j) = −8·p_j² + 16·(p_i − 1)·p_j = −8·(p_j − (p_i − 1))² + (a number that is
      the same for the whole row, which softmax ignores). The score is highest at the key
      right before the query and falls with the square of the distance from it; scaled by
      1/2 it is 4 lower one step away, so the previous token gets ≥ 0.96.
  head 1, same word. q = 3·code, k = code: score 12 for a copy of the query's word, 0 or
      −12 for another word; scaled 6 vs ≤ 0, so a word spreads its weight evenly over
      every occurrence of itself so far (itself included).
  head 2, first token. q = (10) from the constant, k = (first): score 10 on the first token,
      0 elsewhere; scaled 5, so every query puts ≥ 0.93 on token 0 (an "attention sink").
  head 3, local window. Head 0's recipe divided by 8: q = (−1, 2·(p−1)), k = (p², p),
      score −(p_j − (p_i − 1))², scaled only 0.5 lower one step away: the weight spreads
      over the token itself and the two before it (about 0.26, 0.42, 0.26).
  W_v: every head's value is the word's code (rows 4-7 to the head's 4 columns), so a
      head's context is the code of the words it looks at.

Checks (on this script's own float64 softmax, and on the CLI's report with --cli):
  head 0: every row i ≥ 1 puts ≥ 0.8 on key i − 1 (its largest weight);
  head 1: every row puts ≥ 0.9 on keys that are the same word, spread evenly over them
          (each within 0.05 of an even share);
  head 2: every row puts ≥ 0.8 on key 0 (its largest weight);
  head 3: every row i ≥ 2 puts ≥ 0.9 on keys i−2 … i, each of them ≥ 0.2;
  the heads are plainly different: Jensen–Shannon divergence (nats) between two heads'
  weight rows, averaged over the 12 rows, ≥ 0.15 for every pair and ≥ 0.3 averaged over
  the 6 pairs.
The about texts quote the measured weights (rounded down where they say "or more"), so
they are computed here too; tests/ui/test_presets.cpp checks them against the engine.
"""
import json
import math
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "assets", "presets", "07-heads-worth-comparing.json")

TOKENS = "the cat sat on the mat and the cat ate the fish".split()
S = len(TOKENS)
D_MODEL, HEADS, HEAD_DIM = 8, 4, 4
D_OUT = HEADS * HEAD_DIM
ONE, POS, POS2, FIRST, CODE = 0, 1, 2, 3, 4  # X's columns (CODE: 4 of them)
# The 8 codes in {±1}^4 with an even number of −1s: any two differ in 2 or 4 places.
CODES = [(1, 1, 1, 1), (1, 1, -1, -1), (1, -1, 1, -1), (1, -1, -1, 1),
         (-1, 1, 1, -1), (-1, 1, -1, 1), (-1, -1, 1, 1), (-1, -1, -1, -1)]
PREV, SAME, FIRST_TOKEN, WINDOW = 0, 1, 2, 3  # head numbers

SHARP = 8      # head 0's gain: score −8·distance²
SAME_GAIN = 3  # head 1: q = 3·code
SINK = 10      # head 2: q = 10


def words():
    vocab = []
    for t in TOKENS:
        if t not in vocab:
            vocab.append(t)
    assert len(vocab) <= len(CODES)
    return vocab


def build():
    """X, W_q, W_k, W_v as lists of lists of ints."""
    vocab = words()
    X = []
    for p, t in enumerate(TOKENS):
        X.append([1, p, p * p, 1 if p == 0 else 0] + list(CODES[vocab.index(t)]))
    Wq = [[0] * D_OUT for _ in range(D_MODEL)]
    Wk = [[0] * D_OUT for _ in range(D_MODEL)]
    Wv = [[0] * D_OUT for _ in range(D_MODEL)]

    def distance_head(h, gain):
        # q = (−gain, 2·gain·(p − 1)), k = (p², p): score = −gain·(p_j − (p_i − 1))² + row constant
        c = h * HEAD_DIM
        Wq[ONE][c] = -gain
        Wq[POS][c + 1] = 2 * gain
        Wq[ONE][c + 1] = -2 * gain
        Wk[POS2][c] = 1
        Wk[POS][c + 1] = 1

    distance_head(PREV, SHARP)
    distance_head(WINDOW, 1)
    for k in range(4):
        Wq[CODE + k][SAME * HEAD_DIM + k] = SAME_GAIN
        Wk[CODE + k][SAME * HEAD_DIM + k] = 1
    Wq[ONE][FIRST_TOKEN * HEAD_DIM] = SINK
    Wk[FIRST][FIRST_TOKEN * HEAD_DIM] = 1
    for h in range(HEADS):
        for k in range(4):
            Wv[CODE + k][h * HEAD_DIM + k] = 1
    return X, Wq, Wk, Wv


def attention_weights(X, Wq, Wk):
    """docs/engine.md: scores = Q_h K_hᵀ, / √head_dim, causal mask (j > i → −inf), softmax."""
    X, Wq, Wk = (np.array(m, dtype=np.float64) for m in (X, Wq, Wk))
    Q, K = X @ Wq, X @ Wk
    out = []
    for h in range(HEADS):
        c = slice(h * HEAD_DIM, (h + 1) * HEAD_DIM)
        s = Q[:, c] @ K[:, c].T / math.sqrt(HEAD_DIM)
        s[np.triu(np.ones((S, S), dtype=bool), 1)] = -np.inf
        e = np.exp(s - s.max(axis=1, keepdims=True))
        out.append(e / e.sum(axis=1, keepdims=True))
    return np.array(out)


def js(p, q):
    m = (p + q) / 2

    def kl(a, b):
        nz = a > 0
        return float(np.sum(a[nz] * np.log(a[nz] / b[nz])))

    return 0.5 * kl(p, m) + 0.5 * kl(q, m)


def measure(W):
    """What the heads do: numbers the checks and the about texts use."""
    same = [[j for j in range(i + 1) if TOKENS[j] == TOKENS[i]] for i in range(S)]
    m = {
        "prev": min(W[PREV, i, i - 1] for i in range(1, S)),
        "same_mass": min(W[SAME, i, same[i]].sum() for i in range(S)),
        "same_spread": max(abs(W[SAME, i, j] - 1 / len(same[i])) for i in range(S) for j in same[i]),
        "first": min(W[FIRST_TOKEN, i, 0] for i in range(S)),
        "window_mass": min(W[WINDOW, i, i - 2:i + 1].sum() for i in range(2, S)),
        "window_each": min(W[WINDOW, i, j] for i in range(2, S) for j in range(i - 2, i + 1)),
        "window_last": [W[WINDOW, S - 1, j] for j in range(S - 3, S)],
        "the_last": [W[SAME, S - 2, j] for j in same[S - 2]],
    }
    m["prev_argmax"] = all(np.argmax(W[PREV, i]) == i - 1 for i in range(1, S))
    m["first_argmax"] = all(np.argmax(W[FIRST_TOKEN, i]) == 0 for i in range(S))
    m["js"] = {(a, b): float(np.mean([js(W[a, i], W[b, i]) for i in range(S)]))
               for a in range(HEADS) for b in range(a + 1, HEADS)}
    return m


def problems(m):
    """The jobs, as checks: a list of what fails (empty when every head does its job)."""
    out = []
    if not (m["prev_argmax"] and m["prev"] >= 0.8):
        out.append(f"head 0 (previous token): min weight on key i-1 {m['prev']:.3f} < 0.8 or not the largest")
    if not (m["same_mass"] >= 0.9 and m["same_spread"] <= 0.05):
        out.append(f"head 1 (same word): min mass on the same word {m['same_mass']:.3f} < 0.9 "
                   f"or uneven by {m['same_spread']:.3f} > 0.05")
    if not (m["first_argmax"] and m["first"] >= 0.8):
        out.append(f"head 2 (first token): min weight on key 0 {m['first']:.3f} < 0.8 or not the largest")
    if not (m["window_mass"] >= 0.9 and m["window_each"] >= 0.2):
        out.append(f"head 3 (local window): min mass on i-2..i {m['window_mass']:.3f} < 0.9 "
                   f"or a key in it gets {m['window_each']:.3f} < 0.2")
    for (a, b), d in m["js"].items():
        if d < 0.15:
            out.append(f"heads {a} and {b} look alike: JS divergence {d:.3f} < 0.15")
    mean = sum(m["js"].values()) / len(m["js"])
    if mean < 0.3:
        out.append(f"mean JS divergence over head pairs {mean:.3f} < 0.3")
    return out


def down2(x):
    """x rounded down to 2 decimals, as text: what "or more" may quote."""
    return f"{math.floor(x * 100 + 1e-9) / 100:.2f}"


def texts(m):
    prev, first = down2(m["prev"]), down2(m["first"])
    the = f"{m['the_last'][0]:.2f}"
    w = ", ".join(f"{x:.2f}" for x in m["window_last"])
    w_zh = "、".join(f"{x:.2f}" for x in m["window_last"])
    n_the = len(m["the_last"])
    about = (
        "Weights set by hand (scripts/make_heads_preset.py), not trained, so that each of the 4 heads "
        "does one job: open Compare heads to see their attention weights side by side. Causal mask. "
        f"X's {D_MODEL} columns are 1, the position p, p², a first-token flag and the word's code "
        f"({HEAD_DIM} numbers, each ±1). "
        f"Head 0, previous token: its score is −{SHARP}·(distance from the previous position)², "
        f"so every word puts {prev} or more on the word before it. "
        f"Head 1, same word: query {SAME_GAIN}·code, key code, so a word attends evenly to every copy "
        f"of itself so far, this one included (the last \"the\": {the} on each of the {n_the}). "
        f"Head 2, first token: every word puts {first} or more on the first word. "
        f"Head 3, local window: head 0's query divided by {SHARP}, so the weight spreads over the word "
        f"itself and the two before it (the last word: {w}). "
        "Every head's value is the word's code, so its context is the code of the words it looks at."
    )
    about_zh = (
        "权重由脚本（scripts/make_heads_preset.py）手工设定，并非训练所得，让 4 个头各做一件事："
        "打开“比较各头”可以并排查看它们的注意力权重。使用因果掩码。"
        f"X 的 {D_MODEL} 列依次是：1、位置 p、p²、第一个词元的标记，以及这个词的编码"
        f"（{HEAD_DIM} 个数，每个为 ±1）。"
        f"头 0，前一个词元：它的注意力分数是 −{SHARP}·（与前一个位置的距离）²，"
        f"所以每个词都把 {prev} 或更多的权重给它前面的那个词。"
        f"头 1，相同的词：查询是 {SAME_GAIN}·编码，键是编码，所以一个词平均关注它自己到目前为止的每一次出现，"
        f"包括这一次（最后一个“the”在 {n_the} 个“the”上各给 {the}）。"
        f"头 2，第一个词元：每个词都把 {first} 或更多的权重给第一个词。"
        f"头 3，局部窗口：把头 0 的查询除以 {SHARP}，权重就分散在这个词自己和它前面的两个词上"
        f"（最后一个词：{w_zh}）。"
        "每个头的值都是词的编码，所以它的上下文向量就是它所关注的那些词的编码。"
    )
    return about, about_zh


def matrix(rows, indent):
    pad = " " * indent
    return "[" + (",\n" + pad).join("[" + ", ".join(str(v) for v in r) + "]" for r in rows) + "]"


def preset_text(X, Wq, Wk, Wv, m):
    about, about_zh = texts(m)
    q = lambda s: json.dumps(s, ensure_ascii=False)
    tokens = ", ".join(q(t) for t in TOKENS)
    return (
        "{\n"
        f'  "title": {q("Four heads, four jobs (hand-set weights)")},\n'
        f'  "about": {q(about)},\n'
        '  "zh-CN": {\n'
        f'    "title": {q("四个头，四种分工（手工设定的权重）")},\n'
        f'    "about": {q(about_zh)}\n'
        "  },\n"
        '  "state": {\n'
        '    "version": 1,\n'
        f'    "tokens": [{tokens}],\n'
        f'    "d_model": {D_MODEL}, "d_out": {D_OUT}, "num_heads": {HEADS},\n'
        f'    "embedding": {{"values": {matrix(X, 29)}}},\n'
        '    "positional": "none",\n'
        f'    "weights": {{"W_q": {matrix(Wq, 24)},\n'
        f'                "W_k": {matrix(Wk, 24)},\n'
        f'                "W_v": {matrix(Wv, 24)}}},\n'
        '    "qkv_bias": false, "out_proj": false, "out_bias": false,\n'
        '    "scale": "head_dim", "temperature": 1,\n'
        '    "causal": true, "mask_fill": "-inf", "safe_softmax": false,\n'
        '    "dropout": {"p": 0, "training": false, "seed": 123}\n'
        "  }\n"
        "}\n"
    )


def report(m, label):
    print(f"{label}:")
    print(f"  head 0 previous token: min weight on key i-1 (rows 1-{S - 1}) {m['prev']:.4f}")
    print(f"  head 1 same word:      min mass on the same word {m['same_mass']:.4f} "
          f"(max distance from an even share {m['same_spread']:.4f})")
    print(f"  head 2 first token:    min weight on key 0 {m['first']:.4f}")
    print(f"  head 3 local window:   min mass on keys i-2..i (rows 2-{S - 1}) {m['window_mass']:.4f}, "
          f"each key >= {m['window_each']:.4f}")
    for (a, b), d in m["js"].items():
        print(f"  JS divergence heads {a},{b}: {d:.3f} nats")
    print(f"  mean JS divergence: {sum(m['js'].values()) / len(m['js']):.3f} nats")


def run_cli(cli, path):
    with open(path, encoding="utf-8") as f:
        state = json.load(f)["state"]
    r = subprocess.run([cli, "run", "-"], input=json.dumps(state), capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{cli} run {path} failed ({r.returncode}): {r.stderr}")
    rep = json.loads(r.stdout)
    return np.array([[[float(v) if not isinstance(v, str) else float(v.replace("inf", "Infinity"))
                       for v in row] for row in h["weights"]] for h in rep["heads"]])


def main(argv):
    check = "--check" in argv
    cli = argv[argv.index("--cli") + 1] if "--cli" in argv else None
    X, Wq, Wk, Wv = build()
    W = attention_weights(X, Wq, Wk)
    m = measure(W)
    text = preset_text(X, Wq, Wk, Wv, m)
    failed = problems(m)
    report(m, "this script's weights")
    json.loads(text)  # valid JSON
    if check:
        with open(OUT, encoding="utf-8") as f:
            if f.read() != text:
                failed.append(f"{os.path.relpath(OUT, ROOT)} is not what this script writes "
                              "(run scripts/make_heads_preset.py and commit the result)")
    else:
        with open(OUT, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {os.path.relpath(OUT, ROOT)}")
    if cli:
        Wc = run_cli(cli, OUT)
        if Wc.shape != W.shape:
            failed.append(f"the CLI's weights have shape {Wc.shape}, not {W.shape}")
        else:
            diff = float(np.max(np.abs(Wc - W)))
            print(f"CLI ({cli}): max |CLI weight - this script's| = {diff:.2e}")
            if not diff <= 1e-6:
                failed.append(f"the CLI's weights differ from this script's by {diff:.2e} > 1e-6")
            mc = measure(Wc)
            report(mc, "the CLI's weights")
            failed += ["CLI: " + p for p in problems(mc)]
    for p in failed:
        print("FAIL:", p, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
