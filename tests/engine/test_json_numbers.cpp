// Floats as JSON numbers (engine/src/state/json_numbers.h): float_to_json finds its
// text with one shortest-round-trip conversion (fmt), and must give exactly what the search by
// precision it replaced gives (the goldens were written that way).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "state/json_numbers.h"

namespace {

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// The double the JSON holds, compared by its bits (-0 is not 0).
bool same(const nlohmann::json& j, double d) {
  if (!j.is_number_float()) return false;
  const double x = j.get<double>();
  return std::memcmp(&x, &d, sizeof d) == 0;
}

TEST(JsonNumbers, ShortestAgreesWithTheSearchByPrecision) {
  long checked = 0, differ = 0;
  auto check = [&](uint32_t bits) {
    const float f = from_bits(bits);
    if (!std::isfinite(f)) return;
    ++checked;
    if (!same(attnviz::detail::float_to_json(f), attnviz::detail::shortest_by_precision(f))) {
      if (++differ <= 5) ADD_FAILURE() << "float bits 0x" << std::hex << bits << " (" << f << ")";
    }
  };
  // Evenly spread over every exponent, subnormals included, both signs.
  for (uint64_t b = 0; b < 0x7f800000u; b += 8191) {
    check(static_cast<uint32_t>(b));
    check(static_cast<uint32_t>(b) | 0x80000000u);
  }
  // Every power of two, and its neighbours (where the spacing of floats changes).
  for (uint32_t e = 0; e < 255; ++e) {
    for (int d = -2; d <= 2; ++d) check((e << 23) + static_cast<uint32_t>(d));
  }
  // Values like the ones states hold: torch.rand-like and normal-like weights.
  std::mt19937 rng(123);
  std::uniform_real_distribution<float> uni(0.0f, 1.0f);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  for (int i = 0; i < 100000; ++i) {
    float u = uni(rng), n = normal(rng);
    uint32_t a, b;
    std::memcpy(&a, &u, sizeof a);
    std::memcpy(&b, &n, sizeof b);
    check(a);
    check(b);
  }
  EXPECT_EQ(differ, 0) << "of " << checked << " floats";
  EXPECT_GT(checked, 700000);
}

TEST(JsonNumbers, KnownTexts) {
  // torch.rand's first value after seed 123 (tutorial 000) and some plain ones.
  EXPECT_EQ(attnviz::detail::float_to_json(0.29611194f).dump(), "0.29611194");
  EXPECT_EQ(attnviz::detail::float_to_json(0.5f).dump(), "0.5");
  EXPECT_EQ(attnviz::detail::float_to_json(-0.0f).dump(), "-0.0");
  EXPECT_EQ(attnviz::detail::float_to_json(33565872.0f).dump(), "33565870.0");
  EXPECT_EQ(attnviz::detail::float_to_json(1e-45f).dump(), "1e-45");
  EXPECT_EQ(attnviz::detail::float_to_json(NAN), "nan");
  EXPECT_EQ(attnviz::detail::float_to_json(-INFINITY), "-inf");
}

}  // namespace
