// Another number of tokens (a word typed at the end, deleted, or inserted):
// the rebuild takes the parameters, and the rows of Q, K, V and the score
// cells whose X rows it finds again, from the result it replaces
// (detail::Carry, engine/src/pipeline/carry.cpp). Each test checks what was computed
// (last_update, versions) and that every stage of every head is bitwise what
// a fresh pipeline computes.
#include <gtest/gtest.h>

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
using attnviz::UpdateKind;
using attnviz_test::expect_same_as_fresh;
using attnviz_test::run;
namespace k = attnviz::kernels;

using Rows = std::vector<std::vector<float>>;

// n rows of d random values in [−2, 2) (seeded: a row's values depend on its
// index only).
Rows random_rows(int n, int d, unsigned seed = 5) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  Rows rows(static_cast<size_t>(n), std::vector<float>(static_cast<size_t>(d)));
  for (auto& r : rows) {
    for (float& v : r) v = u(gen);
  }
  return rows;
}

// A state whose X is the given rows (tokens named after their rows' labels),
// d_out 16, two heads, Q/K/V biases and an output projection.
attnviz::State state_of(const Rows& x, const std::vector<int>& labels, bool causal, bool positions = false) {
  attnviz::State s;
  s.tokens.clear();
  for (int l : labels) s.tokens.push_back("w" + std::to_string(l));
  s.d_model = static_cast<int>(x[0].size());
  s.d_out = 16;
  s.num_heads = 2;
  s.qkv_bias = true;
  s.out_proj = true;
  s.out_bias = true;
  s.causal = causal;
  s.positional = positions ? attnviz::Positional::sinusoidal : attnviz::Positional::none;
  s.embedding.init = attnviz::EmbeddingInit::values;
  s.embedding.values.reset(static_cast<int>(x.size()), s.d_model);
  for (size_t r = 0; r < x.size(); ++r) {
    for (int c = 0; c < s.d_model; ++c) s.embedding.values.mut().at(static_cast<int>(r), c) = x[r][static_cast<size_t>(c)];
  }
  s.weights.init = attnviz::WeightInit::torch_linear;
  s.weights.seed = 7;
  return s;
}

// The state of rows `pick` of all (labels = the picked indices).
attnviz::State pick_state(const Rows& all, const std::vector<int>& pick, bool causal, bool positions = false) {
  Rows x;
  for (int i : pick) x.push_back(all[static_cast<size_t>(i)]);
  return state_of(x, pick, causal, positions);
}

std::vector<int> iota(int n, int from = 0) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back(from + i);
  return v;
}

// Q, K and V recomputed `rows` rows of the new S (partial: the others were
// carried), and every head's scores those rows and columns.
void expect_computed_rows(const Pipeline& p, int rows, const std::string& when) {
  for (Stage s : {Stage::Q, Stage::K, Stage::V}) {
    EXPECT_EQ(p.last_update(s).kind, UpdateKind::partial) << when << ": " << attnviz::stage_name(s);
    EXPECT_EQ(p.last_update(s).rows, rows) << when << ": " << attnviz::stage_name(s);
    EXPECT_TRUE(p.last_update(s).changed) << when;
  }
  for (int h = 0; h < p.num_heads(); ++h) {
    EXPECT_EQ(p.last_update(Stage::scores, h).kind, UpdateKind::partial) << when << ": head " << h;
    EXPECT_EQ(p.last_update(Stage::scores, h).rows, rows) << when << ": head " << h;
    EXPECT_EQ(p.last_update(Stage::scores, h).cols, rows) << when << ": head " << h;
    EXPECT_EQ(p.last_update(Stage::weights, h).kind, UpdateKind::full) << when << ": head " << h;
  }
}

// Runs body once per kernel set this machine has (portable, and AVX2 or SIMD128).
template <class F>
void for_each_isa(F body) {
  const k::Isa saved = k::active_isa();
  for (k::Isa isa : {k::Isa::portable, k::Isa::avx2, k::Isa::wasm_simd128}) {
    if (!k::set_isa(isa)) continue;
    body(std::string(k::isa_name(isa)));
  }
  k::set_isa(saved);
}

