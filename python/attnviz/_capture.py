"""attnviz.capture(model, *inputs): one forward pass, every attention module's input.

Each attention module of a family attnviz reads (_modules.FAMILIES) gets its
forward wrapped for the pass (an instance attribute, removed afterwards), which
records the arguments it was called with: its input hidden states and, for
nn.MultiheadAttention, the masks. A module inside another recorded one is left
out (the outer one is the attention layer).

    cap = attnviz.capture(model, ids)      # runs model(ids) under torch.no_grad()
    cap.names()                            # ['h.0.attn', 'h.1.attn']
    attnviz.show(cap[1]); attnviz.show(cap["h.0.attn"]); attnviz.show(cap)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import _messages as msg
from ._modules import family_of, module_state

_X_NAMES = ("hidden_states", "x", "query", "input", "inputs")


@dataclass
class CapturedLayer:
    name: str
    module: object
    x: object                     # the input as the module saw it (a tensor, batch and all)
    masks: dict = field(default_factory=dict)
    tokens: list | None = None
    batch_index: int | None = None

    def state(self, tokens=None, **options):
        opts = dict(self.masks)
        opts.update({k: v for k, v in options.items() if v is not None})
        opts.setdefault("batch_index", self.batch_index)
        st, _ = module_state(self.module, self.x, tokens if tokens is not None else self.tokens, **opts)
        return st

    def __repr__(self):
        shape = tuple(getattr(self.x, "shape", ()))
        return "CapturedLayer(%r, %s, x %s)" % (self.name, type(self.module).__name__, shape)


class Capture:
    """The attention modules of one forward pass, in the order they ran."""

    def __init__(self, layers, tokens=None, batch_index=None):
        self.layers = layers
        self.tokens = tokens
        self.batch_index = batch_index

    def names(self):
        return [c.name for c in self.layers]

    def __len__(self):
        return len(self.layers)

    def __iter__(self):
        return iter(self.layers)

    def __getitem__(self, key):
        if isinstance(key, str):
            for c in self.layers:
                if c.name == key:
                    return c
        elif isinstance(key, int) and -len(self.layers) <= key < len(self.layers):
            return self.layers[key]
        raise msg.error("capture_index", n=len(self.layers), key=key, names=", ".join(self.names()))

    def state(self, tokens=None, **options):
        """Every layer in one state (the app's layers × heads grid): docs/python.md."""
        states = [c.state(tokens, **options) for c in self.layers]
        top = {k: v for k, v in states[0].items() if k not in ("embedding", "weights")}
        top["layers"] = [{"name": c.name, "embedding": s["embedding"], "weights": s["weights"]}
                         for c, s in zip(self.layers, states)]
        return top

    def __repr__(self):
        return "attnviz.Capture(%d attention modules: %s)" % (len(self), ", ".join(self.names()))


def _tokens_from_ids(inputs):
    if not inputs:
        return None
    t = inputs[0]
    dt = str(getattr(t, "dtype", ""))
    if "int" in dt or "long" in dt:
        a = t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)
        return a


def capture(model, *inputs, tokens=None, batch_index=None, **kwargs):
    try:
        import torch
    except Exception as e:  # noqa: BLE001 - any import failure is the same sentence
        raise msg.error("no_torch", why=str(e)) from None
    records, wrapped = [], []
    found = [(n, m) for n, m in model.named_modules() if family_of(m) is not None]
    outer = [(n, m) for n, m in found if not any(n != o and n.startswith(o + ".") for o, _ in found if o)]

    def wrap(name, mod):
        inner = mod.forward

        def forward(*args, **kw):
            x = args[0] if args else next((kw[k] for k in _X_NAMES if k in kw), None)
            masks = {}
            if type(mod).__name__ == "MultiheadAttention":
                for i, k in ((3, "key_padding_mask"), (5, "attn_mask")):
                    v = kw.get(k, args[i] if len(args) > i else None)
                    if v is not None:
                        masks[k] = v
            if x is not None:
                records.append(CapturedLayer(name or type(mod).__name__, mod, x.detach().clone(), masks))
            return inner(*args, **kw)

        mod.forward = forward
        wrapped.append(mod)

    for n, m in outer:
        wrap(n, m)
    try:
        with torch.no_grad():
            model(*inputs, **kwargs)
    finally:
        for m in wrapped:
            del m.forward
    if not records:
        raise msg.error("capture_empty", supported=msg.SUPPORTED)
    ids = _tokens_from_ids(inputs)
    if tokens is None and ids is not None:
        row = ids[batch_index or 0] if ids.ndim == 2 else ids
        tokens = [str(int(v)) for v in row]
    for r in records:
        r.tokens, r.batch_index = tokens, batch_index
    return Capture(records, tokens, batch_index)
