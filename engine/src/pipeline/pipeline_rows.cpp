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
//   weights  softmax of the masked row: weights_row_from_scores, the full path's own
//            (the causal cut, then the whole row when the cut gives NaN)
//   dropped  dropout_row with the keep mask's row (weights itself without dropout)
//   context  the dropped row · V_g (matmul_rows, one row; the exact-zero keys the full
//            path skips change no bits, contract 2)
// Cost per row: S · head_dim multiply-adds for the scores (and as many for context),
// O(S) for the rest; memory: the caller's S floats and one scratch row. Blocks of rows
// (overview) go through the same code n rows at a time, one matmul_rows for their scores.
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
using detail::square_stage;
using detail::stage_rows;

// scores rows i0 … i0 + n − 1 of head h into s (n × S), columns 0 … ncols − 1 (a cell's
// bits do not depend on how many columns are computed with it: kernels.h contract 1);
// idx: 0 … n − 1.
void scores_rows(const Plan& p, const Buffers& b, int h, int i0, int n, const int* idx, float* s, int ncols) {
  const size_t off = static_cast<size_t>(h) * p.head_dim;
  const size_t koff = static_cast<size_t>(p.kv_head(h)) * p.head_dim;
  const int lda = p.rope ? p.head_dim : p.d_out;
  const float* q = p.rope ? b.heads[static_cast<size_t>(h)].q_rot.row(i0) : b.Q.row(i0) + off;
  kernels::matmul_rows(q, lda, b.KT.data.data() + koff * p.S, p.S, nullptr, s, p.S, p.head_dim, ncols, idx, n);
}

}  // namespace

bool detail::square_stage(Stage st) {
  return st == Stage::scores || st == Stage::scaled || st == Stage::bias || st == Stage::masked ||
         st == Stage::weights || st == Stage::dropped;
}

void detail::square_rows(const Plan& p, const Buffers& b, int h, int i0, int n, uint32_t want,
                         std::vector<float>* const* outs, std::vector<float>* scratch) {
  auto wants = [want](Stage st) { return ((want >> static_cast<int>(st)) & 1u) != 0; };
  const size_t S = static_cast<size_t>(p.S), cells = static_cast<size_t>(n) * S;
  std::vector<int> idx(static_cast<size_t>(n));
  for (int t = 0; t < n; ++t) idx[static_cast<size_t>(t)] = t;
  std::vector<float>& s = *scratch;
  s.resize(cells);
  // The causal cut: past the block's last row every key is masked, whatever its score
  // (masked_row writes the fill there), so when neither scores nor scaled is asked for
  // those scores are not computed (zeros stand in).
  const bool cut = p.causal && !wants(Stage::scores) && !wants(Stage::scaled);
  const int ncols = cut ? std::min(p.S, i0 + n) : p.S;
  scores_rows(p, b, h, i0, n, idx.data(), s.data(), ncols);
  if (ncols < p.S) {
    for (int t = 0; t < n; ++t) std::fill(s.begin() + t * S + ncols, s.begin() + (t + 1) * S, 0.0f);
  }
  if (wants(Stage::scores)) outs[static_cast<int>(Stage::scores)]->assign(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(cells));
  for (Stage st : {Stage::scaled, Stage::masked}) {
    if (!wants(st)) continue;
    std::vector<float>& o = *outs[static_cast<int>(st)];
    o.resize(cells);
    for (int t = 0; t < n; ++t) {
      if (st == Stage::scaled) kernels::div_scalar(s.data() + t * S, 1, o.data() + t * S, 1, p.S, p.divisor);
      else kernels::masked_row(s.data() + t * S, o.data() + t * S, p.S, i0 + t, p.mask(h));
    }
  }
  if (!wants(Stage::weights) && !wants(Stage::dropped)) return;
  std::vector<float>& w = *outs[static_cast<int>(wants(Stage::weights) ? Stage::weights : Stage::dropped)];
  w.resize(cells);
  for (int t = 0; t < n; ++t) detail::weights_row_from_scores(p, h, i0 + t, s.data() + t * S, w.data() + t * S);
  if (!wants(Stage::dropped)) return;
  std::vector<float>& d = *outs[static_cast<int>(Stage::dropped)];
  if (p.dropout_active) {  // dropped = weights where there is no dropout
    for (int t = 0; t < n; ++t) {
      const uint8_t* keep = b.keep.data() + (static_cast<size_t>(h) * S + static_cast<size_t>(i0 + t)) * S;
      kernels::dropout_row(w.data() + t * S, keep, s.data() + t * S, p.S, p.dropout_scale);
    }
    if (&d == &w) d.swap(s);
    else d.assign(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(cells));
  } else if (&d != &w) {
    d = w;
  }
}

