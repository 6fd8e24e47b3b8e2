// Threads never change a number (attnviz/parallel.h): matrix products split
// among threads by rows give the bits of one thread, and so does every stage
// of the pipeline, fresh and after incremental edits.
//
// In the default WebAssembly build there are no threads: max_threads() is 1
// and these tests check that set_threads says so; the splitting itself is
// tested natively (and under ASan + UBSan).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "attnviz/kernels.h"
#include "attnviz/materialize.h"
#include "attnviz/parallel.h"
#include "attnviz/pipeline.h"
#include "engine_test_util.h"

namespace {

using attnviz::Pipeline;
using attnviz::Stage;

// Restores one thread when a test ends, whatever it asserted.
struct ThreadsGuard {
  ~ThreadsGuard() { attnviz::set_threads(1); }
};

TEST(Parallel, SetThreadsClampsAndReportsWhatItGot) {
  ThreadsGuard guard;
  EXPECT_EQ(attnviz::set_threads(0), 1);
  EXPECT_EQ(attnviz::threads(), 1);
  EXPECT_EQ(attnviz::set_threads(-5), 1);
  const int got = attnviz::set_threads(3);
  EXPECT_EQ(got, attnviz::max_threads() < 3 ? attnviz::max_threads() : 3);
  EXPECT_EQ(attnviz::threads(), got);
  EXPECT_LE(attnviz::set_threads(1000), attnviz::kMaxThreads);
  EXPECT_EQ(attnviz::set_threads(1), 1);
}

// C = A · B (+ bias) for random shapes, all rows or a scattered subset, with
// and without a causal k_end, at 2, 3 and 5 threads against 1 thread.
TEST(Parallel, MatmulRowsSplitAmongThreadsIsBitwiseOneThread) {
  ThreadsGuard guard;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  struct Shape { int m, k, n; bool subset, causal, bias; };
  const Shape shapes[] = {{300, 256, 200, false, false, true}, {512, 64, 512, false, false, false},
                          {512, 512, 64, false, true, false},  {257, 300, 97, true, false, true},
                          {400, 400, 64, true, true, false},   {13, 1000, 900, false, false, true}};
  const uint64_t jobs0 = attnviz::parallel_jobs();
  for (const Shape& sh : shapes) {
    std::vector<float> a(static_cast<size_t>(sh.m) * sh.k), b(static_cast<size_t>(sh.k) * sh.n), bias(sh.n);
    for (float& v : a) v = u(rng);
    for (float& v : b) v = u(rng);
    for (float& v : bias) v = u(rng);
    std::vector<int> rows, k_end;
    for (int r = 0; r < sh.m; ++r) {
      if (sh.subset && r % 3 == 1) continue;
      rows.push_back(r);
      k_end.push_back(r + 1 < sh.k ? r + 1 : sh.k);
    }
    if (sh.causal) {  // the promise k_end makes: the skipped terms are exact zeros
      for (size_t t = 0; t < rows.size(); ++t) {
        for (int kk = k_end[t]; kk < sh.k; ++kk) a[static_cast<size_t>(rows[t]) * sh.k + kk] = 0.0f;
      }
    }
    auto product = [&](int threads) {
      attnviz::set_threads(threads);
      std::vector<float> c(static_cast<size_t>(sh.m) * sh.n, -7.0f);
      attnviz::kernels::matmul_rows(a.data(), sh.k, b.data(), sh.n, sh.bias ? bias.data() : nullptr, c.data(),
                                    sh.n, sh.k, sh.n, rows.data(), static_cast<int>(rows.size()),
                                    sh.causal ? k_end.data() : nullptr);
      return c;
    };
    const std::vector<float> one = product(1);
    for (int t : {2, 3, 5}) {
      const std::vector<float> many = product(t);
      EXPECT_EQ(0, std::memcmp(one.data(), many.data(), one.size() * sizeof(float)))
          << sh.m << "×" << sh.k << "×" << sh.n << " at " << t << " threads";
    }
  }
  if (attnviz::max_threads() > 1) {
    EXPECT_GT(attnviz::parallel_jobs(), jobs0) << "no product was split: the test compared one thread with itself";
  }
}

// A worker hands its first job over only once it runs, which may be after the
// job that needed it was posted (a Web Worker starts on a message; a native
// thread when the scheduler gets to it): growing the pool one thread at a time
// and splitting a product at once must still finish, with one thread's bits.
// Run in its own process (ctest: engine_tests_pool_growth), where every
// worker is new; with the pool already grown it checks only the bits.
TEST(Parallel, AProductSplitRightAfterThePoolGrowsFinishes) {
  ThreadsGuard guard;
  const int m = 12 * attnviz::kMaxThreads, k = 512, n = 512;  // 16 parts of 3 M multiply-adds
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(k) * n);
  for (float& x : a) x = u(gen);
  for (float& x : b) x = u(gen);
  std::vector<int> rows(static_cast<size_t>(m));
  for (int r = 0; r < m; ++r) rows[static_cast<size_t>(r)] = r;
  auto product = [&]() {
    std::vector<float> c(static_cast<size_t>(m) * n, 0.0f);
    attnviz::kernels::matmul_rows(a.data(), k, b.data(), n, nullptr, c.data(), n, k, n, rows.data(), m);
    return c;
  };
  attnviz::set_threads(1);
  const std::vector<float> one = product();
  for (int t = 2; t <= attnviz::kMaxThreads; ++t) {
    const int got = attnviz::set_threads(t);
    const std::vector<float> many = product();  // a worker that missed this job would hang it
    EXPECT_EQ(0, std::memcmp(one.data(), many.data(), one.size() * sizeof(float))) << "at " << got << " threads";
    if (got < t) break;  // no more threads to be had (the wasm-mt node pool has 3 workers)
  }
}