TEST(Resize, AppendingAndDeletingTheLastTokenComputeOnlyItsRows) {
  const Rows all = random_rows(41, 24);
  for_each_isa([&](const std::string& isa) {
    // Sizes on both sides of the kernels' register tiles (4 × 8, 6 × 16).
    for (int S : {1, 5, 7, 8, 15, 16, 17, 31, 40}) {
      for (bool causal : {false, true}) {
        const std::string when = isa + ", S " + std::to_string(S) + (causal ? ", causal" : "");
        Pipeline p;
        run(&p, pick_state(all, iota(S), causal));
        const uint64_t w_q = p.version(Stage::W_q), b_o = p.version(Stage::b_o);
        run(&p, pick_state(all, iota(S + 1), causal));
        expect_computed_rows(p, 1, when + ", appended");
        EXPECT_EQ(p.last_update(Stage::W_q).kind, UpdateKind::none) << when;
        EXPECT_EQ(p.version(Stage::W_q), w_q) << when << ": the parameters are kept";
        EXPECT_EQ(p.version(Stage::b_o), b_o) << when;
        expect_same_as_fresh(p, when + ", appended");
        run(&p, pick_state(all, iota(S), causal));
        expect_computed_rows(p, 0, when + ", deleted");
        expect_same_as_fresh(p, when + ", deleted");
      }
    }
  });
}

TEST(Resize, ATokenInsertedInTheMiddleComputesWhatMoved) {
  const Rows all = random_rows(30, 16);
  std::vector<int> before = iota(20), after = iota(20);
  after.insert(after.begin() + 8, 25);  // w25 between w7 and w8
  for (bool causal : {false, true}) {
    // Without positions the tokens after it keep their X rows: one new row.
    Pipeline p;
    run(&p, pick_state(all, before, causal));
    run(&p, pick_state(all, after, causal));
    expect_computed_rows(p, 1, "inserted, no positions");
    expect_same_as_fresh(p, "inserted, no positions");
    run(&p, pick_state(all, before, causal));
    expect_computed_rows(p, 0, "deleted again, no positions");
    expect_same_as_fresh(p, "deleted again, no positions");
    // With sinusoidal positions every row from the insertion on moved.
    Pipeline q;
    run(&q, pick_state(all, before, causal, true));
    run(&q, pick_state(all, after, causal, true));
    expect_computed_rows(q, 21 - 8, "inserted, sinusoidal");
    expect_same_as_fresh(q, "inserted, sinusoidal");
  }
}

// RoPE: a row's rotation depends on its position, so only rows that keep
// their index carry (an appended token: one new row; an inserted one: every
// row from it on), with GQA and ALiBi on too.
TEST(Resize, WithRopeOnlyRowsThatKeepTheirPositionCarry) {
  const Rows all = random_rows(30, 16);
  std::vector<int> before = iota(20), after = iota(20);
  after.insert(after.begin() + 8, 25);
  for (bool causal : {false, true}) {
    auto variant = [&](attnviz::State st) {
      st.positional = attnviz::Positional::rope;
      st.num_kv_heads = 1;
      st.alibi = true;
      return st;
    };
    Pipeline p;
    run(&p, variant(pick_state(all, before, causal)));
    run(&p, variant(pick_state(all, iota(21), causal)));
    expect_computed_rows(p, 1, "appended, rope");
    expect_same_as_fresh(p, "appended, rope");
    run(&p, variant(pick_state(all, before, causal)));
    run(&p, variant(pick_state(all, after, causal)));
    expect_computed_rows(p, 21 - 8, "inserted, rope");
    expect_same_as_fresh(p, "inserted, rope");
    run(&p, variant(pick_state(all, iota(20, 3), causal)));  // every row moved
    expect_same_as_fresh(p, "shifted, rope");
  }
}

TEST(Resize, ReorderedAndRepeatedTokensAreFoundWhereverTheyWere) {
  const Rows all = random_rows(12, 16);
  Pipeline p;
  run(&p, pick_state(all, {0, 1, 2, 3, 4, 5, 6, 7, 8}, true));
  // Reversed, one token twice, one dropped, one new: only the new one is computed.
  run(&p, pick_state(all, {8, 7, 3, 6, 5, 4, 3, 2, 1, 11}, true));
  expect_computed_rows(p, 1, "reordered");
  expect_same_as_fresh(p, "reordered");
  run(&p, pick_state(all, {3, 3, 11}, false));
  expect_computed_rows(p, 0, "repeated");
  expect_same_as_fresh(p, "repeated");
}

TEST(Resize, DropoutPaddingAndANewWeightSeed) {
  const Rows all = random_rows(20, 16);
  attnviz::State s = pick_state(all, iota(12), true);
  s.dropout.training = true;
  s.dropout.p = 0.3;
  s.key_padding.assign(12, 1);  // 1 = a real key
  s.key_padding[3] = 0;
  Pipeline p;
  run(&p, s);
  attnviz::State t = pick_state(all, iota(13), true);
  t.dropout = s.dropout;
  t.key_padding.assign(13, 1);
  t.key_padding[3] = 0;
  t.key_padding[12] = 0;
  run(&p, t);  // the keep mask is drawn again for the new shape
  expect_computed_rows(p, 1, "dropout and padding");
  expect_same_as_fresh(p, "dropout and padding");
  // Other weights as well: nothing can be carried.
  t = pick_state(all, iota(14), true);
  t.weights.seed = 8;
  const uint64_t w_q = p.version(Stage::W_q);
  run(&p, t);
  EXPECT_EQ(p.last_update(Stage::Q).kind, UpdateKind::full);
  EXPECT_EQ(p.last_update(Stage::Q).rows, 14);
  EXPECT_NE(p.version(Stage::W_q), w_q);
  expect_same_as_fresh(p, "new weight seed");
  // Another d_out: rebuilt from scratch too.
  t.d_out = 8;
  run(&p, t);
  EXPECT_EQ(p.last_update(Stage::Q).kind, UpdateKind::full);
  expect_same_as_fresh(p, "new d_out");
}

