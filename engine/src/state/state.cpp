// State validation (the meaning of the fields), ==, and names. JSON in and out: state_json.cpp.
#include "attnviz/state.h"
#include "attnviz/state_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "attnviz/kernels.h"
#include "attnviz/model.h"
#include "attnviz/pipeline.h"
#include "attnviz/stages.h"
#include "state/state_internal.h"

namespace attnviz {

const char* scale_mode_name(ScaleMode m) {
  switch (m) {
    case ScaleMode::head_dim: return "head_dim";
    case ScaleMode::d_out: return "d_out";
    case ScaleMode::none: return "none";
  }
  return "head_dim";
}

const char* positional_name(Positional p) {
  switch (p) {
    case Positional::none: return "none";
    case Positional::sinusoidal: return "sinusoidal";
    case Positional::rope: return "rope";
  }
  return "none";
}

const char* rope_style_name(RopeStyle r) { return r == RopeStyle::interleaved ? "interleaved" : "half"; }

const char* weight_init_name(WeightInit w) {
  switch (w) {
    case WeightInit::torch_linear: return "torch_linear";
    case WeightInit::torch_rand: return "torch_rand";
    case WeightInit::values: return "values";
  }
  return "torch_rand";
}

const char* weight_layout_name(WeightLayout l) {
  return l == WeightLayout::per_head ? "per_head" : "fused";
}

const char* cache_policy_name(CachePolicy c) { return c == CachePolicy::streaming_llm ? "streaming_llm" : "full"; }

void fit_to_heads(State* s) {
  const int H = s->num_heads;
  if (s->num_kv_heads > 0 && (H < 1 || s->num_kv_heads >= H || H % s->num_kv_heads != 0)) s->num_kv_heads = 0;
  if (H >= 1 && H <= Limits::kMaxHeads && !s->sinks.values.empty()) s->sinks.values.resize(static_cast<size_t>(H), 0.0f);
}

namespace {

// One layer's pipeline: x_values / w_values when its X / weights are explicit (a copy
// kept in its State).
uint64_t estimate_one_layer(const State& s, bool x_values, bool w_values) {
  // 64-bit on purpose: size_t is 32 bits in the WebAssembly build.
  const uint64_t S = s.tokens.size();
  const uint64_t dm = static_cast<uint64_t>(s.d_model > 0 ? s.d_model : 0);
  const uint64_t dout = static_cast<uint64_t>(s.d_out > 0 ? s.d_out : 0);
  const uint64_t H = static_cast<uint64_t>(s.num_heads > 0 ? s.num_heads : 0);
  // Every stage of the stage table (attnviz/stages.h), each as if its option
  // were on (W_o, the biases, dropped under dropout): X (S × d_model), the
  // parameters, Q (S × d_out), K, V (S × kv_dim), per head q_rot and k_rot
  // (S × head_dim, with RoPE), scores ... dropped (S × S, bias with ALiBi) and
  // context (S × head_dim), concat and output (S × d_out). The derived stages
  // (scaled, masked) count too: Pipeline::matrix keeps a head's once asked
  // for them, and the report (attnviz-cli run) asks for every head's.
  uint64_t floats = 0;
  uint64_t params = 0;
  const bool long_mode = S > static_cast<uint64_t>(Limits::kMaxFullTokens);
  for (int i = 0; i < kStageCount; ++i) {
    const StageInfo& info = stage_table()[i];
    if (long_mode && stage_is_square(info.stage)) continue;  // rows on demand: no (S × S) buffer
    // q_rot, k_rot and bias exist only with their option (RoPE, ALiBi).
    if (info.when == StageWhen::rope && s.positional != Positional::rope) continue;
    if (info.when == StageWhen::alibi && !s.alibi) continue;
    const uint64_t n = stage_floats(info.stage, S, dm, dout, H, static_cast<uint64_t>(s.num_kv_heads));
    floats += n;
    if (!stage_rows_are_positions(info.stage)) params += n;  // W_*, b_*
  }
  if (x_values) floats += S * dm;  // kept in the State copy
  if (w_values) floats += params;
  if (long_mode) {
    // QT and KT (the score products' operands), the projections' row snapshots, the
    // embedding table (one row a token at most), the kept map rows (Pipeline::map).
    floats += 2 * S * dout + S * dout + S * dm;
    return floats * sizeof(float) + Pipeline::kMapCacheBytes;
  }
  floats += S * S + 2 * S;                           // scratch for change detection
  return floats * sizeof(float) + H * S * S;         // + the dropout keep mask (bytes)
}

}  // namespace

uint64_t estimate_pipeline_bytes(const State& s) {
  if (s.captured()) return s.layers.size() * estimate_one_layer(s, true, true);  // a pipeline a layer
  return estimate_one_layer(s, s.embedding.init == EmbeddingInit::values, s.weights.init == WeightInit::values);
}

State captured_layer_state(const State& s, int l) {
  State out = s;
  if (!s.captured()) return out;
  const size_t k = static_cast<size_t>(std::max(0, std::min(l, static_cast<int>(s.layers.size()) - 1)));
  out.embedding = s.layers[k].embedding;
  out.weights = s.layers[k].weights;
  out.layers.clear();
  return out;
}

namespace {

// A double as a learner would write it: shortest round-trip decimal, or NaN/Infinity.
std::string number_text(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  return nlohmann::json(d).dump();
}

std::string gib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

// Checked once per shared Tensor (SharedTensor::all_finite): a State copied
// from another keeps its answer, so an edit elsewhere reads no weight again.
Status check_finite(const SharedTensor& st, const std::string& field) {
  const bool finite = st.all_finite([](const Tensor& t) {
    const size_t n = static_cast<size_t>(t.rows) * static_cast<size_t>(t.cols);
    return kernels::all_finite(t.data.data(), std::min(n, t.data.size()));
  });
  if (!finite) return Status::refusal(Msg::finite_only, field, {field});
  return Status::success();
}

Status check_matrix(const SharedTensor& st, int rows, int cols, const std::string& field,
                    const char* rows_meaning, const char* cols_meaning) {
  const Tensor& t = st.get();
  if (t.rows != rows || t.cols != cols || t.data.size() != static_cast<size_t>(rows) * cols) {
    return Status::refusal(Msg::matrix_shape, field,
                           {field, std::to_string(rows), std::to_string(cols), rows_meaning, cols_meaning,
                            std::to_string(t.rows), std::to_string(t.cols)});
  }
  return check_finite(st, field);
}

// Well-formed UTF-8 (no overlongs, surrogates or code points above U+10FFFF).
bool valid_utf8(const std::string& s) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len;
    unsigned cp;
    if (c < 0x80) { ++i; continue; }
    if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
    else return false;
    if (i + len > n) return false;
    for (size_t k = 1; k < len; ++k) {
      const unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
      return false;
    }
    i += len;
  }
  return true;
}

}  // namespace

