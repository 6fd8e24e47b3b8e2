// Long mode (pipeline_long.cpp, pipeline_map.cpp): above Limits::kMaxFullTokens tokens a
// pipeline keeps no (S × S) buffer, and every number it shows is still the full path's,
// bit for bit. Pipeline::set_long_from lets a long pipeline and a full one run the same
// small states side by side: every variant, then a run of edits, each compared after
// the maps were read before it (so a kept row the edit should have dropped shows up).
// (The full path is checked against PyTorch by the fixture tests; equal bits inherit
// those tolerances. getRow at 8,192 tokens against PyTorch: tests/e2e/rows.test.mjs.)
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "attnviz/decode.h"
#include "attnviz/pipeline.h"
#include "attnviz/state_json.h"
#include "engine_test_util.h"

namespace {

using attnviz::Pipeline;
using attnviz::Stage;
using attnviz::State;
using attnviz::Tensor;
using attnviz_test::run;
using attnviz_test::state_from;
using attnviz_test::tokens_json;

constexpr Stage kSquare[] = {Stage::scores, Stage::scaled, Stage::bias, Stage::masked, Stage::weights, Stage::dropped};

State shaped(int S, int d_model, int heads, const std::string& extra) {
  return state_from("{\"tokens\": " + tokens_json(S) + ", \"d_model\": " + std::to_string(d_model) +
                    ", \"d_out\": " + std::to_string(d_model) + ", \"num_heads\": " + std::to_string(heads) +
                    ", \"embedding\": {\"init\": \"torch_randn\", \"seed\": 123}" +
                    ", \"weights\": {\"init\": \"torch_linear\", \"seed\": 7}" + extra + "}");
}

bool same(const float* a, const float* b, size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }

// Pools the full pipeline's matrix over b × b blocks, as Pipeline::overview does.
Tensor pooled(const Pipeline& full, Stage st, int h, int b, Pipeline::Pool pool) {
  Tensor t;
  EXPECT_TRUE(full.overview(st, h, b, pool, &t));
  return t;
}

// The long pipeline shows what the full one holds: maps at blocks 1 and 3 (max and mean),
// rows, context, concat, output and explanations.
void expect_long_equals_full(const Pipeline& lp, const Pipeline& full, const std::string& what) {
  ASSERT_TRUE(lp.long_mode()) << what;
  ASSERT_FALSE(full.long_mode()) << what;
  const int S = full.seq_len(), H = full.num_heads();
  Tensor m;
  std::vector<float> row;
  for (Stage st : kSquare) {
    for (int h = 0; h < H; ++h) {
      const Tensor* f = full.matrix(st, h);
      EXPECT_EQ(lp.matrix(st, h), nullptr) << what << " " << attnviz::stage_name(st);
      if (f == nullptr) {
        EXPECT_FALSE(lp.map(st, h, 1, Pipeline::Pool::max, 0, S, 0, S, &m)) << what;
        continue;
      }
      ASSERT_TRUE(lp.map(st, h, 1, Pipeline::Pool::max, 0, S, 0, S, &m)) << what;
      ASSERT_TRUE(same(m.data.data(), f->data.data(), f->data.size()))
          << what << ": " << attnviz::stage_name(st) << " head " << h << " cells";
      for (Pipeline::Pool pool : {Pipeline::Pool::max, Pipeline::Pool::mean}) {
        const Tensor want = pooled(full, st, h, 3, pool);
        ASSERT_TRUE(lp.map(st, h, 3, pool, 0, want.rows, 0, want.cols, &m)) << what;
        ASSERT_TRUE(same(m.data.data(), want.data.data(), want.data.size()))
            << what << ": " << attnviz::stage_name(st) << " head " << h << " pooled";
      }
      const int i = (h * 7) % S;
      ASSERT_TRUE(lp.row(st, h, i, &row));
      EXPECT_TRUE(same(row.data(), f->row(i), static_cast<size_t>(S))) << what;
      const attnviz::Explanation a = lp.explain(st, h, i, S - 1 - i), b = full.explain(st, h, i, S - 1 - i);
      EXPECT_TRUE(a.ok && b.ok) << what;
      EXPECT_EQ(a.value, b.value) << what;
      EXPECT_EQ(a.input, b.input) << what;
      EXPECT_EQ(a.normaliser, b.normaliser) << what;
      EXPECT_EQ(a.formula, b.formula) << what;
    }
  }
  for (Stage st : {Stage::context, Stage::concat, Stage::output}) {
    const int heads = st == Stage::context ? H : 1;
    for (int h = 0; h < heads; ++h) {
      const Tensor* a = lp.matrix(st, h);
      const Tensor* b = full.matrix(st, h);
      ASSERT_TRUE(a != nullptr && b != nullptr) << what;
      ASSERT_TRUE(same(a->data.data(), b->data.data(), b->data.size()))
          << what << ": " << attnviz::stage_name(st) << " head " << h;
    }
  }
  EXPECT_EQ(lp.explain(Stage::context, 0, S - 1, 0).value, full.explain(Stage::context, 0, S - 1, 0).value);
}

const std::pair<const char*, const char*> kVariants[] = {
    {"plain", ""},
    {"causal", ", \"causal\": true"},
    {"causal, fill -1e9, safe", ", \"causal\": true, \"mask_fill\": -1e9, \"safe_softmax\": true"},
    {"padding", ", \"key_padding\": [1,1,1,0,1,0,1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1]"},
    {"window", ", \"causal\": true, \"window\": 5"},
    {"ALiBi", ", \"alibi\": true, \"causal\": true"},
    {"RoPE, GQA", ", \"positional\": \"rope\", \"num_kv_heads\": 2, \"causal\": true"},
    {"MQA, sinusoidal", ", \"num_kv_heads\": 1, \"positional\": \"sinusoidal\""},
    {"dropout", ", \"causal\": true, \"dropout\": {\"p\": 0.3, \"training\": true, \"seed\": 9}"},
    {"biases, out_proj, temperature", ", \"temperature\": 0.7, \"qkv_bias\": true, \"out_proj\": true"},
    {"sinks", ", \"causal\": true, \"sinks\": {\"enabled\": true, \"values\": [0.5, -1, 2, 0]}"},
    {"StreamingLLM", ", \"causal\": true, \"kv_cache\": {\"policy\": \"streaming_llm\", \"sink_tokens\": 2, \"recent\": 6}"},
};

TEST(Long, EveryVariantIsTheFullPipelineBitForBit) {
  for (const auto& [name, extra] : kVariants) {
    const State s = shaped(30, 16, 4, extra);
    Pipeline lp, full;
    lp.set_long_from(8);
    run(&lp, s);
    run(&full, s);
    expect_long_equals_full(lp, full, name);
  }
  // head_dim 1, 2 and 64; one head and many; threads do not change a bit.
  const std::pair<const char*, State> shapes[] = {
      {"head_dim 1", shaped(21, 3, 3, ", \"causal\": true")},
      {"head_dim 2, RoPE", shaped(19, 4, 2, ", \"positional\": \"rope\"")},
      {"one head of 64", shaped(70, 64, 1, ", \"causal\": true, \"alibi\": true")},
  };
  for (const auto& [name, s] : shapes) {
    Pipeline lp, full;
    lp.set_long_from(4);
    run(&lp, s);
    run(&full, s);
    expect_long_equals_full(lp, full, name);
  }
}

// Each edit is applied to both pipelines after the long one's maps and context were read
// (kept rows in place), then everything is compared again.
TEST(Long, EditsDropExactlyWhatTheyTouch) {
  const std::string base = ", \"causal\": true, \"qkv_bias\": true, \"out_proj\": true";
  State s = shaped(40, 16, 4, base);
  Pipeline lp, full;
  lp.set_long_from(8);
  lp.track_demand();
  full.track_demand();
  run(&lp, s);
  run(&full, s);
  const std::vector<std::pair<const char*, std::function<void(State*)>>> edits = {
      // (Seeded X rows are nn.Embedding rows of the distinct tokens in order of first
      // appearance: renaming to a word seen before changes the row; to a new word, not.)
      {"rename the last token", [](State* x) { x->tokens.back() = "t2"; }},
      {"rename the first token", [](State* x) { x->tokens.front() = "t9"; }},
      {"rename a middle token", [](State* x) { x->tokens[17] = "t3"; }},
      {"causal off", [](State* x) { x->causal = false; }},
      {"rename under no mask", [](State* x) { x->tokens[5] = "t1"; }},
      {"causal on, window", [](State* x) {
         x->causal = true;
         x->window = 7;
       }},
      {"temperature", [](State* x) { x->temperature = 0.5; }},
      {"RoPE", [](State* x) { x->positional = attnviz::Positional::rope; }},
      {"RoPE base", [](State* x) { x->rope.base = 500.0; }},
      {"rename under RoPE", [](State* x) { x->tokens[30] = "t31"; }},
      {"weights seed", [](State* x) { x->weights.seed = 99; }},
      {"sinks", [](State* x) {
         x->sinks.enabled = true;
         x->sinks.values = {1.0, -2.0, 0.5, 3.0};
       }},
      {"padding", [](State* x) {
         x->key_padding.assign(x->tokens.size(), 1);
         x->key_padding[3] = 0;
       }},
      {"one more token", [](State* x) { x->tokens.push_back("new"); x->key_padding.push_back(1); }},
  };
  for (const auto& [name, edit] : edits) {
    Tensor m;
    for (int h = 0; h < 4; ++h) {  // read, so rows are kept when the edit comes
      lp.track_demand();
      ASSERT_TRUE(lp.map(Stage::weights, h, 4, Pipeline::Pool::max, 0, 100, 0, 100, &m));
      ASSERT_TRUE(lp.map(Stage::scores, h, 1, Pipeline::Pool::max, 0, 100, 0, 100, &m));
      // scores and scaled see every key: a changed key patches a column block of each kept row
      ASSERT_TRUE(lp.map(Stage::scores, h, 3, Pipeline::Pool::max, 0, 100, 0, 100, &m));
      ASSERT_TRUE(lp.map(Stage::scaled, h, 3, Pipeline::Pool::mean, 0, 100, 0, 100, &m));
      ASSERT_TRUE(lp.matrix(Stage::context, h) != nullptr);
    }
    ASSERT_TRUE(lp.matrix(Stage::output, 0) != nullptr);
    edit(&s);
    run(&lp, s);
    run(&full, s);
    expect_long_equals_full(lp, full, name);
  }
}

// The Decode tab's step is compared with row t of the pipeline's stages; in long mode
// those rows are computed (Pipeline::row), and they agree as in the full mode.
TEST(Long, DecodeStepsEqualTheLongPipelinesRows) {
  for (const char* extra : {", \"causal\": true", ", \"causal\": true, \"positional\": \"rope\", \"num_kv_heads\": 2",
                            ", \"causal\": true, \"kv_cache\": {\"policy\": \"streaming_llm\", \"sink_tokens\": 2, \"recent\": 5}"}) {
    Pipeline lp;
    lp.set_long_from(8);
    run(&lp, shaped(24, 16, 4, extra));
    ASSERT_TRUE(lp.long_mode());
    attnviz::DecodeStep d;
    for (int h = 0; h < 4; ++h) {
      for (int t = 0; t < 24; t += 5) {
        ASSERT_TRUE(attnviz::decode_step(lp, h, t, &d)) << extra;
        EXPECT_TRUE(attnviz::decode_matches_pipeline(lp, d)) << extra << " h" << h << " t" << t;
      }
    }
  }
}

TEST(Long, ALastTokenEditUnderTheCausalMaskRecomputesOnlyItsRows) {
  State s = shaped(64, 16, 2, ", \"causal\": true");
  Pipeline lp;
  lp.set_long_from(8);
  run(&lp, s);
  Tensor m;
  ASSERT_TRUE(lp.map(Stage::weights, 0, 8, Pipeline::Pool::max, 0, 8, 0, 8, &m));
  ASSERT_TRUE(lp.matrix(Stage::context, 0) != nullptr);
  EXPECT_EQ(lp.map_pending(Stage::weights, 0, 8, Pipeline::Pool::max, 0, 8), 0);
  s.tokens.back() = "t1";  // an earlier word: its embedding row
  run(&lp, s);
  // Only the last pooled row (rows 56 … 63) is dropped; only context row 63 redone.
  EXPECT_EQ(lp.map_pending(Stage::weights, 0, 8, Pipeline::Pool::max, 0, 7), 0);
  EXPECT_EQ(lp.map_pending(Stage::weights, 0, 8, Pipeline::Pool::max, 7, 1), 1);
  ASSERT_TRUE(lp.matrix(Stage::context, 0) != nullptr);
  EXPECT_EQ(lp.last_update(Stage::context, 0).rows, 1);
  // scores see every key: the edit's column block is redone in every kept row, the rest kept.
  ASSERT_TRUE(lp.map(Stage::scores, 1, 8, Pipeline::Pool::max, 0, 8, 0, 8, &m));
  const Tensor kept = m;
  s.tokens.back() = "t2";
  run(&lp, s);
  EXPECT_EQ(lp.map_pending(Stage::scores, 1, 8, Pipeline::Pool::max, 0, 8), 8) << "every row patched";
  ASSERT_TRUE(lp.map(Stage::scores, 1, 8, Pipeline::Pool::max, 0, 8, 0, 8, &m));
  for (int I = 0; I < 7; ++I) {
    for (int J = 0; J < 7; ++J) EXPECT_EQ(m.at(I, J), kept.at(I, J)) << "block (" << I << ", " << J << ") kept";
  }
  // The first token: every row sees it (and here every row changes).
  s.tokens.front() = "t1";  // the ids of the distinct tokens after it shift: every X row from 1 on
  run(&lp, s);
  EXPECT_EQ(lp.map_pending(Stage::weights, 0, 8, Pipeline::Pool::max, 0, 8), 8);
}

TEST(Long, NoSquareBufferAndPreparingFillsInWithinItsBudget) {
  const State s = shaped(3000, 16, 2, ", \"causal\": true");
  Pipeline p;
  run(&p, s);  // the default threshold: 3,000 tokens is long
  ASSERT_TRUE(p.long_mode());
  for (Stage st : kSquare) EXPECT_FALSE(p.holds(st, 0)) << attnviz::stage_name(st);
  EXPECT_LT(p.bytes_held(), uint64_t{8} << 20) << "3,000² floats would be 36 MB a head and stage";
  EXPECT_EQ(p.map_pending(Stage::weights, 1, 30, Pipeline::Pool::mean, 0, 100), 100);
  const int left = p.map_prepare(Stage::weights, 1, 30, Pipeline::Pool::mean, 0, 100, 0.0);
  EXPECT_LT(left, 100) << "at least one batch";
  EXPECT_EQ(p.map_prepare(Stage::weights, 1, 30, Pipeline::Pool::mean, 0, 100, 1e9), 0);
  EXPECT_EQ(p.map_pending(Stage::weights, 1, 30, Pipeline::Pool::mean, 0, 100), 0);
  Tensor m;
  ASSERT_TRUE(p.map(Stage::weights, 1, 30, Pipeline::Pool::mean, 98, 10, 0, 100, &m));
  EXPECT_EQ(m.rows, 2) << "clipped to the map";
  // Under the causal mask a pooled row's means sum to 30 rows' weight over 900 cells.
  double sum = 0.0;
  for (int J = 0; J < 100; ++J) sum += m.at(1, J);
  EXPECT_NEAR(sum, 30.0 / 900.0, 1e-6);
}

// The Stages tab asks for five maps of a head: one product of scores rows fills the rows of
// every map of that head, block and pool the view has asked for (bits checked by the tests
// above, which read scores first); a stage past the causal cut fills no scores or scaled
// rows (it does not compute their keys past the cut).
TEST(Long, OneProductOfScoresFillsTheHeadsOtherMaps) {
  const State s = shaped(3000, 16, 2, ", \"causal\": true");
  Pipeline p;
  run(&p, s);
  ASSERT_TRUE(p.long_mode());
  constexpr Stage kShown[] = {Stage::scores, Stage::scaled, Stage::masked, Stage::weights, Stage::dropped};
  const auto pending = [&](Stage st, int head, int block) { return p.map_pending(st, head, block, Pipeline::Pool::max, 0, 10); };
  for (Stage st : kShown) ASSERT_EQ(pending(st, 0, 32), 10) << attnviz::stage_name(st);  // asked for: now kept maps
  ASSERT_EQ(pending(Stage::weights, 1, 32), 10);
  EXPECT_EQ(p.map_prepare(Stage::masked, 0, 32, Pipeline::Pool::max, 0, 4, 1e9), 0);
  EXPECT_EQ(pending(Stage::weights, 0, 32), 6) << "rows 0-3 came with masked's";
  EXPECT_EQ(pending(Stage::dropped, 0, 32), 6);
  EXPECT_EQ(pending(Stage::scores, 0, 32), 10) << "past the cut: not from masked's product";
  EXPECT_EQ(p.map_prepare(Stage::scores, 0, 32, Pipeline::Pool::max, 0, 10, 1e9), 0);
  for (Stage st : kShown) EXPECT_EQ(pending(st, 0, 32), 0) << attnviz::stage_name(st);
  EXPECT_EQ(pending(Stage::weights, 1, 32), 10) << "another head's map is not of this product";
  EXPECT_EQ(p.map_pending(Stage::weights, 0, 16, Pipeline::Pool::max, 0, 10), 10) << "nor another block's";
}

TEST(Long, LimitsDropoutAndMemoryAreRefusedWithTheirSizes) {
  const State ok = shaped(2100, 8, 2, "");
  Pipeline p;
  ASSERT_TRUE(p.set_state(ok).ok);
  State drop = ok;
  drop.dropout.training = true;
  drop.dropout.p = 0.1;
  attnviz::Status st = p.set_state(drop);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.field, "dropout");
  EXPECT_NE(st.error.find("2100 tokens"), std::string::npos) << st.error;
  EXPECT_TRUE(p.long_mode()) << "the last state is kept";
  // 32,768 tokens of d_model 4,096 would need more than the limit: refused, with the size.
  State big = shaped(8, 8, 1, "");
  big.tokens.assign(attnviz::Limits::kMaxTokens, "w");
  big.d_model = big.d_out = 4096;
  st = p.set_state(big);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.error.find("GiB of memory (32768 tokens"), std::string::npos) << st.error;
  EXPECT_EQ(p.seq_len(), 2100);
  big.tokens.push_back("w");
  EXPECT_EQ(p.set_state(big).field, "tokens");
}

}  // namespace
