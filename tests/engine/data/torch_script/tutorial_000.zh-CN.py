#!/usr/bin/env python3
# attnviz：把这个注意力状态写成 PyTorch 脚本。它按教程的方式重建输入和权重
# （相同的随机种子，按相同的顺序抽取相同的随机数），并用教程里的 PyTorch 代码
# 计算注意力的每一步。
#   python3 attnviz.py          在标题下打印每一步
#   python3 attnviz.py --json   打印一个 JSON 对象，即 `attnviz-cli run` 的报告
# 由 attnviz 0.1.0 根据一个会话状态（"version": 1）生成。
import json
import math
import sys

import torch
import torch.nn as nn

JSON = "--json" in sys.argv[1:]


def show(title, value):
    # 在标题下打印一步的结果（使用 --json 时不打印）。
    if not JSON:
        print(title)
        print(value)
        print()


def numbers(t):
    # 供 --json 使用的 t 的数值：每个都是读回后仍为同一 float32 的最短十进制数，
    # 或 "-inf"、"inf"、"nan"（attnviz 报告的约定）。
    flat = t.detach().reshape(-1)
    values = flat.tolist()
    out = [None] * len(values)
    todo = []
    for i, v in enumerate(values):
        if math.isfinite(v):
            todo.append(i)
        else:
            out[i] = "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    for digits in range(1, 10):  # 9 位有效数字总能读回原值
        if not todo:
            break
        texts = ["%.*g" % (digits, values[i]) for i in todo]
        back = torch.tensor([float(x) for x in texts], dtype=torch.float32)
        same = (back == flat[todo]).tolist()
        rest = []
        for i, x, ok in zip(todo, texts, same):
            if ok:
                out[i] = float(x)
            else:
                rest.append(i)
        todo = rest
    return out


def matrix(t):
    # 供 --json 使用的 (rows, cols) 张量：按行排列的列表。
    flat = numbers(t)
    cols = t.shape[-1]
    return [flat[r:r + cols] for r in range(0, len(flat), cols)]


# --- 尺寸
tokens = ["Once", "upon", "a", "time", "there"]
num_tokens = len(tokens)
d_model = 4  # 每个词元嵌入的宽度
d_out = 4  # 查询、键、值和输出的宽度
num_heads = 1
head_dim = d_out // num_heads  # 每个头在 d_out 中所占的宽度

# --- X：词元嵌入
vocab = list(dict.fromkeys(tokens))  # 不同的词元，按首次出现的顺序
token_to_idx = {token: idx for idx, token in enumerate(vocab)}
input_indices = torch.tensor([token_to_idx[token] for token in tokens])
# nn.Embedding 用 torch 的随机数生成器抽取嵌入表，紧接在设置随机种子之后
torch.manual_seed(123)
embedding_layer = nn.Embedding(len(vocab), d_model)
X = embedding_layer(input_indices)
show("X，词元嵌入：", X)

# --- 权重
# 设置一次随机种子后用 torch.rand 依次抽取：W_query、W_key、W_value，然后是 W_out，
# 最后是偏置（SelfAttention_v1 的 nn.Parameter(torch.rand(d_in, d_out))）。
torch.manual_seed(123)
W_query = torch.rand(d_model, d_out)
W_key = torch.rand(d_model, d_out)
W_value = torch.rand(d_model, d_out)
show("W_query：", W_query)
show("W_key：", W_key)
show("W_value：", W_value)

# --- 查询、键和值
queries = X @ W_query
keys = X @ W_key
values = X @ W_value
show("查询（Q）：", queries)
show("键（K）：", keys)
show("值（V）：", values)

# --- 注意力分数：每个查询与每个键的点积
attn_scores = queries @ keys.T
show("注意力分数：", attn_scores)
# 缩放：除以 head_dim 的平方根
scaled_scores = attn_scores / math.sqrt(head_dim)
show("缩放后的分数：", scaled_scores)

# --- 掩码
masked_scores = scaled_scores  # 没有任何位置被掩码
show("掩码后的分数：", masked_scores)

# --- 注意力权重：对每一行的键做 softmax
attn_weights = torch.softmax(masked_scores, dim=-1)
show("注意力权重：", attn_weights)

# --- 对注意力权重做 Dropout
dropout = nn.Dropout(0.0)
dropout.eval()  # 评估模式：Dropout 不改变输入
dropped_weights = dropout(attn_weights)
show("Dropout 后的注意力权重：", dropped_weights)

# --- 上下文向量：用注意力权重对值加权求和
context_vec = dropped_weights @ values
show("上下文向量：", context_vec)

# --- 输出
output = context_vec  # 没有输出投影：输出就是上下文向量
show("输出：", output)

# --- 报告（--json）
# 把同样的各个阶段输出为一个 JSON 对象，格式与 `attnviz-cli run` 相同（相同的键、
# 相同的顺序），以便与 attnviz 逐阶段比较。
if JSON:
    report = {"tokens": tokens, "X": matrix(X)}
    report["W_q"] = matrix(W_query)
    report["W_k"] = matrix(W_key)
    report["W_v"] = matrix(W_value)
    report["Q"] = matrix(queries)
    report["K"] = matrix(keys)
    report["V"] = matrix(values)
    report["heads"] = [
        {
            "scores": matrix(attn_scores),
            "scaled": matrix(scaled_scores),
            "masked": matrix(masked_scores),
            "weights": matrix(attn_weights),
            "dropped": matrix(dropped_weights),
            "context": matrix(context_vec),
        }
    ]
    report["concat"] = matrix(context_vec)
    report["output"] = matrix(output)
    print(json.dumps(report, separators=(",", ":")))