void detail::stage_rows(const Plan& p, const Buffers& b, Stage stage, int h, int i0, int n, std::vector<float>* out,
                std::vector<float>* scratch, int v_finite) {
  const size_t S = static_cast<size_t>(p.S), cells = static_cast<size_t>(n) * S;
  if (stage == Stage::bias) {
    out->resize(cells);
    const float slope = p.slopes[static_cast<size_t>(h)];
    for (int t = 0; t < n; ++t)
      for (int j = 0; j < p.S; ++j) (*out)[t * S + static_cast<size_t>(j)] = kernels::alibi_bias(slope, i0 + t, j);
    return;
  }
  std::vector<float>* outs[kStageCount] = {};
  const Stage square = stage == Stage::context ? Stage::dropped : stage;  // context = dropped · V_g
  outs[static_cast<int>(square)] = out;
  square_rows(p, b, h, i0, n, 1u << static_cast<int>(square), outs, scratch);
  if (stage != Stage::context) return;
  // context rows = dropped rows · V_g: (n × S) · (S × head_dim), V_g stride kv_dim.
  // As compute_context: with V_g finite a row's product stops after its last non-zero
  // weight (exact zeros add nothing: kernels.h contract 2), which halves it under the mask.
  std::vector<float>& s = *scratch;
  std::vector<int> idx(static_cast<size_t>(n));
  for (int t = 0; t < n; ++t) idx[static_cast<size_t>(t)] = t;
  const float* vh = b.V.data.data() + static_cast<size_t>(p.kv_head(h)) * p.head_dim;
  if (v_finite < 0) v_finite = kernels::all_finite_rows(vh, p.S, p.head_dim, static_cast<size_t>(p.kv_dim)) ? 1 : 0;
  std::vector<int> k_end;
  if (v_finite) {
    k_end.resize(static_cast<size_t>(n));
    for (int t = 0; t < n; ++t) {
      const float* d = out->data() + t * S;
      k_end[static_cast<size_t>(t)] = kernels::nonzero_end(d, weights_zero_from(p, i0 + t, d));
    }
  }
  s.resize(static_cast<size_t>(n) * p.head_dim);
  kernels::matmul_rows(out->data(), p.S, vh, p.kv_dim, nullptr, s.data(), p.head_dim, p.S, p.head_dim, idx.data(), n,
                       v_finite ? k_end.data() : nullptr);
  out->assign(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(n) * p.head_dim);
}

void detail::stage_cells(const Plan& p, const Buffers& b, Stage stage, int h, int i0, int n, int j0, int m,
                         std::vector<float>* out) {
  std::vector<int> idx(static_cast<size_t>(n));
  for (int t = 0; t < n; ++t) idx[static_cast<size_t>(t)] = t;
  const size_t off = static_cast<size_t>(h) * p.head_dim;
  const size_t koff = static_cast<size_t>(p.kv_head(h)) * p.head_dim;
  const int lda = p.rope ? p.head_dim : p.d_out;
  const float* q = p.rope ? b.heads[static_cast<size_t>(h)].q_rot.row(i0) : b.Q.row(i0) + off;
  out->resize(static_cast<size_t>(n) * m);
  kernels::matmul_rows(q, lda, b.KT.data.data() + koff * p.S + j0, p.S, nullptr, out->data(), m, p.head_dim, m,
                       idx.data(), n);
  if (stage == Stage::scaled) kernels::div_scalar(out->data(), 1, out->data(), 1, n * m, p.divisor);
}

namespace {

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
  if (!square_stage(stage) && stage != Stage::context) return stored_row(*this, stage, head, i, out);
  if (i >= p.S || (stage == Stage::bias && p.slopes.empty())) return false;
  // With RoPE the query rows are q_rot's, which the pipeline keeps current with Q (apply).
  std::vector<float> scratch;
  stage_rows(p, impl_->buf, stage, head, i, 1, out, &scratch);
  return true;
}

bool Pipeline::overview(Stage stage, int head, int block, Pool pool, Tensor* out) const {
  *out = Tensor();
  if (!impl_->has_result || !square_stage(stage) || block < 1) return false;
  const Plan& p = impl_->plan;
  if (head < 0 || head >= p.H || (stage == Stage::bias && p.slopes.empty())) return false;
  const int n = (p.S + block - 1) / block;
  out->reset(n, n);
  std::vector<float> rows, scratch;
  for (int bi = 0; bi < n; ++bi) {
    const int i0 = bi * block, h_rows = std::min(block, p.S - i0);
    stage_rows(p, impl_->buf, stage, head, i0, h_rows, &rows, &scratch);
    detail::pool_rows(rows.data(), h_rows, p.S, block, pool, out->row(bi));
  }
  return true;
}

}  // namespace attnviz
