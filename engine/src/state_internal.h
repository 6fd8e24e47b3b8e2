// Internal to the engine: pieces of state validation shared by the parser.
#pragma once

#include "attnviz/state.h"

namespace attnviz {
namespace detail {

// version, tokens, d_model, d_out, num_heads (ranges, divisibility) and the
// memory estimate: everything that bounds how much the engine will allocate.
Status validate_sizes(const State& s);

}  // namespace detail
}  // namespace attnviz
