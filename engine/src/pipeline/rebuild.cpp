// Full rebuilds: the first state, another shape (reshape, which carries
// rows of Q, K, V and scores over to another number of tokens with
// carry.cpp), and restore() after a failure. Incremental updates:
// pipeline_apply.cpp.
#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "pipeline/pipeline_compute.h"
#include "pipeline/pipeline_internal.h"

namespace attnviz {

namespace {

// Sizes every buffer of b for state s (plan p), keeping X and any score
// buffers already in place, and builds the parameters (unless params is
// false) and the keep mask, for compute_everything.
void prepare_buffers(const State& s, const detail::Plan& p, detail::Buffers* b, bool params) {
  detail::allocate_buffers(p, b);
  b->QT.reset_for_overwrite(p.d_out, p.S);  // written whole by compute_everything
  b->KT.reset_for_overwrite(p.kv_dim, p.S);
  if (p.dropout_active) {
    for (detail::HeadBuffers& hb : b->heads) hb.dropped.reset(p.S, p.S);
  }
  if (params) detail::build_params(s, &b->params);
  detail::build_keep_mask(p, &b->keep);
}

std::vector<detail::WorkSpace> make_spaces(const detail::Plan& p) {
  std::vector<detail::WorkSpace> out(static_cast<size_t>(detail::head_groups(p)));
  for (detail::WorkSpace& ws : out) detail::make_space(p, &ws);
  return out;
}

}  // namespace

void Pipeline::Impl::rebuild(State&& next, const detail::Plan& np, detail::Buffers& fresh,
                             const detail::Carry* carry, bool params_kept) {
  std::vector<uint8_t> want(static_cast<size_t>(np.H));
  for (int h = 0; h < np.H; ++h) want[static_cast<size_t>(h)] = static_cast<uint8_t>(wanted(h));
  detail::compute_everything(np, fresh, spaces, want, tail_wanted(), carry);
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
  if (np.long_mode()) {  // nothing of the heads computed: every context and tail row is stale
    std::fill(want.begin(), want.end(), uint8_t{detail::kScores});
  }
  std::vector<std::vector<uint8_t>> stale(np.long_mode() ? static_cast<size_t>(np.H) : 0,
                                          std::vector<uint8_t>(static_cast<size_t>(np.S), 1));
  std::vector<uint8_t> concat_rows(np.long_mode() ? static_cast<size_t>(np.S) : 0, 1);
  // Commit (moves only).
  ctx_stale = std::move(stale);
  concat_stale = std::move(concat_rows);
  output_stale_all = np.long_mode();
  detail::clear_maps(&maps);
  valid = std::move(want);
  tail_valid = tail_wanted() && !np.long_mode();
  state = std::move(next);
  plan = np;
  buf = std::move(fresh);
  versions = std::move(new_versions);
  updates = std::move(new_updates);
  has_result = true;
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
    // (A result in long mode has no score cells to carry, and one in it takes none.)
    const bool carried = params_kept && !plan.long_mode() && !np.long_mode() &&
                         detail::find_carry(old, fresh.X, &carry, np.rope);
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
    detail::compute_everything(plan, b, spaces, valid, tail_valid, nullptr);
    buf = std::move(b);
    for (std::vector<uint8_t>& rows : ctx_stale) std::fill(rows.begin(), rows.end(), uint8_t{1});
    std::fill(concat_stale.begin(), concat_stale.end(), uint8_t{1});
    output_stale_all = plan.long_mode();
    detail::clear_maps(&maps);
  } catch (...) {
    has_result = false;  // not even the old result fits now
    buf = detail::Buffers();
    std::vector<detail::WorkSpace>().swap(spaces);
  }
}

}  // namespace attnviz
