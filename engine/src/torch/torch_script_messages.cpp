// torch_script_messages.cpp: the PyTorch script's comments and printed headings,
// one table per language (torch_script_messages.h). The Chinese follows the
// tutorials' terms (docs/i18n.md, glossary); code, names and numbers stay as they are.
#include "torch/torch_script_messages.h"

namespace attnviz {
namespace detail {

namespace {

constexpr PyMsgText kEnglish[] = {
    {PyMsg::intro,
     "attnviz: this attention state as a PyTorch script. It rebuilds the inputs and the weights\n"
     "the way the tutorials do (the same seeds, the same draws in the same order) and computes\n"
     "every stage of attention with the tutorials' PyTorch lines."},
    {PyMsg::usage,
     "  python3 attnviz.py          prints every stage under a heading\n"
     "  python3 attnviz.py --json   prints one JSON object, the report of `attnviz-cli run`"},
    {PyMsg::made_by, "Written by attnviz {} from a session state (\"version\": {})."},
    {PyMsg::show_doc, "Prints one stage under its heading (not with --json)."},
    {PyMsg::numbers_doc,
     "The values of t for --json: each the shortest decimal that reads back as the same float32,\n"
     "or \"-inf\", \"inf\", \"nan\" (the convention of attnviz's report)."},
    {PyMsg::digits_note, "9 significant digits always read back"},
    {PyMsg::matrix_doc, "A (rows, cols) tensor for --json: a list of rows."},
    {PyMsg::sizes, "Sizes"},
    {PyMsg::d_model, "width of each token's embedding"},
    {PyMsg::d_out, "width of the queries, keys, values and the output"},
    {PyMsg::head_dim, "each head's share of d_out"},
    {PyMsg::temperature, "the scaled scores are divided by this too"},
    {PyMsg::embedding, "X: the token embeddings"},
    {PyMsg::vocab, "the distinct tokens, in order of first appearance"},
    {PyMsg::embedding_seeded, "nn.Embedding draws its table from torch's generator, seeded right before it"},
    {PyMsg::embedding_values, "X given explicitly: one row per token"},
    {PyMsg::positional,
     "Sinusoidal positions (Vaswani et al.), added to X: PE[pos, 2i] = sin(pos / 10000^(2i / d_model)),\n"
     "PE[pos, 2i+1] = cos(the same angle); computed in float64, stored as float32."},
    {PyMsg::weights, "The weights"},
    {PyMsg::weights_rand,
     "torch.rand after one seed, in this order: W_query, W_key, W_value, then W_out, then the\n"
     "biases (SelfAttention_v1's nn.Parameter(torch.rand(d_in, d_out)))."},
    {PyMsg::weights_linear_fused,
     "nn.Linear after one seed, in this order: query, key, value, then the output projection\n"
     "(SelfAttention_v2, MultiHeadAttention). Each draws its weight, then its bias."},
    {PyMsg::weights_linear_per_head,
     "One set of nn.Linear(d_model, head_dim) per head, each drawing its query, key and value in\n"
     "this order (a MultiHeadAttentionWrapper of CausalAttention modules), then the output projection."},
    {PyMsg::weights_values, "The weights given explicitly, in x @ W orientation."},
    {PyMsg::linear_orientation, "nn.Linear keeps its weight as (out_features, in_features): W(x) = x @ W.weight.T + W.bias"},
    {PyMsg::qkv, "Queries, keys and values"},
    {PyMsg::split_heads,
     "Split into heads: head h owns columns h*head_dim ... (h+1)*head_dim - 1,\n"
     "as (num_heads, num_tokens, head_dim)."},
    {PyMsg::scores, "Attention scores: every query against every key"},
    {PyMsg::scale_head_dim, "Scaled by the square root of head_dim"},
    {PyMsg::scale_d_out, "Scaled by the square root of d_out"},
    {PyMsg::scale_none, "No scaling"},
    {PyMsg::scale_temperature, "and by the temperature (one divisor, the product of the two)"},
    {PyMsg::mask, "Masking"},
    {PyMsg::no_mask, "nothing is masked"},
    {PyMsg::causal, "causal mask: True above the diagonal, where a key comes after its query"},
    {PyMsg::padding, "key padding: 0 marks a padded key; its column is masked in every row"},
    {PyMsg::fill_inf, "Masked scores become -inf, so softmax gives those keys weight 0."},
    {PyMsg::fill_number,
     "Masked scores become {}: like -inf for softmax unless a whole row is masked,\n"
     "which then gets equal weights instead of NaN."},
    {PyMsg::softmax, "Attention weights: softmax over the keys of each row"},
    {PyMsg::safe_softmax, "safe softmax: a row whose keys are all masked (-inf) gets zeros instead of NaN"},
    {PyMsg::dropout, "Dropout on the attention weights"},
    {PyMsg::dropout_train,
     "Training mode, seeded right before the call. One call over every head's weights: each is\n"
     "kept and multiplied by 1/(1 - p), or dropped to 0."},
    {PyMsg::dropout_eval, "eval mode: dropout is the identity"},
    {PyMsg::context, "Context vectors: the values weighted by the attention weights"},
    {PyMsg::concat, "the heads side by side again: (num_tokens, d_out)"},
    {PyMsg::output, "Output"},
    {PyMsg::output_none, "no output projection: the output is the context"},
    {PyMsg::json_report,
     "The report (--json)\n"
     "The same stages as one JSON object in the format of `attnviz-cli run` (the same keys in\n"
     "the same order), to compare with attnviz stage by stage."},
    {PyMsg::h_X, "X, the token embeddings:"},
    {PyMsg::h_param, "{}:"},
    {PyMsg::h_queries, "queries (Q):"},
    {PyMsg::h_keys, "keys (K):"},
    {PyMsg::h_values, "values (V):"},
    {PyMsg::h_scores, "attention scores:"},
    {PyMsg::h_scaled, "scaled scores:"},
    {PyMsg::h_masked, "masked scores:"},
    {PyMsg::h_weights, "attention weights:"},
    {PyMsg::h_dropped, "attention weights after dropout:"},
    {PyMsg::h_context, "context vectors:"},
    {PyMsg::h_concat, "the heads concatenated:"},
    {PyMsg::model_intro,
     "This state runs the trained model {}: token embeddings and learned positions, {} attention\n"
     "layers added to the residual stream, and an unembedding to next-token logits."},
    {PyMsg::model_file,
     "The model's weights: its checkpoints file, which ships with attnviz (assets/models/ in its\n"
     "repository and on its web page). Another place: python3 attnviz.py --weights PATH"},
    {PyMsg::model_loader_doc,
     "Reads a .safetensors file with the standard library: an 8-byte header length, a JSON\n"
     "header, then the tensors' bytes (float32, little-endian)."},
    {PyMsg::model_prefix, "the checkpoint at this training step"},
    {PyMsg::model_embedding, "x0: each token's embedding plus its position's (learned) embedding"},
    {PyMsg::model_layers,
     "The layers, one after the other: each is multi-head attention on the residual stream x,\n"
     "and its output is added to x (x = x + attention(x)). X below is that layer's input."},
    {PyMsg::model_layer_weights, "nn.Linear stores (out, in): x @ W needs the transpose"},
    {PyMsg::model_residual, "the residual stream: the layer's output added to its input"},
    {PyMsg::model_logits, "Next-token logits: the last residual stream times the unembedding"},
    {PyMsg::captured_layer,
     "This state holds {} attention layers captured from your own model; this script computes\n"
     "layer {} ({}) alone: its captured input X and its weights. The layers between (norms, MLPs,\n"
     "residual adds) are your model's own; export another layer for its script."},
    {PyMsg::h_x0, "x0, token plus position embeddings:"},
    {PyMsg::h_layer, "=== layer {} ==="},
    {PyMsg::h_logits, "logits (one row per position, one column per word of the vocabulary):"},
    {PyMsg::h_output, "output:"},
    {PyMsg::num_kv_heads, "key/value heads (GQA, or MQA when 1), each shared by several query heads"},
    {PyMsg::weights_kv,
     "Grouped-query attention: W_key and W_value (and their biases) are num_kv_heads * head_dim\n"
     "wide, drawn in the same order as before: only the keys and values have fewer heads."},
    {PyMsg::split_kv_heads, "The keys and values have num_kv_heads heads: (num_kv_heads, num_tokens, head_dim)."},
    {PyMsg::rope, "Rotary position embedding (RoPE): the queries and keys rotated by position"},
    {PyMsg::rope_half,
     "Nothing is added to X: instead each head's queries and keys turn by their position p.\n"
     "Columns k and k + head_dim/2 form a pair that turns by the angle p * inv_freq[k]\n"
     "(rotate_half: GPT-NeoX, Llama's LlamaRotaryEmbedding). Everything in float32, as in the\n"
     "models' code."},
    {PyMsg::rope_interleaved,
     "Nothing is added to X: instead each head's queries and keys turn by their position p.\n"
     "Columns 2k and 2k+1 form a pair that turns by the angle p * inv_freq[k] (rotate_every_two:\n"
     "GPT-J, RoFormer). Everything in float32, as in the models' code."},
    {PyMsg::rope_base, "theta (rope_theta): pair k turns by p / base^(2k / head_dim)"},
    {PyMsg::rope_positions, "the positions p = 0 ... num_tokens - 1"},
    {PyMsg::rope_angles, "the angles p * inv_freq[k]: (num_tokens, head_dim // 2)"},
    {PyMsg::rope_repeat, "each angle for both columns of its pair"},
    {PyMsg::rotate_half_doc, "(x1, x2) -> (-x2, x1): the halves of each row swapped, the new first half negated"},
    {PyMsg::rotate_every_two_doc, "(x0, x1, x2, x3, ...) -> (-x1, x0, -x3, x2, ...): each pair swapped, its first negated"},
    {PyMsg::repeat_kv,
     "GQA: query head h reads key/value head h // (num_heads // num_kv_heads); each key/value head\n"
     "is repeated for its group of query heads (Llama's repeat_kv)."},
    {PyMsg::alibi, "ALiBi: a bias by distance instead of positions"},
    {PyMsg::get_slopes_doc,
     "ALiBi (Press et al.): head h adds -slopes[h] * |i - j| to the scaled score of query i and\n"
     "key j, so farther keys count less; nothing is added to X. The slopes, from the paper's\n"
     "reference code:"},
    {PyMsg::alibi_slopes, "one per head: float64, stored as float32"},
    {PyMsg::alibi_distance, "|i - j|: how far key j is from query i"},
    {PyMsg::alibi_shape, "(num_heads, num_tokens, num_tokens)"},
    {PyMsg::alibi_added, "ALiBi's bias is added before the mask"},
    {PyMsg::alibi_no_mask, "ALiBi's bias added; nothing is masked"},
    {PyMsg::window, "sliding window (Mistral): a query sees only keys less than window tokens away"},
    {PyMsg::window_before, "window tokens or more before the query"},
    {PyMsg::window_after, "and as many after it (no causal mask)"},
    {PyMsg::h_q_rot, "queries rotated by position (RoPE):"},
    {PyMsg::h_k_rot, "keys rotated by position (RoPE):"},
    {PyMsg::h_bias, "ALiBi bias:"},
    {PyMsg::cache_streaming,
     "StreamingLLM's KV cache (Xiao et al.): a decoder keeps the first sink_tokens keys and the\n"
     "last recent ones, and evicts the rest. At the tokens' own positions that is a mask:"},
    {PyMsg::cache_evicted, "neither one of the first keys nor a recent one: no longer in the cache"},
    {PyMsg::sinks,
     "gpt-oss's attention sinks: each head has a learned logit (its self.sinks) that joins every\n"
     "row of logits as one more column; softmax runs over num_tokens + 1 entries, and that column\n"
     "is dropped after it, so each row of weights sums to less than 1."},
    {PyMsg::sink_values, "one per head"},
    {PyMsg::sink_column, "(.., num_tokens, 1): the sink's column for every row"},
    {PyMsg::sink_drop, "the sink's column dropped: each row sums to 1 - its share"},
    {PyMsg::h_sink_share, "the sink's share of each row (the dropped column):"},
};

// 简体中文. Comment lines stay within about 90 columns (a Chinese character is two).
constexpr PyMsgText kChinese[] = {
    {PyMsg::intro,
     "attnviz：把这个注意力状态写成 PyTorch 脚本。它按教程的方式重建输入和权重\n"
     "（相同的随机种子，按相同的顺序抽取相同的随机数），并用教程里的 PyTorch 代码\n"
     "计算注意力的每一步。"},
    {PyMsg::usage,
     "  python3 attnviz.py          在标题下打印每一步\n"
     "  python3 attnviz.py --json   打印一个 JSON 对象，即 `attnviz-cli run` 的报告"},
    {PyMsg::made_by, "由 attnviz {} 根据一个会话状态（\"version\": {}）生成。"},
    {PyMsg::show_doc, "在标题下打印一步的结果（使用 --json 时不打印）。"},
    {PyMsg::numbers_doc,
     "供 --json 使用的 t 的数值：每个都是读回后仍为同一 float32 的最短十进制数，\n"
     "或 \"-inf\"、\"inf\"、\"nan\"（attnviz 报告的约定）。"},
    {PyMsg::digits_note, "9 位有效数字总能读回原值"},
    {PyMsg::matrix_doc, "供 --json 使用的 (rows, cols) 张量：按行排列的列表。"},
    {PyMsg::sizes, "尺寸"},
    {PyMsg::d_model, "每个词元嵌入的宽度"},
    {PyMsg::d_out, "查询、键、值和输出的宽度"},
    {PyMsg::head_dim, "每个头在 d_out 中所占的宽度"},
    {PyMsg::temperature, "缩放后的分数还要再除以温度"},
    {PyMsg::embedding, "X：词元嵌入"},
    {PyMsg::vocab, "不同的词元，按首次出现的顺序"},
    {PyMsg::embedding_seeded, "nn.Embedding 用 torch 的随机数生成器抽取嵌入表，紧接在设置随机种子之后"},
    {PyMsg::embedding_values, "直接给出的 X：每个词元一行"},
    {PyMsg::positional,
     "正弦位置编码（Vaswani 等人），加到 X 上：PE[pos, 2i] = sin(pos / 10000^(2i / d_model))，\n"
     "PE[pos, 2i+1] = cos(同一角度)；以 float64 计算，以 float32 存储。"},
    {PyMsg::weights, "权重"},
    {PyMsg::weights_rand,
     "设置一次随机种子后用 torch.rand 依次抽取：W_query、W_key、W_value，然后是 W_out，\n"
     "最后是偏置（SelfAttention_v1 的 nn.Parameter(torch.rand(d_in, d_out))）。"},
    {PyMsg::weights_linear_fused,
     "设置一次随机种子后依次创建 nn.Linear：查询、键、值，然后是输出投影\n"
     "（SelfAttention_v2、MultiHeadAttention）。每个先抽取权重，再抽取偏置。"},
    {PyMsg::weights_linear_per_head,
     "每个头一组 nn.Linear(d_model, head_dim)，每组依次抽取查询、键和值\n"
     "（由 CausalAttention 模块组成的 MultiHeadAttentionWrapper），最后是输出投影。"},
    {PyMsg::weights_values, "直接给出的权重，按 x @ W 的方向。"},
    {PyMsg::linear_orientation, "nn.Linear 把权重存为 (out_features, in_features)：W(x) = x @ W.weight.T + W.bias"},
    {PyMsg::qkv, "查询、键和值"},
    {PyMsg::split_heads,
     "拆分成多个头：第 h 个头拥有第 h*head_dim ... (h+1)*head_dim - 1 列，\n"
     "形状为 (num_heads, num_tokens, head_dim)。"},
    {PyMsg::scores, "注意力分数：每个查询与每个键的点积"},
    {PyMsg::scale_head_dim, "缩放：除以 head_dim 的平方根"},
    {PyMsg::scale_d_out, "缩放：除以 d_out 的平方根"},
    {PyMsg::scale_none, "不缩放"},
    {PyMsg::scale_temperature, "再除以温度（两者之积作为一个除数）"},
    {PyMsg::mask, "掩码"},
    {PyMsg::no_mask, "没有任何位置被掩码"},
    {PyMsg::causal, "因果掩码：对角线以上为 True，即键在其查询之后的位置"},
    {PyMsg::padding, "键填充：0 表示填充的键，它所在的列在每一行都被掩码"},
    {PyMsg::fill_inf, "被掩码的分数变为 -inf，softmax 后这些键的权重为 0。"},
    {PyMsg::fill_number,
     "被掩码的分数变为 {}：对 softmax 而言与 -inf 相同，除非整行都被掩码，\n"
     "此时这一行得到相等的权重，而不是 NaN。"},
    {PyMsg::softmax, "注意力权重：对每一行的键做 softmax"},
    {PyMsg::safe_softmax, "安全 softmax：所有键都被掩码（-inf）的行得到全 0，而不是 NaN"},
    {PyMsg::dropout, "对注意力权重做 Dropout"},
    {PyMsg::dropout_train,
     "训练模式，紧接在设置随机种子之后调用。对所有头的权重只调用一次：每个权重\n"
     "要么被保留并乘以 1/(1 - p)，要么被丢弃为 0。"},
    {PyMsg::dropout_eval, "评估模式：Dropout 不改变输入"},
    {PyMsg::context, "上下文向量：用注意力权重对值加权求和"},
    {PyMsg::concat, "把各个头重新并排拼接：(num_tokens, d_out)"},
    {PyMsg::output, "输出"},
    {PyMsg::output_none, "没有输出投影：输出就是上下文向量"},
    {PyMsg::json_report,
     "报告（--json）\n"
     "把同样的各个阶段输出为一个 JSON 对象，格式与 `attnviz-cli run` 相同（相同的键、\n"
     "相同的顺序），以便与 attnviz 逐阶段比较。"},
    {PyMsg::h_X, "X，词元嵌入："},
    {PyMsg::h_param, "{}："},
    {PyMsg::h_queries, "查询（Q）："},
    {PyMsg::h_keys, "键（K）："},
    {PyMsg::h_values, "值（V）："},
    {PyMsg::h_scores, "注意力分数："},
    {PyMsg::h_scaled, "缩放后的分数："},
    {PyMsg::h_masked, "掩码后的分数："},
    {PyMsg::h_weights, "注意力权重："},
    {PyMsg::h_dropped, "Dropout 后的注意力权重："},
    {PyMsg::h_context, "上下文向量："},
    {PyMsg::h_concat, "各个头拼接后的结果："},
    {PyMsg::model_intro,
     "这个状态运行训练好的模型 {}：词元嵌入和学到的位置嵌入、{} 个注意力层\n"
     "（输出加回残差流），以及把残差流变成下一个词元 logits 的反嵌入。"},
    {PyMsg::model_file,
     "模型的权重：它的检查点文件，随 attnviz 一起提供（仓库和网页的 assets/models/ 中）。\n"
     "放在别处时：python3 attnviz.py --weights 路径"},
    {PyMsg::model_loader_doc,
     "只用标准库读取 .safetensors 文件：8 字节的头部长度、JSON 头部，\n"
     "然后是各张量的字节（float32，小端序）。"},
    {PyMsg::model_prefix, "这个训练步数的检查点"},
    {PyMsg::model_embedding, "x0：每个词元的嵌入加上它所在位置的（学到的）嵌入"},
    {PyMsg::model_layers,
     "各层依次计算：每层都对残差流 x 做多头注意力，\n"
     "并把输出加回 x（x = x + attention(x)）。下面的 X 是这一层的输入。"},
    {PyMsg::model_layer_weights, "nn.Linear 存的是 (out, in)：x @ W 需要它的转置"},
    {PyMsg::model_residual, "残差流：这一层的输出加上它的输入"},
    {PyMsg::model_logits, "下一个词元的 logits：最后的残差流乘以反嵌入矩阵"},
    {PyMsg::captured_layer,
     "这个状态含有从你自己的模型捕获的 {} 个注意力层；这个脚本只计算\n"
     "第 {} 层（{}）：它捕获到的输入 X 和它的权重。层与层之间的部分（归一化、MLP、\n"
     "残差相加）属于你的模型；导出其他层可得到它们的脚本。"},
    {PyMsg::h_x0, "x0，词元嵌入加位置嵌入："},
    {PyMsg::h_layer, "=== 第 {} 层 ==="},
    {PyMsg::h_logits, "logits（每个位置一行，词表中每个词一列）："},
    {PyMsg::h_output, "输出："},
    {PyMsg::num_kv_heads, "键/值的头数（GQA；为 1 时即 MQA），每个由几个查询头共用"},
    {PyMsg::weights_kv,
     "分组查询注意力（GQA）：W_key 和 W_value（及其偏置）的宽度为 num_kv_heads * head_dim，\n"
     "抽取顺序与之前相同：只是键和值的头更少。"},
    {PyMsg::split_kv_heads, "键和值有 num_kv_heads 个头：形状为 (num_kv_heads, num_tokens, head_dim)。"},
    {PyMsg::rope, "旋转位置编码（RoPE）：按位置旋转查询和键"},
    {PyMsg::rope_half,
     "X 上不加任何东西：每个头的查询和键按其位置 p 旋转。第 k 列和第 k + head_dim/2 列\n"
     "组成一对，旋转角度为 p * inv_freq[k]\n"
     "（rotate_half：GPT-NeoX、Llama 的 LlamaRotaryEmbedding）。\n"
     "全部以 float32 计算，与模型的代码相同。"},
    {PyMsg::rope_interleaved,
     "X 上不加任何东西：每个头的查询和键按其位置 p 旋转。第 2k 列和第 2k+1 列\n"
     "组成一对，旋转角度为 p * inv_freq[k]（rotate_every_two：GPT-J、RoFormer）。\n"
     "全部以 float32 计算，与模型的代码相同。"},
    {PyMsg::rope_base, "theta（rope_theta）：第 k 对的旋转角度为 p / base^(2k / head_dim)"},
    {PyMsg::rope_positions, "位置 p = 0 ... num_tokens - 1"},
    {PyMsg::rope_angles, "角度 p * inv_freq[k]：(num_tokens, head_dim // 2)"},
    {PyMsg::rope_repeat, "每个角度用于它那一对中的两列"},
    {PyMsg::rotate_half_doc, "(x1, x2) -> (-x2, x1)：交换每行的前后两半，并把新的前一半取负"},
    {PyMsg::rotate_every_two_doc, "(x0, x1, x2, x3, ...) -> (-x1, x0, -x3, x2, ...)：交换每一对，并把其第一个取负"},
    {PyMsg::repeat_kv,
     "GQA：第 h 个查询头读取第 h // (num_heads // num_kv_heads) 个键/值头；每个键/值头\n"
     "为它那一组查询头重复（Llama 的 repeat_kv）。"},
    {PyMsg::alibi, "ALiBi：按距离加偏置，代替位置编码"},
    {PyMsg::get_slopes_doc,
     "ALiBi（Press 等人）：第 h 个头在查询 i 与键 j 的缩放后的分数上加 -slopes[h] * |i - j|，\n"
     "越远的键权重越小；X 上不加任何东西。斜率来自论文的参考代码："},
    {PyMsg::alibi_slopes, "每个头一个：以 float64 计算，以 float32 存储"},
    {PyMsg::alibi_distance, "|i - j|：键 j 与查询 i 的距离"},
    {PyMsg::alibi_shape, "形状为 (num_heads, num_tokens, num_tokens)"},
    {PyMsg::alibi_added, "ALiBi 的偏置在掩码之前加上"},
    {PyMsg::alibi_no_mask, "加上 ALiBi 的偏置；没有任何位置被掩码"},
    {PyMsg::window, "滑动窗口（Mistral）：查询只看距离小于 window 个词元的键"},
    {PyMsg::window_before, "在查询之前 window 个或更多词元"},
    {PyMsg::window_after, "没有因果掩码时，之后同样远的也掩码"},
    {PyMsg::h_q_rot, "按位置旋转后的查询（RoPE）："},
    {PyMsg::h_k_rot, "按位置旋转后的键（RoPE）："},
    {PyMsg::h_bias, "ALiBi 偏置："},
    {PyMsg::cache_streaming,
     "StreamingLLM 的 KV 缓存（Xiao 等人）：解码器保留前 sink_tokens 个键和最近的 recent 个键，\n"
     "其余的被逐出。按词元自己的位置看，这就是一个掩码："},
    {PyMsg::cache_evicted, "既不是最前面的键，也不是最近的键：已不在缓存中"},
    {PyMsg::sinks,
     "gpt-oss 的注意力汇（sink）：每个头有一个学到的 logit（它的 self.sinks），作为多出来的一列\n"
     "加到每一行 logits 上；softmax 对 num_tokens + 1 个元素计算，之后丢掉这一列，\n"
     "所以每一行权重之和小于 1。"},
    {PyMsg::sink_values, "每个头一个"},
    {PyMsg::sink_column, "(.., num_tokens, 1)：每一行的 sink 列"},
    {PyMsg::sink_drop, "丢掉 sink 列：每一行之和为 1 - 它所占的份额"},
    {PyMsg::h_sink_share, "sink 在每一行所占的份额（被丢掉的那一列）："},
};

}  // namespace

const PyLanguage* py_languages() {
  static constexpr PyLanguage kLanguages[kPyLanguageCount] = {
      {"en", kEnglish, static_cast<int>(sizeof kEnglish / sizeof kEnglish[0])},
      {"zh-CN", kChinese, static_cast<int>(sizeof kChinese / sizeof kChinese[0])},
  };
  return kLanguages;
}

}  // namespace detail
}  // namespace attnviz
