// Internal to the engine: what one set_state changes, described before
// anything is computed ("describe the change, then compute it").
//
// Pipeline::Impl::apply, for a state of the same shapes as the last one:
//   1. build_inputs: builds X and the parameters again where their spec
//      changed (NewInputs);
//   2. describe_change: compares old and new plans and inputs (bitwise, no
//      kernels) and returns a ChangeSet;
//   3. carries the set out: swaps in the changed X rows and parameters,
//      recomputes the projection rows rows_in(Q / K / V) names, then each
//      head from its changed Q / K / V rows, and the tail.
// Which rows of each head's Q, K and V slices changed is only known once
// the projection rows are recomputed (their bits may not move): it stays an
// output of the projection step (Updater::projection_stage), not a field here.
//
// Adding an option: one field (or one bit) here saying what switched,
// filled in by describe_change from the plans, read by the step it affects.
#pragma once

#include <cstdint>
#include <vector>

#include "pipeline/pipeline_internal.h"

namespace attnviz {
namespace detail {

// The inputs apply built again because their spec changed (build_inputs).
struct NewInputs {
  bool x_built = false;       // X's spec changed: x holds the new X
  Tensor x;                   // (S × d_model) or empty
  bool params_built = false;  // the parameters' spec changed: params holds the new ones
  Params params;
};

struct ChangeSet {
  // ---- inputs
  bool x_compared = false;   // X was built again and compared (X gets a record, changed or not)
  std::vector<int> x_rows;   // X rows whose bits changed, ascending
  bool params_compared = false;  // the parameters were built again and compared (each present one gets a record)
  uint32_t params = 0;           // bit int(s) set: parameter stage s (W_q … b_o) changed bitwise
  bool param_changed(Stage s) const { return (params >> static_cast<int>(s)) & 1u; }

  // ---- projections: the rows of Q, K, V to recompute
  std::vector<int> all_rows;  // (S) 0 … S − 1
  // Q, K or V: every row when its weight or bias changed, else x_rows.
  const std::vector<int>& rows_in(Stage qkv) const;

  // ---- RoPE: another base or style rotates every row of q_rot and k_rot
  // (switching RoPE on or off changes the buffers: a rebuild, like another shape)
  bool rope_changed = false;

  // ---- per head, between the scores and the softmax
  bool divisor_changed = false;  // float32 divisor (√d × temperature) bits
  bool mask_changed = false;     // causal, key padding or fill (same_mask)
  bool causal_switched = false;  // causal mask switched on or off
  bool fill_changed = false;     // mask_fill bits
  bool rule_changed = false;     // the sliding window, ALiBi's slopes or StreamingLLM's cache (a mask change no patch covers)
  std::vector<int> pad_switched;  // keys whose padding switched, ascending (only with mask_changed)
  bool safe_changed = false;      // safe_softmax switched: every weights row
  std::vector<uint8_t> sink_changed;  // (H) 1: head h's sink switched on or off or took another logit
  // Head h's softmax itself changed (safe_softmax, its sink): every one of its weights rows.
  bool softmax_changed(int h) const {
    return safe_changed || (!sink_changed.empty() && sink_changed[static_cast<size_t>(h)] != 0);
  }

  // ---- dropout
  bool dropout_changed = false;  // switched, or another p / seed
  bool dropout_on = false;       // switched on (dropped gets buffers of its own)
  bool dropout_off = false;      // switched off (dropped becomes the weights again)

  // ---- tail
  bool out_changed = false;  // out_proj and W_o or b_o changed: every output row

  // Nothing at all changed (no stage can change).
  bool empty() const;
};

// Builds X (with the embedding cache, may be null) and the parameters of
// next again where their spec differs from old's (same_x_inputs /
// same_param_inputs). May throw std::bad_alloc.
NewInputs build_inputs(const State& old, const State& next, EmbeddingCache* cache);

// The change from the old plan and inputs (X: (S × d_model), params) to the
// new plan and the inputs built for it, both of the same shapes
// (same_shapes: another shape is a rebuild, not a change). Pure: reads its
// arguments only, compares bits, allocates only the set.
ChangeSet describe_change(const Plan& old, const Tensor& old_x, const Params& old_params, const Plan& next,
                          const NewInputs& in);

// The parameters of a Params as (stage, tensor) pairs, W_q … b_o in the
// order of the Stage enum.
constexpr int kParamCount = 8;
constexpr Stage kParamStages[kParamCount] = {Stage::W_q, Stage::W_k, Stage::W_v, Stage::W_o,
                                             Stage::b_q, Stage::b_k, Stage::b_v, Stage::b_o};
const SharedTensor& param_of(const Params& p, Stage s);
SharedTensor& param_of(Params& p, Stage s);

}  // namespace detail
}  // namespace attnviz
