"""A learner's attention module and its input → an attnviz state.

The module's parameters go through the weights reader's families (_mapping.py,
the same table the app's File → Open weights… uses), the owner of each telling its
orientation; attributes say the rest (heads, K/V heads, RoPE base, causal, dropout).
module_state makes the state: x as the explicit embedding, the weights in x·W orientation (nn.Linear's
weight transposed, GPT-2's Conv1D as it is), heads, K/V heads, RoPE, masks, dropout.

    parts = read_module(module, width=d)          # which family, weights, heads
    state = module_state(module, x, tokens=...)   # the attnviz state dict
"""
from __future__ import annotations

import types
from dataclasses import dataclass, field

import numpy as np

from . import _messages as msg
from ._mapping import layer_prefixes, propose
from ._state import MAX_HEADS, MAX_TOKENS, MAX_WIDTH


@dataclass
class Parts:
    family: str
    W_q: np.ndarray                      # (d_model × d_out), x·W
    W_k: np.ndarray                      # (d_model × kv_width)
    W_v: np.ndarray
    W_o: np.ndarray | None = None        # (d_out × d_out)
    b_q: np.ndarray | None = None        # (d_out)
    b_k: np.ndarray | None = None
    b_v: np.ndarray | None = None
    b_o: np.ndarray | None = None
    num_heads: int | None = None
    num_kv_heads: int | None = None
    rope_base: float | None = None
    causal: bool = False                 # what the family always does (GPT-2, Llama, a causal buffer)
    dropout: float = 0.0
    notes: list = field(default_factory=list)


def _np(t):
    if t is None:
        return None
    if hasattr(t, "detach"):
        t = t.detach().to("cpu")
        if str(t.dtype) not in ("torch.float32", "torch.float64"):
            t = t.float()
        return t.numpy().astype(np.float32)
    return np.asarray(t, dtype=np.float32)


def _first_attr(objs, names):
    for o in objs:
        if o is None:
            continue
        for n in names:
            v = getattr(o, n, None)
            if v is not None and not isinstance(v, (types.MethodType, types.FunctionType)):
                return v
    return None


def _heads(module, width, given, kind):
    cfg = getattr(module, "config", None)
    h = given or _first_attr([module, cfg], ("num_heads", "n_head", "n_heads", "num_attention_heads", "heads"))
    if h is None:
        if kind == "W_query":
            return 1  # the tutorials' SelfAttention and CausalAttention: one head
        raise msg.error("heads_unknown", kind=type(module).__name__, width=width)
    return int(h)


def _named_tensors(module):
    """Every parameter by name, and how the owner stores it (nn.Linear: out × in; Conv1D: x·W)."""
    t, kinds = {}, {}
    for mname, sub in module.named_modules():
        owner = type(sub).__name__
        for pname, prm in sub.named_parameters(recurse=False):
            full = (mname + "." if mname else "") + pname
            t[full] = _np(prm)
            if owner == "Conv1D":
                kinds[full] = "xw"
            elif owner.endswith("Linear") and sub is not module:
                kinds[full] = "linear"
    return t, kinds


def _check_mha(m):
    if getattr(m, "bias_k", None) is not None:
        raise msg.error("unsupported_option", kind="nn.MultiheadAttention", option="add_bias_kv",
                        why=("a learned key and value appended to the sequence", "在序列后追加一个学到的键和值"))
    if getattr(m, "add_zero_attn", False):
        raise msg.error("unsupported_option", kind="nn.MultiheadAttention", option="add_zero_attn",
                        why=("a zero key and value appended to the sequence", "在序列后追加一个全零的键和值"))


def _module_options(m, p: Parts, given_heads):
    """What a family's names do not say: heads, K/V heads, RoPE, causal, dropout (from attributes)."""
    cfg = getattr(m, "config", None)
    width = p.W_q.shape[1]
    if type(m).__name__ == "MultiheadAttention":
        _check_mha(m)
        p.num_heads, p.dropout = m.num_heads, float(m.dropout)
        return
    p.num_heads = _heads(m, width, given_heads, p.family)
    drop = _first_attr([m, cfg], ("attn_dropout", "attention_dropout", "dropout", "attn_pdrop"))
    p.dropout = float(getattr(drop, "p", drop) or 0.0) if not isinstance(drop, bool) else 0.0
    if p.family == "c_attn":
        p.causal = True                        # GPT-2 attends to earlier tokens only
    elif p.family == "q_proj":
        p.causal = not getattr(m, "is_causal", True) is False
        kv = _first_attr([m, cfg], ("num_key_value_heads", "num_kv_heads", "n_kv_heads"))
        head_dim = width // p.num_heads if p.num_heads else 0
        if kv is None and head_dim and p.W_k.shape[1] != width:
            kv = p.W_k.shape[1] // head_dim
        p.num_kv_heads = int(kv) if kv is not None else None
        rotary = getattr(m, "rotary_emb", None)
        base = _first_attr([m, cfg, rotary], ("rope_theta", "rope_base", "base"))
        if base is not None or rotary is not None:
            p.rope_base = float(base if base is not None else 10000.0)
    elif p.family == "W_query":
        p.causal = hasattr(m, "mask")          # CausalAttention, MultiHeadAttention: a triu buffer
    else:
        p.causal = getattr(m, "is_causal", False) is True or getattr(m, "causal", False) is True


