// Head-comparison statistics (attnviz/analysis.h): hand-computed small cases,
// the edge rows (NaN, all zero, −inf), and the properties a head-divergence matrix
// must have (symmetric, zero diagonal, 0 for identical heads, ln 2 for
// disjoint ones), on hand-made rows and on a real 4-head pipeline.
//
// Tolerances: the statistics are computed in double from float32 inputs and
// rounded to float32 once. The expected values below are exact for the
// decimal inputs (Python, math.log in double); the float32 inputs differ from
// those decimals by up to 2^-24 relative, which moves these statistics by less
// than 1e-7, and the float32 result adds half an ulp (< 3e-8 here): 1e-6 covers both.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "attnviz/analysis.h"
#include "attnviz/pipeline.h"
#include "engine_test_util.h"

namespace {

using attnviz::RowStats;
using attnviz::Tensor;
using attnviz::TensorView;

constexpr double kTol = 1e-6;  // see the top of the file
const double kLn2 = std::log(2.0);
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kNegInf = -std::numeric_limits<float>::infinity();

Tensor matrix(int rows, int cols, std::vector<float> values) {
  Tensor t(rows, cols);
  t.data.assign(values.begin(), values.end());
  return t;
}

TEST(Analysis, RowStatsHandComputed) {
  // (5 × 4): uniform, two-way split, one-hot, three-way (padded with a 0), one-hot late
  Tensor w = matrix(5, 4, {0.25f, 0.25f, 0.25f, 0.25f,  //
                           0.5f, 0.5f, 0.0f, 0.0f,      //
                           1.0f, 0.0f, 0.0f, 0.0f,      //
                           0.1f, 0.2f, 0.7f, 0.0f,      //
                           0.0f, 0.0f, 0.0f, 1.0f});
  RowStats st;
  attnviz::analysis_row_stats(w.view(), &st);
  ASSERT_EQ(st.entropy.cols, 5);
  ASSERT_EQ(st.argmax.size(), 5u);
  EXPECT_NEAR(st.entropy.data[0], std::log(4.0), kTol) << "uniform row over S keys: ln S";
  EXPECT_NEAR(st.entropy.data[1], kLn2, kTol);
  EXPECT_EQ(st.entropy.data[2], 0.0f) << "one-hot: exactly 0 (0·ln 0 = 0, 1·ln 1 = 0)";
  EXPECT_NEAR(st.entropy.data[3], 0.8018185525433373, kTol);  // −(0.1 ln 0.1 + 0.2 ln 0.2 + 0.7 ln 0.7)
  EXPECT_EQ(st.entropy.data[4], 0.0f);
  EXPECT_EQ(st.max_weight.data[0], 0.25f);
  EXPECT_EQ(st.max_weight.data[1], 0.5f);
  EXPECT_EQ(st.max_weight.data[3], 0.7f);
  EXPECT_EQ(st.argmax[0], 0) << "ties go to the first key";
  EXPECT_EQ(st.argmax[1], 0);
  EXPECT_EQ(st.argmax[2], 0);
  EXPECT_EQ(st.argmax[3], 2);
  EXPECT_EQ(st.argmax[4], 3);
}

TEST(Analysis, RowStatsUniformRowIsLnS) {
  for (int S : {1, 2, 3, 7, 64, 256}) {
    Tensor w(1, S, 1.0f / (float)S);
    RowStats st;
    attnviz::analysis_row_stats(w.view(), &st);
    // 1/S in float32 is off by up to 2^-24 relative; Σ then differs from ln S by about that × ln S.
    EXPECT_NEAR(st.entropy.data[0], std::log((double)S), 1e-6 * std::max(1.0, std::log((double)S))) << "S=" << S;
  }
}

TEST(Analysis, RowStatsEdgeRows) {
  // NaN row (softmax of an all −inf row), all-zero row (safe softmax), a row with −inf (scores)
  Tensor w = matrix(3, 3, {kNaN, kNaN, kNaN,  //
                           0.0f, 0.0f, 0.0f,  //
                           kNegInf, 2.0f, -1.0f});
  RowStats st;
  attnviz::analysis_row_stats(w.view(), &st);
  EXPECT_TRUE(std::isnan(st.entropy.data[0]));
  EXPECT_TRUE(std::isnan(st.max_weight.data[0]));
  EXPECT_EQ(st.argmax[0], -1);
  EXPECT_EQ(st.entropy.data[1], 0.0f);
  EXPECT_EQ(st.max_weight.data[1], 0.0f);
  EXPECT_EQ(st.argmax[1], -1) << "no key receives weight: no argmax";
  EXPECT_TRUE(std::isnan(st.entropy.data[2])) << "not a distribution";
  EXPECT_EQ(st.max_weight.data[2], 2.0f);
  EXPECT_EQ(st.argmax[2], 1);
}

TEST(Analysis, RowStatsReadsStridedViews) {
  // Columns 1..2 of a (2 × 4) matrix: rows [0.5, 0.5] and [1, 0].
  Tensor wide = matrix(2, 4, {9.0f, 0.5f, 0.5f, 9.0f,  //
                              9.0f, 1.0f, 0.0f, 9.0f});
  RowStats st;
  attnviz::analysis_row_stats(wide.column_slice(1, 2), &st);
  EXPECT_NEAR(st.entropy.data[0], kLn2, kTol);
  EXPECT_EQ(st.entropy.data[1], 0.0f);
  EXPECT_EQ(st.argmax[1], 0);
}

TEST(Analysis, ColumnArgmaxFindsTheQueryThatAttendsMost) {
  // (3 × 4): column 0 ties between rows 0 and 2, column 2 is all zero (a padded
  // key), column 3 holds a NaN.
  Tensor w = matrix(3, 4, {0.5f, 0.5f, 0.0f, 0.0f,  //
                           0.2f, 0.8f, 0.0f, kNaN,  //
                           0.5f, 0.1f, 0.0f, 0.4f});
  std::vector<int> arg;
  attnviz::analysis_column_argmax(w.view(), &arg);
  ASSERT_EQ(arg.size(), 4u);
  EXPECT_EQ(arg[0], 0) << "ties go to the first query";
  EXPECT_EQ(arg[1], 1);
  EXPECT_EQ(arg[2], -1) << "no query attends to this key";
  EXPECT_EQ(arg[3], -1) << "NaN column";
}

TEST(Analysis, DifferenceIsElementwiseAndKeepsSharedInfinities) {
  Tensor a = matrix(2, 3, {0.5f, 0.25f, kNegInf, 1.0f, kNaN, kNegInf});
  Tensor b = matrix(2, 3, {0.25f, 0.75f, kNegInf, 0.0f, 1.0f, 3.0f});
  Tensor d;
  attnviz::analysis_difference(a.view(), b.view(), &d);
  ASSERT_EQ(d.rows, 2);
  ASSERT_EQ(d.cols, 3);
  EXPECT_EQ(d.at(0, 0), 0.25f);
  EXPECT_EQ(d.at(0, 1), -0.5f);
  EXPECT_EQ(d.at(0, 2), kNegInf) << "masked in both: stays masked, not NaN";
  EXPECT_EQ(d.at(1, 0), 1.0f);
  EXPECT_TRUE(std::isnan(d.at(1, 1)));
  EXPECT_EQ(d.at(1, 2), kNegInf) << "−inf − 3 = −inf";
  // The output is reused: a second call resizes it.
  attnviz::analysis_difference(b.column_slice(0, 2), a.column_slice(0, 2), &d);
  EXPECT_EQ(d.cols, 2);
  EXPECT_EQ(d.at(0, 1), 0.5f);
}

TEST(Analysis, JsdHandComputed) {
  const float p1[] = {1.0f, 0.0f}, q1[] = {0.5f, 0.5f};
  EXPECT_NEAR(attnviz::analysis_jsd(p1, q1, 2), 0.21576155433883565, kTol);
  const float p2[] = {0.2f, 0.8f}, q2[] = {0.6f, 0.4f};
  EXPECT_NEAR(attnviz::analysis_jsd(p2, q2, 2), 0.08630462173553419, kTol);
  const float p3[] = {1.0f, 0.0f, 0.0f}, q3[] = {0.25f, 0.25f, 0.5f};
  EXPECT_NEAR(attnviz::analysis_jsd(p3, q3, 3), 0.3803956658485779, kTol);
  EXPECT_NEAR(attnviz::analysis_jsd(q3, p3, 3), 0.3803956658485779, kTol) << "symmetric";
  // Rows are normalised first: a scaled row (as in `dropped`) compares like the original.
  const float q3x2[] = {0.5f, 0.5f, 1.0f};
  EXPECT_NEAR(attnviz::analysis_jsd(p3, q3x2, 3), 0.3803956658485779, kTol);
}

TEST(Analysis, JsdLimits) {
  const float a[] = {0.1f, 0.2f, 0.3f, 0.4f};
  EXPECT_EQ(attnviz::analysis_jsd(a, a, 4), 0.0) << "identical rows: exactly 0";
  const float e0[] = {1, 0, 0, 0}, e3[] = {0, 0, 0, 1};
  EXPECT_NEAR(attnviz::analysis_jsd(e0, e3, 4), kLn2, 1e-15) << "disjoint one-hot rows: ln 2";
  const float zero[] = {0, 0, 0, 0}, nan_row[] = {kNaN, 0, 0, 0};
  EXPECT_TRUE(std::isnan(attnviz::analysis_jsd(a, zero, 4)));
  EXPECT_TRUE(std::isnan(attnviz::analysis_jsd(nan_row, a, 4)));
}

TEST(Analysis, HeadDivergenceHandComputed) {
  // Three heads, (2 × 2) weights each.
  Tensor h0 = matrix(2, 2, {1.0f, 0.0f, 0.5f, 0.5f});
  Tensor h1 = matrix(2, 2, {0.5f, 0.5f, 0.2f, 0.8f});
  Tensor h2 = matrix(2, 2, {0.5f, 0.5f, 0.6f, 0.4f});
  TensorView heads[] = {h0.view(), h1.view(), h2.view()};
  Tensor div;
  attnviz::analysis_head_divergence(heads, 3, &div);
  ASSERT_EQ(div.rows, 3);
  ASSERT_EQ(div.cols, 3);
  // mean over the two rows of the row JSDs (values from JsdHandComputed and Python)
  EXPECT_NEAR(div.at(0, 1), (0.21576155433883565 + 0.05067183698556589) / 2, kTol);
  EXPECT_NEAR(div.at(0, 2), (0.21576155433883565 + 0.005059389928987596) / 2, kTol);
  EXPECT_NEAR(div.at(1, 2), (0.0 + 0.08630462173553419) / 2, kTol);
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(div.at(a, a), 0.0f) << "zero diagonal";
    for (int b = 0; b < 3; ++b) EXPECT_EQ(div.at(a, b), div.at(b, a)) << "symmetric";
  }
}

