// Reference kernels: plain loops with the arithmetic order documented in
// kernels.h. Shapes are in the header; this file only repeats them where a
// loop needs them.
#include "attnviz/kernels.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "attnviz/tensor.h"

namespace attnviz {

bool tensors_bitwise_equal(const Tensor& a, const Tensor& b) {
  if (a.rows != b.rows || a.cols != b.cols) return false;
  if (a.data.empty()) return true;
  return std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)) == 0;
}

namespace kernels {

// ---- matrix products -------------------------------------------------------

void matmul_rows(const float* a, int lda, const float* b, int ldb, const float* bias, float* c,
                 int ldc, int k, int n, const int* rows, int num_rows) {
  for (int t = 0; t < num_rows; ++t) {
    const int r = rows[t];
    const float* ar = a + static_cast<size_t>(r) * lda;  // (K)
    float* cr = c + static_cast<size_t>(r) * ldc;        // (N), the accumulators
    for (int j = 0; j < n; ++j) cr[j] = 0.0f;
    for (int kk = 0; kk < k; ++kk) {
      const float av = ar[kk];
      const float* br = b + static_cast<size_t>(kk) * ldb;  // (N)
      for (int j = 0; j < n; ++j) cr[j] = fma_f32(av, br[j], cr[j]);
    }
    if (bias != nullptr) {
      for (int j = 0; j < n; ++j) cr[j] = cr[j] + bias[j];
    }
  }
}

float dot_cell(const float* a, int inca, const float* b, int incb, int k, float* terms_out) {
  float acc = 0.0f;
  for (int kk = 0; kk < k; ++kk) {
    const float x = a[static_cast<size_t>(kk) * inca];
    const float y = b[static_cast<size_t>(kk) * incb];
    if (terms_out != nullptr) terms_out[kk] = x * y;
    acc = fma_f32(x, y, acc);
  }
  return acc;
}

// Eight cells of one output row side by side: c[j + t] = a · B[j + t, :].
// Each cell keeps its own accumulator and the order k = 0 ... K−1, exactly
// as dot_cell; interleaving independent chains only hides their latency.
static void dot_block8(const float* a, const float* b, int ldb, int k, float* out) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int kk = 0; kk < k; ++kk) {
    const float av = a[kk];
    for (int t = 0; t < 8; ++t) acc[t] = fma_f32(av, b[static_cast<size_t>(t) * ldb + kk], acc[t]);
  }
  for (int t = 0; t < 8; ++t) out[t] = acc[t];
}

void matmul_abt_rows(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int k,
                     int n, const int* rows, int num_rows) {
  for (int t = 0; t < num_rows; ++t) {
    const int i = rows[t];
    const float* ai = a + static_cast<size_t>(i) * lda;  // (K)
    float* ci = c + static_cast<size_t>(i) * ldc;        // (N)
    int j = 0;
    for (; j + 8 <= n; j += 8) dot_block8(ai, b + static_cast<size_t>(j) * ldb, ldb, k, ci + j);
    for (; j < n; ++j) ci[j] = dot_cell(ai, 1, b + static_cast<size_t>(j) * ldb, 1, k, nullptr);
  }
}

void matmul_abt_cols(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int k,
                     int m, const int* cols, int num_cols) {
  for (int t = 0; t < num_cols; ++t) {
    const int j = cols[t];
    const float* bj = b + static_cast<size_t>(j) * ldb;  // (K)
    for (int i = 0; i < m; ++i) {
      c[static_cast<size_t>(i) * ldc + j] =
          dot_cell(a + static_cast<size_t>(i) * lda, 1, bj, 1, k, nullptr);
    }
  }
}

// ---- elementwise -----------------------------------------------------------

void div_scalar(const float* x, int incx, float* y, int incy, int n, float divisor) {
  for (int i = 0; i < n; ++i) y[static_cast<size_t>(i) * incy] = x[static_cast<size_t>(i) * incx] / divisor;
}

