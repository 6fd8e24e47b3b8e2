#!/usr/bin/python3
"""Writes assets/presets/13-long-context.json: a long text (COUNT tokens) whose maps show
the three things a learner reads about long contexts (issue 36): a sink on the first
token, the band of StreamingLLM's window, and RoPE's decay with distance.

Usage (from the repository root; Debian's /usr/bin/python3, no numpy needed):
  scripts/make_long_preset.py --cli build/native/attnviz-cli     write the preset
  scripts/make_long_preset.py --cli build/native/attnviz-cli --check
                                  write nothing; fail unless the committed file is byte for
                                  byte what this script writes

The text is ours: six short sentences about a harbour, taken in turn after "<s>" until
COUNT tokens (the app expands them at load time: presets.h "long_text"; the preset
stores the sentences and the count, not COUNT tokens, which would not fit the compact
embed build). The state's "tokens" holds only the first sentence, for readers of the
file that do not expand (the PyTorch export check).

Set-up: d_model 48 (X seeded, nn.Embedding, seed 123), d_out 32, one head (head_dim 32),
RoPE (half) with base 1e6, Q/K/V biases, causal, StreamingLLM's cache (the first 4 keys and
the last RECENT), explicit weights that are zero except:
  b_q, b_k   pairs k = 0 … 14 (columns k and k + 16) hold (A, 0): q_i · k_j gets
             A² Σ_k cos((i − j)·θ_k), θ_k = base^(−2k/32): the same at every offset
             whatever the words, largest at 0 and falling as the offset grows (RoPE's
             long-range decay, RoFormer §3.4.3): the scores map fades from its diagonal.
  W_k col 15 SINK · w, where w is the least-norm solution of w·x(<s>) = 1 and
             w·x(word) = 0 for the 41 other words (48 unknowns, 42 equations), so k's
             column 15 is SINK for the first token and 0 for every other one.
  W_k col k  −A · w for the decay pairs (k = 0 … 14): the first token's key cancels b_k
             there, so its score has no decay term, only the sink's.
  b_q col 15 1: pair 15 turns by i·θ_15 ≤ 0.02 rad over 8,192 tokens, so every query's
             score with key 0 is about SINK, the same in every row: a sink whose share
             does not swing with the decay's value at offset i, and a diagonal (the
             nearest keys) that stands out beside it in every row of the weights map.
  W_v        the identity on X's first 32 columns (each context mixes the tokens' embeddings).
SINK is chosen (bisection) so that the last query puts SINK_SHARE of its weight on key 0.
"""
import json
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "assets", "presets", "13-long-context.json")

COUNT = 8192            # tokens: the one number to change (2,048 until the engine had its long mode)
RECENT = COUNT // 16    # StreamingLLM's window: 128 keys at 2,048 tokens, 512 at 8,192
SINK_TOKENS = 4         # StreamingLLM's kept first keys (the paper's 4)
D_MODEL, D_OUT = 48, 32
HEAD_DIM = D_OUT
PAIRS = HEAD_DIM // 2
BASE = 1e6
A = 3.0                 # decay pairs' amplitude: score A² Σ cos, scaled by 1/√32
SINK_SHARE = 0.4        # the last query's weight on the first token
SEED = 123
FIRST = ["<s>"]
SENTENCES = [
    "the tide comes in and the boats rise .",
    "the tide goes out and the boats rest on the sand .",
    "a gull waits on the old wall , then flies to the boats .",
    "at night the light turns and the sea is dark .",
    "in the morning the nets are wet and full of fish .",
    "the keeper counts the boats and writes the count in a book .",
]


def expand():
    """The tokens the app's expand_long_text makes of this description."""
    out = list(FIRST)
    k = 0
    while len(out) < COUNT:
        for t in SENTENCES[k % len(SENTENCES)].split():
            if len(out) < COUNT:
                out.append(t)
        k += 1
    return out


def vocabulary(tokens):
    vocab = []
    for t in tokens:
        if t not in vocab:
            vocab.append(t)
    return vocab


