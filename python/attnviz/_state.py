"""attnviz's session state on the Python side: a dict in the engine's JSON schema
(docs/engine.md, "Session state") whose explicit matrices may be numpy arrays.

    State(d)                 wraps a state dict (tensors as lists or float32 arrays)
    State.to_json()          the JSON text the app reads (tensors as numbers)
    State.to_safetensors()   a state file (docs/engine.md, "State files"): the JSON
                             with each matrix replaced by a tensor's name
    State.link(base)         a share link, as the page writes it (#s1.…)
    State.from_link(url)     the state of a share link (an edited view comes back)
"""
from __future__ import annotations

import base64
import copy
import json
import struct
import zlib

import numpy as np

from . import _messages as msg

LINK_FORMAT = 1
MAX_TOKENS = 32768         # engine Limits: tokens (S); above 2048 the engine keeps no S×S stage (long mode)
MAX_WIDTH = 4096           # d_model, d_out
MAX_HEADS = 64
MAX_INFLATED = 16 << 20    # a link may expand to at most this (web/site/attnviz-share.js)

# Where explicit matrices live in a state, as (path, tensor name in a state file):
# the top level's, and each captured layer's ("layers": docs/engine.md, "Captured layers").
_ONE_LAYER = [(("embedding", "values"), "embedding.values")] + [
    (("weights", k), "weights." + k) for k in ("W_q", "W_k", "W_v", "W_o", "b_q", "b_k", "b_v", "b_o")]


def _matrix_paths(d):
    paths = list(_ONE_LAYER)
    layers = d.get("layers") if isinstance(d, dict) else None
    if isinstance(layers, list):
        for i in range(len(layers)):
            paths += [(("layers", i) + p, "layers.%d.%s" % (i, n)) for p, n in _ONE_LAYER]
    return paths


def _get(d, path):
    for p in path:
        if isinstance(p, int):
            if not isinstance(d, list) or p >= len(d):
                return None
        elif not isinstance(d, dict) or p not in d:
            return None
        d = d[p]
    return d


def _set(d, path, value):
    for p in path[:-1]:
        d = d[p]
    d[path[-1]] = value


def _as_matrix(v, name):
    """A float32 array of 2 dimensions (a bias: 1 × n), checked finite."""
    a = np.asarray(v, dtype=np.float64)
    if a.ndim == 1:
        a = a.reshape(1, -1)
    if a.ndim != 2:
        raise msg.error("tensor_dims", name=name, shape=tuple(a.shape))
    bad = ~np.isfinite(a)
    if bad.any():
        i = tuple(int(k) for k in np.argwhere(bad)[0])
        raise msg.error("not_finite", name=name, where=list(i), value=float(a[i]))
    if np.abs(a).max(initial=0.0) > np.finfo(np.float32).max:
        raise msg.error("not_float32", name=name)
    return a.astype(np.float32)


