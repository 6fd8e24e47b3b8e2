// The PyTorch script generator (attnviz/torch_script.h) on its own: what each
// state field becomes, the message tables, escaping. Every build runs these (the
// page's download is made by the wasm build); running the scripts with python3
// and torch against the engine is torch_script_check.cpp (native only), and the
// exact bytes for eleven states are tests/engine/data/torch_script/*.py (ctest
// cli_export_torch_*, native and wasm).
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "attnviz/state.h"
#include "attnviz/torch_script.h"
#include "engine_test_util.h"

namespace {

using attnviz::torch_script;
using attnviz_test::state_from;

bool has(const std::string& script, const std::string& text) { return script.find(text) != std::string::npos; }

TEST(TorchScript, TheDefaultStateIsTutorial000InItsOrder) {
  const std::string py = torch_script(state_from("{}"));
  // Seeds and draws in the tutorial's order: the embedding, then the weights.
  const std::vector<std::string> in_order = {
      "#!/usr/bin/env python3\n",
      "import torch\n",
      "tokens = [\"Once\", \"upon\", \"a\", \"time\", \"there\"]\n",
      "torch.manual_seed(123)\n",
      "embedding_layer = nn.Embedding(len(vocab), d_model)\n",
      "X = embedding_layer(input_indices)\n",
      "torch.manual_seed(123)\n",
      "W_query = torch.rand(d_model, d_out)\nW_key = torch.rand(d_model, d_out)\nW_value = torch.rand(d_model, d_out)\n",
      "queries = X @ W_query\n",
      "attn_scores = queries @ keys.T\n",
      "scaled_scores = attn_scores / math.sqrt(head_dim)\n",
      "masked_scores = scaled_scores  # nothing is masked\n",
      "attn_weights = torch.softmax(masked_scores, dim=-1)\n",
      "dropout = nn.Dropout(0.0)\ndropout.eval()",
      "context_vec = dropped_weights @ values\n",
      "output = context_vec  #",
      "if JSON:\n",
      "print(json.dumps(report, separators=(\",\", \":\")))\n",
  };
  size_t at = 0;
  for (const std::string& piece : in_order) {
    const size_t found = py.find(piece, at);
    ASSERT_NE(found, std::string::npos) << "missing, or out of order: " << piece << "\n--- script:\n" << py;
    at = found + piece.size();
  }
  EXPECT_FALSE(has(py, "W_out =")) << "no output projection in this state";
  EXPECT_FALSE(has(py, "temperature =")) << "temperature 1 is not written";
  EXPECT_EQ(py, torch_script(state_from("{}"))) << "the same state gives the same bytes";
}

TEST(TorchScript, EachOptionBecomesTheTutorialsLine) {
  struct Expect {
    const char* state;
    std::vector<const char*> lines;
  };
  const Expect cases[] = {
      {R"({"causal": true})",
       {"mask = torch.triu(torch.ones(num_tokens, num_tokens), diagonal=1).bool()",
        "masked_scores = scaled_scores.masked_fill(mask, -torch.inf)\n"}},
      {R"({"key_padding": [1, 1, 0, 1, 0], "mask_fill": -1e20})",
       {"attention_mask = torch.tensor([1, 1, 0, 1, 0])",
        "masked_scores = scaled_scores.masked_fill(attention_mask == 0, -1e20)\n"}},
      {R"({"causal": true, "key_padding": [1, 1, 0, 1, 0]})",
       {"masked_scores = scaled_scores.masked_fill(mask, -torch.inf)\n",
        "masked_scores = masked_scores.masked_fill(attention_mask == 0, -torch.inf)\n"}},
      {R"({"safe_softmax": true, "causal": true})",
       {"fully_masked = torch.isneginf(masked_scores).all(dim=-1, keepdim=True)\n",
        "attn_weights = attn_weights.masked_fill(fully_masked, 0.0)\n"}},
      {R"({"dropout": {"p": 0.2, "training": true, "seed": 42}})",
       {"torch.manual_seed(42)\ndropout = nn.Dropout(0.2)\ndropout.train()\ndropped_weights = dropout(attn_weights)\n"}},
      {R"({"temperature": 0.5})",
       {"temperature = 0.5", "scaled_scores = attn_scores / (math.sqrt(head_dim) * temperature)\n"}},
      {R"({"scale": "d_out", "d_out": 4, "num_heads": 2})", {"scaled_scores = attn_scores / math.sqrt(d_out)\n"}},
      {R"({"scale": "none"})", {"scaled_scores = attn_scores\n"}},
      {R"({"scale": "none", "temperature": 3})", {"scaled_scores = attn_scores / temperature\n"}},
      {R"({"weights": {"init": "torch_linear", "seed": 789}, "qkv_bias": true})",
       {"torch.manual_seed(789)\nW_query = nn.Linear(d_model, d_out, bias=True)\n"
        "W_key = nn.Linear(d_model, d_out, bias=True)\nW_value = nn.Linear(d_model, d_out, bias=True)\n",
        "queries = W_query(X)\n", "scaled_scores = attn_scores / keys.shape[-1] ** 0.5\n",
        "report[\"W_q\"] = matrix(W_query.weight.T)\n", "report[\"b_q\"] = numbers(W_query.bias)\n"}},
      {R"({"weights": {"init": "torch_linear", "seed": 1, "layout": "per_head"}, "d_out": 4, "num_heads": 2,
          "out_proj": true, "out_bias": false})",
       {"for h in range(num_heads):\n    W_query.append(nn.Linear(d_model, head_dim, bias=False))\n",
        "out_proj = nn.Linear(d_out, d_out, bias=False)\n", "queries = torch.cat([W(X) for W in W_query], dim=-1)\n",
        "q_heads = queries.view(num_tokens, num_heads, head_dim).transpose(0, 1)\n",
        "attn_scores = q_heads @ k_heads.transpose(-2, -1)\n",
        "scaled_scores = attn_scores / k_heads.shape[-1] ** 0.5\n",
        "concat = context_vec.transpose(0, 1).contiguous().view(num_tokens, d_out)", "output = out_proj(concat)\n",
        "\"scores\": matrix(attn_scores[h]),", "for h in range(num_heads)\n"}},
      {R"({"qkv_bias": true, "out_proj": true, "out_bias": true})",
       {"W_value = torch.rand(d_model, d_out)\nW_out = torch.rand(d_out, d_out)\nb_query = torch.rand(d_out)\n"
        "b_key = torch.rand(d_out)\nb_value = torch.rand(d_out)\nb_out = torch.rand(d_out)\n",
        "queries = X @ W_query + b_query\n", "output = context_vec @ W_out + b_out\n",
        "report[\"b_o\"] = numbers(b_out)\n"}},
      {R"({"positional": "sinusoidal"})",
       {"        angle = pos / 10000 ** ((i - i % 2) / d_model)\n", "X = X + pe\n"}},
      {R"({"embedding": {"init": "torch_randn", "seed": -1}})", {"torch.manual_seed(18446744073709551615)\n"}},
      // Issue 23: as Llama, GPT-J, the ALiBi paper and Mistral write them.
      {R"({"positional": "rope", "d_out": 8, "num_heads": 2})",
       {"base = 10000.0  #", "inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))\n",
        "t = torch.arange(num_tokens).float()", "freqs = torch.outer(t, inv_freq)",
        "emb = torch.cat((freqs, freqs), dim=-1)", "cos, sin = emb.cos(), emb.sin()\n",
        "def rotate_half(x):\n", "    return torch.cat((-x2, x1), dim=-1)\n",
        "q_rot = q_heads * cos + rotate_half(q_heads) * sin\n", "k_rot = k_heads * cos + rotate_half(k_heads) * sin\n",
        "attn_scores = q_rot @ k_rot.transpose(-2, -1)\n", "\"q_rot\": matrix(q_rot[h]),\n            \"k_rot\": matrix(k_rot[h]),\n"
        "            \"scores\": matrix(attn_scores[h]),"}},
      {R"({"positional": "rope", "rope": {"base": 500000, "style": "interleaved"}, "d_out": 4})",
       {"base = 500000.0  #", "sin = freqs.sin().repeat_interleave(2, dim=-1)\n",
        "cos = freqs.cos().repeat_interleave(2, dim=-1)\n", "def rotate_every_two(x):\n",
        "    x = torch.stack((-x2, x1), dim=-1)\n    return x.flatten(-2)\n",
        "q_rot = queries * cos + rotate_every_two(queries) * sin\n", "attn_scores = q_rot @ k_rot.T\n",
        "\"q_rot\": matrix(q_rot),"}},
      {R"({"num_heads": 4, "num_kv_heads": 2, "d_out": 8, "qkv_bias": true})",
       {"num_kv_heads = 2  #", "W_key = torch.rand(d_model, num_kv_heads * head_dim)\n",
        "b_value = torch.rand(num_kv_heads * head_dim)\n", "W_query = torch.rand(d_model, d_out)\n",
        "k_heads = keys.view(num_tokens, num_kv_heads, head_dim).transpose(0, 1)\n",
        "k_heads = k_heads.repeat_interleave(num_heads // num_kv_heads, dim=0)\n",
        "v_heads = v_heads.repeat_interleave(num_heads // num_kv_heads, dim=0)\n",
        "attn_scores = q_heads @ k_heads.transpose(-2, -1)\n", "context_vec = dropped_weights @ v_heads\n"}},
      {R"({"num_heads": 4, "num_kv_heads": 1, "d_out": 8, "positional": "rope",
          "weights": {"init": "torch_linear", "seed": 1}})",
       {"W_key = nn.Linear(d_model, num_kv_heads * head_dim, bias=False)\n",
        "W_query = nn.Linear(d_model, d_out, bias=False)\n",
        "k_rot = k_rot.repeat_interleave(num_heads // num_kv_heads, dim=0)\n"}},
      {R"({"alibi": true, "num_heads": 2, "causal": true})",
       {"def get_slopes(n):\n    def get_slopes_power_of_2(n):\n        start = (2**(-2**-(math.log2(n)-3)))\n",
        "slopes = torch.tensor(get_slopes(num_heads))", "distance = (idx[:, None] - idx[None, :]).abs().float()",
        "alibi_bias = -(slopes[:, None, None] * distance)",
        "masked_scores = scaled_scores + alibi_bias  #", "masked_scores = masked_scores.masked_fill(mask, -torch.inf)\n",
        "\"scaled\": matrix(scaled_scores[h]),\n            \"bias\": matrix(alibi_bias[h]),\n"}},
      {R"({"alibi": true})", {"alibi_bias = -(slopes[0] * distance)\n", "masked_scores = scaled_scores + alibi_bias  #"}},
      {R"({"window": 2})",
       {"window = 2  #", "idx = torch.arange(num_tokens)\n", "window_mask = (idx[:, None] - idx[None, :]) >= window",
        "window_mask |= (idx[None, :] - idx[:, None]) >= window",
        "masked_scores = scaled_scores.masked_fill(window_mask, -torch.inf)\n"}},
      {R"({"window": 3, "causal": true, "mask_fill": -1e9})",
       {"masked_scores = scaled_scores.masked_fill(mask, -1e9)\n",
        "masked_scores = masked_scores.masked_fill(window_mask, -1e9)\n"}},
      // Issue 36: gpt-oss's sinks as its sdpa() writes them, StreamingLLM's cache as a mask.
      {R"({"num_heads": 2, "d_out": 4, "sinks": {"enabled": true, "values": [0.5, -1.25]}})",
       {"sinks = torch.tensor([0.5, -1.25])  #",
        "sink_column = sinks.reshape(num_heads, 1, 1).expand(-1, num_tokens, 1)\n",
        "probs = torch.softmax(torch.cat([masked_scores, sink_column], dim=-1), dim=-1)\n",
        "attn_weights = probs[..., :-1]  #", "probs[..., -1])\n"}},
      {R"({"sinks": {"enabled": true}})", {"sinks = torch.tensor([0.0])  #", "sink_column = sinks.expand(num_tokens, 1)\n"}},
      {R"({"kv_cache": {"policy": "streaming_llm", "sink_tokens": 2, "recent": 3}})",
       {"sink_tokens, recent = 2, 3\n", "idx = torch.arange(num_tokens)\n",
        "evicted = (idx[None, :] >= sink_tokens) & ((idx[:, None] - idx[None, :]) >= recent)",
        "masked_scores = scaled_scores.masked_fill(evicted, -torch.inf)\n"}},
  };
  for (const Expect& e : cases) {
    const std::string py = torch_script(state_from(e.state));
    for (const char* line : e.lines) EXPECT_TRUE(has(py, line)) << e.state << "\nlacks:\n" << line << "\n--- script:\n" << py;
  }
}

