// Internal: the engine's worker pool (attnviz/parallel.h says who sets its size).
#pragma once

namespace attnviz {
namespace detail {

// Runs fn(ctx, part) for every part in [0, parts): part 0 on the calling
// thread, part p on worker p − 1, and returns when all are done. parts must
// not exceed threads(); with parts <= 1 it is a plain call. No allocation.
void run_parts(int parts, void (*fn)(void* ctx, int part), void* ctx);

}  // namespace detail
}  // namespace attnviz
