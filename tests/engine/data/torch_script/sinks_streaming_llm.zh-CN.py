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
tokens = ["Once", "upon", "a", "time", "there", "lived", "a", "king", "who", "had", "two",
             "sons"]
num_tokens = len(tokens)
d_model = 8  # 每个词元嵌入的宽度
d_out = 8  # 查询、键、值和输出的宽度
num_heads = 2
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
# 设置一次随机种子后依次创建 nn.Linear：查询、键、值，然后是输出投影
# （SelfAttention_v2、MultiHeadAttention）。每个先抽取权重，再抽取偏置。
# nn.Linear 把权重存为 (out_features, in_features)：W(x) = x @ W.weight.T + W.bias
torch.manual_seed(36)
W_query = nn.Linear(d_model, d_out, bias=False)
W_key = nn.Linear(d_model, d_out, bias=False)
W_value = nn.Linear(d_model, d_out, bias=False)
out_proj = nn.Linear(d_out, d_out, bias=True)
show("W_query.weight：", W_query.weight)
show("W_key.weight：", W_key.weight)
show("W_value.weight：", W_value.weight)
show("out_proj.weight：", out_proj.weight)
show("out_proj.bias：", out_proj.bias)

# --- 查询、键和值
queries = W_query(X)
keys = W_key(X)
values = W_value(X)
show("查询（Q）：", queries)
show("键（K）：", keys)
show("值（V）：", values)
# 拆分成多个头：第 h 个头拥有第 h*head_dim ... (h+1)*head_dim - 1 列，
# 形状为 (num_heads, num_tokens, head_dim)。
q_heads = queries.view(num_tokens, num_heads, head_dim).transpose(0, 1)
k_heads = keys.view(num_tokens, num_heads, head_dim).transpose(0, 1)
v_heads = values.view(num_tokens, num_heads, head_dim).transpose(0, 1)

# --- 注意力分数：每个查询与每个键的点积
attn_scores = q_heads @ k_heads.transpose(-2, -1)
show("注意力分数：", attn_scores)
# 缩放：除以 head_dim 的平方根
scaled_scores = attn_scores / k_heads.shape[-1] ** 0.5
show("缩放后的分数：", scaled_scores)

# --- 掩码
# 被掩码的分数变为 -inf，softmax 后这些键的权重为 0。
# 因果掩码：对角线以上为 True，即键在其查询之后的位置
mask = torch.triu(torch.ones(num_tokens, num_tokens), diagonal=1).bool()
masked_scores = scaled_scores.masked_fill(mask, -torch.inf)
# StreamingLLM 的 KV 缓存（Xiao 等人）：解码器保留前 sink_tokens 个键和最近的 recent 个键，
# 其余的被逐出。按词元自己的位置看，这就是一个掩码：
sink_tokens, recent = 1, 4
idx = torch.arange(num_tokens)
# 既不是最前面的键，也不是最近的键：已不在缓存中
evicted = (idx[None, :] >= sink_tokens) & ((idx[:, None] - idx[None, :]) >= recent)
masked_scores = masked_scores.masked_fill(evicted, -torch.inf)
show("掩码后的分数：", masked_scores)

# --- 注意力权重：对每一行的键做 softmax
# gpt-oss 的注意力汇（sink）：每个头有一个学到的 logit（它的 self.sinks），作为多出来的一列
# 加到每一行 logits 上；softmax 对 num_tokens + 1 个元素计算，之后丢掉这一列，
# 所以每一行权重之和小于 1。
sinks = torch.tensor([0.5, -1.5])  # 每个头一个
# (.., num_tokens, 1)：每一行的 sink 列
sink_column = sinks.reshape(num_heads, 1, 1).expand(-1, num_tokens, 1)
probs = torch.softmax(torch.cat([masked_scores, sink_column], dim=-1), dim=-1)
attn_weights = probs[..., :-1]  # 丢掉 sink 列：每一行之和为 1 - 它所占的份额
show("sink 在每一行所占的份额（被丢掉的那一列）：", probs[..., -1])
show("注意力权重：", attn_weights)

# --- 对注意力权重做 Dropout
dropout = nn.Dropout(0.0)
dropout.eval()  # 评估模式：Dropout 不改变输入
dropped_weights = dropout(attn_weights)
show("Dropout 后的注意力权重：", dropped_weights)

# --- 上下文向量：用注意力权重对值加权求和
context_vec = dropped_weights @ v_heads
show("上下文向量：", context_vec)
# 把各个头重新并排拼接：(num_tokens, d_out)
concat = context_vec.transpose(0, 1).contiguous().view(num_tokens, d_out)
show("各个头拼接后的结果：", concat)

# --- 输出
output = out_proj(concat)
show("输出：", output)

# --- 报告（--json）
# 把同样的各个阶段输出为一个 JSON 对象，格式与 `attnviz-cli run` 相同（相同的键、
# 相同的顺序），以便与 attnviz 逐阶段比较。
if JSON:
    report = {"tokens": tokens, "X": matrix(X)}
    report["W_q"] = matrix(W_query.weight.T)
    report["W_k"] = matrix(W_key.weight.T)
    report["W_v"] = matrix(W_value.weight.T)
    report["W_o"] = matrix(out_proj.weight.T)
    report["b_o"] = numbers(out_proj.bias)
    report["Q"] = matrix(queries)
    report["K"] = matrix(keys)
    report["V"] = matrix(values)
    report["heads"] = [
        {
            "scores": matrix(attn_scores[h]),
            "scaled": matrix(scaled_scores[h]),
            "masked": matrix(masked_scores[h]),
            "weights": matrix(attn_weights[h]),
            "dropped": matrix(dropped_weights[h]),
            "context": matrix(context_vec[h]),
        }
        for h in range(num_heads)
    ]
    report["concat"] = matrix(concat)
    report["output"] = matrix(output)
    print(json.dumps(report, separators=(",", ":")))