def embeddings(cli, vocab):
    """X's rows for the vocabulary, from the engine (nn.Embedding with seed SEED, rows in
    first-appearance order: a state of the vocabulary alone has the same rows)."""
    state = {"tokens": vocab, "d_model": D_MODEL, "d_out": 4, "embedding": {"init": "torch_randn", "seed": SEED}}
    r = subprocess.run([cli, "run", "-"], input=json.dumps(state), capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{cli} run failed ({r.returncode}): {r.stderr}")
    return [[float(v) for v in row] for row in json.loads(r.stdout)["X"]]


def least_norm(rows, rhs):
    """w with rows · w = rhs and the least |w| (w = Rᵀ (R Rᵀ)⁻¹ rhs), by Gaussian elimination."""
    n = len(rows)
    G = [[sum(a * b for a, b in zip(rows[i], rows[j])) for j in range(n)] + [rhs[i]] for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(G[r][c]))
        G[c], G[p] = G[p], G[c]
        for r in range(n):
            if r != c:
                f = G[r][c] / G[c][c]
                G[r] = [x - f * y for x, y in zip(G[r], G[c])]
    y = [G[i][n] / G[i][i] for i in range(n)]
    return [sum(y[i] * rows[i][d] for i in range(n)) for d in range(len(rows[0]))]


def theta(k):
    return BASE ** (-2.0 * k / HEAD_DIM)


def decay(delta):
    """The scores' part that depends only on the offset: A² Σ_{k<15} cos(δ·θ_k)."""
    return A * A * sum(math.cos(delta * theta(k)) for k in range(PAIRS - 1))


def last_row(sink):
    """The last query's weights over its kept keys {0 … SINK_TOKENS−1} ∪ the last RECENT."""
    i = COUNT - 1
    keys = sorted(set(range(SINK_TOKENS)) | set(range(i - RECENT + 1, i + 1)))
    s = [(sink * math.cos(i * theta(PAIRS - 1)) if j == 0 else decay(i - j)) / math.sqrt(HEAD_DIM) for j in keys]
    top = max(s)
    e = [math.exp(v - top) for v in s]
    z = sum(e)
    return {j: v / z for j, v in zip(keys, e)}


def sink_gain():
    lo, hi = 0.0, 200.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if last_row(mid)[0] < SINK_SHARE:
            lo = mid
        else:
            hi = mid
    return round(hi, 2)


def num(v):
    """A float32 value's shortest decimal (9 significant digits always reads back)."""
    if v == 0:
        return "0"
    s = f"{v:.9g}"
    return s


def vector(v):
    return "[" + ", ".join(num(x) for x in v) + "]"


def matrix(rows, indent):
    pad = " " * indent
    return "[" + (",\n" + pad).join("[" + ", ".join(num(v) for v in r) + "]" for r in rows) + "]"


def texts(sink, row):
    i = COUNT - 1
    near, far = row[i], row[i - RECENT + 1]
    n = f"{COUNT:,}"
    about = (
        f"A long text of {n} tokens (six short sentences about a harbour, taken in turn after <s>), made to "
        f"show three long-context patterns in one head. RoPE (base 1e6) with Q/K biases only on 15 of the "
        f"16 rotated pairs makes each score depend on the offset between query and key alone: the scores map "
        f"is brightest on its diagonal and fades as the offset grows (RoPE's decay with distance). "
        f"StreamingLLM's cache keeps the first {SINK_TOKENS} keys and the last {RECENT}: the masked map "
        f"shows a band along the diagonal and the first columns; in the weights map the first column and the "
        f"diagonal stand out, since the nearest keys weigh most. The last pair carries a key "
        f"only the first token has (weight {sink} along a direction orthogonal to every other word's "
        f"embedding), so every query gives <s> a large share: the last query puts {row[0]:.2f} on it, "
        f"{near:.4f} on itself and {far:.1e} on the oldest key of its window. Use Go to token (type an "
        f"index) to move through the text; hand-set weights written by scripts/make_long_preset.py."
    )
    about_zh = (
        f"一段 {n} 个词元的长文本（<s> 之后轮流重复六个关于港口的短句），用来在一个头里看长上下文的三种模式。"
        f"RoPE（base 1e6），Q/K 偏置只放在 16 对旋转维度中的 15 对上，于是每个注意力分数只取决于查询与键之间的距离："
        f"注意力分数图在对角线上最亮，距离越远越暗（RoPE 随距离的衰减）。StreamingLLM 的缓存保留最前面的 "
        f"{SINK_TOKENS} 个键和最近的 {RECENT} 个：掩码图上是一条沿对角线的带子和最前面的几列；注意力权重图上"
        f"第一列和对角线最显眼，因为越近的键权重越大。"
        f"最后一对维度带一个只有第一个词元才有的键（权重 {sink}，方向与其他每个词的嵌入正交），所以每个查询都把"
        f"很大一份权重给 <s>：最后一个查询给它 {row[0]:.2f}，给自己 {near:.4f}，给窗口里最早的键 {far:.1e}。"
        f"用“转到词元”（输入序号）在文本中移动；权重由 scripts/make_long_preset.py 手工设定。"
    )
    return about, about_zh


def preset_text(w, sink, row):
    about, about_zh = texts(sink, row)
    q = lambda s: json.dumps(s, ensure_ascii=False)
    zeros = [[0.0] * D_OUT for _ in range(D_MODEL)]
    Wk = [[sink * w[d] if c == PAIRS - 1 else (-A * w[d] if c < PAIRS - 1 else 0.0) for c in range(D_OUT)]
          for d in range(D_MODEL)]
    Wv = [[1.0 if c == d else 0.0 for c in range(D_OUT)] for d in range(D_MODEL)]
    bq = [A if k < PAIRS - 1 else (1.0 if k == PAIRS - 1 else 0.0) for k in range(D_OUT)]
    bk = [A if k < PAIRS - 1 else 0.0 for k in range(D_OUT)]
    first = ", ".join(q(t) for t in FIRST + SENTENCES[0].split())
    return (
        "{\n"
        f'  "title": {q("Long context: a sink, a window, RoPE decay")},\n'
        f'  "about": {q(about)},\n'
        '  "zh-CN": {\n'
        f'    "title": {q("长上下文：注意力汇、窗口与 RoPE 衰减")},\n'
        f'    "about": {q(about_zh)}\n'
        "  },\n"
        '  "long_text": {\n'
        f'    "first": [{", ".join(q(t) for t in FIRST)}],\n'
        f'    "sentences": [{(", " + chr(10) + "                  ").join(q(s) for s in SENTENCES)}],\n'
        f'    "count": {COUNT}\n'
        "  },\n"
        '  "state": {\n'
        '    "version": 1,\n'
        f'    "tokens": [{first}],\n'
        f'    "d_model": {D_MODEL}, "d_out": {D_OUT}, "num_heads": 1,\n'
        f'    "embedding": {{"init": "torch_randn", "seed": {SEED}}},\n'
        f'    "positional": "rope", "rope": {{"base": {int(BASE)}, "style": "half"}},\n'
        f'    "weights": {{"W_q": {matrix(zeros, 24)},\n'
        f'                "W_k": {matrix(Wk, 24)},\n'
        f'                "W_v": {matrix(Wv, 24)},\n'
        f'                "b_q": {vector(bq)},\n'
        f'                "b_k": {vector(bk)},\n'
        f'                "b_v": {vector([0.0] * D_OUT)}}},\n'
        '    "qkv_bias": true, "out_proj": false, "out_bias": false,\n'
        '    "scale": "head_dim", "temperature": 1,\n'
        '    "causal": true, "mask_fill": "-inf", "safe_softmax": false,\n'
        f'    "kv_cache": {{"policy": "streaming_llm", "sink_tokens": {SINK_TOKENS}, "recent": {RECENT}}},\n'
        '    "dropout": {"p": 0, "training": false, "seed": 123}\n'
        "  }\n"
        "}\n"
    )


def main(argv):
    if "--cli" not in argv:
        sys.exit("usage: scripts/make_long_preset.py --cli build/native/attnviz-cli [--check]")
    cli = argv[argv.index("--cli") + 1]
    vocab = vocabulary(expand())
    X = embeddings(cli, vocab)
    assert len(vocab) < D_MODEL, "the sink's direction needs more dimensions than words"
    w = least_norm(X, [1.0] + [0.0] * (len(vocab) - 1))
    sink = sink_gain()
    row = last_row(sink)
    text = preset_text(w, sink, row)
    print(f"{COUNT} tokens, {len(vocab)} words; sink gain {sink}; last query: key 0 {row[0]:.4f}, "
          f"itself {row[COUNT - 1]:.4f}, oldest of its window {row[COUNT - RECENT]:.4f}")
    print("offset decay (scaled):", ", ".join(f"{d}: {decay(d) / math.sqrt(HEAD_DIM):.2f}"
                                              for d in (0, 1, 4, 16, 64, 256, 1024, COUNT - 1)))
    if "--check" in argv:
        with open(OUT, encoding="utf-8") as f:
            if f.read() != text:
                sys.exit(f"{OUT} is not what {sys.argv[0]} writes: run it without --check")
        print("ok")
        return
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print("wrote", OUT)


if __name__ == "__main__":
    main(sys.argv)
