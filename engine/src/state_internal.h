// Internal to the engine: pieces of state validation shared by the parser.
#pragma once

#include "attnviz/state.h"

namespace attnviz {
namespace detail {

// version, tokens, d_model, d_out, num_heads (ranges, divisibility) and the
// memory estimate: everything that bounds how much the engine will allocate.
Status validate_sizes(const State& s);

// How messages name the width of K and V (G · head_dim): "d_out" while
// num_kv_heads is num_heads, else "num_kv_heads × head_dim".
const char* kv_width_name(const State& s);

}  // namespace detail
}  // namespace attnviz
