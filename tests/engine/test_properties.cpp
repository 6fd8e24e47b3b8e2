// Mathematical properties of attention that must hold for any state.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "attnviz/kernels.h"
#include "attnviz/pipeline.h"
#include "engine_test_util.h"

namespace {

using attnviz::Pipeline;
using attnviz::Stage;
using attnviz::Tensor;
using attnviz_test::run;
using attnviz_test::state_from;

attnviz::State random_state(int S, int d_model, int d_out, int heads, uint64_t seed) {
  attnviz::State s;
  s.tokens.clear();
  for (int i = 0; i < S; ++i) s.tokens.push_back("t" + std::to_string(i));
  s.d_model = d_model;
  s.d_out = d_out;
  s.num_heads = heads;
  s.embedding.seed = seed;
  s.weights.init = attnviz::WeightInit::torch_linear;
  s.weights.seed = seed + 1;
  s.qkv_bias = true;
  s.out_proj = true;
  return s;
}

TEST(Properties, UnmaskedRowsSumToOne) {
  Pipeline p;
  run(&p, random_state(37, 16, 12, 3, 5));
  for (int h = 0; h < 3; ++h) {
    const Tensor& w = *p.matrix(Stage::weights, h);
    for (int i = 0; i < w.rows; ++i) {
      double sum = 0;
      for (int j = 0; j < w.cols; ++j) {
        EXPECT_GE(w.at(i, j), 0.0f);
        sum += w.at(i, j);
      }
      // each weight is e_j·(1/s) with e_j, s and the product rounded in float32:
      // |sum − 1| <= (S + 3)·2^-24 (plus the sum's own rounding, done in double here)
      EXPECT_NEAR(sum, 1.0, (w.cols + 3) * std::ldexp(1.0, -24)) << "head " << h << " row " << i;
    }
  }
}

TEST(Properties, CausalUpperTriangleIsExactlyZero) {
  Pipeline p;
  auto s = random_state(29, 8, 8, 2, 11);
  s.causal = true;
  run(&p, s);
  for (int h = 0; h < 2; ++h) {
    const Tensor& w = *p.matrix(Stage::weights, h);
    const Tensor& m = *p.matrix(Stage::masked, h);
    for (int i = 0; i < w.rows; ++i) {
      for (int j = i + 1; j < w.cols; ++j) {
        EXPECT_EQ(w.at(i, j), 0.0f);
        EXPECT_TRUE(std::isinf(m.at(i, j)) && m.at(i, j) < 0);
      }
    }
  }
}

// Each weights row is kernels::softmax_row of the whole masked row, bit for
// bit, whatever shortcuts the pipeline takes (exps over a causal row's live
// keys only, the cut, the vector exps' narrow form for rows within 87 of
// their max, which a temperature of 0.01 pushes rows out of).
TEST(Properties, WeightsAreTheSoftmaxOfTheWholeMaskedRowBitwise) {
  const int S = 70;
  for (int variant = 0; variant < 6; ++variant) {
    auto s = random_state(S, 16, 16, 2, 40 + variant);
    s.causal = variant != 2;
    if (variant == 1 || variant == 5) {
      s.key_padding.assign(S, 1);
      for (int j = 3; j < S; j += 7) s.key_padding[size_t(j)] = 0;
    }
    if (variant == 3) s.mask_fill = -1e4;
    if (variant == 4 || variant == 5) s.temperature = 0.01;
    s.safe_softmax = variant == 5;
    Pipeline p;
    run(&p, s);
    std::vector<float> want(S);
    for (int h = 0; h < 2; ++h) {
      const Tensor& m = *p.matrix(Stage::masked, h);
      const Tensor& w = *p.matrix(Stage::weights, h);
      for (int i = 0; i < S; ++i) {
        attnviz::kernels::softmax_row(m.row(i), want.data(), S, s.safe_softmax);
        ASSERT_EQ(std::memcmp(want.data(), w.row(i), sizeof(float) * S), 0)
            << "variant " << variant << " head " << h << " row " << i;
      }
    }
  }
}

TEST(Properties, PermutingTokensPermutesEveryStage) {
  const int S = 9;
  auto s = random_state(S, 6, 6, 2, 3);
  Pipeline base;
  run(&base, s);
  // explicit embeddings so that permuting the tokens permutes X's rows
  s.embedding.init = attnviz::EmbeddingInit::values;
  s.embedding.values = *base.matrix(Stage::X);
  std::vector<int> perm(S);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937(4));
  attnviz::State t = s;
  for (int i = 0; i < S; ++i) {
    t.tokens[i] = s.tokens[perm[i]];
    for (int c = 0; c < s.d_model; ++c) t.embedding.values.mut().at(i, c) = s.embedding.values.at(perm[i], c);
  }
  Pipeline a, b;
  run(&a, s);
  run(&b, t);
  // Row-wise stages and the S×S stages before softmax are the same numbers in
  // permuted places, bitwise (every cell is computed the same way). Softmax and
  // the context sums add the same terms in another order: float32 rounding,
  // relative 1e-5 here (S = 9 terms).
  for (Stage st : {Stage::X, Stage::Q, Stage::K, Stage::V}) {
    for (int i = 0; i < S; ++i) {
      for (int c = 0; c < a.matrix(st)->cols; ++c) {
        EXPECT_EQ(b.matrix(st)->at(i, c), a.matrix(st)->at(perm[i], c)) << attnviz::stage_name(st);
      }
    }
  }
  for (int h = 0; h < 2; ++h) {
    for (Stage st : {Stage::scores, Stage::scaled, Stage::masked}) {
      for (int i = 0; i < S; ++i) {
        for (int j = 0; j < S; ++j) {
          EXPECT_EQ(b.matrix(st, h)->at(i, j), a.matrix(st, h)->at(perm[i], perm[j]));
        }
      }
    }
    for (int i = 0; i < S; ++i) {
      for (int j = 0; j < S; ++j) {
        const float want = a.matrix(Stage::weights, h)->at(perm[i], perm[j]);
        EXPECT_NEAR(b.matrix(Stage::weights, h)->at(i, j), want, 1e-5f * want + 1e-12f);
      }
      for (int c = 0; c < a.head_dim(); ++c) {
        const float want = a.matrix(Stage::context, h)->at(perm[i], c);
        EXPECT_NEAR(b.matrix(Stage::context, h)->at(i, c), want, 1e-5f * (1 + std::fabs(want)));
      }
    }
  }
  for (int i = 0; i < S; ++i) {
    for (int c = 0; c < 6; ++c) {
      const float want = a.matrix(Stage::output)->at(perm[i], c);
      EXPECT_NEAR(b.matrix(Stage::output)->at(i, c), want, 1e-5f * (1 + std::fabs(want)));
    }
  }
}

