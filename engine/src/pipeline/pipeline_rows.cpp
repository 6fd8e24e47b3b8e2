// Pipeline::row: one row of a head's (S × S) stage, or of its context, computed from
// the inputs into the caller's buffer. No (S × S) buffer of the head is read, built or
// brought up to date: what a view of a long input needs (issue 36, docs/engine.md
// "Rows on demand"), where keeping every stage of every head whole would take
// S² · 4 bytes per stage and head (3.2 GB at S = 8,192 with 12 heads).
//
// The row is the full pipeline's, bit for bit (kernels.h contract 1: a row's
// arithmetic does not depend on which rows are computed with it):
//   scores   q_i · K_gᵀ: matmul_rows on row i alone, the operands of compute_scores
//            (Q_h row i or q_rot row i; KT's head_dim rows of K/V head g)
//   scaled   scores / divisor (div_scalar)
//   bias     ALiBi's −m_h·|i − j| (alibi_bias), only with ALiBi
//   masked   masked_row under the head's MaskRule
//   weights  softmax of the masked row: compute_weights_row's arithmetic (the causal
//            cut, then the whole row when the cut gives NaN)
//   dropped  dropout_row with the keep mask's row (weights itself without dropout)
//   context  the dropped row · V_g (matmul_rows, one row; the exact-zero keys the full
//            path skips change no bits, contract 2)
// Cost per row: S · head_dim multiply-adds for the scores (and as many for context),
// O(S) for the rest; memory: the caller's S floats and one scratch row.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "attnviz/kernels.h"
#include "attnviz/pipeline.h"
#include "pipeline/pipeline_internal.h"

namespace attnviz {
namespace {

using detail::Buffers;
using detail::Plan;

// scores row i of head h into s (S).
void scores_row(const Plan& p, const Buffers& b, int h, int i, float* s) {
  const size_t off = static_cast<size_t>(h) * p.head_dim;
  const size_t koff = static_cast<size_t>(p.kv_head(h)) * p.head_dim;
  const float* q = p.rope ? b.heads[static_cast<size_t>(h)].q_rot.row(i) : b.Q.row(i) + off;
  const int lda = p.rope ? p.head_dim : p.d_out;
  const int row0 = 0;
  kernels::matmul_rows(q, lda, b.KT.data.data() + koff * p.S, p.S, nullptr, s, p.S, p.head_dim, p.S, &row0, 1);
}

// weights row i of head h from its scores row s (S) into w (S); s and w may not alias.
void weights_row(const Plan& p, int h, int i, const float* s, float* w) {
  const kernels::MaskRule rule = p.mask(h);
  const bool causal_inf = p.causal && p.fill == -std::numeric_limits<float>::infinity();
  const int cut = causal_inf ? kernels::softmax_cut(i + 1, p.S) : p.S;
  if (cut < p.S) {
    kernels::masked_row(s, w, cut, i, rule);
    kernels::softmax_row(w, w, cut, false);
    if (!std::isnan(w[0])) {
      std::fill(w + cut, w + p.S, 0.0f);
      return;
    }
  }
  kernels::masked_row(s, w, p.S, i, rule);
  kernels::softmax_row(w, w, p.S, p.safe_softmax);
}

// Row i of a stored stage (Q, K, V, X, the tail, ...), copied.
bool stored_row(const Pipeline& pl, Stage stage, int head, int i, std::vector<float>* out) {
  const Tensor* t = pl.matrix(stage, head);
  if (t == nullptr || i >= t->rows) return false;
  out->assign(t->row(i), t->row(i) + t->cols);
  return true;
}

}  // namespace

bool Pipeline::row(Stage stage, int head, int i, std::vector<float>* out) const {
  out->clear();
  if (!impl_->has_result) return false;
  const Plan& p = impl_->plan;
  const bool per_head = stage_is_per_head(stage);
  if (head < 0 || (per_head ? head >= p.H : head != 0) || i < 0) return false;
  const bool square = stage == Stage::scores || stage == Stage::scaled || stage == Stage::bias ||
                      stage == Stage::masked || stage == Stage::weights || stage == Stage::dropped;
  if (!square && stage != Stage::context) return stored_row(*this, stage, head, i, out);
  if (i >= p.S) return false;
  if (stage == Stage::bias && p.slopes.empty()) return false;
  // With RoPE the query row is q_rot's, which the pipeline keeps current with Q (apply).
  const Buffers& b = impl_->buf;
  const size_t S = static_cast<size_t>(p.S);
  if (stage == Stage::bias) {
    out->resize(S);
    const float slope = p.slopes[static_cast<size_t>(head)];
    for (int j = 0; j < p.S; ++j) (*out)[static_cast<size_t>(j)] = kernels::alibi_bias(slope, i, j);
    return true;
  }
  std::vector<float> s(S);
  scores_row(p, b, head, i, s.data());
  if (stage == Stage::scores) {
    *out = std::move(s);
    return true;
  }
  out->resize(S);
  if (stage == Stage::scaled) {
    kernels::div_scalar(s.data(), 1, out->data(), 1, p.S, p.divisor);
    return true;
  }
  if (stage == Stage::masked) {
    kernels::masked_row(s.data(), out->data(), p.S, i, p.mask(head));
    return true;
  }
  weights_row(p, head, i, s.data(), out->data());
  if (stage == Stage::weights) return true;
  if (p.dropout_active) {  // dropped row i (dropped = weights without dropout)
    const uint8_t* keep = b.keep.data() + (static_cast<size_t>(head) * S + static_cast<size_t>(i)) * S;
    kernels::dropout_row(out->data(), keep, s.data(), p.S, p.dropout_scale);
    out->swap(s);
  }
  if (stage == Stage::dropped) return true;
  // context row i = dropped row i · V_g: (1 × S) · (S × head_dim), V_g stride kv_dim.
  const float* vh = b.V.data.data() + static_cast<size_t>(p.kv_head(head)) * p.head_dim;
  const int row0 = 0;
  s.resize(static_cast<size_t>(p.head_dim));
  kernels::matmul_rows(out->data(), p.S, vh, p.kv_dim, nullptr, s.data(), p.head_dim, p.S, p.head_dim, &row0, 1);
  *out = std::move(s);
  return true;
}

}  // namespace attnviz
