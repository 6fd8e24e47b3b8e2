// state_json.cpp: the session state as JSON (attnviz/state_json.h).
//
// [SECTION] JSON → State: types, names and explicit value arrays. The meaning checks
// (shapes against S, d_model and d_out; divisibility; limits) are
// validate_state()'s, in state.cpp; the parser runs the scalar part of them
// before it reads any value array, so arrays are read only when their
// expected shape is known to be within the limits.
//
// [SECTION] Captured layers: "layers", each layer's name, input and weights, read
// after the sizes are checked with every layer counted.
// [SECTION] State → JSON
//
// Errors inside the parser are thrown as ParseError and turned into a Status
// at the entry points; nothing escapes. Values quoted in sentences go through
// detail::preview() (short, valid UTF-8, never a recursive dump).
#include <atomic>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "attnviz/model.h"
#include "attnviz/state.h"
#include "attnviz/state_json.h"
#include "state/json_numbers.h"
#include "state/json_text.h"
#include "state/state_internal.h"

namespace attnviz {

namespace {

using nlohmann::json;

struct ParseError {
  Status status;
};

[[noreturn]] void fail(Msg m, std::string field, const std::vector<MsgArg>& args) {
  throw ParseError{Status::refusal(m, std::move(field), args)};
}

std::string join(const std::string& prefix, const char* key) {
  return prefix.empty() ? std::string(key) : prefix + "." + key;
}

// The kind of a value, for "must be ..., not <type>": a phrase (null as written).
MsgArg type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return Msg::type_bool;
    case json::value_t::string: {
      const std::string& s = v.get_ref<const std::string&>();
      if (s.size() > 40) return MsgArg(Msg::type_long_string, {detail::quoted_head(s), std::to_string(s.size())});
      return MsgArg(Msg::type_string, {detail::quoted_head(s)});
    }
    case json::value_t::array: return Msg::type_list;
    case json::value_t::object: return Msg::type_object;
    default: return Msg::type_number;
  }
}

void reject_unknown(const json& obj, std::initializer_list<const char*> known,
                    const std::string& prefix) {
  std::set<std::string> names(known.begin(), known.end());
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (names.count(it.key()) == 0) {
      std::string list;
      for (const char* k : known) list += std::string(list.empty() ? "" : ", ") + k;
      const std::string key = detail::path_key(it.key());
      const MsgArg name = detail::preview(json(it.key()));
      if (prefix.empty()) fail(Msg::unknown_field_in_state, join(prefix, key.c_str()), {name, list});
      fail(Msg::unknown_field, join(prefix, key.c_str()), {name, prefix, list});
    }
  }
}

