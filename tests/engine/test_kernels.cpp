// The optimized kernels against simple reference loops, bit for bit.
//
// kernels.h fixes the arithmetic of every output value (contract 2: a float32
// accumulator from +0, acc = acc + a·b in order k = 0..K−1, then + bias), so a
// reference loop written straight from that sentence must give the same bits
// as the blocked AVX2 / wasm SIMD128 kernels, for every implementation the
// machine supports (native: portable and AVX2; wasm: portable and SIMD128).
// Shapes are chosen to be awkward for the tiles: K and N not multiples of the
// tile or of the k-block (256), a single row, row strides wider than the
// matrix, rows requested out of order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attnviz/kernels.h"
#include "attnviz/pipeline.h"
#include "engine_test_util.h"

namespace {

namespace k = attnviz::kernels;
using k::Isa;

// Every implementation this build can run; the tests run each in turn.
std::vector<Isa> supported() {
  std::vector<Isa> v;
  for (Isa i : {Isa::portable, Isa::avx2, Isa::wasm_simd128}) {
    if (k::isa_supported(i)) v.push_back(i);
  }
  return v;
}

// Restores the default implementation when a test ends.
struct IsaGuard {
  Isa saved = k::active_isa();
  ~IsaGuard() { k::set_isa(saved); }
};

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
float bits_float(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -2.0f, float hi = 2.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// C[r] = A[r]·B (+ bias) straight from kernels.h, contract 2.
void reference_matmul(const float* a, int lda, const float* b, int ldb, const float* bias, float* c,
                      int ldc, int K, int N, int r) {
  for (int j = 0; j < N; ++j) {
    float acc = 0.0f;
    for (int kk = 0; kk < K; ++kk) acc = acc + a[size_t(r) * lda + kk] * b[size_t(kk) * ldb + j];
    if (bias != nullptr) acc = acc + bias[j];
    c[size_t(r) * ldc + j] = acc;
  }
}

struct Shape {
  int M, K, N;
};

// Shapes around the tiles (AVX2 6 × 16, wasm 4 × 8), the k-block (256), the
// packing threshold (8 rows) and the row blocks whose A rows the wasm kernel
// packs (48 rows: {101, 300, 24} has three, the last one ragged).
const Shape kShapes[] = {{1, 1, 1},    {1, 768, 64}, {7, 3, 5},     {13, 300, 17}, {6, 257, 16},
                         {9, 64, 33},  {20, 513, 40}, {8, 256, 48}, {31, 70, 100}, {5, 0, 7},
                         {101, 300, 24}};

TEST(Kernels, MatmulRowsEqualsTheReferenceLoopBitwise) {
  IsaGuard guard;
  for (Isa isa : supported()) {
    ASSERT_TRUE(k::set_isa(isa));
    for (const Shape& sh : kShapes) {
      for (int variant = 0; variant < 2; ++variant) {
        const bool with_bias = variant == 1;
        const int lda = sh.K + 3, ldb = sh.N + 5, ldc = sh.N + 2;  // strides wider than the matrices
        const auto a = random_floats(size_t(sh.M) * lda, 1 + sh.K);
        const auto b = random_floats(size_t(sh.K) * ldb + 1, 2 + sh.N);
        const auto bias = random_floats(size_t(sh.N), 3);
        std::vector<float> got(size_t(sh.M) * ldc, 42.0f), want(size_t(sh.M) * ldc, 42.0f);
        std::vector<int> rows;  // every row, in reverse order
        for (int r = sh.M - 1; r >= 0; --r) rows.push_back(r);
        k::matmul_rows(a.data(), lda, b.data(), ldb, with_bias ? bias.data() : nullptr, got.data(), ldc, sh.K,
                       sh.N, rows.data(), sh.M);
        for (int r = 0; r < sh.M; ++r) {
          reference_matmul(a.data(), lda, b.data(), ldb, with_bias ? bias.data() : nullptr, want.data(), ldc,
                           sh.K, sh.N, r);
        }
        for (size_t i = 0; i < got.size(); ++i) {
          ASSERT_TRUE(same_bits(got[i], want[i]))
              << k::isa_name(isa) << " M=" << sh.M << " K=" << sh.K << " N=" << sh.N << " bias=" << with_bias
              << " at " << i << ": " << got[i] << " vs " << want[i];
        }
      }
    }
  }
}

TEST(Kernels, ARowSubsetIsBitwiseTheSameAsTheFullProductAndTouchesNothingElse) {
  IsaGuard guard;
  const int M = 40, K = 300, N = 70;
  const auto a = random_floats(size_t(M) * K, 11);
  const auto b = random_floats(size_t(K) * N, 12);
  for (Isa isa : supported()) {
    ASSERT_TRUE(k::set_isa(isa));
    std::vector<int> all;
    for (int r = 0; r < M; ++r) all.push_back(r);
    std::vector<float> full(size_t(M) * N);
    k::matmul_rows(a.data(), K, b.data(), N, nullptr, full.data(), N, K, N, all.data(), M);
    for (const std::vector<int>& subset : {std::vector<int>{17}, std::vector<int>{39, 0, 5},
                                           std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 30, 31}}) {
      std::vector<float> part(size_t(M) * N, -7.0f);
      k::matmul_rows(a.data(), K, b.data(), N, nullptr, part.data(), N, K, N, subset.data(), int(subset.size()));
      std::vector<uint8_t> in(M, 0);
      for (int r : subset) in[size_t(r)] = 1;
      for (int r = 0; r < M; ++r) {
        for (int j = 0; j < N; ++j) {
          const float g = part[size_t(r) * N + j];
          if (in[size_t(r)]) {
            ASSERT_TRUE(same_bits(g, full[size_t(r) * N + j])) << k::isa_name(isa) << " row " << r;
          } else {
            ASSERT_EQ(g, -7.0f) << k::isa_name(isa) << ": row " << r << " was not requested";
          }
        }
      }
    }
  }
}

TEST(Kernels, SkippingTrailingZeroTermsChangesNoBit) {
  // k_end: the caller promises a[r][k] == 0 for k >= k_end[t]; the result must
  // equal the full sum (a zero term never changes an accumulator, even a
  // negative zero term: the accumulator is never −0).
  IsaGuard guard;
  const int M = 101, K = 600, N = 40;  // several row blocks, groups with different k_end spans
  auto a = random_floats(size_t(M) * K, 21);
  const auto b = random_floats(size_t(K) * N, 22);
  std::vector<int> rows, k_end;
  for (int r = 0; r < M; ++r) {
    rows.push_back(r);
    k_end.push_back((r * 37) % K);
    for (int kk = k_end.back(); kk < K; ++kk) a[size_t(r) * K + kk] = (kk % 2) ? 0.0f : -0.0f;
  }
  for (Isa isa : supported()) {
    ASSERT_TRUE(k::set_isa(isa));
    std::vector<float> got(size_t(M) * N), want(size_t(M) * N);
    k::matmul_rows(a.data(), K, b.data(), N, nullptr, got.data(), N, K, N, rows.data(), M, k_end.data());
    for (int r = 0; r < M; ++r) reference_matmul(a.data(), K, b.data(), N, nullptr, want.data(), N, K, N, r);
    for (size_t i = 0; i < got.size(); ++i) ASSERT_TRUE(same_bits(got[i], want[i])) << k::isa_name(isa) << " " << i;
  }
}

TEST(Kernels, DotCellIsTheMatmulCell) {
  const auto a = random_floats(77, 31), b = random_floats(77 * 3, 32);
  std::vector<float> terms(77);
  const float cell = k::dot_cell(a.data(), 1, b.data(), 3, 77, terms.data());
  float acc = 0.0f;
  for (int t = 0; t < 77; ++t) {
    EXPECT_TRUE(same_bits(terms[size_t(t)], a[size_t(t)] * b[size_t(t) * 3]));
    acc = acc + terms[size_t(t)];
  }
  EXPECT_TRUE(same_bits(cell, acc));
  int row = 0;
  float c = 0.0f;
  k::matmul_rows(a.data(), 77, b.data(), 3, nullptr, &c, 1, 77, 1, &row, 1);
  EXPECT_TRUE(same_bits(cell, c));
}

TEST(Kernels, Transpose) {
  const auto src = random_floats(size_t(13) * 20, 41);
  std::vector<float> dst(size_t(17) * 30, 5.0f);
  k::transpose(src.data(), 20, 13, 17, dst.data(), 30);  // 13 × 17 window of a 13 × 20 matrix
  for (int i = 0; i < 13; ++i) {
    for (int j = 0; j < 17; ++j) ASSERT_EQ(dst[size_t(j) * 30 + i], src[size_t(i) * 20 + j]);
  }
  EXPECT_EQ(dst[13], 5.0f);  // past the 13 columns of dst row 0: untouched
}

// Rows that exercise softmax's special cases.
std::vector<std::vector<float>> softmax_rows() {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<std::vector<float>> rows;
  for (int n : {1, 3, 7, 8, 9, 15, 16, 17, 33, 100, 512}) {
    rows.push_back(random_floats(size_t(n), 50 + n, -8.0f, 8.0f));
    auto wide = random_floats(size_t(n), 60 + n, -300.0f, 50.0f);  // exp underflows to 0 for many
    rows.push_back(wide);
    auto masked = random_floats(size_t(n), 70 + n, -3.0f, 3.0f);
    for (int j = n / 2 + 1; j < n; ++j) masked[size_t(j)] = -inf;  // a causal row
    rows.push_back(masked);
    rows.push_back(std::vector<float>(size_t(n), -inf));  // everything masked
    auto with_nan = random_floats(size_t(n), 80 + n);
    with_nan[size_t(n - 1)] = nan;
    rows.push_back(with_nan);
    auto with_inf = random_floats(size_t(n), 90 + n);
    with_inf[0] = inf;
    rows.push_back(with_inf);
    auto zeros = std::vector<float>(size_t(n), 0.0f);
    zeros[0] = -0.0f;
    rows.push_back(zeros);
    rows.push_back(std::vector<float>(size_t(n), -1e20f));  // a finite mask_fill everywhere
  }
  return rows;
}

// The vector exps (one step done in float32, kernels.h) against the portable
// exp_f32 over every 251st float of [−inf, +inf] (about 17 M values, every
// exponent and both signs), the clamp edges and the rounding points of q.
TEST(Kernels, VectorExpIsThePortableOneBitwise) {
  IsaGuard guard;
  std::vector<float> x;
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 251) {
    const uint32_t b = uint32_t(bits);
    float f;
    std::memcpy(&f, &b, sizeof f);
    x.push_back(f);
  }
  for (float edge : {-104.0f, 100.0f, 0.0f}) {
    float lo = edge, hi = edge;
    for (int t = 0; t < 64; ++t) {
      lo = std::nextafter(lo, -1e9f);
      hi = std::nextafter(hi, 1e9f);
      x.push_back(lo);
      x.push_back(hi);
    }
  }
  for (int q = -151; q <= 145; ++q) {  // where rint(d / ln2) switches from q to q + 1
    float mid = float((q + 0.5) * 0.69314718055994530942);
    for (int t = 0; t < 16; ++t) {
      x.push_back(mid);
      mid = std::nextafter(mid, 1e9f);
    }
  }
  x.push_back(std::numeric_limits<float>::infinity());
  x.push_back(-std::numeric_limits<float>::infinity());
  x.push_back(std::numeric_limits<float>::quiet_NaN());
  const int n = int(x.size());
  ASSERT_TRUE(k::set_isa(Isa::portable));
  std::vector<float> want(x.size());
  k::exp_row(x.data(), want.data(), n);
  for (size_t j = 0; j < x.size(); j += 99991) ASSERT_TRUE(same_bits(want[j], k::exp_f32(x[j])));
  for (Isa isa : supported()) {
    ASSERT_TRUE(k::set_isa(isa));
    std::vector<float> got(x.size());
    k::exp_row(x.data(), got.data(), n);
    for (size_t j = 0; j < x.size(); ++j) {
      ASSERT_TRUE(same_bits(got[j], want[j]) || (std::isnan(got[j]) && std::isnan(want[j])))
          << k::isa_name(isa) << " exp(" << x[j] << "): " << got[j] << " vs " << want[j];
    }
  }
}