TEST(TorchScript, WithoutTheVariantsNoneOfTheirLinesAppear) {
  for (const char* state : {"{}", R"({"num_heads": 2, "num_kv_heads": 2, "d_out": 4, "causal": true})",
                            R"({"sinks": {"enabled": false, "values": [3]}, "kv_cache": {"policy": "full", "recent": 1}})"}) {
    const std::string py = torch_script(state_from(state));
    for (const char* line : {"num_kv_heads", "repeat_interleave", "rotate_half", "q_rot", "alibi", "window", "get_slopes",
                             "sink", "evicted", "probs"})
      EXPECT_FALSE(has(py, line)) << state << " has " << line;
  }
  // Only the window masks: its own comment, not "nothing is masked".
  EXPECT_FALSE(has(torch_script(state_from(R"({"window": 1})")), "nothing is masked"));
  EXPECT_TRUE(has(torch_script(state_from(R"({"alibi": true})")), "masked_scores = scaled_scores + alibi_bias  # ALiBi's bias "
                                                                   "added; nothing is masked\n"));
}

TEST(TorchScript, VariantStagesFollowTheReportsOrder) {
  const std::string py = torch_script(state_from(R"({"positional": "rope", "alibi": true, "num_heads": 2, "d_out": 4,
                                                     "num_kv_heads": 1, "window": 2, "causal": true})"));
  const std::vector<std::string> in_order = {"\"q_rot\"", "\"k_rot\"", "\"scores\"", "\"scaled\"", "\"bias\"",
                                             "\"masked\"", "\"weights\"", "\"dropped\"", "\"context\""};
  size_t at = py.find("report[\"heads\"]");
  ASSERT_NE(at, std::string::npos);
  for (const std::string& key : in_order) {
    const size_t found = py.find(key, at);
    ASSERT_NE(found, std::string::npos) << key << " missing or out of order";
    at = found;
  }
  // RoPE before the K/V heads are repeated (Llama: apply_rotary_pos_emb, then repeat_kv), ALiBi
  // before the mask, the window after the causal mask.
  const std::vector<std::string> lines = {"k_rot = k_heads * cos", "k_rot = k_rot.repeat_interleave(",
                                          "attn_scores = q_rot @ k_rot", "alibi_bias = -(",
                                          "masked_scores = scaled_scores + alibi_bias", "masked_fill(mask,",
                                          "masked_fill(window_mask,"};
  at = 0;
  for (const std::string& line : lines) {
    const size_t found = py.find(line, at);
    ASSERT_NE(found, std::string::npos) << line << " missing or out of order\n" << py;
    at = found;
  }
}

