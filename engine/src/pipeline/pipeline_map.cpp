// Pipeline::map, map_pending, map_prepare: a long input's maps, computed the rows a view
// shows at a time and kept (issue 36, docs/engine.md "Long inputs").
//
// A map is a head's (S × S) stage pooled over b × b blocks (b = 1: the cells). Its
// pooled row I holds the pool of cells rows I·b … I·b + b − 1: one detail::stage_rows
// call over those rows (b rows of S keys), then pooled as overview() pools. Kept rows
// cost ⌈S/b⌉ floats each; past Pipeline::kMapCacheBytes the least recently used go.
// Rows are computed in batches of one pooled row per thread (detail::run_parts); a row's
// bits do not depend on its thread (kernels.h contract 1).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <vector>

#include "attnviz/parallel.h"
#include "kernels/parallel_internal.h"
#include "pipeline/pipeline_internal.h"

namespace attnviz {
namespace detail {

void pool_rows(const float* rows, int h_rows, int S, int block, Pipeline::Pool pool, float* out) {
  const int n = (S + block - 1) / block;
  const size_t stride = static_cast<size_t>(S);
  if (pool == Pipeline::Pool::max) {
    // Row by row, each block's cells in one contiguous run: loops the compiler
    // vectorises (an int NaN flag, a select for the max).
    for (int bj = 0; bj < n; ++bj) out[bj] = -std::numeric_limits<float>::infinity();
    std::vector<int> nan(static_cast<size_t>(n), 0);
    for (int t = 0; t < h_rows; ++t) {
      const float* r = rows + t * stride;
      for (int bj = 0; bj < n; ++bj) {
        const int j0 = bj * block, w_cols = std::min(block, S - j0);
        const float* c = r + j0;
        float m = out[bj];
        int bad = 0;
        for (int j = 0; j < w_cols; ++j) {
          const float x = c[j];
          bad |= x != x;
          m = x > m ? x : m;
        }
        out[bj] = m;
        nan[static_cast<size_t>(bj)] |= bad;
      }
    }
    for (int bj = 0; bj < n; ++bj) {
      if (nan[static_cast<size_t>(bj)]) out[bj] = std::numeric_limits<float>::quiet_NaN();
    }
    return;
  }
  for (int bj = 0; bj < n; ++bj) {  // the block's cells summed in double, row by row, then one division
    const int j0 = bj * block, w_cols = std::min(block, S - j0);
    double sum = 0.0;
    for (int t = 0; t < h_rows; ++t) {
      const float* r = rows + t * stride + j0;
      for (int j = 0; j < w_cols; ++j) sum += r[j];
    }
    out[bj] = static_cast<float>(sum / (static_cast<double>(h_rows) * w_cols));
  }
}

void clear_maps(MapCache* mc) {
  mc->maps.clear();
  mc->bytes = 0;
}

void rows_touched(const Plan& p, Stage stage, const std::vector<int>& q_rows, const std::vector<int>& k_rows,
                  std::vector<uint8_t>* rows) {
  rows->resize(static_cast<size_t>(p.S), 0);
  for (int r : q_rows) (*rows)[static_cast<size_t>(r)] = 1;
  if (k_rows.empty() || stage == Stage::bias) return;  // bias: S and the slope alone
  const bool all_keys = stage == Stage::scores || stage == Stage::scaled || !p.causal;
  const int from = all_keys ? 0 : k_rows.front();
  std::fill(rows->begin() + from, rows->end(), uint8_t{1});
}

void invalidate_maps(const Plan& p, MapCache* mc, int head, const std::vector<int>& q_rows,
                     const std::vector<int>& k_rows, bool every_row, uint32_t stages) {
  std::vector<uint8_t> touched;
  for (PooledMap& m : mc->maps) {
    if (m.head != head || (stages != 0 && !((stages >> static_cast<int>(m.stage)) & 1u))) continue;
    // scores and scaled: a changed key is one column of every row, patched (col_stale).
    const bool columns = (m.stage == Stage::scores || m.stage == Stage::scaled) && !every_row;
    if (!every_row) {
      touched.assign(static_cast<size_t>(p.S), 0);
      rows_touched(p, m.stage, q_rows, columns ? std::vector<int>() : k_rows, &touched);
    }
    for (int I = 0; I < m.n; ++I) {
      std::vector<float>& row = m.rows[static_cast<size_t>(I)];
      if (row.empty()) continue;
      const int r0 = I * m.block, r1 = std::min(p.S, r0 + m.block);  // rows r0 … r1 − 1
      bool stale = every_row;
      for (int r = r0; r < r1 && !stale; ++r) stale = touched[static_cast<size_t>(r)] != 0;
      if (stale) {
        mc->bytes -= row.capacity() * sizeof(float);
        std::vector<float>().swap(row);
        m.patch[static_cast<size_t>(I)] = 0;
      } else if (columns && !k_rows.empty()) {
        m.patch[static_cast<size_t>(I)] = 1;
      }
    }
    if (columns) {
      for (int k : k_rows) m.col_stale[static_cast<size_t>(k / m.block)] = 1;
    }
  }
}

// Redoes the col_stale blocks of kept pooled row I of m (scores or scaled).
void patch_row(const Plan& p, const Buffers& b, PooledMap& m, int I) {
  std::vector<float> cells;
  const int i0 = I * m.block, h_rows = std::min(m.block, p.S - i0);
  std::vector<float>& out = m.rows[static_cast<size_t>(I)];
  for (int J = 0; J < m.n; ++J) {
    if (!m.col_stale[static_cast<size_t>(J)]) continue;
    const int j0 = J * m.block, w = std::min(m.block, p.S - j0);
    stage_cells(p, b, m.stage, m.head, i0, h_rows, j0, w, &cells);
    pool_rows(cells.data(), h_rows, w, m.block, m.pool, &out[static_cast<size_t>(J)]);
  }
}

}  // namespace detail

namespace {

using detail::MapCache;
using detail::PooledMap;

bool valid_map(const Pipeline::Impl& im, Stage stage, int head, int block) {
  const detail::Plan& p = im.plan;
  return im.has_result && detail::square_stage(stage) && block >= 1 && head >= 0 && head < p.H &&
         !(stage == Stage::bias && p.slopes.empty());
}

PooledMap& find_map(Pipeline::Impl& im, Stage stage, int head, int block, Pipeline::Pool pool) {
  if (block == 1) pool = Pipeline::Pool::max;  // a 1 × 1 block is its cell either way
  for (PooledMap& m : im.maps.maps) {
    if (m.stage == stage && m.head == head && m.block == block && m.pool == pool) return m;
  }
  PooledMap m;
  m.stage = stage;
  m.head = head;
  m.block = block;
  m.pool = pool;
  m.n = (im.plan.S + block - 1) / block;
  m.rows.resize(static_cast<size_t>(m.n));
  m.used.assign(static_cast<size_t>(m.n), 0);
  m.col_stale.assign(static_cast<size_t>(m.n), 0);
  m.patch.assign(static_cast<size_t>(m.n), 0);
  im.maps.maps.push_back(std::move(m));
  return im.maps.maps.back();
}

// Frees the least recently used rows (never those used at `keep` or later) until the
// kept rows fit in the budget.
void evict(MapCache& mc, uint64_t keep) {
  while (mc.bytes > Pipeline::kMapCacheBytes) {
    PooledMap* best = nullptr;
    size_t best_i = 0;
    uint64_t oldest = keep;
    for (PooledMap& m : mc.maps) {
      for (size_t i = 0; i < m.rows.size(); ++i) {
        if (!m.rows[i].empty() && m.used[i] < oldest) {
          oldest = m.used[i];
          best = &m;
          best_i = i;
        }
      }
    }
    if (best == nullptr) return;
    mc.bytes -= best->rows[best_i].capacity() * sizeof(float);
    std::vector<float>().swap(best->rows[best_i]);
    best->patch[best_i] = 0;
  }
}

// Stages that square_rows computes together (not bias: no scores in it).
bool shares_scores(Stage st) {
  return st == Stage::scores || st == Stage::scaled || st == Stage::masked || st == Stage::weights ||
         st == Stage::dropped;
}

// m and the kept maps of its head, block and pool that one product of scores rows can
// fill beside it (m first, at most 5). A stage past the causal cut takes no sibling that
// would undo the cut (scores, scaled): their product is twice as long.
std::vector<PooledMap*> scores_group(MapCache& mc, PooledMap& m) {
  std::vector<PooledMap*> g{&m};
  if (!shares_scores(m.stage)) return g;
  const bool full = m.stage == Stage::scores || m.stage == Stage::scaled;
  for (PooledMap& o : mc.maps) {
    if (&o == &m || o.head != m.head || o.block != m.block || o.pool != m.pool || !shares_scores(o.stage)) continue;
    if (!full && (o.stage == Stage::scores || o.stage == Stage::scaled)) continue;
    g.push_back(&o);
  }
  return g;
}

// Computes pooled row I of the maps of group (its first is the map asked for; the others
// only where they have no row I) from one call of square_rows; bit k of *got: group[k]
// was given row I (set before it is written, so a failure can take it back).
void compute_group_row(const detail::Plan& p, const detail::Buffers& b, const std::vector<PooledMap*>& group, int I,
                       uint32_t* got) {
  const PooledMap& m = *group[0];
  const int i0 = I * m.block, h_rows = std::min(m.block, p.S - i0);
  std::vector<float> scratch;
  if (!shares_scores(m.stage)) {  // bias
    std::vector<float> rows;
    detail::stage_rows(p, b, m.stage, m.head, i0, h_rows, &rows, &scratch);
    *got = 1u;
    std::vector<float>& out = group[0]->rows[static_cast<size_t>(I)];
    out.resize(static_cast<size_t>(m.n));
    detail::pool_rows(rows.data(), h_rows, p.S, m.block, m.pool, out.data());
    return;
  }
  std::vector<float> rows[5];
  std::vector<float>* outs[kStageCount] = {};
  uint32_t want = 0;
  for (size_t k = 0; k < group.size(); ++k) {
    if (k > 0 && !group[k]->rows[static_cast<size_t>(I)].empty()) continue;
    outs[static_cast<int>(group[k]->stage)] = &rows[k];
    want |= 1u << static_cast<int>(group[k]->stage);
    *got |= 1u << k;
  }
  detail::square_rows(p, b, m.head, i0, h_rows, want, outs, &scratch);
  for (size_t k = 0; k < group.size(); ++k) {
    if (!((*got >> k) & 1u)) continue;
    std::vector<float>& out = group[k]->rows[static_cast<size_t>(I)];
    out.resize(static_cast<size_t>(m.n));
    detail::pool_rows(rows[k].data(), h_rows, p.S, m.block, m.pool, out.data());
  }
}

// Computes pooled rows todo[0 … n − 1] of m, one per part, and of its scores group
// (scores_group) the same rows where they have none: the Stages tab's five maps of a
// head cost one product of scores rows instead of five.
void compute_batch(Pipeline::Impl& im, PooledMap& m, const int* todo, int n) {
  struct Ctx {
    Pipeline::Impl* im;
    std::vector<PooledMap*> group;
    const int* todo;
    int n;
    uint32_t got[kMaxThreads];
    std::exception_ptr err[kMaxThreads];
  } ctx{&im, scores_group(im.maps, m), todo, n, {}, {}};
  auto part = [](void* c, int g) {
    Ctx& x = *static_cast<Ctx*>(c);
    try {
      const detail::Plan& p = x.im->plan;
      const int I = x.todo[g];
      PooledMap& asked = *x.group[0];
      if (!asked.rows[static_cast<size_t>(I)].empty()) {  // a kept row: only its changed column blocks
        detail::patch_row(p, x.im->buf, asked, I);
        return;
      }
      compute_group_row(p, x.im->buf, x.group, I, &x.got[g]);
    } catch (...) {
      x.err[g] = std::current_exception();
    }
  };
  detail::run_parts(n, part, &ctx);
  for (int g = 0; g < n; ++g) {
    const int I = todo[g];
    const bool patched = m.patch[static_cast<size_t>(I)] != 0;
    m.patch[static_cast<size_t>(I)] = 0;
    const uint64_t now = ++im.maps.clock;
    for (size_t k = 0; k < ctx.group.size(); ++k) {
      const bool mine = k == 0 && patched;  // a patched row was counted in the bytes already
      if (!mine && !((ctx.got[g] >> k) & 1u)) continue;
      std::vector<float>& row = ctx.group[k]->rows[static_cast<size_t>(I)];
      if (ctx.err[g]) {  // the rows go
        if (mine) im.maps.bytes -= row.capacity() * sizeof(float);
        std::vector<float>().swap(row);
        continue;
      }
      if (!mine) im.maps.bytes += row.capacity() * sizeof(float);
      ctx.group[k]->used[static_cast<size_t>(I)] = now;
    }
  }
  for (int g = 0; g < n; ++g) {
    if (ctx.err[g]) std::rethrow_exception(ctx.err[g]);
  }
}

// Computes the pending rows of [I0, I1) in order, a batch (one row per thread) at a
// time, until budget_ms (< 0: no limit) have passed; returns how many still pend.
int fill(Pipeline::Impl& im, PooledMap& m, int I0, int I1, double budget_ms) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const uint64_t first_use = ++im.maps.clock;  // the range's kept rows are not evicted for its new ones
  std::vector<int> todo;
  for (int I = I0; I < I1; ++I) {
    if (m.needs(I)) todo.push_back(I);
    if (!m.rows[static_cast<size_t>(I)].empty()) m.used[static_cast<size_t>(I)] = first_use;
  }
  const int parts = std::max(1, threads());
  size_t at = 0;
  while (at < todo.size()) {
    const int n = static_cast<int>(std::min(todo.size() - at, static_cast<size_t>(parts)));
    compute_batch(im, m, todo.data() + at, n);
    at += static_cast<size_t>(n);
    if (std::find(m.patch.begin(), m.patch.end(), uint8_t{1}) == m.patch.end())
      std::fill(m.col_stale.begin(), m.col_stale.end(), uint8_t{0});
    evict(im.maps, first_use);
    const double ms = std::chrono::duration<double, std::milli>(clock::now() - start).count();
    if (budget_ms >= 0 && ms >= budget_ms) break;
  }
  return static_cast<int>(todo.size() - at);
}

}  // namespace