// SLEEF's Horner coefficients after u0, and the binade [2^e, 2^(e+1)] that
// kernels.h (exp_f32) says each of the steps u1 … u4 stays in.
constexpr float kU0 = 0.000198527617612853646278381f;
constexpr float kHorner[5] = {0.00139304355252534151077271f, 0.00833336077630519866943359f,
                              0.0416664853692054748535156f, 0.166666671633720397949219f, 0.5f};
constexpr int kBinade[4] = {-10, -7, -5, -3};

float pow2(int e) { return std::ldexp(1.0f, e); }

// SLEEF's expf as kernels.h spells it: true fused multiply-adds (std::fmaf,
// correctly rounded) in u1 … u4, kernels::fma_f32 in the other steps.
float exp_true_fma_steps(float d) {
  if (std::isnan(d)) return d;
  if (d < -104.0f) return 0.0f;
  if (d > 100.0f) return std::numeric_limits<float>::infinity();
  const int q = int(std::nearbyint(d * 1.442695040888963407359924681001892137426645954152985934135449406931f));
  const float qf = float(q);
  float s = k::fma_f32(qf, -0.693145751953125f, d);
  s = k::fma_f32(qf, -1.428606765330187045e-06f, s);
  float u = kU0;
  for (int step = 0; step < 4; ++step) u = std::fmaf(u, s, kHorner[step]);
  u = k::fma_f32(u, s, kHorner[4]);
  u = 1.0f + k::fma_f32(s * s, u, s);
  const int half = q >> 1;
  return (u * pow2(half)) * pow2(q - half);
}

