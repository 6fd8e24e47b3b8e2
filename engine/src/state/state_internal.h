// Internal to the engine: pieces of state validation shared by the parser.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "attnviz/state.h"
#include "attnviz/state_json.h"

namespace attnviz {
namespace detail {

// version, tokens, d_model, d_out, num_heads (ranges, divisibility) and the
// memory estimate: everything that bounds how much the engine will allocate.
Status validate_sizes(const State& s);

// How messages name the width of K and V (G · head_dim): "d_out" while
// num_kv_heads is num_heads, else "num_kv_heads × head_dim".
const char* kv_width_name(const State& s);

// An explicit matrix given by name instead of numbers: a .safetensors state file's
// metadata writes "W_q": "weights.W_q", the name of the tensor that holds it
// (state_file.cpp). Fills *out with that tensor, or returns the refusal (no such
// tensor, a dtype not read, ...); `field` is the JSON path ("weights.W_q").
using NamedTensorFn = std::function<Status(const std::string& field, const std::string& name, SharedTensor* out)>;

// parse_state, except that a string in place of an explicit matrix (embedding.values,
// weights.W_q ... b_o) names a tensor that `named` supplies. The shapes are then
// validate_state()'s to check, as for numbers.
Status parse_state_named(const nlohmann::json& j, const NamedTensorFn& named, State* out);

// The explicit matrices a's flags use (a and b agree on the flags), bit for bit,
// a shared one unread: State's == and the pipeline's same_param_inputs.
bool same_explicit_weights(const State& a, const State& b);
// The same for two weight specs (a captured layer's) under a's flags.
bool same_weight_values(const State& a, const WeightSpec& x, const WeightSpec& y);

// state_json_conversions(): state_to_json and parse_state add one each call.
extern std::atomic<uint64_t> g_state_json_conversions;

}  // namespace detail
}  // namespace attnviz
