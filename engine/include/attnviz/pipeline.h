// attnviz/pipeline.h: the staged attention pipeline.
//
// A Pipeline holds one validated State and every stage of every head
// (stages.h lists them with their shapes). set_state() describes first
// (validate, size buffers, work out what changed) and then computes only what
// lies downstream of the change:
//   * shapes change (S, d_model, d_out, num_heads, which biases/projections
//     exist): everything is rebuilt;
//   * otherwise X and the parameters are rebuilt from their spec only if it
//     changed, and compared row by row / matrix by matrix with the old ones;
//     Q/K/V recompute the rows whose X row changed (all rows if their W/b
//     changed); scores recompute row i and column i for each changed q_i / k_i;
//     scaled and masked recompute those cells; softmax, dropout, context,
//     concat and output recompute only rows whose inputs changed. Every
//     recomputed piece is compared with its old value, so downstream work stops
//     where values stop changing.
// Partial results are bitwise equal to a from-scratch computation (the kernels
// are row-independent; see kernels.h).
//
// Typical UI use:
//   attnviz::Pipeline p;
//   attnviz::Status st = p.set_state(state);          // keeps the old result on error
//   const attnviz::Tensor* w = p.matrix(attnviz::Stage::weights, head);
//   if (p.version(attnviz::Stage::weights, head) != uploaded) upload(*w);
//
// A UI that shows only some stages calls track_demand() once per frame: then
// set_state() computes only what was read lately, and the rest on first read.
//
// Not thread-safe (reading a stale stage in lazy mode computes it); read
// accessors return pointers that stay valid until the next set_state().
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "attnviz/explain.h"
#include "attnviz/stages.h"
#include "attnviz/state.h"
#include "attnviz/status.h"
#include "attnviz/tensor.h"

namespace attnviz {

// What the last set_state() did to one buffer (tests use it to prove what was
// recomputed; the UI can use `changed`).
enum class UpdateKind { none, partial, full };
struct StageUpdate {
  UpdateKind kind = UpdateKind::none;
  int rows = 0;          // rows recomputed (all rows when full)
  int cols = 0;          // whole columns recomputed besides those rows (scores, scaled, masked)
  bool changed = false;  // contents differ bitwise from before; the version changed
  int patched = 0;       // weights: of those rows, how many redid only the exps of the
                         // cells that changed (the row's max stayed; see docs/engine.md)
};

class Pipeline {
 public:
  Pipeline();
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;
  Pipeline(Pipeline&&);             // the moved-from pipeline is left empty (no result)
  Pipeline& operator=(Pipeline&&);

  // Validates and applies a state. On error returns !ok (sentence + field)
  // and keeps the previous valid state and result untouched. Never throws.
  Status set_state(const State& state);
  // The same, taking the state over instead of copying it: explicit values
  // (X, weights) can be megabytes, e.g. 11 MB at S = 512, d_model 768, and the
  // pipeline keeps the state it shows. A state refused as invalid is left as it was.
  Status set_state(State&& state);

  // Lazy mode, for a UI that shows a few stages at a time. The first call
  // turns it on; call it once per frame. From then on set_state() brings up to
  // date only X, the parameters, Q, K, V, scores (hence scaled and masked) and
  // the stages read (matrix, version, last_update, explain) since the
  // last-but-one call; other heads' weights, dropped and context, and concat
  // and output, are left stale. Reading a stale stage brings it up to date
  // first, with the same bits an eager pipeline holds, so a reader never sees
  // a stale value: laziness changes when work is done, never a result. A stage
  // brought up to date that way gets a new version and last_update() if its
  // contents changed (dropped under dropout: always).
  void track_demand();

  bool has_result() const;     // false until the first successful set_state()
  const State& state() const;  // the state of the current result

  int seq_len() const;    // S
  int d_model() const;
  int d_out() const;
  int num_heads() const;  // H
  int head_dim() const;

