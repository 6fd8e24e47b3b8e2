// torch_script.cpp: see torch_script.h (the shape of the output is drawn there).
//
// [SECTION] messages      comments and printed headings by id (tables: torch_script_messages.cpp)
// [SECTION] Python text   literals (strings, numbers, tensors) and the line writer
// [SECTION] the script    one function per part, in the order the script runs
// [SECTION] a trained model  its weights from its file, the layers in a loop, the logits
//
// Numbers: every operation is written the way the engine defines the stage
// (docs/engine.md, "Pipeline"), so PyTorch computes the same float32 values up
// to the matrix products' summation order: the divisor is one Python float
// (`/ (math.sqrt(head_dim) * temperature)`, the product in double, as the
// engine does), the causal mask is applied before the key padding (the order
// does not matter: both write the same fill), dropout runs once over all
// heads' weights, and explicit values are the shortest decimals that read back
// as the state's float32 values.
#include "attnviz/torch_script.h"

#include "attnviz/model.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "attnviz/report.h"
#include "torch/torch_script_messages.h"

namespace attnviz {

namespace {

// ---- [SECTION] messages ------------------------------------------------------------
//
// The comments and headings, by id, in every language: torch_script_messages.h.

using detail::PyMsg;
using detail::kPyMsgCount;

// One language's texts by id, English where it has none.
struct Messages {
  const char* text[kPyMsgCount] = {};

  explicit Messages(std::string_view language) {
    const detail::PyLanguage* langs = detail::py_languages();
    fill(langs[0]);
    for (int k = 0; k < detail::kPyLanguageCount; ++k) {
      if (language == langs[k].name) fill(langs[k]);
    }
  }
  void fill(const detail::PyLanguage& l) {
    for (int i = 0; i < l.count; ++i) text[static_cast<int>(l.rows[i].id)] = l.rows[i].text;
  }
};

// ---- [SECTION] Python text ---------------------------------------------------------

constexpr size_t kWrap = 96;  // list literals wrap before this column

std::string py_string(const std::string& s) {
  // A JSON string is a valid Python 3 string literal (\" \\ \n \uXXXX escapes).
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A Python float literal as people write them: "0.5", "2.0", "1e20", "-3e-7".
std::string tidy_number(std::string t) {
  const size_t e = t.find('e');
  if (e == std::string::npos) return t.find('.') == std::string::npos ? t + ".0" : t;
  std::string out = t.substr(0, e + 1);  // the mantissa and "e"
  size_t i = e + 1;
  if (t[i] == '-') out += '-';
  if (t[i] == '-' || t[i] == '+') ++i;
  while (i + 1 < t.size() && t[i] == '0') ++i;  // "e-05" → "e-5"
  return out + t.substr(i);
}

// The shortest "%.Ng" that reads back as `v` (a double: a state scalar such as
// temperature, p, mask_fill), or, with `as_float`, as the float32 `v` (explicit
// values: torch.tensor rounds the Python float to float32, giving back the state's).
std::string py_number(double v, bool as_float) {
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    const double back = std::strtod(buf, nullptr);
    const bool same = as_float ? static_cast<float>(back) == static_cast<float>(v) : back == v;
    if (same && std::signbit(back) == std::signbit(v)) break;
  }
  return tidy_number(buf);
}

std::string py_double(double v) { return py_number(v, false); }
std::string py_float(float v) { return py_number(v, true); }

// "[a, b, c]", wrapped inside the brackets when long (continuation lines at `indent` + 4).
std::string py_list(const std::vector<std::string>& items, size_t indent) {
  std::string out = "[";
  size_t col = indent + 1;
  for (size_t i = 0; i < items.size(); ++i) {
    std::string piece = items[i] + (i + 1 < items.size() ? "," : "");
    if (i > 0) {
      if (col + 1 + piece.size() > kWrap) {
        out += "\n" + std::string(indent + 4, ' ');
        col = indent + 4;
      } else {
        out += ' ';
        ++col;
      }
    }
    out += piece;
    col += piece.size();
  }
  return out + "]";
}

std::vector<std::string> row_items(const Tensor& t, int r) {
  std::vector<std::string> items;
  for (int c = 0; c < t.cols; ++c) items.push_back(py_float(t.at(r, c)));
  return items;
}

// `name = torch.tensor(...)` for explicit values: a vector (1 × n) flat, a matrix one row a line.
std::string py_tensor(const std::string& name, const Tensor& t, bool vector) {
  const std::string head = name + " = torch.tensor(";
  if (vector) return head + py_list(row_items(t, 0), head.size()) + ")";
  std::string out = head + "[\n";
  for (int r = 0; r < t.rows; ++r) out += "    " + py_list(row_items(t, r), 4) + ",\n";
  return out + "])";
}

// The columns `t` takes in a terminal: a Chinese (wide) character takes two, any other
// character one (the English comments are ASCII: there this is their length).
size_t display_width(const std::string& t) {
  size_t cols = 0;
  for (size_t i = 0; i < t.size();) {
    const unsigned char c = static_cast<unsigned char>(t[i]);
    const size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1Fu) : len == 3 ? (c & 0x0Fu) : (c & 0x07u);
    for (size_t k = 1; k < len && i + k < t.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(t[i + k]) & 0x3Fu);
    const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
                      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                      (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                      (cp >= 0xFFE0 && cp <= 0xFFE6) || cp >= 0x20000;
    cols += wide ? 2 : 1;
    i += len;
  }
  return cols;
}

// The script being written: code lines, comments and headings in one language.
class Script {
 public:
  explicit Script(std::string_view language) : msg_(language) {}

