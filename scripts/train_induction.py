#!/usr/bin/python3
"""Train induction-2l: a tiny 2-layer attention-only transformer that learns
to continue repeated token patterns (issue 33).

Regenerate everything (from the repository root, Debian's python3-torch 1.13):

    /usr/bin/python3 scripts/train_induction.py            # ~1.5 min, one thread
    /usr/bin/python3 tests/fixtures/model_fixtures.py      # engine fixtures

The first command writes

    assets/models/induction-2l.safetensors              final weights (~0.2 MB)
    assets/models/induction-2l-checkpoints.safetensors  every checkpoint (~1.5 MB)
    assets/models/induction-2l.json                     the model card

and the second reads those files back and writes tests/fixtures/data/model/.
Commit the regenerated files together. The tensors are a function of --seed
(torch single-threaded; the same CPU kind gives the same bytes), and so is the
card except for training.seconds, the measured wall time.
tests/models/test_train_induction.py (ctest Models.TrainInductionReproduces)
re-trains the first 50 steps and compares them with the shipped checkpoints.

Model. Vocabulary: id 0 is the start token "<s>", ids 1..64 are the symbols
A-Z a-z 0-9 @ #. Context 64, d_model 64, 4 heads of 16, 2 layers, no LayerNorm,
no MLP:

    x = tok_emb(ids) + pos_emb(0..S-1)          # both nn.Embedding
    for each layer:  x = x + attn(x)            # residual stream
    logits = unembed(x)                         # nn.Linear(64, 65, bias=False)

attn is the tutorials' causal MultiHeadAttention with dropout 0, step by step:

    q, k, v = W_query(x), W_key(x), W_value(x)              # nn.Linear, no bias
    q, k, v -> view(b, S, 4, 16).transpose(1, 2)            # (b, heads, S, 16)
    scores  = q @ k.transpose(2, 3)
    scores.masked_fill_(j > i, -inf)                        # causal
    weights = torch.softmax(scores / 16 ** 0.5, dim=-1)     # scaled after the mask
    context = (weights @ v).transpose(1, 2).contiguous().view(b, S, 64)
    out     = out_proj(context)                             # nn.Linear with bias

State-dict names (PyTorch's own layout: an nn.Linear weight is (out, in), so
y = x @ W.T + b): tok_emb.weight (65, 64), pos_emb.weight (64, 64),
layers.{0,1}.{W_query,W_key,W_value}.weight (64, 64),
layers.{0,1}.out_proj.weight (64, 64), layers.{0,1}.out_proj.bias (64,),
unembed.weight (65, 64).

Data. A training sequence is 64 tokens: "<s>", then a period p drawn uniformly
from 4..32 and p symbols drawn uniformly (with replacement) from ids 1..64,
repeated until 63 tokens. The loss is the mean cross-entropy of the next token
at every position 0..62. The only way to beat chance after the first period is
to find the previous occurrence of the current token and copy what followed
it: an induction circuit (a previous-token head in layer 0 feeding the keys of
an induction head in layer 1).

Randomness, all from --seed (default 0): torch.manual_seed(seed) before the
module is built (its initial weights), a torch.Generator seeded seed + 1000
for the training batches, and one seeded seed + 2000 for the held-out
evaluation set (256 sequences) on which the card's losses are measured.
AdamW (lr 3e-3, weight decay 0.01, PyTorch's defaults otherwise), batch 64,
constant learning rate, 1000 steps.

Files. The .safetensors files are written by hand (the safetensors package is
not in Debian 12): 8-byte little-endian header length, a JSON header
{name: {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]},
"__metadata__": {string: string}} padded with spaces to a multiple of 8, then
the raw little-endian float32 data in header order. The checkpoints file holds
every checkpoint with keys "step_{step:04d}.{name}"; its last checkpoint is the
main file's tensors, bit for bit.

Head scores (the card's checkpoints; the engine re-implements them). Run the
forward pass in float64 (the float32 weights converted) on tokens t_0..t_{S-1};
A is one head's attention weights after the softmax (S x S):
    previous_token  = mean over i = 1..S-1 of A[i, i-1]            (0 if S < 2)
    first_token     = mean over i = 0..S-1 of A[i, 0]
    duplicate_token = mean over the rows i having some j < i with t_j == t_i
                      of sum_{j<i, t_j == t_i} A[i, j]                (0 if none)
    induction       = the same rows, of sum_{j<i, t_j == t_i} A[i, j+1]
                                                                      (0 if none)
They are measured on the card's probe: "<s>" then r then r again, r being 24
distinct symbols (torch.manual_seed(probe seed); torch.randperm(64)[:24] + 1).
"""

