"""Every sentence the Python side says, in English and 简体中文, by code.

An AttnvizError's text is the English sentence; with lang="zh-CN" the Chinese one
follows on a second line (and the view, had it been drawn, would speak Chinese).
"""
from __future__ import annotations

import contextvars

_lang = contextvars.ContextVar("attnviz_lang", default="en")

SUPPORTED = ("nn.MultiheadAttention; modules with GPT-2's c_attn/c_proj (Conv1D); "
             "Llama-style q_proj, k_proj, v_proj, o_proj; a fused qkv (qkv, qkv_proj, Wqkv, to_qkv); "
             "the tutorials' W_query, W_key, W_value (nn.Linear or nn.Parameter)")

TEXT = {
    "unsupported_module": (
        "attnviz cannot read a {kind}: it reads attention modules of these kinds: {supported}. "
        "Its parameters are: {params}.",
        "attnviz 读不了 {kind}：它能读的注意力模块有：{supported}。这个模块的参数是：{params}。"),
    "unsupported_option": (
        "{kind}.{option} is not something attnviz computes ({why}).",
        "attnviz 不计算 {kind}.{option}（{why}）。"),
    "shape": (
        "{name} does not fit: it is {got}, but {expected} is needed ({why}).",
        "{name} 的形状不对：它是 {got}，需要的是 {expected}（{why}）。"),
    "batch_needs_index": (
        "x is a batch of {n} sequences ({shape}): say which one to show with batch_index= (0 … {last}).",
        "x 是 {n} 个序列的一批（{shape}）：请用 batch_index= 指定要看哪一个（0 … {last}）。"),
    "batch_index": (
        "batch_index={index} is not in the batch (0 … {last}).",
        "batch_index={index} 不在这一批里（0 … {last}）。"),
    "too_long": (
        "{n} tokens is more than attnviz shows (at most {limit}): pass x[:{limit}] or fewer.",
        "{n} 个词元超过了 attnviz 能显示的上限（最多 {limit} 个）：请传入 x[:{limit}] 或更少。"),
    "too_wide": (
        "{name} = {value} is more than attnviz computes (at most {limit}).",
        "{name} = {value} 超过了 attnviz 能计算的上限（最多 {limit}）。"),
    "not_finite": (
        "{name} must contain finite numbers only, but {name}{where} is {value}.",
        "{name} 只能包含有限的数，但 {name}{where} 是 {value}。"),
    "not_float32": (
        "{name} holds numbers beyond float32's range.",
        "{name} 里有超出 float32 范围的数。"),
    "tensor_dims": (
        "{name} has shape {shape}: attnviz reads matrices (2 dimensions) and vectors.",
        "{name} 的形状是 {shape}：attnviz 只读矩阵（二维）和向量。"),
    "tokens_count": (
        "tokens has {got} entries but x has {n} rows: one token per row.",
        "tokens 有 {got} 个，而 x 有 {n} 行：每行一个词元。"),
    "heads": (
        "num_heads = {heads} does not divide the width {width}: attnviz needs width = num_heads × head_dim.",
        "num_heads = {heads} 不能整除宽度 {width}：需要 宽度 = num_heads × head_dim。"),
    "heads_unknown": (
        "the {kind} does not say how many heads it has: pass num_heads= (it has {width} features).",
        "这个 {kind} 没有说明它有几个头：请传入 num_heads=（它有 {width} 个特征）。"),
    "mask": (
        "attn_mask is neither causal nor empty: attnviz shows a causal mask (causal=True), "
        "key padding (key_padding_mask=) and sliding windows; this mask is {desc}.",
        "attn_mask 既不是因果掩码也不是空的：attnviz 能显示因果掩码（causal=True）、"
        "键填充（key_padding_mask=）和滑动窗口；这个掩码是 {desc}。"),
    "padding": (
        "key_padding_mask is {shape}; attnviz needs one flag per token ({n}).",
        "key_padding_mask 的形状是 {shape}；attnviz 需要每个词元一个标记（{n} 个）。"),
    "no_torch": (
        "showing a module needs PyTorch (import torch failed: {why}); arrays, state dicts and files do not.",
        "显示模块需要 PyTorch（import torch 失败：{why}）；数组、状态字典和文件不需要。"),
    "file_kind": (
        "{path}: attnviz opens .json states and .safetensors, .npz and .npy files, not {ext}.",
        "{path}：attnviz 能打开 .json 状态和 .safetensors、.npz、.npy 文件，不能打开 {ext}。"),
    "file_short": (
        "the file is cut short (not a whole .safetensors file).",
        "文件不完整（不是完整的 .safetensors 文件）。"),
    "dtype": (
        "tensor {name} is {dtype}; attnviz reads F32, F16 and F64.",
        "张量 {name} 是 {dtype}；attnviz 读 F32、F16 和 F64。"),
    "no_mapping": (
        "{path}: no attention weights found (names tried: {families}); tensors in it: {names}.",
        "{path}：没有找到注意力权重（试过的名字：{families}）；其中的张量：{names}。"),
    "layer_choice": (
        "{path} holds {n} attention layers ({layers}): pass layer= one of them.",
        "{path} 里有 {n} 个注意力层（{layers}）：请用 layer= 选一个。"),
    "capture_empty": (
        "no attention module of a kind attnviz reads ran in this forward pass ({supported}).",
        "这次前向计算里没有运行 attnviz 能读的注意力模块（{supported}）。"),
    "capture_index": (
        "the capture has {n} attention modules: {key!r} is not one of them ({names}).",
        "这次捕获有 {n} 个注意力模块：{key!r} 不在其中（{names}）。"),
    "link_not_ours": (
        "this is not an attnviz share link (it starts {start!r}; links look like …#s1.…).",
        "这不是 attnviz 的分享链接（开头是 {start!r}；链接形如 …#s1.…）。"),
    "link_format": (
        "this link is format {found}; this attnviz reads format {reads}.",
        "这个链接是格式 {found}；这个版本的 attnviz 读的是格式 {reads}。"),
    "link_too_big": (
        "this link expands to more than 16 MB.",
        "这个链接展开后超过 16 MB。"),
    "link_damaged": (
        "this link is damaged ({why}).",
        "这个链接已损坏（{why}）。"),
    "no_bundle": (
        "this attnviz package has no web app inside (built without build/embed/attnviz-embed.js): "
        "rebuild it with make python.",
        "这个 attnviz 包里没有网页应用（构建时缺少 build/embed/attnviz-embed.js）：请用 make python 重新构建。"),
    "show_what": (
        "attnviz.show takes a module and its input, a state (dict or attnviz.State), a capture, "
        "or a file path; not a {kind}.",
        "attnviz.show 接受一个模块和它的输入、一个状态（dict 或 attnviz.State）、一次捕获或一个文件路径；"
        "不接受 {kind}。"),
    "lang": (
        "lang={lang!r}: attnviz speaks 'en' and 'zh-CN'.",
        "lang={lang!r}：attnviz 支持 'en' 和 'zh-CN'。"),
}


