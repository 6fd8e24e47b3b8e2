"""attnviz in a notebook: every stage of a learner's own attention module, live.

    import attnviz
    view = attnviz.show(mha, x, causal=True)     # nn.MultiheadAttention and its input
    cap = attnviz.capture(model, ids)            # every attention module of one forward pass
    attnviz.show(cap[0]); attnviz.show(cap)      # one layer; all layers × heads
    attnviz.show("state.json")                   # a state, .safetensors, .npz or .npy file
    view.state; view.link(); view.save("v.html"); attnviz.State.from_link(url)

The view is the whole attnviz app (the same engine, compiled to WebAssembly) inside
the output, with no network: docs/python.md.
"""
from __future__ import annotations

import os

from . import _messages as msg
from ._capture import Capture, CapturedLayer, capture
from ._files import file_state, tensors_state
from ._messages import AttnvizError
from ._modules import module_state
from ._state import State
from ._view import View, in_notebook

__version__ = "0.1.0"
__all__ = ["show", "capture", "View", "State", "Capture", "CapturedLayer", "AttnvizError", "state_of"]

_STATE_KEYS = {"version", "tokens", "d_model", "d_out", "num_heads", "embedding", "positional", "weights",
               "qkv_bias", "out_proj", "out_bias", "scale", "temperature", "causal", "key_padding",
               "mask_fill", "safe_softmax", "dropout", "rope", "num_kv_heads", "alibi", "window", "sinks",
               "kv_cache", "model", "layers"}


def state_of(obj, x=None, tokens=None, **options) -> State:
    """The State show() would draw, without drawing it (same arguments)."""
    if isinstance(obj, State):
        return obj
    if isinstance(obj, (str, os.PathLike)):
        return State(file_state(obj, x=x, tokens=tokens, **options))
    if isinstance(obj, dict):
        if not obj or set(obj) <= _STATE_KEYS:
            return State(obj)
        return State(tensors_state(obj, "the dict", x=x, tokens=tokens, **options))
    options.pop("layer", None)  # a module, a capture: the layer is the object itself
    if isinstance(obj, Capture):
        return State(obj.state(tokens, **options))
    if isinstance(obj, CapturedLayer):
        return State(obj.state(tokens, **options))
    if hasattr(obj, "named_parameters"):
        if x is None:
            raise msg.error("shape", name="x", got="nothing", expected="(S, d_model)",
                            why=("a module is shown on its input", "模块要在它的输入上显示"))
        st, _ = module_state(obj, x, tokens, **options)
        return State(st)
    raise msg.error("show_what", kind=type(obj).__name__)


def show(obj, x=None, tokens=None, *, causal=None, key_padding_mask=None, attn_mask=None, training=None,
         batch_index=None, num_heads=None, layer=None, lang=None, height=None, title=None, display=None):
    """Draws obj (a module and its input x, a state, a capture, a file) as a live attnviz view.

    Every problem is an AttnvizError before anything is drawn. Returns the View;
    in a notebook it is drawn in the cell's output (display=False: not drawn).
    """
    code = msg.normalize_lang(lang)
    with msg.language(code):
        options = {k: v for k, v in dict(causal=causal, key_padding_mask=key_padding_mask, attn_mask=attn_mask,
                                         training=training, batch_index=batch_index, num_heads=num_heads,
                                         layer=layer).items() if v is not None}
        st = state_of(obj, x, tokens, **options)
        # Every layer of a capture: the layers × heads grid of Compare heads first.
        first = {"tab": "compare"} if isinstance(obj, Capture) and len(obj) > 1 else None
        view = View(st, lang=code, height=height, title=title, view=first)
        if display is None:
            display = in_notebook()
        if display:
            view.display()
        return view
