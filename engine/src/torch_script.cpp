// torch_script.cpp: see torch_script.h (the shape of the output is drawn there).
//
// [SECTION] messages      comments and printed headings, one table per language
// [SECTION] Python text   literals (strings, numbers, tensors) and the line writer
// [SECTION] the script    one function per part, in the order the script runs
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

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "attnviz/report.h"

namespace attnviz {

namespace {

// ---- [SECTION] messages ------------------------------------------------------------
//
// Every comment and heading the script carries, by id. A language is one table
// of {id, text} rows (any order; an id it lacks falls back to English) and one
// row of kLanguages. Texts may hold "{}", replaced in turn by the arguments the
// generator passes (numbers, names: never translated). A comment may span lines.

enum class Msg : int {
  intro, usage, made_by,
  show_doc, numbers_doc, matrix_doc,
  sizes, d_model, d_out, head_dim, temperature,
  embedding, vocab, embedding_seeded, embedding_values, positional,
  weights, weights_rand, weights_linear_fused, weights_linear_per_head, weights_values, linear_orientation,
  qkv, split_heads,
  scores, scale_head_dim, scale_d_out, scale_none, scale_temperature,
  mask, no_mask, causal, padding, fill_inf, fill_number,
  softmax, safe_softmax,
  dropout, dropout_train, dropout_eval,
  context, concat, output, output_none,
  json_report,
  h_X, h_param, h_queries, h_keys, h_values, h_scores, h_scaled, h_masked, h_weights, h_dropped,
  h_context, h_concat, h_output,
  count
};
constexpr int kMsgCount = static_cast<int>(Msg::count);

struct MsgText {
  Msg id;
  const char* text;
};

constexpr MsgText kEnglish[] = {
    {Msg::intro,
     "attnviz: this attention state as a PyTorch script. It rebuilds the inputs and the weights\n"
     "the way the tutorials do (the same seeds, the same draws in the same order) and computes\n"
     "every stage of attention with the tutorials' PyTorch lines."},
    {Msg::usage,
     "  python3 attnviz.py          prints every stage under a heading\n"
     "  python3 attnviz.py --json   prints one JSON object, the report of `attnviz-cli run`"},
    {Msg::made_by, "Written by attnviz {} from a session state (\"version\": {})."},
    {Msg::show_doc, "Prints one stage under its heading (not with --json)."},
    {Msg::numbers_doc,
     "The values of t for --json: each the shortest decimal that reads back as the same float32,\n"
     "or \"-inf\", \"inf\", \"nan\" (the convention of attnviz's report)."},
    {Msg::matrix_doc, "A (rows, cols) tensor for --json: a list of rows."},
    {Msg::sizes, "Sizes"},
    {Msg::d_model, "width of each token's embedding"},
    {Msg::d_out, "width of the queries, keys, values and the output"},
    {Msg::head_dim, "each head's share of d_out"},
    {Msg::temperature, "the scaled scores are divided by this too"},
    {Msg::embedding, "X: the token embeddings"},
    {Msg::vocab, "the distinct tokens, in order of first appearance"},
    {Msg::embedding_seeded, "nn.Embedding draws its table from torch's generator, seeded right before it"},
    {Msg::embedding_values, "X given explicitly: one row per token"},
    {Msg::positional,
     "Sinusoidal positions (Vaswani et al.), added to X: PE[pos, 2i] = sin(pos / 10000^(2i / d_model)),\n"
     "PE[pos, 2i+1] = cos(the same angle); computed in float64, stored as float32."},
    {Msg::weights, "The weights"},
    {Msg::weights_rand,
     "torch.rand after one seed, in this order: W_query, W_key, W_value, then W_out, then the\n"
     "biases (SelfAttention_v1's nn.Parameter(torch.rand(d_in, d_out)))."},
    {Msg::weights_linear_fused,
     "nn.Linear after one seed, in this order: query, key, value, then the output projection\n"
     "(SelfAttention_v2, MultiHeadAttention). Each draws its weight, then its bias."},
    {Msg::weights_linear_per_head,
     "One set of nn.Linear(d_model, head_dim) per head, each drawing its query, key and value in\n"
     "this order (a MultiHeadAttentionWrapper of CausalAttention modules), then the output projection."},
    {Msg::weights_values, "The weights given explicitly, in x @ W orientation."},
    {Msg::linear_orientation, "nn.Linear keeps its weight as (out_features, in_features): W(x) = x @ W.weight.T + W.bias"},
    {Msg::qkv, "Queries, keys and values"},
    {Msg::split_heads,
     "Split into heads: head h owns columns h*head_dim ... (h+1)*head_dim - 1,\n"
     "as (num_heads, num_tokens, head_dim)."},
    {Msg::scores, "Attention scores: every query against every key"},
    {Msg::scale_head_dim, "Scaled by the square root of head_dim"},
    {Msg::scale_d_out, "Scaled by the square root of d_out"},
    {Msg::scale_none, "No scaling"},
    {Msg::scale_temperature, "and by the temperature (one divisor, the product of the two)"},
    {Msg::mask, "Masking"},
    {Msg::no_mask, "nothing is masked"},
    {Msg::causal, "causal mask: True above the diagonal, where a key comes after its query"},
    {Msg::padding, "key padding: 0 marks a padded key; its column is masked in every row"},
    {Msg::fill_inf, "Masked scores become -inf, so softmax gives those keys weight 0."},
    {Msg::fill_number,
     "Masked scores become {}: like -inf for softmax unless a whole row is masked,\n"
     "which then gets equal weights instead of NaN."},
    {Msg::softmax, "Attention weights: softmax over the keys of each row"},
    {Msg::safe_softmax, "safe softmax: a row whose keys are all masked (-inf) gets zeros instead of NaN"},
    {Msg::dropout, "Dropout on the attention weights"},
    {Msg::dropout_train,
     "Training mode, seeded right before the call. One call over every head's weights: each is\n"
     "kept and multiplied by 1/(1 - p), or dropped to 0."},
    {Msg::dropout_eval, "eval mode: dropout is the identity"},
    {Msg::context, "Context vectors: the values weighted by the attention weights"},
    {Msg::concat, "the heads side by side again: (num_tokens, d_out)"},
    {Msg::output, "Output"},
    {Msg::output_none, "no output projection: the output is the context"},
    {Msg::json_report,
     "The report (--json)\n"
     "The same stages as one JSON object in the format of `attnviz-cli run` (the same keys in\n"
     "the same order), to compare with attnviz stage by stage."},
    {Msg::h_X, "X, the token embeddings:"},
    {Msg::h_param, "{}:"},
    {Msg::h_queries, "queries (Q):"},
    {Msg::h_keys, "keys (K):"},
    {Msg::h_values, "values (V):"},
    {Msg::h_scores, "attention scores:"},
    {Msg::h_scaled, "scaled scores:"},
    {Msg::h_masked, "masked scores:"},
    {Msg::h_weights, "attention weights:"},
    {Msg::h_dropped, "attention weights after dropout:"},
    {Msg::h_context, "context vectors:"},
    {Msg::h_concat, "the heads concatenated:"},
    {Msg::h_output, "output:"},
};

struct Language {
  const char* name;
  const MsgText* rows;
  int count;
};

constexpr Language kLanguages[] = {
    {"en", kEnglish, static_cast<int>(sizeof kEnglish / sizeof kEnglish[0])},
};

// One language's texts by id, English where it has none.
struct Messages {
  const char* text[kMsgCount] = {};