namespace detail {

Status validate_sizes(const State& s) {
  if (s.version != Limits::kStateVersion) {
    return Status::refusal(Msg::version_must_be_1, "version");
  }
  if (s.tokens.empty()) return Status::refusal(Msg::tokens_empty, "tokens");
  if (s.tokens.size() > static_cast<size_t>(Limits::kMaxTokens)) {
    return Status::refusal(Msg::tokens_too_many, "tokens",
                           {std::to_string(s.tokens.size()), std::to_string(Limits::kMaxTokens)});
  }
  for (size_t i = 0; i < s.tokens.size(); ++i) {
    if (s.tokens[i].size() > Limits::kMaxTokenBytes) {
      const std::string field = "tokens[" + std::to_string(i) + "]";
      return Status::refusal(Msg::token_too_long, field,
                             {field, std::to_string(s.tokens[i].size()), std::to_string(Limits::kMaxTokenBytes)});
    }
    if (!valid_utf8(s.tokens[i])) {
      const std::string field = "tokens[" + std::to_string(i) + "]";
      return Status::refusal(Msg::token_not_utf8, field, {field});
    }
  }
  if (s.d_model < 1 || s.d_model > Limits::kMaxDModel) {
    return Status::refusal(Msg::whole_number_range, "d_model",
                           {"d_model", "1", std::to_string(Limits::kMaxDModel), std::to_string(s.d_model)});
  }
  if (s.d_out < 1 || s.d_out > Limits::kMaxDOut) {
    return Status::refusal(Msg::whole_number_range, "d_out",
                           {"d_out", "1", std::to_string(Limits::kMaxDOut), std::to_string(s.d_out)});
  }
  if (s.num_heads < 1 || s.num_heads > Limits::kMaxHeads) {
    return Status::refusal(Msg::whole_number_range, "num_heads",
                           {"num_heads", "1", std::to_string(Limits::kMaxHeads), std::to_string(s.num_heads)});
  }
  if (s.d_out % s.num_heads != 0) {
    return Status::refusal(Msg::d_out_not_divisible, "num_heads",
                           {std::to_string(s.d_out), std::to_string(s.num_heads)});
  }
  if (s.num_kv_heads < 0 || s.num_kv_heads > Limits::kMaxHeads) {
    return Status::refusal(Msg::whole_number_range, "num_kv_heads",
                           {"num_kv_heads", "1", std::to_string(Limits::kMaxHeads), std::to_string(s.num_kv_heads)});
  }
  if (s.num_heads % s.kv_heads() != 0) {
    return Status::refusal(Msg::kv_heads_not_divisor, "num_kv_heads",
                           {std::to_string(s.num_heads), std::to_string(s.kv_heads())});
  }
  if (s.kv_heads() != s.num_heads && s.weights.init == WeightInit::torch_linear &&
      s.weights.layout == WeightLayout::per_head) {
    return Status::refusal(Msg::kv_heads_per_head, "num_kv_heads",
                           {std::to_string(s.num_heads), std::to_string(s.kv_heads())});
  }
  if (s.layers.size() > static_cast<size_t>(Limits::kMaxLayers)) {
    return Status::refusal(Msg::layers_count, "layers",
                           {std::to_string(s.layers.size()), std::to_string(Limits::kMaxLayers)});
  }
  if (s.tokens.size() > static_cast<size_t>(Limits::kMaxFullTokens) && s.dropout.training && s.dropout.p > 0.0) {
    const uint64_t S = s.tokens.size();  // the keep mask: a byte per cell of every head (H × S × S)
    return Status::refusal(Msg::long_dropout, "dropout",
                           {gib(static_cast<uint64_t>(s.num_heads) * S * S), std::to_string(S),
                            std::to_string(Limits::kMaxFullTokens)});
  }
  const uint64_t bytes = estimate_pipeline_bytes(s);
  if (bytes > Limits::kMaxPipelineBytes && s.captured()) {
    return Status::refusal(Msg::layers_too_much_memory, "layers",
                           {std::to_string(s.layers.size()), gib(bytes), std::to_string(s.tokens.size()),
                            std::to_string(s.num_heads), std::to_string(s.d_model), std::to_string(s.d_out),
                            gib(Limits::kMaxPipelineBytes)});
  }
  if (bytes > Limits::kMaxPipelineBytes) {
    return Status::refusal(Msg::too_much_memory, "tokens",
                           {gib(bytes), std::to_string(s.tokens.size()), std::to_string(s.num_heads),
                            std::to_string(s.d_model), std::to_string(s.d_out), gib(Limits::kMaxPipelineBytes)});
  }
  return Status::success();
}

const char* kv_width_name(const State& s) {
  return s.kv_heads() == s.num_heads ? "d_out" : "num_kv_heads × head_dim";
}

}  // namespace detail

