// Running out of memory in the middle of a set_state loses nothing: the call
// returns a sentence and the pipeline still shows the previous result, bit
// for bit. A shape change releases the old result before it allocates the new
// one (so that two never coexist), which makes this worth testing: every
// allocation it makes is failed in turn.
//
// This file replaces the global operator new of engine_tests: the allocation
// numbered g_fail_at (counted from when it is set) throws std::bad_alloc.
// With g_fail_at = 0 it never does, so the other tests are unaffected.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include "attnviz/pipeline.h"
#include "engine_test_util.h"

namespace {
std::atomic<long> g_allocs{0};
std::atomic<long> g_fail_at{0};
}  // namespace

void* operator new(std::size_t n) {
  const long fail = g_fail_at.load();
  if (fail > 0 && g_allocs.fetch_add(1) + 1 == fail) throw std::bad_alloc();
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
// GCC inlines the operator new above into callers and then sees malloc's memory
// reach operator delete's free(): that pairing is this file's intent.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

using attnviz::Pipeline;
using attnviz::Stage;
using attnviz_test::expect_same_as_fresh;
using attnviz_test::run;
using attnviz_test::state_from;

// The t-th allocation of the next set_state fails; returns its status.
attnviz::Status set_state_failing_at(Pipeline* p, const attnviz::State& s, long t) {
  g_allocs = 0;
  g_fail_at = t;
  const attnviz::Status st = p->set_state(s);
  g_fail_at = 0;
  return st;
}

attnviz::State tokens(int n, int d_model, bool dropout) {
  std::string t;
  for (int i = 0; i < n; ++i) t += (i ? ",\"t" : "\"t") + std::to_string(i) + "\"";
  attnviz::State s = state_from("{\"tokens\": [" + t + "], \"d_model\": " + std::to_string(d_model) +
                                ", \"d_out\": 16, \"num_heads\": 2, \"causal\": true, \"out_proj\": true}");
  if (dropout) {
    s.dropout.training = true;
    s.dropout.p = 0.25;
  }
  return s;
}

// Fails each allocation of set_state(to) in turn on a pipeline showing
// `from`, until one call makes no failing allocation.
void sweep(const attnviz::State& from, const attnviz::State& to, bool lazy, const std::string& what) {
  long failed = 0;
  for (long t = 1;; ++t) {
    Pipeline p;
    if (lazy) p.track_demand();
    run(&p, from);
    if (lazy) {
      p.matrix(Stage::weights, 0);  // the app shows head 0's weights
      p.track_demand();
    }
    const uint64_t v = p.version(Stage::weights, 0);
    const attnviz::Status st = set_state_failing_at(&p, to, t);
    if (st.ok) {
      expect_same_as_fresh(p, what + ": no failure");
      break;
    }
    ++failed;
    const std::string when = what + ", allocation " + std::to_string(t) + " failed";
    EXPECT_NE(st.error.find("not enough memory"), std::string::npos) << when << ": " << st.error;
    ASSERT_TRUE(p.has_result()) << when;
    EXPECT_EQ(p.state().tokens, from.tokens) << when;
    EXPECT_EQ(p.version(Stage::weights, 0), v) << when << ": the old result, unchanged";
    expect_same_as_fresh(p, when);
    ASSERT_TRUE(p.set_state(to).ok) << when;  // and the next try works
    expect_same_as_fresh(p, when + ", then applied");
  }
  EXPECT_GT(failed, 10) << what << ": the sweep failed allocations inside set_state";
}

TEST(OutOfMemory, ATokenTypedOrDeletedKeepsTheOldResult) {
  for (bool lazy : {false, true}) {
    const std::string mode = lazy ? "lazy" : "eager";
    sweep(tokens(9, 16, false), tokens(10, 16, false), lazy, mode + ", typed a token");  // carried
    sweep(tokens(10, 16, true), tokens(9, 16, true), lazy, mode + ", deleted one, dropout");
    sweep(tokens(9, 8, false), tokens(4, 24, false), lazy, mode + ", another d_model");  // nothing carried
  }
}

}  // namespace