  // The stored matrix of a stage; head selects the head of per-head stages
  // and must be 0 for the others. nullptr when out of range or absent
  // (W_o/b_o without out_proj, b_q/b_k/b_v without qkv_bias, no result yet).
  const Tensor* matrix(Stage stage, int head = 0) const;
  const Tensor* matrix(std::string_view name, int head = 0) const;  // by stage_name()
  // Row i of a stage into *out (resized). The per-head (S × S) stages (scores, scaled,
  // bias, masked, weights, dropped) and context are computed from the inputs (Q, K, V,
  // q_rot / k_rot, the dropout mask) without reading, building or updating the head's
  // (S × S) buffers, and are bit for bit the row matrix() holds (pipeline_rows.cpp);
  // other stages copy their stored row. False, out empty, when there is no such row
  // (no result, head or i out of range, an absent stage). What a view of a long input
  // reads: only the rows it shows (docs/engine.md, "Rows on demand").
  bool row(Stage stage, int head, int i, std::vector<float>* out) const;
  // A head's (S × S) stage seen whole at a glance: the (⌈S/b⌉ × ⌈S/b⌉) map whose cell
  // (I, J) pools the b × b block of cells from (I·b, J·b) (smaller at the last row and
  // column): their maximum (NaN if one is NaN, like torch.max) or their mean (summed in
  // double row by row, divided once, rounded to float32 once). Computed from rows on
  // demand, b rows at a time: no (S × S) buffer is read or built. False (out empty)
  // for a stage that is not (S × S), a head out of range, b < 1, no result.
  enum class Pool : uint8_t { max, mean };
  bool overview(Stage stage, int head, int block, Pool pool, Tensor* out) const;
  // ---- long inputs (issue 36; docs/engine.md "Long inputs") ----
  // Above Limits::kMaxFullTokens tokens the pipeline keeps no (S × S) buffer of any head:
  // matrix() of scores, scaled, bias, masked, weights and dropped returns nullptr, and a
  // view reads them through row() and map(). Context, concat and output stay (S × ·) and
  // are computed from rows when first read.
  bool long_mode() const;
  // Long mode above `tokens` tokens instead of Limits::kMaxFullTokens, from the next
  // set_state() on (this drops the current result): tests compare a long pipeline with
  // a full one at small S, the bench measures both at the same S.
  void set_long_from(int tokens);
  // Cells [I0, I0 + nI) × [J0, J0 + nJ) of a head's (S × S) stage pooled over b × b
  // blocks: the (⌈S/b⌉ × ⌈S/b⌉) map overview() gives whole (b = 1: the cells themselves,
  // pool ignored), clipped to the map, into out (resized). Its pooled rows are computed
  // on demand, on every thread allowed, and kept (up to kMapCacheBytes, the least
  // recently used go first) until a set_state() changes what they are made of: an edit of
  // token t under the causal mask recomputes only the rows from t's. False (out empty) as
  // overview() is, or when the range is empty. Same bits as overview() / matrix().
  bool map(Stage stage, int head, int block, Pool pool, int I0, int nI, int J0, int nJ, Tensor* out) const;
  // How many pooled rows of [I0, I0 + nI) of that map map() would compute now (0: it
  // reads only kept rows).
  int map_pending(Stage stage, int head, int block, Pool pool, int I0, int nI) const;
  // Computes pending pooled rows of [I0, I0 + nI), in order, until about budget_ms have
  // passed (at least one batch); returns how many are still pending. What a frame calls
  // so that a long map fills in over a few frames instead of freezing one.
  int map_prepare(Stage stage, int head, int block, Pool pool, int I0, int nI, double budget_ms) const;
  static constexpr uint64_t kMapCacheBytes = uint64_t{48} << 20;

  // Query head h's columns of Q, or of K and V those of the K/V head it reads
  // (h / (num_heads / num_kv_heads)): (S × head_dim), row stride d_out (kv_dim for K, V).
  TensorView head_slice(Stage qkv, int head) const;

  // A stamp that changes exactly when that buffer's contents change (unique
  // across all buffers and set_state() calls; compare for equality). 0 when
  // the buffer does not exist.
  uint64_t version(Stage stage, int head = 0) const;
  // What the last successful set_state() did to that buffer.
  StageUpdate last_update(Stage stage, int head = 0) const;
  // Whether that stage is up to date, asked without reading it (so without
  // computing it or counting as demand): always true in eager mode; false
  // when absent or before the first result.
  bool current(Stage stage, int head = 0) const;
  // Whether the pipeline holds a buffer of its own for that stage now,
  // asked without reading it: the stored stages of the stage table
  // (attnviz/stages.h) that this state has, and a derived one (scaled,
  // masked) only once matrix() materialised it. dropped without dropout is
  // weights itself: false. For tests of the table and memory accounting.
  bool holds(Stage stage, int head = 0) const;

  // Bytes the pipeline's buffers hold now (every stage of every head, the dropout
  // mask, caches; not the work spaces' scratch): what memoryStats() reports and what
  // kMaxPipelineBytes bounds by estimate (estimate_pipeline_bytes). Explicit weights
  // count here although the pipeline shares them with its State (not a copy).
  uint64_t bytes_held() const;

  // Derived parameters of the current result.
  float divisor() const;                  // float32(√head_dim | √d_out | 1 × temperature)
  bool cell_masked(int i, int j, MaskReason* reason = nullptr) const;
  bool dropout_active() const;            // training and p > 0
  float dropout_scale() const;            // 1 / (1 − p) as float32 (0 when p = 1)
  // Head h's dropout keep mask (S × S), 1 = kept; nullptr when dropout is
  // inactive. It is slice h of one mask drawn over [H, S, S] in row-major order.
  const uint8_t* dropout_keep(int head) const;

  // Ingredients of cell (i, j) of a stage (explain.h).
  Explanation explain(Stage stage, int head, int i, int j) const;

  struct Impl;  // opaque; engine/src/pipeline/pipeline_internal.h

 private:
  struct Explainer;  // explain()'s parts, one a kind of stage (analysis/explain.cpp)
  std::unique_ptr<Impl> impl_;
};

}  // namespace attnviz