TEST(Analysis, HeadDivergenceIdenticalAndDisjointHeads) {
  // Head 1 equals head 0; head 2 puts all weight on keys head 0 never uses.
  Tensor h0 = matrix(3, 4, {1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 0, 1, 0, 0});
  Tensor h1 = h0;
  Tensor h2 = matrix(3, 4, {0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f});
  TensorView heads[] = {h0.view(), h1.view(), h2.view()};
  Tensor div;
  attnviz::analysis_head_divergence(heads, 3, &div);
  EXPECT_EQ(div.at(0, 1), 0.0f) << "identical heads: 0";
  EXPECT_NEAR(div.at(0, 2), kLn2, 1e-7) << "disjoint rows: ln 2 (float32 rounding)";
  EXPECT_NEAR(div.at(1, 2), kLn2, 1e-7);
}

TEST(Analysis, HeadDivergenceSkipsNaNAndEmptyRows) {
  // Row 0 is NaN in head 0, row 1 is all zero in head 1: the pair (0, 1) keeps row 2 only.
  Tensor h0 = matrix(3, 2, {kNaN, kNaN, 0.5f, 0.5f, 1.0f, 0.0f});
  Tensor h1 = matrix(3, 2, {0.5f, 0.5f, 0.0f, 0.0f, 0.5f, 0.5f});
  // Head 2 has no valid row at all.
  Tensor h2 = matrix(3, 2, {kNaN, kNaN, 0.0f, 0.0f, kNaN, kNaN});
  TensorView heads[] = {h0.view(), h1.view(), h2.view()};
  Tensor div;
  attnviz::analysis_head_divergence(heads, 3, &div);
  EXPECT_NEAR(div.at(0, 1), 0.21576155433883565, kTol) << "only row 2 counts: JSD([1,0], [.5,.5])";
  EXPECT_EQ(div.at(0, 0), 0.0f);
  EXPECT_TRUE(std::isnan(div.at(0, 2))) << "every row skipped: NaN";
  EXPECT_TRUE(std::isnan(div.at(2, 1)));
  EXPECT_TRUE(std::isnan(div.at(2, 2))) << "a head with no valid row has a NaN diagonal";
}