class AttnvizError(ValueError):
    """A problem with what was passed to attnviz, in a sentence (and its code)."""

    def __init__(self, code, text, zh=None):
        super().__init__(text if zh is None else text + "\n" + zh)
        self.code = code
        self.english = text
        self.chinese = zh


def error(code, **values):
    """The AttnvizError of a code; a value given as (English, 中文) is a phrase in both."""
    en, zh = TEXT[code]
    pick = lambda k: {n: (v[k] if isinstance(v, tuple) and len(v) == 2 and all(isinstance(x, str) for x in v) else v)
                      for n, v in values.items()}  # noqa: E731
    zh_text = zh.format(**pick(1)) if _lang.get() == "zh-CN" else None
    return AttnvizError(code, en.format(**pick(0)), zh_text)


class language:
    """with language("zh-CN"): errors raised inside also carry the Chinese sentence."""

    def __init__(self, lang):
        self.lang = lang or "en"

    def __enter__(self):
        self.token = _lang.set(self.lang)

    def __exit__(self, *exc):
        _lang.reset(self.token)


def normalize_lang(lang):
    if lang is None:
        return None
    low = str(lang).lower()
    if low.startswith("zh"):
        return "zh-CN"
    if low.startswith("en"):
        return "en"
    raise error("lang", lang=lang)