TEST(TorchScript, ExplicitValuesAreLiteralTensorsThatReadBackExactly) {
  const std::string py = torch_script(state_from(R"({"tokens": ["a", "b"], "d_model": 2, "d_out": 2,
      "embedding": {"values": [[0.1, -3e-07], [1e+20, 0]]},
      "weights": {"W_q": [[1, 2], [3, 4]], "W_k": [[0.5, 0.25], [0, -0.0]], "W_v": [[1, 0], [0, 1]],
                  "b_q": [0.3, 0.7], "b_k": [0, 0], "b_v": [1, 2]}, "qkv_bias": true})"));
  // Shortest decimals of the float32 values (0.1f is not 0.1, and reads back as 0.1f).
  EXPECT_TRUE(has(py, "X = torch.tensor([\n    [0.1, -3e-7],\n    [1e20, 0.0],\n])\n")) << py;
  EXPECT_TRUE(has(py, "W_key = torch.tensor([\n    [0.5, 0.25],\n    [0.0, -0.0],\n])\n")) << py;
  EXPECT_TRUE(has(py, "b_query = torch.tensor([0.3, 0.7])\n")) << py;
  EXPECT_FALSE(has(py, "manual_seed")) << "explicit values draw nothing";
}

TEST(TorchScript, TokensAreEscapedPythonStrings) {
  const std::string py =
      torch_script(state_from(R"({"tokens": ["a\"b", "back\\slash", "new\nline", "我", "tab\tx", "'q'"]})"));
  EXPECT_TRUE(has(py, R"(tokens = ["a\"b", "back\\slash", "new\nline", "我", "tab\tx", "'q'"])" "\n")) << py;
}