def family_of(module):
    """The family of a module's own parameters, or None (not an attention module attnviz reads)."""
    try:
        names = [n for n, _ in module.named_parameters(recurse=True)]
    except Exception:  # noqa: BLE001 - not a module
        return None
    direct = [n for n in names if n.count(".") <= 1]
    if "" not in layer_prefixes(direct):
        return None
    _, fam = propose({n: np.zeros((3, 3)) for n in direct}, "")
    return fam


def read_module(module, num_heads=None, width_in=None) -> Parts:
    t, kinds = _named_tensors(module)
    roles, fam = propose(t, "", kinds, width_in) if "" in layer_prefixes(t) else ({}, None)
    if fam is None:
        raise msg.error("unsupported_module", kind=type(module).__name__, supported=msg.SUPPORTED,
                        params=", ".join(list(t)[:12]) or "none")
    p = Parts(fam, roles["W_q"], roles["W_k"], roles["W_v"], roles.get("W_o"),
              *(roles.get(k) for k in ("b_q", "b_k", "b_v", "b_o")))
    _module_options(module, p, num_heads)
    if num_heads:
        p.num_heads = int(num_heads)
    _check_parts(p)
    return p


def _check_parts(p: Parts):
    d, width = p.W_q.shape
    kvw = p.W_k.shape[1]
    for nm, w, want in (("W_k", p.W_k, (d, kvw)), ("W_v", p.W_v, (d, kvw))):
        if w.shape != want:
            raise msg.error("shape", name=nm, got=tuple(w.shape), expected=want, why=("as W_k, d_model × K/V width", "与 W_k 相同：d_model × K/V 宽度"))
    if p.W_o is not None and p.W_o.shape != (width, width):
        raise msg.error("shape", name="W_o", got=tuple(p.W_o.shape), expected=(width, width),
                        why=("d_out × d_out", "d_out × d_out"))
    for nm, v in (("d_model", d), ("d_out", width)):
        if v > MAX_WIDTH:
            raise msg.error("too_wide", name=nm, value=v, limit=MAX_WIDTH)
    if p.num_heads < 1 or p.num_heads > MAX_HEADS:
        raise msg.error("too_wide", name="num_heads", value=p.num_heads, limit=MAX_HEADS)
    if width % p.num_heads:
        raise msg.error("heads", heads=p.num_heads, width=width)


# --- x, tokens and masks

def pick_sequence(x, batch_index=None, seq_first=False):
    """x as (S × d) float32: S×d, 1×S×d, or a batch with batch_index (seq_first: S×B×d)."""
    a = _np(x)
    if a.ndim == 1:
        a = a.reshape(1, -1)
    if a.ndim == 3:
        if seq_first:
            a = a.transpose(1, 0, 2)
        n = a.shape[0]
        if batch_index is None:
            if n != 1:
                raise msg.error("batch_needs_index", n=n, shape=tuple(_np(x).shape), last=n - 1)
            batch_index = 0
        if not -n <= batch_index < n:
            raise msg.error("batch_index", index=batch_index, last=n - 1)
        a = a[batch_index]
    if a.ndim != 2:
        raise msg.error("shape", name="x", got=tuple(a.shape), expected="(S, d_model)", why=("one row per token", "每个词元一行"))
    return a


def _pad_row(mask, batch_index, S):
    a = _np(mask) if not hasattr(mask, "dtype") or "bool" not in str(mask.dtype) else None
    if a is None:  # a boolean tensor or array: True = padded, as PyTorch's key_padding_mask
        b = mask.detach().cpu().numpy() if hasattr(mask, "detach") else np.asarray(mask)
        padded = b.astype(bool)
    else:          # a float mask: -inf = padded
        padded = np.isneginf(a)
    if padded.ndim == 2:
        padded = padded[batch_index or 0]
    if padded.shape != (S,):
        raise msg.error("padding", shape=tuple(np.shape(padded)), n=S)
    return [0 if v else 1 for v in padded]