const json* find(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

bool read_bool(const json& obj, const char* key, bool def, const std::string& prefix) {
  const json* v = find(obj, key);
  if (v == nullptr) return def;
  if (!v->is_boolean()) {
    fail(Msg::must_be_bool, join(prefix, key), {join(prefix, key), type_name(*v)});
  }
  return v->get<bool>();
}

// A whole number in [lo, hi]; integral floats such as 4.0 are accepted.
long long read_int(const json& obj, const char* key, long long def, long long lo, long long hi,
                   const std::string& prefix) {
  const json* v = find(obj, key);
  if (v == nullptr) return def;
  const std::string field = join(prefix, key);
  auto refuse = [&](const MsgArg& given) {
    fail(Msg::whole_number_range, field, {field, std::to_string(lo), std::to_string(hi), given});
  };
  if (v->is_number_unsigned()) {
    const auto u = v->get<unsigned long long>();
    if (u > static_cast<unsigned long long>(hi) || static_cast<long long>(u) < lo) refuse(detail::preview(*v));
    return static_cast<long long>(u);
  }
  if (v->is_number_integer()) {
    const auto i = v->get<long long>();
    if (i < lo || i > hi) refuse(detail::preview(*v));
    return i;
  }
  if (v->is_number_float()) {
    const double d = v->get<double>();
    if (std::floor(d) != d || d < static_cast<double>(lo) || d > static_cast<double>(hi)) {
      refuse(detail::preview(*v));
    }
    return static_cast<long long>(d);
  }
  refuse(type_name(*v));
  return lo;  // not reached: refuse throws
}

uint64_t read_seed(const json& obj, const char* key, uint64_t def, const std::string& prefix) {
  const json* v = find(obj, key);
  if (v == nullptr) return def;
  const std::string field = join(prefix, key);
  if (v->is_number_unsigned()) return v->get<uint64_t>();
  if (v->is_number_integer()) return static_cast<uint64_t>(v->get<int64_t>());  // torch: 2^64 + s
  if (v->is_number_float()) {
    const double d = v->get<double>();
    if (std::floor(d) == d && d >= 0 && d < 9007199254740992.0) return static_cast<uint64_t>(d);
  }
  fail(Msg::seed_whole_number, field, {field, v->is_number() ? detail::preview(*v) : type_name(*v)});
}

double read_number(const json& obj, const char* key, double def, const std::string& prefix) {
  const json* v = find(obj, key);
  if (v == nullptr) return def;
  if (!v->is_number()) {
    fail(Msg::must_be_number, join(prefix, key), {join(prefix, key), type_name(*v)});
  }
  return v->get<double>();
}

std::string read_choice(const json& obj, const char* key, const char* def,
                        std::initializer_list<const char*> choices, const std::string& prefix) {
  const json* v = find(obj, key);
  if (v == nullptr) return def;
  const std::string field = join(prefix, key);
  std::string list;
  for (const char* c : choices) list += std::string(list.empty() ? "\"" : ", \"") + c + "\"";
  if (!v->is_string()) fail(Msg::must_be_one_of, field, {field, list, type_name(*v)});
  const std::string s = v->get<std::string>();
  for (const char* c : choices) {
    if (s == c) return s;
  }
  fail(Msg::must_be_one_of, field, {field, list, detail::preview(*v)});
}

// One float32 from a JSON number: finite and within float32's range.
float read_float_value(const json& v, const std::string& field) {
  if (!v.is_number()) fail(Msg::must_be_number, field, {field, type_name(v)});
  const double d = v.get<double>();
  const float f = static_cast<float>(d);
  if (!std::isfinite(d) || !std::isfinite(f)) {
    fail(Msg::float32_range, field, {field, detail::preview(v)});
  }
  return f;
}

// Element j of a list of numbers named `list` ("weights.W_q[3]"): its field name
// ("weights.W_q[3][5]") is written only when it is refused, not for each of a
// matrix's millions of numbers.
float read_element(const json& v, const std::string& list, int j) {
  if (v.is_number()) {
    const double d = v.get<double>();
    const float f = static_cast<float>(d);
    if (std::isfinite(d) && std::isfinite(f)) return f;
  }
  return read_float_value(v, list + "[" + std::to_string(j) + "]");  // refuses, with the field
}

// An explicit matrix of exactly (rows × cols) numbers; the shape is checked
// before anything is allocated.
Tensor read_matrix(const json& v, int rows, int cols, const std::string& field,
                   const MsgArg& rows_meaning, const char* cols_meaning) {
  if (!v.is_array()) fail(Msg::must_be_rows, field, {field, type_name(v)});
  if (static_cast<long long>(v.size()) != rows) {
    fail(Msg::rows_count, field, {field, std::to_string(rows), rows_meaning, std::to_string(v.size())});
  }
  Tensor t(rows, cols);
  for (int i = 0; i < rows; ++i) {
    const json& row = v[static_cast<size_t>(i)];
    const std::string rf = field + "[" + std::to_string(i) + "]";
    if (!row.is_array()) fail(Msg::must_be_numbers, rf, {rf, type_name(row)});
    if (static_cast<long long>(row.size()) != cols) {
      fail(Msg::numbers_count, rf, {rf, std::to_string(cols), cols_meaning, std::to_string(row.size())});
    }
    for (int j = 0; j < cols; ++j) {
      t.at(i, j) = read_element(row[static_cast<size_t>(j)], rf, j);
    }
  }
  return t;
}

Tensor read_vector(const json& v, int n, const std::string& field, const char* meaning) {
  if (!v.is_array()) fail(Msg::must_be_numbers, field, {field, type_name(v)});
  if (static_cast<long long>(v.size()) != n) {
    fail(Msg::numbers_count, field, {field, std::to_string(n), meaning, std::to_string(v.size())});
  }
  Tensor t(1, n);
  for (int j = 0; j < n; ++j) {
    t.at(0, j) = read_element(v[static_cast<size_t>(j)], field, j);
  }
  return t;
}

void parse_tokens(const json& j, State* s) {
  const json* v = find(j, "tokens");
  if (v == nullptr) return;  // default sentence
  if (!v->is_array()) fail(Msg::tokens_not_list, "tokens", {type_name(*v)});
  if (v->size() > static_cast<size_t>(Limits::kMaxTokens)) {
    fail(Msg::tokens_too_many, "tokens", {std::to_string(v->size()), std::to_string(Limits::kMaxTokens)});
  }
  s->tokens.clear();
  for (size_t i = 0; i < v->size(); ++i) {
    const json& t = (*v)[i];
    const std::string field = "tokens[" + std::to_string(i) + "]";
    if (!t.is_string()) fail(Msg::token_not_string, field, {field, type_name(t)});
    s->tokens.push_back(t.get<std::string>());
  }
}

// An explicit matrix: numbers, or (reading a state file, `named` set) the name of
// the tensor that holds it.
template <class ReadNumbers>
void read_explicit(const json& v, const std::string& field, const detail::NamedTensorFn* named, SharedTensor* dst,
                   ReadNumbers numbers) {
  if (named != nullptr && v.is_string()) {
    const Status st = (*named)(field, v.get<std::string>(), dst);
    if (!st.ok) throw ParseError{st};
    return;
  }
  *dst = numbers();
}

void parse_embedding(const json& j, State* s, const detail::NamedTensorFn* named) {
  const json* e = find(j, "embedding");
  if (e == nullptr) return;
  if (!e->is_object()) fail(Msg::must_be_object, "embedding", {"embedding", type_name(*e)});
  reject_unknown(*e, {"init", "seed", "values"}, "embedding");
  const json* values = find(*e, "values");
  if (values != nullptr) {
    if (find(*e, "init") != nullptr || find(*e, "seed") != nullptr) {
      fail(Msg::embedding_values_and_seed, "embedding", {});
    }
    s->embedding.init = EmbeddingInit::values;
    read_explicit(*values, "embedding.values", named, &s->embedding.values, [&] {
      return read_matrix(*values, s->seq_len(), s->d_model, "embedding.values", Msg::one_per_token, "d_model");
    });
    return;
  }
  read_choice(*e, "init", "torch_randn", {"torch_randn"}, "embedding");
  s->embedding.init = EmbeddingInit::torch_randn;
  s->embedding.seed = read_seed(*e, "seed", 123, "embedding");
}

// The explicit matrices of a weights object `w` at `at` ("weights", "layers[2].weights"),
// of the shapes s's sizes give; those s's flags need are required.
void parse_weight_values(const json& w, const std::string& at, const State& s, const detail::NamedTensorFn* named,
                         WeightSpec* spec) {
  spec->init = WeightInit::values;
  const int dm = s.d_model, dout = s.d_out;
  auto matrix = [&](const char* name, int rows, int cols, const char* rm, const char* cm,
                    bool needed, SharedTensor* dst) {
    const json* v = find(w, name);
    const std::string field = at + "." + name;
    if (v == nullptr) {
      if (needed) fail(Msg::weight_missing, field, {field});
      return;
    }
    read_explicit(*v, field, named, dst, [&] { return read_matrix(*v, rows, cols, field, rm, cm); });
  };
  auto vector = [&](const char* name, int n, const char* nn, bool needed, SharedTensor* dst) {
    const json* v = find(w, name);
    const std::string field = at + "." + name;
    if (v == nullptr) {
      if (needed) fail(Msg::weight_missing, field, {field});
      return;
    }
    read_explicit(*v, field, named, dst, [&] { return read_vector(*v, n, field, nn); });
  };
  // K and V are G · head_dim wide (d_out unless num_kv_heads < num_heads).
  const int kv = s.kv_dim();
  const char* kvn = detail::kv_width_name(s);
  matrix("W_q", dm, dout, "d_model", "d_out", true, &spec->W_q);
  matrix("W_k", dm, kv, "d_model", kvn, true, &spec->W_k);
  matrix("W_v", dm, kv, "d_model", kvn, true, &spec->W_v);
  matrix("W_o", dout, dout, "d_out", "d_out", s.out_proj, &spec->W_o);
  vector("b_q", dout, "d_out", s.qkv_bias, &spec->b_q);
  vector("b_k", kv, kvn, s.qkv_bias, &spec->b_k);
  vector("b_v", kv, kvn, s.qkv_bias, &spec->b_v);
  vector("b_o", dout, "d_out", s.out_proj && s.out_bias, &spec->b_o);
}

void parse_weights(const json& j, State* s, const detail::NamedTensorFn* named) {
  const json* w = find(j, "weights");
  if (w == nullptr) return;
  if (!w->is_object()) fail(Msg::must_be_object, "weights", {"weights", type_name(*w)});
  reject_unknown(*w, {"init", "seed", "layout", "W_q", "W_k", "W_v", "W_o", "b_q", "b_k", "b_v", "b_o"},
                 "weights");
  WeightSpec& spec = s->weights;
  spec.layout = read_choice(*w, "layout", "fused", {"fused", "per_head"}, "weights") == "per_head"
                    ? WeightLayout::per_head
                    : WeightLayout::fused;
  static const char* const kMatrices[] = {"W_q", "W_k", "W_v", "W_o", "b_q", "b_k", "b_v", "b_o"};
  const char* first_matrix = nullptr;
  for (const char* m : kMatrices) {
    if (find(*w, m) != nullptr && first_matrix == nullptr) first_matrix = m;
  }
  if (first_matrix == nullptr) {
    spec.init = read_choice(*w, "init", "torch_rand", {"torch_linear", "torch_rand"}, "weights") ==
                        "torch_linear"
                    ? WeightInit::torch_linear
                    : WeightInit::torch_rand;
    spec.seed = read_seed(*w, "seed", 123, "weights");
    return;
  }
  if (find(*w, "init") != nullptr || find(*w, "seed") != nullptr) {
    fail(Msg::weights_values_and_seed, std::string("weights.") + first_matrix, {first_matrix});
  }
  parse_weight_values(*w, "weights", *s, named, &spec);
}

// [SECTION] Captured layers: "layers": [{"name", "embedding": {"values"}, "weights": {W_q ...}}]

// The list and its length, before the sizes are checked (the memory estimate counts
// every layer); each layer's contents come after, in parse_layers.
void parse_layer_count(const json& j, State* s) {
  const json* v = find(j, "layers");
  if (v == nullptr) return;
  if (!v->is_array()) fail(Msg::layers_not_list, "layers", {type_name(*v)});
  if (v->empty() || v->size() > static_cast<size_t>(Limits::kMaxLayers)) {
    fail(Msg::layers_count, "layers", {std::to_string(v->size()), std::to_string(Limits::kMaxLayers)});
  }
  if (s->model.active()) fail(Msg::layers_with_model, "layers", {});
  for (const char* key : {"embedding", "weights"}) {
    if (find(j, key) != nullptr) fail(Msg::layers_and_top_level, key, {key});
  }
  s->layers.resize(v->size());
}

// Layer l: its name, its input (explicit values only) and its weights (explicit only).
void parse_layer(const json& v, const std::string& at, State* s, const detail::NamedTensorFn* named,
                 CapturedLayer* out) {
  if (!v.is_object()) fail(Msg::must_be_object, at, {at, type_name(v)});
  reject_unknown(v, {"name", "embedding", "weights"}, at);
  if (const json* name = find(v, "name")) {
    if (!name->is_string()) fail(Msg::token_not_string, at + ".name", {at + ".name", type_name(*name)});
    out->name = name->get<std::string>();
  }
  const json* e = find(v, "embedding");
  if (e == nullptr) fail(Msg::layer_part_missing, at + ".embedding.values", {at + ".embedding.values"});
  if (!e->is_object()) fail(Msg::must_be_object, at + ".embedding", {at + ".embedding", type_name(*e)});
  reject_unknown(*e, {"values"}, at + ".embedding");
  const json* values = find(*e, "values");
  const std::string vf = at + ".embedding.values";
  if (values == nullptr) fail(Msg::layer_part_missing, vf, {vf});
  out->embedding.init = EmbeddingInit::values;
  read_explicit(*values, vf, named, &out->embedding.values, [&] {
    return read_matrix(*values, s->seq_len(), s->d_model, vf, Msg::one_per_token, "d_model");
  });
  const json* w = find(v, "weights");
  if (w == nullptr) fail(Msg::layer_part_missing, at + ".weights", {at + ".weights"});
  if (!w->is_object()) fail(Msg::must_be_object, at + ".weights", {at + ".weights", type_name(*w)});
  reject_unknown(*w, {"W_q", "W_k", "W_v", "W_o", "b_q", "b_k", "b_v", "b_o"}, at + ".weights");
  parse_weight_values(*w, at + ".weights", *s, named, &out->weights);
}

void parse_layers(const json& j, State* s, const detail::NamedTensorFn* named) {
  const json* v = find(j, "layers");
  if (v == nullptr) return;
  for (size_t l = 0; l < v->size(); ++l)
    parse_layer((*v)[l], "layers[" + std::to_string(l) + "]", s, named, &s->layers[l]);
}

// positional, and rope's base and style (read whatever positional is: the
// UI keeps them while RoPE is off).
void parse_positional(const json& j, State* s) {
  const std::string pos = read_choice(j, "positional", "none", {"none", "sinusoidal", "rope"}, "");
  s->positional = pos == "sinusoidal" ? Positional::sinusoidal : pos == "rope" ? Positional::rope : Positional::none;
  const json* r = find(j, "rope");
  if (r == nullptr) return;
  if (!r->is_object()) fail(Msg::must_be_object, "rope", {"rope", type_name(*r)});
  reject_unknown(*r, {"base", "style"}, "rope");
  s->rope.base = read_number(*r, "base", s->rope.base, "rope");
  s->rope.style = read_choice(*r, "style", "half", {"half", "interleaved"}, "rope") == "interleaved"
                      ? RopeStyle::interleaved
                      : RopeStyle::half;
}

// "sinks": {"enabled", "values"} (gpt-oss's sink logits, one per head) and
// "kv_cache": {"policy", "sink_tokens", "recent"} (issue 36). Each object is
// optional, and so is each of its fields.
void parse_sinks_and_cache(const json& j, State* s) {
  if (const json* k = find(j, "sinks")) {
    if (!k->is_object()) fail(Msg::must_be_object, "sinks", {"sinks", type_name(*k)});
    reject_unknown(*k, {"enabled", "values"}, "sinks");
    s->sinks.enabled = read_bool(*k, "enabled", false, "sinks");
    if (const json* v = find(*k, "values")) {
      const Tensor t = read_vector(*v, s->num_heads, "sinks.values", "num_heads");
      s->sinks.values.assign(t.data.begin(), t.data.end());
    }
  }
  if (const json* c = find(j, "kv_cache")) {
    if (!c->is_object()) fail(Msg::must_be_object, "kv_cache", {"kv_cache", type_name(*c)});
    reject_unknown(*c, {"policy", "sink_tokens", "recent"}, "kv_cache");
    KvCacheSpec& kc = s->kv_cache;
    kc.policy = read_choice(*c, "policy", "full", {"full", "streaming_llm"}, "kv_cache") == "streaming_llm"
                    ? CachePolicy::streaming_llm
                    : CachePolicy::full;
    kc.sink_tokens = static_cast<int>(read_int(*c, "sink_tokens", kc.sink_tokens, 0, Limits::kMaxWindow, "kv_cache"));
    kc.recent = static_cast<int>(read_int(*c, "recent", kc.recent, 1, Limits::kMaxWindow, "kv_cache"));
  }
}

void parse_masking(const json& j, State* s) {
  s->causal = read_bool(j, "causal", s->causal, "");
  s->alibi = read_bool(j, "alibi", s->alibi, "");
  s->window = static_cast<int>(read_int(j, "window", s->window, 1, Limits::kMaxWindow, ""));
  s->safe_softmax = read_bool(j, "safe_softmax", s->safe_softmax, "");
  if (const json* kp = find(j, "key_padding")) {
    if (!kp->is_array()) {
      fail(Msg::key_padding_not_list, "key_padding", {type_name(*kp)});
    }
    if (static_cast<long long>(kp->size()) != s->seq_len()) {
      fail(Msg::key_padding_count, "key_padding", {std::to_string(kp->size()), std::to_string(s->seq_len())});
    }
    s->key_padding.clear();
    for (size_t i = 0; i < kp->size(); ++i) {
      const json& v = (*kp)[i];
      const std::string field = "key_padding[" + std::to_string(i) + "]";
      if (v.is_boolean()) {
        s->key_padding.push_back(v.get<bool>() ? 1 : 0);
      } else if (v.is_number() && (v.get<double>() == 0.0 || v.get<double>() == 1.0)) {
        s->key_padding.push_back(v.get<double>() == 1.0 ? 1 : 0);
      } else {
        fail(Msg::key_padding_value_not, field, {field, detail::preview(v)});
      }
    }
  }
  if (const json* mf = find(j, "mask_fill")) {
    if (mf->is_string()) {
      if (mf->get<std::string>() != "-inf") {
        fail(Msg::mask_fill_type, "mask_fill", {detail::preview(*mf)});
      }
      s->mask_fill = -std::numeric_limits<double>::infinity();
    } else if (mf->is_number()) {
      s->mask_fill = mf->get<double>();
    } else {
      fail(Msg::mask_fill_type, "mask_fill", {type_name(*mf)});
    }
  }
}

// version first: a state from a newer attnviz may have fields this one does
// not know, and "newer version" is the sentence that explains them.
void parse_version(const json& j) {
  const json* v = find(j, "version");
  if (v == nullptr) return;
  const bool whole = v->is_number_integer() || v->is_number_unsigned();
  if (whole && v->is_number_unsigned() && v->get<uint64_t>() > 1) {
    fail(Msg::version_newer, "version", {detail::preview(*v)});
  }
  if (!whole || v->get<int64_t>() != Limits::kStateVersion) {
    fail(Msg::version_not_1, "version", {detail::preview(*v)});
  }
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

// "model": {"name", "step"}: the model and its checkpoint, and the sizes and
// flags it fixes as the defaults of the fields read after it (validate_state
// refuses other values). Its embeddings and weights are the model's own.
void parse_model(const json& j, State* s) {
  const json* m = find(j, "model");
  if (m == nullptr) return;
  if (!m->is_object()) fail(Msg::must_be_object, "model", {"model", type_name(*m)});
  reject_unknown(*m, {"name", "step"}, "model");
  const json* name = find(*m, "name");
  if (name == nullptr || !name->is_string()) {
    fail(Msg::model_unknown, "model.name", {name ? detail::preview(*name) : "nothing", joined(model_names())});
  }
  SharedModel model = find_model(name->get<std::string>());
  if (!model && model_left_out(name->get<std::string>())) fail(Msg::model_left_out, "model.name", {detail::preview(*name)});
  if (!model) fail(Msg::model_unknown, "model.name", {detail::preview(*name), joined(model_names())});
  const long long last = model->checkpoints.back().step;
  const long long step = read_int(*m, "step", last, 0, std::numeric_limits<int>::max(), "model");
  std::vector<std::string> steps;
  int index = -1;
  for (size_t i = 0; i < model->checkpoints.size(); ++i) {
    steps.push_back(std::to_string(model->checkpoints[i].step));
    if (model->checkpoints[i].step == step) index = static_cast<int>(i);
  }
  if (index < 0) fail(Msg::model_step_unknown, "model.step", {model->name, std::to_string(step), joined(steps)});
  for (const char* key : {"embedding", "weights"}) {
    if (find(j, key) != nullptr) fail(Msg::model_sets_it, key, {key, model->name});
  }
  s->model = ModelSpec{model->name, index, model};
  s->tokens = model->probe;  // without "tokens": the model's standard probe
  s->d_model = s->d_out = model->d_model;
  s->num_heads = model->num_heads;
  s->out_proj = true;
  s->out_bias = true;
  s->causal = true;
}

void parse_all(const json& j, State* s, const detail::NamedTensorFn* named) {
  if (!j.is_object()) fail(Msg::state_not_object, "", {type_name(j)});
  parse_version(j);
  reject_unknown(j, {"version", "tokens", "d_model", "d_out", "num_heads", "embedding", "positional",
                     "weights", "qkv_bias", "out_proj", "out_bias", "scale", "temperature",
                     "causal", "key_padding", "mask_fill", "safe_softmax", "dropout", "rope",
                     "num_kv_heads", "alibi", "window", "sinks", "kv_cache", "model", "layers"},
                 "");
  *s = State{};
  parse_model(j, s);
  parse_tokens(j, s);
  s->d_model = static_cast<int>(read_int(j, "d_model", s->d_model, 1, Limits::kMaxDModel, ""));
  s->d_out = static_cast<int>(read_int(j, "d_out", s->d_out, 1, Limits::kMaxDOut, ""));
  s->num_heads = static_cast<int>(read_int(j, "num_heads", s->num_heads, 1, Limits::kMaxHeads, ""));
  s->num_kv_heads = static_cast<int>(read_int(j, "num_kv_heads", s->num_kv_heads, 1, Limits::kMaxHeads, ""));
  s->qkv_bias = read_bool(j, "qkv_bias", s->qkv_bias, "");
  s->out_proj = read_bool(j, "out_proj", s->out_proj, "");
  s->out_bias = read_bool(j, "out_bias", s->out_bias, "");
  parse_layer_count(j, s);
  // Sizes first: value arrays below are read only within the limits.
  Status st = detail::validate_sizes(*s);
  if (!st.ok) throw ParseError{st};
  parse_embedding(j, s, named);
  parse_positional(j, s);
  parse_weights(j, s, named);
  parse_layers(j, s, named);
  const std::string scale = read_choice(j, "scale", "head_dim", {"head_dim", "d_out", "none"}, "");
  s->scale = scale == "head_dim" ? ScaleMode::head_dim
             : scale == "d_out"  ? ScaleMode::d_out
                                 : ScaleMode::none;
  s->temperature = read_number(j, "temperature", s->temperature, "");
  parse_masking(j, s);
  parse_sinks_and_cache(j, s);
  if (const json* d = find(j, "dropout")) {
    if (!d->is_object()) fail(Msg::must_be_object, "dropout", {"dropout", type_name(*d)});
    reject_unknown(*d, {"p", "training", "seed"}, "dropout");
    s->dropout.p = read_number(*d, "p", s->dropout.p, "dropout");
    s->dropout.training = read_bool(*d, "training", s->dropout.training, "dropout");
    s->dropout.seed = read_seed(*d, "seed", s->dropout.seed, "dropout");
  }
}

Status parse_impl(const nlohmann::json& j, const detail::NamedTensorFn* named, State* out) {
  detail::g_state_json_conversions.fetch_add(1, std::memory_order_relaxed);
  try {
    Status st = detail::check_json_depth(j);
    if (!st.ok) return st;
    State s;
    parse_all(j, &s, named);
    st = validate_state(s);
    if (!st.ok) return st;
    *out = std::move(s);
    return Status::success();
  } catch (const ParseError& e) {
    return e.status;
  } catch (const std::bad_alloc&) {
    return Status::refusal(Msg::no_memory_to_read, "");
  } catch (const std::exception& e) {
    return Status::refusal(Msg::could_not_read, "", {e.what()});
  }
}

}  // namespace

Status parse_state(const nlohmann::json& j, State* out) { return parse_impl(j, nullptr, out); }

Status detail::parse_state_named(const nlohmann::json& j, const NamedTensorFn& named, State* out) {
  return parse_impl(j, &named, out);
}

Status parse_state_text(std::string_view text, State* out) {
  nlohmann::json j;
  const Status st = parse_json_text(text, &j);
  if (!st.ok) return st;
  return parse_state(j, out);
}

// [SECTION] State → JSON

std::atomic<uint64_t> detail::g_state_json_conversions{0};

uint64_t state_json_conversions() { return detail::g_state_json_conversions.load(std::memory_order_relaxed); }

namespace {

// Explicit weights as JSON: the matrices s's flags use.
nlohmann::json weight_values_json(const State& s, const WeightSpec& w) {
  nlohmann::json wj = nlohmann::json::object();
  wj["W_q"] = detail::tensor_to_json_rows(w.W_q.view());
  wj["W_k"] = detail::tensor_to_json_rows(w.W_k.view());
  wj["W_v"] = detail::tensor_to_json_rows(w.W_v.view());
  if (s.out_proj) wj["W_o"] = detail::tensor_to_json_rows(w.W_o.view());
  if (s.qkv_bias) {
    wj["b_q"] = detail::tensor_to_json_vector(w.b_q.view());
    wj["b_k"] = detail::tensor_to_json_vector(w.b_k.view());
    wj["b_v"] = detail::tensor_to_json_vector(w.b_v.view());
  }
  if (s.out_proj && s.out_bias) wj["b_o"] = detail::tensor_to_json_vector(w.b_o.view());
  return wj;
}

}  // namespace

nlohmann::json state_to_json(const State& s) {
  using nlohmann::json;
  detail::g_state_json_conversions.fetch_add(1, std::memory_order_relaxed);
  json j = json::object();
  j["version"] = s.version;
  if (s.model.active()) {
    const int k = s.model.checkpoint;
    j["model"] = {{"name", s.model.name},
                  {"step", s.model.model ? s.model.model->checkpoints[static_cast<size_t>(k)].step : 0}};
  }
  j["tokens"] = s.tokens;
  j["d_model"] = s.d_model;
  j["d_out"] = s.d_out;
  j["num_heads"] = s.num_heads;
  if (s.model.active() || s.captured()) {
    // the model's own embeddings and weights, or each captured layer's (below)
  } else if (s.embedding.init == EmbeddingInit::values) {
    j["embedding"] = {{"values", detail::tensor_to_json_rows(s.embedding.values.view())}};
  } else {
    j["embedding"] = {{"init", "torch_randn"}, {"seed", s.embedding.seed}};
  }
  j["positional"] = positional_name(s.positional);
  const WeightSpec& w = s.weights;
  if (s.model.active() || s.captured()) {
    // as above; a captured layer's own are under "layers"
  } else if (w.init == WeightInit::values) {
    j["weights"] = weight_values_json(s, w);
  } else {
    j["weights"] = {{"init", weight_init_name(w.init)},
                    {"seed", w.seed},
                    {"layout", weight_layout_name(w.layout)}};
  }
  if (s.captured()) {
    json layers = json::array();
    for (const CapturedLayer& c : s.layers) {
      layers.push_back({{"name", c.name},
                        {"embedding", {{"values", detail::tensor_to_json_rows(c.embedding.values.view())}}},
                        {"weights", weight_values_json(s, c.weights)}});
    }
    j["layers"] = std::move(layers);
  }
  j["qkv_bias"] = s.qkv_bias;
  j["out_proj"] = s.out_proj;
  j["out_bias"] = s.out_bias;
  j["scale"] = scale_mode_name(s.scale);
  j["temperature"] = s.temperature;
  j["causal"] = s.causal;
  if (!s.key_padding.empty()) {
    json kp = json::array();
    for (uint8_t v : s.key_padding) kp.push_back(static_cast<int>(v));
    j["key_padding"] = std::move(kp);
  }
  if (std::isinf(s.mask_fill)) {
    j["mask_fill"] = "-inf";
  } else {
    j["mask_fill"] = s.mask_fill;
  }
  j["safe_softmax"] = s.safe_softmax;
  // Issue 23's fields, only when not their defaults (states without them read as before).
  if (s.positional == Positional::rope || s.rope.base != RopeSpec{}.base || s.rope.style != RopeSpec{}.style) {
    j["rope"] = {{"base", s.rope.base}, {"style", rope_style_name(s.rope.style)}};
  }
  if (s.num_kv_heads != 0) j["num_kv_heads"] = s.num_kv_heads;
  if (s.alibi) j["alibi"] = true;
  if (s.window != 0) j["window"] = s.window;
  // Issue 36's, likewise: sinks when on or given, kv_cache when not the default.
  if (s.sinks.enabled || !s.sinks.values.empty()) {
    j["sinks"] = {{"enabled", s.sinks.enabled}};
    if (!s.sinks.values.empty()) {
      const int n = static_cast<int>(s.sinks.values.size());
      j["sinks"]["values"] = detail::tensor_to_json_vector(TensorView{s.sinks.values.data(), 1, n, n});
    }
  }
  const KvCacheSpec& kc = s.kv_cache;
  if (kc.streaming() || kc.sink_tokens != KvCacheSpec{}.sink_tokens || kc.recent != KvCacheSpec{}.recent) {
    j["kv_cache"] = {{"policy", cache_policy_name(kc.policy)}, {"sink_tokens", kc.sink_tokens}, {"recent", kc.recent}};
  }
  j["dropout"] = {{"p", s.dropout.p}, {"training", s.dropout.training}, {"seed", s.dropout.seed}};
  return j;
}

}  // namespace attnviz