TEST(TorchScript, LongListsWrapInsideTheirBrackets) {
  std::string tokens;
  for (int i = 0; i < 60; ++i) tokens += std::string(i ? ", " : "") + "\"token" + std::to_string(i) + "\"";
  const std::string py = torch_script(state_from("{\"tokens\": [" + tokens + "]}"));
  size_t start = 0;
  while (start < py.size()) {
    size_t end = py.find('\n', start);
    if (end == std::string::npos) end = py.size();
    EXPECT_LE(end - start, 100u) << py.substr(start, end - start);
    start = end + 1;
  }
}

TEST(TorchScript, EveryLanguageTableIsComplete) {
  const std::vector<std::string> languages = attnviz::torch_script_languages();
  ASSERT_FALSE(languages.empty());
  EXPECT_EQ(languages[0], "en");
  for (const std::string& l : languages) {
    EXPECT_TRUE(attnviz::torch_script_has_language(l));
    EXPECT_TRUE(attnviz::torch_script_missing_messages(l).empty())
        << l << " lacks " << attnviz::torch_script_missing_messages(l).size() << " messages";
  }
  EXPECT_NE(std::find(languages.begin(), languages.end(), "zh-CN"), languages.end());
  EXPECT_FALSE(attnviz::torch_script_has_language("xx"));
  // A language without a table gets English.
  attnviz::TorchScriptOptions other;
  other.language = "xx";
  EXPECT_EQ(torch_script(state_from("{}"), other), torch_script(state_from("{}")));
}

