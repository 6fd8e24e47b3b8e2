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
tokens = ["The", "cat", "sat", "on", "我"]
num_tokens = len(tokens)
d_model = 6  # 每个词元嵌入的宽度
d_out = 4  # 查询、键、值和输出的宽度
num_heads = 2
head_dim = d_out // num_heads  # 每个头在 d_out 中所占的宽度
temperature = 2.0  # 缩放后的分数还要再除以温度

# --- X：词元嵌入
vocab = list(dict.fromkeys(tokens))  # 不同的词元，按首次出现的顺序
token_to_idx = {token: idx for idx, token in enumerate(vocab)}
input_indices = torch.tensor([token_to_idx[token] for token in tokens])
# nn.Embedding 用 torch 的随机数生成器抽取嵌入表，紧接在设置随机种子之后
torch.manual_seed(7)
embedding_layer = nn.Embedding(len(vocab), d_model)
X = embedding_layer(input_indices)
# 正弦位置编码（Vaswani 等人），加到 X 上：PE[pos, 2i] = sin(pos / 10000^(2i / d_model))，
# PE[pos, 2i+1] = cos(同一角度)；以 float64 计算，以 float32 存储。
pe = torch.zeros(num_tokens, d_model)
for pos in range(num_tokens):
    for i in range(d_model):
        angle = pos / 10000 ** ((i - i % 2) / d_model)
        pe[pos, i] = math.sin(angle) if i % 2 == 0 else math.cos(angle)
X = X + pe
show("X，词元嵌入：", X)

# --- 权重
# 每个头一组 nn.Linear(d_model, head_dim)，每组依次抽取查询、键和值
# （由 CausalAttention 模块组成的 MultiHeadAttentionWrapper），最后是输出投影。
# nn.Linear 把权重存为 (out_features, in_features)：W(x) = x @ W.weight.T + W.bias
torch.manual_seed(123)
W_query, W_key, W_value = [], [], []
for h in range(num_heads):
    W_query.append(nn.Linear(d_model, head_dim, bias=True))
    W_key.append(nn.Linear(d_model, head_dim, bias=True))
    W_value.append(nn.Linear(d_model, head_dim, bias=True))
out_proj = nn.Linear(d_out, d_out, bias=True)
for h in range(num_heads):
    show(f"W_query[{h}].weight：", W_query[h].weight)
    show(f"W_query[{h}].bias：", W_query[h].bias)
    show(f"W_key[{h}].weight：", W_key[h].weight)
    show(f"W_key[{h}].bias：", W_key[h].bias)
    show(f"W_value[{h}].weight：", W_value[h].weight)
    show(f"W_value[{h}].bias：", W_value[h].bias)
show("out_proj.weight：", out_proj.weight)
show("out_proj.bias：", out_proj.bias)

# --- 查询、键和值
queries = torch.cat([W(X) for W in W_query], dim=-1)
keys = torch.cat([W(X) for W in W_key], dim=-1)
values = torch.cat([W(X) for W in W_value], dim=-1)
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
# 再除以温度（两者之积作为一个除数）
scaled_scores = attn_scores / (k_heads.shape[-1] ** 0.5 * temperature)
show("缩放后的分数：", scaled_scores)

# --- 掩码
# 被掩码的分数变为 -1e9：对 softmax 而言与 -inf 相同，除非整行都被掩码，
# 此时这一行得到相等的权重，而不是 NaN。
# 因果掩码：对角线以上为 True，即键在其查询之后的位置
mask = torch.triu(torch.ones(num_tokens, num_tokens), diagonal=1).bool()
masked_scores = scaled_scores.masked_fill(mask, -1e9)
# 键填充：0 表示填充的键，它所在的列在每一行都被掩码
attention_mask = torch.tensor([1, 1, 1, 0, 1])
masked_scores = masked_scores.masked_fill(attention_mask == 0, -1e9)
show("掩码后的分数：", masked_scores)

# --- 注意力权重：对每一行的键做 softmax
attn_weights = torch.softmax(masked_scores, dim=-1)
# 安全 softmax：所有键都被掩码（-inf）的行得到全 0，而不是 NaN
fully_masked = torch.isneginf(masked_scores).all(dim=-1, keepdim=True)
attn_weights = attn_weights.masked_fill(fully_masked, 0.0)
show("注意力权重：", attn_weights)

# --- 对注意力权重做 Dropout
# 训练模式，紧接在设置随机种子之后调用。对所有头的权重只调用一次：每个权重
# 要么被保留并乘以 1/(1 - p)，要么被丢弃为 0。
torch.manual_seed(5)
dropout = nn.Dropout(0.1)
dropout.train()
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
    report["W_q"] = matrix(torch.cat([W.weight for W in W_query]).T)
    report["W_k"] = matrix(torch.cat([W.weight for W in W_key]).T)
    report["W_v"] = matrix(torch.cat([W.weight for W in W_value]).T)
    report["W_o"] = matrix(out_proj.weight.T)
    report["b_q"] = numbers(torch.cat([W.bias for W in W_query]))
    report["b_k"] = numbers(torch.cat([W.bias for W in W_key]))
    report["b_v"] = numbers(torch.cat([W.bias for W in W_value]))
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
