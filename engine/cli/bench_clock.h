// bench_clock.h: the benches' two clocks, in milliseconds.
#pragma once
#include <chrono>

#include <time.h>
#ifdef __EMSCRIPTEN__
#include <emscripten/em_asm.h>
#endif

namespace attnviz_cli {

// Wall clock (steady).
inline double now_ms() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

// CPU time of this process: on a shared machine the wall clock also counts the time
// other processes ran, this does not (with threads it sums them). wasm: node's
// process.cpuUsage() (the CLI only runs under node).
inline double now_cpu_ms() {
#ifdef __EMSCRIPTEN__
  return EM_ASM_DOUBLE({
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  });
#else
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
#endif
}

}  // namespace attnviz_cli
