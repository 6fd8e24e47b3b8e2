// Internal to the engine: pieces of state validation shared by the parser.
#pragma once

#include <atomic>
#include <cstdint>

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

// state_json_conversions(): state_to_json and parse_state add one each call.
extern std::atomic<uint64_t> g_state_json_conversions;

}  // namespace detail
}  // namespace attnviz
