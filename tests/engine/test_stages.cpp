// The stage table (attnviz/stages.h): one row per Stage, names that round-trip,
// and shapes / storage that agree with what a real pipeline produces and keeps.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "attnviz/pipeline.h"
#include "attnviz/report.h"
#include "attnviz/stages.h"
#include "attnviz/state.h"
#include "engine_test_util.h"

namespace {

using attnviz::Pipeline;
using attnviz::Stage;
using attnviz::StageAxis;
using attnviz::StageDim;
using attnviz::StageInfo;
using attnviz::StageStorage;
using attnviz::StageWhen;
using attnviz::kStageCount;
using attnviz_test::state_from;

const StageInfo& row(int i) { return attnviz::stage_table()[i]; }

TEST(StageTable, EveryStageHasOneRowInOrderWithAUniqueNameThatRoundTrips) {
  std::set<std::string> names;
  for (int i = 0; i < kStageCount; ++i) {
    const Stage s = static_cast<Stage>(i);
    EXPECT_EQ(row(i).stage, s) << i;
    EXPECT_EQ(&attnviz::stage_info(s), &row(i));
    ASSERT_NE(row(i).name, nullptr);
    EXPECT_STRNE(row(i).name, "");
    EXPECT_STREQ(attnviz::stage_name(s), row(i).name);
    EXPECT_TRUE(names.insert(row(i).name).second) << "duplicate " << row(i).name;
    Stage back = Stage::output;
    ASSERT_TRUE(attnviz::stage_from_name(row(i).name, &back)) << row(i).name;
    EXPECT_EQ(back, s);
  }
  Stage unused;
  EXPECT_FALSE(attnviz::stage_from_name("", &unused));
  EXPECT_FALSE(attnviz::stage_from_name("Scores", &unused));
  EXPECT_STREQ(attnviz::stage_name(static_cast<Stage>(kStageCount)), "");
  EXPECT_FALSE(attnviz::stage_is_per_head(static_cast<Stage>(-1)));
}

TEST(StageTable, TheNamesAreTheOnesReportsAndLinksUse) {
  const char* const want[kStageCount] = {"X",      "W_q",     "W_k",     "W_v",     "W_o",     "b_q",    "b_k",
                                         "b_v",    "b_o",     "Q",       "K",       "V",       "q_rot",  "k_rot",
                                         "scores", "scaled",  "bias",    "masked",  "weights", "dropped", "context",
                                         "concat", "output"};
  for (int i = 0; i < kStageCount; ++i) EXPECT_STREQ(row(i).name, want[i]);
}

TEST(StageTable, PerHeadStagesAreHeadSizedAndLevelsGrowAlongThePipeline) {
  int last_level = 0;
  for (int i = 0; i < kStageCount; ++i) {
    const StageInfo& r = row(i);
    const int level = static_cast<int>(r.level);
    EXPECT_GE(level, last_level) << r.name;  // dependency order = table order
    last_level = level;
    if (r.per_head) {
      EXPECT_EQ(r.rows, StageDim::S) << r.name;
      EXPECT_TRUE(r.cols == StageDim::S || r.cols == StageDim::head_dim) << r.name;
      EXPECT_NE(r.level, attnviz::StageLevel::inputs) << r.name;
      EXPECT_NE(r.level, attnviz::StageLevel::tail) << r.name;
    } else {
      EXPECT_NE(r.cols, StageDim::head_dim) << r.name;  // K, V, W_k, W_v: kv_dim
      EXPECT_EQ(r.storage, StageStorage::stored) << r.name;  // only per-head stages are derived today
    }
    EXPECT_EQ(attnviz::stage_is_square(r.stage), r.row_axis == StageAxis::query && r.col_axis == StageAxis::key);
    if (attnviz::stage_is_square(r.stage)) {
      EXPECT_TRUE(r.per_head);
      EXPECT_EQ(r.cols, StageDim::S);
    }
    // A dimension and its axis agree: S rows / columns index positions.
    EXPECT_EQ(r.rows == StageDim::S, attnviz::stage_rows_are_positions(r.stage)) << r.name;
    EXPECT_EQ(r.rows == StageDim::one, r.row_axis == StageAxis::none) << r.name;
  }
}

// Whether the state has the option a stored stage's own buffer needs.
bool wanted(const attnviz::State& s, StageWhen w) {
  switch (w) {
    case StageWhen::always: return true;
    case StageWhen::qkv_bias: return s.qkv_bias;
    case StageWhen::out_proj: return s.out_proj;
    case StageWhen::out_bias: return s.out_proj && s.out_bias;
    case StageWhen::dropout: return s.dropout.training && s.dropout.p > 0;
    case StageWhen::rope: return s.positional == attnviz::Positional::rope;
    case StageWhen::alibi: return s.alibi;
  }
  return false;
}

// Every stage of a real result against the table: the shape rule, per-head
// (a head past the last has nothing), and what the pipeline holds.
void check_against_pipeline(const attnviz::State& s) {
  Pipeline p;
  attnviz_test::run(&p, s);
  const int S = s.seq_len();
  for (int i = 0; i < kStageCount; ++i) {
    const StageInfo& r = row(i);
    SCOPED_TRACE(r.name);
    const int heads = r.per_head ? s.num_heads : 1;
    EXPECT_EQ(p.matrix(r.stage, heads), nullptr);
    for (int h = 0; h < heads; ++h) {
      const bool own = r.storage == StageStorage::stored && wanted(s, r.when);
      EXPECT_EQ(p.holds(r.stage, h), own) << "head " << h;
      const attnviz::Tensor* t = p.matrix(r.stage, h);
      // A stored stage without its option: an absent parameter, no q_rot / k_rot
      // without RoPE, or dropped = weights; a derived one exists when its option
      // is on (bias: ALiBi).
      const bool present = own || (r.storage == StageStorage::derived && wanted(s, r.when)) || r.stage == Stage::dropped;
      if (!present) {
        EXPECT_EQ(t, nullptr) << "head " << h;
        continue;
      }
      ASSERT_NE(t, nullptr) << "head " << h;
      const int G = s.kv_heads();
      EXPECT_EQ(t->rows, attnviz::dim_size(r.rows, S, s.d_model, s.d_out, s.num_heads, G)) << "head " << h;
      EXPECT_EQ(t->cols, attnviz::dim_size(r.cols, S, s.d_model, s.d_out, s.num_heads, G)) << "head " << h;
      EXPECT_EQ(static_cast<uint64_t>(t->rows) * static_cast<uint64_t>(t->cols) * static_cast<uint64_t>(heads),
                attnviz::stage_floats(r.stage, S, s.d_model, s.d_out, s.num_heads, G));
      // A derived stage has a buffer once asked for (materialised).
      if (r.storage == StageStorage::derived) {
        EXPECT_TRUE(p.holds(r.stage, h));
      }
    }
  }
}

TEST(StageTable, ShapesAndStorageAgreeWithAPipelineOfOneHead) {
  check_against_pipeline(state_from(R"({"tokens": ["a", "b", "c"], "d_model": 4, "d_out": 4, "num_heads": 1})"));
}

TEST(StageTable, ShapesAndStorageAgreeWithHeadsAndDOutUnlikeDModel) {
  // Three heads, d_out (6) ≠ d_model (4), every parameter, dropout on.
  check_against_pipeline(state_from(R"({"tokens": ["the", "cat", "sat", "on", "a", "mat", "x"],
    "d_model": 4, "d_out": 6, "num_heads": 3, "qkv_bias": true, "out_proj": true, "out_bias": true,
    "dropout": {"p": 0.25, "training": true, "seed": 3}})"));
  // Two heads, d_out (8) > d_model (5), out_proj without its bias, causal.
  check_against_pipeline(state_from(R"({"tokens": ["a", "b", "c", "d", "e"],
    "d_model": 5, "d_out": 8, "num_heads": 2, "out_proj": true, "out_bias": false, "causal": true})"));
}

TEST(StageTable, ShapesAndStorageAgreeWithTheVariants) {
  // RoPE, 4 query heads on 2 K/V heads (K, V, W_k, W_v, b_k, b_v: 2 · head_dim wide), ALiBi, a window.
  check_against_pipeline(state_from(R"({"tokens": ["a", "b", "c", "d", "e"], "d_model": 6, "d_out": 8,
    "num_heads": 4, "num_kv_heads": 2, "qkv_bias": true, "positional": "rope", "alibi": true, "window": 2,
    "causal": true})"));
  // MQA with interleaved RoPE and explicit weights of K/V width head_dim.
  check_against_pipeline(state_from(R"({"tokens": ["a", "b", "c"], "d_model": 2, "d_out": 4, "num_heads": 2,
    "num_kv_heads": 1, "positional": "rope", "rope": {"style": "interleaved"},
    "weights": {"W_q": [[1, 2, 3, 4], [5, 6, 7, 8]], "W_k": [[1, 0], [0, 1]], "W_v": [[0.5, 1], [2, -1]]}})"));
}

TEST(StageTable, TheMemoryEstimateCountsEveryStageOfTheTable) {
  attnviz::State s;
  s.tokens.assign(100, "t");
  s.d_model = 8;
  s.d_out = 8;
  s.num_heads = 2;
  const uint64_t S = 100, H = 2;
  const uint64_t one = attnviz::estimate_pipeline_bytes(s);
  // Two more heads of the same head_dim (4): d_out 16.
  s.d_out = 16;
  s.num_heads = 4;
  // Per head: scores, scaled, masked, weights, dropped (S × S) and context
  // (S × head_dim) as floats, plus the keep mask (S × S bytes). scaled and
  // masked are derived, but held once asked for (the report asks for all).
  const uint64_t head = (5 * S * S + S * 4) * sizeof(float) + S * S;
  // Shared: W_q/k/v rows grow by 8 columns, W_o by 16² − 8², four biases by 8,
  // Q, K, V, concat, output by 8 columns each.
  const uint64_t shared = (3 * 8 * 8 + (16 * 16 - 8 * 8) + 4 * 8 + 5 * S * 8) * sizeof(float);
  EXPECT_EQ(attnviz::estimate_pipeline_bytes(s) - one, H * head + shared);
}

TEST(StageTable, TheReportHoldsEveryDerivedStageOfEveryHead) {
  // Why estimate_pipeline_bytes counts the derived stages: a report asks for them.
  Pipeline p;
  attnviz_test::run(&p, state_from(R"({"tokens": ["a", "b", "c", "d"], "d_model": 4, "d_out": 4, "num_heads": 2})"));
  for (int i = 0; i < kStageCount; ++i) {
    if (row(i).storage == StageStorage::derived) {
      EXPECT_FALSE(p.holds(row(i).stage, 1)) << row(i).name;
    }
  }
  const nlohmann::json r = attnviz::report_json(p);
  EXPECT_EQ(r["heads"].size(), 2u);
  for (int i = 0; i < kStageCount; ++i) {
    if (row(i).storage != StageStorage::derived || row(i).when != StageWhen::always) continue;
    for (int h = 0; h < 2; ++h) EXPECT_TRUE(p.holds(row(i).stage, h)) << row(i).name << " h" << h;
  }
  EXPECT_FALSE(p.holds(Stage::bias, 0));  // no ALiBi: no bias stage
}

}  // namespace