// exp_f32 does u1 … u4 as three double operations, which equal a fused
// multiply-add only while each result stays in one binade (kernels.h). Here:
// the interval bound of the comment, every 1009th float s with |s| <= 0.35
// plus the 4096 at each end (each step by std::fmaf in its binade), and
// exp_f32 against the true-FMA formula over every 1021st float. (Checked by
// hand over every float: both hold for all of them, and no exp_f32 result
// changed from the all-fma_f32 version.)
TEST(Kernels, ExpHornerStepsStayInOneBinade) {
  double lo = kU0, hi = kU0;
  for (int step = 0; step < 4; ++step) {
    const double spread = std::max(std::fabs(lo), std::fabs(hi)) * 0.35;
    lo = kHorner[step] - spread - 1e-9;  // 1e-9: more than the rounding of each step
    hi = kHorner[step] + spread + 1e-9;
    EXPECT_GE(lo, std::ldexp(1.0, kBinade[step])) << "u" << step + 1;
    EXPECT_LE(hi, std::ldexp(1.0, kBinade[step] + 1)) << "u" << step + 1;
  }
  std::vector<float> s_values;
  const uint32_t end = [] {
    const float top = 0.35f;
    uint32_t b;
    std::memcpy(&b, &top, sizeof b);
    return b;
  }();
  for (uint32_t b = 0; b <= end; b += (b < 4096 || end - b < 4096) ? 1 : 1009) {
    float s;
    std::memcpy(&s, &b, sizeof s);
    s_values.push_back(s);
    s_values.push_back(-s);
  }
  for (float s : s_values) {
    float u = kU0;
    for (int step = 0; step < 4; ++step) {
      u = std::fmaf(u, s, kHorner[step]);
      ASSERT_TRUE(u >= pow2(kBinade[step]) && u <= pow2(kBinade[step] + 1)) << "s = " << s << ", u" << step + 1;
    }
  }
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 1021) {
    const uint32_t b = uint32_t(bits);
    float d;
    std::memcpy(&d, &b, sizeof d);
    const float want = exp_true_fma_steps(d), got = k::exp_f32(d);
    ASSERT_TRUE(same_bits(got, want) || (std::isnan(got) && std::isnan(want))) << "exp(" << d << ")";
  }
}