namespace {

// RoPE's base and head_dim, the window (issue 23's options; num_kv_heads is a
// size: validate_sizes).
Status validate_variants(const State& s) {
  const double base = s.rope.base;
  if (!(base > 0.0 && std::isfinite(base) && std::isfinite(static_cast<float>(base)))) {
    return Status::refusal(Msg::rope_base_range, "rope.base", {number_text(base)});
  }
  if (s.positional == Positional::rope && s.head_dim() % 2 != 0) {
    return Status::refusal(Msg::rope_odd_head_dim, "positional", {std::to_string(s.head_dim())});
  }
  if (s.window < 0 || s.window > Limits::kMaxWindow) {
    return Status::refusal(Msg::whole_number_range, "window",
                           {"window", "1", std::to_string(Limits::kMaxWindow), std::to_string(s.window)});
  }
  return Status::success();
}

// gpt-oss's sink logits (one finite float32 per head, or none: 0 each) and the
// StreamingLLM cache's two sizes (issue 36).
Status validate_sinks_and_cache(const State& s) {
  const std::vector<float>& v = s.sinks.values;
  if (!v.empty() && v.size() != static_cast<size_t>(s.num_heads)) {
    return Status::refusal(Msg::numbers_count, "sinks.values",
                           {"sinks.values", std::to_string(s.num_heads), "num_heads", std::to_string(v.size())});
  }
  for (size_t h = 0; h < v.size(); ++h) {
    if (!std::isfinite(v[h])) {
      const std::string field = "sinks.values[" + std::to_string(h) + "]";
      return Status::refusal(Msg::finite_only, field, {field});
    }
  }
  const KvCacheSpec& c = s.kv_cache;
  if (c.sink_tokens < 0 || c.sink_tokens > Limits::kMaxWindow) {
    return Status::refusal(Msg::whole_number_range, "kv_cache.sink_tokens",
                           {"kv_cache.sink_tokens", "0", std::to_string(Limits::kMaxWindow), std::to_string(c.sink_tokens)});
  }
  if (c.recent < 1 || c.recent > Limits::kMaxWindow) {
    return Status::refusal(Msg::whole_number_range, "kv_cache.recent",
                           {"kv_cache.recent", "1", std::to_string(Limits::kMaxWindow), std::to_string(c.recent)});
  }
  return Status::success();
}

// A state that runs a trained model: the model is known, its checkpoint
// exists, the sizes and flags are the model's, the tokens are its words.
Status validate_model(const State& s) {
  const ModelSpec& ms = s.model;
  const TrainedModel* m = ms.model.get();
  if (m == nullptr && model_left_out(ms.name)) return Status::refusal(Msg::model_left_out, "model.name", {"\"" + ms.name + "\""});
  if (m == nullptr || m->name != ms.name) {
    std::string names;
    for (const std::string& n : model_names()) names += (names.empty() ? "" : ", ") + n;
    return Status::refusal(Msg::model_unknown, "model.name", {"\"" + ms.name + "\"", names});
  }
  if (ms.checkpoint < 0 || ms.checkpoint >= static_cast<int>(m->checkpoints.size())) {
    return Status::refusal(Msg::model_step_unknown, "model.step", {m->name, std::to_string(ms.checkpoint), "?"});
  }
  const struct {
    bool ok;
    const char* field;
    std::string value;
  } fixed[] = {
      {s.d_model == m->d_model, "d_model", std::to_string(m->d_model)},
      {s.d_out == m->d_model, "d_out", std::to_string(m->d_model)},
      {s.num_heads == m->num_heads, "num_heads", std::to_string(m->num_heads)},
      {s.num_kv_heads == 0 || s.num_kv_heads == m->num_heads, "num_kv_heads", std::to_string(m->num_heads)},
      {!s.qkv_bias, "qkv_bias", "false"},
      {s.out_proj, "out_proj", "true"},
      {s.out_bias, "out_bias", "true"},
      {s.positional == Positional::none, "positional", "none"},
  };
  for (const auto& f : fixed) {
    if (!f.ok) return Status::refusal(Msg::model_fixed_field, f.field, {f.field, m->name, f.value});
  }
  if (s.embedding.init != EmbeddingInit::torch_randn) return Status::refusal(Msg::model_sets_it, "embedding", {"embedding", m->name});
  if (s.weights.init == WeightInit::values) return Status::refusal(Msg::model_sets_it, "weights", {"weights", m->name});
  if (s.seq_len() > m->context) {
    return Status::refusal(Msg::model_too_long, "tokens",
                           {m->name, std::to_string(m->context), std::to_string(s.seq_len())});
  }
  for (size_t i = 0; i < s.tokens.size(); ++i) {
    if (m->token_id(s.tokens[i]) >= 0) continue;
    std::string some;
    for (size_t v = 0; v < m->vocabulary.size() && v < 8; ++v) some += m->vocabulary[v] + " ";
    some += "… " + m->vocabulary.back();
    const std::string field = "tokens[" + std::to_string(i) + "]";
    return Status::refusal(Msg::model_token_unknown, field, {field, "\"" + s.tokens[i] + "\"", m->name, some});
  }
  return Status::success();
}

}  // namespace

