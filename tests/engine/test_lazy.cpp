// Lazy mode (Pipeline::track_demand): set_state computes only the stages read
// lately, the others on first read, and a reader can never tell the
// difference in values: every stage read from a lazy pipeline is bitwise the
// eager pipeline's, and a version that did not change means contents that did
// not change (the UI's texture cache relies on it).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "attnviz/materialize.h"
#include "attnviz/pipeline.h"
#include "engine_test_util.h"

namespace {

using attnviz::Pipeline;
using attnviz::Stage;
using attnviz_test::run;
using attnviz_test::state_from;

constexpr Stage kAllStages[] = {Stage::X, Stage::Q, Stage::K, Stage::V, Stage::scores,
                                Stage::scaled, Stage::masked, Stage::weights, Stage::dropped,
                                Stage::context, Stage::concat, Stage::output};

bool per_head(Stage s) { return attnviz::stage_is_per_head(s); }

// Seven tokens with torch_randn embeddings (so tokens can be added), three heads,
// biases and an output projection.
attnviz::State lazy_base() {
  return state_from(R"({"tokens": ["the", "cat", "sat", "on", "the", "mat", "a"],
    "d_model": 6, "d_out": 6, "num_heads": 3, "qkv_bias": true, "out_proj": true,
    "embedding": {"init": "torch_randn", "seed": 5},
    "weights": {"init": "torch_linear", "seed": 7}})");
}

std::vector<float> copy_of(const attnviz::Tensor& t) { return std::vector<float>(t.data.begin(), t.data.end()); }

bool same_bits(const std::vector<float>& a, const attnviz::Tensor& b) {
  return a.size() == b.data.size() && std::memcmp(a.data(), b.data.data(), a.size() * sizeof(float)) == 0;
}

TEST(Lazy, OnlyTheStagesReadAreComputedAndTheRestOnFirstRead) {
  Pipeline lazy, eager;
  auto s = lazy_base();
  lazy.track_demand();
  run(&lazy, s);
  // Nothing was read before the first result: heads stop at scores.
  EXPECT_TRUE(lazy.current(Stage::scores, 1));
  EXPECT_TRUE(lazy.current(Stage::masked, 2));
  EXPECT_FALSE(lazy.current(Stage::weights, 0));
  EXPECT_FALSE(lazy.current(Stage::context, 0));
  EXPECT_FALSE(lazy.current(Stage::output));
  EXPECT_TRUE(lazy.current(Stage::Q));

  // A frame that shows head 0's weights.
  ASSERT_NE(lazy.matrix(Stage::weights, 0), nullptr);
  EXPECT_TRUE(lazy.current(Stage::weights, 0));
  EXPECT_FALSE(lazy.current(Stage::context, 0));  // a deeper stage is not computed by reading a shallower one
  EXPECT_FALSE(lazy.current(Stage::weights, 1));
  lazy.track_demand();

  s.embedding.seed = 6;  // every X row changes
  run(&lazy, s);
  run(&eager, s);
  EXPECT_TRUE(lazy.current(Stage::weights, 0)) << "read in the last frame: kept up to date";
  EXPECT_TRUE(lazy.current(Stage::dropped, 0));
  EXPECT_FALSE(lazy.current(Stage::weights, 1));
  EXPECT_FALSE(lazy.current(Stage::context, 0));
  EXPECT_FALSE(lazy.current(Stage::concat));
  EXPECT_TRUE(attnviz::tensors_bitwise_equal(*lazy.matrix(Stage::weights, 0), *eager.matrix(Stage::weights, 0)));

  // Reading the output brings every head's context (and concat) up to date.
  EXPECT_TRUE(attnviz::tensors_bitwise_equal(*lazy.matrix(Stage::output), *eager.matrix(Stage::output)));
  for (int h = 0; h < 3; ++h) EXPECT_TRUE(lazy.current(Stage::context, h)) << h;
  EXPECT_TRUE(lazy.current(Stage::concat));

  // Two frames without reading the output: it falls out of the demand.
  lazy.track_demand();
  lazy.track_demand();
  s.temperature = 2.0;
  run(&lazy, s);
  run(&eager, s);
  EXPECT_FALSE(lazy.current(Stage::output));
  EXPECT_FALSE(lazy.current(Stage::weights, 0));
  EXPECT_TRUE(attnviz::tensors_bitwise_equal(*lazy.matrix(Stage::context, 2), *eager.matrix(Stage::context, 2)));
  EXPECT_TRUE(lazy.current(Stage::weights, 2)) << "context needs the weights";
  EXPECT_FALSE(lazy.current(Stage::weights, 1));
}

TEST(Lazy, AStageWhoseInputsDidNotChangeStaysCurrentWithoutDemand) {
  Pipeline p, eager;
  auto s = lazy_base();
  p.track_demand();
  run(&p, s);
  ASSERT_NE(p.matrix(Stage::output), nullptr);
  p.track_demand();
  p.track_demand();  // nothing read for two frames: no demand left
  run(&p, s);        // the same state
  EXPECT_TRUE(p.current(Stage::output));
  EXPECT_TRUE(p.current(Stage::weights, 1));
  // A change of V's weights alone (explicit weights) leaves every head's
  // weights current; W_v column 0 feeds head 0's V only, so only head 0's
  // context goes stale, and with it concat and output.
  s = attnviz::materialize_weights(s);
  run(&p, s);
  EXPECT_TRUE(p.current(Stage::output)) << "the same numbers, now explicit";
  s.weights.W_v.mut().at(0, 0) += 1.0f;
  run(&p, s);
  run(&eager, s);
  for (int h = 0; h < 3; ++h) {
    EXPECT_TRUE(p.current(Stage::weights, h)) << h;
    EXPECT_EQ(p.current(Stage::context, h), h != 0) << h;
  }
  EXPECT_FALSE(p.current(Stage::output));
  EXPECT_TRUE(attnviz::tensors_bitwise_equal(*p.matrix(Stage::output), *eager.matrix(Stage::output)));
}

