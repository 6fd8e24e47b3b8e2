// Internal to the engine: the stage computations the full build
// (compute_everything) and the incremental update (pipeline_update.cpp,
// pipeline_apply.cpp) share, and the running of heads in parallel. All
// arithmetic goes through kernels.h. Defined in pipeline_forward.cpp.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <vector>

#include "attnviz/parallel.h"
#include "kernels/parallel_internal.h"
#include "pipeline/pipeline_internal.h"

namespace attnviz {
namespace detail {

inline const float* ptr_or_null(const Tensor& t) { return t.empty() ? nullptr : t.data.data(); }

inline bool same_bits(float a, float b) {
  uint32_t x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return x == y;
}

// The dropped stage's contents: its own buffer under dropout, else the weights.
inline const Tensor& dropped_of(const Plan& p, const HeadBuffers& hb) {
  return p.dropout_active ? hb.dropped : hb.weights;
}

// 0, 1, ..., n − 1.
std::vector<int> iota_rows(int n);

// out rows = X rows · W (+ b).  X: (S × d_model), W: (d_model × d_out), out: (S × d_out)
void compute_projection(const Plan& p, const Tensor& X, const Tensor& W, const Tensor& b, Tensor* out,
                        const int* rows, int n);
// Q_hᵀ and K_hᵀ for the score products: QT (d_out × S), KT (kv_dim × S), row c
// = column c of Q / K. Rows r of Q and K go to columns r of QT and KT.
void transpose_rows(const Plan& p, const Tensor& src, Tensor* dst, const int* rows, int n);
// RoPE: out (head_dim) = the head_dim-wide x (a head's slice of Q or K row r)
// rotated for position r.
void rotate_row(const Plan& p, const float* x, int r, float* out);
// Writes row r of a head's q_rot / k_rot (head_dim) into columns r of rows
// col0 … col0 + head_dim − 1 of QT or KT.
void put_columns(const Plan& p, const float* row, int r, int col0, Tensor* T);
// RoPE, every row: each head's q_rot and k_rot (k_rot of K/V head kv_head(h)),
// and QT, KT from them.
void rotate_all(const Plan& p, Buffers& b);
// scores of head h (S × S) = Q_h · K_gᵀ (q_rot · k_rotᵀ with RoPE) for whole rows and whole columns.
void compute_scores(const Plan& p, Buffers& b, int h, const int* rows, int nrows, const int* cols, int ncols,
                    Scratch& sc);
// dropped row r = dropout(weights row r) with head h's slice of the keep mask.  (S)
// Only when dropout is active; otherwise dropped is the weights buffer itself.
void compute_dropped_row(const Plan& p, const Buffers& b, HeadBuffers& hb, int h, int r);
// context rows = dropped rows · V_g.  dropped: (S × S), V_g: (S × head_dim) stride kv_dim
void compute_context(const Plan& p, const Buffers& b, HeadBuffers& hb, int h, const int* rows, int n,
                     Scratch& sc);
// concat row r = [context_0 row r, ..., context_{H−1} row r].  (d_out)
void compute_concat_row(const Plan& p, Buffers& b, int r);
// output rows = concat rows · W_o (+ b_o), or concat rows.  (S × d_out)
void compute_output(const Plan& p, Buffers& b, const int* rows, int n);

// ---- heads in parallel ----
// Each head's stages read Q, K, V, the plan and the keep mask, and write only
// that head's buffers and records (Impl::updates[s][h], valid[h]) and the
// working space it is given: heads can run on different threads, and which
// thread runs a head never changes a bit.

// Sizes a space for the worst case up front, so that an update never fails
// half way for lack of memory (its buffers are written before they are read,
// so not zeroed).
void make_space(const Plan& p, WorkSpace* ws);
// How many groups the heads of plan p are handed to: one per thread, at most
// one per head, and no more extra spaces than kMaxExtraSpaceBytes holds.
int head_groups(const Plan& p);

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
  run_parts(std::max(1, std::min(groups, kMaxThreads)), part, &ctx);
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
void compute_everything(const Plan& p, Buffers& b, std::vector<WorkSpace>& spaces, const std::vector<uint8_t>& want,
                        bool tail, const Carry* carry);

}  // namespace detail
}  // namespace attnviz
