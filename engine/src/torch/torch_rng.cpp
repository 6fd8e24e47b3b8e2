// PyTorch 1.13 CPU random number algorithms (see torch_rng.h and
// ../shared/notes/torch-rng.md).
//
// [SECTION] uniform draws
// [SECTION] normal: 16-wide Box-Muller (normal_fill_AVX2) and the scalar path
// [SECTION] nn.Linear init and dropout
#include "attnviz/torch_rng.h"

#include <cmath>
#include <cstring>
#include <utility>

#include "attnviz/kernels.h"

namespace attnviz {

using kernels::fma_f32;

// ---- [SECTION] uniform draws -----------------------------------------------

TorchGenerator::TorchGenerator(uint64_t seed)
    : engine_(static_cast<std::mt19937::result_type>(seed & 0xFFFFFFFFu)) {}

uint32_t TorchGenerator::next32() { return static_cast<uint32_t>(engine_()); }

std::vector<int64_t> TorchGenerator::randperm(int64_t n) {
  std::vector<int64_t> r(static_cast<size_t>(n > 0 ? n : 0));
  for (int64_t i = 0; i < n; ++i) r[static_cast<size_t>(i)] = i;
  for (int64_t i = 0; i + 1 < n; ++i) {
    const int64_t z = static_cast<int64_t>(next32() % static_cast<uint64_t>(n - i));
    std::swap(r[static_cast<size_t>(i)], r[static_cast<size_t>(z + i)]);
  }
  return r;
}

uint64_t TorchGenerator::next64() {
  const uint64_t hi = next32();
  const uint64_t lo = next32();
  return (hi << 32) | lo;
}

float TorchGenerator::uniform_float() {
  return static_cast<float>(next32() & 0xFFFFFFu) * (1.0f / 16777216.0f);
}

double TorchGenerator::uniform_double() {
  return static_cast<double>(next64() & ((uint64_t{1} << 53) - 1)) * (1.0 / 9007199254740992.0);
}

void TorchGenerator::rand(float* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = uniform_float();
}

void TorchGenerator::uniform(float* out, size_t n, double from, double to) {
  // uniform_kernel casts the bounds to float; uniform_real then computes
  // u·(to − from) + from, which the AVX2 build fuses into one rounding. In
  // double the product and the sum are exact, so one final rounding matches.
  const float from_f = static_cast<float>(from);
  const float to_f = static_cast<float>(to);
  const double range = static_cast<double>(to_f - from_f);
  for (size_t i = 0; i < n; ++i) {
    const double u = uniform_float();
    out[i] = static_cast<float>(u * range + static_cast<double>(from_f));
  }
}

// ---- [SECTION] normal --------------------------------------------------------
//
// normal_fill_16_AVX2 uses avx_mathfun.h's log256_ps and sincos256_ps
// (Cephes polynomials). PyTorch compiles them with -mavx2 -mfma and GCC fuses
// each multiply that feeds an add; fma_f32 marks exactly those places.

namespace {

float bits_to_float(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
uint32_t float_to_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

// log256_ps for one lane; x in (0, 1] here.
float cephes_logf(float x) {
  const bool invalid = !(x > 0.0f);
  const float min_norm_pos = bits_to_float(0x00800000u);
  if (x < min_norm_pos) x = min_norm_pos;
  uint32_t bits = float_to_bits(x);
  int imm0 = static_cast<int>(bits >> 23);
  bits = (bits & ~0x7f800000u) | float_to_bits(0.5f);
  x = bits_to_float(bits);
  imm0 -= 0x7f;
  float e = static_cast<float>(imm0);
  e = e + 1.0f;
  const bool lt = x < 0.707106781186547524f;  // cephes SQRTHF
  const float tmp = lt ? x : 0.0f;
  x = x - 1.0f;
  e = e - (lt ? 1.0f : 0.0f);
  x = x + tmp;
  const float z = x * x;
  float y = 7.0376836292E-2f;
  y = fma_f32(y, x, -1.1514610310E-1f);
  y = fma_f32(y, x, 1.1676998740E-1f);
  y = fma_f32(y, x, -1.2420140846E-1f);
  y = fma_f32(y, x, +1.4249322787E-1f);
  y = fma_f32(y, x, -1.6668057665E-1f);
  y = fma_f32(y, x, +2.0000714765E-1f);
  y = fma_f32(y, x, -2.4999993993E-1f);
  y = fma_f32(y, x, +3.3333331174E-1f);
  y = y * x;
  y = fma_f32(y, z, e * -2.12194440e-4f);  // y·z + e·q1, the first product fused
  y = fma_f32(-z, 0.5f, y);               // y − z·0.5
  x = fma_f32(e, 0.693359375f, x + y);    // (x + y) + e·q2
  if (invalid) return bits_to_float(float_to_bits(x) | 0xFFFFFFFFu);
  return x;
}

// sincos256_ps for one lane; x >= 0 here (theta = 2π·u).
void cephes_sincosf(float x, float* s, float* c) {
  uint32_t sign_bit_sin = float_to_bits(x) & 0x80000000u;
  x = bits_to_float(float_to_bits(x) & 0x7FFFFFFFu);
  float y = x * 1.27323954473516f;  // 4/π
  int imm2 = static_cast<int>(y);   // truncation (cvttps)
  imm2 = (imm2 + 1) & ~1;
  y = static_cast<float>(imm2);
  int imm4 = imm2;
  const uint32_t swap_sign_bit_sin = static_cast<uint32_t>(imm2 & 4) << 29;
  const bool poly_mask = (imm2 & 2) == 0;
  x = fma_f32(y, -0.78515625f, x);
  x = fma_f32(y, -2.4187564849853515625e-4f, x);
  x = fma_f32(y, -3.77489497744594108e-8f, x);
  imm4 = imm4 - 2;
  const uint32_t sign_bit_cos = static_cast<uint32_t>(~imm4 & 4) << 29;
  sign_bit_sin ^= swap_sign_bit_sin;

  const float z = x * x;
  float yc = 2.443315711809948E-005f;
  yc = fma_f32(yc, z, -1.388731625493765E-003f);
  yc = fma_f32(yc, z, 4.166664568298827E-002f);
  yc = yc * z;
  const float half_z = z * 0.5f;
  yc = fma_f32(yc, z, -half_z);  // yc·z − z·0.5, the first product fused
  yc = yc + 1.0f;

  float ys = -1.9515295891E-4f;
  ys = fma_f32(ys, z, 8.3321608736E-3f);
  ys = fma_f32(ys, z, -1.6666654611E-1f);
  ys = ys * z;
  ys = fma_f32(ys, x, x);

  // select: sine from ys when poly_mask, else from yc; cosine the other one
  const float ysin2 = poly_mask ? ys : 0.0f;
  const float ysin1 = poly_mask ? 0.0f : yc;
  ys = ys - ysin2;
  yc = yc - ysin1;
  const float sin_v = ysin1 + ysin2;
  const float cos_v = yc + ys;
  *s = bits_to_float(float_to_bits(sin_v) ^ sign_bit_sin);
  *c = bits_to_float(float_to_bits(cos_v) ^ sign_bit_cos);
}

// normal_fill_16_AVX2 on data[0..16): Box–Muller on pairs (j, j + 8).
void normal_fill_16(float* data) {
  const float two_pi = static_cast<float>(2.0f * 3.14159265358979323846);
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - data[j];
    const float u2 = data[j + 8];
    const float radius = std::sqrt(-2.0f * cephes_logf(u1));
    const float theta = two_pi * u2;
    float sin_t, cos_t;
    cephes_sincosf(theta, &sin_t, &cos_t);
    data[j] = radius * cos_t;      // · std (1) + mean (0)
    data[j + 8] = radius * sin_t;
  }
}

}  // namespace

void TorchGenerator::normal(float* out, size_t n) {
  if (n >= 16) {
    for (size_t i = 0; i < n; ++i) out[i] = uniform_float();
    for (size_t i = 0; i + 16 <= n; i += 16) normal_fill_16(out + i);
    if (n % 16 != 0) {  // PyTorch recomputes the last 16 from fresh draws
      float* tail = out + n - 16;
      for (int i = 0; i < 16; ++i) tail[i] = uniform_float();
      normal_fill_16(tail);
    }
    return;
  }
  // at::normal_distribution<double> with the generator's cached second sample
  for (size_t i = 0; i < n; ++i) {
    double value;
    if (has_cached_normal_) {
      has_cached_normal_ = false;
      value = cached_normal_;
    } else {
      const double u1 = uniform_double();
      const double u2 = uniform_double();
      const double r = std::sqrt(-2.0 * std::log(1.0 - u2));
      const double theta = 2.0 * 3.14159265358979323846 * u1;
      cached_normal_ = r * std::sin(theta);
      has_cached_normal_ = true;
      value = r * std::cos(theta);
    }
    out[i] = static_cast<float>(value * 1.0 + 0.0);
  }
}

// ---- [SECTION] nn.Linear init and dropout ------------------------------------

void TorchGenerator::linear_init(float* weight, float* bias, int in_features, int out_features) {
  // kaiming_uniform_(weight, a=math.sqrt(5)), in Python's double arithmetic
  const double a = std::sqrt(5.0);
  const double gain = std::sqrt(2.0 / (1.0 + a * a));
  const double std_dev = gain / std::sqrt(static_cast<double>(in_features));
  const double bound = std::sqrt(3.0) * std_dev;
  uniform(weight, static_cast<size_t>(in_features) * out_features, -bound, bound);
  if (bias != nullptr) {
    const double b = in_features > 0 ? 1.0 / std::sqrt(static_cast<double>(in_features)) : 0.0;
    uniform(bias, static_cast<size_t>(out_features), -b, b);
  }
}

void TorchGenerator::dropout_keep(uint8_t* keep, size_t n, double p) {
  if (p <= 0.0) {
    for (size_t i = 0; i < n; ++i) keep[i] = 1;
    return;
  }
  if (p >= 1.0) {
    for (size_t i = 0; i < n; ++i) keep[i] = 0;
    return;
  }
  const double keep_p = 1.0 - p;  // noise.bernoulli_(1 - p)
  for (size_t i = 0; i < n; ++i) keep[i] = uniform_double() < keep_p ? 1 : 0;
}

float dropout_scale(double p) {
  return 1.0f / static_cast<float>(1.0 - p);
}

}  // namespace attnviz
