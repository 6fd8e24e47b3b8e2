// Internal to the engine: the incremental update's machinery. Updater
// recomputes the parts of stages an update reaches and records what changed;
// update_head and update_tail bring a head / the tail up to date. Used by
// Pipeline::Impl::apply (pipeline_apply.cpp) and Impl::read
// (pipeline_update.cpp, where the non-template parts are defined).
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

#include "attnviz/kernels.h"
#include "pipeline/change_set.h"
#include "pipeline/pipeline_compute.h"
#include "pipeline/pipeline_internal.h"

namespace attnviz {
namespace detail {

class MaskedCompare;  // pipeline_update.cpp

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
  Updater(Pipeline::Impl& im, WorkSpace& ws, std::vector<std::vector<Stage>>* deferred = nullptr)
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

  Scratch& sc() { return ws_.sc; }

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
  void projection_stage(Stage s, Tensor& out, const Tensor& W, const Tensor& b, const std::vector<int>& rows,
                        std::vector<std::vector<int>>* head_rows, std::vector<uint8_t>* head_nonfinite);

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
    Scratch& sc = ws_.sc;
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
    HeadBuffers& hb = b_.heads[h];
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
  //   old: the plan of the previous result; cs: the divisor / mask changes
  std::vector<int> derive_stages(const Plan& old, int h, const SquareChange& scores_change, const ChangeSet& cs,
                                 SoftmaxPatch* patch);

  UpdateKind kind_for(size_t rows) const {
    return rows == 0 ? UpdateKind::none
                     : (rows == static_cast<size_t>(S_) ? UpdateKind::full : UpdateKind::partial);
  }

  const std::vector<int>& all() const { return all_; }

 private:
  // derive_stages' two cases: the divisor or the mask changed (every row
  // compared), or only score cells did.
  std::vector<int> derive_all_rows(const MaskedCompare& mc, int h, const Region& in, const ChangeSet& cs,
                                   SoftmaxPatch* patch);
  std::vector<int> derive_cells(const MaskedCompare& mc, int h, const Region& in, SoftmaxPatch* patch);
  // A region's record as square_stage writes it.
  void note_region(Stage s, int h, bool all, size_t rows, size_t cols, bool changed);

  Pipeline::Impl& im_;
  WorkSpace& ws_;
  std::vector<std::vector<Stage>>* deferred_;  // (H) or nullptr: bump at once
  const Plan& p_;
  Buffers& b_;
  int S_;
  std::vector<int> all_;
  std::vector<int> snap_cols_;  // the columns square_stage recomputed last
};

// What changed upstream of one head's weights (its masked rows, the softmax
// flavour, dropout) and of its context (V_h) in one update.
struct HeadChange {
  std::vector<int> masked_rows;              // rows whose masked row changed
  bool softmax_changed = false;              // the softmax changed (safe_softmax, the head's sink): every weights row
  bool dropout_changed = false;              // dropout switched, or another p / seed
  const std::vector<int>* v_rows = nullptr;  // rows of V_h that changed (nullptr: none)
  // With scratch.cells_only: how the rows marked there may be patched
  // (nullptr: recompute every masked row whole).
  const SoftmaxPatch* patch = nullptr;
  bool v_nonfinite = false;                  // one of those holds (or held) inf / NaN
};

// The rows in a or b (each ascending, < S), ascending.
std::vector<int> merge_rows(const std::vector<int>& a, const std::vector<int>& b, int S);

// Brings head h's weights, dropped and context up to level want: in part where
// they were current, in full where they were stale (lazy mode). A level above
// want whose inputs changed becomes stale. Returns the context rows that changed.
std::vector<int> update_head(Pipeline::Impl& im, Updater& up, const Plan& old, int h, int want, const HeadChange& c);

// Concat and output after the heads' contexts changed in rows concat_rows
// (out_changed: W_o or b_o changed): in part when they were current, in full
// when stale, or marked stale when not wanted or a head's context is stale.
void update_tail(Pipeline::Impl& im, Updater& up, const std::vector<int>& concat_rows, bool out_changed);

}  // namespace detail
}  // namespace attnviz