TEST(Properties, AddingAConstantToARowOfMaskedLeavesWeightsUnchanged) {
  Pipeline p;
  auto s = random_state(12, 8, 8, 2, 21);
  s.causal = true;
  run(&p, s);
  std::vector<float> shifted(12), out(12);
  for (int h = 0; h < 2; ++h) {
    const Tensor& m = *p.matrix(Stage::masked, h);
    const Tensor& w = *p.matrix(Stage::weights, h);
    for (int i = 0; i < 12; ++i) {
      for (float c : {-3.0f, 0.5f, 100.0f}) {
        for (int j = 0; j < 12; ++j) shifted[j] = m.at(i, j) + c;  // −inf stays −inf
        attnviz::kernels::softmax_row(shifted.data(), out.data(), 12, false);
        // x + c rounds each entry by <= 2^-24·|x + c|; softmax moves by at most
        // w·2·that (|c| <= 100 and |x| < 10 here: 2·110·2^-24 < 1.4e-5)
        for (int j = 0; j < 12; ++j) EXPECT_NEAR(out[j], w.at(i, j), 1.4e-5f * w.at(i, j) + 1e-30f);
      }
    }
  }
  // When the shift is exact in float32 (dyadic values) the weights are bitwise equal.
  const float x[5] = {0.25f, -1.5f, 2.0f, -INFINITY, 0.125f};
  float y[5], a[5], b[5];
  for (int j = 0; j < 5; ++j) y[j] = x[j] + 8.0f;
  attnviz::kernels::softmax_row(x, a, 5, false);
  attnviz::kernels::softmax_row(y, b, 5, false);
  for (int j = 0; j < 5; ++j) EXPECT_EQ(a[j], b[j]);
}