// Random edits, reads and frames against an eager pipeline: every value read
// is the eager one, and an unchanged version always means unchanged contents.
TEST(Lazy, RandomEditsAndReadsMatchAnEagerPipeline) {
  std::mt19937 rng(2026);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const char* words[] = {"the", "cat", "sat", "on", "a", "mat", "dog"};
  Pipeline lazy, eager;
  auto s = lazy_base();
  run(&lazy, s);
  lazy.track_demand();
  run(&eager, s);
  struct Seen {
    uint64_t version = 0;
    std::vector<float> values;
  };
  std::map<std::pair<int, int>, Seen> seen;  // (stage, head) -> what the reader saw last
  int checked = 0, unchanged_versions = 0;
  for (int step = 0; step < 300; ++step) {
    switch (pick(11)) {
      case 0: s.tokens[static_cast<size_t>(pick(static_cast<int>(s.tokens.size())))] = words[pick(7)]; break;
      case 1: s.causal = !s.causal; break;
      case 2: s.temperature = 0.5 + pick(4) * 0.5; break;
      case 3: s.dropout = {pick(5) * 0.25, pick(2) == 1, static_cast<uint64_t>(pick(3))}; break;
      case 4: s.safe_softmax = !s.safe_softmax; break;
      case 5: s.weights.seed = 7 + pick(3); break;
      case 6:
        if (s.tokens.size() < 10) s.tokens.push_back(words[pick(7)]);
        else s.tokens.pop_back();
        s.key_padding.clear();
        break;
      case 7:
        s.num_heads = pick(2) ? 3 : 2;
        if (s.num_heads == 2) s.positional = attnviz::Positional::none;  // head_dim 3: no RoPE
        attnviz::fit_to_heads(&s);  // explicit sink logits follow the heads
        break;
      case 8: s.key_padding.assign(s.tokens.size(), 0); s.key_padding[0] = 1; break;
      case 9:  // issue 23's options (num_heads 2 or 3: RoPE needs an even head_dim, G divides H)
        s.alibi = pick(2) == 1;
        s.window = pick(3);
        s.num_kv_heads = pick(2) ? 0 : 1;
        s.positional = s.num_heads == 3 && pick(2) ? attnviz::Positional::rope : attnviz::Positional::none;
        // issue 36's: sinks (values fitted to the heads) and StreamingLLM's cache
        s.sinks.enabled = pick(2) == 1;
        s.sinks.values.assign(static_cast<size_t>(s.num_heads), static_cast<float>(pick(5) - 2));
        s.kv_cache.policy = pick(2) ? attnviz::CachePolicy::streaming_llm : attnviz::CachePolicy::full;
        s.kv_cache.sink_tokens = pick(3);
        s.kv_cache.recent = 1 + pick(3);
        break;
      default: break;  // no edit: a frame only
    }
    run(&lazy, s);
    run(&eager, s);
    // A frame: read a few stages (what a UI shows), sometimes start a new frame.
    const int reads = pick(4);
    for (int k = 0; k < reads; ++k) {
      const Stage st = kAllStages[pick(12)];
      const int h = per_head(st) ? pick(eager.num_heads()) : 0;
      const uint64_t v = lazy.version(st, h);
      const attnviz::Tensor* a = lazy.matrix(st, h);
      const attnviz::Tensor* b = eager.matrix(st, h);
      ASSERT_TRUE(a != nullptr && b != nullptr);
      ASSERT_TRUE(attnviz::tensors_bitwise_equal(*a, *b))
          << "step " << step << ": " << attnviz::stage_name(st) << " head " << h;
      EXPECT_EQ(v, lazy.version(st, h));
      Seen& last = seen[{static_cast<int>(st), h}];
      if (last.version == v) {
        ASSERT_TRUE(same_bits(last.values, *a))
            << "step " << step << ": " << attnviz::stage_name(st) << " head " << h
            << " kept its version but changed";
        ++unchanged_versions;
      }
      last = Seen{v, copy_of(*a)};
      ++checked;
    }
    if (pick(3) == 0) lazy.track_demand();
  }
  // Finally every stage of every head.
  for (Stage st : kAllStages) {
    for (int h = 0; h < (per_head(st) ? eager.num_heads() : 1); ++h) {
      EXPECT_TRUE(attnviz::tensors_bitwise_equal(*lazy.matrix(st, h), *eager.matrix(st, h)))
          << attnviz::stage_name(st) << " head " << h;
    }
  }
  EXPECT_GT(checked, 200);
  EXPECT_GT(unchanged_versions, 20);  // the version contract was exercised, not only fresh reads
}

TEST(Lazy, EagerPipelinesAreAlwaysCurrent) {
  Pipeline p;
  EXPECT_FALSE(p.current(Stage::output));  // no result yet
  run(&p, lazy_base());
  for (Stage st : kAllStages) {
    for (int h = 0; h < (per_head(st) ? 3 : 1); ++h) EXPECT_TRUE(p.current(st, h)) << attnviz::stage_name(st);
  }
  EXPECT_FALSE(p.current(Stage::context, 3));  // no such head
}

}  // namespace