import argparse
import json
import os
import struct
import sys
import time

# One thread everywhere, before torch loads its BLAS: Debian's torch multiplies
# with OpenBLAS (pthreads build), whose own thread pool ignores
# torch.set_num_threads, and its threaded and single-threaded products differ
# in the last bits (a 2-thread run drifts from a 1-thread one by step 50).
os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"

import ctypes  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.join(ROOT, "assets", "models")
NAME = "induction-2l"
WEIGHTS_FILE = NAME + ".safetensors"
CHECKPOINTS_FILE = NAME + "-checkpoints.safetensors"
CARD_FILE = NAME + ".json"

START = "<s>"
SYMBOLS = ([chr(c) for c in range(ord("A"), ord("Z") + 1)]
           + [chr(c) for c in range(ord("a"), ord("z") + 1)]
           + [chr(c) for c in range(ord("0"), ord("9") + 1)] + ["@", "#"])
VOCAB = [START] + SYMBOLS
V = len(VOCAB)  # 65
CONTEXT = 64
D_MODEL = 64
NUM_HEADS = 4
NUM_LAYERS = 2
PERIOD = (4, 32)  # inclusive

STEPS = 1000
BATCH = 64
LR = 3e-3
WEIGHT_DECAY = 0.01
CHECKPOINT_STEPS = (0, 50, 100, 200, 300, 500, 700, 1000)
EVAL_EVERY = 10
EVAL_SEQUENCES = 256
PROBE_REPEAT = 24
PROBE_SEED = 33
SCORE_KEYS = ("previous_token", "induction", "first_token", "duplicate_token")


def one_thread():
    """torch and OpenBLAS on one thread, also when torch was imported before
    this module (the environment above is then too late for OpenBLAS)."""
    torch.set_num_threads(1)
    try:
        ctypes.CDLL("libopenblas.so.0").openblas_set_num_threads(1)
    except (OSError, AttributeError):
        pass  # another BLAS: torch.set_num_threads covers MKL and OpenMP


# ---------------------------------------------------------------------------
# The model
class MultiHeadAttention(nn.Module):
    """Causal multi-head self-attention as the tutorials write it (dropout 0)."""

    def __init__(self, d_model, context, num_heads):
        super().__init__()
        assert d_model % num_heads == 0
        self.num_heads = num_heads
        self.head_dim = d_model // num_heads
        self.d_model = d_model
        self.W_query = nn.Linear(d_model, d_model, bias=False)
        self.W_key = nn.Linear(d_model, d_model, bias=False)
        self.W_value = nn.Linear(d_model, d_model, bias=False)
        self.out_proj = nn.Linear(d_model, d_model)
        # Not part of the state dict: the files hold the learned tensors only.
        self.register_buffer("mask", torch.triu(torch.ones(context, context), diagonal=1).bool(),
                             persistent=False)

    def forward(self, x, keep=None):
        b, S, _ = x.shape
        q = self.W_query(x).view(b, S, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.W_key(x).view(b, S, self.num_heads, self.head_dim).transpose(1, 2)
        v = self.W_value(x).view(b, S, self.num_heads, self.head_dim).transpose(1, 2)
        scores = q @ k.transpose(2, 3)
        scores.masked_fill_(self.mask[:S, :S], -torch.inf)
        weights = torch.softmax(scores / k.shape[-1] ** 0.5, dim=-1)
        context = (weights @ v).transpose(1, 2).contiguous().view(b, S, self.d_model)
        out = self.out_proj(context)
        if keep is not None:
            keep.append({"weights": weights, "output": out})
        return out


class InductionModel(nn.Module):
    """Token + learned position embeddings, residual attention layers, unembedding."""

    def __init__(self, vocab=V, context=CONTEXT, d_model=D_MODEL, num_heads=NUM_HEADS,
                 num_layers=NUM_LAYERS):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab, d_model)
        self.pos_emb = nn.Embedding(context, d_model)
        self.layers = nn.ModuleList(MultiHeadAttention(d_model, context, num_heads)
                                    for _ in range(num_layers))
        self.unembed = nn.Linear(d_model, vocab, bias=False)

    def forward(self, ids, details=None):
        """ids: (b, S) long. With details = {} it also fills in "residual"
        (x0, x1, ...) and "layers" ({"weights", "output"} per layer)."""
        S = ids.shape[1]
        x = self.tok_emb(ids) + self.pos_emb(torch.arange(S))
        keep = None
        if details is not None:
            keep = []
            details["residual"] = [x]
            details["layers"] = keep
        for layer in self.layers:
            x = x + layer(x, keep)
            if details is not None:
                details["residual"].append(x)
        return self.unembed(x)