class State:
    """A state: `.dict` is JSON-ready but for matrices, which are float32 arrays."""

    def __init__(self, d=None):
        if isinstance(d, State):
            d = d.dict
        self.dict = copy.deepcopy(d) if d is not None else {}
        for path, name in _matrix_paths(self.dict):
            v = _get(self.dict, path)
            if v is not None and not isinstance(v, str):
                m = _as_matrix(v, name)
                _set(self.dict, path, m[0] if path[-1].startswith("b_") else m)

    # --- text
    def to_json(self, indent=None) -> str:
        return json.dumps(self.dict, ensure_ascii=False, indent=indent, default=_jsonable)

    def tokens(self):
        return list(self.dict.get("tokens", ["Once", "upon", "a", "time", "there"]))

    def num_floats(self) -> int:
        return sum(np.asarray(_get(self.dict, p)).size for p, _ in _matrix_paths(self.dict)
                   if isinstance(_get(self.dict, p), np.ndarray))

    # --- a state file: the state's JSON in the metadata, its matrices as F32 tensors
    def to_safetensors(self) -> bytes:
        d = copy.deepcopy(self.dict)
        header, blobs, offset = {}, [], 0
        for path, name in _matrix_paths(d):
            v = _get(d, path)
            if not isinstance(v, np.ndarray):
                continue
            data = np.ascontiguousarray(v, dtype="<f4").tobytes()
            header[name] = {"dtype": "F32", "shape": list(v.shape),
                            "data_offsets": [offset, offset + len(data)]}
            blobs.append(data)
            offset += len(data)
            _set(d, path, name)
        header["__metadata__"] = {"attnviz_state_format": "1",
                                  "attnviz_state": json.dumps(d, ensure_ascii=False, default=_jsonable)}
        text = json.dumps(header, ensure_ascii=False).encode("utf-8")
        text += b" " * ((8 - (8 + len(text)) % 8) % 8)
        return struct.pack("<Q", len(text)) + text + b"".join(blobs)

    @classmethod
    def from_safetensors(cls, data: bytes) -> "State":
        meta, tensors, unread = read_safetensors(data)
        if "attnviz_state" not in meta:
            return None  # trained weights, not a state
        d = json.loads(meta["attnviz_state"])
        for path, name in _matrix_paths(d):
            v = _get(d, path)
            if isinstance(v, str):
                if v in unread:
                    raise msg.error("dtype", name=v, dtype=unread[v])
                _set(d, path, tensors[v])
        return cls(d)

    # --- share links: #s1.<base64url(deflate-raw(UTF-8 JSON {"v": 1, "state", "view"}))>
    def link(self, base="http://127.0.0.1:8000/", view=None) -> str:
        session = {"v": LINK_FORMAT, "state": json.loads(self.to_json())}
        if view:
            session["view"] = view
        raw = json.dumps(session, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        c = zlib.compressobj(9, zlib.DEFLATED, -15)
        packed = c.compress(raw) + c.flush()
        return base + "#s%d." % LINK_FORMAT + base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")

    @classmethod
    def from_link(cls, url: str) -> "State":
        text = url.strip()
        frag = text.split("#", 1)[1] if "#" in text else text
        if not frag.startswith("s"):
            raise msg.error("link_not_ours", start=frag[:16])
        fmt, _, data = frag[1:].partition(".")
        if fmt != str(LINK_FORMAT):
            raise msg.error("link_format", found=fmt, reads=LINK_FORMAT)
        try:
            packed = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
            d = zlib.decompressobj(-15)
            raw = d.decompress(packed, MAX_INFLATED)
            if d.unconsumed_tail:
                raise msg.error("link_too_big")
            session = json.loads(raw.decode("utf-8"))
        except msg.AttnvizError:
            raise
        except Exception as e:  # damaged base64, deflate or JSON: one sentence for all
            raise msg.error("link_damaged", why=str(e)) from None
        if not isinstance(session, dict) or not isinstance(session.get("state"), dict):
            raise msg.error("link_damaged", why=("no state in it", "里面没有状态"))
        return cls(session["state"])

    def __repr__(self):
        d = self.dict
        return "attnviz.State(%d tokens, d_model %s, %s head(s)%s)" % (
            len(self.tokens()), d.get("d_model", 4), d.get("num_heads", 1),
            ", causal" if d.get("causal") else "")

    def __eq__(self, other):
        return isinstance(other, State) and self.to_json() == other.to_json()


def read_safetensors(data: bytes):
    """(metadata, {name: array}, {name: dtype not read}) of a .safetensors file's bytes."""
    if len(data) < 8:
        raise msg.error("file_short")
    n = struct.unpack("<Q", data[:8])[0]
    if n > len(data) - 8:
        raise msg.error("file_short")
    header = json.loads(data[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", {}) or {}
    tensors, unread = {}, {}
    for name, info in header.items():
        dt = {"F32": "<f4", "F16": "<f2", "F64": "<f8"}.get(info.get("dtype"))
        if dt is None:  # an I64 buffer, a BF16 tensor: refused only when a state names it
            unread[name] = info.get("dtype")
            continue
        b, e = info["data_offsets"]
        tensors[name] = np.frombuffer(data[8 + n + b:8 + n + e], dtype=dt).reshape(info["shape"])
    return meta, tensors, unread


def _jsonable(v):
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (np.floating, np.integer, np.bool_)):
        return v.item()
    raise TypeError("%r is not JSON" % type(v).__name__)
