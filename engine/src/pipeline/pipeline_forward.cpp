// The stage computations (all arithmetic goes through kernels.h), the heads'
// working spaces and compute_everything, the full build of every stage.
// Declared in pipeline_compute.h.
#include <algorithm>
#include <cstring>
#include <vector>

#include "attnviz/kernels.h"
#include "pipeline/pipeline_compute.h"

namespace attnviz {
namespace detail {

namespace {

// The floats of one WorkSpace for plan p (make_space).
uint64_t space_floats(const Plan& p) {
  const uint64_t S = static_cast<uint64_t>(p.S);
  if (p.long_mode()) return S * static_cast<uint64_t>(p.d_out);  // the projections' row snapshots alone
  const uint64_t widest = std::max(S, static_cast<uint64_t>(p.d_out));
  return S * S + S * widest + S * (S + static_cast<uint64_t>(p.head_dim));
}

}  // namespace

void compute_projection(const Plan& p, const Tensor& X, const Tensor& W, const Tensor& b, Tensor* out,
                        const int* rows, int n) {
  const int w = W.cols;  // d_out for Q, kv_dim for K and V
  kernels::matmul_rows(X.data.data(), p.d_model, W.data.data(), w, ptr_or_null(b), out->data.data(), w, p.d_model,
                       w, rows, n);
}

void transpose_rows(const Plan& p, const Tensor& src, Tensor* dst, const int* rows, int n) {
  if (dst->data.empty()) return;  // long mode keeps no Qᵀ (its rows read Q itself)
  const int w = src.cols;
  if (n == p.S) {
    kernels::transpose(src.data.data(), w, p.S, w, dst->data.data(), p.S);
    return;
  }
  for (int t = 0; t < n; ++t) {
    const float* r = src.row(rows[t]);
    for (int c = 0; c < w; ++c) dst->data[static_cast<size_t>(c) * p.S + rows[t]] = r[c];
  }
}

void rotate_row(const Plan& p, const float* x, int r, float* out) {
  rope_rotate_row(p.rope_style, *p.rope_tab, r, x, out, p.head_dim);
}

void put_columns(const Plan& p, const float* row, int r, int col0, Tensor* T) {
  if (T->data.empty()) return;  // long mode keeps no Qᵀ
  for (int c = 0; c < p.head_dim; ++c) T->data[static_cast<size_t>(col0 + c) * p.S + r] = row[c];
}

// Every head's q_rot and k_rot (and QT, KT). A K/V head's rows are rotated once, by
// the first query head of its group; the others copy them (the same bits).
void rotate_all(const Plan& p, Buffers& b) {
  const int hd = p.head_dim, per = p.H / p.G;
  for (int h = 0; h < p.H; ++h) {
    HeadBuffers& hb = b.heads[static_cast<size_t>(h)];
    const int g = p.kv_head(h);
    const HeadBuffers& lead = b.heads[static_cast<size_t>(h - h % per)];
    for (int r = 0; r < p.S; ++r) {
      rotate_row(p, b.Q.row(r) + static_cast<size_t>(h) * hd, r, hb.q_rot.row(r));
      put_columns(p, hb.q_rot.row(r), r, h * hd, &b.QT);
      if (h % per == 0) {
        rotate_row(p, b.K.row(r) + static_cast<size_t>(g) * hd, r, hb.k_rot.row(r));
        put_columns(p, hb.k_rot.row(r), r, g * hd, &b.KT);
      } else {
        std::memcpy(hb.k_rot.row(r), lead.k_rot.row(r), sizeof(float) * static_cast<size_t>(hd));
      }
    }
  }
}

// scores = Q_h · K_hᵀ for whole rows and whole columns.  Q_h: (S × head_dim)
// stride d_out; K_hᵀ: (head_dim × S) rows h·head_dim... of KT.
// Rows: Q_h[rows] · K_hᵀ. Columns j: K_h[j] · Q_hᵀ is row j of scoresᵀ, the
// same products in the same order (a·b = b·a in float32), computed into
// col_scratch (ncols × S) and scattered.
void compute_scores(const Plan& p, Buffers& b, int h, const int* rows, int nrows, const int* cols,
                    int ncols, Scratch& sc) {
  HeadBuffers& hb = b.heads[static_cast<size_t>(h)];
  const size_t off = static_cast<size_t>(h) * p.head_dim;               // Q_h's columns (rows of QT)
  const size_t koff = static_cast<size_t>(p.kv_head(h)) * p.head_dim;   // K_g's columns (rows of KT)
  float* s = hb.scores.data.data();
  // With RoPE the operands are q_rot (S × head_dim) and k_rot, whose
  // transposes QT and KT hold instead of Q's and K's.
  const float* qa = p.rope ? hb.q_rot.data.data() : b.Q.data.data() + off;
  const int lda = p.rope ? p.head_dim : p.d_out;
  kernels::matmul_rows(qa, lda, b.KT.data.data() + koff * p.S, p.S, nullptr, s, p.S, p.head_dim, p.S, rows, nrows);
  if (ncols == 0) return;
  // sc.cols: [K_h rows cols (ncols × head_dim) | their scores (ncols × S)]
  const size_t kpart = static_cast<size_t>(ncols) * p.head_dim;
  sc.cols.resize(kpart + static_cast<size_t>(ncols) * p.S);
  sc.idx.resize(static_cast<size_t>(ncols));
  float* kg = sc.cols.data();
  float* out = kg + kpart;
  int* idx = sc.idx.data();
  for (int t = 0; t < ncols; ++t) {
    const float* k = p.rope ? hb.k_rot.row(cols[t]) : b.K.row(cols[t]) + koff;
    std::memcpy(kg + static_cast<size_t>(t) * p.head_dim, k, sizeof(float) * p.head_dim);
    idx[t] = t;
  }
  kernels::matmul_rows(kg, p.head_dim, b.QT.data.data() + off * p.S, p.S, nullptr, out, p.S, p.head_dim,
                       p.S, idx, ncols);
  for (int t = 0; t < ncols; ++t) {
    const float* src = out + static_cast<size_t>(t) * p.S;
    for (int i = 0; i < p.S; ++i) s[static_cast<size_t>(i) * p.S + cols[t]] = src[i];
  }
}

// scaled and masked are not stored by the pipeline: they are cheap to derive
// from scores (one division, one select per cell), and at S = 1024 with 12
// heads each would take 48 MB. weights rows go straight from scores through
// kernels::masked_row (bitwise the masked stage) and softmax (softmax_rows.cpp);
// Pipeline::matrix materialises scaled / masked per head on request
// (materialize_derived).

void compute_dropped_row(const Plan& p, const Buffers& b, HeadBuffers& hb, int h, int r) {
  const uint8_t* keep = b.keep.data() + (static_cast<size_t>(h) * p.S + r) * p.S;
  kernels::dropout_row(hb.weights.row(r), keep, hb.dropped.row(r), p.S, p.dropout_scale);
}

// context rows = dropped rows · V_g (g = kv_head(h)).  dropped: (S × S), V_g: (S × head_dim) stride kv_dim
// A row's terms past its last non-zero dropped weight are exact zeros when V_h
// is finite (0·inf would be NaN), so the product stops there (k_end; kernels.h
// contract 2): under a causal mask that halves the work, same bits.
void compute_context(const Plan& p, const Buffers& b, HeadBuffers& hb, int h, const int* rows, int n,
                     Scratch& sc) {
  const float* vh = b.V.data.data() + static_cast<size_t>(p.kv_head(h)) * p.head_dim;
  // One pass over V_g's rows (this runs on every context update, incremental ones included).
  const bool v_finite = kernels::all_finite_rows(vh, p.S, p.head_dim, static_cast<size_t>(p.kv_dim));
  const Tensor& dropped = dropped_of(p, hb);
  const int* k_end = nullptr;
  if (v_finite) {
    sc.k_end.resize(static_cast<size_t>(n));
    for (int t = 0; t < n; ++t) {
      const float* d = dropped.row(rows[t]);
      sc.k_end[static_cast<size_t>(t)] = kernels::nonzero_end(d, weights_zero_from(p, rows[t], d));
    }
    k_end = sc.k_end.data();
  }
  kernels::matmul_rows(dropped.data.data(), p.S, vh, p.kv_dim, nullptr, hb.context.data.data(), p.head_dim,
                       p.S, p.head_dim, rows, n, k_end);
}

void compute_concat_row(const Plan& p, Buffers& b, int r) {
  for (int h = 0; h < p.H; ++h) {
    std::memcpy(b.concat.row(r) + static_cast<size_t>(h) * p.head_dim, b.heads[h].context.row(r),
                sizeof(float) * p.head_dim);
  }
}

void compute_output(const Plan& p, Buffers& b, const int* rows, int n) {
  if (!p.out_proj) {
    for (int t = 0; t < n; ++t) std::memcpy(b.output.row(rows[t]), b.concat.row(rows[t]), sizeof(float) * p.d_out);
    return;
  }
  kernels::matmul_rows(b.concat.data.data(), p.d_out, b.params.W_o->data.data(), p.d_out,
                       ptr_or_null(b.params.b_o), b.output.data.data(), p.d_out, p.d_out, p.d_out, rows, n);
}

std::vector<int> iota_rows(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

void make_space(const Plan& p, WorkSpace* ws) {
  const size_t S = static_cast<size_t>(p.S);
  const size_t widest = p.long_mode() ? static_cast<size_t>(p.d_out) : std::max(S, static_cast<size_t>(p.d_out));
  ws->cells.resize(p.long_mode() ? 0 : S * S);  // long mode: no head's (S × S) stage is computed whole
  ws->rows.resize(S * widest);
  Scratch& sc = ws->sc;
  sc.cols.resize(p.long_mode() ? 0 : S * (S + static_cast<size_t>(p.head_dim)));
  sc.idx.resize(S);
  sc.k_end.resize(S);
  sc.row_slot.resize(S);
  sc.col_slot.resize(S);
  sc.row_flag.resize(S);
  sc.cells_only.resize(S);
  sc.old_row.resize(S);
  sc.tmp_old.resize(S);
  sc.tmp_new.resize(S);
  sc.new_row.resize(S);
}

int head_groups(const Plan& p) {
  if (p.long_mode()) return 1;  // heads are not computed whole: their rows go to the threads (pipeline_long.cpp)
  const uint64_t extra = kMaxExtraSpaceBytes / (space_floats(p) * sizeof(float) + 1);
  const uint64_t cap = std::min<uint64_t>(1 + extra, static_cast<uint64_t>(std::max(p.H, 1)));
  return static_cast<int>(std::min<uint64_t>(cap, static_cast<uint64_t>(threads())));
}

void compute_everything(const Plan& p, Buffers& b, std::vector<WorkSpace>& spaces,
                        const std::vector<uint8_t>& want, bool tail, const Carry* carry) {
  const std::vector<int> all = iota_rows(p.S);
  const int S = p.S;
  const std::vector<int>& rows = carry ? carry->fresh : all;  // the Q, K, V rows and score rows / columns computed
  const int n = static_cast<int>(rows.size());
  if (carry) carry_projection_rows(*carry, b);
  compute_projection(p, b.X, b.params.W_q, b.params.b_q, &b.Q, rows.data(), n);
  compute_projection(p, b.X, b.params.W_k, b.params.b_k, &b.K, rows.data(), n);
  compute_projection(p, b.X, b.params.W_v, b.params.b_v, &b.V, rows.data(), n);
  if (p.rope) {
    rotate_all(p, b);
  } else {
    transpose_rows(p, b.Q, &b.QT, all.data(), S);
    transpose_rows(p, b.K, &b.KT, all.data(), S);
  }
  if (p.long_mode()) return;  // heads and tail from rows when read (Pipeline::Impl::long_read)
  auto head = [&](int g, int h) {
    HeadBuffers& hb = b.heads[h];
    Scratch& sc = spaces[static_cast<size_t>(g)].sc;
    if (carry) {
      compute_scores(p, b, h, rows.data(), n, rows.data(), n, sc);
    } else {
      compute_scores(p, b, h, all.data(), S, nullptr, 0, sc);
    }
    if (want[static_cast<size_t>(h)] < kWeights) return;
    for (int r = 0; r < S; ++r) compute_weights_row(p, hb, h, r, hb.weights.row(r));
    if (p.dropout_active) {
      for (int r = 0; r < S; ++r) compute_dropped_row(p, b, hb, h, r);
    }
    if (want[static_cast<size_t>(h)] < kContext) return;
    compute_context(p, b, hb, h, all.data(), S, sc);
  };
  for_each_head(static_cast<int>(std::min(spaces.size(), static_cast<size_t>(head_groups(p)))), p.H, head);
  if (!tail) return;
  for (int r = 0; r < S; ++r) compute_concat_row(p, b, r);
  compute_output(p, b, all.data(), S);
}

}  // namespace detail
}  // namespace attnviz