TEST(Properties, DropoutKeepsAboutOneMinusPAndScalesExactly) {
  Pipeline p;
  auto s = random_state(128, 8, 8, 4, 33);
  s.dropout = {0.3, true, 2024};
  run(&p, s);
  const float scale = p.dropout_scale();
  EXPECT_EQ(scale, 1.0f / 0.7f);  // float32(1) / float32(1 − p), as noise.div_(1 − p)
  size_t kept = 0, total = 0;
  for (int h = 0; h < 4; ++h) {
    const Tensor& w = *p.matrix(Stage::weights, h);
    const Tensor& d = *p.matrix(Stage::dropped, h);
    const uint8_t* keep = p.dropout_keep(h);
    for (int i = 0; i < 128; ++i) {
      for (int j = 0; j < 128; ++j) {
        const size_t k = static_cast<size_t>(i) * 128 + j;
        if (keep[k]) {
          ++kept;
          EXPECT_EQ(d.at(i, j), w.at(i, j) * scale);
        } else {
          EXPECT_EQ(d.at(i, j), 0.0f);
        }
        ++total;
      }
    }
  }
  // 65536 Bernoulli(0.7) draws: standard deviation 0.0018; allow 5 of them.
  const double frac = static_cast<double>(kept) / total;
  EXPECT_NEAR(frac, 0.7, 5 * std::sqrt(0.3 * 0.7 / total));
}

TEST(Properties, DropoutPOneGivesZerosAndEvalIsIdentity) {
  Pipeline p;
  auto s = random_state(10, 4, 4, 1, 8);
  s.dropout = {1.0, true, 1};
  run(&p, s);
  for (float v : p.matrix(Stage::dropped)->data) EXPECT_EQ(v, 0.0f);
  for (float v : p.matrix(Stage::context)->data) EXPECT_EQ(v, 0.0f);
  s.dropout = {0.5, false, 1};
  run(&p, s);
  EXPECT_TRUE(attnviz::tensors_bitwise_equal(*p.matrix(Stage::dropped), *p.matrix(Stage::weights)));
}

TEST(Properties, FullyMaskedRowsFollowSafeSoftmax) {
  // Key 0 padded and causal: row 0 sees nothing. With −inf it is all −inf:
  // NaN weights like torch.softmax, or zeros with safe_softmax. With a finite
  // fill (−1e9) the row is all equal and softmax makes it uniform, safe or not.
  auto s = random_state(5, 4, 4, 1, 2);
  s.causal = true;
  s.key_padding = {0, 1, 1, 1, 1};
  s.dropout = {0.5, true, 3};
  Pipeline p;
  run(&p, s);
  const Tensor* w = p.matrix(Stage::weights);
  for (int j = 0; j < 5; ++j) EXPECT_TRUE(std::isnan(w->at(0, j)));
  for (int j = 0; j < 5; ++j) EXPECT_TRUE(std::isnan(p.matrix(Stage::dropped)->at(0, j)));  // NaN·0 = NaN
  for (int j = 0; j < 5; ++j) EXPECT_FALSE(std::isnan(w->at(1, j)));
  EXPECT_EQ(w->at(1, 0), 0.0f);
  EXPECT_EQ(w->at(1, 1), 1.0f);

  s.safe_softmax = true;
  run(&p, s);
  w = p.matrix(Stage::weights);
  for (int j = 0; j < 5; ++j) EXPECT_EQ(w->at(0, j), 0.0f);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(p.matrix(Stage::context)->at(0, c), 0.0f);

  for (bool safe : {false, true}) {
    s.safe_softmax = safe;
    s.mask_fill = -1e9;
    run(&p, s);
    w = p.matrix(Stage::weights);
    for (int j = 0; j < 5; ++j) EXPECT_EQ(w->at(0, j), 0.2f) << "safe " << safe;
  }
}

