// describe_change: what one set_state changes, from the old and new plans
// and inputs, before anything is computed. See change_set.h.
#include "pipeline/change_set.h"

#include <cstring>

#include "attnviz/kernels.h"

namespace attnviz {
namespace detail {

namespace {

bool same_float_bits(float a, float b) {
  uint32_t x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return x == y;
}

// Rows of X (S × d_model) whose bits differ between a and b, ascending.
std::vector<int> changed_rows(const Tensor& a, const Tensor& b) {
  std::vector<int> rows;
  const size_t bytes = sizeof(float) * static_cast<size_t>(a.cols);
  for (int r = 0; r < a.rows; ++r) {
    if (!kernels::same_bytes(a.row(r), b.row(r), bytes)) rows.push_back(r);
  }
  return rows;
}

// Keys whose padding differs between a and b (same S), ascending.
std::vector<int> switched_keys(const Plan& a, const Plan& b) {
  std::vector<int> keys;
  if (a.key_padded == b.key_padded) return keys;
  const uint8_t* pa = a.padded();
  const uint8_t* pb = b.padded();
  for (int c = 0; c < b.S; ++c) {
    if ((pa && pa[c]) != (pb && pb[c])) keys.push_back(c);
  }
  return keys;
}

// (H) 1 where head h's sink differs (on or off, or another logit's bits); empty
// when no head's does.
std::vector<uint8_t> sinks_changed(const Plan& a, const Plan& b) {
  std::vector<uint8_t> out;
  if (a.sinks.empty() && b.sinks.empty()) return out;
  bool any = false;
  out.assign(static_cast<size_t>(b.H), 0);
  for (int h = 0; h < b.H; ++h) {
    const kernels::Sink* x = a.sink(h);
    const kernels::Sink* y = b.sink(h);
    const bool differs = (x == nullptr) != (y == nullptr) || (x != nullptr && !same_float_bits(x->logit, y->logit));
    out[static_cast<size_t>(h)] = differs ? 1 : 0;
    any = any || differs;
  }
  if (!any) out.clear();
  return out;
}

}  // namespace

const SharedTensor& param_of(const Params& p, Stage s) {
  switch (s) {
    case Stage::W_q: return p.W_q;
    case Stage::W_k: return p.W_k;
    case Stage::W_v: return p.W_v;
    case Stage::W_o: return p.W_o;
    case Stage::b_q: return p.b_q;
    case Stage::b_k: return p.b_k;
    case Stage::b_v: return p.b_v;
    default: return p.b_o;
  }
}

SharedTensor& param_of(Params& p, Stage s) {
  return const_cast<SharedTensor&>(param_of(static_cast<const Params&>(p), s));
}

const std::vector<int>& ChangeSet::rows_in(Stage qkv) const {
  const bool whole = qkv == Stage::Q   ? param_changed(Stage::W_q) || param_changed(Stage::b_q)
                     : qkv == Stage::K ? param_changed(Stage::W_k) || param_changed(Stage::b_k)
                                       : param_changed(Stage::W_v) || param_changed(Stage::b_v);
  return whole ? all_rows : x_rows;
}

bool ChangeSet::empty() const {
  bool sinks = false;
  for (uint8_t c : sink_changed) sinks = sinks || c != 0;
  return x_rows.empty() && params == 0 && !rope_changed && !divisor_changed && !mask_changed && !safe_changed &&
         !sinks && !dropout_changed;
}

NewInputs build_inputs(const State& old, const State& next, EmbeddingCache* cache) {
  NewInputs in;
  in.x_built = !same_x_inputs(old, next);
  if (in.x_built) build_x(next, &in.x, cache);
  in.params_built = !same_param_inputs(old, next);
  if (in.params_built) build_params(next, &in.params);
  return in;
}

ChangeSet describe_change(const Plan& old, const Tensor& old_x, const Params& old_params, const Plan& next,
                          const NewInputs& in) {
  ChangeSet c;
  c.x_compared = in.x_built;
  if (in.x_built) c.x_rows = changed_rows(old_x, in.x);
  c.params_compared = in.params_built;
  if (in.params_built) {
    for (Stage s : kParamStages) {
      const SharedTensor& a = param_of(old_params, s);  // the same shared tensor: equal unread
      if (!a.empty() && !tensors_bitwise_equal(a, param_of(in.params, s))) c.params |= 1u << static_cast<int>(s);
    }
  }
  c.all_rows.resize(static_cast<size_t>(next.S));
  for (int i = 0; i < next.S; ++i) c.all_rows[static_cast<size_t>(i)] = i;

  c.divisor_changed = !same_float_bits(old.divisor, next.divisor);
  c.mask_changed = !same_mask(old, next);
  c.causal_switched = old.causal != next.causal;
  c.fill_changed = !same_float_bits(old.fill, next.fill);
  c.rule_changed = old.window != next.window || old.slopes != next.slopes || old.cache_sinks != next.cache_sinks ||
                   old.cache_recent != next.cache_recent;
  c.rope_changed = next.rope && (old.rope_base != next.rope_base || old.rope_style != next.rope_style);
  if (c.mask_changed) c.pad_switched = switched_keys(old, next);
  c.safe_changed = old.safe_softmax != next.safe_softmax;
  c.sink_changed = sinks_changed(old, next);

  c.dropout_changed = !same_dropout(old, next);
  c.dropout_on = next.dropout_active && !old.dropout_active;
  c.dropout_off = old.dropout_active && !next.dropout_active;

  c.out_changed = next.out_proj && (c.param_changed(Stage::W_o) || c.param_changed(Stage::b_o));
  return c;
}

}  // namespace detail
}  // namespace attnviz