namespace {

// An explicit input and weights (the state's own, or a captured layer's: prefix
// "layers[2]."), against the state's sizes and flags.
Status validate_inputs(const State& s, const EmbeddingSpec& e, const WeightSpec& w, const std::string& prefix) {
  Status st;
  if (e.init == EmbeddingInit::values) {
    st = check_matrix(e.values, s.seq_len(), s.d_model, prefix + "embedding.values", "tokens", "d_model");
    if (!st.ok) return st;
  }
  if (w.init != WeightInit::values) return Status::success();
  const struct {
    const SharedTensor* t;
    int rows, cols;
    const char* name;
    const char* rm;
    const char* cm;
    bool needed;
  } checks[] = {
      {&w.W_q, s.d_model, s.d_out, "weights.W_q", "d_model", "d_out", true},
      {&w.W_k, s.d_model, s.kv_dim(), "weights.W_k", "d_model", detail::kv_width_name(s), true},
      {&w.W_v, s.d_model, s.kv_dim(), "weights.W_v", "d_model", detail::kv_width_name(s), true},
      {&w.W_o, s.d_out, s.d_out, "weights.W_o", "d_out", "d_out", s.out_proj},
      {&w.b_q, 1, s.d_out, "weights.b_q", "1", "d_out", s.qkv_bias},
      {&w.b_k, 1, s.kv_dim(), "weights.b_k", "1", detail::kv_width_name(s), s.qkv_bias},
      {&w.b_v, 1, s.kv_dim(), "weights.b_v", "1", detail::kv_width_name(s), s.qkv_bias},
      {&w.b_o, 1, s.d_out, "weights.b_o", "1", "d_out", s.out_proj && s.out_bias},
  };
  for (const auto& c : checks) {
    if (!c.needed) continue;
    st = check_matrix(*c.t, c.rows, c.cols, prefix + c.name, c.rm, c.cm);
    if (!st.ok) return st;
  }
  return Status::success();
}

// Captured layers: never with a model; each a name of valid UTF-8 within the limit,
// its explicit input and weights of the state's sizes (so S rows in every layer).
Status validate_layers(const State& s) {
  if (s.model.active()) return Status::refusal(Msg::layers_with_model, "layers");
  for (size_t l = 0; l < s.layers.size(); ++l) {
    const CapturedLayer& c = s.layers[l];
    const std::string prefix = "layers[" + std::to_string(l) + "].";
    if (c.name.size() > Limits::kMaxLayerNameBytes) {
      return Status::refusal(Msg::layer_name_too_long, prefix + "name",
                             {prefix + "name", std::to_string(c.name.size()), std::to_string(Limits::kMaxLayerNameBytes)});
    }
    if (!valid_utf8(c.name)) return Status::refusal(Msg::token_not_utf8, prefix + "name", {prefix + "name"});
    if (c.embedding.init != EmbeddingInit::values) {
      return Status::refusal(Msg::layer_part_missing, prefix + "embedding.values", {prefix + "embedding.values"});
    }
    if (c.weights.init != WeightInit::values) {
      return Status::refusal(Msg::layer_part_missing, prefix + "weights", {prefix + "weights"});
    }
    const Status st = validate_inputs(s, c.embedding, c.weights, prefix);
    if (!st.ok) return st;
  }
  return Status::success();
}

}  // namespace

