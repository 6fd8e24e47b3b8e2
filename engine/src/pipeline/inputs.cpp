// The pipeline's inputs: the Plan derived from a State, X, the parameters,
// the dropout mask, and buffer allocation.
//
// [SECTION] plan
// [SECTION] X: embedding + positions
// [SECTION] parameters
// [SECTION] buffers
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>

#include "attnviz/torch_rng.h"
#include "pipeline/pipeline_internal.h"
#include "state/state_internal.h"

namespace attnviz {
namespace detail {

// ---- [SECTION] plan ----------------------------------------------------------

namespace {

// RoPE, ALiBi, the window and GQA's widths.
void plan_variants(const State& s, const Plan* prev, Plan* p) {
  p->G = s.kv_heads();
  p->kv_dim = s.kv_dim();
  p->rope = s.positional == Positional::rope;
  p->rope_style = s.rope.style;
  p->rope_base = s.rope.base;
  if (p->rope) {
    const bool reuse = prev != nullptr && prev->rope_tab && prev->rope_base == p->rope_base &&
                       prev->rope_tab->S == p->S && prev->rope_tab->half == p->head_dim / 2;
    if (reuse) {
      p->rope_tab = prev->rope_tab;
    } else {
      auto t = std::make_shared<RopeTable>();
      rope_table(p->rope_base, p->head_dim, p->S, t.get());
      p->rope_tab = std::move(t);
    }
  }
  p->window = s.window;
  if (s.alibi) p->slopes = alibi_slopes(p->H);
  if (s.sinks.enabled) {
    p->sinks.resize(static_cast<size_t>(p->H));
    for (int h = 0; h < p->H; ++h) p->sinks[static_cast<size_t>(h)] = kernels::Sink{s.sinks.logit(h), p->S};
  }
  if (s.kv_cache.streaming()) {
    p->cache_sinks = s.kv_cache.sink_tokens;
    p->cache_recent = s.kv_cache.recent;
  }
}

}  // namespace

Plan make_plan(const State& s, const Plan* prev) {
  Plan p;
  p.S = s.seq_len();
  p.d_model = s.d_model;
  p.d_out = s.d_out;
  p.H = s.num_heads;
  p.head_dim = s.head_dim();
  p.qkv_bias = s.qkv_bias;
  p.out_proj = s.out_proj;
  p.out_bias = s.out_proj && s.out_bias;
  switch (s.scale) {
    case ScaleMode::head_dim: p.divisor_base = std::sqrt(static_cast<double>(p.head_dim)); break;
    case ScaleMode::d_out: p.divisor_base = std::sqrt(static_cast<double>(p.d_out)); break;
    case ScaleMode::none: p.divisor_base = 1.0; break;
  }
  p.temperature = s.temperature;
  // `scores / (math.sqrt(d) * T)`: the product in double, then PyTorch rounds
  // the Python float to float32 for the float32 division.
  p.divisor = static_cast<float>(p.divisor_base * p.temperature);
  p.causal = s.causal;
  p.key_padded.clear();
  bool any_padded = false;
  for (uint8_t v : s.key_padding) any_padded = any_padded || v == 0;
  if (any_padded) {
    p.key_padded.resize(s.key_padding.size());
    for (size_t j = 0; j < s.key_padding.size(); ++j) p.key_padded[j] = s.key_padding[j] == 0 ? 1 : 0;
  }
  p.fill = static_cast<float>(s.mask_fill);
  p.safe_softmax = s.safe_softmax;
  p.dropout_active = s.dropout.training && s.dropout.p > 0.0;
  p.p = p.dropout_active ? s.dropout.p : 0.0;
  p.dropout_seed = p.dropout_active ? s.dropout.seed : 0;
  p.dropout_scale = !p.dropout_active ? 1.0f : (p.p >= 1.0 ? 0.0f : attnviz::dropout_scale(p.p));
  const uint64_t S64 = static_cast<uint64_t>(p.S);
  p.keep_exps = !p.long_mode() && S64 * S64 * static_cast<uint64_t>(p.H) * sizeof(float) <= kKeepExpsMaxBytes;
  plan_variants(s, prev, &p);
  return p;
}

bool same_shapes_but_s(const Plan& a, const Plan& b) {
  // RoPE and ALiBi on or off: other buffers (q_rot, k_rot; bias), rebuilt whole.
  return a.d_model == b.d_model && a.d_out == b.d_out && a.H == b.H && a.G == b.G && a.rope == b.rope &&
         a.slopes.empty() == b.slopes.empty() &&
         a.qkv_bias == b.qkv_bias && a.out_proj == b.out_proj && a.out_bias == b.out_bias;
}

bool same_shapes(const Plan& a, const Plan& b) { return a.S == b.S && same_shapes_but_s(a, b); }

bool same_mask(const Plan& a, const Plan& b) {
  uint32_t fa, fb;
  std::memcpy(&fa, &a.fill, sizeof fa);
  std::memcpy(&fb, &b.fill, sizeof fb);
  return a.causal == b.causal && a.key_padded == b.key_padded && fa == fb && a.window == b.window &&
         a.slopes == b.slopes && a.cache_sinks == b.cache_sinks && a.cache_recent == b.cache_recent;
}

bool same_dropout(const Plan& a, const Plan& b) {
  return a.dropout_active == b.dropout_active && a.p == b.p && a.dropout_seed == b.dropout_seed;
}

void build_keep_mask(const Plan& plan, std::vector<uint8_t>* keep) {
  keep->clear();
  if (!plan.dropout_active) return;
  const size_t n = static_cast<size_t>(plan.H) * plan.S * plan.S;  // [H, S, S] row-major
  keep->resize(n);
  TorchGenerator g(plan.dropout_seed);
  g.dropout_keep(keep->data(), n, plan.p);
}

// ---- [SECTION] X: embedding + positions ------------------------------------------

void build_x(const State& s, Tensor* x, EmbeddingCache* cache) {
  const int S = s.seq_len(), dm = s.d_model;
  if (s.embedding.init == EmbeddingInit::values) {
    x->rows = S;
    x->cols = dm;
    x->data = s.embedding.values->data;  // (S × d_model), validate_state checked
  } else {
    x->reset_for_overwrite(S, dm);  // every row is copied from the table below
    // nn.Embedding(vocab, d_model) after torch.manual_seed(seed); vocab is the
    // distinct tokens in order of first appearance.
    std::unordered_map<std::string, int> index;
    std::vector<int> ids(S);
    for (int i = 0; i < S; ++i) {
      auto it = index.emplace(s.tokens[i], static_cast<int>(index.size())).first;
      ids[i] = it->second;
    }
    const int vocab = static_cast<int>(index.size());
    const size_t n = static_cast<size_t>(vocab) * dm;
    std::vector<float> local;  // (vocab × d_model) when there is no cache
    const float* table = nullptr;
    if (cache != nullptr && dm % 16 == 0) {
      if (cache->seed != s.embedding.seed || cache->d_model != dm) {  // another table: start it again
        cache->table.clear();
        cache->after = TorchGenerator(s.embedding.seed);
        cache->seed = s.embedding.seed;
        cache->d_model = dm;
      }
      const size_t have = cache->table.size();  // a multiple of 16, like n
      if (n > have) {
        cache->table.resize(n);  // the rows after `have`: what the generator draws next
        cache->after.normal(cache->table.data() + have, n - have);
      }
      table = cache->table.data();
    } else {
      local.resize(n);
      TorchGenerator g(s.embedding.seed);
      g.normal(local.data(), n);
      table = local.data();
    }
    for (int i = 0; i < S; ++i) {
      std::memcpy(x->row(i), table + static_cast<size_t>(ids[i]) * dm, sizeof(float) * dm);
    }
  }
  if (s.positional == Positional::sinusoidal) {
    // PE[pos, 2i] = sin(pos / 10000^(2i/d_model)), PE[pos, 2i+1] = cos(same angle),
    // in double, rounded to float32, then one float32 addition (as the fixtures do).
    for (int pos = 0; pos < S; ++pos) {
      float* row = x->row(pos);
      for (int c = 0; c < dm; ++c) {
        const int even = c - (c % 2);
        const double angle = pos / std::pow(10000.0, static_cast<double>(even) / dm);
        const double pe = (c % 2 == 0) ? std::sin(angle) : std::cos(angle);
        row[c] = row[c] + static_cast<float>(pe);
      }
    }
  }
}

bool same_x_inputs(const State& a, const State& b) {
  // RoPE rotates Q and K, not X: for X it is no positions at all.
  const bool sin_a = a.positional == Positional::sinusoidal, sin_b = b.positional == Positional::sinusoidal;
  if (a.tokens != b.tokens || a.d_model != b.d_model || sin_a != sin_b ||
      a.embedding.init != b.embedding.init) {
    return false;
  }
  if (a.embedding.init == EmbeddingInit::values) {
    return tensors_bitwise_equal(a.embedding.values, b.embedding.values);
  }
  return a.embedding.seed == b.embedding.seed;
}

// ---- [SECTION] parameters --------------------------------------------------------

namespace {

// Draws one nn.Linear(in, out, bias) and stores its weight transposed into
// columns [col0, col0 + out) of W (in × ld) and its bias into b[col0 ...].
// W and b were just reset (not shared): mut() gives them without a copy.
void linear_into(TorchGenerator& g, int in, int out, bool bias, SharedTensor* Ws, SharedTensor* bs, int col0) {
  std::vector<float> weight(static_cast<size_t>(out) * in);  // (out × in), nn.Linear layout
  std::vector<float> bvec(bias ? out : 0);                    // (out)
  g.linear_init(weight.data(), bias ? bvec.data() : nullptr, in, out);
  Tensor& W = Ws->mut();
  for (int o = 0; o < out; ++o) {
    for (int k = 0; k < in; ++k) W.at(k, col0 + o) = weight[static_cast<size_t>(o) * in + k];
  }
  if (!bias) return;
  Tensor& b = bs->mut();
  for (int o = 0; o < out; ++o) b.at(0, col0 + o) = bvec[o];
}

}  // namespace

void build_params(const State& s, Params* p) {
  const int dm = s.d_model, dout = s.d_out, H = s.num_heads, hd = s.head_dim(), kv = s.kv_dim();
  const bool qb = s.qkv_bias, op = s.out_proj, ob = s.out_proj && s.out_bias;
  *p = Params{};
  const WeightSpec& w = s.weights;
  if (w.init == WeightInit::values) {  // shared as they are
    p->W_q = w.W_q;
    p->W_k = w.W_k;
    p->W_v = w.W_v;
    if (op) p->W_o = w.W_o;
    if (qb) {
      p->b_q = w.b_q;
      p->b_k = w.b_k;
      p->b_v = w.b_v;
    }
    if (ob) p->b_o = w.b_o;
    return;
  }
  p->W_q.reset(dm, dout);
  p->W_k.reset(dm, kv);  // GQA / MQA: nn.Linear(d_model, num_kv_heads · head_dim), torch.rand(d_model, kv)
  p->W_v.reset(dm, kv);
  if (op) p->W_o.reset(dout, dout);
  if (qb) {
    p->b_q.reset(1, dout);
    p->b_k.reset(1, kv);
    p->b_v.reset(1, kv);
  }
  if (ob) p->b_o.reset(1, dout);
  switch (w.init) {
    case WeightInit::values:
      break;  // handled above
    case WeightInit::torch_rand: {
      TorchGenerator g(w.seed);
      auto rand = [&g](SharedTensor& t) { g.rand(t.mut().data.data(), t->size()); };  // t: just reset, not shared
      rand(p->W_q);
      rand(p->W_k);
      rand(p->W_v);
      if (op) rand(p->W_o);
      if (qb) {
        rand(p->b_q);
        rand(p->b_k);
        rand(p->b_v);
      }
      if (ob) rand(p->b_o);
      break;
    }
    case WeightInit::torch_linear: {
      TorchGenerator g(w.seed);
      if (w.layout == WeightLayout::fused) {
        linear_into(g, dm, dout, qb, &p->W_q, &p->b_q, 0);
        linear_into(g, dm, kv, qb, &p->W_k, &p->b_k, 0);
        linear_into(g, dm, kv, qb, &p->W_v, &p->b_v, 0);
      } else {
        // MultiHeadAttentionWrapper: one CausalAttention(d_model, head_dim) per
        // head, each drawing its W_query, W_key, W_value in that order.
        for (int h = 0; h < H; ++h) {
          linear_into(g, dm, hd, qb, &p->W_q, &p->b_q, h * hd);
          linear_into(g, dm, hd, qb, &p->W_k, &p->b_k, h * hd);
          linear_into(g, dm, hd, qb, &p->W_v, &p->b_v, h * hd);
        }
      }
      if (op) linear_into(g, dout, dout, ob, &p->W_o, &p->b_o, 0);
      break;
    }
  }
}

bool same_param_inputs(const State& a, const State& b) {
  if (a.d_model != b.d_model || a.d_out != b.d_out || a.kv_dim() != b.kv_dim() || a.qkv_bias != b.qkv_bias ||
      a.out_proj != b.out_proj || (a.out_proj && a.out_bias) != (b.out_proj && b.out_bias) ||
      a.weights.init != b.weights.init) {
    return false;
  }
  const WeightSpec& x = a.weights;
  const WeightSpec& y = b.weights;
  switch (x.init) {
    case WeightInit::torch_rand:
      return x.seed == y.seed;
    case WeightInit::torch_linear:
      return x.seed == y.seed && x.layout == y.layout &&
             (x.layout == WeightLayout::fused || a.num_heads == b.num_heads);
    case WeightInit::values:
      return detail::same_explicit_weights(a, b);
  }
  return false;
}

// ---- [SECTION] buffers -------------------------------------------------------------

// Every buffer here is written whole by build_x and compute_everything before
// anything reads it, so none is zeroed first.
void allocate_buffers(const Plan& plan, Buffers* b) {
  const int S = plan.S;
  b->X.reset_for_overwrite(S, plan.d_model);
  b->Q.reset_for_overwrite(S, plan.d_out);
  b->K.reset_for_overwrite(S, plan.kv_dim);
  b->V.reset_for_overwrite(S, plan.kv_dim);
  b->alibi = !plan.slopes.empty();
  b->long_mode = plan.long_mode();
  b->heads.resize(static_cast<size_t>(plan.H));  // heads already there keep their buffers
  for (HeadBuffers& h : b->heads) {
    if (plan.rope) {
      h.q_rot.reset_for_overwrite(S, plan.head_dim);
      h.k_rot.reset_for_overwrite(S, plan.head_dim);
    } else {
      h.q_rot = h.k_rot = Tensor();
    }
    h.context.reset_for_overwrite(S, plan.head_dim);
    if (plan.long_mode()) {  // rows on demand (pipeline_long.cpp): no (S × S) buffer
      h.scores = h.weights = h.exps = Tensor();
      h.row_max.clear();
      continue;
    }
    h.scores.reset_for_overwrite(S, S);  // scaled, masked: materialised on request; dropped: by the pipeline under dropout
    h.weights.reset_for_overwrite(S, S);
    if (plan.keep_exps) {
      h.exps.reset_for_overwrite(S, S);
      h.row_max.assign(static_cast<size_t>(S), std::numeric_limits<float>::quiet_NaN());
    }
  }
  b->concat.reset_for_overwrite(S, plan.d_out);
  b->output.reset_for_overwrite(S, plan.d_out);
}

const Tensor* stage_tensor(const Buffers& b, Stage stage, int head) {
  if (stage_is_per_head(stage)) {
    if (head < 0 || head >= static_cast<int>(b.heads.size())) return nullptr;
    const HeadBuffers& h = b.heads[static_cast<size_t>(head)];
    if (b.long_mode && square_stage(stage)) return nullptr;  // rows on demand (Pipeline::row, map)
    switch (stage) {
      case Stage::q_rot: return h.q_rot.empty() ? nullptr : &h.q_rot;
      case Stage::k_rot: return h.k_rot.empty() ? nullptr : &h.k_rot;
      case Stage::scores: return &h.scores;
      case Stage::scaled: return &h.scaled;
      case Stage::bias: return b.alibi ? &h.bias : nullptr;
      case Stage::masked: return &h.masked;
      case Stage::weights: return &h.weights;
      case Stage::dropped: return &h.dropped;
      case Stage::context: return &h.context;
      default: return nullptr;
    }
  }
  if (head != 0) return nullptr;
  const Tensor* t = nullptr;
  switch (stage) {
    case Stage::X: t = &b.X; break;
    case Stage::W_q: t = &b.params.W_q.get(); break;
    case Stage::W_k: t = &b.params.W_k.get(); break;
    case Stage::W_v: t = &b.params.W_v.get(); break;
    case Stage::W_o: t = &b.params.W_o.get(); break;
    case Stage::b_q: t = &b.params.b_q.get(); break;
    case Stage::b_k: t = &b.params.b_k.get(); break;
    case Stage::b_v: t = &b.params.b_v.get(); break;
    case Stage::b_o: t = &b.params.b_o.get(); break;
    case Stage::Q: t = &b.Q; break;
    case Stage::K: t = &b.K; break;
    case Stage::V: t = &b.V; break;
    case Stage::concat: t = &b.concat; break;
    case Stage::output: t = &b.output; break;
    default: return nullptr;
  }
  return t->empty() ? nullptr : t;
}

}  // namespace detail
}  // namespace attnviz