def build_model(seed):
    torch.manual_seed(seed)
    return InductionModel()


# ---------------------------------------------------------------------------
# Data
def make_batch(gen, batch=BATCH, length=CONTEXT):
    """(batch, length) ids: "<s>" then a random block of period 4..32 repeated."""
    periods = torch.randint(PERIOD[0], PERIOD[1] + 1, (batch,), generator=gen)
    blocks = torch.randint(1, V, (batch, PERIOD[1]), generator=gen)
    where = torch.arange(length - 1).unsqueeze(0) % periods.unsqueeze(1)
    body = torch.gather(blocks, 1, where)
    return torch.cat([torch.zeros(batch, 1, dtype=torch.long), body], dim=1)


def next_token_loss(model, ids):
    logits = model(ids)
    return F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))


def eval_set(seed):
    gen = torch.Generator().manual_seed(seed + 2000)
    return [make_batch(gen) for _ in range(EVAL_SEQUENCES // BATCH)]


def eval_loss(model, batches):
    with torch.no_grad():
        return sum(float(next_token_loss(model, b)) for b in batches) / len(batches)


def snapshot(model):
    return {n: t.detach().clone() for n, t in model.state_dict().items()}


def train(seed=0, steps=STEPS, checkpoint_steps=CHECKPOINT_STEPS, evaluate=True, log=None):
    """Train from seed for `steps` updates. Returns {"checkpoints": {step: state
    dict copy} for the checkpoint steps <= steps, "losses": {step: held-out
    loss} every EVAL_EVERY steps and at each checkpoint (when evaluate),
    "model": the module}. Stopping early gives the same tensors as a full
    run up to that step (constant learning rate, nothing depends on steps)."""
    one_thread()
    model = build_model(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
    gen = torch.Generator().manual_seed(seed + 1000)
    held_out = eval_set(seed) if evaluate else None
    checkpoints, losses = {}, {}
    for step in range(steps + 1):
        if evaluate and (step % EVAL_EVERY == 0 or step in checkpoint_steps):
            losses[step] = eval_loss(model, held_out)
            if log and step % 100 == 0:
                log("step %4d  held-out loss %.4f" % (step, losses[step]))
        if step in checkpoint_steps:
            checkpoints[step] = snapshot(model)
        if step == steps:
            break
        loss = next_token_loss(model, make_batch(gen))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {"checkpoints": checkpoints, "losses": losses, "model": model}


# ---------------------------------------------------------------------------
# Head scores
def probe_tokens(seed=PROBE_SEED, repeat=PROBE_REPEAT):
    torch.manual_seed(seed)
    r = (torch.randperm(len(SYMBOLS))[:repeat] + 1).tolist()
    return [START] + [VOCAB[i] for i in r] * 2


def token_ids(tokens):
    index = {t: i for i, t in enumerate(VOCAB)}
    return torch.tensor([[index[t] for t in tokens]], dtype=torch.long)


def scores_from_weights(A, ids):
    """The four scores of one head: A (S, S) float64, ids a list of S ints."""
    S = len(ids)
    prev = sum(float(A[i, i - 1]) for i in range(1, S)) / (S - 1) if S >= 2 else 0.0
    first = sum(float(A[i, 0]) for i in range(S)) / S
    dup, ind, rows = 0.0, 0.0, 0
    for i in range(S):
        js = [j for j in range(i) if ids[j] == ids[i]]
        if not js:
            continue
        rows += 1
        dup += sum(float(A[i, j]) for j in js)
        ind += sum(float(A[i, j + 1]) for j in js)
    return {"previous_token": prev, "induction": ind / rows if rows else 0.0,
            "first_token": first, "duplicate_token": dup / rows if rows else 0.0}


def head_scores(state_dict, tokens):
    """{"layers": [{"heads": [{score: value}]}]}, unrounded, from a float64 forward."""
    model = InductionModel().double()
    model.load_state_dict({n: t.double() for n, t in state_dict.items()})
    ids = token_ids(tokens)
    details = {}
    with torch.no_grad():
        model(ids, details)
    flat = ids[0].tolist()
    return {"layers": [{"heads": [scores_from_weights(layer["weights"][0, h], flat)
                                  for h in range(NUM_HEADS)]}
                       for layer in details["layers"]]}


def best_heads(scores):
    """(layer-0 head, previous_token), (layer-1 head, induction): the best of each."""
    l0 = scores["layers"][0]["heads"]
    l1 = scores["layers"][1]["heads"]
    p = max(range(len(l0)), key=lambda h: l0[h]["previous_token"])
    i = max(range(len(l1)), key=lambda h: l1[h]["induction"])
    return (p, l0[p]["previous_token"]), (i, l1[i]["induction"])


def rounded(scores, digits=4):
    return {"layers": [{"heads": [{k: round(h[k], digits) for k in SCORE_KEYS} for h in layer["heads"]]}
                       for layer in scores["layers"]]}


# ---------------------------------------------------------------------------
# safetensors (by hand)
def save_safetensors(path, tensors, metadata):
    """tensors: ordered {name: float32 tensor}; metadata: {str: str}."""
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        assert t.dtype == torch.float32, name
        raw = t.detach().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    header["__metadata__"] = dict(metadata)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


def load_safetensors(path):
    """(metadata, {name: float32 tensor}) in header order, F32 only."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", {})
    body = data[8 + n:]
    out = {}
    for name, e in header.items():
        if e["dtype"] != "F32":
            raise ValueError("%s: dtype %s, only F32 is expected" % (name, e["dtype"]))
        b0, b1 = e["data_offsets"]
        t = torch.frombuffer(bytearray(body[b0:b1]), dtype=torch.float32)
        out[name] = t.reshape(e["shape"]).clone()
    return meta, out


def checkpoint_state(all_tensors, prefix):
    return {n[len(prefix):]: t for n, t in all_tensors.items() if n.startswith(prefix)}


def load_model(state_dict):
    model = InductionModel()
    model.load_state_dict(state_dict)
    return model.eval()


# ---------------------------------------------------------------------------
# The card
TENSOR_ROLES = {
    "tok_emb.weight": "token embedding table (nn.Embedding): row i is the vector added for token id i",
    "pos_emb.weight": "learned position embedding table (nn.Embedding): row p is added at position p",
    "W_query.weight": "query projection, nn.Linear without bias, (out, in): q = x @ W.T; "
                      "head h uses output rows 16h..16h+15",
    "W_key.weight": "key projection, nn.Linear without bias, (out, in): k = x @ W.T; "
                    "head h uses output rows 16h..16h+15",
    "W_value.weight": "value projection, nn.Linear without bias, (out, in): v = x @ W.T; "
                      "head h uses output rows 16h..16h+15",
    "out_proj.weight": "output projection of the concatenated heads, nn.Linear (out, in): "
                       "out = context @ W.T + b; input column 16h..16h+15 comes from head h",
    "out_proj.bias": "output projection bias, added to every position",
    "unembed.weight": "unembedding, nn.Linear without bias, (out, in) = (vocabulary, d_model): "
                      "logits = x @ W.T",
}


def tensor_role(name):
    key = name.split(".", 2)[-1] if name.startswith("layers.") else name
    role = TENSOR_ROLES[key]
    if name.startswith("layers."):
        role = "layer %s %s" % (name.split(".")[1], role)
    return role


SUMMARY = ("A two-layer, attention-only transformer trained on randomly repeated symbol "
           "blocks, small enough to inspect, whose heads learn to look one token back "
           "(layer 0) and to copy what followed the previous occurrence of the current "
           "token (layer 1).")
ARCHITECTURE = (
    "Token ids (65: the start token and 64 symbols) are looked up in a token table and a "
    "learned position table (64 positions) and the two rows are added to form a 64-wide "
    "residual stream. Each of the two layers is causal multi-head self-attention with 4 "
    "heads of width 16: bias-free query, key and value projections, per-head scores "
    "q.k masked to -inf above the diagonal, divided by sqrt(16) and softmaxed over keys, "
    "the weighted values concatenated head by head and passed through an output "
    "projection with bias; the layer's output is added back onto the stream. There is no "
    "LayerNorm and no MLP. A bias-free linear unembedding maps the final stream to 65 "
    "next-token logits. Weights are stored in PyTorch's own layout (nn.Linear: out x in).")


def dumps(obj, indent=0):
    """Pretty JSON with short things on one line (lists of scalars, flat objects)."""
    pad = "  " * indent
    flat = lambda x: not isinstance(x, (dict, list))  # noqa: E731
    if isinstance(obj, dict):
        if all(flat(v) for v in obj.values()) and len(obj) <= 6:
            return "{" + ", ".join(json.dumps(k) + ": " + json.dumps(v) for k, v in obj.items()) + "}"
        return "{\n" + ",\n".join(pad + "  " + json.dumps(k) + ": " + dumps(v, indent + 1)
                                  for k, v in obj.items()) + "\n" + pad + "}"
    if isinstance(obj, list):
        if all(flat(x) for x in obj):
            return "[" + ", ".join(json.dumps(x, ensure_ascii=False) for x in obj) + "]"
        return "[\n" + ",\n".join(pad + "  " + dumps(x, indent + 1) for x in obj) + "\n" + pad + "]"
    return json.dumps(obj, ensure_ascii=False)


def make_card(seed, probe_seed, run, seconds, scores):
    final = run["checkpoints"][max(run["checkpoints"])]
    steps = max(run["checkpoints"])
    return {
        "name": NAME,
        "format": 1,
        "summary": SUMMARY,
        "architecture": ARCHITECTURE,
        "vocabulary": VOCAB,
        "start_token": START,
        "d_model": D_MODEL, "num_heads": NUM_HEADS, "num_layers": NUM_LAYERS, "context": CONTEXT,
        "qkv_bias": False, "out_bias": True, "unembed_bias": False,
        "tensors": [{"name": n, "shape": list(t.shape), "role": tensor_role(n)} for n, t in final.items()],
        "training": {"seed": seed, "steps": steps, "batch": BATCH, "lr": LR, "optimizer": "AdamW",
                     "weight_decay": WEIGHT_DECAY, "period": list(PERIOD), "threads": 1,
                     "torch": torch.__version__, "seconds": round(seconds),
                     "loss": "mean next-token cross-entropy (nats) on %d held-out sequences "
                             "(generator seeded seed + 2000), measured before the update of that step"
                             % EVAL_SEQUENCES},
        "loss_curve": [{"step": s, "loss": round(l, 4)} for s, l in sorted(run["losses"].items())
                       if s % EVAL_EVERY == 0],
        "probe": {"repeat_length": PROBE_REPEAT, "seed": probe_seed,
                  "tokens": probe_tokens(probe_seed, PROBE_REPEAT)},
        "checkpoints": [{"step": s, "prefix": "step_%04d." % s, "loss": round(run["losses"][s], 4),
                         "head_scores": rounded(scores[s])} for s in sorted(run["checkpoints"])],
        "files": {"weights": WEIGHTS_FILE, "checkpoints": CHECKPOINTS_FILE},
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--probe-seed", type=int, default=PROBE_SEED)
    ap.add_argument("--steps", type=int, default=STEPS)
    ap.add_argument("--out", default=MODELS, help="output directory (default assets/models)")
    args = ap.parse_args(argv)
    one_thread()
    ckpts = tuple(s for s in CHECKPOINT_STEPS if s < args.steps) + (args.steps,)

    t0 = time.monotonic()
    run = train(args.seed, args.steps, ckpts, log=lambda m: print(m, flush=True))
    seconds = time.monotonic() - t0
    print("training: %d steps in %.1f s (one thread)" % (args.steps, seconds))

    probe = probe_tokens(args.probe_seed)
    scores = {s: head_scores(sd, probe) for s, sd in run["checkpoints"].items()}
    print("checkpoint  loss    best L0 previous_token  best L1 induction")
    for s in sorted(scores):
        (ph, pv), (ih, iv) = best_heads(scores[s])
        print("%10d  %.4f  head %d %.4f           head %d %.4f" % (s, run["losses"][s], ph, pv, ih, iv))

    os.makedirs(args.out, exist_ok=True)
    last = run["checkpoints"][args.steps]
    meta = {"format": "pt", "name": NAME, "seed": str(args.seed), "step": str(args.steps)}
    save_safetensors(os.path.join(args.out, WEIGHTS_FILE), last, meta)
    every = {}
    for s in sorted(run["checkpoints"]):
        for n, t in run["checkpoints"][s].items():
            every["step_%04d.%s" % (s, n)] = t
    save_safetensors(os.path.join(args.out, CHECKPOINTS_FILE), every,
                     dict(meta, steps=",".join(str(s) for s in sorted(run["checkpoints"]))))
    card = make_card(args.seed, args.probe_seed, run, seconds, scores)
    with open(os.path.join(args.out, CARD_FILE), "w", encoding="utf-8") as f:
        f.write(dumps(card) + "\n")
    for fn in (WEIGHTS_FILE, CHECKPOINTS_FILE, CARD_FILE):
        print("wrote %s (%d bytes)" % (os.path.join(args.out, fn), os.path.getsize(os.path.join(args.out, fn))))
    (_, pv), (_, iv) = best_heads(scores[args.steps])
    if pv < 0.4 or iv < 0.4:
        print("goal missed: layer-0 previous_token %.4f, layer-1 induction %.4f (want >= 0.4)" % (pv, iv))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
