// Pipeline::explain: the ingredients of one cell, recomputed with the same
// kernels the pipeline used (so every number shown equals the stored one).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "attnviz/kernels.h"
#include "attnviz/messages.h"
#include "attnviz/variants.h"
#include "pipeline/pipeline_internal.h"

namespace attnviz {

const char* mask_reason_name(MaskReason r) {
  switch (r) {
    case MaskReason::none: return "none";
    case MaskReason::causal: return "causal";
    case MaskReason::padding: return "padding";
    case MaskReason::causal_and_padding: return "causal and padding";
    case MaskReason::window: return "window";
    case MaskReason::window_and_padding: return "window and padding";
    case MaskReason::evicted: return "evicted";
    case MaskReason::evicted_and_padding: return "evicted and padding";
  }
  return "none";
}

namespace {

std::string str(int v) { return std::to_string(v); }

// Six significant digits; a zero is "0", never "-0" (the sign of a zero means
// nothing to a learner).
std::string num(float f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", f == 0.0f ? 0.0 : static_cast<double>(f));
  return buf;
}

// e's formula: the table's line f (formulas.cpp) and its values, and the English text.
void set_formula(Explanation* e, Formula f, std::vector<std::string> args) {
  e->formula_id = f;
  e->formula_args = std::move(args);
  e->formula = msg_format(formula_template(f), e->formula_args);
}

// Dot product of a (K, stride inca) and b (K, stride incb) into e.
void fill_dot(Explanation* e, const float* a, int inca, const float* b, int incb, int k) {
  e->lhs.resize(static_cast<size_t>(k));
  e->rhs.resize(static_cast<size_t>(k));
  e->terms.resize(static_cast<size_t>(k));
  for (int t = 0; t < k; ++t) {
    e->lhs[t] = a[static_cast<size_t>(t) * inca];
    e->rhs[t] = b[static_cast<size_t>(t) * incb];
  }
  e->sum = kernels::dot_cell(a, inca, b, incb, k, e->terms.data());
}

// q_rot / k_rot cell (i, j): the pair, the angle and the two inputs.
void explain_rotation(const detail::Plan& p, const float* x, int i, int j, Explanation* e) {
  const int hd = p.head_dim;
  e->rope_partner = rope_partner(p.rope_style, hd, j);
  e->rope_k = rope_freq_index(p.rope_style, hd, j);
  const RopeTable& t = *p.rope_tab;
  const size_t at = static_cast<size_t>(i) * static_cast<size_t>(t.half) + static_cast<size_t>(e->rope_k);
  e->inv_freq = t.inv_freq[static_cast<size_t>(e->rope_k)];
  e->angle = rope_angle(i, e->inv_freq);
  e->cos = t.cos[at];
  e->sin = t.sin[at];
  e->x_self = x[j];
  e->x_partner = x[e->rope_partner];
  e->input = x[j];
}

// The rotation's formula: the pair's first column is x·cos − partner·sin, the second
// x·cos + partner·sin. A k_rot cell names the K/V head when heads share them.
void rotation_formula(Explanation* e, bool shared_kv) {
  const bool q = e->stage == Stage::q_rot;
  std::vector<std::string> a = {stage_name(e->stage), str(e->i), str(e->j), q ? "Q" : "K",
                                e->j < e->rope_partner ? "−" : "+", str(e->rope_partner), str(e->rope_k),
                                str(e->head)};
  if (!q && shared_kv) a.push_back(str(e->kv_head));
  set_formula(e, !q && shared_kv ? Formula::rotation_kv : Formula::rotation, std::move(a));
}

Formula scaled_formula(ScaleMode mode, double temperature) {
  const bool t = temperature != 1.0;
  switch (mode) {
    case ScaleMode::head_dim: return t ? Formula::scaled_head_dim_temperature : Formula::scaled_head_dim;
    case ScaleMode::d_out: return t ? Formula::scaled_d_out_temperature : Formula::scaled_d_out;
    case ScaleMode::none: break;
  }
  return t ? Formula::scaled_temperature : Formula::scaled_none;
}

Formula masked_formula(const Explanation& e) {
  if (!e.masked) return e.alibi ? Formula::masked_not_alibi : Formula::masked_not;
  switch (e.reason) {
    case MaskReason::causal: return Formula::masked_causal;
    case MaskReason::padding: return Formula::masked_padding;
    case MaskReason::causal_and_padding: return Formula::masked_causal_and_padding;
    case MaskReason::window: return Formula::masked_window;
    case MaskReason::window_and_padding: return Formula::masked_window_and_padding;
    case MaskReason::evicted: return Formula::masked_evicted;
    case MaskReason::evicted_and_padding: return Formula::masked_evicted_and_padding;
    case MaskReason::none: break;
  }
  return Formula::masked_fill;
}

}  // namespace

// The parts of Pipeline::explain, one a kind of stage. Each fills the ingredients
// and the formula of e (stage, head, i, j and value already set).
struct Pipeline::Explainer {
  const Pipeline& pipe;
  const detail::Plan& p;
  const detail::Buffers& b;
  Explanation& e;
  size_t q_off, kv_off;  // Q_h's columns, K_g's and V_g's columns