void masked_fill_row(const float* x, float* y, int n, int i, bool causal,
                     const uint8_t* key_padded, float fill) {
  for (int j = 0; j < n; ++j) y[j] = is_masked(i, j, causal, key_padded) ? fill : x[j];
}

// ---- softmax ---------------------------------------------------------------

namespace {

float pow2i(int e) {  // 2^e for -126 <= e <= 127, built from the exponent bits
  const uint32_t bits = static_cast<uint32_t>(e + 0x7f) << 23;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace

// SLEEF 3.x xexpf (the u10 variant), which PyTorch's Vectorized<float>::exp
// calls on AVX2. vmla is a fused multiply-add there, hence fma_f32 here.
float exp_f32(float d) {
  if (std::isnan(d)) return std::numeric_limits<float>::quiet_NaN();
  if (d < -104.0f) return 0.0f;
  if (d > 100.0f) return std::numeric_limits<float>::infinity();
  const float r_ln2 = 1.442695040888963407359924681001892137426645954152985934135449406931f;
  const float l2u = 0.693145751953125f;
  const float l2l = 1.428606765330187045e-06f;
  const int q = static_cast<int>(std::nearbyint(d * r_ln2));  // round half to even
  const float qf = static_cast<float>(q);
  float s = fma_f32(qf, -l2u, d);
  s = fma_f32(qf, -l2l, s);
  float u = 0.000198527617612853646278381f;
  u = fma_f32(u, s, 0.00139304355252534151077271f);
  u = fma_f32(u, s, 0.00833336077630519866943359f);
  u = fma_f32(u, s, 0.0416664853692054748535156f);
  u = fma_f32(u, s, 0.166666671633720397949219f);
  u = fma_f32(u, s, 0.5f);
  u = 1.0f + fma_f32(s * s, u, s);
  const int half = q >> 1;  // arithmetic shift, as vsra
  return (u * pow2i(half)) * pow2i(q - half);
}

float sum_f32_torch(const float* x, int n) {
  if (n <= 0) return 0.0f;
  if (n < 8) {
    float s = x[0];
    for (int i = 1; i < n; ++i) s = s + x[i];
    return s;
  }
  float lane[8];
  for (int k = 0; k < 8; ++k) lane[k] = x[k];
  int d = 8;
  for (; d + 8 <= n; d += 8) {
    for (int k = 0; k < 8; ++k) lane[k] = lane[k] + x[d + k];
  }
  for (int k = 0; d + k < n; ++k) lane[k] = lane[k] + x[d + k];
  const float a0 = lane[0] + lane[4], a1 = lane[1] + lane[5];
  const float a2 = lane[2] + lane[6], a3 = lane[3] + lane[7];
  return (a0 + a2) + (a1 + a3);
}

float max_f32_torch(const float* x, int n) {
  float m = -std::numeric_limits<float>::infinity();
  for (int i = 0; i < n; ++i) {
    if (std::isnan(x[i])) return std::numeric_limits<float>::quiet_NaN();
    if (x[i] > m) m = x[i];
  }
  return m;
}

void softmax_row(const float* x, float* y, int n, bool safe) {
  if (n <= 0) return;
  if (safe) {
    bool all_neg_inf = true;
    for (int j = 0; j < n && all_neg_inf; ++j) {
      all_neg_inf = x[j] == -std::numeric_limits<float>::infinity();
    }
    if (all_neg_inf) {
      for (int j = 0; j < n; ++j) y[j] = 0.0f;
      return;
    }
  }
  const float m = max_f32_torch(x, n);
  for (int j = 0; j < n; ++j) y[j] = exp_f32(x[j] - m);
  const float inv = 1.0f / sum_f32_torch(y, n);
  for (int j = 0; j < n; ++j) y[j] = y[j] * inv;
}

// ---- dropout ---------------------------------------------------------------

void dropout_row(const float* w, const uint8_t* keep, float* y, int n, float scale) {
  for (int j = 0; j < n; ++j) y[j] = w[j] * (keep[j] ? scale : 0.0f);
}

}  // namespace kernels
}  // namespace attnviz
