// Pipeline::explain: the ingredients of one cell, recomputed with the same
// kernels the pipeline used (so every number shown equals the stored one).
#include <cmath>
#include <cstdio>
#include <string>

#include "attnviz/kernels.h"
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
  }
  return "none";
}

namespace {

std::string cell(const char* name, int i, int j) {
  return std::string(name) + "[" + std::to_string(i) + "][" + std::to_string(j) + "]";
}

// Six significant digits; a zero is "0", never "-0" (the sign of a zero means
// nothing to a learner).
std::string num(float f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", f == 0.0f ? 0.0 : static_cast<double>(f));
  return buf;
}

// The divisor of the scaled stage, in words: "√head_dim", "√d_out × temperature", ...
std::string divisor_words(ScaleMode mode, double temperature) {
  const bool t = temperature != 1.0;
  switch (mode) {
    case ScaleMode::head_dim: return t ? "(√head_dim × temperature)" : "√head_dim";
    case ScaleMode::d_out: return t ? "(√d_out × temperature)" : "√d_out";
    case ScaleMode::none: return t ? "temperature" : "1";
  }
  return "1";
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

// "q_rot[i][j] = Q[i][j] · cos θ − Q[i][j'] · sin θ, θ = i · inv_freq[k] (head h" (the caller closes it).
std::string rotation_formula(Stage stage, int head, int i, int j, const Explanation& e) {
  const bool first = j < e.rope_partner;  // a: x·cos − partner·sin; b: x·cos + partner·sin
  const std::string src = stage == Stage::q_rot ? "Q" : "K";
  const std::string row = src + "[" + std::to_string(i) + "][";
  return cell(stage_name(stage), i, j) + " = " + row + std::to_string(j) + "] · cos θ " + (first ? "− " : "+ ") +
         row + std::to_string(e.rope_partner) + "] · sin θ, θ = " + std::to_string(i) + " · inv_freq[" +
         std::to_string(e.rope_k) + "] (head " + std::to_string(head);
}

}  // namespace

Explanation Pipeline::explain(Stage stage, int head, int i, int j) const {
  Explanation e;
  e.stage = stage;
  e.head = head;
  e.i = i;
  e.j = j;
  const Tensor* t = matrix(stage, head);
  if (t == nullptr || i < 0 || j < 0 || i >= t->rows || j >= t->cols) return e;
  e.ok = true;
  e.value = t->at(i, j);
  const detail::Plan& p = impl_->plan;
  const detail::Buffers& b = impl_->buf;
  const int hd = p.head_dim;
  const std::string h = std::to_string(head);
  const bool per_head = stage_is_per_head(stage);
  e.kv_head = per_head ? p.kv_head(head) : 0;
  const size_t q_off = per_head ? static_cast<size_t>(head) * hd : 0;       // Q_h's columns
  const size_t kv_off = static_cast<size_t>(e.kv_head) * hd;                // K_g's, V_g's columns
  e.window = p.window;
  if (per_head && !p.slopes.empty()) {
    e.alibi = true;
    e.slope = p.slopes[static_cast<size_t>(head)];
    e.distance = i > j ? i - j : j - i;
    e.alibi_bias = kernels::alibi_bias(e.slope, i, j);
  }
  const std::string kvh = p.G != p.H ? ", K/V head " + std::to_string(e.kv_head) : std::string();
  switch (stage) {
    case Stage::X:
      e.formula = cell("X", i, j) + " = embedding of \"" + impl_->state.tokens[i] + "\", column " +
                  std::to_string(j) +
                  (impl_->state.positional == Positional::sinusoidal ? " + sinusoidal position" : "");
      break;
    case Stage::W_q: case Stage::W_k: case Stage::W_v: case Stage::W_o:
    case Stage::b_q: case Stage::b_k: case Stage::b_v: case Stage::b_o:
      e.formula = cell(stage_name(stage), i, j) + " is a parameter (x·W orientation)";
      break;
    case Stage::Q: case Stage::K: case Stage::V: {
      const detail::Params& w = b.params;
      const Tensor& W = stage == Stage::Q ? w.W_q : (stage == Stage::K ? w.W_k : w.W_v);
      const Tensor& bias = stage == Stage::Q ? w.b_q : (stage == Stage::K ? w.b_k : w.b_v);
      fill_dot(&e, b.X.row(i), 1, W.data.data() + j, W.cols, p.d_model);
      e.has_bias = !bias.empty();
      if (e.has_bias) e.bias = bias.at(0, j);
      const char* wn = stage == Stage::Q ? "W_q" : (stage == Stage::K ? "W_k" : "W_v");
      const char* bn = stage == Stage::Q ? "b_q" : (stage == Stage::K ? "b_k" : "b_v");
      e.formula = cell(stage_name(stage), i, j) + " = Σ_d X[" + std::to_string(i) + "][d] · " + wn +
                  "[d][" + std::to_string(j) + "]";
      if (e.has_bias) e.formula += " + " + std::string(bn) + "[" + std::to_string(j) + "]";
      break;
    }
    case Stage::q_rot:
    case Stage::k_rot: {
      const bool q = stage == Stage::q_rot;
      explain_rotation(p, q ? b.Q.row(i) + q_off : b.K.row(i) + kv_off, i, j, &e);
      e.formula = rotation_formula(stage, head, i, j, e) + (q ? ")" : kvh + ")");
      break;
    }
    case Stage::scores: {
      const bool rot = p.rope;
      fill_dot(&e, rot ? b.heads[head].q_rot.row(i) : b.Q.row(i) + q_off, 1,
               rot ? b.heads[head].k_rot.row(j) : b.K.row(j) + kv_off, 1, hd);
      const std::string qn = rot ? "q_rot_" : "q_", kn = rot ? "k_rot_" : "k_";
      e.formula = cell("scores", i, j) + " = " + qn + std::to_string(i) + " · " + kn + std::to_string(j) +
                  " = Σ_d " + qn + std::to_string(i) + "[d] · " + kn + std::to_string(j) + "[d] (head " + h + kvh + ")";
      break;
    }
    case Stage::bias:
      e.formula = cell("bias", i, j) + " = −m_" + h + " · |" + std::to_string(i) + " − " + std::to_string(j) +
                  "| = −" + num(e.slope) + " · " + std::to_string(e.distance) + " (ALiBi)";
      break;
    case Stage::scaled:
      e.input = b.heads[head].scores.at(i, j);
      e.divisor = p.divisor;
      e.divisor_base = p.divisor_base;
      e.temperature = p.temperature;
      e.scale_mode = impl_->state.scale;
      e.scale_dim = e.scale_mode == ScaleMode::head_dim ? hd : (e.scale_mode == ScaleMode::d_out ? p.d_out : 0);
      e.formula = cell("scaled", i, j) + " = " + cell("scores", i, j);
      e.formula += e.scale_mode == ScaleMode::none && e.temperature == 1.0
                       ? std::string(" (no scaling)")
                       : " / " + divisor_words(e.scale_mode, e.temperature);
      break;
    case Stage::masked:
      e.input = matrix(Stage::scaled, head)->at(i, j);
      e.masked = cell_masked(i, j, &e.reason);
      e.fill = p.fill;
      e.formula = e.masked ? cell("masked", i, j) + " = mask_fill " + num(p.fill) + " (" +
                                 mask_reason_name(e.reason) + ")"
                  : e.alibi ? cell("masked", i, j) + " = " + cell("scaled", i, j) + " + " + cell("bias", i, j) +
                                  " (not masked)"
                            : cell("masked", i, j) + " = " + cell("scaled", i, j) + " (not masked)";
      break;
    case Stage::weights: {
      const float* row = matrix(Stage::masked, head)->row(i);
      const int S = p.S;
      e.input = row[j];
      bool all_neg_inf = true;
      for (int s = 0; s < S; ++s) all_neg_inf = all_neg_inf && std::isinf(row[s]) && row[s] < 0;
      e.row_max = kernels::max_f32_torch(row, S);
      std::vector<float> ex(static_cast<size_t>(S));  // (S) exp(masked − max)
      for (int s = 0; s < S; ++s) ex[s] = kernels::exp_f32(row[s] - e.row_max);
      e.exp_term = ex[j];
      e.normaliser = kernels::sum_f32_torch(ex.data(), S);
      e.safe_zeroed = p.safe_softmax && all_neg_inf;
      e.formula = e.safe_zeroed
                      ? cell("weights", i, j) + " = 0 (the whole row is −inf and safe_softmax is on)"
                      : cell("weights", i, j) + " = exp(" + cell("masked", i, j) + " − row max) / Σ_s exp(" +
                            "masked[" + std::to_string(i) + "][s] − row max)";
      break;
    }
    case Stage::dropped:
      e.input = b.heads[head].weights.at(i, j);
      e.dropout_active = p.dropout_active;
      e.scale = p.dropout_scale;
      if (p.dropout_active) {
        const uint8_t* keep = dropout_keep(head);
        e.kept = keep[static_cast<size_t>(i) * p.S + j] != 0;
        e.formula = e.kept ? cell("dropped", i, j) + " = " + cell("weights", i, j) + " × 1/(1 − p) (kept)"
                           : cell("dropped", i, j) + " = " + cell("weights", i, j) + " × 0 (dropped)";
      } else {
        e.formula = cell("dropped", i, j) + " = weights (dropout is off)";
      }
      break;
    case Stage::context:
      fill_dot(&e, matrix(Stage::dropped, head)->row(i), 1, b.V.data.data() + kv_off + j, p.kv_dim, p.S);
      e.formula = cell("context", i, j) + " = Σ_s dropped[" + std::to_string(i) + "][s] · v_s[" +
                  std::to_string(j) + "] (head " + h + kvh + ")";
      break;
    case Stage::concat:
      e.formula = cell("concat", i, j) + " = context of head " + std::to_string(j / hd) + ", " +
                  cell("context", i, j % hd);
      break;
    case Stage::output:
      if (p.out_proj) {
        fill_dot(&e, b.concat.row(i), 1, b.params.W_o.data.data() + j, p.d_out, p.d_out);
        e.has_bias = !b.params.b_o.empty();
        if (e.has_bias) e.bias = b.params.b_o.at(0, j);
        e.formula = cell("output", i, j) + " = Σ_d concat[" + std::to_string(i) + "][d] · W_o[d][" +
                    std::to_string(j) + "]" + (e.has_bias ? " + b_o[" + std::to_string(j) + "]" : std::string());
      } else {
        e.formula = cell("output", i, j) + " = concat (no output projection)";
      }
      break;
  }
  return e;
}

}  // namespace attnviz
