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
# 这个状态运行训练好的模型 induction-2l：词元嵌入和学到的位置嵌入、2 个注意力层
# （输出加回残差流），以及把残差流变成下一个词元 logits 的反嵌入。


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
tokens = ["<s>", "U", "1", "I", "l", "W", "R", "j", "f", "O", "B", "G", "3", "0", "p", "x", "c",
             "h", "8", "#", "u", "e", "C", "w", "z", "U", "1", "I", "l", "W", "R", "j", "f",
             "O", "B", "G", "3", "0", "p", "x", "c", "h", "8", "#", "u", "e", "C", "w", "z"]
num_tokens = len(tokens)
d_model = 64  # 每个词元嵌入的宽度
d_out = 64  # 查询、键、值和输出的宽度
num_heads = 4
head_dim = d_out // num_heads  # 每个头在 d_out 中所占的宽度

# --- 权重
# 模型的权重：它的检查点文件，随 attnviz 一起提供（仓库和网页的 assets/models/ 中）。
# 放在别处时：python3 attnviz.py --weights 路径
MODEL_FILE = "assets/models/induction-2l-checkpoints.safetensors"
if "--weights" in sys.argv[1:]:
    MODEL_FILE = sys.argv[sys.argv.index("--weights") + 1]


def load_safetensors(path):
    # 只用标准库读取 .safetensors 文件：8 字节的头部长度、JSON 头部，
    # 然后是各张量的字节（float32，小端序）。
    with open(path, "rb") as f:
        data = f.read()
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + size])
    tensors = {}
    for name, info in header.items():
        if name != "__metadata__":
            begin, end = info["data_offsets"]
            raw = bytearray(data[8 + size + begin:8 + size + end])
            tensors[name] = torch.frombuffer(raw, dtype=torch.float32).reshape(info["shape"])
    return tensors


params = load_safetensors(MODEL_FILE)
prefix = "step_1000."  # 这个训练步数的检查点
vocab = ["<s>", "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P",
            "Q", "R", "S", "T", "U", "V", "W", "X", "Y", "Z", "a", "b", "c", "d", "e", "f", "g",
            "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t", "u", "v", "w", "x",
            "y", "z", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "@", "#"]
num_layers = 2

# --- x0：每个词元的嵌入加上它所在位置的（学到的）嵌入
token_ids = torch.tensor([vocab.index(token) for token in tokens])
tok_emb = params[prefix + "tok_emb.weight"][token_ids]
pos_emb = params[prefix + "pos_emb.weight"][:num_tokens]
x = tok_emb + pos_emb
show("x0，词元嵌入加位置嵌入：", x)
residual = [x]
layer_reports = []

# --- 各层依次计算：每层都对残差流 x 做多头注意力，
# 并把输出加回 x（x = x + attention(x)）。下面的 X 是这一层的输入。
for layer in range(num_layers):
    if not JSON:
        print(f"=== 第 {layer} 层 ===")
    X = x
    p = f"{prefix}layers.{layer}."
    W_query = params[p + "W_query.weight"].T  # nn.Linear 存的是 (out, in)：x @ W 需要它的转置
    W_key = params[p + "W_key.weight"].T
    W_value = params[p + "W_value.weight"].T
    W_out = params[p + "out_proj.weight"].T
    b_out = params[p + "out_proj.bias"]

    # --- 查询、键和值
    queries = X @ W_query
    keys = X @ W_key
    values = X @ W_value
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
    scaled_scores = attn_scores / math.sqrt(head_dim)
    show("缩放后的分数：", scaled_scores)

    # --- 掩码
    # 被掩码的分数变为 -inf，softmax 后这些键的权重为 0。
    # 因果掩码：对角线以上为 True，即键在其查询之后的位置
    mask = torch.triu(torch.ones(num_tokens, num_tokens), diagonal=1).bool()
    masked_scores = scaled_scores.masked_fill(mask, -torch.inf)
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
    context_vec = dropped_weights @ v_heads
    show("上下文向量：", context_vec)
    # 把各个头重新并排拼接：(num_tokens, d_out)
    concat = context_vec.transpose(0, 1).contiguous().view(num_tokens, d_out)
    show("各个头拼接后的结果：", concat)

    # --- 输出
    output = concat @ W_out + b_out
    show("输出：", output)
    if JSON:
        report = {"tokens": tokens, "X": matrix(X)}
        report["W_q"] = matrix(W_query)
        report["W_k"] = matrix(W_key)
        report["W_v"] = matrix(W_value)
        report["W_o"] = matrix(W_out)
        report["b_o"] = numbers(b_out)
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
        layer_reports.append(report)
    x = x + output  # 残差流：这一层的输出加上它的输入
    residual.append(x)

# --- 下一个词元的 logits：最后的残差流乘以反嵌入矩阵
logits = x @ params[prefix + "unembed.weight"].T
show("logits（每个位置一行，词表中每个词一列）：", logits)
if JSON:
    report = {"tokens": tokens, "model": {"name": "induction-2l", "step": 1000}}
    report["token_ids"] = token_ids.tolist()
    report["token_embedding"] = matrix(tok_emb)
    report["position_embedding"] = matrix(pos_emb)
    report["residual"] = [matrix(r) for r in residual]
    report["layers"] = layer_reports
    report["logits"] = matrix(logits)
    print(json.dumps(report, separators=(",", ":")))
