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
  for (int bj = 0; bj < n; ++bj) {
    const int j0 = bj * block, w_cols = std::min(block, S - j0);
    if (pool == Pipeline::Pool::max) {
      float m = -std::numeric_limits<float>::infinity();
      bool nan = false;
      for (int t = 0; t < h_rows; ++t) {
        const float* r = rows + t * stride + j0;
        for (int j = 0; j < w_cols; ++j) {
          nan |= r[j] != r[j];
          m = r[j] > m ? r[j] : m;
        }
      }
      out[bj] = nan ? std::numeric_limits<float>::quiet_NaN() : m;
    } else {  // the block's cells summed in double, row by row, then one division, rounded once
      double sum = 0.0;
      for (int t = 0; t < h_rows; ++t) {
        const float* r = rows + t * stride + j0;
        for (int j = 0; j < w_cols; ++j) sum += r[j];
      }
      out[bj] = static_cast<float>(sum / (static_cast<double>(h_rows) * w_cols));
    }
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
    if (!every_row) {
      touched.assign(static_cast<size_t>(p.S), 0);
      rows_touched(p, m.stage, q_rows, k_rows, &touched);
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
      }
    }
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
  }
}

// Computes pooled rows todo[0 … n − 1] of m, one per part.
void compute_batch(Pipeline::Impl& im, PooledMap& m, const int* todo, int n) {
  struct Ctx {
    Pipeline::Impl* im;
    PooledMap* m;
    const int* todo;
    int n;
    std::exception_ptr err[kMaxThreads];
  } ctx{&im, &m, todo, n, {}};
  auto part = [](void* c, int g) {
    Ctx& x = *static_cast<Ctx*>(c);
    try {
      const detail::Plan& p = x.im->plan;
      std::vector<float> rows, scratch;
      const int I = x.todo[g];
      const int i0 = I * x.m->block, h_rows = std::min(x.m->block, p.S - i0);
      detail::stage_rows(p, x.im->buf, x.m->stage, x.m->head, i0, h_rows, &rows, &scratch);
      std::vector<float>& out = x.m->rows[static_cast<size_t>(I)];
      out.resize(static_cast<size_t>(x.m->n));
      detail::pool_rows(rows.data(), h_rows, p.S, x.m->block, x.m->pool, out.data());
    } catch (...) {
      x.err[g] = std::current_exception();
    }
  };
  detail::run_parts(n, part, &ctx);
  for (int g = 0; g < n; ++g) {
    const int I = todo[g];
    if (ctx.err[g]) {
      std::vector<float>().swap(m.rows[static_cast<size_t>(I)]);
      continue;
    }
    im.maps.bytes += m.rows[static_cast<size_t>(I)].capacity() * sizeof(float);
    m.used[static_cast<size_t>(I)] = ++im.maps.clock;
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
    if (m.rows[static_cast<size_t>(I)].empty()) todo.push_back(I);
    else m.used[static_cast<size_t>(I)] = first_use;
  }
  const int parts = std::max(1, threads());
  size_t at = 0;
  while (at < todo.size()) {
    const int n = static_cast<int>(std::min(todo.size() - at, static_cast<size_t>(parts)));
    compute_batch(im, m, todo.data() + at, n);
    at += static_cast<size_t>(n);
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
  for (int I = a; I < z; ++I) n += m.rows[static_cast<size_t>(I)].empty() ? 1 : 0;
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