TEST(Kernels, VectorSoftmaxIsThePortableOneBitwise) {
  IsaGuard guard;
  for (const auto& x : softmax_rows()) {
    for (bool safe : {false, true}) {
      const int n = int(x.size());
      ASSERT_TRUE(k::set_isa(Isa::portable));
      std::vector<float> want(x.size());
      k::softmax_row(x.data(), want.data(), n, safe);
      for (Isa isa : supported()) {
        ASSERT_TRUE(k::set_isa(isa));
        std::vector<float> got(x.size());
        k::softmax_row(x.data(), got.data(), n, safe);
        std::vector<float> in_place = x;
        k::softmax_row(in_place.data(), in_place.data(), n, safe);
        for (int j = 0; j < n; ++j) {
          ASSERT_TRUE(same_bits(got[size_t(j)], want[size_t(j)]))
              << k::isa_name(isa) << " n=" << n << " j=" << j << ": " << got[size_t(j)] << " vs " << want[size_t(j)];
          ASSERT_TRUE(same_bits(in_place[size_t(j)], want[size_t(j)])) << k::isa_name(isa) << " in place";
        }
      }
    }
  }
}

// kernels.h, softmax_exps / softmax_normalize: the two halves give
// softmax_row's bits, and so does redoing one cell's exp against the old max
// when the new value stays at or below it (what an edit of one token does to
// the rows it does not own, softmax_rows.cpp patch_weights_row).
TEST(Kernels, SoftmaxHalvesAndAOneCellPatchAreSoftmaxRowBitwise) {
  IsaGuard guard;
  std::mt19937 gen(4242);
  int patched = 0;
  for (const auto& x : softmax_rows()) {
    const int n = int(x.size());
    for (Isa isa : supported()) {
      ASSERT_TRUE(k::set_isa(isa));
      std::vector<float> want(x.size()), e(x.size()), y(x.size());
      k::softmax_row(x.data(), want.data(), n, false);
      const float m = k::softmax_exps(x.data(), e.data(), n);
      k::softmax_normalize(e.data(), y.data(), n);
      for (int j = 0; j < n; ++j) {
        ASSERT_TRUE(same_bits(y[size_t(j)], want[size_t(j)]) || (std::isnan(y[size_t(j)]) && std::isnan(want[size_t(j)])))
            << k::isa_name(isa) << " n=" << n << " j=" << j;
      }
      if (!std::isfinite(m)) continue;
      // Move one cell that does not hold the max to a new value at most the max.
      const int c = int(gen() % unsigned(n));
      if (x[size_t(c)] == m) continue;
      std::vector<float> x2 = x;
      x2[size_t(c)] = m - std::uniform_real_distribution<float>(0.0f, 12.0f)(gen);
      if (gen() % 4 == 0) x2[size_t(c)] = m;  // a tie with the max keeps it
      e[size_t(c)] = k::exp_f32(x2[size_t(c)] - m);
      k::softmax_normalize(e.data(), y.data(), n);
      k::softmax_row(x2.data(), want.data(), n, false);
      for (int j = 0; j < n; ++j) {
        ASSERT_TRUE(same_bits(y[size_t(j)], want[size_t(j)])) << k::isa_name(isa) << " patched n=" << n << " j=" << j;
      }
      ++patched;
    }
  }
  EXPECT_GT(patched, 10);
}