  // The message's text with each "{}" replaced by the next argument.
  std::string text(PyMsg id, std::initializer_list<std::string> args = {}) const {
    const char* raw = msg_.text[static_cast<int>(id)];
    std::string t = raw != nullptr ? raw : "";
    size_t at = 0;
    for (const std::string& a : args) {
      at = t.find("{}", at);
      if (at == std::string::npos) break;
      t.replace(at, 2, a);
      at += a.size();
    }
    return t;
  }
  void line(const std::string& code) {
    if (!code.empty()) out_ += std::string(indent_, ' ') + code;
    out_ += '\n';
  }
  // One line of code with a one-line comment after it (above it when that would
  // make the line longer than kWrap).
  void line(const std::string& code, PyMsg id, std::initializer_list<std::string> args = {}) {
    const std::string c = text(id, args);
    if (indent_ + code.size() + 4 + display_width(c) <= kWrap) {
      line(code + "  # " + c);
    } else {
      comment_text(c);
      line(code);
    }
  }
  // "# ..." for every line of the message.
  void comment(PyMsg id, std::initializer_list<std::string> args = {}) { comment_text(text(id, args)); }
  void comment_text(const std::string& t) {
    size_t start = 0;
    while (start <= t.size()) {
      size_t end = t.find('\n', start);
      if (end == std::string::npos) end = t.size();
      line("# " + t.substr(start, end - start));
      start = end + 1;
    }
  }
  // A blank line and "# --- title" (a title of several lines goes on as comments).
  void section(PyMsg id) {
    line("");
    const std::string t = text(id);
    const size_t end = t.find('\n');
    line("# --- " + t.substr(0, end));
    if (end != std::string::npos) comment_text(t.substr(end + 1));
  }
  // show("heading", value); with `f`, show(f"heading", value) (a heading naming {h}).
  void show(PyMsg heading, const std::string& value, std::initializer_list<std::string> args = {}, bool f = false) {
    line(std::string("show(") + (f ? "f" : "") + py_string(text(heading, args)) + ", " + value + ")");
  }
  void indent(int by) { indent_ += by; }
  std::string take() { return std::move(out_); }

 private:
  Messages msg_;
  std::string out_;
  int indent_ = 0;
};

// ---- [SECTION] the script ----------------------------------------------------------

// What the parts share: the state and the Python names that depend on it.
struct Names {
  const State& s;
  bool linear, per_head, multi;
  // Issue 23's options: fewer K/V heads (GQA / MQA), rotary positions, ALiBi, a window;
  // issue 36's: StreamingLLM's cache (a mask), gpt-oss's sinks.
  bool gqa, rope, alibi, window, streaming, sinks;
  // The report's parameters as Python expressions in x @ W orientation.
  std::string W_q, W_k, W_v, W_o, b_q, b_k, b_v, b_o;
  // The keys and values the scores and context read: whole, or split into heads.
  std::string keys, values;
  // The queries and keys the scores multiply: these, or rotated (q_rot, k_rot).
  std::string q_scores, k_scores;

