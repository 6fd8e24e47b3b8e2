// Pipeline::Impl::apply: one set_state. Another shape goes to reshape
// (rebuild.cpp); the same shapes are an incremental update, in two parts:
// describe the change (build_inputs, describe_change: change_set.h), then
// carry it out step by step, each step recomputing only what the ChangeSet
// and the steps before it say changed (pipeline_update.h's Updater).
#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "pipeline/change_set.h"
#include "pipeline/pipeline_update.h"

namespace attnviz {

namespace {

using detail::Buffers;
using detail::ChangeSet;
using detail::Plan;
using detail::Updater;

// What apply allocates before it changes anything, so that running out of
// memory leaves the old result whole.
struct Prepared {
  detail::NewInputs in;         // X and the parameters, where their spec changed
  ChangeSet cs;                 // describe_change
  std::vector<uint8_t> keep;    // (H × S × S) the new keep mask when dropout changed and is on
  std::vector<Tensor> dropped;  // (H) × (S × S) when dropout switches on
};

// The keep mask dropout needs after the change cs, into *keep. Switching
// dropout back on with the same p and seed draws the same mask: the one
// kept when it was switched off is reused (drawing is ~H·S² RNG calls).
void take_keep_mask(Pipeline::Impl& im, const Plan& np, const ChangeSet& cs, std::vector<uint8_t>* keep) {
  if (!cs.dropout_changed || !np.dropout_active) return;
  if (im.keep_cache_valid && im.keep_cache_p == np.p && im.keep_cache_seed == np.dropout_seed) {
    keep->swap(im.keep_cache);
    im.keep_cache_valid = false;
  } else {
    detail::build_keep_mask(np, keep);
  }
}

// Swaps the changed inputs into the result: X rows, parameters (each with
// its record), the keep mask (the previous one kept for switching dropout
// back on) and dropped buffers of their own when dropout switches on.
void commit_inputs(Pipeline::Impl& im, Updater& up, const Plan& old, Prepared& pr) {
  const ChangeSet& cs = pr.cs;
  const Plan& np = im.plan;
  Buffers& buf = im.buf;
  if (cs.x_compared) {
    for (int r : cs.x_rows) std::memcpy(buf.X.row(r), pr.in.x.row(r), sizeof(float) * np.d_model);
    up.note(Stage::X, 0, UpdateKind::full, np.S, 0, !cs.x_rows.empty());
  }
  if (cs.params_compared) {
    for (Stage s : detail::kParamStages) {
      SharedTensor& t = detail::param_of(buf.params, s);
      if (t.empty()) continue;
      if (cs.param_changed(s)) std::swap(t, detail::param_of(pr.in.params, s));
      up.note(s, 0, UpdateKind::full, t->rows, 0, cs.param_changed(s));
    }
  }
  if (cs.dropout_changed) {
    buf.keep.swap(pr.keep);  // pr.keep now holds the previous mask (empty if dropout was off)
    if (old.dropout_active) {
      im.keep_cache.swap(pr.keep);
      im.keep_cache_p = old.p;
      im.keep_cache_seed = old.dropout_seed;
      im.keep_cache_valid = true;
    }
  }
  for (size_t h = 0; h < pr.dropped.size(); ++h) buf.heads[h].dropped = std::move(pr.dropped[h]);
}

// Per head, which rows of its Q, K and V slices changed (known only once
// the projection rows are recomputed) and whether a changed one holds (or
// held) inf / NaN; with RoPE, which rows of each head's q_rot and k_rot.
struct Projections {
  std::vector<std::vector<int>> q_rows;          // (H) rows each
  std::vector<std::vector<int>> k_rows, v_rows;  // (G) rows each: K/V heads
  std::vector<uint8_t> q_nf, k_nf, v_nf;         // (H), (G), (G)
  std::vector<std::vector<int>> qr_rows, kr_rows;  // (H) with RoPE: q_rot / k_rot rows that changed
  // The rows of head h's scores and score columns to recompute.
  const std::vector<int>& score_rows(const Plan& p, int h) const {
    return p.rope ? qr_rows[static_cast<size_t>(h)] : q_rows[static_cast<size_t>(h)];
  }
  const std::vector<int>& score_cols(const Plan& p, int h) const {
    return p.rope ? kr_rows[static_cast<size_t>(h)] : k_rows[static_cast<size_t>(p.kv_head(h))];
  }
};

// RoPE: each head's q_rot rows whose Q_h row changed (every row under another
// base or style), and its k_rot rows whose K_g row changed, rotated and
// compared (Updater::rows_stage_each), with their QT / KT columns.
void update_rotations(Pipeline::Impl& im, Updater& up, const ChangeSet& cs, Projections* pj) {
  const Plan& p = im.plan;
  Buffers& buf = im.buf;
  const int hd = p.head_dim, per = p.H / p.G;
  pj->qr_rows.assign(static_cast<size_t>(p.H), {});
  pj->kr_rows.assign(static_cast<size_t>(p.H), {});
  for (int h = 0; h < p.H; ++h) {
    detail::HeadBuffers& hb = buf.heads[static_cast<size_t>(h)];
    const int g = p.kv_head(h);
    const std::vector<int>& qin = cs.rope_changed ? cs.all_rows : pj->q_rows[static_cast<size_t>(h)];
    const std::vector<int>& kin = cs.rope_changed ? cs.all_rows : pj->k_rows[static_cast<size_t>(g)];
    std::vector<int>& qr = pj->qr_rows[static_cast<size_t>(h)];
    std::vector<int>& kr = pj->kr_rows[static_cast<size_t>(h)];
    qr = up.rows_stage_each(Stage::q_rot, h, hb.q_rot, qin, [&](int r, float* out) {
      detail::rotate_row(p, buf.Q.row(r) + static_cast<size_t>(h) * hd, r, out);
    });
    // The first query head of K/V head g rotates its rows; the others copy them
    // (heads go in order, so the lead's rows are already this change's).
    const detail::HeadBuffers& lead = buf.heads[static_cast<size_t>(h - h % per)];
    kr = up.rows_stage_each(Stage::k_rot, h, hb.k_rot, kin, [&](int r, float* out) {
      if (h % per == 0) detail::rotate_row(p, buf.K.row(r) + static_cast<size_t>(g) * hd, r, out);
      else std::memcpy(out, lead.k_rot.row(r), sizeof(float) * static_cast<size_t>(hd));
    });
    for (int r : qr) detail::put_columns(p, hb.q_rot.row(r), r, h * hd, &buf.QT);
    if (h % per == 0) {
      for (int r : kr) detail::put_columns(p, hb.k_rot.row(r), r, g * hd, &buf.KT);
    }
  }
}

// Q, K, V (and QT, KT): the rows cs.rows_in names.
void update_projections(Pipeline::Impl& im, Updater& up, const ChangeSet& cs, Projections* pj) {
  Buffers& buf = im.buf;
  const std::vector<int>& q_in = cs.rows_in(Stage::Q);
  const std::vector<int>& k_in = cs.rows_in(Stage::K);
  up.projection_stage(Stage::Q, buf.Q, buf.params.W_q, buf.params.b_q, q_in, &pj->q_rows, &pj->q_nf);
  up.projection_stage(Stage::K, buf.K, buf.params.W_k, buf.params.b_k, k_in, &pj->k_rows, &pj->k_nf);
  if (im.plan.rope) {
    update_rotations(im, up, cs, pj);
  } else {
    detail::transpose_rows(im.plan, buf.Q, &buf.QT, q_in.data(), static_cast<int>(q_in.size()));
    detail::transpose_rows(im.plan, buf.K, &buf.KT, k_in.data(), static_cast<int>(k_in.size()));
  }
  up.projection_stage(Stage::V, buf.V, buf.params.W_v, buf.params.b_v, cs.rows_in(Stage::V), &pj->v_rows,
                      &pj->v_nf);
}

// Every head from its changed Q / K / V rows and cs, in groups
// (for_each_head): each group has its own Updater, space and softmax patch;
// the versions its stages get are bumped after, head by head. Returns the
// context rows that changed in any head (the concat rows to recompute).
std::vector<int> update_heads(Pipeline::Impl& im, const Plan& old, const ChangeSet& cs, const Projections& pj) {
  const Plan& np = im.plan;
  Buffers& buf = im.buf;
  const int groups = static_cast<int>(std::min(im.spaces.size(), static_cast<size_t>(detail::head_groups(np))));
  std::vector<std::vector<Stage>> deferred(static_cast<size_t>(np.H));  // (H) stages changed, in order
  std::vector<std::vector<int>> head_rows(static_cast<size_t>(np.H));   // (H) context rows that changed
  std::vector<Updater> ups;
  ups.reserve(static_cast<size_t>(groups));
  for (int g = 0; g < groups; ++g) ups.emplace_back(im, im.spaces[static_cast<size_t>(g)], &deferred);
  std::vector<detail::SoftmaxPatch> patches(static_cast<size_t>(groups));
  auto head = [&](int g, int h) {
    Updater& hu = ups[static_cast<size_t>(g)];
    detail::SoftmaxPatch& patch = patches[static_cast<size_t>(g)];
    detail::Region in;
    in.rows = pj.score_rows(np, h);
    in.cols = pj.score_cols(np, h);
    const detail::SquareChange sc =
        hu.square_stage(Stage::scores, h, buf.heads[h].scores, in, [&](const int* r, int nr, const int* c, int nc) {
          detail::compute_scores(np, buf, h, r, nr, c, nc, hu.sc());
        });
    detail::HeadChange change;
    change.masked_rows = hu.derive_stages(old, h, sc, cs, &patch);
    change.patch = &patch;
    change.softmax_changed = cs.softmax_changed(h);
    change.dropout_changed = cs.dropout_changed;
    const size_t kv = static_cast<size_t>(np.kv_head(h));
    change.v_rows = &pj.v_rows[kv];
    change.v_nonfinite = pj.v_nf[kv] != 0;
    head_rows[static_cast<size_t>(h)] = detail::update_head(im, hu, old, h, im.wanted(h), change);
  };
  detail::for_each_head(groups, np.H, head);
  std::vector<int> concat_rows;
  for (int h = 0; h < np.H; ++h) {
    for (Stage s : deferred[static_cast<size_t>(h)]) im.bump(s, h);
    concat_rows = detail::merge_rows(concat_rows, head_rows[static_cast<size_t>(h)], np.S);
  }
  return concat_rows;
}

// What the change does to each head's kept map rows (Pipeline::map) and, in long
// mode, to its context, concat and output rows: a change of the head's softmax input
// rule redoes every row; otherwise the rows its changed query and key rows touch.
void mark_heads(Pipeline::Impl& im, const ChangeSet& cs, const Projections& pj) {
  const Plan& np = im.plan;
  const uint32_t dropped_bit = 1u << static_cast<int>(Stage::dropped);
  for (int h = 0; h < np.H; ++h) {
    const bool every = cs.divisor_changed || cs.mask_changed || cs.rule_changed || cs.fill_changed ||
                       cs.softmax_changed(h) || cs.rope_changed;
    const std::vector<int>& q = pj.score_rows(np, h);
    const std::vector<int>& k = pj.score_cols(np, h);
    detail::invalidate_maps(np, &im.maps, h, q, k, every);
    if (cs.dropout_changed) detail::invalidate_maps(np, &im.maps, h, {}, {}, true, dropped_bit);
    if (!np.long_mode()) continue;
    const std::vector<int> kv = detail::merge_rows(k, pj.v_rows[static_cast<size_t>(np.kv_head(h))], np.S);
    detail::mark_long_rows(im, h, q, kv, every || cs.dropout_changed, cs.out_changed);
  }
}

}  // namespace

void Pipeline::Impl::apply(State&& next) {
  detail::Plan np = detail::make_plan(next, has_result ? &plan : nullptr);
  np.long_from = long_from;
  np.keep_exps = np.keep_exps && !np.long_mode();
  read_now.resize(static_cast<size_t>(np.H), 0);  // another head count keeps the first heads' demand
  read_before.resize(static_cast<size_t>(np.H), 0);
  if (!has_result || !detail::same_shapes(plan, np) || plan.long_mode() != np.long_mode()) {
    reshape(std::move(next), np);
    return;
  }
  // More threads than when the spaces were made: more spaces (before
  // anything is touched; an allocation that fails leaves a usable state).
  while (spaces.size() < static_cast<size_t>(detail::head_groups(np))) {
    detail::WorkSpace ws;
    detail::make_space(np, &ws);
    spaces.push_back(std::move(ws));
  }

  // Describe the change (allocates; nothing is mutated yet).
  Prepared pr;
  pr.in = detail::build_inputs(state, next, &embedding);
  pr.cs = detail::describe_change(plan, buf.X, buf.params, np, pr.in);
  take_keep_mask(*this, np, pr.cs, &pr.keep);
  if (pr.cs.dropout_on) {
    pr.dropped.resize(static_cast<size_t>(np.H));
    for (Tensor& t : pr.dropped) t.reset(np.S, np.S);
  }

  // Carry it out.
  const detail::Plan old = plan;
  plan = np;
  state = std::move(next);  // next is not read below
  for (auto& per_stage : updates) {
    for (StageUpdate& u : per_stage) u = StageUpdate{};
  }
  Updater up(*this, spaces[0]);
  commit_inputs(*this, up, old, pr);
  Projections pj;
  update_projections(*this, up, pr.cs, &pj);
  mark_heads(*this, pr.cs, pj);
  if (np.long_mode()) return;  // heads and tail from rows when read (long_read)
  const std::vector<int> concat_rows = update_heads(*this, old, pr.cs, pj);
  detail::update_tail(*this, up, concat_rows, pr.cs.out_changed);
}

}  // namespace attnviz
