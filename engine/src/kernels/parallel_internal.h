// Internal: the engine's worker pool (attnviz/parallel.h says who sets its size).
#pragma once

namespace attnviz {
namespace detail {

// Runs fn(ctx, part) for every part in [0, parts): part 0 on the calling
// thread, part p on worker p − 1, and returns when all are done. parts must
// not exceed threads(); with parts <= 1 it is a plain call, and so is a call
// from inside a part (the parts run in turn). fn must not throw: a part that
// may catches and hands the exception to the caller itself. No allocation.
void run_parts(int parts, void (*fn)(void* ctx, int part), void* ctx);

// Whether the calling thread is running a part (a nested run_parts would run
// its parts in turn: a caller may as well ask for one).
bool in_part();

}  // namespace detail
}  // namespace attnviz