// kernels.h, softmax_exps_under: a row split at a random point, its head
// done by softmax_exps, its tail against the head's max, gives softmax_exps's
// bits for the whole row whenever the tail stays at or under that max; when
// the tail tops it (or holds a NaN) the call refuses and leaves e alone.
TEST(Kernels, ExpsOfANewTailUnderTheMaxAreSoftmaxExpsBitwise) {
  IsaGuard guard;
  std::mt19937 gen(977);
  int agreed = 0, refused = 0;
  for (const auto& x : softmax_rows()) {
    const int n = int(x.size());
    if (n < 2) continue;
    const int split = 1 + int(gen() % unsigned(n - 1));
    for (Isa isa : supported()) {
      ASSERT_TRUE(k::set_isa(isa));
      std::vector<float> want(x.size()), e(x.size());
      const float m_all = k::softmax_exps(x.data(), want.data(), n);
      const float m = k::softmax_exps(x.data(), e.data(), split);
      if (m != m) {
        EXPECT_FALSE(k::softmax_exps_under(x.data() + split, e.data() + split, n - split, m));
        continue;
      }
      const std::vector<float> before = e;
      const bool ok = k::softmax_exps_under(x.data() + split, e.data() + split, n - split, m);
      bool tail_under = true;
      for (int j = split; j < n; ++j) tail_under = tail_under && x[size_t(j)] <= m;
      ASSERT_EQ(ok, tail_under) << k::isa_name(isa) << " n=" << n << " split=" << split;
      if (!ok) {
        ASSERT_EQ(std::memcmp(e.data(), before.data(), sizeof(float) * x.size()), 0) << k::isa_name(isa);
        ++refused;
        continue;
      }
      ASSERT_EQ(m, m_all) << k::isa_name(isa);  // as numbers: the head's max may be −0 where the row's is +0
      for (int j = 0; j < n; ++j) {
        ASSERT_TRUE(same_bits(e[size_t(j)], want[size_t(j)])) << k::isa_name(isa) << " n=" << n << " j=" << j;
      }
      ++agreed;
    }
  }
  EXPECT_GT(agreed, 10);
  EXPECT_GT(refused, 10);
}

// The vector exps take a narrow form for rows whose every x − m lies in
// [−87, 0] (kernels_wasm.cpp): no clamp, no selects, one multiply for 2^q.
// Every 97th float of [−87, 0], the 4096 at each end and the floats where
// rint(d / ln2) steps, as rows of 512 under a ceiling of 0 (d = x exactly),
// give exp_f32's bits; so do rows just inside and just outside the range
// (their exps against their own max). (Checked by hand in wasm over every
// float of [−87, 0], 1.12 G values: all equal.)
TEST(Kernels, ExpsOfRowsWithinEightySevenOfTheirMaxAreExpF32Bitwise) {
  IsaGuard guard;
  std::vector<float> d;
  const uint32_t neg_zero = 0x80000000u, neg_87 = 0xC2AE0000u;  // −0 and −87
  for (uint32_t b = neg_zero; b <= neg_87; b += 97) d.push_back(bits_float(b));
  for (uint32_t t = 0; t < 4096; ++t) {
    d.push_back(bits_float(neg_zero + t));
    d.push_back(bits_float(neg_87 - t));
  }
  d.push_back(0.0f);
  for (int q = -126; q <= 0; ++q) {
    float mid = float((q + 0.5) * 0.69314718055994530942);
    for (int t = 0; t < 8; ++t, mid = std::nextafter(mid, 1e9f)) {
      if (mid >= -87.0f && mid <= 0.0f) d.push_back(mid);
    }
  }
  ASSERT_EQ(bits_float(neg_87), -87.0f);
  while (d.size() % 512 != 0) d.push_back(-1.0f);
  std::vector<float> want(d.size());
  for (size_t j = 0; j < d.size(); ++j) want[j] = k::exp_f32(d[j]);
  for (Isa isa : supported()) {
    ASSERT_TRUE(k::set_isa(isa));
    std::vector<float> got(d.size());
    for (size_t r = 0; r < d.size(); r += 512) {
      ASSERT_TRUE(k::softmax_exps_under(d.data() + r, got.data() + r, 512, 0.0f));
    }
    for (size_t j = 0; j < d.size(); ++j) {
      ASSERT_TRUE(same_bits(got[j], want[j])) << k::isa_name(isa) << " exp(" << d[j] << ")";
    }
    // Rows around the edge: min − max just above, at and below −87, and at
    // −88, where rint(d / ln2) is already −127.
    for (float span : {86.99f, 87.0f, 87.01f, 88.0f, 90.0f, 110.0f}) {
      auto x = random_floats(64, 31, 2.0f - span, 2.0f);
      x[7] = 2.0f - span;
      x[40] = 2.0f;
      std::vector<float> e(x.size());
      ASSERT_EQ(k::softmax_exps(x.data(), e.data(), 64), 2.0f);
      for (size_t j = 0; j < x.size(); ++j) {
        ASSERT_TRUE(same_bits(e[j], k::exp_f32(x[j] - 2.0f))) << k::isa_name(isa) << " span " << span << " j=" << j;
      }
    }
  }
}

