"""What the notebook test appends to each example before running it: PyTorch's own
attention weights for every view the notebook draws, printed as one line each,

    ATTNVIZ_CHECK {"view": i, "layer": l, "lang": "zh-CN", "weights": [[[...]]]}

view i = the i-th attnviz view in the notebook's output order (window.attnvizViews[i]);
weights = the module's per-head weights (heads × S × S), computed by the module
itself, never by attnviz. tests/python/notebooks.test.mjs compares the views with them.
"""

PRELUDE = '''
import json as _json
def _attnviz_check(view, weights, layer=None, lang=None):
    w = weights.detach().cpu().float()
    if w.dim() == 4:
        w = w[0]
    line = {"view": view, "weights": w.tolist()}
    if layer is not None:
        line["layer"] = layer
    if lang is not None:
        line["lang"] = lang
    print("ATTNVIZ_CHECK", _json.dumps(line))
'''

CHECKS = {
    "01-multihead-attention.ipynb": PRELUDE + '''
_c = torch.triu(torch.ones(6, 6, dtype=torch.bool), diagonal=1)
_attnviz_check(0, mha(x, x, x, need_weights=True, average_attn_weights=False, attn_mask=_c)[1])
_attnviz_check(1, mha(x, x, x, need_weights=True, average_attn_weights=False, key_padding_mask=pad)[1], lang="zh-CN")
''',
    "02-your-own-module.ipynb": PRELUDE + '''
_attnviz_check(0, gpt(x)[1])
_attnviz_check(1, llama(x_llama)[1])
''',
    "03-capture.ipynb": PRELUDE + '''
_mask = torch.triu(torch.ones(8, 8, dtype=torch.bool), diagonal=1)
def _layer_weights(c):
    return c.module(c.x, c.x, c.x, attn_mask=_mask, need_weights=True, average_attn_weights=False)[1]
_attnviz_check(0, _layer_weights(cap[1]))
for _l in range(len(cap)):
    _attnviz_check(1, _layer_weights(cap[_l]), layer=_l)
''',
    "readme-demo.ipynb": PRELUDE + '''
_c = torch.triu(torch.ones(x.shape[1], x.shape[1], dtype=torch.bool), diagonal=1)
_attnviz_check(0, mha(x, x, x, need_weights=True, average_attn_weights=False, attn_mask=_c)[1])
''',
}
