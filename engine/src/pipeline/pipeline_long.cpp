// Long mode (Pipeline::long_mode, issue 36; docs/engine.md "Long inputs"): above
// Limits::kMaxFullTokens tokens no head keeps an (S × S) buffer. set_state() brings X,
// the parameters, Q, K, V (and QT, KT, q_rot, k_rot) up to date as always and then only
// marks what its change touched: kept map rows (invalidate_maps) and the rows of each
// head's context, concat and output (rows_touched). Reading context or the tail computes
// the stale rows here, from rows on demand (detail::stage_rows), on every thread
// allowed; versions and records change as the full path's do (a row compared with the
// one it replaces). The same bits as the full path (kernels.h contract 1).
//
// Cost: a context row is S · head_dim multiply-adds twice (scores, then weights · V);
// a head's whole context at S = 8,192, head_dim 64 is ~8.6 G multiply-adds.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <vector>

#include "attnviz/kernels.h"
#include "attnviz/parallel.h"
#include "pipeline/pipeline_compute.h"
#include "pipeline/pipeline_update.h"

namespace attnviz {
namespace {

using detail::Plan;

// Runs of stale rows, at most kRun rows each: the units the threads take.
constexpr int kRun = 32;
struct Run {
  int i0, n;
};

std::vector<Run> stale_runs(const std::vector<uint8_t>& stale) {
  std::vector<Run> runs;
  const int S = static_cast<int>(stale.size());
  for (int i = 0; i < S;) {
    if (!stale[static_cast<size_t>(i)]) {
      ++i;
      continue;
    }
    int j = i;
    while (j < S && stale[static_cast<size_t>(j)] && j - i < kRun) ++j;
    runs.push_back({i, j - i});
    i = j;
  }
  return runs;
}

// Head h's stale context rows computed, written where they differ; returns the rows
// that changed.
std::vector<int> refresh_context(Pipeline::Impl& im, int h) {
  std::vector<uint8_t>& stale = im.ctx_stale[static_cast<size_t>(h)];
  const std::vector<Run> runs = stale_runs(stale);
  Tensor& ctx = im.buf.heads[static_cast<size_t>(h)].context;
  const int hd = im.plan.head_dim;
  std::vector<uint8_t> changed(static_cast<size_t>(im.plan.S), 0);
  // Whether V_g is finite (the context product's early stop needs it): once a head, not
  // once a run of rows.
  const detail::Plan& pl = im.plan;
  const float* vh = im.buf.V.data.data() + static_cast<size_t>(pl.kv_head(h)) * pl.head_dim;
  const int v_finite = kernels::all_finite_rows(vh, pl.S, pl.head_dim, static_cast<size_t>(pl.kv_dim)) ? 1 : 0;
  struct Ctx {
    Pipeline::Impl* im;
    int h, hd, v_finite;
    const std::vector<Run>* runs;
    Tensor* ctx;
    uint8_t* changed;
    std::atomic<size_t> next{0};
    std::exception_ptr err[kMaxThreads];
  } c;
  c.im = &im;
  c.h = h;
  c.hd = hd;
  c.v_finite = v_finite;
  c.runs = &runs;
  c.ctx = &ctx;
  c.changed = changed.data();
  auto part = [](void* p, int g) {
    Ctx& x = *static_cast<Ctx*>(p);
    try {
      std::vector<float> out, scratch;
      for (size_t k = x.next.fetch_add(1); k < x.runs->size(); k = x.next.fetch_add(1)) {
        const Run r = (*x.runs)[k];
        detail::stage_rows(x.im->plan, x.im->buf, Stage::context, x.h, r.i0, r.n, &out, &scratch, x.v_finite);
        for (int t = 0; t < r.n; ++t) {
          float* dst = x.ctx->row(r.i0 + t);
          const float* src = out.data() + static_cast<size_t>(t) * x.hd;
          if (std::memcmp(dst, src, sizeof(float) * static_cast<size_t>(x.hd)) != 0) {
            std::memcpy(dst, src, sizeof(float) * static_cast<size_t>(x.hd));
            x.changed[r.i0 + t] = 1;
          }
        }
      }
    } catch (...) {
      x.err[g] = std::current_exception();
      x.next.store(x.runs->size());
    }
  };
  detail::run_parts(std::max(1, std::min(threads(), static_cast<int>(runs.size()))), part, &c);
  for (const std::exception_ptr& e : c.err) {
    if (e) std::rethrow_exception(e);  // the rows stay marked stale: a later read redoes them
  }
  std::vector<int> rows;
  int redone = 0;
  for (int i = 0; i < im.plan.S; ++i) {
    redone += stale[static_cast<size_t>(i)];
    stale[static_cast<size_t>(i)] = 0;
    if (changed[static_cast<size_t>(i)]) rows.push_back(i);
  }
  StageUpdate& u = im.updates[static_cast<int>(Stage::context)][h];
  u = StageUpdate{redone == im.plan.S ? UpdateKind::full : UpdateKind::partial, redone, 0, !rows.empty()};
  if (!rows.empty()) im.bump(Stage::context, h);
  im.valid[static_cast<size_t>(h)] = detail::kContext;
  return rows;
}

bool any(const std::vector<uint8_t>& v) { return std::find(v.begin(), v.end(), uint8_t{1}) != v.end(); }

}  // namespace

void Pipeline::Impl::long_read(Stage s, int head) {
  const int level = detail::stage_level(s);
  if (level < detail::kContext) return;  // the (S × S) stages have no buffer; the rest is current
  for (int h = 0; h < plan.H; ++h) {
    if (level != detail::kTail && h != head) continue;
    if (any(ctx_stale[static_cast<size_t>(h)])) refresh_context(*this, h);
  }
  if (level != detail::kTail || (!any(concat_stale) && !output_stale_all)) {
    if (level == detail::kTail) tail_valid = true;
    return;
  }
  std::vector<int> rows;
  for (int i = 0; i < plan.S; ++i) {
    if (concat_stale[static_cast<size_t>(i)]) rows.push_back(i);
  }
  detail::Updater up(*this, spaces[0]);
  const Plan& p = plan;
  const std::vector<int> cat = up.rows_stage(Stage::concat, 0, buf.concat, rows, [&](const int* r, int n) {
    for (int t = 0; t < n; ++t) detail::compute_concat_row(p, buf, r[t]);
  });
  up.rows_stage(Stage::output, 0, buf.output, output_stale_all ? up.all() : cat,
                [&](const int* r, int n) { detail::compute_output(p, buf, r, n); });
  std::fill(concat_stale.begin(), concat_stale.end(), uint8_t{0});
  output_stale_all = false;
  tail_valid = true;
}

namespace detail {

void mark_long_rows(Pipeline::Impl& im, int h, const std::vector<int>& q_rows, const std::vector<int>& kv_rows,
                    bool every_row, bool out_changed) {
  std::vector<uint8_t>& stale = im.ctx_stale[static_cast<size_t>(h)];
  if (every_row) {
    std::fill(stale.begin(), stale.end(), uint8_t{1});
  } else {
    rows_touched(im.plan, Stage::context, q_rows, kv_rows, &stale);
  }
  for (size_t i = 0; i < stale.size(); ++i) im.concat_stale[i] |= stale[i];
  im.output_stale_all = im.output_stale_all || out_changed;
  if (any(stale)) im.valid[static_cast<size_t>(h)] = kScores;
  if (any(im.concat_stale) || im.output_stale_all) im.tail_valid = false;
}

}  // namespace detail
}  // namespace attnviz