// 256 tokens, d_model = d_out = 256, four heads, causal, padding, dropout in
// training, output projection with biases: big enough that every product
// splits (at least 1 M multiply-adds per part).
attnviz::State big_state() {
  std::string tokens;
  for (int i = 0; i < 256; ++i) tokens += (i ? ",\"w" : "\"w") + std::to_string(i) + "\"";
  attnviz::State s = attnviz::materialize_embedding(attnviz_test::state_from(
      "{\"tokens\": [" + tokens + "], \"d_model\": 256, \"d_out\": 256, \"num_heads\": 4,"
      " \"out_proj\": true, \"qkv_bias\": true, \"causal\": true,"
      " \"dropout\": {\"p\": 0.1, \"training\": true, \"seed\": 7},"
      " \"weights\": {\"init\": \"torch_linear\", \"seed\": 11}}"));
  s.key_padding.assign(256, 1);
  for (int j = 250; j < 256; ++j) s.key_padding[j] = 0;
  return s;
}

void expect_same_stages(const Pipeline& a, const Pipeline& b, const std::string& when) {
  for (int si = 0; si < attnviz::kStageCount; ++si) {
    const Stage s = static_cast<Stage>(si);
    const int heads = attnviz::stage_is_per_head(s) ? a.num_heads() : 1;
    for (int h = 0; h < heads; ++h) {
      const attnviz::Tensor* x = a.matrix(s, h);
      const attnviz::Tensor* y = b.matrix(s, h);
      ASSERT_EQ(x == nullptr, y == nullptr) << when << ": " << attnviz::stage_name(s);
      if (x != nullptr) {
        EXPECT_TRUE(attnviz::tensors_bitwise_equal(*x, *y)) << when << ": " << attnviz::stage_name(s) << " head " << h;
      }
    }
  }
}

TEST(Parallel, EveryStageIsTheSameBitsAtThreeThreadsFreshAndAfterEdits) {
  ThreadsGuard guard;
  attnviz::State s = big_state();
  attnviz::set_threads(1);
  Pipeline one;
  attnviz_test::run(&one, s);

  attnviz::set_threads(3);
  const uint64_t jobs0 = attnviz::parallel_jobs();
  Pipeline many;
  attnviz_test::run(&many, s);
  if (attnviz::max_threads() > 1) {
    EXPECT_GT(attnviz::parallel_jobs(), jobs0) << "the forward never used the workers";
  }
  expect_same_stages(one, many, "fresh");

  // Incremental work at three threads against a fresh forward at one.
  auto check = [&](const std::string& when) {
    attnviz::set_threads(3);
    attnviz_test::run(&many, s);
    attnviz::set_threads(1);
    Pipeline fresh;
    attnviz_test::run(&fresh, s);
    expect_same_stages(fresh, many, when);
  };
  for (int c = 0; c < s.d_model; ++c) s.embedding.values.mut().at(0, c) += 0.25f;
  check("edit of token 0");
  for (int c = 0; c < s.d_model; ++c) s.embedding.values.mut().at(200, c) -= 0.5f;
  check("edit of token 200");
  s.causal = false;
  check("causal off");
  s.temperature = 0.5;
  check("temperature 0.5");
  s.dropout.training = false;
  check("dropout off");
}