Status validate_state(const State& s) {
  Status st = detail::validate_sizes(s);
  if (!st.ok) return st;
  const int S = s.seq_len();
  st = s.captured() ? validate_layers(s) : validate_inputs(s, s.embedding, s.weights, "");
  if (!st.ok) return st;
  if (!(s.temperature >= Limits::kMinTemperature && s.temperature <= Limits::kMaxTemperature)) {
    return Status::refusal(Msg::temperature_range, "temperature", {number_text(s.temperature)});
  }
  if (!(s.key_padding.empty() || s.key_padding.size() == s.tokens.size())) {
    return Status::refusal(Msg::key_padding_count, "key_padding",
                           {std::to_string(s.key_padding.size()), std::to_string(S)});
  }
  for (size_t i = 0; i < s.key_padding.size(); ++i) {
    if (s.key_padding[i] > 1) {
      const std::string field = "key_padding[" + std::to_string(i) + "]";
      return Status::refusal(Msg::key_padding_value, field, {field});
    }
  }
  const bool fill_neg_inf = std::isinf(s.mask_fill) && s.mask_fill < 0;
  if (!fill_neg_inf && !(std::isfinite(s.mask_fill) && std::isfinite(static_cast<float>(s.mask_fill)))) {
    return Status::refusal(Msg::mask_fill_range, "mask_fill", {number_text(s.mask_fill)});
  }
  if (!(s.dropout.p >= 0.0 && s.dropout.p <= 1.0)) {
    return Status::refusal(Msg::dropout_p_range, "dropout.p", {number_text(s.dropout.p)});
  }
  if (s.model.active()) {
    st = validate_model(s);
    if (!st.ok) return st;
  }
  st = validate_variants(s);
  if (!st.ok) return st;
  return validate_sinks_and_cache(s);
}

