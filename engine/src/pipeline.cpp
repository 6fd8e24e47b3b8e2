// The staged pipeline: full rebuilds and incremental updates.
//
// [SECTION] stage levels (the stage table: stages.cpp)
// [SECTION] stage computations (all arithmetic goes through kernels.h)
// [SECTION] incremental update
// [SECTION] Pipeline API
#include "attnviz/pipeline.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <string>
#include <utility>

#include "attnviz/kernels.h"
#include "attnviz/parallel.h"
#include "parallel_internal.h"
#include "pipeline_internal.h"

namespace attnviz {

// ---- [SECTION] stage levels -----------------------------------------------------------

static_assert(static_cast<int>(StageLevel::scores) == detail::kScores &&
                  static_cast<int>(StageLevel::weights) == detail::kWeights &&
                  static_cast<int>(StageLevel::context) == detail::kContext &&
                  static_cast<int>(StageLevel::tail) == detail::kTail,
              "the stage table's levels are the pipeline's");

int detail::stage_level(Stage s) { return static_cast<int>(stage_info(s).level); }

// ---- [SECTION] stage computations ----------------------------------------------------

namespace {

using detail::Buffers;
using detail::HeadBuffers;
using detail::Plan;
using detail::Scratch;
using detail::causal_off_weights_row;
using detail::causal_on_weights_row;
using detail::compute_weights_row;
using detail::patch_weights_row;

const float* ptr_or_null(const Tensor& t) { return t.empty() ? nullptr : t.data.data(); }

// out rows = X rows · W (+ b).  X: (S × d_model), W: (d_model × d_out), out: (S × d_out)
void compute_projection(const Plan& p, const Tensor& X, const Tensor& W, const Tensor& b, Tensor* out,
                        const int* rows, int n) {
  kernels::matmul_rows(X.data.data(), p.d_model, W.data.data(), p.d_out, ptr_or_null(b),
                       out->data.data(), p.d_out, p.d_model, p.d_out, rows, n);
}

// Q_hᵀ and K_hᵀ for the score products: QT, KT (d_out × S), row c = column c
// of Q / K. Rows r of Q and K go to columns r of QT and KT.
void transpose_rows(const Plan& p, const Tensor& src, Tensor* dst, const int* rows, int n) {
  if (n == p.S) {
    kernels::transpose(src.data.data(), p.d_out, p.S, p.d_out, dst->data.data(), p.S);
    return;
  }
  for (int t = 0; t < n; ++t) {
    const float* r = src.row(rows[t]);
    for (int c = 0; c < p.d_out; ++c) dst->data[static_cast<size_t>(c) * p.S + rows[t]] = r[c];
  }
}

// scores = Q_h · K_hᵀ for whole rows and whole columns.  Q_h: (S × head_dim)
// stride d_out; K_hᵀ: (head_dim × S) rows h·head_dim... of KT.
// Rows: Q_h[rows] · K_hᵀ. Columns j: K_h[j] · Q_hᵀ is row j of scoresᵀ, the
// same products in the same order (a·b = b·a in float32), computed into
// col_scratch (ncols × S) and scattered.
void compute_scores(const Plan& p, Buffers& b, int h, const int* rows, int nrows, const int* cols,
                    int ncols, Scratch& sc) {
  const size_t off = static_cast<size_t>(h) * p.head_dim;
  float* s = b.heads[h].scores.data.data();
  kernels::matmul_rows(b.Q.data.data() + off, p.d_out, b.KT.data.data() + off * p.S, p.S, nullptr, s, p.S,
                       p.head_dim, p.S, rows, nrows);
  if (ncols == 0) return;
  // sc.cols: [K_h rows cols (ncols × head_dim) | their scores (ncols × S)]
  const size_t kpart = static_cast<size_t>(ncols) * p.head_dim;
  sc.cols.resize(kpart + static_cast<size_t>(ncols) * p.S);
  sc.idx.resize(static_cast<size_t>(ncols));
  float* kg = sc.cols.data();
  float* out = kg + kpart;
  int* idx = sc.idx.data();
  for (int t = 0; t < ncols; ++t) {
    std::memcpy(kg + static_cast<size_t>(t) * p.head_dim, b.K.row(cols[t]) + off, sizeof(float) * p.head_dim);
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

// dropped row r = dropout(weights row r) with head h's slice of the keep mask.  (S)
// Only when dropout is active; otherwise dropped is the weights buffer itself.
void compute_dropped_row(const Plan& p, const Buffers& b, HeadBuffers& hb, int h, int r) {
  const uint8_t* keep = b.keep.data() + (static_cast<size_t>(h) * p.S + r) * p.S;
  kernels::dropout_row(hb.weights.row(r), keep, hb.dropped.row(r), p.S, p.dropout_scale);
}

// The dropped stage's contents: its own buffer under dropout, else the weights.
const Tensor& dropped_of(const Plan& p, const HeadBuffers& hb) {
  return p.dropout_active ? hb.dropped : hb.weights;
}

// 1 + the index of the last entry of d (n) that is not ±0 (NaN counts as
// non-zero), 0 if there is none. Skips 8 zeros at a time.
int nonzero_end(const float* d, int n) {
  int e = n;
  while (e >= 8) {
    uint32_t bits = 0;
    for (int t = 0; t < 8; ++t) {
      uint32_t u;
      std::memcpy(&u, d + e - 8 + t, sizeof u);
      bits |= u & 0x7fffffffu;
    }
    if (bits != 0) break;
    e -= 8;
  }
  while (e > 0 && d[e - 1] == 0.0f) --e;
  return e;
}

// context rows = dropped rows · V_h.  dropped: (S × S), V_h: (S × head_dim) stride d_out
// A row's terms past its last non-zero dropped weight are exact zeros when V_h
// is finite (0·inf would be NaN), so the product stops there (k_end; kernels.h
// contract 2): under a causal mask that halves the work, same bits.
void compute_context(const Plan& p, const Buffers& b, HeadBuffers& hb, int h, const int* rows, int n,
                     Scratch& sc) {
  const float* vh = b.V.data.data() + static_cast<size_t>(h) * p.head_dim;
  // Each row's head_dim values through the branch-free all_finite (this runs
  // on every context update, incremental ones included).
  bool v_finite = true;
  for (int r = 0; r < p.S && v_finite; ++r) {
    v_finite = kernels::all_finite(vh + static_cast<size_t>(r) * p.d_out, static_cast<size_t>(p.head_dim));
  }
  const Tensor& dropped = dropped_of(p, hb);
  const int* k_end = nullptr;
  if (v_finite) {
    sc.k_end.resize(static_cast<size_t>(n));
    for (int t = 0; t < n; ++t) sc.k_end[static_cast<size_t>(t)] = nonzero_end(dropped.row(rows[t]), p.S);
    k_end = sc.k_end.data();
  }
  kernels::matmul_rows(dropped.data.data(), p.S, vh, p.d_out, nullptr, hb.context.data.data(), p.head_dim,
                       p.S, p.head_dim, rows, n, k_end);
}

// concat row r = [context_0 row r, ..., context_{H−1} row r].  (d_out)
void compute_concat_row(const Plan& p, Buffers& b, int r) {
  for (int h = 0; h < p.H; ++h) {
    std::memcpy(b.concat.row(r) + static_cast<size_t>(h) * p.head_dim, b.heads[h].context.row(r),
                sizeof(float) * p.head_dim);
  }
}

// output rows = concat rows · W_o (+ b_o), or concat rows.  (S × d_out)
void compute_output(const Plan& p, Buffers& b, const int* rows, int n) {
  if (!p.out_proj) {
    for (int t = 0; t < n; ++t) std::memcpy(b.output.row(rows[t]), b.concat.row(rows[t]), sizeof(float) * p.d_out);
    return;
  }
  kernels::matmul_rows(b.concat.data.data(), p.d_out, b.params.W_o.data.data(), p.d_out,
                       ptr_or_null(b.params.b_o), b.output.data.data(), p.d_out, p.d_out, p.d_out, rows, n);
}

std::vector<int> iota_rows(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

// ---- heads in parallel ----
// Each head's stages read Q, K, V, the plan and the keep mask, and write only
// that head's buffers and records (Impl::updates[s][h], valid[h]) and the
// working space it is given: heads can run on different threads, and which
// thread runs a head never changes a bit.

// The floats of one WorkSpace for plan p (make_space).
uint64_t space_floats(const Plan& p) {
  const uint64_t S = static_cast<uint64_t>(p.S);
  const uint64_t widest = std::max(S, static_cast<uint64_t>(p.d_out));
  return S * S + S * widest + S * (S + static_cast<uint64_t>(p.head_dim));
}

// Sizes a space for the worst case up front, so that an update never fails
// half way for lack of memory (its buffers are written before they are read,
// so not zeroed).
void make_space(const Plan& p, detail::WorkSpace* ws) {
  const size_t S = static_cast<size_t>(p.S);
  const size_t widest = std::max(S, static_cast<size_t>(p.d_out));
  ws->cells.resize(S * S);
  ws->rows.resize(S * widest);
  Scratch& sc = ws->sc;
  sc.cols.resize(S * (S + static_cast<size_t>(p.head_dim)));
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

// How many groups the heads of plan p are handed to: one per thread, at most
// one per head, and no more extra spaces than kMaxExtraSpaceBytes holds.
int head_groups(const Plan& p) {
  const uint64_t extra = detail::kMaxExtraSpaceBytes / (space_floats(p) * sizeof(float) + 1);
  const uint64_t cap = std::min<uint64_t>(1 + extra, static_cast<uint64_t>(std::max(p.H, 1)));
  return static_cast<int>(std::min<uint64_t>(cap, static_cast<uint64_t>(threads())));
}

// Runs f(g, h) for every head h in [0, H) in `groups` parts (detail::run_parts)
// that take heads in turn from a shared counter; part g works in space g.
// What a head throws is rethrown here once every part has stopped (the other
// parts take no new head after it).
template <class F>
void for_each_head(int groups, int H, F& f) {
  struct Ctx {
    F* f;
    int H;
    std::atomic<int> next{0};
    std::exception_ptr err[kMaxThreads];
  } ctx;
  ctx.f = &f;
  ctx.H = H;
  auto part = [](void* c, int g) {
    Ctx& x = *static_cast<Ctx*>(c);
    try {
      for (int h = x.next.fetch_add(1); h < x.H; h = x.next.fetch_add(1)) (*x.f)(g, h);
    } catch (...) {
      x.err[g] = std::current_exception();
      x.next.store(x.H);
    }
  };
  attnviz::detail::run_parts(std::max(1, std::min(groups, kMaxThreads)), part, &ctx);
  for (const std::exception_ptr& e : ctx.err) {
    if (e) std::rethrow_exception(e);
  }
}

// Every stage from X and the parameters (which must be in place), except
// that head h stops after level want[h] (detail::Level) and concat and output
// are computed only when tail (which needs every head at kContext). The
// heads run in up to spaces.size() groups (for_each_head). With a carry,
// whose score cells are already in place (reshape), the carried Q, K and V
// rows are copied from the old result and only the fresh rows (and their
// score columns) are computed.
void compute_everything(const Plan& p, Buffers& b, std::vector<detail::WorkSpace>& spaces,
                        const std::vector<uint8_t>& want, bool tail, const detail::Carry* carry) {
  const std::vector<int> all = iota_rows(p.S);
  const int S = p.S;
  const std::vector<int>& rows = carry ? carry->fresh : all;  // the Q, K, V rows and score rows / columns computed
  const int n = static_cast<int>(rows.size());
  if (carry) detail::carry_projection_rows(*carry, b);
  compute_projection(p, b.X, b.params.W_q, b.params.b_q, &b.Q, rows.data(), n);
  compute_projection(p, b.X, b.params.W_k, b.params.b_k, &b.K, rows.data(), n);
  compute_projection(p, b.X, b.params.W_v, b.params.b_v, &b.V, rows.data(), n);
  transpose_rows(p, b.Q, &b.QT, all.data(), S);
  transpose_rows(p, b.K, &b.KT, all.data(), S);
  auto head = [&](int g, int h) {
    HeadBuffers& hb = b.heads[h];
    Scratch& sc = spaces[static_cast<size_t>(g)].sc;
    if (carry) {
      compute_scores(p, b, h, rows.data(), n, rows.data(), n, sc);
    } else {
      compute_scores(p, b, h, all.data(), S, nullptr, 0, sc);
    }
    if (want[static_cast<size_t>(h)] < detail::kWeights) return;
    for (int r = 0; r < S; ++r) compute_weights_row(p, hb, r, hb.weights.row(r));
    if (p.dropout_active) {
      for (int r = 0; r < S; ++r) compute_dropped_row(p, b, hb, h, r);
    }
    if (want[static_cast<size_t>(h)] < detail::kContext) return;
    compute_context(p, b, hb, h, all.data(), S, sc);
  };
  for_each_head(static_cast<int>(std::min(spaces.size(), static_cast<size_t>(head_groups(p)))), p.H, head);
  if (!tail) return;
  for (int r = 0; r < S; ++r) compute_concat_row(p, b, r);
  compute_output(p, b, all.data(), S);
}

bool same_bits(float a, float b) {
  uint32_t x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return x == y;
}

// ---- [SECTION] incremental update ----------------------------------------------------

// Cells of an (S × S) stage: whole rows plus whole columns, or everything.
struct Region {
  bool all = false;
  std::vector<int> rows;
  std::vector<int> cols;
  bool empty() const { return !all && rows.empty() && cols.empty(); }
};

struct SquareChange {
  Region changed;              // rows and columns containing a changed cell
  std::vector<int> rows_any;   // every row containing a changed cell
};

// How the softmax rows derive_stages marks in scratch.cells_only may be
// brought up to date from their kept numerators instead of whole.
struct SoftmaxPatch {
  std::vector<int> cols;   // the cells (r, c), c in cols, changed (patch_weights_row)
  bool causal_on = false;  // instead: the causal mask was switched on (causal_on_weights_row)
  bool causal_off = false;  // or switched off (causal_off_weights_row)
};

// Recomputes the parts of stages that an update reaches and records what
// changed (Impl::updates) in working space ws. An Updater for a group of
// heads (for_each_head) is given `deferred`: the versions of the stages it
// changes are bumped afterwards, head by head, in the order a single thread
// would have bumped them (in apply, after for_each_head), so versions never
// depend on threads.
class Updater {
 public:
  Updater(Pipeline::Impl& im, detail::WorkSpace& ws, std::vector<std::vector<Stage>>* deferred = nullptr)
      : im_(im), ws_(ws), deferred_(deferred), p_(im.plan), b_(im.buf), S_(im.plan.S), all_(iota_rows(S_)) {}

  void note(Stage s, int h, UpdateKind kind, int rows, int cols, bool changed) {
    StageUpdate& u = im_.updates[static_cast<int>(s)][h];
    u.kind = kind;
    u.rows = rows;
    u.cols = cols;
    u.changed = changed;
    if (!changed) return;
    if (deferred_ != nullptr) {
      (*deferred_)[static_cast<size_t>(h)].push_back(s);
    } else {
      im_.bump(s, h);
    }
  }

  detail::Scratch& sc() { return ws_.sc; }

  // Recomputes rows of a row-wise stage with f(rows, n), all at once (the
  // kernels are fastest on many rows); returns the rows that changed.
  template <class F>
  std::vector<int> rows_stage(Stage s, int h, Tensor& t, const std::vector<int>& rows, F f) {
    std::vector<int> changed;
    const size_t w = static_cast<size_t>(t.cols), n = rows.size();
    FloatBuffer& snap = ws_.rows;  // (n × w), grows only
    if (snap.size() < n * w) snap.resize(n * w);
    for (size_t k = 0; k < n; ++k) std::memcpy(snap.data() + k * w, t.row(rows[k]), sizeof(float) * w);
    if (n > 0) f(rows.data(), static_cast<int>(n));
    for (size_t k = 0; k < n; ++k) {
      if (!kernels::same_bytes(snap.data() + k * w, t.row(rows[k]), sizeof(float) * w)) changed.push_back(rows[k]);
    }
    note(s, h, kind_for(n), static_cast<int>(n), 0, !changed.empty());
    return changed;
  }

  // As rows_stage, for a stage computed one row at a time: g(r, out) writes
  // row r into a scratch row, which is compared with the stored row and
  // copied over it only where it differs. For wide rows (S) this reads the
  // old rows once instead of copying them aside and comparing afterwards.
  template <class G>
  std::vector<int> rows_stage_each(Stage s, int h, Tensor& t, const std::vector<int>& rows, G g) {
    std::vector<int> changed;
    const size_t bytes = sizeof(float) * static_cast<size_t>(t.cols);
    std::vector<float>& out = ws_.sc.new_row;  // (t.cols)
    if (out.size() < static_cast<size_t>(t.cols)) out.resize(static_cast<size_t>(t.cols));
    for (int r : rows) {
      g(r, out.data());
      if (!kernels::same_bytes(out.data(), t.row(r), bytes)) {
        std::memcpy(t.row(r), out.data(), bytes);
        changed.push_back(r);
      }
    }
    note(s, h, kind_for(rows.size()), static_cast<int>(rows.size()), 0, !changed.empty());
    return changed;
  }

  // Q, K or V: recompute rows, report per head which rows of its slice changed
  // and whether a changed slice holds (or held) a non-finite value.
  void projection_stage(Stage s, Tensor& out, const Tensor& W, const Tensor& b,
                        const std::vector<int>& rows, std::vector<std::vector<int>>* head_rows,
                        std::vector<uint8_t>* head_nonfinite) {
    const int hd = p_.head_dim;
    head_rows->assign(static_cast<size_t>(p_.H), {});
    head_nonfinite->assign(static_cast<size_t>(p_.H), 0);
    const size_t w = static_cast<size_t>(p_.d_out), n = rows.size();
    FloatBuffer& snap = ws_.rows;  // (n × d_out), grows only
    if (snap.size() < n * w) snap.resize(n * w);
    for (size_t k = 0; k < n; ++k) std::memcpy(snap.data() + k * w, out.row(rows[k]), sizeof(float) * w);
    if (n > 0) compute_projection(p_, b_.X, W, b, &out, rows.data(), static_cast<int>(n));
    bool any = false;
    for (size_t k = 0; k < n; ++k) {
      const int r = rows[k];
      for (int h = 0; h < p_.H; ++h) {
        const float* before = snap.data() + k * w + static_cast<size_t>(h) * hd;
        const float* after = out.row(r) + static_cast<size_t>(h) * hd;
        if (!kernels::same_bytes(before, after, sizeof(float) * hd)) {
          (*head_rows)[h].push_back(r);
          any = true;
          const size_t nh = static_cast<size_t>(hd);
          if (!kernels::all_finite(before, nh) || !kernels::all_finite(after, nh)) (*head_nonfinite)[h] = 1;
        }
      }
    }
    note(s, 0, kind_for(n), static_cast<int>(n), 0, any);
  }

  // Recomputes a region of an (S × S) stage with f(rows, nrows, cols, ncols).
  template <class F>
  SquareChange square_stage(Stage s, int h, Tensor& t, Region in, F f) {
    SquareChange out;
    if (in.all || in.rows.size() + in.cols.size() > static_cast<size_t>(S_)) {
      in.all = true;
      in.rows = all_;
      in.cols.clear();
    }
    // Where each recomputed row / column's old values sit in the snapshot.
    detail::Scratch& sc = ws_.sc;
    std::fill(sc.row_slot.begin(), sc.row_slot.end(), -1);
    std::fill(sc.col_slot.begin(), sc.col_slot.end(), -1);
    for (size_t k = 0; k < in.rows.size(); ++k) sc.row_slot[static_cast<size_t>(in.rows[k])] = static_cast<int>(k);
    for (size_t m = 0; m < in.cols.size(); ++m) {
      sc.col_slot[static_cast<size_t>(in.cols[m])] = static_cast<int>(in.rows.size() + m);
    }
    snap_cols_ = in.cols;
    if (in.empty()) {
      note(s, h, UpdateKind::none, 0, 0, false);
      return out;
    }
    float* snap = ws_.cells.data();  // (rows + cols) × S <= S × S floats
    const size_t R = in.rows.size(), C = in.cols.size(), S = static_cast<size_t>(S_);
    for (size_t k = 0; k < R; ++k) std::memcpy(snap + k * S, t.row(in.rows[k]), sizeof(float) * S);
    for (size_t m = 0; m < C; ++m) {
      for (size_t i = 0; i < S; ++i) snap[(R + m) * S + i] = t.data[i * S + in.cols[m]];
    }
    f(in.rows.data(), static_cast<int>(R), in.cols.data(), static_cast<int>(C));
    std::vector<uint8_t> row_flag(S, 0);
    for (size_t k = 0; k < R; ++k) {
      if (!kernels::same_bytes(snap + k * S, t.row(in.rows[k]), sizeof(float) * S)) {
        out.changed.rows.push_back(in.rows[k]);
        row_flag[static_cast<size_t>(in.rows[k])] = 1;
      }
    }
    for (size_t m = 0; m < C; ++m) {
      bool col_changed = false;
      for (size_t i = 0; i < S; ++i) {
        if (!same_bits(snap[(R + m) * S + i], t.data[i * S + in.cols[m]])) {
          col_changed = true;
          row_flag[i] = 1;
        }
      }
      if (col_changed) out.changed.cols.push_back(in.cols[m]);
    }
    for (size_t i = 0; i < S; ++i) {
      if (row_flag[i]) out.rows_any.push_back(static_cast<int>(i));
    }
    note(s, h, in.all ? UpdateKind::full : UpdateKind::partial, static_cast<int>(R),
         static_cast<int>(C), !out.rows_any.empty());
    return out;
  }

  // dropped of head h after its weights rows w_rows were recomputed. Under
  // dropout it has its own buffer (rows recomputed with f); otherwise it is
  // the weights buffer, and changes exactly when the weights do. Switching
  // dropout on compares with the weights (the old dropped); a row whose
  // weights also changed in this update counts as changed.
  template <class F>
  std::vector<int> dropped_stage(const Plan& old, int h, const std::vector<int>& w_rows, bool dropout_changed,
                                 F f) {
    detail::HeadBuffers& hb = b_.heads[h];
    const size_t bytes = sizeof(float) * static_cast<size_t>(S_);
    if (p_.dropout_active && old.dropout_active) {
      return rows_stage(Stage::dropped, h, hb.dropped, dropout_changed ? all_ : w_rows, f);
    }
    if (p_.dropout_active) {  // switched on
      f(all_.data(), S_);
      std::vector<uint8_t>& w_changed = ws_.sc.row_flag;
      std::fill(w_changed.begin(), w_changed.end(), 0);
      for (int r : w_rows) w_changed[static_cast<size_t>(r)] = 1;
      std::vector<int> changed;
      for (int r = 0; r < S_; ++r) {
        if (w_changed[static_cast<size_t>(r)] || !kernels::same_bytes(hb.dropped.row(r), hb.weights.row(r), bytes)) {
          changed.push_back(r);
        }
      }
      note(Stage::dropped, h, UpdateKind::full, S_, 0, !changed.empty());
      return changed;
    }
    if (old.dropout_active) {  // switched off: dropped becomes the weights again
      std::vector<int> changed;
      for (int r = 0; r < S_; ++r) {
        if (!kernels::same_bytes(hb.dropped.row(r), hb.weights.row(r), bytes)) changed.push_back(r);
      }
      hb.dropped = Tensor();  // its memory is not needed any more
      note(Stage::dropped, h, UpdateKind::full, S_, 0, !changed.empty());
      return changed;
    }
    const StageUpdate w = im_.updates[static_cast<int>(Stage::weights)][h];
    note(Stage::dropped, h, w.kind, w.rows, 0, w.changed);
    return w_rows;
  }

  // scaled and masked of head h after its scores were updated by
  // square_stage (whose snapshot holds the old scores): records what changed
  // in each, exactly as if they were stored, and returns the rows whose masked
  // row changed (the softmax rows to recompute). Rows that may be patched
  // (SoftmaxPatch) get scratch.cells_only = 1: rows whose masked row changed
  // only in score columns that changed, or, when only the mask changed, only
  // in keys whose padding switched or by the causal mask switched on or off.
  //   old: the plan of the previous result; full: the divisor or the mask changed
  std::vector<int> derive_stages(const Plan& old, int h, const SquareChange& scores_change,
                                 bool divisor_changed, bool mask_changed, SoftmaxPatch* patch) {
    const Tensor& sc_t = b_.heads[h].scores;
    const size_t S = static_cast<size_t>(S_);
    detail::Scratch& sc = ws_.sc;
    const float* snap = ws_.cells.data();
    float* old_row = sc.old_row.data();  // (S)
    float* tmp_old = sc.tmp_old.data();  // (S)
    float* tmp_new = sc.tmp_new.data();  // (S)
    // Old scores row i: the snapshot row, or the current row with the
    // snapshot's recomputed columns put back.
    auto old_scores_row = [&](int i) -> const float* {
      const int rs = sc.row_slot[static_cast<size_t>(i)];
      if (rs >= 0) return snap + static_cast<size_t>(rs) * S;
      if (snap_cols_.empty()) return sc_t.row(i);
      std::memcpy(old_row, sc_t.row(i), sizeof(float) * S);
      for (int c : snap_cols_) old_row[c] = snap[static_cast<size_t>(sc.col_slot[static_cast<size_t>(c)]) * S + i];
      return old_row;
    };
    auto scaled_differs = [&](const float* o, const float* n) {
      for (size_t j = 0; j < S; ++j) {
        if (!same_bits(o[j] / old.divisor, n[j] / p_.divisor)) return true;
      }
      return false;
    };
    const uint8_t* pad_old = old.padded();
    const uint8_t* pad_new = p_.padded();
    // Cell (i, j) of the old and the new masked stage, as masked_row gives it.
    auto cell_differs = [&](int i, int j, const float* o, const float* n) {
      const float a = kernels::is_masked(i, j, old.causal, pad_old) ? old.fill : o[j] / old.divisor;
      const float b = kernels::is_masked(i, j, p_.causal, pad_new) ? p_.fill : n[j] / p_.divisor;
      return !same_bits(a, b);
    };
    // Whether masked row i differs in a cell from column `from` on: the first
    // four one by one (after a temperature change or a causal switch the
    // first cell looked at almost always differs), then block by block
    // (masked_row is elementwise, so a block at column j0 is row i − j0 of the
    // shifted scores and key flags), stopping at the first that differs.
    auto masked_differs_from = [&](int i, const float* o, const float* n, int from) {
      const int quick = std::min(S_, from + 4);
      for (int j = from; j < quick; ++j) {
        if (cell_differs(i, j, o, n)) return true;
      }
      constexpr int kBlock = 64;
      for (int j0 = quick; j0 < S_; j0 += kBlock) {
        const int len = std::min(kBlock, S_ - j0);
        kernels::masked_row(o + j0, tmp_old, len, i - j0, old.divisor, old.causal,
                            pad_old ? pad_old + j0 : nullptr, old.fill);
        kernels::masked_row(n + j0, tmp_new, len, i - j0, p_.divisor, p_.causal,
                            pad_new ? pad_new + j0 : nullptr, p_.fill);
        if (!kernels::same_bytes(tmp_old, tmp_new, sizeof(float) * static_cast<size_t>(len))) return true;
      }
      return false;
    };
    // Keys whose padding switched.
    std::vector<int>& pad_cols = sc.pad_cols;
    pad_cols.clear();
    if (mask_changed && old.key_padded != p_.key_padded) {
      for (int c = 0; c < S_; ++c) {
        if ((pad_old && pad_old[c]) != (pad_new && pad_new[c])) pad_cols.push_back(c);
      }
    }
    // Masked row i after the divisor or the mask changed. When the divisor,
    // the fill and the row's scores are unchanged, only cells whose mask
    // switched can differ: the keys after i if the causal mask switched, and
    // the keys whose padding did.
    auto masked_differs = [&](int i, const float* o, const float* n) {
      const bool only_mask = !divisor_changed && same_bits(old.fill, p_.fill) &&
                             sc.row_slot[static_cast<size_t>(i)] < 0 && snap_cols_.empty();
      if (!only_mask) return masked_differs_from(i, o, n, 0);
      for (int c : pad_cols) {
        if (cell_differs(i, c, o, n)) return true;
      }
      return old.causal != p_.causal && masked_differs_from(i, o, n, i + 1);
    };
    // A region's record as square_stage writes it.
    auto note_region = [&](Stage s, bool all, size_t rows, size_t cols, bool changed) {
      if (all || rows + cols > S) {
        note(s, h, UpdateKind::full, S_, 0, changed);
      } else {
        note(s, h, rows + cols == 0 ? UpdateKind::none : UpdateKind::partial, static_cast<int>(rows),
             static_cast<int>(cols), changed);
      }
    };
    const Region& in = scores_change.changed;  // scores cells that changed
    std::vector<int> masked_rows;
    std::fill(sc.cells_only.begin(), sc.cells_only.end(), 0);
    patch->cols.clear();
    patch->causal_on = false;
    patch->causal_off = false;
    if (divisor_changed || mask_changed) {
      // Every row: compare old and new masked rows (masked_differs).
      bool scaled_changed = false;
      for (int i = 0; i < S_; ++i) {
        const float* o = old_scores_row(i);
        const float* n = sc_t.row(i);
        const bool touched = divisor_changed || sc.row_slot[static_cast<size_t>(i)] >= 0 || !snap_cols_.empty();
        if (!scaled_changed && touched) scaled_changed = scaled_differs(o, n);
        if (masked_differs(i, o, n)) masked_rows.push_back(i);
      }
      note_region(Stage::scaled, divisor_changed, in.rows.size(), in.cols.size(), scaled_changed);
      note_region(Stage::masked, true, 0, 0, !masked_rows.empty());
      // Only the mask changed (not the scores, divisor or fill): the cells
      // that changed are the keys whose padding switched, or those the causal
      // mask now covers.
      if (!divisor_changed && in.empty() && same_bits(old.fill, p_.fill)) {
        if (old.causal == p_.causal) {
          patch->cols = pad_cols;
        } else if (pad_cols.empty()) {
          patch->causal_on = p_.causal;
          patch->causal_off = !p_.causal;
        }
        if (!patch->cols.empty() || patch->causal_on || patch->causal_off) {
          for (int r : masked_rows) sc.cells_only[static_cast<size_t>(r)] = 1;
        }
      }
      return masked_rows;
    }
    // Same divisor and mask: only cells whose score changed can change.
    std::vector<int> sc_rows, sc_cols;  // scaled rows / columns that changed
    for (int r : in.rows) {
      if (scaled_differs(old_scores_row(r), sc_t.row(r))) sc_rows.push_back(r);
    }
    std::vector<uint8_t>& row_flag = sc.row_flag;  // (S) rows with a changed masked cell
    std::fill(row_flag.begin(), row_flag.end(), 0);
    bool masked_cols_changed = false;
    size_t n_masked_cols = 0;
    for (int c : in.cols) {
      const float* old_col = snap + static_cast<size_t>(sc.col_slot[static_cast<size_t>(c)]) * S;  // (S) by row
      bool col_changed = false, mcol_changed = false;
      for (size_t i = 0; i < S; ++i) {
        const float o = old_col[i] / old.divisor, n = sc_t.data[i * S + static_cast<size_t>(c)] / p_.divisor;
        if (same_bits(o, n)) continue;
        col_changed = true;
        if (!kernels::is_masked(static_cast<int>(i), c, p_.causal, p_.padded())) {
          mcol_changed = true;
          row_flag[i] = 1;
        }
      }
      if (col_changed) {
        sc_cols.push_back(c);
        ++n_masked_cols;
        masked_cols_changed = masked_cols_changed || mcol_changed;
      }
    }
    for (size_t i = 0; i < S; ++i) sc.cells_only[i] = row_flag[i];
    for (int r : sc_rows) {
      if (masked_differs(r, old_scores_row(r), sc_t.row(r))) {
        row_flag[static_cast<size_t>(r)] = 1;
        sc.cells_only[static_cast<size_t>(r)] = 0;
      }
    }
    for (size_t i = 0; i < S; ++i) {
      if (row_flag[i]) masked_rows.push_back(static_cast<int>(i));
    }
    patch->cols = sc_cols;
    note_region(Stage::scaled, false, in.rows.size(), in.cols.size(), !sc_rows.empty() || !sc_cols.empty());
    note_region(Stage::masked, false, sc_rows.size(), n_masked_cols, !masked_rows.empty());
    (void)masked_cols_changed;
    return masked_rows;
  }

  UpdateKind kind_for(size_t rows) const {
    return rows == 0 ? UpdateKind::none
                     : (rows == static_cast<size_t>(S_) ? UpdateKind::full : UpdateKind::partial);
  }

  const std::vector<int>& all() const { return all_; }

 private:
  Pipeline::Impl& im_;
  detail::WorkSpace& ws_;
  std::vector<std::vector<Stage>>* deferred_;  // (H) or nullptr: bump at once
  const Plan& p_;
  Buffers& b_;
  int S_;
  std::vector<int> all_;
  std::vector<int> snap_cols_;  // the columns square_stage recomputed last
};

std::vector<int> merge_rows(const std::vector<int>& a, const std::vector<int>& b, int S) {
  std::vector<uint8_t> flag(static_cast<size_t>(S), 0);
  for (int r : a) flag[static_cast<size_t>(r)] = 1;
  for (int r : b) flag[static_cast<size_t>(r)] = 1;
  std::vector<int> out;
  for (int i = 0; i < S; ++i) {
    if (flag[static_cast<size_t>(i)]) out.push_back(i);
  }
  return out;
}

// What changed upstream of one head's weights (its masked rows, the softmax
// flavour, dropout) and of its context (V_h) in one update.
struct HeadChange {
  std::vector<int> masked_rows;              // rows whose masked row changed
  bool safe_changed = false;                 // safe_softmax switched: every weights row
  bool dropout_changed = false;              // dropout switched, or another p / seed
  const std::vector<int>* v_rows = nullptr;  // rows of V_h that changed (nullptr: none)
  // With scratch.cells_only: how the rows marked there may be patched
  // (nullptr: recompute every masked row whole).
  const SoftmaxPatch* patch = nullptr;
  bool v_nonfinite = false;                  // one of those holds (or held) inf / NaN
};

// Brings head h's weights, dropped and context up to level want: in part where
// they were current, in full where they were stale (lazy mode). A level above
// want whose inputs changed becomes stale. Returns the context rows that changed.
std::vector<int> update_head(Pipeline::Impl& im, Updater& up, const Plan& old, int h, int want,
                             const HeadChange& c) {
  using detail::kContext;
  using detail::kScores;
  using detail::kWeights;
  const Plan& np = im.plan;
  Buffers& buf = im.buf;
  HeadBuffers& hb = buf.heads[static_cast<size_t>(h)];
  const int before = im.valid[static_cast<size_t>(h)];
  int now = before;
  std::vector<int> d_rows;
  if (want >= kWeights) {
    const SoftmaxPatch* patch = before >= kWeights && !c.safe_changed ? c.patch : nullptr;
    const std::vector<uint8_t>& cells_only = up.sc().cells_only;
    int patched = 0;
    int built_from = INT_MAX;  // exps row entries a refused patch left holding the masked row
    auto patch_row = [&](int r, float* w) {
      if (patch->causal_on) return causal_on_weights_row(np, hb, r, w);
      if (patch->causal_off) return causal_off_weights_row(np, hb, r, w, &built_from);
      return patch_weights_row(np, hb, r, patch->cols, w);
    };
    auto weights_f = [&](int r, float* w) {
      built_from = INT_MAX;
      if (patch && cells_only[static_cast<size_t>(r)] && patch_row(r, w)) {
        ++patched;
        return;
      }
      compute_weights_row(np, hb, r, w, built_from);
    };
    auto dropped_f = [&](const int* r, int n) {
      for (int t = 0; t < n; ++t) compute_dropped_row(np, buf, hb, h, r[t]);
    };
    if (before >= kWeights) {
      const std::vector<int> w_rows =
          up.rows_stage_each(Stage::weights, h, hb.weights, c.safe_changed ? up.all() : c.masked_rows, weights_f);
      im.updates[static_cast<int>(Stage::weights)][static_cast<size_t>(h)].patched = patched;
      d_rows = up.dropped_stage(old, h, w_rows, c.dropout_changed, dropped_f);
    } else {
      // Stale: every row, compared with what the buffer held when last current.
      const std::vector<int> w_rows = up.rows_stage_each(Stage::weights, h, hb.weights, up.all(), weights_f);
      if (np.dropout_active) {
        // Its old contents may belong to another mask or to no dropout at
        // all: counted as changed rather than compared.
        dropped_f(up.all().data(), np.S);
        up.note(Stage::dropped, h, UpdateKind::full, np.S, 0, true);
        d_rows = up.all();
      } else {
        const StageUpdate w = im.updates[static_cast<int>(Stage::weights)][static_cast<size_t>(h)];
        up.note(Stage::dropped, h, w.kind, w.rows, 0, w.changed);
        d_rows = w_rows;
      }
    }
    now = std::max(now, static_cast<int>(kWeights));
  } else if (!c.masked_rows.empty() || c.safe_changed || c.dropout_changed) {
    now = std::min(now, static_cast<int>(kScores));
    if (!np.dropout_active) hb.dropped = Tensor();  // a stale head keeps no dropout buffer without dropout
  }
  const bool v_changed = c.v_rows != nullptr && !c.v_rows->empty();
  std::vector<int> c_rows;
  if (now >= kWeights && want >= kContext) {
    std::vector<int> ctx_rows = up.all();
    if (before >= kContext) {
      // context row r depends on dropped row r and on every V_h row s with
      // dropped[r][s] != 0 (an exact zero term never changes a sum, unless V
      // holds inf/NaN, where 0·inf = NaN).
      ctx_rows = d_rows;
      if (v_changed && !c.v_nonfinite) {
        std::vector<int> touched;
        for (int r = 0; r < np.S; ++r) {
          for (int s : *c.v_rows) {
            const float d = dropped_of(np, hb).at(r, s);
            if (d != 0.0f || std::isnan(d)) {
              touched.push_back(r);
              break;
            }
          }
        }
        ctx_rows = merge_rows(d_rows, touched, np.S);
      } else if (v_changed) {
        ctx_rows = up.all();
      }
    }
    c_rows = up.rows_stage(Stage::context, h, hb.context, ctx_rows,
                           [&](const int* r, int n) { compute_context(np, buf, hb, h, r, n, up.sc()); });
    now = kContext;
  } else if (!d_rows.empty() || v_changed) {
    now = std::min(now, static_cast<int>(kWeights));
  }
  im.valid[static_cast<size_t>(h)] = static_cast<uint8_t>(now);
  return c_rows;
}

// Concat and output after the heads' contexts changed in rows concat_rows
// (out_changed: W_o or b_o changed): in part when they were current, in full
// when stale, or marked stale when not wanted or a head's context is stale.
void update_tail(Pipeline::Impl& im, Updater& up, const std::vector<int>& concat_rows, bool out_changed) {
  const Plan& np = im.plan;
  bool contexts = true;
  for (uint8_t v : im.valid) contexts = contexts && v >= detail::kContext;
  if (!contexts || !im.tail_wanted()) {
    if (!contexts || !concat_rows.empty() || out_changed) im.tail_valid = false;
    return;
  }
  const bool part = im.tail_valid;
  const std::vector<int> cat_rows = up.rows_stage(Stage::concat, 0, im.buf.concat, part ? concat_rows : up.all(),
                                                  [&](const int* r, int n) {
                                                    for (int t = 0; t < n; ++t) compute_concat_row(np, im.buf, r[t]);
                                                  });
  up.rows_stage(Stage::output, 0, im.buf.output, part && !out_changed ? cat_rows : up.all(),
                [&](const int* r, int n) { compute_output(np, im.buf, r, n); });
  im.tail_valid = true;
}

}  // namespace

int Pipeline::Impl::wanted(int head) const {
  if (!lazy || tail_wanted()) return detail::kContext;
  const size_t h = static_cast<size_t>(head);
  const int now = h < read_now.size() ? read_now[h] : 0;
  const int before = h < read_before.size() ? read_before[h] : 0;
  return std::max({static_cast<int>(detail::kScores), now, before});
}

bool Pipeline::Impl::tail_wanted() const { return !lazy || tail_read_now || tail_read_before; }

void Pipeline::Impl::read(Stage s, int head) {
  const int level = detail::stage_level(s);
  if (level == detail::kTail) {
    tail_read_now = true;
  } else if (level > 0 && head >= 0 && static_cast<size_t>(head) < read_now.size()) {
    read_now[static_cast<size_t>(head)] = std::max(read_now[static_cast<size_t>(head)], static_cast<uint8_t>(level));
  }
  if (!has_result || level <= detail::kScores) return;
  if (level == detail::kTail ? tail_valid : valid[static_cast<size_t>(head)] >= level) return;
  Updater up(*this, spaces[0]);
  const HeadChange none;
  std::vector<int> concat_rows;
  for (int h = 0; h < plan.H; ++h) {
    if (level != detail::kTail && h != head) continue;
    concat_rows = merge_rows(concat_rows, update_head(*this, up, plan, h, std::min(level, int{detail::kContext}), none),
                             plan.S);
  }
  if (level == detail::kTail) {
    update_tail(*this, up, concat_rows, false);  // stale: every row, compared with what the buffers held
  } else if (!concat_rows.empty()) {
    tail_valid = false;
  }
}

void Pipeline::Impl::rebuild(State&& next, const detail::Plan& np, detail::Buffers& fresh,
                             const detail::Carry* carry, bool params_kept) {
  std::vector<uint8_t> want(static_cast<size_t>(np.H));
  for (int h = 0; h < np.H; ++h) want[static_cast<size_t>(h)] = static_cast<uint8_t>(wanted(h));
  compute_everything(np, fresh, spaces, want, tail_wanted(), carry);
  // The records, made before anything is committed (they allocate).
  const int computed = carry ? static_cast<int>(carry->fresh.size()) : np.S;  // Q, K, V and score rows
  std::array<std::vector<uint64_t>, kStageCount> new_versions = versions;
  std::array<std::vector<StageUpdate>, kStageCount> new_updates;
  for (int s = 0; s < kStageCount; ++s) {
    const Stage st = static_cast<Stage>(s);
    if (params_kept && !stage_rows_are_positions(st)) {  // W_*, b_*
      // The same parameters (they do not depend on S): same version, no update.
      new_updates[s].assign(1, StageUpdate{});
      continue;
    }
    const int heads = stage_is_per_head(st) ? np.H : 1;
    new_versions[s].assign(static_cast<size_t>(heads), 0);
    new_updates[s].assign(static_cast<size_t>(heads), StageUpdate{});
    for (int h = 0; h < heads; ++h) {
      const Tensor* t = detail::stage_tensor(fresh, st, h);
      if (t == nullptr) continue;
      // scaled, masked (and dropped without dropout) have no buffer of their own
      const int rows = stage_is_per_head(st) ? np.S : t->rows;
      StageUpdate u{UpdateKind::full, rows, 0, true};
      if (carry && (st == Stage::Q || st == Stage::K || st == Stage::V)) u = StageUpdate{UpdateKind::partial, computed, 0, true};
      if (carry && st == Stage::scores) u = StageUpdate{UpdateKind::partial, computed, computed, true};
      new_updates[s][h] = u;
      new_versions[s][h] = ++stamp;
    }
  }
  // Commit (moves only).
  valid = std::move(want);
  tail_valid = tail_wanted();
  state = std::move(next);
  plan = np;
  buf = std::move(fresh);
  versions = std::move(new_versions);
  updates = std::move(new_updates);
  has_result = true;
}

// Sizes every buffer of b for state s (plan p), keeping X and any score
// buffers already in place, and builds the parameters (unless params is
// false) and the keep mask, for compute_everything.
void prepare_buffers(const State& s, const detail::Plan& p, detail::Buffers* b, bool params) {
  detail::allocate_buffers(p, b);
  b->QT.reset_for_overwrite(p.d_out, p.S);  // written whole by compute_everything
  b->KT.reset_for_overwrite(p.d_out, p.S);
  if (p.dropout_active) {
    for (detail::HeadBuffers& hb : b->heads) hb.dropped.reset(p.S, p.S);
  }
  if (params) detail::build_params(s, &b->params);
  detail::build_keep_mask(p, &b->keep);
}

std::vector<detail::WorkSpace> make_spaces(const detail::Plan& p) {
  std::vector<detail::WorkSpace> out(static_cast<size_t>(head_groups(p)));
  for (detail::WorkSpace& ws : out) make_space(p, &ws);
  return out;
}

void Pipeline::Impl::reshape(State&& next, const detail::Plan& np) {
  // Another number of tokens, everything else of the same shapes: the
  // parameters (which do not depend on S) are taken over, and so are the
  // rows of Q, K, V and scores whose X rows are found again (detail::Carry).
  const bool params_kept =
      has_result && detail::same_shapes_but_s(plan, np) && detail::same_param_inputs(state, next);
  // Release all of the old result that is not carried before the new one is
  // allocated: two results at once would pass the heap budget at S = 1024.
  detail::Buffers old = std::move(buf);
  buf = detail::Buffers();
  std::vector<detail::WorkSpace>().swap(spaces);
  keep_cache = std::vector<uint8_t>();  // another shape: a kept mask no longer fits
  keep_cache_valid = false;
  // From here on whatever fails is undone by restore().
  try {
    if (params_kept) {
      for (detail::HeadBuffers& hb : old.heads) {  // keeps what the carry reads: X, parameters, Q, K, V, scores
        Tensor scores = std::move(hb.scores);
        hb = detail::HeadBuffers();
        hb.scores = std::move(scores);
      }
      old.QT = old.KT = old.concat = old.output = Tensor();
      std::vector<uint8_t>().swap(old.keep);
    } else {
      old = detail::Buffers();
    }
    detail::Buffers fresh;
    detail::build_x(next, &fresh.X, &embedding);
    detail::Carry carry;
    const bool carried = params_kept && detail::find_carry(old, fresh.X, &carry);
    if (carried) {
      // Each head's carried score cells, releasing the old head's as it goes,
      // before anything else of the new result is allocated.
      fresh.heads.resize(static_cast<size_t>(np.H));
      for (int h = 0; h < np.H; ++h) {
        fresh.heads[static_cast<size_t>(h)].scores.reset_for_overwrite(np.S, np.S);
        detail::carry_scores(carry, h, &fresh.heads[static_cast<size_t>(h)].scores);
        old.heads[static_cast<size_t>(h)].scores = Tensor();
      }
    }
    prepare_buffers(next, np, &fresh, !params_kept);
    if (params_kept) fresh.params = std::move(old.params);
    if (!carried) old = detail::Buffers();
    spaces = make_spaces(np);
    rebuild(std::move(next), np, fresh, carried ? &carry : nullptr, params_kept);
  } catch (...) {
    old = detail::Buffers();
    restore();
    throw;
  }
}

void Pipeline::Impl::restore() noexcept {
  buf = detail::Buffers();
  std::vector<detail::WorkSpace>().swap(spaces);
  if (!has_result) return;
  try {
    detail::Buffers b;
    detail::build_x(state, &b.X, &embedding);
    prepare_buffers(state, plan, &b, true);
    spaces = make_spaces(plan);
    compute_everything(plan, b, spaces, valid, tail_valid, nullptr);
    buf = std::move(b);
  } catch (...) {
    has_result = false;  // not even the old result fits now
    buf = detail::Buffers();
    std::vector<detail::WorkSpace>().swap(spaces);
  }
}

void Pipeline::Impl::apply(State&& next) {
  const detail::Plan np = detail::make_plan(next);
  read_now.resize(static_cast<size_t>(np.H), 0);  // another head count keeps the first heads' demand
  read_before.resize(static_cast<size_t>(np.H), 0);
  if (!has_result || !detail::same_shapes(plan, np)) {
    reshape(std::move(next), np);
    return;
  }
  // More threads than when the spaces were made: more spaces (before
  // anything is touched; an allocation that fails leaves a usable state).
  while (spaces.size() < static_cast<size_t>(head_groups(np))) {
    detail::WorkSpace ws;
    make_space(np, &ws);
    spaces.push_back(std::move(ws));
  }

  // Same shapes: rebuild inputs whose spec changed (allocates), then update.
  const bool x_spec_changed = !detail::same_x_inputs(state, next);
  Tensor new_x;
  if (x_spec_changed) detail::build_x(next, &new_x, &embedding);
  const bool params_spec_changed = !detail::same_param_inputs(state, next);
  detail::Params new_params;
  if (params_spec_changed) detail::build_params(next, &new_params);
  const bool dropout_changed = !detail::same_dropout(plan, np);
  std::vector<uint8_t> new_keep;
  if (dropout_changed && np.dropout_active) {
    // Switching dropout back on with the same p and seed draws the same mask:
    // reuse the one kept when it was switched off (drawing is ~H·S² RNG calls).
    if (keep_cache_valid && keep_cache_p == np.p && keep_cache_seed == np.dropout_seed) {
      new_keep.swap(keep_cache);
      keep_cache_valid = false;
    } else {
      detail::build_keep_mask(np, &new_keep);
    }
  }
  std::vector<Tensor> new_dropped;  // (H) × (S × S) when dropout switches on
  if (np.dropout_active && !plan.dropout_active) {
    new_dropped.resize(static_cast<size_t>(np.H));
    for (Tensor& t : new_dropped) t.reset(np.S, np.S);
  }

  const detail::Plan old = plan;
  plan = np;
  state = std::move(next);  // next is not read below
  for (auto& per_stage : updates) {
    for (StageUpdate& u : per_stage) u = StageUpdate{};
  }
  Updater up(*this, spaces[0]);

  // X: compare the rebuilt rows with the old ones.
  std::vector<int> x_rows;
  if (x_spec_changed) {
    for (int r = 0; r < np.S; ++r) {
      if (!kernels::same_bytes(buf.X.row(r), new_x.row(r), sizeof(float) * np.d_model)) {
        std::memcpy(buf.X.row(r), new_x.row(r), sizeof(float) * np.d_model);
        x_rows.push_back(r);
      }
    }
    up.note(Stage::X, 0, UpdateKind::full, np.S, 0, !x_rows.empty());
  }

  // Parameters: swap in the ones that differ.
  bool pchanged[8] = {false, false, false, false, false, false, false, false};
  if (params_spec_changed) {
    Tensor* olds[8] = {&buf.params.W_q, &buf.params.W_k, &buf.params.W_v, &buf.params.W_o,
                       &buf.params.b_q, &buf.params.b_k, &buf.params.b_v, &buf.params.b_o};
    Tensor* news[8] = {&new_params.W_q, &new_params.W_k, &new_params.W_v, &new_params.W_o,
                       &new_params.b_q, &new_params.b_k, &new_params.b_v, &new_params.b_o};
    const Stage stages[8] = {Stage::W_q, Stage::W_k, Stage::W_v, Stage::W_o,
                             Stage::b_q, Stage::b_k, Stage::b_v, Stage::b_o};
    for (int m = 0; m < 8; ++m) {
      if (olds[m]->empty()) continue;
      pchanged[m] = !tensors_bitwise_equal(*olds[m], *news[m]);
      if (pchanged[m]) olds[m]->data.swap(news[m]->data);
      up.note(stages[m], 0, UpdateKind::full, olds[m]->rows, 0, pchanged[m]);
    }
  }
  if (dropout_changed) {
    buf.keep.swap(new_keep);  // new_keep now holds the previous mask (empty if dropout was off)
    if (old.dropout_active) {
      keep_cache.swap(new_keep);
      keep_cache_p = old.p;
      keep_cache_seed = old.dropout_seed;
      keep_cache_valid = true;
    }
  }
  for (size_t h = 0; h < new_dropped.size(); ++h) buf.heads[h].dropped = std::move(new_dropped[h]);

  // Q, K, V
  std::vector<std::vector<int>> q_rows, k_rows, v_rows;
  std::vector<uint8_t> q_nf, k_nf, v_nf;
  const std::vector<int>& q_in = (pchanged[0] || pchanged[4]) ? up.all() : x_rows;
  const std::vector<int>& k_in = (pchanged[1] || pchanged[5]) ? up.all() : x_rows;
  up.projection_stage(Stage::Q, buf.Q, buf.params.W_q, buf.params.b_q, q_in, &q_rows, &q_nf);
  up.projection_stage(Stage::K, buf.K, buf.params.W_k, buf.params.b_k, k_in, &k_rows, &k_nf);
  transpose_rows(np, buf.Q, &buf.QT, q_in.data(), static_cast<int>(q_in.size()));
  transpose_rows(np, buf.K, &buf.KT, k_in.data(), static_cast<int>(k_in.size()));
  up.projection_stage(Stage::V, buf.V, buf.params.W_v, buf.params.b_v,
                      (pchanged[2] || pchanged[6]) ? up.all() : x_rows, &v_rows, &v_nf);

  const bool divisor_changed = !same_bits(old.divisor, np.divisor);
  const bool mask_changed = !detail::same_mask(old, np);
  const bool safe_changed = old.safe_softmax != np.safe_softmax;
  // The heads, in groups (for_each_head): each group has its own Updater,
  // space and softmax patch; the versions its stages get are bumped after.
  const int groups = static_cast<int>(std::min(spaces.size(), static_cast<size_t>(head_groups(np))));
  std::vector<std::vector<Stage>> deferred(static_cast<size_t>(np.H));  // (H) stages changed, in order
  std::vector<std::vector<int>> head_rows(static_cast<size_t>(np.H));   // (H) context rows that changed
  std::vector<Updater> ups;
  ups.reserve(static_cast<size_t>(groups));
  for (int g = 0; g < groups; ++g) ups.emplace_back(*this, spaces[static_cast<size_t>(g)], &deferred);
  std::vector<SoftmaxPatch> patches(static_cast<size_t>(groups));
  auto head = [&](int g, int h) {
    Updater& hu = ups[static_cast<size_t>(g)];
    SoftmaxPatch& patch = patches[static_cast<size_t>(g)];
    detail::HeadBuffers& hb = buf.heads[h];
    Region in;
    in.rows = q_rows[h];
    in.cols = k_rows[h];
    SquareChange sc = hu.square_stage(Stage::scores, h, hb.scores, in,
                                      [&](const int* r, int nr, const int* c, int nc) {
                                        compute_scores(np, buf, h, r, nr, c, nc, hu.sc());
                                      });
    HeadChange change;
    change.masked_rows = hu.derive_stages(old, h, sc, divisor_changed, mask_changed, &patch);
    change.patch = &patch;
    change.safe_changed = safe_changed;
    change.dropout_changed = dropout_changed;
    change.v_rows = &v_rows[static_cast<size_t>(h)];
    change.v_nonfinite = v_nf[static_cast<size_t>(h)] != 0;
    head_rows[static_cast<size_t>(h)] = update_head(*this, hu, old, h, wanted(h), change);
  };
  for_each_head(groups, np.H, head);
  std::vector<int> concat_rows;
  for (int h = 0; h < np.H; ++h) {
    for (Stage s : deferred[static_cast<size_t>(h)]) bump(s, h);
    concat_rows = merge_rows(concat_rows, head_rows[static_cast<size_t>(h)], np.S);
  }
  update_tail(*this, up, concat_rows, np.out_proj && (pchanged[3] || pchanged[7]));
}

// ---- [SECTION] Pipeline API ---------------------------------------------------------

Pipeline::Pipeline() : impl_(new Impl) {}
Pipeline::~Pipeline() = default;
Pipeline::Pipeline(Pipeline&& other) : impl_(new Impl) { impl_.swap(other.impl_); }
Pipeline& Pipeline::operator=(Pipeline&& other) {
  if (this != &other) {
    std::unique_ptr<Impl> empty(new Impl);
    impl_.swap(other.impl_);
    other.impl_.swap(empty);
  }
  return *this;
}

namespace {

// Runs f (an apply), turning what it throws into a sentence: set_state never throws.
template <class F>
Status guarded_apply(F&& f) {
  try {
    f();
  } catch (const std::bad_alloc&) {
    return Status::refusal(Msg::no_memory_for_state, "tokens");
  } catch (const std::exception& e) {
    return Status::refusal(Msg::could_not_apply, "", {e.what()});
  }
  return Status::success();
}

}  // namespace

Status Pipeline::set_state(const State& state) {
  Status st = validate_state(state);
  if (!st.ok) return st;
  return guarded_apply([&] { impl_->apply(State(state)); });  // the copy may run out of memory too
}

Status Pipeline::set_state(State&& state) {
  Status st = validate_state(state);
  if (!st.ok) return st;
  return guarded_apply([&] { impl_->apply(std::move(state)); });
}

void Pipeline::track_demand() {
  Impl& im = *impl_;
  im.lazy = true;
  im.read_before.swap(im.read_now);
  im.read_now.assign(im.read_before.size(), 0);
  im.tail_read_before = im.tail_read_now;
  im.tail_read_now = false;
}

bool Pipeline::has_result() const { return impl_->has_result; }
const State& Pipeline::state() const { return impl_->state; }
int Pipeline::seq_len() const { return impl_->has_result ? impl_->plan.S : 0; }
int Pipeline::d_model() const { return impl_->has_result ? impl_->plan.d_model : 0; }
int Pipeline::d_out() const { return impl_->has_result ? impl_->plan.d_out : 0; }
int Pipeline::num_heads() const { return impl_->has_result ? impl_->plan.H : 0; }
int Pipeline::head_dim() const { return impl_->has_result ? impl_->plan.head_dim : 0; }

// scaled and masked of one head, materialised from scores when first asked
// for after they changed (the version they hold is remembered), so the UI's
// pointer stays valid until the next set_state(). dropped without dropout is
// the weights buffer.
const Tensor* Pipeline::matrix(Stage stage, int head) const {
  if (!impl_->has_result) return nullptr;
  const Tensor* t = detail::stage_tensor(impl_->buf, stage, head);
  if (t == nullptr) return nullptr;
  impl_->read(stage, head);
  if (!stage_is_per_head(stage)) return t;
  const detail::Plan& p = impl_->plan;
  detail::HeadBuffers& hb = impl_->buf.heads[static_cast<size_t>(head)];
  const uint64_t v = impl_->versions[static_cast<int>(stage)][head];
  if (stage == Stage::scaled) {
    if (hb.scaled_at != v || hb.scaled.empty()) {
      hb.scaled.reset(p.S, p.S);
      for (int r = 0; r < p.S; ++r) kernels::div_scalar(hb.scores.row(r), 1, hb.scaled.row(r), 1, p.S, p.divisor);
      hb.scaled_at = v;
    }
    return &hb.scaled;
  }
  if (stage == Stage::masked) {
    if (hb.masked_at != v || hb.masked.empty()) {
      hb.masked.reset(p.S, p.S);
      for (int r = 0; r < p.S; ++r) {
        kernels::masked_row(hb.scores.row(r), hb.masked.row(r), p.S, r, p.divisor, p.causal, p.padded(), p.fill);
      }
      hb.masked_at = v;
    }
    return &hb.masked;
  }
  if (stage == Stage::dropped) return &dropped_of(p, hb);
  return t;
}

const Tensor* Pipeline::matrix(std::string_view name, int head) const {
  Stage s;
  if (!stage_from_name(name, &s)) return nullptr;
  return matrix(s, head);
}

TensorView Pipeline::head_slice(Stage qkv, int head) const {
  if (!impl_->has_result || head < 0 || head >= impl_->plan.H) return {};
  if (qkv != Stage::Q && qkv != Stage::K && qkv != Stage::V) return {};
  const Tensor& t = qkv == Stage::Q ? impl_->buf.Q : (qkv == Stage::K ? impl_->buf.K : impl_->buf.V);
  return t.column_slice(head * impl_->plan.head_dim, impl_->plan.head_dim);
}

uint64_t Pipeline::version(Stage stage, int head) const {
  // stage_tensor, not matrix(): asking for a version must not materialise
  // scaled / masked; a stale stage (lazy mode) is brought up to date, so its
  // version is that of its current contents.
  if (!impl_->has_result || detail::stage_tensor(impl_->buf, stage, head) == nullptr) return 0;
  impl_->read(stage, head);
  return impl_->versions[static_cast<int>(stage)][head];
}

StageUpdate Pipeline::last_update(Stage stage, int head) const {
  if (!impl_->has_result || detail::stage_tensor(impl_->buf, stage, head) == nullptr) return {};
  impl_->read(stage, head);
  return impl_->updates[static_cast<int>(stage)][head];
}

bool Pipeline::current(Stage stage, int head) const {
  const Impl& im = *impl_;
  if (!im.has_result || detail::stage_tensor(im.buf, stage, head) == nullptr) return false;
  const int level = detail::stage_level(stage);
  if (level <= detail::kScores) return true;
  return level == detail::kTail ? im.tail_valid : im.valid[static_cast<size_t>(head)] >= level;
}

bool Pipeline::holds(Stage stage, int head) const {
  if (!impl_->has_result) return false;
  const Tensor* t = detail::stage_tensor(impl_->buf, stage, head);
  return t != nullptr && !t->empty();
}

float Pipeline::divisor() const { return impl_->plan.divisor; }

bool Pipeline::cell_masked(int i, int j, MaskReason* reason) const {
  const detail::Plan& p = impl_->plan;
  const bool causal = p.causal && j > i;
  const bool padded = p.padded() != nullptr && j >= 0 && j < p.S && p.key_padded[j] != 0;
  if (reason != nullptr) {
    *reason = causal && padded ? MaskReason::causal_and_padding
              : causal         ? MaskReason::causal
              : padded         ? MaskReason::padding
                               : MaskReason::none;
  }
  return causal || padded;
}

bool Pipeline::dropout_active() const { return impl_->plan.dropout_active; }
float Pipeline::dropout_scale() const { return impl_->plan.dropout_scale; }

const uint8_t* Pipeline::dropout_keep(int head) const {
  const detail::Plan& p = impl_->plan;
  if (!impl_->has_result || !p.dropout_active || head < 0 || head >= p.H) return nullptr;
  return impl_->buf.keep.data() + static_cast<size_t>(head) * p.S * p.S;
}

}  // namespace attnviz
