// The incremental update's machinery (pipeline_update.h): Updater's
// projection and scaled / masked steps, update_head, update_tail, and
// Impl::read, which brings a stale stage up to date in lazy mode.
//
// [SECTION] projections
// [SECTION] scaled and masked (derive_stages)
// [SECTION] a head and the tail
// [SECTION] lazy reads
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <vector>

#include "attnviz/kernels.h"
#include "pipeline/pipeline_update.h"

namespace attnviz {
namespace detail {

// ---- [SECTION] projections ---------------------------------------------------------

// Q, K or V: recompute rows, report per head which rows of its slice changed
// and whether a changed slice holds (or held) a non-finite value. The heads
// of out: H of Q, G (num_kv_heads) of K and V.  out: (S × heads·head_dim)
void Updater::projection_stage(Stage s, Tensor& out, const Tensor& W, const Tensor& b, const std::vector<int>& rows,
                               std::vector<std::vector<int>>* head_rows, std::vector<uint8_t>* head_nonfinite) {
  const int hd = p_.head_dim, heads = out.cols / hd;
  head_rows->assign(static_cast<size_t>(heads), {});
  head_nonfinite->assign(static_cast<size_t>(heads), 0);
  const size_t w = static_cast<size_t>(out.cols), n = rows.size();
  FloatBuffer& snap = ws_.rows;  // (n × out.cols), grows only
  if (snap.size() < n * w) snap.resize(n * w);
  for (size_t k = 0; k < n; ++k) std::memcpy(snap.data() + k * w, out.row(rows[k]), sizeof(float) * w);
  if (n > 0) compute_projection(p_, b_.X, W, b, &out, rows.data(), static_cast<int>(n));
  bool any = false;
  for (size_t k = 0; k < n; ++k) {
    const int r = rows[k];
    for (int h = 0; h < heads; ++h) {
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

// ---- [SECTION] scaled and masked (derive_stages) ----------------------------------

// Compares one head's old and new scaled / masked rows for derive_stages,
// from the old scores (square_stage's snapshot) and the new ones, as
// kernels::masked_row gives them, without storing either stage.
class MaskedCompare {
 public:
  MaskedCompare(const Plan& old, const Plan& np, int h, const Tensor& scores, const float* snap,
                const std::vector<int>& snap_cols, Scratch& sc, const ChangeSet& cs)
      : old_(old), p_(np), scores_(scores), snap_(snap), snap_cols_(snap_cols), sc_(sc), cs_(cs),
        S_(np.S), rule_old_(old.mask(h)), rule_new_(np.mask(h)) {}

  // Old scores row i: the snapshot row, or the current row with the
  // snapshot's recomputed columns put back.  (S)
  const float* old_scores_row(int i) const {
    const size_t S = static_cast<size_t>(S_);
    const int rs = sc_.row_slot[static_cast<size_t>(i)];
    if (rs >= 0) return snap_ + static_cast<size_t>(rs) * S;
    if (snap_cols_.empty()) return scores_.row(i);
    float* old_row = sc_.old_row.data();  // (S)
    std::memcpy(old_row, scores_.row(i), sizeof(float) * S);
    for (int c : snap_cols_) old_row[c] = snap_[static_cast<size_t>(sc_.col_slot[static_cast<size_t>(c)]) * S + i];
    return old_row;
  }

  bool scaled_differs(const float* o, const float* n) const {
    for (int j = 0; j < S_; ++j) {
      if (!same_bits(o[j] / old_.divisor, n[j] / p_.divisor)) return true;
    }
    return false;
  }

  // Cell (i, j) of the old and the new masked stage, as masked_row gives it.
  bool cell_differs(int i, int j, const float* o, const float* n) const {
    return !same_bits(kernels::masked_value(o[j], i, j, rule_old_), kernels::masked_value(n[j], i, j, rule_new_));
  }

  // Whether masked row i differs in a cell from column `from` on: the first
  // four one by one (after a temperature change or a causal switch the
  // first cell looked at almost always differs), then block by block
  // (masked_row is elementwise, so a block at column j0 is row i − j0 of the
  // shifted scores and key flags), stopping at the first that differs.
  bool masked_differs_from(int i, const float* o, const float* n, int from) const {
    const int quick = std::min(S_, from + 4);
    for (int j = from; j < quick; ++j) {
      if (cell_differs(i, j, o, n)) return true;
    }
    float* tmp_old = sc_.tmp_old.data();  // (S)
    float* tmp_new = sc_.tmp_new.data();  // (S)
    constexpr int kBlock = 64;
    for (int j0 = quick; j0 < S_; j0 += kBlock) {
      const int len = std::min(kBlock, S_ - j0);
      kernels::masked_row(o + j0, tmp_old, len, i - j0, rule_old_.from_column(j0));
      kernels::masked_row(n + j0, tmp_new, len, i - j0, rule_new_.from_column(j0));
      if (!kernels::same_bytes(tmp_old, tmp_new, sizeof(float) * static_cast<size_t>(len))) return true;
    }
    return false;
  }

  // Masked row i after the divisor or the mask changed. When the divisor,
  // the fill and the row's scores are unchanged, only cells whose mask
  // switched can differ: the keys after i if the causal mask switched, and
  // the keys whose padding did.
  bool masked_differs(int i, const float* o, const float* n) const {
    const bool only_mask = !cs_.divisor_changed && !cs_.fill_changed && !cs_.rule_changed &&
                           sc_.row_slot[static_cast<size_t>(i)] < 0 && snap_cols_.empty();
    if (!only_mask) return masked_differs_from(i, o, n, 0);
    for (int c : cs_.pad_switched) {
      if (cell_differs(i, c, o, n)) return true;
    }
    return cs_.causal_switched && masked_differs_from(i, o, n, i + 1);
  }

  const Plan& old_plan() const { return old_; }
  // Whether scores row i was recomputed (the snapshot has it), or any column was.
  bool row_touched(int i) const { return sc_.row_slot[static_cast<size_t>(i)] >= 0 || !snap_cols_.empty(); }
  // The old scores column c (S), by row, from the snapshot.
  const float* old_col(int c) const {
    return snap_ + static_cast<size_t>(sc_.col_slot[static_cast<size_t>(c)]) * static_cast<size_t>(S_);
  }

 private:
  const Plan& old_;
  const Plan& p_;
  const Tensor& scores_;  // (S × S) the new scores of the head
  const float* snap_;     // square_stage's snapshot: (rows + cols) × S
  const std::vector<int>& snap_cols_;
  Scratch& sc_;
  const ChangeSet& cs_;
  int S_;
  kernels::MaskRule rule_old_, rule_new_;  // the head's rules before and after
};

void Updater::note_region(Stage s, int h, bool all, size_t rows, size_t cols, bool changed) {
  if (all || rows + cols > static_cast<size_t>(S_)) {
    note(s, h, UpdateKind::full, S_, 0, changed);
  } else {
    note(s, h, rows + cols == 0 ? UpdateKind::none : UpdateKind::partial, static_cast<int>(rows),
         static_cast<int>(cols), changed);
  }
}

std::vector<int> Updater::derive_stages(const Plan& old, int h, const SquareChange& scores_change,
                                        const ChangeSet& cs, SoftmaxPatch* patch) {
  Scratch& sc = ws_.sc;
  const MaskedCompare mc(old, p_, h, b_.heads[h].scores, ws_.cells.data(), snap_cols_, sc, cs);
  std::fill(sc.cells_only.begin(), sc.cells_only.end(), 0);
  patch->cols.clear();
  patch->causal_on = false;
  patch->causal_off = false;
  const Region& in = scores_change.changed;  // scores cells that changed
  if (cs.divisor_changed || cs.mask_changed) return derive_all_rows(mc, h, in, cs, patch);
  return derive_cells(mc, h, in, patch);
}

// The divisor or the mask changed: every row, comparing old and new masked rows.
std::vector<int> Updater::derive_all_rows(const MaskedCompare& mc, int h, const Region& in, const ChangeSet& cs,
                                          SoftmaxPatch* patch) {
  Scratch& sc = ws_.sc;
  const Tensor& scores = b_.heads[h].scores;
  std::vector<int> masked_rows;
  bool scaled_changed = false;
  for (int i = 0; i < S_; ++i) {
    const float* o = mc.old_scores_row(i);
    const float* n = scores.row(i);
    const bool touched = cs.divisor_changed || mc.row_touched(i);
    if (!scaled_changed && touched) scaled_changed = mc.scaled_differs(o, n);
    if (mc.masked_differs(i, o, n)) masked_rows.push_back(i);
  }
  note_region(Stage::scaled, h, cs.divisor_changed, in.rows.size(), in.cols.size(), scaled_changed);
  note_region(Stage::masked, h, true, 0, 0, !masked_rows.empty());
  // Only the mask changed (not the scores, divisor or fill): the cells
  // that changed are the keys whose padding switched, or those the causal
  // mask now covers.
  if (!cs.divisor_changed && in.empty() && !cs.fill_changed && !cs.rule_changed) {
    if (!cs.causal_switched) {
      patch->cols = cs.pad_switched;
    } else if (cs.pad_switched.empty()) {
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
std::vector<int> Updater::derive_cells(const MaskedCompare& mc, int h, const Region& in, SoftmaxPatch* patch) {
  Scratch& sc = ws_.sc;
  const Tensor& scores = b_.heads[h].scores;
  const Plan& old = mc.old_plan();
  const size_t S = static_cast<size_t>(S_);
  std::vector<int> sc_rows, sc_cols;  // scaled rows / columns that changed
  for (int r : in.rows) {
    if (mc.scaled_differs(mc.old_scores_row(r), scores.row(r))) sc_rows.push_back(r);
  }
  std::vector<uint8_t>& row_flag = sc.row_flag;  // (S) rows with a changed masked cell
  std::fill(row_flag.begin(), row_flag.end(), 0);
  const kernels::MaskRule rule = p_.mask(h);  // the same before and after here
  for (int c : in.cols) {
    const float* old_col = mc.old_col(c);  // (S) by row
    bool col_changed = false;
    for (size_t i = 0; i < S; ++i) {
      const float so = old_col[i], sn = scores.data[i * S + static_cast<size_t>(c)];
      if (same_bits(so / old.divisor, sn / p_.divisor)) continue;
      col_changed = true;
      const int r = static_cast<int>(i);
      if (!same_bits(kernels::masked_value(so, r, c, rule), kernels::masked_value(sn, r, c, rule))) row_flag[i] = 1;
    }
    if (col_changed) sc_cols.push_back(c);
  }
  for (size_t i = 0; i < S; ++i) sc.cells_only[i] = row_flag[i];
  for (int r : sc_rows) {
    if (mc.masked_differs(r, mc.old_scores_row(r), scores.row(r))) {
      row_flag[static_cast<size_t>(r)] = 1;
      sc.cells_only[static_cast<size_t>(r)] = 0;
    }
  }
  std::vector<int> masked_rows;
  for (size_t i = 0; i < S; ++i) {
    if (row_flag[i]) masked_rows.push_back(static_cast<int>(i));
  }
  patch->cols = sc_cols;
  note_region(Stage::scaled, h, false, in.rows.size(), in.cols.size(), !sc_rows.empty() || !sc_cols.empty());
  note_region(Stage::masked, h, false, sc_rows.size(), sc_cols.size(), !masked_rows.empty());
  return masked_rows;
}

// ---- [SECTION] a head and the tail -------------------------------------------------

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

namespace {

// Head h's weights and dropped, brought up to date from level `before`: where they
// were current, the rows whose masked row changed (patched where a SoftmaxPatch
// allows, else recomputed), else (stale) every row. Returns the dropped rows that changed.
std::vector<int> update_weights(Pipeline::Impl& im, Updater& up, const Plan& old, int h, int before,
                                const HeadChange& c) {
  const Plan& np = im.plan;
  Buffers& buf = im.buf;
  HeadBuffers& hb = buf.heads[static_cast<size_t>(h)];
  const SoftmaxPatch* patch = before >= kWeights && !c.softmax_changed ? c.patch : nullptr;
  const std::vector<uint8_t>& cells_only = up.sc().cells_only;
  int patched = 0;
  int built_from = INT_MAX;  // exps row entries a refused patch left holding the masked row
  auto patch_row = [&](int r, float* w) {
    if (patch->causal_on) return causal_on_weights_row(np, hb, h, r, w);
    if (patch->causal_off) return causal_off_weights_row(np, hb, h, r, w, &built_from);
    return patch_weights_row(np, hb, h, r, patch->cols, w);
  };
  auto weights_f = [&](int r, float* w) {
    built_from = INT_MAX;
    if (patch && cells_only[static_cast<size_t>(r)] && patch_row(r, w)) {
      ++patched;
      return;
    }
    compute_weights_row(np, hb, h, r, w, built_from);
  };
  auto dropped_f = [&](const int* r, int n) {
    for (int t = 0; t < n; ++t) compute_dropped_row(np, buf, hb, h, r[t]);
  };
  if (before >= kWeights) {
    const std::vector<int> w_rows =
        up.rows_stage_each(Stage::weights, h, hb.weights, c.softmax_changed ? up.all() : c.masked_rows, weights_f);
    im.updates[static_cast<int>(Stage::weights)][static_cast<size_t>(h)].patched = patched;
    return up.dropped_stage(old, h, w_rows, c.dropout_changed, dropped_f);
  }
  // Stale: every row, compared with what the buffer held when last current.
  const std::vector<int> w_rows = up.rows_stage_each(Stage::weights, h, hb.weights, up.all(), weights_f);
  if (np.dropout_active) {
    // Its old contents may belong to another mask or to no dropout at
    // all: counted as changed rather than compared.
    dropped_f(up.all().data(), np.S);
    up.note(Stage::dropped, h, UpdateKind::full, np.S, 0, true);
    return up.all();
  }
  const StageUpdate w = im.updates[static_cast<int>(Stage::weights)][static_cast<size_t>(h)];
  up.note(Stage::dropped, h, w.kind, w.rows, 0, w.changed);
  return w_rows;
}

// The context rows to recompute after dropped rows d_rows changed. Where the
// context was current: context row r depends on dropped row r and on every V_h
// row s with dropped[r][s] != 0 (an exact zero term never changes a sum, unless V
// holds inf/NaN, where 0·inf = NaN). Where it was stale: every row.
std::vector<int> context_rows(const Plan& np, const HeadBuffers& hb, const Updater& up, bool was_current,
                              const std::vector<int>& d_rows, const HeadChange& c, bool v_changed) {
  if (!was_current) return up.all();
  if (!v_changed) return d_rows;
  if (c.v_nonfinite) return up.all();
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
  return merge_rows(d_rows, touched, np.S);
}

}  // namespace

std::vector<int> update_head(Pipeline::Impl& im, Updater& up, const Plan& old, int h, int want,
                             const HeadChange& c) {
  const Plan& np = im.plan;
  Buffers& buf = im.buf;
  HeadBuffers& hb = buf.heads[static_cast<size_t>(h)];
  const int before = im.valid[static_cast<size_t>(h)];
  int now = before;
  std::vector<int> d_rows;
  if (want >= kWeights) {
    d_rows = update_weights(im, up, old, h, before, c);
    now = std::max(now, static_cast<int>(kWeights));
  } else if (!c.masked_rows.empty() || c.softmax_changed || c.dropout_changed) {
    now = std::min(now, static_cast<int>(kScores));
    if (!np.dropout_active) hb.dropped = Tensor();  // a stale head keeps no dropout buffer without dropout
  }
  const bool v_changed = c.v_rows != nullptr && !c.v_rows->empty();
  std::vector<int> c_rows;
  if (now >= kWeights && want >= kContext) {
    const std::vector<int> ctx_rows = context_rows(np, hb, up, before >= kContext, d_rows, c, v_changed);
    c_rows = up.rows_stage(Stage::context, h, hb.context, ctx_rows,
                           [&](const int* r, int n) { compute_context(np, buf, hb, h, r, n, up.sc()); });
    now = kContext;
  } else if (!d_rows.empty() || v_changed) {
    now = std::min(now, static_cast<int>(kWeights));
  }
  im.valid[static_cast<size_t>(h)] = static_cast<uint8_t>(now);
  return c_rows;
}

void update_tail(Pipeline::Impl& im, Updater& up, const std::vector<int>& concat_rows, bool out_changed) {
  const Plan& np = im.plan;
  bool contexts = true;
  for (uint8_t v : im.valid) contexts = contexts && v >= kContext;
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

}  // namespace detail

// ---- [SECTION] lazy reads ------------------------------------------------------------

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
  if (plan.long_mode()) {
    long_read(s, head);
    return;
  }
  if (level == detail::kTail ? tail_valid : valid[static_cast<size_t>(head)] >= level) return;
  detail::Updater up(*this, spaces[0]);
  const detail::HeadChange none;
  std::vector<int> concat_rows;
  for (int h = 0; h < plan.H; ++h) {
    if (level != detail::kTail && h != head) continue;
    const std::vector<int> rows = detail::update_head(*this, up, plan, h, std::min(level, int{detail::kContext}), none);
    concat_rows = detail::merge_rows(concat_rows, rows, plan.S);
  }
  if (level == detail::kTail) {
    detail::update_tail(*this, up, concat_rows, false);  // stale: every row, compared with what the buffers held
  } else if (!concat_rows.empty()) {
    tail_valid = false;
  }
}

}  // namespace attnviz
