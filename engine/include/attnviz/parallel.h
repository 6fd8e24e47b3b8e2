// attnviz/parallel.h: how many threads the engine's matrix products may use.
//
// The engine is single-threaded by default (the targets are single
// core, and the bench compares one thread against one). A caller may allow
// more: the desktop app and the threaded web build (attnviz-mt, loaded when
// the page is cross-origin isolated) set it to the machine's core count.
//
// Threads never change a number: the pipeline hands whole heads to them (a
// head's stages on one thread), kernels::matmul_rows splits the rows of the
// large products outside the heads, and each row is computed by one thread
// with the arithmetic it has alone (kernels.h, contract 1), so every stage is
// the same bits whatever the count (tests/engine/test_parallel.cpp).
//
// Not thread-safe itself: call set_threads from the thread that runs the
// engine, between computations.
#pragma once

#include <cstdint>

namespace attnviz {

// The most threads this build can run: 1 in a WebAssembly build without
// pthreads, else kMaxThreads.
int max_threads();
constexpr int kMaxThreads = 16;

// Sets the threads the engine may use (the calling thread counts as one),
// clamped to [1, max_threads()]; returns the count now in effect. Growing
// starts the extra workers at once (in a pthreads WebAssembly build they come
// from Emscripten's pool, so the count must not exceed its size); shrinking
// keeps them parked.
int set_threads(int n);
int threads();

// How many jobs (head groups, split products) went to the workers so far (a
// counter for tests and the bench: it says they were used, not only allowed).
uint64_t parallel_jobs();

}  // namespace attnviz
