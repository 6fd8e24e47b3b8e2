// Pipeline::row (pipeline_rows.cpp): a row of a head's (S × S) stage or of its context,
// computed from the inputs alone, is bit for bit the row the full pipeline stores, over
// the space of states learners use (every variant and its combinations, head_dim 1, 2
// and 64, one head and many, short and long inputs, dropout); and computing it reads
// nothing of the head's (S × S) buffers: in lazy mode a stale head stays stale.
// (The full matrices themselves are checked against PyTorch by the fixture tests, so a
// row equal to them bit for bit inherits those tolerances.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "attnviz/pipeline.h"
#include "engine_test_util.h"

namespace {

using attnviz::Pipeline;
using attnviz::Stage;
using attnviz_test::run;
using attnviz_test::state_from;

constexpr Stage kRowStages[] = {Stage::scores, Stage::scaled, Stage::bias,    Stage::masked,
                                Stage::weights, Stage::dropped, Stage::context};

// Every row of every per-head stage and of context, for every head, equals matrix()'s.
void expect_rows_equal_matrices(const attnviz::State& s, const std::string& what) {
  Pipeline p;
  run(&p, s);
  ASSERT_TRUE(p.has_result()) << what;
  std::vector<float> row;
  for (Stage st : kRowStages) {
    for (int h = 0; h < p.num_heads(); ++h) {
      const attnviz::Tensor* m = p.matrix(st, h);
      if (m == nullptr) {  // an absent stage (bias without ALiBi) has no rows either
        EXPECT_FALSE(p.row(st, h, 0, &row)) << what << " " << attnviz::stage_name(st);
        EXPECT_TRUE(row.empty());
        continue;
      }
      for (int i = 0; i < m->rows; ++i) {
        ASSERT_TRUE(p.row(st, h, i, &row)) << what << " " << attnviz::stage_name(st) << " h" << h << " i" << i;
        ASSERT_EQ(row.size(), static_cast<size_t>(m->cols));
        ASSERT_EQ(std::memcmp(row.data(), m->row(i), row.size() * sizeof(float)), 0)
            << what << ": " << attnviz::stage_name(st) << " head " << h << " row " << i << " differs";
      }
    }
  }
}

// S tokens "t0" … with seeded embeddings and weights, and `extra` JSON fields.
attnviz::State shaped(int S, int d_model, int d_out, int heads, const std::string& extra) {
  std::string toks;
  for (int i = 0; i < S; ++i) toks += (i ? ",\"t" : "\"t") + std::to_string(i) + "\"";
  return state_from("{\"tokens\": [" + toks + "], \"d_model\": " + std::to_string(d_model) +
                    ", \"d_out\": " + std::to_string(d_out) + ", \"num_heads\": " + std::to_string(heads) +
                    ", \"embedding\": {\"init\": \"torch_randn\", \"seed\": 123}" +
                    ", \"weights\": {\"init\": \"torch_linear\", \"seed\": 7}" + extra + "}");
}

TEST(Rows, EveryRowOfEveryVariantIsTheFullPipelinesRowBitForBit) {
  const std::pair<const char*, const char*> variants[] = {
      {"plain", ""},
      {"causal", ", \"causal\": true"},
      {"causal, fill -1e9", ", \"causal\": true, \"mask_fill\": -1e9"},
      {"padding", ", \"key_padding\": [1,1,1,0,1,0,1,1,1,0,1,1,1]"},
      {"padding, safe softmax", ", \"key_padding\": [0,0,0,0,0,0,0,0,0,0,0,0,0], \"safe_softmax\": true"},
      {"window", ", \"causal\": true, \"window\": 3"},
      {"window, not causal", ", \"window\": 4"},
      {"ALiBi", ", \"alibi\": true, \"causal\": true"},
      {"RoPE", ", \"positional\": \"rope\""},
      {"RoPE interleaved, GQA", ", \"positional\": \"rope\", \"rope\": {\"style\": \"interleaved\"}, \"num_kv_heads\": 2"},
      {"MQA, ALiBi, window", ", \"num_kv_heads\": 1, \"alibi\": true, \"window\": 5"},
      {"dropout", ", \"dropout\": {\"p\": 0.3, \"training\": true, \"seed\": 9}"},
      {"dropout, causal", ", \"causal\": true, \"dropout\": {\"p\": 0.5, \"training\": true, \"seed\": 123}"},
      {"temperature, scale d_out", ", \"temperature\": 0.7, \"scale\": \"d_out\", \"qkv_bias\": true, \"out_proj\": true"},
      {"sinks", ", \"causal\": true, \"sinks\": {\"enabled\": true, \"values\": [0.5, -1, 2, 0]}"},
      {"sinks, padding, dropout", ", \"sinks\": {\"enabled\": true, \"values\": [3, 1, -2, 0.25]}, \"key_padding\": [1,0,1,1,1,0,1,1,1,1,1,1,0], \"dropout\": {\"p\": 0.2, \"training\": true}"},
      {"StreamingLLM", ", \"causal\": true, \"kv_cache\": {\"policy\": \"streaming_llm\", \"sink_tokens\": 2, \"recent\": 3}"},
  };
  for (const auto& [name, extra] : variants) expect_rows_equal_matrices(shaped(13, 16, 16, 4, extra), name);
}

TEST(Rows, HeadDimOneTwoAndSixtyFourOneHeadAndManyShortAndLong) {
  expect_rows_equal_matrices(shaped(1, 3, 3, 3, ""), "S 1, head_dim 1");
  expect_rows_equal_matrices(shaped(7, 4, 4, 2, ", \"causal\": true, \"positional\": \"rope\""), "head_dim 2, RoPE");
  expect_rows_equal_matrices(shaped(9, 64, 64, 1, ", \"causal\": true"), "one head of 64");
  expect_rows_equal_matrices(shaped(70, 32, 128, 2, ", \"causal\": true, \"alibi\": true"), "head_dim 64, S 70");
  // Rows longer than the vector kernels' blocks, with the causal cut's lanes in play.
  expect_rows_equal_matrices(shaped(300, 8, 8, 2, ", \"causal\": true, \"window\": 37"), "S 300, window");
  std::string pad;  // every fifth key padded
  for (int j = 0; j < 257; ++j) pad += std::string(j ? "," : "") + (j % 5 == 4 ? "0" : "1");
  expect_rows_equal_matrices(shaped(257, 8, 8, 1, ", \"key_padding\": [" + pad + "]"), "S 257, padding");
}

TEST(Rows, ARowOfAStaleHeadLeavesItStale) {
  Pipeline p;
  p.track_demand();
  run(&p, shaped(40, 8, 8, 4, ", \"causal\": true"));
  EXPECT_FALSE(p.current(Stage::weights, 2));
  std::vector<float> row;
  ASSERT_TRUE(p.row(Stage::weights, 2, 17, &row));
  ASSERT_TRUE(p.row(Stage::context, 2, 39, &row));
  EXPECT_FALSE(p.current(Stage::weights, 2)) << "a row read nothing of the head's (S × S) stages";
  EXPECT_FALSE(p.current(Stage::context, 2));
  // And it is the row the head then computes.
  ASSERT_TRUE(p.row(Stage::weights, 2, 17, &row));
  const attnviz::Tensor* w = p.matrix(Stage::weights, 2);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(std::memcmp(row.data(), w->row(17), row.size() * sizeof(float)), 0);
}

TEST(Rows, OutOfRangeOrAbsentIsRefusedWithAnEmptyRow) {
  Pipeline p;
  std::vector<float> row = {1.0f};
  EXPECT_FALSE(p.row(Stage::weights, 0, 0, &row)) << "no result yet";
  EXPECT_TRUE(row.empty());
  run(&p, shaped(5, 4, 4, 2, ""));
  EXPECT_FALSE(p.row(Stage::weights, 2, 0, &row));
  EXPECT_FALSE(p.row(Stage::weights, -1, 0, &row));
  EXPECT_FALSE(p.row(Stage::weights, 0, 5, &row));
  EXPECT_FALSE(p.row(Stage::weights, 0, -1, &row));
  EXPECT_FALSE(p.row(Stage::bias, 0, 0, &row)) << "no ALiBi: no bias stage";
  EXPECT_FALSE(p.row(Stage::Q, 1, 0, &row)) << "Q is not per head";
  EXPECT_FALSE(p.row(Stage::W_o, 0, 0, &row)) << "no output projection";
  // Stored stages are copied.
  ASSERT_TRUE(p.row(Stage::Q, 0, 3, &row));
  ASSERT_EQ(row.size(), 4u);
  EXPECT_EQ(std::memcmp(row.data(), p.matrix(Stage::Q)->row(3), 4 * sizeof(float)), 0);
  ASSERT_TRUE(p.row(Stage::output, 0, 4, &row));
  EXPECT_EQ(std::memcmp(row.data(), p.matrix(Stage::output)->row(4), 4 * sizeof(float)), 0);
}

}  // namespace