  bool shared_kv() const { return p.G != p.H; }
  // Row e.i of one of the head's stages: the stored one, or in long mode (no (S × S)
  // buffer) computed on demand (Pipeline::row, the same bits).
  std::vector<float> rowbuf;
  const float* stage_row(Stage st) {
    if (const Tensor* t = pipe.matrix(st, e.head)) return t->row(e.i);
    pipe.row(st, e.head, e.i, &rowbuf);
    return rowbuf.data();
  }

  void input_or_parameter() {
    const int i = e.i, j = e.j;
    if (e.stage == Stage::X) {
      const State& s = pipe.impl_->state;
      set_formula(&e, s.positional == Positional::sinusoidal ? Formula::x_embedding_sin : Formula::x_embedding,
                  {str(i), str(j), s.tokens[static_cast<size_t>(i)]});
      return;
    }
    set_formula(&e, Formula::parameter, {stage_name(e.stage), str(i), str(j)});
  }

  void projection() {
    const detail::Params& w = b.params;
    const Stage st = e.stage;
    const Tensor& W = st == Stage::Q ? w.W_q : (st == Stage::K ? w.W_k : w.W_v);
    const Tensor& bias = st == Stage::Q ? w.b_q : (st == Stage::K ? w.b_k : w.b_v);
    fill_dot(&e, b.X.row(e.i), 1, W.data.data() + e.j, W.cols, p.d_model);
    e.has_bias = !bias.empty();
    if (e.has_bias) e.bias = bias.at(0, e.j);
    const char* wn = st == Stage::Q ? "W_q" : (st == Stage::K ? "W_k" : "W_v");
    const char* bn = st == Stage::Q ? "b_q" : (st == Stage::K ? "b_k" : "b_v");
    std::vector<std::string> a = {stage_name(st), str(e.i), str(e.j), wn};
    if (e.has_bias) a.push_back(bn);
    set_formula(&e, e.has_bias ? Formula::projection_bias : Formula::projection, std::move(a));
  }

  void rotation() {
    const bool q = e.stage == Stage::q_rot;
    explain_rotation(p, q ? b.Q.row(e.i) + q_off : b.K.row(e.i) + kv_off, e.i, e.j, &e);
    rotation_formula(&e, shared_kv());
  }

  void scores() {
    const bool rot = p.rope;
    const int head = e.head;
    fill_dot(&e, rot ? b.heads[head].q_rot.row(e.i) : b.Q.row(e.i) + q_off, 1,
             rot ? b.heads[head].k_rot.row(e.j) : b.K.row(e.j) + kv_off, 1, p.head_dim);
    std::vector<std::string> a = {str(e.i), str(e.j), rot ? "q_rot_" : "q_", rot ? "k_rot_" : "k_", str(head)};
    if (shared_kv()) a.push_back(str(e.kv_head));
    set_formula(&e, shared_kv() ? Formula::scores_kv : Formula::scores, std::move(a));
  }

  void scaled() {
    e.input = stage_row(Stage::scores)[e.j];
    e.divisor = p.divisor;
    e.divisor_base = p.divisor_base;
    e.temperature = p.temperature;
    e.scale_mode = pipe.impl_->state.scale;
    e.scale_dim = e.scale_mode == ScaleMode::head_dim ? p.head_dim : (e.scale_mode == ScaleMode::d_out ? p.d_out : 0);
    set_formula(&e, scaled_formula(e.scale_mode, e.temperature), {str(e.i), str(e.j)});
  }

  void masked() {
    e.input = stage_row(Stage::scaled)[e.j];
    e.masked = pipe.cell_masked(e.i, e.j, &e.reason);
    e.fill = p.fill;
    std::vector<std::string> a = {str(e.i), str(e.j)};
    if (e.masked) a.push_back(num(p.fill));
    set_formula(&e, masked_formula(e), std::move(a));
  }

  // With gpt-oss's sink the row is torch's [masked row i, s_h] (S + 1 entries):
  // its max, its exps and their sum are that row's, the sink's exp in column S.
  void softmax() {
    const float* row = stage_row(Stage::masked);
    const int S = p.S;
    const kernels::Sink* sink = p.sink(e.head);
    e.input = row[e.j];
    bool all_neg_inf = true;
    for (int s = 0; s < S; ++s) all_neg_inf = all_neg_inf && std::isinf(row[s]) && row[s] < 0;
    std::vector<float> ex(static_cast<size_t>(S) + 1);  // (S, + 1 with a sink) exp(entry − max)
    std::copy(row, row + S, ex.begin());
    if (sink != nullptr) ex[static_cast<size_t>(S)] = sink->logit;
    const int n = sink != nullptr ? S + 1 : S;
    e.row_max = kernels::max_f32_torch(ex.data(), n);
    for (int s = 0; s < n; ++s) ex[s] = kernels::exp_f32(ex[s] - e.row_max);
    e.exp_term = ex[e.j];
    e.normaliser = kernels::sum_f32_torch(ex.data(), n);
    if (sink != nullptr) {
      e.sink = true;
      e.sink_logit = sink->logit;
      e.sink_exp = ex[static_cast<size_t>(S)];
      e.sink_share = e.sink_exp * (1.0f / e.normaliser);
      set_formula(&e, Formula::weights_softmax_sink, {str(e.i), str(e.j), str(e.head)});
      return;
    }
    e.safe_zeroed = p.safe_softmax && all_neg_inf;
    set_formula(&e, e.safe_zeroed ? Formula::weights_safe_zero : Formula::weights_softmax, {str(e.i), str(e.j)});
  }