  explicit Messages(std::string_view language) {
    fill(kLanguages[0]);
    for (const Language& l : kLanguages) {
      if (language == l.name) fill(l);
    }
  }
  void fill(const Language& l) {
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

// The script being written: code lines, comments and headings in one language.
class Script {
 public:
  explicit Script(std::string_view language) : msg_(language) {}

  // The message's text with each "{}" replaced by the next argument.
  std::string text(Msg id, std::initializer_list<std::string> args = {}) const {
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
  void line(const std::string& code, Msg id, std::initializer_list<std::string> args = {}) {
    const std::string c = text(id, args);
    if (indent_ + code.size() + 4 + c.size() <= kWrap) {
      line(code + "  # " + c);
    } else {
      comment_text(c);
      line(code);
    }
  }
  // "# ..." for every line of the message.
  void comment(Msg id, std::initializer_list<std::string> args = {}) { comment_text(text(id, args)); }
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
  void section(Msg id) {
    line("");
    const std::string t = text(id);
    const size_t end = t.find('\n');
    line("# --- " + t.substr(0, end));
    if (end != std::string::npos) comment_text(t.substr(end + 1));
  }
  // show("heading", value); with `f`, show(f"heading", value) (a heading naming {h}).
  void show(Msg heading, const std::string& value, std::initializer_list<std::string> args = {}, bool f = false) {
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
  // The report's parameters as Python expressions in x @ W orientation.
  std::string W_q, W_k, W_v, W_o, b_q, b_k, b_v, b_o;
  // The keys and values the scores and context read: whole, or split into heads.
  std::string keys, values;

  explicit Names(const State& st)
      : s(st),
        linear(st.weights.init == WeightInit::torch_linear),
        per_head(linear && st.weights.layout == WeightLayout::per_head),
        multi(st.num_heads > 1),
        keys(multi ? "k_heads" : "keys"),
        values(multi ? "v_heads" : "values") {
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

void write_header(Script& py) {
  py.line("#!/usr/bin/env python3");
  py.comment(Msg::intro);
  py.comment(Msg::usage);
  py.comment(Msg::made_by, {kEngineVersion, std::to_string(Limits::kStateVersion)});
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
  py.comment(Msg::show_doc);
  py.line("if not JSON:");
  py.line("    print(title)");
  py.line("    print(value)");
  py.line("    print()");
  py.indent(-4);
  py.line("");
  py.line("");
  py.line("def numbers(t):");
  py.indent(4);
  py.comment(Msg::numbers_doc);
  py.line("flat = t.detach().reshape(-1)");
  py.line("values = flat.tolist()");
  py.line("out = [None] * len(values)");
  py.line("todo = []");
  py.line("for i, v in enumerate(values):");
  py.line("    if math.isfinite(v):");
  py.line("        todo.append(i)");
  py.line("    else:");
  py.line("        out[i] = \"nan\" if math.isnan(v) else (\"inf\" if v > 0 else \"-inf\")");
  py.line("for digits in range(1, 10):  # 9 significant digits always read back");
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
  py.comment(Msg::matrix_doc);
  py.line("flat = numbers(t)");
  py.line("cols = t.shape[-1]");
  py.line("return [flat[r:r + cols] for r in range(0, len(flat), cols)]");
  py.indent(-4);
  py.line("");
}

void write_sizes(Script& py, const Names& n) {
  const State& s = n.s;
  py.section(Msg::sizes);
  std::vector<std::string> tokens;
  for (const std::string& t : s.tokens) tokens.push_back(py_string(t));
  py.line("tokens = " + py_list(tokens, 9));
  py.line("num_tokens = len(tokens)");
  py.line("d_model = " + std::to_string(s.d_model), Msg::d_model);
  py.line("d_out = " + std::to_string(s.d_out), Msg::d_out);
  py.line("num_heads = " + std::to_string(s.num_heads));
  py.line("head_dim = d_out // num_heads", Msg::head_dim);
  if (s.temperature != 1.0) py.line("temperature = " + py_double(s.temperature), Msg::temperature);
}

void write_embedding(Script& py, const Names& n) {
  const State& s = n.s;
  py.section(Msg::embedding);
  if (s.embedding.init == EmbeddingInit::values) {
    py.comment(Msg::embedding_values);
    py.line(py_tensor("X", s.embedding.values, false));
  } else {
    py.line("vocab = list(dict.fromkeys(tokens))", Msg::vocab);
    py.line("token_to_idx = {token: idx for idx, token in enumerate(vocab)}");
    py.line("input_indices = torch.tensor([token_to_idx[token] for token in tokens])");
    py.comment(Msg::embedding_seeded);
    py.line("torch.manual_seed(" + std::to_string(s.embedding.seed) + ")");
    py.line("embedding_layer = nn.Embedding(len(vocab), d_model)");
    py.line("X = embedding_layer(input_indices)");
  }
  if (s.positional == Positional::sinusoidal) {
    py.comment(Msg::positional);
    py.line("pe = torch.zeros(num_tokens, d_model)");
    py.line("for pos in range(num_tokens):");
    py.line("    for i in range(d_model):");
    py.line("        angle = pos / 10000 ** ((i - i % 2) / d_model)");
    py.line("        pe[pos, i] = math.sin(angle) if i % 2 == 0 else math.cos(angle)");
    py.line("X = X + pe");
  }
  py.show(Msg::h_X, "X");
}

// torch.rand, or explicit values: plain tensors in x @ W orientation.
void write_plain_weights(Script& py, const Names& n) {
  const State& s = n.s;
  const bool rand = s.weights.init == WeightInit::torch_rand;
  py.comment(rand ? Msg::weights_rand : Msg::weights_values);
  const WeightSpec& w = s.weights;
  struct Param {
    const char* name;
    const Tensor* values;
    const char* shape;
    bool vector, present;
  };
  // torch_rand's draw order (docs/engine.md): W_q, W_k, W_v, W_o, b_q, b_k, b_v, b_o.
  const Param params[] = {
      {"W_query", &w.W_q, "d_model, d_out", false, true},
      {"W_key", &w.W_k, "d_model, d_out", false, true},
      {"W_value", &w.W_v, "d_model, d_out", false, true},
      {"W_out", &w.W_o, "d_out, d_out", false, s.out_proj},
      {"b_query", &w.b_q, "d_out", true, s.qkv_bias},
      {"b_key", &w.b_k, "d_out", true, s.qkv_bias},
      {"b_value", &w.b_v, "d_out", true, s.qkv_bias},
      {"b_out", &w.b_o, "d_out", true, n.out_bias()},
  };
  if (rand) py.line("torch.manual_seed(" + std::to_string(w.seed) + ")");
  for (const Param& p : params) {
    if (!p.present) continue;
    if (rand) py.line(std::string(p.name) + " = torch.rand(" + p.shape + ")");
    else py.line(py_tensor(p.name, *p.values, p.vector));
  }
  for (const Param& p : params) {
    if (p.present) py.show(Msg::h_param, p.name, {p.name});
  }
}

void write_linear_weights(Script& py, const Names& n) {
  const State& s = n.s;
  const std::string bias = s.qkv_bias ? "True" : "False";
  py.comment(n.per_head ? Msg::weights_linear_per_head : Msg::weights_linear_fused);
  py.comment(Msg::linear_orientation);
  py.line("torch.manual_seed(" + std::to_string(s.weights.seed) + ")");
  const char* names[] = {"W_query", "W_key", "W_value"};
  if (n.per_head) {
    py.line("W_query, W_key, W_value = [], [], []");
    py.line("for h in range(num_heads):");
    for (const char* name : names)
      py.line(std::string("    ") + name + ".append(nn.Linear(d_model, head_dim, bias=" + bias + "))");
  } else {
    for (const char* name : names) py.line(std::string(name) + " = nn.Linear(d_model, d_out, bias=" + bias + ")");
  }
  if (s.out_proj)
    py.line(std::string("out_proj = nn.Linear(d_out, d_out, bias=") + (s.out_bias ? "True" : "False") + ")");
  if (n.per_head) py.line("for h in range(num_heads):");
  if (n.per_head) py.indent(4);
  for (const char* name : names) {
    const std::string w = std::string(name) + (n.per_head ? "[h]" : "");
    py.show(Msg::h_param, w + ".weight", {(n.per_head ? std::string(name) + "[{h}]" : w) + ".weight"}, n.per_head);
    if (s.qkv_bias)
      py.show(Msg::h_param, w + ".bias", {(n.per_head ? std::string(name) + "[{h}]" : w) + ".bias"}, n.per_head);
  }
  if (n.per_head) py.indent(-4);
  if (s.out_proj) py.show(Msg::h_param, "out_proj.weight", {"out_proj.weight"});
  if (n.out_bias()) py.show(Msg::h_param, "out_proj.bias", {"out_proj.bias"});
}

void write_qkv(Script& py, const Names& n) {
  const State& s = n.s;
  py.section(Msg::qkv);
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
  py.show(Msg::h_queries, "queries");
  py.show(Msg::h_keys, "keys");
  py.show(Msg::h_values, "values");
  if (n.multi) {
    py.comment(Msg::split_heads);
    py.line("q_heads = queries.view(num_tokens, num_heads, head_dim).transpose(0, 1)");
    py.line("k_heads = keys.view(num_tokens, num_heads, head_dim).transpose(0, 1)");
    py.line("v_heads = values.view(num_tokens, num_heads, head_dim).transpose(0, 1)");
  }
}

// scores and scaled
void write_scores(Script& py, const Names& n) {
  const State& s = n.s;
  py.section(Msg::scores);
  py.line(n.multi ? "attn_scores = q_heads @ k_heads.transpose(-2, -1)" : "attn_scores = queries @ keys.T");
  py.show(Msg::h_scores, "attn_scores");
  // nn.Linear scripts write √ as the tutorials' modules do (`keys.shape[-1] ** 0.5`,
  // `d_out ** 0.5`), the others as tutorial 000 (`math.sqrt`). For the two
  // integers up to 4096 where n ** 0.5 is not math.sqrt(n) (2921, 3541), the two
  // still round to the same float32.
  std::string root;
  if (s.scale == ScaleMode::head_dim) {
    py.comment(Msg::scale_head_dim);
    root = n.linear ? n.keys + ".shape[-1] ** 0.5" : "math.sqrt(head_dim)";
  } else if (s.scale == ScaleMode::d_out) {
    py.comment(Msg::scale_d_out);
    root = n.linear ? "d_out ** 0.5" : "math.sqrt(d_out)";
  } else {
    py.comment(Msg::scale_none);
  }
  const bool temp = s.temperature != 1.0;
  if (temp) py.comment(Msg::scale_temperature);
  if (root.empty()) py.line(temp ? "scaled_scores = attn_scores / temperature" : "scaled_scores = attn_scores");
  else py.line("scaled_scores = attn_scores / " + (temp ? "(" + root + " * temperature)" : root));
  py.show(Msg::h_scaled, "scaled_scores");
}

void write_mask(Script& py, const Names& n) {
  const State& s = n.s;
  py.section(Msg::mask);
  const bool padding = !s.key_padding.empty();
  if (!s.causal && !padding) {
    py.line("masked_scores = scaled_scores", Msg::no_mask);
    py.show(Msg::h_masked, "masked_scores");
    return;
  }
  const bool inf = std::isinf(s.mask_fill);
  const std::string fill = inf ? "-torch.inf" : py_double(s.mask_fill);
  if (inf) py.comment(Msg::fill_inf);
  else py.comment(Msg::fill_number, {fill});
  std::string from = "scaled_scores";
  if (s.causal) {
    py.line("mask = torch.triu(torch.ones(num_tokens, num_tokens), diagonal=1).bool()", Msg::causal);
    py.line("masked_scores = " + from + ".masked_fill(mask, " + fill + ")");
    from = "masked_scores";
  }
  if (padding) {
    std::vector<std::string> keep;
    for (uint8_t k : s.key_padding) keep.push_back(k ? "1" : "0");
    py.line("attention_mask = torch.tensor(" + py_list(keep, 30) + ")", Msg::padding);
    py.line("masked_scores = " + from + ".masked_fill(attention_mask == 0, " + fill + ")");
  }
  py.show(Msg::h_masked, "masked_scores");
}

// weights and dropped
void write_softmax_dropout(Script& py, const Names& n) {
  const State& s = n.s;
  py.section(Msg::softmax);
  py.line("attn_weights = torch.softmax(masked_scores, dim=-1)");
  if (s.safe_softmax) {
    py.comment(Msg::safe_softmax);
    py.line("fully_masked = torch.isneginf(masked_scores).all(dim=-1, keepdim=True)");
    py.line("attn_weights = attn_weights.masked_fill(fully_masked, 0.0)");
  }
  py.show(Msg::h_weights, "attn_weights");

  py.section(Msg::dropout);
  if (s.dropout.training) {
    py.comment(Msg::dropout_train);
    py.line("torch.manual_seed(" + std::to_string(s.dropout.seed) + ")");
  }
  py.line("dropout = nn.Dropout(" + py_double(s.dropout.p) + ")");
  if (s.dropout.training) py.line("dropout.train()");
  else py.line("dropout.eval()", Msg::dropout_eval);
  py.line("dropped_weights = dropout(attn_weights)");
  py.show(Msg::h_dropped, "dropped_weights");
}

// context, concat and output
void write_context_output(Script& py, const Names& n) {
  const State& s = n.s;
  py.section(Msg::context);
  py.line("context_vec = dropped_weights @ " + n.values);
  py.show(Msg::h_context, "context_vec");
  if (n.multi) {
    py.line("concat = context_vec.transpose(0, 1).contiguous().view(num_tokens, d_out)", Msg::concat);
    py.show(Msg::h_concat, "concat");
  }
  py.section(Msg::output);
  const std::string in = n.context_all();
  if (!s.out_proj) py.line("output = " + in, Msg::output_none);
  else if (n.linear) py.line("output = out_proj(" + in + ")");
  else py.line("output = " + in + " @ W_out" + (n.out_bias() ? " + b_out" : ""));
  py.show(Msg::h_output, "output");
}

// --json: the report's keys in the report's order (report.h).
void write_json_report(Script& py, const Names& n) {
  const State& s = n.s;
  py.section(Msg::json_report);
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
  const char* stages[][2] = {{"scores", "attn_scores"},     {"scaled", "scaled_scores"},
                             {"masked", "masked_scores"},   {"weights", "attn_weights"},
                             {"dropped", "dropped_weights"}, {"context", "context_vec"}};
  for (const auto& st : stages)
    py.line(std::string("        \"") + st[0] + "\": matrix(" + st[1] + h + "),");
  py.line("    }");
  if (n.multi) py.line("    for h in range(num_heads)");
  py.line("]");
  py.line("report[\"concat\"] = matrix(" + n.context_all() + ")");
  py.line("report[\"output\"] = matrix(output)");
  py.line("print(json.dumps(report, separators=(\",\", \":\")))");
  py.indent(-4);
}

}  // namespace

std::string torch_script(const State& s, const TorchScriptOptions& options) {
  Script py(options.language);
  const Names n(s);
  write_header(py);
  write_helpers(py);
  write_sizes(py, n);
  write_embedding(py, n);
  py.section(Msg::weights);
  if (n.linear) write_linear_weights(py, n);
  else write_plain_weights(py, n);
  write_qkv(py, n);
  write_scores(py, n);
  write_mask(py, n);
  write_softmax_dropout(py, n);
  write_context_output(py, n);
  write_json_report(py, n);
  return py.take();
}

std::vector<std::string> torch_script_languages() {
  std::vector<std::string> out;
  for (const Language& l : kLanguages) out.emplace_back(l.name);
  return out;
}

bool torch_script_has_language(std::string_view language) {
  for (const Language& l : kLanguages) {
    if (language == l.name) return true;
  }
  return false;
}

std::vector<int> torch_script_missing_messages(std::string_view language) {
  std::vector<bool> have(kMsgCount, false);
  for (const Language& l : kLanguages) {
    if (language != l.name) continue;
    for (int i = 0; i < l.count; ++i) have[static_cast<int>(l.rows[i].id)] = true;
  }
  std::vector<int> missing;
  for (int i = 0; i < kMsgCount; ++i) {
    if (!have[i]) missing.push_back(i);
  }
  return missing;
}

}  // namespace attnviz