  explicit Names(const State& st)
      : s(st),
        linear(st.weights.init == WeightInit::torch_linear),
        per_head(linear && st.weights.layout == WeightLayout::per_head),
        multi(st.num_heads > 1),
        gqa(st.kv_heads() != st.num_heads),
        rope(st.positional == Positional::rope),
        alibi(st.alibi),
        window(st.window > 0),
        streaming(st.kv_cache.streaming()),
        sinks(st.sinks.enabled),
        keys(multi ? "k_heads" : "keys"),
        values(multi ? "v_heads" : "values"),
        q_scores(rope ? "q_rot" : multi ? "q_heads" : "queries"),
        k_scores(rope ? "k_rot" : keys) {
    const char* base[] = {"query", "key", "value"};
    std::string* W[] = {&W_q, &W_k, &W_v};
    std::string* b[] = {&b_q, &b_k, &b_v};
    for (int i = 0; i < 3; ++i) {
      const std::string n = std::string("W_") + base[i];
      if (per_head) {
        *W[i] = "torch.cat([W.weight for W in " + n + "]).T";
        *b[i] = "torch.cat([W.bias for W in " + n + "])";
      } else if (linear) {
        *W[i] = n + ".weight.T";
        *b[i] = n + ".bias";
      } else {
        *W[i] = n;
        *b[i] = std::string("b_") + base[i];
      }
    }
    W_o = linear ? "out_proj.weight.T" : "W_out";
    b_o = linear ? "out_proj.bias" : "b_out";
  }
  bool out_bias() const { return s.out_proj && s.out_bias; }
  // The output of the attention before any projection.
  std::string context_all() const { return multi ? "concat" : "context_vec"; }
};

void write_header(Script& py, const State* captured = nullptr, int layer = 0) {
  py.line("#!/usr/bin/env python3");
  py.comment(PyMsg::intro);
  py.comment(PyMsg::usage);
  py.comment(PyMsg::made_by, {kEngineVersion, std::to_string(Limits::kStateVersion)});
  if (captured != nullptr) {  // a state of captured layers: which one this script is
    const std::string& name = captured->layers[static_cast<size_t>(layer)].name;
    py.comment(PyMsg::captured_layer,
               {std::to_string(captured->layers.size()), std::to_string(layer), name.empty() ? "-" : name});
  }
  py.line("import json");
  py.line("import math");
  py.line("import sys");
  py.line("");
  py.line("import torch");
  py.line("import torch.nn as nn");
  py.line("");
  py.line("JSON = \"--json\" in sys.argv[1:]");
}

// show(), and the report helpers --json uses.
void write_helpers(Script& py) {
  py.line("");
  py.line("");
  py.line("def show(title, value):");
  py.indent(4);
  py.comment(PyMsg::show_doc);
  py.line("if not JSON:");
  py.line("    print(title)");
  py.line("    print(value)");
  py.line("    print()");
  py.indent(-4);
  py.line("");
  py.line("");
  py.line("def numbers(t):");
  py.indent(4);
  py.comment(PyMsg::numbers_doc);
  py.line("flat = t.detach().reshape(-1)");
  py.line("values = flat.tolist()");
  py.line("out = [None] * len(values)");
  py.line("todo = []");
  py.line("for i, v in enumerate(values):");
  py.line("    if math.isfinite(v):");
  py.line("        todo.append(i)");
  py.line("    else:");
  py.line("        out[i] = \"nan\" if math.isnan(v) else (\"inf\" if v > 0 else \"-inf\")");
  py.line("for digits in range(1, 10):", PyMsg::digits_note);
  py.line("    if not todo:");
  py.line("        break");
  py.line("    texts = [\"%.*g\" % (digits, values[i]) for i in todo]");
  py.line("    back = torch.tensor([float(x) for x in texts], dtype=torch.float32)");
  py.line("    same = (back == flat[todo]).tolist()");
  py.line("    rest = []");
  py.line("    for i, x, ok in zip(todo, texts, same):");
  py.line("        if ok:");
  py.line("            out[i] = float(x)");
  py.line("        else:");
  py.line("            rest.append(i)");
  py.line("    todo = rest");
  py.line("return out");
  py.indent(-4);
  py.line("");
  py.line("");
  py.line("def matrix(t):");
  py.indent(4);
  py.comment(PyMsg::matrix_doc);
  py.line("flat = numbers(t)");
  py.line("cols = t.shape[-1]");
  py.line("return [flat[r:r + cols] for r in range(0, len(flat), cols)]");
  py.indent(-4);
  py.line("");
}

void write_sizes(Script& py, const Names& n) {
  const State& s = n.s;
  py.section(PyMsg::sizes);
  std::vector<std::string> tokens;
  for (const std::string& t : s.tokens) tokens.push_back(py_string(t));
  py.line("tokens = " + py_list(tokens, 9));
  py.line("num_tokens = len(tokens)");
  py.line("d_model = " + std::to_string(s.d_model), PyMsg::d_model);
  py.line("d_out = " + std::to_string(s.d_out), PyMsg::d_out);
  py.line("num_heads = " + std::to_string(s.num_heads));
  py.line("head_dim = d_out // num_heads", PyMsg::head_dim);
  if (n.gqa) py.line("num_kv_heads = " + std::to_string(s.kv_heads()), PyMsg::num_kv_heads);
  if (s.temperature != 1.0) py.line("temperature = " + py_double(s.temperature), PyMsg::temperature);
}

void write_embedding(Script& py, const Names& n) {
  const State& s = n.s;
  py.section(PyMsg::embedding);
  if (s.embedding.init == EmbeddingInit::values) {
    py.comment(PyMsg::embedding_values);
    py.line(py_tensor("X", s.embedding.values, false));
  } else {
    py.line("vocab = list(dict.fromkeys(tokens))", PyMsg::vocab);
    py.line("token_to_idx = {token: idx for idx, token in enumerate(vocab)}");
    py.line("input_indices = torch.tensor([token_to_idx[token] for token in tokens])");
    py.comment(PyMsg::embedding_seeded);
    py.line("torch.manual_seed(" + std::to_string(s.embedding.seed) + ")");
    py.line("embedding_layer = nn.Embedding(len(vocab), d_model)");
    py.line("X = embedding_layer(input_indices)");
  }
  if (s.positional == Positional::sinusoidal) {
    py.comment(PyMsg::positional);
    py.line("pe = torch.zeros(num_tokens, d_model)");
    py.line("for pos in range(num_tokens):");
    py.line("    for i in range(d_model):");
    py.line("        angle = pos / 10000 ** ((i - i % 2) / d_model)");
    py.line("        pe[pos, i] = math.sin(angle) if i % 2 == 0 else math.cos(angle)");
    py.line("X = X + pe");
  }
  py.show(PyMsg::h_X, "X");
}

// torch.rand, or explicit values: plain tensors in x @ W orientation.
void write_plain_weights(Script& py, const Names& n) {
  const State& s = n.s;
  const bool rand = s.weights.init == WeightInit::torch_rand;
  py.comment(rand ? PyMsg::weights_rand : PyMsg::weights_values);
  if (n.gqa) py.comment(PyMsg::weights_kv);
  const WeightSpec& w = s.weights;
  // K and V are num_kv_heads * head_dim wide (d_out without GQA).
  const char* kv_matrix = n.gqa ? "d_model, num_kv_heads * head_dim" : "d_model, d_out";
  const char* kv_vector = n.gqa ? "num_kv_heads * head_dim" : "d_out";
  struct Param {
    const char* name;
    const SharedTensor* values;
    const char* shape;
    bool vector, present;
  };
  // torch_rand's draw order (docs/engine.md): W_q, W_k, W_v, W_o, b_q, b_k, b_v, b_o.
  const Param params[] = {
      {"W_query", &w.W_q, "d_model, d_out", false, true},
      {"W_key", &w.W_k, kv_matrix, false, true},
      {"W_value", &w.W_v, kv_matrix, false, true},
      {"W_out", &w.W_o, "d_out, d_out", false, s.out_proj},
      {"b_query", &w.b_q, "d_out", true, s.qkv_bias},
      {"b_key", &w.b_k, kv_vector, true, s.qkv_bias},
      {"b_value", &w.b_v, kv_vector, true, s.qkv_bias},
      {"b_out", &w.b_o, "d_out", true, n.out_bias()},
  };
  if (rand) py.line("torch.manual_seed(" + std::to_string(w.seed) + ")");
  for (const Param& p : params) {
    if (!p.present) continue;
    if (rand) py.line(std::string(p.name) + " = torch.rand(" + p.shape + ")");
    else py.line(py_tensor(p.name, *p.values, p.vector));
  }
  for (const Param& p : params) {
    if (p.present) py.show(PyMsg::h_param, p.name, {p.name});
  }
}

void write_linear_weights(Script& py, const Names& n) {
  const State& s = n.s;
  const std::string bias = s.qkv_bias ? "True" : "False";
  py.comment(n.per_head ? PyMsg::weights_linear_per_head : PyMsg::weights_linear_fused);
  py.comment(PyMsg::linear_orientation);
  if (n.gqa) py.comment(PyMsg::weights_kv);  // per_head layout needs num_kv_heads == num_heads
  py.line("torch.manual_seed(" + std::to_string(s.weights.seed) + ")");
  const char* names[] = {"W_query", "W_key", "W_value"};
  if (n.per_head) {
    py.line("W_query, W_key, W_value = [], [], []");
    py.line("for h in range(num_heads):");
    for (const char* name : names)
      py.line(std::string("    ") + name + ".append(nn.Linear(d_model, head_dim, bias=" + bias + "))");
  } else {
    for (const char* name : names) {
      const bool kv = std::string(name) != "W_query";
      py.line(std::string(name) + " = nn.Linear(d_model, " + (kv && n.gqa ? "num_kv_heads * head_dim" : "d_out") +
              ", bias=" + bias + ")");
    }
  }
  if (s.out_proj)
    py.line(std::string("out_proj = nn.Linear(d_out, d_out, bias=") + (s.out_bias ? "True" : "False") + ")");
  if (n.per_head) py.line("for h in range(num_heads):");
  if (n.per_head) py.indent(4);
  for (const char* name : names) {
    const std::string w = std::string(name) + (n.per_head ? "[h]" : "");
    py.show(PyMsg::h_param, w + ".weight", {(n.per_head ? std::string(name) + "[{h}]" : w) + ".weight"}, n.per_head);
    if (s.qkv_bias)
      py.show(PyMsg::h_param, w + ".bias", {(n.per_head ? std::string(name) + "[{h}]" : w) + ".bias"}, n.per_head);
  }
  if (n.per_head) py.indent(-4);
  if (s.out_proj) py.show(PyMsg::h_param, "out_proj.weight", {"out_proj.weight"});
  if (n.out_bias()) py.show(PyMsg::h_param, "out_proj.bias", {"out_proj.bias"});
}

void write_qkv(Script& py, const Names& n) {
  const State& s = n.s;
  py.section(PyMsg::qkv);
  const char* base[] = {"query", "key", "value"};
  const char* out[] = {"queries", "keys", "values"};
  for (int i = 0; i < 3; ++i) {
    const std::string W = std::string("W_") + base[i];
    std::string rhs;
    if (n.per_head) rhs = "torch.cat([W(X) for W in " + W + "], dim=-1)";
    else if (n.linear) rhs = W + "(X)";
    else rhs = "X @ " + W + (s.qkv_bias ? std::string(" + b_") + base[i] : std::string());
    py.line(std::string(out[i]) + " = " + rhs);
  }
  py.show(PyMsg::h_queries, "queries");
  py.show(PyMsg::h_keys, "keys");
  py.show(PyMsg::h_values, "values");
  if (n.multi) {
    py.comment(PyMsg::split_heads);
    py.line("q_heads = queries.view(num_tokens, num_heads, head_dim).transpose(0, 1)");
    if (n.gqa) py.comment(PyMsg::split_kv_heads);
    const std::string kv_heads = n.gqa ? "num_kv_heads" : "num_heads";
    py.line("k_heads = keys.view(num_tokens, " + kv_heads + ", head_dim).transpose(0, 1)");
    py.line("v_heads = values.view(num_tokens, " + kv_heads + ", head_dim).transpose(0, 1)");
  }
}

// RoPE: Llama's LlamaRotaryEmbedding + rotate_half, or GPT-J's rotate_every_two with
// sin/cos repeat_interleave(2); float32 throughout, as tests/fixtures/variants.py defines it.
void write_rope(Script& py, const Names& n) {
  const State& s = n.s;
  const bool half = s.rope.style == RopeStyle::half;
  py.section(PyMsg::rope);
  py.comment(half ? PyMsg::rope_half : PyMsg::rope_interleaved);
  // Written as the models' configs write it (rope_theta = 10000.0), not as 1e4.
  const double base = s.rope.base;
  const bool whole = base == std::floor(base) && base < 1e15;
  py.line("base = " + (whole ? std::to_string(static_cast<long long>(base)) + ".0" : py_double(base)),
          PyMsg::rope_base);
  py.line("inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))");
  py.line("t = torch.arange(num_tokens).float()", PyMsg::rope_positions);
  py.line("freqs = torch.outer(t, inv_freq)", PyMsg::rope_angles);
  if (half) {
    py.line("emb = torch.cat((freqs, freqs), dim=-1)", PyMsg::rope_repeat);
    py.line("cos, sin = emb.cos(), emb.sin()");
  } else {
    py.comment(PyMsg::rope_repeat);
    py.line("sin = freqs.sin().repeat_interleave(2, dim=-1)");
    py.line("cos = freqs.cos().repeat_interleave(2, dim=-1)");
  }
  const std::string rotate = half ? "rotate_half" : "rotate_every_two";
  py.line("");
  py.line("");
  py.line("def " + rotate + "(x):");
  py.indent(4);
  if (half) {
    py.comment(PyMsg::rotate_half_doc);
    py.line("x1 = x[..., : x.shape[-1] // 2]");
    py.line("x2 = x[..., x.shape[-1] // 2 :]");
    py.line("return torch.cat((-x2, x1), dim=-1)");
  } else {
    py.comment(PyMsg::rotate_every_two_doc);
    py.line("x1 = x[..., ::2]");
    py.line("x2 = x[..., 1::2]");
    py.line("x = torch.stack((-x2, x1), dim=-1)");
    py.line("return x.flatten(-2)");
  }
  py.indent(-4);
  py.line("");
  py.line("");
  const std::string q = n.multi ? "q_heads" : "queries";
  py.line("q_rot = " + q + " * cos + " + rotate + "(" + q + ") * sin");
  py.line("k_rot = " + n.keys + " * cos + " + rotate + "(" + n.keys + ") * sin");
  py.show(PyMsg::h_q_rot, "q_rot");
  py.show(PyMsg::h_k_rot, "k_rot");
}

// GQA / MQA: each K/V head repeated for its group of query heads (Llama's repeat_kv).
void write_repeat_kv(Script& py, const Names& n) {
  py.comment(PyMsg::repeat_kv);
  py.line(n.k_scores + " = " + n.k_scores + ".repeat_interleave(num_heads // num_kv_heads, dim=0)");
  py.line(n.values + " = " + n.values + ".repeat_interleave(num_heads // num_kv_heads, dim=0)");
}

// scores and scaled
void write_scores(Script& py, const Names& n) {
  const State& s = n.s;
  py.section(PyMsg::scores);
  py.line("attn_scores = " + n.q_scores + " @ " + n.k_scores + (n.multi ? ".transpose(-2, -1)" : ".T"));
  py.show(PyMsg::h_scores, "attn_scores");
  // nn.Linear scripts write √ as the tutorials' modules do (`keys.shape[-1] ** 0.5`,
  // `d_out ** 0.5`), the others as tutorial 000 (`math.sqrt`). For the two
  // integers up to 4096 where n ** 0.5 is not math.sqrt(n) (2921, 3541), the two
  // still round to the same float32.
  std::string root;
  if (s.scale == ScaleMode::head_dim) {
    py.comment(PyMsg::scale_head_dim);
    root = n.linear ? n.keys + ".shape[-1] ** 0.5" : "math.sqrt(head_dim)";
  } else if (s.scale == ScaleMode::d_out) {
    py.comment(PyMsg::scale_d_out);
    root = n.linear ? "d_out ** 0.5" : "math.sqrt(d_out)";
  } else {
    py.comment(PyMsg::scale_none);
  }
  const bool temp = s.temperature != 1.0;
  if (temp) py.comment(PyMsg::scale_temperature);
  if (root.empty()) py.line(temp ? "scaled_scores = attn_scores / temperature" : "scaled_scores = attn_scores");
  else py.line("scaled_scores = attn_scores / " + (temp ? "(" + root + " * temperature)" : root));
  py.show(PyMsg::h_scaled, "scaled_scores");
}

// ALiBi: the paper's get_slopes, then -(slope * |i - j|) per head (float32).
void write_alibi(Script& py, const Names& n) {
  py.section(PyMsg::alibi);
  py.comment(PyMsg::get_slopes_doc);
  py.line("");
  py.line("");
  // ofirpress/attention_with_linear_biases (fairseq), as tests/fixtures/variants.py copies it.
  py.line("def get_slopes(n):");
  py.line("    def get_slopes_power_of_2(n):");
  py.line("        start = (2**(-2**-(math.log2(n)-3)))");
  py.line("        ratio = start");
  py.line("        return [start*ratio**i for i in range(n)]");
  py.line("");
  py.line("    if math.log2(n).is_integer():");
  py.line("        return get_slopes_power_of_2(n)");
  py.line("    else:");
  py.line("        closest_power_of_2 = 2**math.floor(math.log2(n))");
  py.line("        return (get_slopes_power_of_2(closest_power_of_2)");
  py.line("                + get_slopes(2*closest_power_of_2)[0::2][:n-closest_power_of_2])");
  py.line("");
  py.line("");
  py.line("slopes = torch.tensor(get_slopes(num_heads))", PyMsg::alibi_slopes);
  py.line("idx = torch.arange(num_tokens)");
  py.line("distance = (idx[:, None] - idx[None, :]).abs().float()", PyMsg::alibi_distance);
  if (n.multi) py.line("alibi_bias = -(slopes[:, None, None] * distance)", PyMsg::alibi_shape);
  else py.line("alibi_bias = -(slopes[0] * distance)");
  py.show(PyMsg::h_bias, "alibi_bias");
}

void write_mask(Script& py, const Names& n) {
  const State& s = n.s;
  py.section(PyMsg::mask);
  const bool padding = !s.key_padding.empty();
  if (!s.causal && !padding && !n.window && !n.streaming) {
    if (n.alibi) py.line("masked_scores = scaled_scores + alibi_bias", PyMsg::alibi_no_mask);
    else py.line("masked_scores = scaled_scores", PyMsg::no_mask);
    py.show(PyMsg::h_masked, "masked_scores");
    return;
  }
  std::string from = "scaled_scores";
  if (n.alibi) {
    py.line("masked_scores = scaled_scores + alibi_bias", PyMsg::alibi_added);
    from = "masked_scores";
  }
  const bool inf = std::isinf(s.mask_fill);
  const std::string fill = inf ? "-torch.inf" : py_double(s.mask_fill);
  if (inf) py.comment(PyMsg::fill_inf);
  else py.comment(PyMsg::fill_number, {fill});
  if (s.causal) {
    py.line("mask = torch.triu(torch.ones(num_tokens, num_tokens), diagonal=1).bool()", PyMsg::causal);
    py.line("masked_scores = " + from + ".masked_fill(mask, " + fill + ")");
    from = "masked_scores";
  }
  if (n.window) {
    // Mistral's sliding window, from position differences (the causal mask above, if any, covers j > i).
    py.line("window = " + std::to_string(s.window), PyMsg::window);
    if (!n.alibi) py.line("idx = torch.arange(num_tokens)");
    py.line("window_mask = (idx[:, None] - idx[None, :]) >= window", PyMsg::window_before);
    if (!s.causal) py.line("window_mask |= (idx[None, :] - idx[:, None]) >= window", PyMsg::window_after);
    py.line("masked_scores = " + from + ".masked_fill(window_mask, " + fill + ")");
    from = "masked_scores";
  }
  if (n.streaming) {
    py.comment(PyMsg::cache_streaming);
    py.line("sink_tokens, recent = " + std::to_string(s.kv_cache.sink_tokens) + ", " +
            std::to_string(s.kv_cache.recent));
    if (!n.alibi && !n.window) py.line("idx = torch.arange(num_tokens)");
    py.line("evicted = (idx[None, :] >= sink_tokens) & ((idx[:, None] - idx[None, :]) >= recent)",
            PyMsg::cache_evicted);
    py.line("masked_scores = " + from + ".masked_fill(evicted, " + fill + ")");
    from = "masked_scores";
  }
  if (padding) {
    std::vector<std::string> keep;
    for (uint8_t k : s.key_padding) keep.push_back(k ? "1" : "0");
    py.line("attention_mask = torch.tensor(" + py_list(keep, 30) + ")", PyMsg::padding);
    py.line("masked_scores = " + from + ".masked_fill(attention_mask == 0, " + fill + ")");
  }
  py.show(PyMsg::h_masked, "masked_scores");
}

// weights and dropped
void write_softmax_dropout(Script& py, const Names& n) {
  const State& s = n.s;
  py.section(PyMsg::softmax);
  if (n.sinks) {
    py.comment(PyMsg::sinks);
    std::vector<std::string> v;
    for (int h = 0; h < s.num_heads; ++h) v.push_back(py_float(s.sinks.logit(h)));
    py.line("sinks = torch.tensor(" + py_list(v, 21) + ")", PyMsg::sink_values);
    if (n.multi) py.line("sink_column = sinks.reshape(num_heads, 1, 1).expand(-1, num_tokens, 1)", PyMsg::sink_column);
    else py.line("sink_column = sinks.expand(num_tokens, 1)", PyMsg::sink_column);
    py.line("probs = torch.softmax(torch.cat([masked_scores, sink_column], dim=-1), dim=-1)");
    py.line("attn_weights = probs[..., :-1]", PyMsg::sink_drop);
    py.show(PyMsg::h_sink_share, "probs[..., -1]");
  } else {
    py.line("attn_weights = torch.softmax(masked_scores, dim=-1)");
  }
  if (s.safe_softmax) {
    py.comment(PyMsg::safe_softmax);
    py.line("fully_masked = torch.isneginf(masked_scores).all(dim=-1, keepdim=True)");
    py.line("attn_weights = attn_weights.masked_fill(fully_masked, 0.0)");
  }
  py.show(PyMsg::h_weights, "attn_weights");

  py.section(PyMsg::dropout);
  if (s.dropout.training) {
    py.comment(PyMsg::dropout_train);
    py.line("torch.manual_seed(" + std::to_string(s.dropout.seed) + ")");
  }
  py.line("dropout = nn.Dropout(" + py_double(s.dropout.p) + ")");
  if (s.dropout.training) py.line("dropout.train()");
  else py.line("dropout.eval()", PyMsg::dropout_eval);
  py.line("dropped_weights = dropout(attn_weights)");
  py.show(PyMsg::h_dropped, "dropped_weights");
}

// context, concat and output
void write_context_output(Script& py, const Names& n) {
  const State& s = n.s;
  py.section(PyMsg::context);
  py.line("context_vec = dropped_weights @ " + n.values);
  py.show(PyMsg::h_context, "context_vec");
  if (n.multi) {
    py.line("concat = context_vec.transpose(0, 1).contiguous().view(num_tokens, d_out)", PyMsg::concat);
    py.show(PyMsg::h_concat, "concat");
  }
  py.section(PyMsg::output);
  const std::string in = n.context_all();
  if (!s.out_proj) py.line("output = " + in, PyMsg::output_none);
  else if (n.linear) py.line("output = out_proj(" + in + ")");
  else py.line("output = " + in + " @ W_out" + (n.out_bias() ? " + b_out" : ""));
  py.show(PyMsg::h_output, "output");
}

// --json: the report's keys in the report's order (report.h).
void write_json_report(Script& py, const Names& n, bool layer_of_model = false) {
  const State& s = n.s;
  if (!layer_of_model) py.section(PyMsg::json_report);
  py.line("if JSON:");
  py.indent(4);
  py.line("report = {\"tokens\": tokens, \"X\": matrix(X)}");
  py.line("report[\"W_q\"] = matrix(" + n.W_q + ")");
  py.line("report[\"W_k\"] = matrix(" + n.W_k + ")");
  py.line("report[\"W_v\"] = matrix(" + n.W_v + ")");
  if (s.out_proj) py.line("report[\"W_o\"] = matrix(" + n.W_o + ")");
  if (s.qkv_bias) {
    py.line("report[\"b_q\"] = numbers(" + n.b_q + ")");
    py.line("report[\"b_k\"] = numbers(" + n.b_k + ")");
    py.line("report[\"b_v\"] = numbers(" + n.b_v + ")");
  }
  if (n.out_bias()) py.line("report[\"b_o\"] = numbers(" + n.b_o + ")");
  py.line("report[\"Q\"] = matrix(queries)");
  py.line("report[\"K\"] = matrix(keys)");
  py.line("report[\"V\"] = matrix(values)");
  const std::string h = n.multi ? "[h]" : "";
  py.line("report[\"heads\"] = [");
  py.line("    {");
  // The report's order (report.h): q_rot, k_rot, scores, scaled, bias, masked, weights, dropped,
  // context; q_rot, k_rot only with RoPE, bias only with ALiBi.
  const struct {
    const char* key;
    const char* name;
    bool present;
  } stages[] = {{"q_rot", "q_rot", n.rope},           {"k_rot", "k_rot", n.rope},
                {"scores", "attn_scores", true},       {"scaled", "scaled_scores", true},
                {"bias", "alibi_bias", n.alibi},       {"masked", "masked_scores", true},
                {"weights", "attn_weights", true},     {"dropped", "dropped_weights", true},
                {"context", "context_vec", true}};
  for (const auto& st : stages) {
    if (st.present) py.line(std::string("        \"") + st.key + "\": matrix(" + st.name + h + "),");
  }
  py.line("    }");
  if (n.multi) py.line("    for h in range(num_heads)");
  py.line("]");
  py.line("report[\"concat\"] = matrix(" + n.context_all() + ")");
  py.line("report[\"output\"] = matrix(output)");
  if (layer_of_model) py.line("layer_reports.append(report)");
  else py.line("print(json.dumps(report, separators=(\",\", \":\")))");
  py.indent(-4);
}

// ---- [SECTION] a trained model -----------------------------------------------------

// The model's checkpoint from its file, read with the standard library.
void write_model_weights(Script& py, const State& s, const TorchScriptOptions& o) {
  const TrainedModel& m = *s.model.model;
  const Checkpoint& k = m.checkpoints[static_cast<size_t>(s.model.checkpoint)];
  py.section(PyMsg::weights);
  py.comment(PyMsg::model_file);
  py.line("MODEL_FILE = " + py_string(o.model_dir + "/" + m.name + "-checkpoints.safetensors"));
  py.line("if \"--weights\" in sys.argv[1:]:");
  py.line("    MODEL_FILE = sys.argv[sys.argv.index(\"--weights\") + 1]");
  py.line("");
  py.line("");
  py.line("def load_safetensors(path):");
  py.indent(4);
  py.comment(PyMsg::model_loader_doc);
  py.line("with open(path, \"rb\") as f:");
  py.line("    data = f.read()");
  py.line("size = int.from_bytes(data[:8], \"little\")");
  py.line("header = json.loads(data[8:8 + size])");
  py.line("tensors = {}");
  py.line("for name, info in header.items():");
  py.line("    if name != \"__metadata__\":");
  py.line("        begin, end = info[\"data_offsets\"]");
  py.line("        raw = bytearray(data[8 + size + begin:8 + size + end])");
  py.line("        tensors[name] = torch.frombuffer(raw, dtype=torch.float32).reshape(info[\"shape\"])");
  py.line("return tensors");
  py.indent(-4);
  py.line("");
  py.line("");
  py.line("params = load_safetensors(MODEL_FILE)");
  char step[32];
  std::snprintf(step, sizeof step, "step_%04d.", k.step);
  py.line(std::string("prefix = ") + py_string(step), PyMsg::model_prefix);
  std::vector<std::string> vocab;
  for (const std::string& w : m.vocabulary) vocab.push_back(py_string(w));
  py.line("vocab = " + py_list(vocab, 8));
  py.line("num_layers = " + std::to_string(m.num_layers));
}

void write_model_embedding(Script& py) {
  py.section(PyMsg::model_embedding);
  py.line("token_ids = torch.tensor([vocab.index(token) for token in tokens])");
  py.line("tok_emb = params[prefix + \"tok_emb.weight\"][token_ids]");
  py.line("pos_emb = params[prefix + \"pos_emb.weight\"][:num_tokens]");
  py.line("x = tok_emb + pos_emb");
  py.show(PyMsg::h_x0, "x");
  py.line("residual = [x]");
  py.line("layer_reports = []");
}

// One layer's weights inside the loop: the file's nn.Linear weights, transposed.
void write_model_layer_weights(Script& py) {
  py.line("p = f\"{prefix}layers.{layer}.\"");
  py.line("W_query = params[p + \"W_query.weight\"].T", PyMsg::model_layer_weights);
  py.line("W_key = params[p + \"W_key.weight\"].T");
  py.line("W_value = params[p + \"W_value.weight\"].T");
  py.line("W_out = params[p + \"out_proj.weight\"].T");
  py.line("b_out = params[p + \"out_proj.bias\"]");
}

void write_model_logits(Script& py, const State& s) {
  py.section(PyMsg::model_logits);
  py.line("logits = x @ params[prefix + \"unembed.weight\"].T");
  py.show(PyMsg::h_logits, "logits");
  py.line("if JSON:");
  py.indent(4);
  py.line("report = {\"tokens\": tokens, \"model\": {\"name\": " + py_string(s.model.name) + ", \"step\": " +
          std::to_string(s.model.model->checkpoints[static_cast<size_t>(s.model.checkpoint)].step) + "}}");
  py.line("report[\"token_ids\"] = token_ids.tolist()");
  py.line("report[\"token_embedding\"] = matrix(tok_emb)");
  py.line("report[\"position_embedding\"] = matrix(pos_emb)");
  py.line("report[\"residual\"] = [matrix(r) for r in residual]");
  py.line("report[\"layers\"] = layer_reports");
  py.line("report[\"logits\"] = matrix(logits)");
  py.line("print(json.dumps(report, separators=(\",\", \":\")))");
  py.indent(-4);
}

// The whole model: each layer is this file's single-layer script with explicit
// weights, in a loop over the layers, X its residual stream.
std::string model_script(const State& s, const TorchScriptOptions& o) {
  Script py(o.language);
  State layer = s;  // what each layer computes: the state's options, explicit weights
  layer.model = ModelSpec{};
  layer.embedding.init = EmbeddingInit::values;
  layer.weights.init = WeightInit::values;
  const Names n(layer);
  write_header(py);
  py.comment(PyMsg::model_intro, {s.model.name, std::to_string(s.model.model->num_layers)});
  write_helpers(py);
  write_sizes(py, n);
  write_model_weights(py, s, o);
  write_model_embedding(py);
  py.section(PyMsg::model_layers);
  py.line("for layer in range(num_layers):");
  py.indent(4);
  py.line("if not JSON:");
  py.line("    print(" + std::string("f") + py_string(py.text(PyMsg::h_layer, {"{layer}"})) + ")");
  py.line("X = x");
  write_model_layer_weights(py);
  write_qkv(py, n);
  write_scores(py, n);
  if (n.alibi) write_alibi(py, n);
  write_mask(py, n);
  write_softmax_dropout(py, n);
  write_context_output(py, n);
  write_json_report(py, n, true);
  py.line("x = x + output", PyMsg::model_residual);
  py.line("residual.append(x)");
  py.indent(-4);
  write_model_logits(py, s);
  return py.take();
}

}  // namespace

std::string torch_script(const State& state, const TorchScriptOptions& options) {
  if (state.model.active() && state.model.model) return model_script(state, options);
  // Captured layers: the chosen layer's attention, alone (its state as one layer).
  const int L = static_cast<int>(state.layers.size());
  const int layer = std::max(0, std::min(options.layer, L - 1));
  const State s = state.captured() ? captured_layer_state(state, layer) : State();
  const State& one = state.captured() ? s : state;
  Script py(options.language);
  const Names n(one);
  write_header(py, state.captured() ? &state : nullptr, layer);
  write_helpers(py);
  write_sizes(py, n);
  write_embedding(py, n);
  py.section(PyMsg::weights);
  if (n.linear) write_linear_weights(py, n);
  else write_plain_weights(py, n);
  write_qkv(py, n);
  if (n.rope) write_rope(py, n);
  if (n.gqa) write_repeat_kv(py, n);
  write_scores(py, n);
  if (n.alibi) write_alibi(py, n);
  write_mask(py, n);
  write_softmax_dropout(py, n);
  write_context_output(py, n);
  write_json_report(py, n);
  return py.take();
}

std::vector<std::string> torch_script_languages() {
  std::vector<std::string> out;
  const detail::PyLanguage* langs = detail::py_languages();
  for (int k = 0; k < detail::kPyLanguageCount; ++k) out.emplace_back(langs[k].name);
  return out;
}

bool torch_script_has_language(std::string_view language) {
  const detail::PyLanguage* langs = detail::py_languages();
  for (int k = 0; k < detail::kPyLanguageCount; ++k) {
    if (language == langs[k].name) return true;
  }
  return false;
}

std::vector<int> torch_script_missing_messages(std::string_view language) {
  std::vector<bool> have(kPyMsgCount, false);
  const detail::PyLanguage* langs = detail::py_languages();
  for (int k = 0; k < detail::kPyLanguageCount; ++k) {
    if (language != langs[k].name) continue;
    for (int i = 0; i < langs[k].count; ++i) have[static_cast<int>(langs[k].rows[i].id)] = true;
  }
  std::vector<int> missing;
  for (int i = 0; i < kPyMsgCount; ++i) {
    if (!have[i]) missing.push_back(i);
  }
  return missing;
}

}  // namespace attnviz