// What a reader sees of stage s of head h besides its numbers: its version
// and the record of the last update (the UI uploads a texture when the
// version moves, and shows the record).
void expect_same_record(const Pipeline& a, const Pipeline& b, Stage s, int h, const std::string& when) {
  const std::string where = when + ": " + attnviz::stage_name(s) + " head " + std::to_string(h);
  EXPECT_EQ(a.version(s, h), b.version(s, h)) << where;
  const attnviz::StageUpdate x = a.last_update(s, h), y = b.last_update(s, h);
  EXPECT_EQ(x.kind, y.kind) << where;
  EXPECT_EQ(x.rows, y.rows) << where;
  EXPECT_EQ(x.cols, y.cols) << where;
  EXPECT_EQ(x.changed, y.changed) << where;
  EXPECT_EQ(x.patched, y.patched) << where;
}

// Incremental updates with the heads in groups on three threads (four heads:
// the groups take 2, 1 and 1, in whatever order the threads get to them)
// against the same updates on one thread: the same bits and the same
// versions and records, eagerly and lazily. `many` is made at one thread, so
// its first update at three also grows its working spaces.
TEST(Parallel, HeadGroupsGiveOneThreadsBitsVersionsAndRecords) {
  ThreadsGuard guard;
  for (bool lazy : {false, true}) {
    const std::string mode = lazy ? "lazy, " : "eager, ";
    attnviz::State s = big_state();
    attnviz::set_threads(1);
    Pipeline one, many;
    attnviz_test::run(&one, s);
    attnviz_test::run(&many, s);
    const uint64_t jobs0 = attnviz::parallel_jobs();
    auto step = [&](const std::string& what) {
      const std::string when = mode + what;
      for (Pipeline* p : {&one, &many}) {
        attnviz::set_threads(p == &one ? 1 : 3);
        if (lazy) p->track_demand();
        attnviz_test::run(p, s);
      }
      attnviz::set_threads(1);
      // Without side effects first: which stages are current.
      for (int si = 0; si < attnviz::kStageCount; ++si) {
        const Stage st = static_cast<Stage>(si);
        const int heads = attnviz::stage_is_per_head(st) ? one.num_heads() : 1;
        for (int h = 0; h < heads; ++h) {
          EXPECT_EQ(one.current(st, h), many.current(st, h)) << when << ": " << attnviz::stage_name(st) << " " << h;
        }
      }
      if (lazy) {
        // The demand of a UI showing two heads: scores of every head, the
        // weights of head 1 and the context of head 2.
        for (int h = 0; h < one.num_heads(); ++h) expect_same_record(one, many, Stage::scores, h, when);
        expect_same_record(one, many, Stage::weights, 1, when);
        expect_same_record(one, many, Stage::context, 2, when);
        EXPECT_TRUE(attnviz::tensors_bitwise_equal(*one.matrix(Stage::weights, 1), *many.matrix(Stage::weights, 1)))
            << when;
        EXPECT_TRUE(attnviz::tensors_bitwise_equal(*one.matrix(Stage::context, 2), *many.matrix(Stage::context, 2)))
            << when;
        return;
      }
      for (int si = 0; si < attnviz::kStageCount; ++si) {
        const Stage st = static_cast<Stage>(si);
        const int heads = attnviz::stage_is_per_head(st) ? one.num_heads() : 1;
        for (int h = 0; h < heads; ++h) expect_same_record(one, many, st, h, when);
      }
      expect_same_stages(one, many, when);
    };
    step("first update");
    for (int c = 0; c < s.d_model; ++c) s.embedding.values.mut().at(0, c) += 0.25f;
    step("edit of token 0");
    for (int c = 0; c < s.d_model; ++c) s.embedding.values.mut().at(131, c) *= -1.0f;
    step("edit of token 131");
    s.key_padding[3] = 0;
    step("token 3 padded");
    s.causal = false;
    step("causal off");
    s.causal = true;
    step("causal on");
    s.temperature = 2.0;
    step("temperature 2");
    s.dropout.seed = 8;
    step("another dropout seed");
    s.dropout.training = false;
    step("dropout off");
    if (attnviz::max_threads() > 1) {
      EXPECT_GT(attnviz::parallel_jobs(), jobs0) << mode << "the heads never ran on the workers";
    }
  }
}

}  // namespace
