// The worker pool behind attnviz/parallel.h: workers that sleep on a condition
// variable until the thread running the engine hands them a part of a job
// (run_parts), then sleep again. Jobs (head groups, matrix products) last a
// few ms at most, so the hand-over (a notify and a wait, tens of µs) is small
// beside them, and nothing spins: this machine's two cores are shared.
//
// A WebAssembly build without pthreads has no threads at all: max_threads()
// is 1 and run_parts is a loop. In a pthreads build (attnviz-mt) std::thread
// takes a Worker from Emscripten's pool; the build links with
// PTHREAD_POOL_SIZE_STRICT=2, so an empty pool is an error (std::system_error,
// caught below: the count stays what it was) instead of a thread that would
// only start after the main thread returned to the browser, which it never
// does while it waits for its parts.
#include "attnviz/parallel.h"

#include "kernels/parallel_internal.h"

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define ATTNVIZ_THREADLESS 1
#endif

#include <cstdint>

#if !defined(ATTNVIZ_THREADLESS)
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>
#endif

namespace attnviz {

#if defined(ATTNVIZ_THREADLESS)

int max_threads() { return 1; }
int set_threads(int) { return 1; }
int threads() { return 1; }
uint64_t parallel_jobs() { return 0; }

namespace detail {
void run_parts(int parts, void (*fn)(void*, int), void* ctx) {
  for (int p = 0; p < parts; ++p) fn(ctx, p);
}
bool in_part() { return false; }
}  // namespace detail

#else

namespace {

struct Pool {
  std::mutex m;
  std::condition_variable wake;  // workers: a new job (generation moved) or quit
  std::condition_variable done;  // the caller: pending reached 0
  std::vector<std::thread> workers;
  int active = 1;                // threads() (the caller plus active − 1 workers)
  // The current job, guarded by m.
  uint64_t generation = 0;
  int parts = 0;
  void (*fn)(void*, int) = nullptr;
  void* ctx = nullptr;
  int pending = 0;  // parts handed to workers and not finished yet
  uint64_t jobs = 0;  // parallel_jobs()
  bool quit = false;

  ~Pool() {
    {
      std::lock_guard<std::mutex> lk(m);
      quit = true;
    }
    wake.notify_all();
    for (std::thread& t : workers) t.join();
  }
};

Pool& pool() {
  static Pool p;
  return p;
}

// Whether this thread is running a part of a job (a worker always is; the
// caller while it runs part 0): a part that itself asks for parts (a head of
// Pipeline's update asking for a matrix product) runs them in turn instead of
// handing the pool a second job while the first is out.
thread_local bool t_in_part = false;

// Worker w runs part w + 1 of every job that has that many parts and was
// posted after generation `seen` (the last job before the worker was made).
// Not the generation it finds when it starts running: a job may be posted in
// between (a Web Worker starts on a message, a thread when it is scheduled),
// and a worker that skipped it would leave the caller waiting for ever.
void worker_main(Pool* p, int w, uint64_t seen) {
  t_in_part = true;
  std::unique_lock<std::mutex> lk(p->m);
  for (;;) {
    p->wake.wait(lk, [&] { return p->quit || p->generation != seen; });
    if (p->quit) return;
    seen = p->generation;
    if (w + 1 >= p->parts) continue;
    void (*fn)(void*, int) = p->fn;
    void* ctx = p->ctx;
    lk.unlock();
    fn(ctx, w + 1);
    lk.lock();
    if (--p->pending == 0) p->done.notify_one();
  }
}

}  // namespace

int max_threads() { return kMaxThreads; }

int set_threads(int n) {
  Pool& p = pool();
  n = n < 1 ? 1 : (n > kMaxThreads ? kMaxThreads : n);
  while (static_cast<int>(p.workers.size()) < n - 1) {
    try {
      // generation is written only by this thread (run_parts), so read here without the lock
      p.workers.emplace_back(worker_main, &p, static_cast<int>(p.workers.size()), p.generation);
    } catch (...) {
      break;  // no more threads to be had (an exhausted Emscripten pool, a process limit)
    }
  }
  const int have = static_cast<int>(p.workers.size()) + 1;
  p.active = n < have ? n : have;
  return p.active;
}

int threads() { return pool().active; }

uint64_t parallel_jobs() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lk(p.m);
  return p.jobs;
}

namespace detail {

void run_parts(int parts, void (*fn)(void*, int), void* ctx) {
  Pool& p = pool();
  if (parts <= 1 || parts > p.active || t_in_part) {
    for (int i = 0; i < parts; ++i) fn(ctx, i);
    return;
  }
  {
    std::lock_guard<std::mutex> lk(p.m);
    p.fn = fn;
    p.ctx = ctx;
    p.parts = parts;
    p.pending = parts - 1;
    ++p.generation;
    ++p.jobs;
  }
  p.wake.notify_all();
  t_in_part = true;
  fn(ctx, 0);  // fn does not throw (parallel_internal.h), so the workers are always waited for
  t_in_part = false;
  std::unique_lock<std::mutex> lk(p.m);
  p.done.wait(lk, [&] { return p.pending == 0; });
}

bool in_part() { return t_in_part; }

}  // namespace detail

#endif

}  // namespace attnviz