namespace {

// bytes_held: what the buffers hold, near the estimate the size limit uses; rows allocate
// nothing in the pipeline, a materialised derived stage adds its (S × S).
TEST(Rows, BytesHeldFollowTheBuffersAndRowsAddNone) {
  Pipeline p;
  const attnviz::State s = shaped(200, 32, 32, 4, ", \"causal\": true, \"dropout\": {\"p\": 0.1, \"training\": true}");
  run(&p, s);
  const uint64_t held = p.bytes_held(), estimate = attnviz::estimate_pipeline_bytes(s);
  // Per head: scores, weights, dropped and the kept exps at S = 200 (4 × 160 kB), the
  // (H × S × S) keep mask: at least those.
  EXPECT_GE(held, 4u * (4u * 200u * 200u * 4u) + 4u * 200u * 200u);
  EXPECT_LE(held, estimate * 2) << "held " << held << " against the estimate " << estimate;
  EXPECT_GE(held * 2, estimate) << "held " << held << " against the estimate " << estimate;
  std::vector<float> row;
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(p.row(Stage::masked, 3, i, &row));
  EXPECT_EQ(p.bytes_held(), held);
  ASSERT_NE(p.matrix(Stage::masked, 3), nullptr);
  EXPECT_EQ(p.bytes_held(), held + 200u * 200u * sizeof(float));
}

}  // namespace