TEST(TorchScript, NoCommentOrHeadingIsEmpty) {
  for (const char* state :
       {"{}",
        R"({"positional": "rope", "rope": {"style": "interleaved"}, "num_heads": 2, "num_kv_heads": 1, "alibi": true,
            "window": 2, "causal": true})", R"({"causal": true, "key_padding": [1, 0, 1, 1, 1], "mask_fill": -5, "safe_softmax": true,
                  "temperature": 2, "dropout": {"p": 0.5, "training": true}, "num_heads": 2, "d_out": 4,
                  "positional": "sinusoidal", "out_proj": true, "qkv_bias": true})",
        R"({"weights": {"init": "torch_linear", "layout": "per_head"}, "scale": "none", "out_proj": true})"}) {
    const std::string py = torch_script(state_from(state));
    EXPECT_FALSE(has(py, "# \n")) << state;
    EXPECT_FALSE(has(py, "#\n")) << state;
    EXPECT_FALSE(has(py, "show(\"\"")) << state;
    EXPECT_FALSE(has(py, "{}")) << "an argument was not filled in: " << state;
  }
}

// The script's code with every comment and every heading's text taken out: the same
// in every language.
std::string code_only(const std::string& py) {
  static const std::regex heading(R"re(show\(f?"(?:[^"\\]|\\.)*")re");
  std::string out;
  size_t start = 0;
  while (start < py.size()) {
    size_t end = py.find('\n', start);
    if (end == std::string::npos) end = py.size();
    std::string line = py.substr(start, end - start);
    start = end + 1;
    const size_t code = line.find_first_not_of(' ');
    if (line.rfind("#!", 0) == 0 || (code != std::string::npos && line[code] == '#')) continue;  // a comment line
    const size_t inline_comment = line.find("  # ");
    if (inline_comment != std::string::npos) line.erase(inline_comment);
    out += std::regex_replace(line, heading, "show(\"\"") + "\n";
  }
  return out;
}

// Columns in a terminal: a CJK character (3 UTF-8 bytes here) takes two.
size_t columns(const std::string& line) {
  size_t cols = 0;
  for (size_t i = 0; i < line.size();) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    const size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    cols += len >= 3 ? 2 : 1;
    i += len;
  }
  return cols;
}

const char* const kEveryPath[] = {
    "{}",
    R"({"causal": true, "key_padding": [1, 0, 1, 1, 1], "mask_fill": -5, "safe_softmax": true, "temperature": 2,
        "dropout": {"p": 0.5, "training": true}, "num_heads": 2, "d_out": 4, "positional": "sinusoidal",
        "out_proj": true, "qkv_bias": true})",
    R"({"weights": {"init": "torch_linear", "layout": "per_head"}, "scale": "none", "out_proj": true,
        "num_heads": 2, "d_out": 4, "qkv_bias": true})",
    R"({"weights": {"init": "torch_linear"}, "scale": "d_out", "causal": true})",
    R"({"tokens": ["a", "b"], "d_model": 2, "d_out": 2, "embedding": {"values": [[0.1, 0.2], [0.3, 0.4]]},
        "weights": {"W_q": [[1, 2], [3, 4]], "W_k": [[1, 0], [0, 1]], "W_v": [[1, 0], [0, 1]]}})",
    // Issue 23: every variant's lines (RoPE half, GQA, ALiBi, a window on both sides).
    R"({"positional": "rope", "num_heads": 4, "num_kv_heads": 2, "d_out": 8, "alibi": true, "window": 2,
        "key_padding": [1, 1, 1, 0, 1], "weights": {"init": "torch_linear"}, "qkv_bias": true})",
    R"({"positional": "rope", "rope": {"style": "interleaved"}, "num_heads": 2, "num_kv_heads": 1, "alibi": true})",
};

