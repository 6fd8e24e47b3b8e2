"""A View: one state drawn by the full attnviz app in a notebook output.

The output is self-contained HTML: the packed app (web/embed, built by
scripts/pack_embed.py into the package's web/attnviz-embed.js: the wasm, the
Emscripten JS and the glue, gzip'd and text-encoded, fonts included) and one call
that mounts this view in its own canvas. The state travels as a gzip'd
.safetensors state file (its tensors as float32 bytes), so nothing is lost or
rounded on the way. No network, no CDN, no require.js.
"""
from __future__ import annotations

import base64
import gzip
import html
import json
import os
import uuid
from importlib import resources

from . import _messages as msg
from ._state import State

DEFAULT_HEIGHT = 640
_bundle_cache = None


def bundle_text() -> str:
    """The packed app (one JS text), read once. scripts/pack_embed.py writes it so that
    it can sit inside <script> as it is: no "</script" and no "<!--" (checked here too)."""
    global _bundle_cache
    if _bundle_cache is None:
        try:
            text = resources.files("attnviz").joinpath("web/attnviz-embed.js").read_text("utf-8")
        except (FileNotFoundError, OSError):
            raise msg.error("no_bundle") from None
        low = text.lower()
        if "</script" in low or "<!--" in low:
            raise msg.error("no_bundle")
        _bundle_cache = text
    return _bundle_cache


def _script_safe(json_text: str) -> str:
    # JSON inside <script>: "</" could end the element; JSON and JS read "<\/" as "</".
    return json_text.replace("</", "<\\/")


class View:
    """What attnviz.show returns: the state shown, a link, a file, the HTML."""

    def __init__(self, state, lang=None, height=None, title=None, view=None):
        self._state = state if isinstance(state, State) else State(state)
        self.lang = msg.normalize_lang(lang)
        self.height = int(height or DEFAULT_HEIGHT)
        self.title = title
        self.view = view          # the app's view to open on (a share link's "view", e.g. {"tab": "compare"})
        self.id = "attnviz-" + uuid.uuid4().hex[:12]
        self._shown_in = None     # IPython execution count of the cell that drew it

    @property
    def state(self) -> dict:
        """The state as a dict (matrices as float32 numpy arrays)."""
        return self._state.dict

    def state_object(self) -> State:
        return self._state

    def link(self, base=None) -> str:
        """A share link to the full page (base: where the app is served; ATTNVIZ_URL or make run's)."""
        base = base or os.environ.get("ATTNVIZ_URL", "http://127.0.0.1:8000/")
        return self._state.link(base)

    def save(self, path) -> str:
        """.json: the state's text; .safetensors: a state file; .html: a standalone page."""
        path = os.fspath(path)
        ext = os.path.splitext(path)[1].lower()
        if ext == ".safetensors":
            data = self._state.to_safetensors()
            with open(path, "wb") as f:
                f.write(data)
        elif ext in (".html", ".htm"):
            with open(path, "w", encoding="utf-8") as f:
                f.write(self.page_html())
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(self._state.to_json(indent=1))
        return path

    # --- HTML
    def _mount_options(self, height=None) -> dict:
        opts = {"height": height or self.height}
        if self.lang:
            opts["lang"] = self.lang
        if self.title:
            opts["title"] = self.title
        if self.view:
            opts["view"] = self.view
        if self._state.num_floats():
            opts["stateFile"] = base64.b64encode(gzip.compress(self._state.to_safetensors(), 6, mtime=0)).decode()
        else:
            opts["state"] = json.loads(self._state.to_json())
        return opts

    def _repr_mount(self, element_js: str, height=None) -> str:
        opts = json.dumps(self._mount_options(height), ensure_ascii=False)
        return ("<script>" + bundle_text() + "</script>\n<script>(function () {\n"
                "  var el = " + element_js + ";\n"
                "  window.attnvizEmbed.mount(el, " + _script_safe(opts) + ")"
                ".catch(function (e) { console.error('attnviz:', e); });\n})();</script>")

    def html(self) -> str:
        """The output's HTML: a box the cell's width and the view mounted in it."""
        label = html.escape(self.title or "attnviz")
        return ('<div id="%s" class="attnviz-view" style="width:100%%;min-height:%dpx" aria-label="%s"></div>\n'
                % (self.id, self.height, label)) + self._repr_mount('document.getElementById("%s")' % self.id)

    def page_html(self) -> str:
        """A standalone page of this view (View.save('x.html')), offline."""
        head = ('<!doctype html><html><head><meta charset="utf-8"><title>attnviz</title>'
                '<style>html,body{margin:0;height:100%;background:#17171c}</style></head><body>')
        box = '<div id="%s" style="width:100%%;height:100%%"></div>' % self.id
        mount = self._repr_mount('document.getElementById("%s")' % self.id, height="fill")  # the window's height
        return head + box + mount + "</body></html>"

    def display(self):
        """Draws the view (again) in the current cell's output."""
        from IPython.display import HTML, display
        display(HTML(self.html()))
        self._shown_in = _execution_count()
        self.id = "attnviz-" + uuid.uuid4().hex[:12]  # a second drawing gets a box of its own

    def _ipython_display_(self):
        # show() already drew it in this cell: the returned value must not draw it twice.
        if self._shown_in is not None and self._shown_in == _execution_count():
            return
        self.display()

    def __repr__(self):
        return "attnviz.View(%r)" % self._state


def _execution_count():
    try:
        from IPython import get_ipython
        ip = get_ipython()
        return getattr(ip, "execution_count", None) if ip is not None else None
    except Exception:  # noqa: BLE001 - no IPython: no cell to count
        return None


def in_notebook() -> bool:
    try:
        from IPython import get_ipython
        ip = get_ipython()
        return ip is not None and hasattr(ip, "kernel")
    except Exception:  # noqa: BLE001
        return False