TEST(Analysis, HeadDivergenceOfARealPipelineMatchesTheRowFormula) {
  // The 4-head preset: causal mask, 8 tokens. The fast path (one log per cell)
  // must agree with the direct per-row JSD, and stay within [0, ln 2].
  attnviz::State s = attnviz_test::state_from(R"({
    "tokens": ["The", "cat", "that", "the", "dog", "chased", "was", "black"],
    "d_model": 16, "d_out": 16, "num_heads": 4,
    "embedding": {"init": "torch_randn", "seed": 123}, "positional": "sinusoidal",
    "weights": {"init": "torch_linear", "seed": 123, "layout": "fused"},
    "out_proj": true, "causal": true})");
  attnviz::Pipeline p;
  attnviz_test::run(&p, s);
  const int H = p.num_heads(), S = p.seq_len();
  std::vector<TensorView> heads;
  for (int h = 0; h < H; ++h) heads.push_back(p.matrix(attnviz::Stage::weights, h)->view());
  Tensor div;
  attnviz::analysis_head_divergence(heads.data(), H, &div);
  for (int a = 0; a < H; ++a) {
    EXPECT_EQ(div.at(a, a), 0.0f);
    for (int b = 0; b < H; ++b) {
      EXPECT_EQ(div.at(a, b), div.at(b, a));
      EXPECT_GE(div.at(a, b), 0.0f);
      EXPECT_LE(div.at(a, b), (float)kLn2);
      double direct = 0.0;
      for (int i = 0; i < S; ++i) direct += attnviz::analysis_jsd(heads[a].row(i), heads[b].row(i), S);
      // Two algebraically equal double formulas; their rounding differs far below float32's.
      EXPECT_NEAR(div.at(a, b), direct / S, 1e-7) << a << "," << b;
    }
  }
  EXPECT_GT(div.at(0, 1), 0.0f) << "different heads differ";

  RowStats st;
  attnviz::analysis_row_stats(heads[0], &st);
  EXPECT_EQ(st.entropy.data[0], 0.0f) << "causal: the first query sees only itself";
  EXPECT_EQ(st.argmax[0], 0);
  for (int i = 0; i < S; ++i) {
    EXPECT_GE(st.entropy.data[i], 0.0f);
    EXPECT_LE(st.entropy.data[i], std::log((double)(i + 1)) + kTol) << "at most ln(visible keys)";
  }
}

}  // namespace