  void dropout() {
    e.input = stage_row(Stage::weights)[e.j];
    e.dropout_active = p.dropout_active;
    e.scale = p.dropout_scale;
    Formula f = Formula::dropped_off;
    if (p.dropout_active) {
      const uint8_t* keep = pipe.dropout_keep(e.head);
      e.kept = keep[static_cast<size_t>(e.i) * p.S + e.j] != 0;
      f = e.kept ? Formula::dropped_kept : Formula::dropped_zeroed;
    }
    set_formula(&e, f, {str(e.i), str(e.j)});
  }

  void context() {
    fill_dot(&e, stage_row(Stage::dropped), 1, b.V.data.data() + kv_off + e.j, p.kv_dim, p.S);
    std::vector<std::string> a = {str(e.i), str(e.j), str(e.head)};
    if (shared_kv()) a.push_back(str(e.kv_head));
    set_formula(&e, shared_kv() ? Formula::context_kv : Formula::context, std::move(a));
  }

  void output() {
    if (!p.out_proj) {
      set_formula(&e, Formula::output_identity, {str(e.i), str(e.j)});
      return;
    }
    fill_dot(&e, b.concat.row(e.i), 1, b.params.W_o->data.data() + e.j, p.d_out, p.d_out);
    e.has_bias = !b.params.b_o.empty();
    if (e.has_bias) e.bias = b.params.b_o.at(0, e.j);
    set_formula(&e, e.has_bias ? Formula::output_bias : Formula::output, {str(e.i), str(e.j)});
  }
};

Explanation Pipeline::explain(Stage stage, int head, int i, int j) const {
  Explanation e;
  e.stage = stage;
  e.head = head;
  e.i = i;
  e.j = j;
  const Tensor* t = matrix(stage, head);
  std::vector<float> cells;  // long mode: row i of an (S × S) stage, computed (Pipeline::row)
  if (t == nullptr && long_mode() && detail::square_stage(stage) && j >= 0 && j < impl_->plan.S &&
      row(stage, head, i, &cells)) {
    e.ok = true;
    e.value = cells[static_cast<size_t>(j)];
  } else if (t == nullptr || i < 0 || j < 0 || i >= t->rows || j >= t->cols) {
    return e;
  } else {
    e.ok = true;
    e.value = t->at(i, j);
  }
  const detail::Plan& p = impl_->plan;
  const int hd = p.head_dim;
  const bool per_head = stage_is_per_head(stage);
  e.kv_head = per_head ? p.kv_head(head) : 0;
  e.window = p.window;
  e.cache_sinks = p.cache_sinks;
  e.cache_recent = p.cache_recent;
  if (per_head && !p.slopes.empty()) {
    e.alibi = true;
    e.slope = p.slopes[static_cast<size_t>(head)];
    e.distance = i > j ? i - j : j - i;
    e.alibi_bias = kernels::alibi_bias(e.slope, i, j);
  }
  Explainer x{*this, p, impl_->buf, e, per_head ? static_cast<size_t>(head) * hd : 0,
              static_cast<size_t>(e.kv_head) * hd, {}};
  switch (stage) {
    case Stage::X:
    case Stage::W_q: case Stage::W_k: case Stage::W_v: case Stage::W_o:
    case Stage::b_q: case Stage::b_k: case Stage::b_v: case Stage::b_o: x.input_or_parameter(); break;
    case Stage::Q: case Stage::K: case Stage::V: x.projection(); break;
    case Stage::q_rot: case Stage::k_rot: x.rotation(); break;
    case Stage::scores: x.scores(); break;
    case Stage::bias:
      set_formula(&e, Formula::alibi_bias, {str(i), str(j), str(head), num(e.slope), str(e.distance)});
      break;
    case Stage::scaled: x.scaled(); break;
    case Stage::masked: x.masked(); break;
    case Stage::weights: x.softmax(); break;
    case Stage::dropped: x.dropout(); break;
    case Stage::context: x.context(); break;
    case Stage::concat:
      set_formula(&e, Formula::concat, {str(i), str(j), str(j / hd), str(j % hd)});
      break;
    case Stage::output: x.output(); break;
  }
  return e;
}

}  // namespace attnviz