// context = dropped · V_g over every key, bit for bit. The pipeline stops each
// row's product after its last non-zero weight, and finds that by scanning back
// from the causal cut rather than from S (weights_zero_from: every weights
// writer leaves +0 past the cut unless the row is NaN). A row cut short would
// lose terms; the reference adds all S of them (acc = acc + w·v from +0, the
// kernels' order; exact zeros change nothing). Rows that are all masked (NaN,
// or zeros under safe_softmax), padding, dropout, sinks, windows and ALiBi,
// and one to 64 dimensions a head.
TEST(Properties, ContextIsEveryKeysProductWithVBitwise) {
  struct Case {
    int S, d_out, heads;
    bool causal, pad_first, dropout, safe, sinks, window, alibi;
  };
  const Case cases[] = {
      {1, 4, 4, true, false, false, false, false, false, false},   // head_dim 1
      {7, 4, 2, true, false, false, false, false, false, false},   // head_dim 2
      {9, 16, 2, true, true, false, false, false, false, false},   // row 0 all masked: NaN
      {9, 16, 2, true, true, true, true, false, false, false},     // ... zeros under safe_softmax, dropout
      {33, 16, 1, true, false, true, false, false, false, false},  // dropout
      {40, 12, 3, false, true, false, false, false, false, false}, // no mask: scans from S
      {70, 64, 1, true, false, false, false, true, false, false},  // head_dim 64, sinks
      {70, 16, 2, true, false, false, false, false, true, true},   // window, ALiBi
      {130, 8, 2, true, true, true, false, false, true, false},
  };
  for (const Case& c : cases) {
    auto s = random_state(c.S, 8, c.d_out, c.heads, 60 + c.S);
    s.causal = c.causal;
    if (c.pad_first) {
      s.key_padding.assign(size_t(c.S), 1);
      s.key_padding[0] = 0;  // causal row 0 sees only key 0: all masked
    }
    if (c.dropout) s.dropout = {0.25, true, 9};
    s.safe_softmax = c.safe;
    if (c.sinks) {
      s.sinks.enabled = true;
      s.sinks.values.assign(size_t(c.heads), 0.5f);
    }
    if (c.window) s.window = 5;
    s.alibi = c.alibi;
    const attnviz::Status st = attnviz::validate_state(s);
    ASSERT_TRUE(st.ok) << st.error;
    Pipeline p;
    run(&p, s);
    const int hd = c.d_out / c.heads;
    const Tensor& V = *p.matrix(Stage::V);
    for (int h = 0; h < c.heads; ++h) {
      const Tensor& d = *p.matrix(Stage::dropped, h);
      const Tensor& ctx = *p.matrix(Stage::context, h);
      for (int i = 0; i < c.S; ++i) {
        for (int col = 0; col < hd; ++col) {
          float acc = 0.0f;
          for (int k = 0; k < c.S; ++k) acc = acc + d.at(i, k) * V.at(k, h * hd + col);
          const float got = ctx.at(i, col);
          ASSERT_TRUE(std::memcmp(&acc, &got, sizeof acc) == 0 || (std::isnan(acc) && std::isnan(got)))
              << "S " << c.S << " head " << h << " row " << i << " col " << col << ": " << got << " vs " << acc;
        }
      }
    }
  }
}

TEST(Properties, KernelsEdgeCases) {
  using namespace attnviz::kernels;
  EXPECT_EQ(exp_f32(0.0f), 1.0f);
  EXPECT_EQ(exp_f32(-INFINITY), 0.0f);
  EXPECT_EQ(exp_f32(-200.0f), 0.0f);
  EXPECT_TRUE(std::isinf(exp_f32(200.0f)));
  EXPECT_TRUE(std::isnan(exp_f32(NAN)));
  // 1-ulp accurate: compare with the correctly rounded value over a range
  for (float x = -87.0f; x < 88.0f; x += 0.37f) {
    const float want = static_cast<float>(std::exp(static_cast<double>(x)));
    EXPECT_LE(std::fabs(exp_f32(x) - want), std::ldexp(std::fabs(want), -22)) << x;
  }
  const float nan_row[3] = {1.0f, NAN, 2.0f};
  float out[3];
  softmax_row(nan_row, out, 3, true);
  for (float v : out) EXPECT_TRUE(std::isnan(v));
  // torch's lane order: the 9th value joins lane 0 (1e8 + 1 rounds to 1e8),
  // then lanes pair up (0+4, 1+5, 2+6, 3+7): 0 + 2 + 2 + 2 = 6. Adding left to
  // right would lose all three leading ones and give 4.
  const float xs[9] = {1e8f, 1, 1, 1, -1e8f, 1, 1, 1, 1};
  EXPECT_EQ(sum_f32_torch(xs, 9), 6.0f);
}

}  // namespace