bool Pipeline::long_mode() const { return impl_->has_result && impl_->plan.long_mode(); }

void Pipeline::set_long_from(int tokens) {
  impl_->long_from = std::max(0, tokens);
  impl_->has_result = false;  // the next set_state builds afresh
  impl_->buf = detail::Buffers();
  std::vector<detail::WorkSpace>().swap(impl_->spaces);
  detail::clear_maps(&impl_->maps);
}

int Pipeline::map_pending(Stage stage, int head, int block, Pool pool, int I0, int nI) const {
  if (!valid_map(*impl_, stage, head, block)) return 0;
  PooledMap& m = find_map(*impl_, stage, head, block, pool);
  const int a = std::max(0, I0), z = std::min(m.n, I0 + std::max(0, nI));
  int n = 0;
  for (int I = a; I < z; ++I) n += m.needs(I) ? 1 : 0;
  return n;
}

int Pipeline::map_prepare(Stage stage, int head, int block, Pool pool, int I0, int nI, double budget_ms) const {
  if (!valid_map(*impl_, stage, head, block)) return 0;
  PooledMap& m = find_map(*impl_, stage, head, block, pool);
  const int a = std::max(0, I0), z = std::min(m.n, I0 + std::max(0, nI));
  return a < z ? fill(*impl_, m, a, z, std::max(0.0, budget_ms)) : 0;
}

bool Pipeline::map(Stage stage, int head, int block, Pool pool, int I0, int nI, int J0, int nJ, Tensor* out) const {
  *out = Tensor();
  if (!valid_map(*impl_, stage, head, block)) return false;
  PooledMap& m = find_map(*impl_, stage, head, block, pool);
  const int a = std::max(0, I0), z = std::min(m.n, I0 + std::max(0, nI));
  const int c0 = std::max(0, J0), c1 = std::min(m.n, J0 + std::max(0, nJ));
  if (a >= z || c0 >= c1) return false;
  fill(*impl_, m, a, z, -1.0);
  out->reset(z - a, c1 - c0);
  const uint64_t now = ++impl_->maps.clock;
  for (int I = a; I < z; ++I) {
    const std::vector<float>& r = m.rows[static_cast<size_t>(I)];
    std::copy(r.begin() + c0, r.begin() + c1, out->row(I - a));
    m.used[static_cast<size_t>(I)] = now;
  }
  return true;
}

}  // namespace attnviz