TEST(TorchScript, InChineseOnlyTheCommentsAndHeadingsChange) {
  attnviz::TorchScriptOptions zh;
  zh.language = "zh-CN";
  for (const char* state : kEveryPath) {
    const std::string en_py = torch_script(state_from(state));
    const std::string zh_py = torch_script(state_from(state), zh);
    EXPECT_NE(en_py, zh_py) << state;
    EXPECT_EQ(code_only(zh_py), code_only(en_py)) << state;
    EXPECT_TRUE(has(code_only(zh_py), "attn_weights = torch.softmax(masked_scores, dim=-1)\n")) << "code is kept";
    EXPECT_TRUE(has(code_only(zh_py), "show(\"\", attn_weights)\n")) << "headings are taken out";
    EXPECT_EQ(zh_py, torch_script(state_from(state), zh)) << "the same state gives the same bytes";
    EXPECT_TRUE(has(zh_py, "show(\"注意力权重：\", attn_weights)\n")) << zh_py;
    EXPECT_FALSE(has(zh_py, "{}")) << "an argument was not filled in: " << state;
    EXPECT_FALSE(has(zh_py, "# \n")) << state;
    // Comments stay within the width the English ones keep (a Chinese character is two columns).
    size_t start = 0;
    while (start < zh_py.size()) {
      size_t end = zh_py.find('\n', start);
      if (end == std::string::npos) end = zh_py.size();
      const std::string line = zh_py.substr(start, end - start);
      if (line.find('#') != std::string::npos) {
        EXPECT_LE(columns(line), 100u) << line;
      }
      start = end + 1;
    }
  }
}

TEST(TorchScript, ChineseCommentsUseTheTutorialsTerms) {
  attnviz::TorchScriptOptions zh;
  zh.language = "zh-CN";
  const std::string py = torch_script(state_from(kEveryPath[1]), zh);
  for (const char* term : {"# --- 注意力分数", "# --- 掩码", "因果掩码", "键填充", "缩放后的分数：", "掩码后的分数：",
                           "上下文向量", "训练模式", "随机种子", "正弦位置编码", "词元", "拼接"})
    EXPECT_TRUE(has(py, term)) << term << "\n--- script:\n" << py;
  // Nothing English is left in the comments (code, names and formulas are).
  for (const char* english : {"# --- Masking", "Attention weights", "the token embeddings", "eval mode", "Training mode",
                              "significant digits", "Prints one stage"})
    EXPECT_FALSE(has(py, english)) << english;
  EXPECT_TRUE(has(torch_script(state_from(kEveryPath[3]), zh), "dropout.eval()  # 评估模式：Dropout 不改变输入\n"));
  const std::string variants = torch_script(state_from(kEveryPath[5]), zh);
  for (const char* term : {"旋转位置编码", "查询头", "滑动窗口", "偏置", "show(\"按位置旋转后的查询（RoPE）：\", q_rot)"})
    EXPECT_TRUE(has(variants, term)) << term << "\n--- script:\n" << variants;
  for (const char* english : {"Rotary position", "sliding window", "ALiBi bias:", "is repeated for"})
    EXPECT_FALSE(has(variants, english)) << english;
}

}  // namespace
