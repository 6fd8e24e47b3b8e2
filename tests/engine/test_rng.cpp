// PyTorch's CPU random numbers (torch_rng.h) against the values the notes and
// tutorials print. Expected values are PyTorch's printed 4-decimal values, so
// the tolerance is half a unit of the 4th decimal (5e-5).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "attnviz/torch_rng.h"

namespace {

constexpr float kHalfUnit4 = 5e-5f;  // printed with 4 decimals

TEST(TorchRng, RandSeed123) {
  // ../shared/notes/torch-rng.md: seed 123, torch.rand(3, 2)
  attnviz::TorchGenerator g(123);
  std::vector<float> v(6);
  g.rand(v.data(), v.size());
  const float want[6] = {0.2961f, 0.5166f, 0.2517f, 0.6886f, 0.0740f, 0.8665f};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(v[i], want[i], kHalfUnit4) << i;
}

TEST(TorchRng, LinearSeed789) {
  // torch-rng.md: seed 789, nn.Linear(3, 2, bias=False).weight
  attnviz::TorchGenerator g(789);
  std::vector<float> w(6);
  g.linear_init(w.data(), nullptr, 3, 2);
  const float want[6] = {0.3161f, 0.4568f, 0.5118f, -0.1683f, -0.3379f, -0.0918f};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(w[i], want[i], kHalfUnit4) << i;
}

TEST(TorchRng, EmbeddingSeed123UsesTheSixteenWidePath) {
  // torch-rng.md and 000 line 61: nn.Embedding(5, 4) row 0 (20 elements >= 16)
  attnviz::TorchGenerator g(123);
  std::vector<float> t(20);
  g.normal(t.data(), t.size());
  const float want[4] = {0.3374f, -0.1778f, -0.3035f, -0.5880f};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(t[i], want[i], kHalfUnit4) << i;
}

TEST(TorchRng, SmallRandnUsesTheCachedDoublePath) {
  // torch-rng.md: seed 123, torch.randn(3)
  attnviz::TorchGenerator g(123);
  float v[3];
  g.normal(v, 3);
  const float want[3] = {-0.1115f, 0.1204f, -0.3696f};
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(v[i], want[i], kHalfUnit4) << i;
}

TEST(TorchRng, NegativeSeedIsTwoToTheSixtyFourPlusSeed) {
  attnviz::TorchGenerator a(static_cast<uint64_t>(-1)), b(0xFFFFFFFFull);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(a.next32(), b.next32());
}

TEST(TorchRng, Dropout05OnOnes6x6) {
  // 004 (test0305_p67 step 7): torch.manual_seed(123); nn.Dropout(0.5)(torch.ones(6, 6))
  attnviz::TorchGenerator g(123);
  std::vector<uint8_t> keep(36);
  g.dropout_keep(keep.data(), keep.size(), 0.5);
  const int want[36] = {2, 2, 0, 2, 2, 0,  0, 0, 0, 2, 0, 2,  2, 2, 2, 2, 0, 2,
                        0, 2, 2, 0, 0, 2,  0, 2, 0, 2, 0, 2,  0, 2, 2, 2, 2, 0};
  const float scale = attnviz::dropout_scale(0.5);
  EXPECT_EQ(scale, 2.0f);
  for (int i = 0; i < 36; ++i) EXPECT_EQ(keep[i] ? scale : 0.0f, static_cast<float>(want[i])) << i;
}

TEST(TorchRng, Dropout02OnOnes5x5) {
  // 000 ("tensor after Dropout"): torch.manual_seed(123); nn.Dropout(0.2)(torch.ones(5, 5))
  // printed 1.2500 everywhere except (1, 3) and (2, 0); "Number of zeros in output: 2".
  attnviz::TorchGenerator g(123);
  std::vector<uint8_t> keep(25);
  g.dropout_keep(keep.data(), keep.size(), 0.2);
  for (int i = 0; i < 25; ++i) {
    const bool dropped = i == 1 * 5 + 3 || i == 2 * 5 + 0;
    EXPECT_EQ(keep[i] == 0, dropped) << i;
  }
  EXPECT_EQ(attnviz::dropout_scale(0.2), 1.25f);
}

TEST(TorchRng, DropoutExtremesDrawNothing) {
  attnviz::TorchGenerator g(7), fresh(7);
  std::vector<uint8_t> keep(10);
  g.dropout_keep(keep.data(), keep.size(), 0.0);
  for (uint8_t k : keep) EXPECT_EQ(k, 1);
  g.dropout_keep(keep.data(), keep.size(), 1.0);
  for (uint8_t k : keep) EXPECT_EQ(k, 0);
  EXPECT_EQ(g.next32(), fresh.next32());  // PyTorch short-circuits p = 0 and p = 1
}

}  // namespace