namespace {

// overview() against pooling the full matrix here, in the order it documents: equal bits.
void expect_overview_is_pooled_matrix(const attnviz::State& s, const std::string& what) {
  Pipeline p;
  run(&p, s);
  const int S = p.seq_len();
  for (Stage st : {Stage::scores, Stage::masked, Stage::weights, Stage::dropped, Stage::bias}) {
    for (int h = 0; h < p.num_heads(); ++h) {
      const attnviz::Tensor* m = p.matrix(st, h);
      for (int b : {1, 3, 8, 64, S + 5}) {
        for (Pipeline::Pool pool : {Pipeline::Pool::max, Pipeline::Pool::mean}) {
          attnviz::Tensor o;
          const bool ok = p.overview(st, h, b, pool, &o);
          ASSERT_EQ(ok, m != nullptr) << what;
          if (!ok) continue;
          const int n = (S + b - 1) / b;
          ASSERT_EQ(o.rows, n);
          ASSERT_EQ(o.cols, n);
          for (int I = 0; I < n; ++I) {
            for (int J = 0; J < n; ++J) {
              float mx = -std::numeric_limits<float>::infinity();
              bool nan = false;
              double sum = 0.0;
              int cells = 0;
              for (int i = I * b; i < std::min(S, (I + 1) * b); ++i) {
                for (int j = J * b; j < std::min(S, (J + 1) * b); ++j, ++cells) {
                  const float x = m->at(i, j);
                  nan |= x != x;
                  mx = x > mx ? x : mx;
                  sum += x;
                }
              }
              const float want = pool == Pipeline::Pool::max ? (nan ? NAN : mx) : static_cast<float>(sum / cells);
              const float got = o.at(I, J);
              ASSERT_TRUE(std::memcmp(&want, &got, sizeof want) == 0 || (want != want && got != got))
                  << what << ": " << attnviz::stage_name(st) << " h" << h << " block " << b << " cell (" << I << ", " << J
                  << ") " << got << " vs " << want;
            }
          }
        }
      }
    }
  }
}

TEST(Rows, OverviewsPoolTheFullMatrixMaxOrMeanWithEveryVariant) {
  expect_overview_is_pooled_matrix(shaped(37, 8, 8, 2, ", \"causal\": true"), "causal");
  expect_overview_is_pooled_matrix(shaped(37, 8, 8, 2, ", \"alibi\": true, \"window\": 6"), "ALiBi, window");
  expect_overview_is_pooled_matrix(
      shaped(40, 16, 16, 4, ", \"positional\": \"rope\", \"num_kv_heads\": 2, \"dropout\": {\"p\": 0.3, \"training\": true}"),
      "RoPE, GQA, dropout");
  expect_overview_is_pooled_matrix(shaped(9, 4, 4, 1, ", \"causal\": true, \"mask_fill\": -1e9, \"safe_softmax\": true"),
                                   "fill -1e9");
  expect_overview_is_pooled_matrix(
      shaped(33, 8, 8, 2, ", \"causal\": true, \"sinks\": {\"enabled\": true, \"values\": [1, -1]}, \"kv_cache\": {\"policy\": \"streaming_llm\", \"sink_tokens\": 1, \"recent\": 8}"),
      "sinks, StreamingLLM");
}

TEST(Rows, AnOverviewLeavesAStaleHeadStaleAndRefusesWhatIsNotSquare) {
  Pipeline p;
  p.track_demand();
  run(&p, shaped(64, 8, 8, 2, ", \"causal\": true"));
  attnviz::Tensor o;
  ASSERT_TRUE(p.overview(Stage::weights, 1, 16, Pipeline::Pool::mean, &o));
  EXPECT_EQ(o.rows, 4);
  EXPECT_FALSE(p.current(Stage::weights, 1));
  // Under the causal mask the blocks above the diagonal weigh nothing; each row sums
  // to 1, so a diagonal block's mean is at most 16 / 256 and the blocks of a block-row
  // hold 16 rows' weight: their means sum to 16 / 256.
  for (int I = 0; I < 4; ++I) {
    double row_sum = 0.0;
    for (int J = 0; J < 4; ++J) {
      if (J > I) EXPECT_EQ(o.at(I, J), 0.0f);
      row_sum += o.at(I, J);
    }
    EXPECT_NEAR(row_sum, 16.0 / 256.0, 1e-6);
  }
  EXPECT_FALSE(p.overview(Stage::Q, 0, 4, Pipeline::Pool::max, &o));
  EXPECT_FALSE(p.overview(Stage::context, 0, 4, Pipeline::Pool::max, &o));
  EXPECT_FALSE(p.overview(Stage::weights, 2, 4, Pipeline::Pool::max, &o));
  EXPECT_FALSE(p.overview(Stage::weights, 0, 0, Pipeline::Pool::max, &o));
  EXPECT_TRUE(o.empty());
}

}  // namespace