// As the app types: seeded embedding table (vocabulary in order of first
// appearance) and seeded weights. With d_model a multiple of 16 the table's
// first rows do not change when the vocabulary grows (torch's normal_ fills
// 16 at a time), so one row is computed.
TEST(Resize, TypingANewWordWithASeededEmbedding) {
  auto tokens = [](int n) {
    std::string t;
    for (int i = 0; i < n; ++i) t += (i ? ",\"t" : "\"t") + std::to_string(i) + "\"";
    return attnviz_test::state_from("{\"tokens\": [" + t +
                                    "], \"d_model\": 32, \"d_out\": 32, \"num_heads\": 4, \"causal\": true,"
                                    " \"out_proj\": true, \"qkv_bias\": true}");
  };
  Pipeline p;
  run(&p, tokens(9));
  run(&p, tokens(10));
  expect_computed_rows(p, 1, "typed t9");
  expect_same_as_fresh(p, "typed t9");
}

// The pipeline keeps the seeded embedding table between states and draws
// only the rows a growing vocabulary adds: X must stay the fresh table's,
// growing, shrinking, renaming, with another seed or d_model.
TEST(Resize, TheKeptEmbeddingTableGivesTheFreshX) {
  auto state = [](const std::vector<std::string>& words, int d_model, int seed) {
    std::string t;
    for (const std::string& w : words) t += (t.empty() ? "\"" : ",\"") + w + "\"";
    return attnviz_test::state_from("{\"tokens\": [" + t + "], \"d_model\": " + std::to_string(d_model) +
                                    ", \"d_out\": 16, \"num_heads\": 2, \"embedding\": {\"seed\": " +
                                    std::to_string(seed) + "}}");
  };
  const std::vector<std::vector<std::string>> steps = {
      {"a", "b"}, {"a", "b", "c"}, {"a", "b", "c", "d", "e", "f", "g"}, {"a", "b"},
      {"a", "b", "x", "y"},  // the vocabulary shrank, then grew with other words
      {"y", "x", "b", "a"}, {"z"}, {"a", "b", "c", "d", "e", "f", "g", "h", "i"}};
  for (int d_model : {16, 32, 24}) {  // 24: not a multiple of 16, drawn whole each time
    for (int seed : {123, 9}) {
      Pipeline p;
      for (const auto& words : steps) {
        run(&p, state(words, d_model, seed));
        expect_same_as_fresh(p, "d_model " + std::to_string(d_model) + ", seed " + std::to_string(seed) +
                                    ", " + std::to_string(words.size()) + " words");
      }
    }
  }
  // Another seed on the same pipeline starts the table again.
  Pipeline p;
  run(&p, state({"a", "b", "c"}, 16, 1));
  run(&p, state({"a", "b", "c", "d"}, 16, 2));
  expect_same_as_fresh(p, "another seed");
}

TEST(Resize, LazyHeadsLeftStaleAreRightWhenRead) {
  const Rows all = random_rows(20, 16);
  Pipeline p;
  p.track_demand();
  run(&p, pick_state(all, iota(10), true));
  p.matrix(Stage::weights, 0);  // the app shows head 0's weights
  p.track_demand();
  run(&p, pick_state(all, iota(11), true));
  EXPECT_TRUE(p.current(Stage::weights, 0));
  EXPECT_FALSE(p.current(Stage::weights, 1));
  EXPECT_FALSE(p.current(Stage::output));
  expect_computed_rows(p, 1, "lazy");
  expect_same_as_fresh(p, "lazy, read after");  // reads every stage
}

TEST(Resize, HeadGroupsOnThreadsGiveTheSameBits) {
  attnviz::set_threads(3);  // 1 in a build without threads
  const Rows all = random_rows(40, 16);
  Pipeline p;
  run(&p, pick_state(all, iota(30), false));
  run(&p, pick_state(all, iota(33), false));
  expect_computed_rows(p, 3, "3 threads");
  attnviz::set_threads(1);
  expect_same_as_fresh(p, "3 threads (fresh at 1)");
}

}  // namespace