// kernels.h, softmax_cut: a row whose keys from `live` on are −inf, done over
// the cut only (rest zero), is bitwise the whole row's softmax whenever the
// cut's first result is a number, and that is exactly when its max is finite.
TEST(Kernels, SoftmaxOverTheCutOfACausalRowIsTheWholeRowBitwise) {
  IsaGuard guard;
  const float inf = std::numeric_limits<float>::infinity();
  int checked = 0, fell_back = 0;
  for (int n : {1, 5, 7, 8, 9, 15, 16, 17, 31, 33, 100, 512}) {
    for (int live : {1, 2, 7, 8, 9, 15, 16, 17, 24, 31, 50, 99, 255, 256, 300, 511, 512}) {
      if (live > n) continue;
      for (int variant = 0; variant < 5; ++variant) {
        auto x = random_floats(size_t(n), uint32_t(1000 * n + 7 * live + variant), -9.0f, 9.0f);
        for (int j = live; j < n; ++j) x[size_t(j)] = -inf;
        if (variant == 1) for (int j = 0; j < live; j += 3) x[size_t(j)] = -inf;  // padded keys too
        if (variant == 2) for (int j = 0; j < live; ++j) x[size_t(j)] = -inf;     // nothing live
        if (variant == 3) x[size_t(live / 2)] = std::numeric_limits<float>::quiet_NaN();
        if (variant == 4) x[size_t(live - 1)] = inf;
        float m = -inf;
        bool nan = false;
        for (int j = 0; j < live; ++j) {
          nan = nan || std::isnan(x[size_t(j)]);
          m = std::max(m, x[size_t(j)]);
        }
        const bool finite_max = !nan && std::isfinite(m);
        const int cut = k::softmax_cut(live, n);
        ASSERT_TRUE(cut == n || (cut >= 8 && cut % 8 == 0 && cut >= live)) << n << " " << live;
        for (Isa isa : supported()) {
          ASSERT_TRUE(k::set_isa(isa));
          std::vector<float> y(x.size(), 123.0f);
          k::softmax_row(x.data(), y.data(), cut, false);
          ASSERT_EQ(!std::isnan(y[0]), finite_max) << k::isa_name(isa) << " n=" << n << " live=" << live;
          if (!finite_max) {
            ++fell_back;
            continue;
          }
          for (int j = cut; j < n; ++j) y[size_t(j)] = 0.0f;
          for (bool safe : {false, true}) {
            std::vector<float> want(x.size());
            k::softmax_row(x.data(), want.data(), n, safe);
            for (int j = 0; j < n; ++j) {
              ASSERT_TRUE(same_bits(y[size_t(j)], want[size_t(j)]))
                  << k::isa_name(isa) << " n=" << n << " live=" << live << " j=" << j;
            }
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 300);
  EXPECT_GT(fell_back, 100);
}

// kernels.h, softmax with a sink (gpt-oss): the row [x_0 … x_{n−1}, 0 … 0, logit]
// of at + 1 entries. Its definition is torch.softmax over the concatenated row
// with the last column dropped; the plain softmax_row is torch's softmax bit for
// bit, so the sink functions must give, for every instruction set, exactly the
// plain softmax of [x, −inf × (at − n), logit]: its first n entries, and its last
// as the returned sink weight. Rows of every special case, logits below, between
// and above the entries, and `at` from n (the sink right after the keys) to far
// past it (a causal row cut short, a decoding step), across the 8-lane boundary.
TEST(Kernels, SoftmaxWithASinkIsTorchsSoftmaxOfTheConcatenatedRow) {
  IsaGuard guard;
  const float inf = std::numeric_limits<float>::infinity();
  int checked = 0;
  for (const auto& x : softmax_rows()) {
    const int n = int(x.size());
    for (float logit : {-50.0f, -1.5f, 0.0f, 0.75f, 9.0f, 120.0f}) {
      for (int extra : {0, 1, 2, 6, 7, 8, 9, 23}) {
        const int at = n + extra;
        std::vector<float> cat(x);
        cat.resize(size_t(at), -inf);
        cat.push_back(logit);
        ASSERT_TRUE(k::set_isa(Isa::portable));
        std::vector<float> want(cat.size());
        k::softmax_row(cat.data(), want.data(), at + 1, false);
        const k::Sink sink{logit, at};
        for (Isa isa : supported()) {
          ASSERT_TRUE(k::set_isa(isa));
          std::vector<float> y(x.size(), 7.0f), e(x.size(), 7.0f), y2(x.size(), 7.0f);
          const float share = k::softmax_row(x.data(), y.data(), n, sink);
          const float m = k::softmax_exps(x.data(), e.data(), n, &sink);
          const float share2 = k::softmax_normalize(e.data(), y2.data(), n, m, &sink);
          const std::string where = std::string(k::isa_name(isa)) + " n=" + std::to_string(n) +
                                    " at=" + std::to_string(at) + " logit=" + std::to_string(logit);
          if (m == m) ASSERT_TRUE(same_bits(share2, want[size_t(at)])) << where << " (halves)";
          ASSERT_TRUE(same_bits(share, want[size_t(at)]) || (std::isnan(share) && std::isnan(want[size_t(at)])))
              << where << ": sink " << share << " vs " << want[size_t(at)];
          for (int j = 0; j < n; ++j) {
            const float w = want[size_t(j)];
            ASSERT_TRUE(same_bits(y[size_t(j)], w) || (std::isnan(y[size_t(j)]) && std::isnan(w)))
                << where << " j=" << j << ": " << y[size_t(j)] << " vs " << w;
            if (m == m) ASSERT_TRUE(same_bits(y2[size_t(j)], w)) << where << " j=" << j << " (halves)";
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 4000);
}

// Without a sink (a null Sink*) the three are the plain functions.
TEST(Kernels, SoftmaxWithoutASinkIsThePlainOne) {
  for (const auto& x : softmax_rows()) {
    const int n = int(x.size());
    std::vector<float> want(x.size()), got(x.size());
    k::softmax_row(x.data(), want.data(), n, true);
    EXPECT_TRUE(std::isnan(k::softmax_row(x.data(), got.data(), n, true, nullptr)));
    for (int j = 0; j < n; ++j)
      ASSERT_TRUE(same_bits(got[size_t(j)], want[size_t(j)]) || (std::isnan(got[size_t(j)]) && std::isnan(want[size_t(j)])));
  }
}

TEST(Kernels, PortableSoftmaxIsTheDocumentedFormula) {
  // softmax_row = exp_f32(x − max) · (1 / sum_f32_torch), as kernels.h says.
  IsaGuard guard;
  ASSERT_TRUE(k::set_isa(Isa::portable));
  const auto x = random_floats(45, 99, -20.0f, 20.0f);
  std::vector<float> y(45), e(45);
  k::softmax_row(x.data(), y.data(), 45, false);
  const float m = k::max_f32_torch(x.data(), 45);
  for (int j = 0; j < 45; ++j) e[size_t(j)] = k::exp_f32(x[size_t(j)] - m);
  const float inv = 1.0f / k::sum_f32_torch(e.data(), 45);
  for (int j = 0; j < 45; ++j) EXPECT_TRUE(same_bits(y[size_t(j)], e[size_t(j)] * inv)) << j;
}

// all_finite and all_finite_rows against the definition: one inf or NaN
// anywhere in the block (every position tried, in a block whose rows are wider
// than the columns checked) makes it false; one outside the columns does not.
TEST(Kernels, AllFiniteFindsEveryInfAndNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  const float bad[] = {inf, -inf, std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN()};
  for (int n : {1, 3, 63, 64, 65, 130}) {
    auto x = random_floats(size_t(n), 7 + n, -1.0e38f, 1.0e38f);  // (hi − lo must stay finite)
    x[0] = std::numeric_limits<float>::denorm_min();
    EXPECT_TRUE(k::all_finite(x.data(), size_t(n)));
    for (int j = 0; j < n; ++j) {
      for (float b : bad) {
        const float keep = x[size_t(j)];
        x[size_t(j)] = b;
        EXPECT_FALSE(k::all_finite(x.data(), size_t(n))) << n << " " << j;
        x[size_t(j)] = keep;
      }
    }
  }
  const int rows = 9, stride = 20;
  for (int cols : {1, 2, 7, 16}) {
    auto x = random_floats(size_t(rows * stride), 3 + cols, -100.0f, 100.0f);
    EXPECT_TRUE(k::all_finite_rows(x.data(), rows, cols, stride));
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < stride; ++c) {
        float& v = x[size_t(r * stride + c)];
        const float keep = v;
        v = bad[size_t(r + c) % 4];
        EXPECT_EQ(k::all_finite_rows(x.data(), rows, cols, stride), c >= cols) << cols << " " << r << " " << c;
        v = keep;
      }
    }
  }
}

TEST(Kernels, MaskedRowIsDivisionThenMaskedFill) {
  IsaGuard guard;
  const float fills[] = {-std::numeric_limits<float>::infinity(), -1e9f, 0.0f};
  // A power-of-two divisor whose reciprocal is a normal float is applied as a
  // product (kernels_wasm.cpp); the others (2^127: its reciprocal is subnormal;
  // a subnormal divisor; sqrt(7)) divide. Both must give the division's bits for
  // every value, the special ones included (the scores' first 12 entries).
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {inf, -inf, std::numeric_limits<float>::quiet_NaN(), 0.0f, -0.0f, 1e-45f, -3e-39f,
                            3.4e38f, -3.4e38f, 1.1754944e-38f, 7.0f, -0.1f};
  const float divisors[] = {2.6457512f, 8.0f, 1.0f, 0.5f, 0.125f, 0x1p-126f, 0x1p126f, 0x1p127f, 1e-40f, -4.0f};
  for (float divisor : divisors) {
  for (int n : {1, 5, 8, 13, 64, 77}) {
    auto scores = random_floats(size_t(n), 100 + n, -30.0f, 30.0f);
    for (size_t j = 0; j < scores.size() && j < std::size(specials); ++j) scores[j] = specials[j];
    std::vector<uint8_t> pad(size_t(n), 0);
    for (int j = 0; j < n; j += 3) pad[size_t(j)] = 1;
    for (Isa isa : supported()) {
      ASSERT_TRUE(k::set_isa(isa));
      for (int i : {-1, 0, 1, 2, 3, 4, n / 2, n - 1, n + 2}) {
        for (bool causal : {false, true}) {
          for (const uint8_t* kp : {static_cast<const uint8_t*>(nullptr), static_cast<const uint8_t*>(pad.data())}) {
            for (float fill : fills) {
              std::vector<float> scaled(static_cast<size_t>(n)), want(scaled.size()), got(scaled.size());
              for (int j = 0; j < n; ++j) scaled[size_t(j)] = scores[size_t(j)] / divisor;  // the definition
              k::masked_fill_row(scaled.data(), want.data(), n, i, causal, kp, fill);
              k::masked_row(scores.data(), got.data(), n, i, divisor, causal, kp, fill);
              for (int j = 0; j < n; ++j) {
                ASSERT_TRUE(same_bits(got[size_t(j)], want[size_t(j)]))
                    << k::isa_name(isa) << " n=" << n << " i=" << i << " j=" << j << " causal=" << causal
                    << " divisor=" << divisor;
              }
            }
          }
        }
      }
    }
  }
  }
}

TEST(Kernels, EveryImplementationGivesThePipelineTheSameBits) {
  // A whole forward (projections, scores, softmax, dropout, context, output)
  // with shapes that are not multiples of any tile, once per implementation.
  IsaGuard guard;
  auto s = attnviz_test::state_from(R"({"d_model": 20, "d_out": 30, "num_heads": 3,
      "qkv_bias": true, "out_proj": true, "out_bias": true, "causal": true,
      "weights": {"init": "torch_linear", "seed": 5}, "embedding": {"init": "torch_randn", "seed": 6},
      "dropout": {"p": 0.25, "training": true, "seed": 7}})");
  s.tokens.clear();
  for (int i = 0; i < 37; ++i) s.tokens.push_back("t" + std::to_string(i));
  s.key_padding.assign(37, 1);
  s.key_padding[4] = 0;
  ASSERT_TRUE(k::set_isa(Isa::portable));
  attnviz::Pipeline ref;
  attnviz_test::run(&ref, s);
  for (Isa isa : supported()) {
    ASSERT_TRUE(k::set_isa(isa));
    attnviz::Pipeline p;
    attnviz_test::run(&p, s);
    for (int st = 0; st < attnviz::kStageCount; ++st) {
      const auto stage = static_cast<attnviz::Stage>(st);
      const int heads = attnviz::stage_is_per_head(stage) ? 3 : 1;
      for (int h = 0; h < heads; ++h) {
        const attnviz::Tensor* a = p.matrix(stage, h);
        const attnviz::Tensor* b = ref.matrix(stage, h);
        ASSERT_EQ(a == nullptr, b == nullptr);
        if (a != nullptr) {
          EXPECT_TRUE(attnviz::tensors_bitwise_equal(*a, *b))
              << k::isa_name(isa) << ": " << attnviz::stage_name(stage) << " head " << h;
        }
      }
    }
  }
}

TEST(Kernels, SameBytesIsMemcmpEqualsZero) {
  // Lengths around the 64-byte blocks; one flipped bit anywhere is seen, and
  // +0 / −0 (equal as floats) differ as bytes.
  for (size_t n : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(65), size_t(130), size_t(4096 + 3)}) {
    std::vector<unsigned char> a(n + 1), b(n + 1);
    for (size_t i = 0; i < a.size(); ++i) a[i] = b[i] = static_cast<unsigned char>(i * 131 + 7);
    EXPECT_TRUE(k::same_bytes(a.data(), b.data(), n)) << n;
    for (size_t i = 0; i < n; i += (n > 200 ? 97 : 1)) {
      for (int bit : {0, 7}) {
        b[i] ^= static_cast<unsigned char>(1u << bit);
        EXPECT_FALSE(k::same_bytes(a.data(), b.data(), n)) << n << " byte " << i << " bit " << bit;
        EXPECT_EQ(k::same_bytes(a.data(), b.data(), n), std::memcmp(a.data(), b.data(), n) == 0);
        b[i] ^= static_cast<unsigned char>(1u << bit);
      }
    }
    b[n] ^= 1;  // past the end: not compared
    EXPECT_TRUE(k::same_bytes(a.data(), b.data(), n)) << n;
  }
  const float pz = 0.0f, nz = -0.0f;
  EXPECT_FALSE(k::same_bytes(&pz, &nz, sizeof(float)));
}

TEST(Kernels, TheBestImplementationIsTheDefault) {
  // Native x86-64 with AVX2 runs the AVX2 kernels, the wasm build SIMD128.
  std::printf("kernels: %s\n", k::isa_name(k::active_isa()));
  if (k::isa_supported(Isa::avx2)) {
    EXPECT_EQ(k::active_isa(), Isa::avx2);
  }
  if (k::isa_supported(Isa::wasm_simd128)) {
    EXPECT_EQ(k::active_isa(), Isa::wasm_simd128);
  }
}

}  // namespace