namespace {

// The embedding as state_to_json writes it: values, or randn and its seed.
bool same_embedding(const State& a, const State& b) {
  if (a.embedding.init != b.embedding.init) return false;
  if (a.embedding.init == EmbeddingInit::values) return tensors_bitwise_equal(a.embedding.values, b.embedding.values);
  return a.embedding.seed == b.embedding.seed;
}

// The weights as state_to_json writes them (a and b agree on the flags).
bool same_weights(const State& a, const State& b) {
  const WeightSpec& x = a.weights;
  const WeightSpec& y = b.weights;
  if (x.init != y.init) return false;
  if (x.init != WeightInit::values) return x.seed == y.seed && x.layout == y.layout;
  return detail::same_explicit_weights(a, b);
}

// The captured layers as state_to_json writes them: names, inputs, weights (a and b
// agree on the flags). Without layers, the state's own embedding and weights.
bool same_inputs(const State& a, const State& b) {
  if (a.layers.size() != b.layers.size()) return false;
  if (!a.captured()) return same_embedding(a, b) && same_weights(a, b);
  for (size_t l = 0; l < a.layers.size(); ++l) {
    const CapturedLayer& x = a.layers[l];
    const CapturedLayer& y = b.layers[l];
    if (x.name != y.name || x.embedding.init != y.embedding.init || x.weights.init != y.weights.init) return false;
    if (!tensors_bitwise_equal(x.embedding.values, y.embedding.values)) return false;
    if (!detail::same_weight_values(a, x.weights, y.weights)) return false;
  }
  return true;
}

// rope is written when RoPE is on or either field differs from its default.
bool rope_written(const State& s) {
  return s.positional == Positional::rope || s.rope.base != RopeSpec{}.base || s.rope.style != RopeSpec{}.style;
}

// sinks and kv_cache as state_to_json writes them (state_json.h: only when not the
// defaults); the logits bit for bit, as JSON tells −0 from 0.
bool same_sinks(const SinkSpec& a, const SinkSpec& b) {
  return a.enabled == b.enabled && a.values.size() == b.values.size() &&
         (a.values.empty() || std::memcmp(a.values.data(), b.values.data(), sizeof(float) * a.values.size()) == 0);
}

bool same_kv_cache(const KvCacheSpec& a, const KvCacheSpec& b) {
  return a.policy == b.policy && a.sink_tokens == b.sink_tokens && a.recent == b.recent;
}

}  // namespace

bool operator==(const State& a, const State& b) {
  // The cheap fields first: a toggle is told apart before any matrix is read.
  const bool same_fields =
      a.version == b.version && a.d_model == b.d_model && a.d_out == b.d_out && a.num_heads == b.num_heads &&
      a.positional == b.positional && a.qkv_bias == b.qkv_bias && a.out_proj == b.out_proj &&
      a.out_bias == b.out_bias && a.scale == b.scale && a.temperature == b.temperature && a.causal == b.causal &&
      a.key_padding == b.key_padding && a.mask_fill == b.mask_fill && a.safe_softmax == b.safe_softmax &&
      rope_written(a) == rope_written(b) && (!rope_written(a) || (a.rope.base == b.rope.base && a.rope.style == b.rope.style)) &&
      a.num_kv_heads == b.num_kv_heads && a.alibi == b.alibi && a.window == b.window &&
      same_sinks(a.sinks, b.sinks) && same_kv_cache(a.kv_cache, b.kv_cache) &&
      a.dropout.p == b.dropout.p && a.dropout.training == b.dropout.training && a.dropout.seed == b.dropout.seed &&
      a.tokens == b.tokens && a.model.name == b.model.name && a.model.checkpoint == b.model.checkpoint;
  return same_fields && same_inputs(a, b);
}

bool detail::same_explicit_weights(const State& a, const State& b) {
  return same_weight_values(a, a.weights, b.weights);
}

bool detail::same_weight_values(const State& a, const WeightSpec& x, const WeightSpec& y) {
  const bool op = a.out_proj, qb = a.qkv_bias, ob = a.out_proj && a.out_bias;
  return tensors_bitwise_equal(x.W_q, y.W_q) && tensors_bitwise_equal(x.W_k, y.W_k) &&
         tensors_bitwise_equal(x.W_v, y.W_v) && (!op || tensors_bitwise_equal(x.W_o, y.W_o)) &&
         (!qb || (tensors_bitwise_equal(x.b_q, y.b_q) && tensors_bitwise_equal(x.b_k, y.b_k) &&
                  tensors_bitwise_equal(x.b_v, y.b_v))) &&
         (!ob || tensors_bitwise_equal(x.b_o, y.b_o));
}

}  // namespace attnviz