def _mask_is_causal(mask, S):
    b = mask.detach().cpu().numpy() if hasattr(mask, "detach") else np.asarray(mask)
    blocked = b.astype(bool) if b.dtype == bool else np.isneginf(b)
    if b.dtype != bool and np.any((b != 0) & ~np.isneginf(b)):
        raise msg.error("mask", desc="an additive mask with finite values")
    if blocked.ndim == 3:
        blocked = blocked[0]
    if blocked.shape != (S, S):
        raise msg.error("shape", name="attn_mask", got=tuple(blocked.shape), expected=(S, S), why=("S × S", "S × S"))
    if not blocked.any():
        return False
    if np.array_equal(blocked, np.triu(np.ones((S, S), dtype=bool), 1)):
        return True
    raise msg.error("mask", desc="%d blocked cells, not the upper triangle" % int(blocked.sum()))


def tokens_for(tokens, S):
    if tokens is None:
        return ["t%d" % i for i in range(S)]
    if isinstance(tokens, tuple) and len(tokens) == 2 and not isinstance(tokens[0], str):
        tok, text = tokens
        if hasattr(tok, "convert_ids_to_tokens"):
            ids = tok(text)["input_ids"]
            tokens = [tok.decode([i]) for i in ids]
        else:
            tokens = list(tok(text))
    tokens = [str(t) for t in tokens]
    if len(tokens) != S:
        raise msg.error("tokens_count", got=len(tokens), n=S)
    return [t if t else "␣" for t in tokens]


def module_state(module, x, tokens=None, *, causal=None, key_padding_mask=None, attn_mask=None,
                 training=None, batch_index=None, num_heads=None, dropout_seed=123):
    """The attnviz state of `module` run on `x` (docs/python.md)."""
    p = read_module(module, num_heads, width_in=_np(x).shape[-1])
    seq_first = type(module).__name__ == "MultiheadAttention" and not getattr(module, "batch_first", False)
    X = pick_sequence(x, batch_index, seq_first)
    S, d = X.shape
    if d != p.W_q.shape[0]:
        raise msg.error("shape", name="x", got=(S, d), expected=(S, p.W_q.shape[0]),
                        why=("the module's input width, d_model = %d" % p.W_q.shape[0],
                             "模块的输入宽度 d_model = %d" % p.W_q.shape[0]))
    if S > MAX_TOKENS:
        raise msg.error("too_long", n=S, limit=MAX_TOKENS)
    is_causal = p.causal
    if attn_mask is not None:
        is_causal = _mask_is_causal(attn_mask, S)
    if causal is not None:
        is_causal = bool(causal)
    width = p.W_q.shape[1]
    st = {
        "tokens": tokens_for(tokens, S), "d_model": d, "d_out": width, "num_heads": p.num_heads,
        "embedding": {"values": X}, "causal": is_causal,
        "qkv_bias": any(b is not None for b in (p.b_q, p.b_k, p.b_v)),
        "out_proj": p.W_o is not None, "out_bias": p.b_o is not None,
    }
    w = {"W_q": p.W_q, "W_k": p.W_k, "W_v": p.W_v}
    if st["qkv_bias"]:  # a missing one of the three (Whisper's k_proj) adds zeros
        w.update(b_q=_zero_if_none(p.b_q, width), b_k=_zero_if_none(p.b_k, p.W_k.shape[1]),
                 b_v=_zero_if_none(p.b_v, p.W_v.shape[1]))
    if p.W_o is not None:
        w["W_o"] = p.W_o
        if p.b_o is not None:
            w["b_o"] = p.b_o
    st["weights"] = w
    kv = p.num_kv_heads
    if kv and kv != p.num_heads:
        st["num_kv_heads"] = kv
    if p.rope_base is not None:
        st["positional"] = "rope"
        st["rope"] = {"base": p.rope_base, "style": "half"}
    if key_padding_mask is not None:
        st["key_padding"] = _pad_row(key_padding_mask, batch_index, S)
    train = getattr(module, "training", False) if training is None else bool(training)
    st["dropout"] = {"p": p.dropout, "training": bool(train and p.dropout > 0), "seed": dropout_seed}
    return st, p


def _zero_if_none(b, n):
    return np.zeros(n, dtype=np.float32) if b is None else b
