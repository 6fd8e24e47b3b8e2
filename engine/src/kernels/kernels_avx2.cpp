// AVX2 kernels (x86-64): compiled with -mavx2 (engine/CMakeLists.txt) and
// called through kernels.cpp only when the CPU reports AVX2, so the binary
// still runs on any x86-64. No FMA instructions: a multiply then an add per
// term, which gives the same bits as the portable loops and wasm SIMD128
// (kernels.h, contract 2). On the AMD EPYC (Zen 4) this project measures on,
// separate multiply and add pipes make that as fast as FMA.
//
// Only intrinsics and internal-linkage code here (see kernels_internal.h).
//
// [SECTION] matrix product micro-kernel (6 rows × 16 columns)
// [SECTION] exp, softmax, masked rows
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/kernels_gemm.h"
#include "kernels/kernels_internal.h"

namespace attnviz {
namespace kernels {

float exp_f32(float x);  // kernels.h (portable; used for row tails)

namespace detail {
namespace {

// ---- [SECTION] matrix product micro-kernel -------------------------------------------

// 6 × 16 accumulators = 12 ymm registers; per k: 2 loads of B, 6 broadcasts
// of A, 12 multiplies, 12 adds.
struct Avx2Kernel {
  static constexpr int NR = 16;
  static constexpr int MR = 6;
  static constexpr bool kPackA = false;  // x86 addressing makes a[r] + kk free
  static void run_packed(const float*, int, const float*, size_t, float* const*, bool) {}

  template <int R>
  static void run(const float* const* a, int klen, const float* b, size_t ldb, float* const* c,
                  bool first) {
    __m256 acc0[R], acc1[R];
    for (int r = 0; r < R; ++r) {
      acc0[r] = first ? _mm256_setzero_ps() : _mm256_loadu_ps(c[r]);
      acc1[r] = first ? _mm256_setzero_ps() : _mm256_loadu_ps(c[r] + 8);
    }
    for (int kk = 0; kk < klen; ++kk) {
      const float* bk = b + static_cast<size_t>(kk) * ldb;
      const __m256 b0 = _mm256_loadu_ps(bk);
      const __m256 b1 = _mm256_loadu_ps(bk + 8);
      for (int r = 0; r < R; ++r) {
        const __m256 av = _mm256_broadcast_ss(a[r] + kk);
        acc0[r] = _mm256_add_ps(acc0[r], _mm256_mul_ps(av, b0));
        acc1[r] = _mm256_add_ps(acc1[r], _mm256_mul_ps(av, b1));
      }
    }
    for (int r = 0; r < R; ++r) {
      _mm256_storeu_ps(c[r], acc0[r]);
      _mm256_storeu_ps(c[r] + 8, acc1[r]);
    }
  }

  static void add_bias(float* c, const float* bias, int n) {
    int j = 0;
    for (; j + 8 <= n; j += 8) _mm256_storeu_ps(c + j, _mm256_add_ps(_mm256_loadu_ps(c + j), _mm256_loadu_ps(bias + j)));
    for (; j < n; ++j) c[j] = c[j] + bias[j];
  }
};

// ---- [SECTION] exp, softmax, masked rows ---------------------------------------------

// The polynomial runs in double lanes holding float32 values: a·b + c of
// floats is exact-product-then-one-rounding in double, and rounding that to
// float32 (cvtpd_ps) gives kernels::fma_f32 exactly. rnd() rounds a double
// lane to float32 precision and back.
inline __m256d rnd(__m256d x) { return _mm256_cvtps_pd(_mm256_cvtpd_ps(x)); }
inline __m256d fma_emu(__m256d a, __m256d b, __m256d c) { return rnd(_mm256_add_pd(_mm256_mul_pd(a, b), c)); }

// kernels::exp_f32 on N × 8 lanes, step for step. The steps run in lockstep
// over the N vectors: each emulated FMA is a chain of four dependent
// instructions, so independent lanes are what keeps the pipes busy.
template <int N>
inline void exp8_n(const __m256* d, __m256* out) {
  constexpr int H = 2 * N;  // 4-lane double halves
  __m256 dc[N];
  __m256i q[N];
  __m256d qf[H], s[H], u[H];
  for (int t = 0; t < N; ++t) {
    dc[t] = _mm256_min_ps(_mm256_max_ps(d[t], _mm256_set1_ps(-104.0f)), _mm256_set1_ps(100.0f));
    const __m256 r = _mm256_round_ps(_mm256_mul_ps(dc[t], _mm256_set1_ps(1.442695040888963407359924681001892137426645954152985934135449406931f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    q[t] = _mm256_cvtps_epi32(r);
    const __m256 qff = _mm256_cvtepi32_ps(q[t]);
    qf[2 * t] = _mm256_cvtps_pd(_mm256_castps256_ps128(qff));
    qf[2 * t + 1] = _mm256_cvtps_pd(_mm256_extractf128_ps(qff, 1));
    // s = fma(qf, −l2u, d), exact in float32 (kernels.h, exp_f32); then s = fma(qf, −l2l, s)
    const __m256 s0 = _mm256_add_ps(_mm256_mul_ps(qff, _mm256_set1_ps(-0.693145751953125f)), dc[t]);
    s[2 * t] = _mm256_cvtps_pd(_mm256_castps256_ps128(s0));
    s[2 * t + 1] = _mm256_cvtps_pd(_mm256_extractf128_ps(s0, 1));
  }
  for (int k = 0; k < H; ++k) s[k] = fma_emu(qf[k], _mm256_set1_pd(static_cast<double>(-1.428606765330187045e-06f)), s[k]);
  for (int k = 0; k < H; ++k) u[k] = _mm256_set1_pd(static_cast<double>(0.000198527617612853646278381f));
  for (const ExpBinadeStep& st : kExpBinades) {  // u1 … u4
    const __m256d cm = _mm256_set1_pd(st.c_plus_m), m = _mm256_set1_pd(st.m);
    for (int k = 0; k < H; ++k) u[k] = _mm256_sub_pd(_mm256_add_pd(_mm256_mul_pd(u[k], s[k]), cm), m);
  }
  for (int k = 0; k < H; ++k) u[k] = fma_emu(u[k], s[k], _mm256_set1_pd(0.5));  // u5 spans two binades
  __m128 t4[H];
  for (int k = 0; k < H; ++k) {
    const __m256d ss = rnd(_mm256_mul_pd(s[k], s[k]));  // the float32 product s·s
    t4[k] = _mm_add_ps(_mm_set1_ps(1.0f), _mm256_cvtpd_ps(_mm256_add_pd(_mm256_mul_pd(ss, u[k]), s[k])));
  }
  for (int t = 0; t < N; ++t) {
    const __m256 uu = _mm256_insertf128_ps(_mm256_castps128_ps256(t4[2 * t]), t4[2 * t + 1], 1);
    const __m256i half = _mm256_srai_epi32(q[t], 1);
    const __m256i bias = _mm256_set1_epi32(0x7f);
    const __m256 p1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(half, bias), 23));
    const __m256 p2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(q[t], half), bias), 23));
    __m256 r = _mm256_mul_ps(_mm256_mul_ps(uu, p1), p2);
    r = _mm256_blendv_ps(r, _mm256_setzero_ps(), _mm256_cmp_ps(d[t], _mm256_set1_ps(-104.0f), _CMP_LT_OQ));
    r = _mm256_blendv_ps(r, _mm256_set1_ps(__builtin_inff()), _mm256_cmp_ps(d[t], _mm256_set1_ps(100.0f), _CMP_GT_OQ));
    out[t] = _mm256_blendv_ps(r, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000)), _mm256_cmp_ps(d[t], d[t], _CMP_UNORD_Q));
  }
}

// max_f32_torch: NaN if any lane is NaN, else the largest value.
inline float max_row(const float* x, int n) {
  __m256 mx = _mm256_set1_ps(-__builtin_inff());
  __m256 nan_any = _mm256_setzero_ps();
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 v = _mm256_loadu_ps(x + j);
    nan_any = _mm256_or_ps(nan_any, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    mx = _mm256_max_ps(mx, v);
  }
  if (_mm256_movemask_ps(nan_any) != 0) return __builtin_nanf("");
  float lanes[8];
  _mm256_storeu_ps(lanes, mx);
  float m = lanes[0];
  for (int t = 1; t < 8; ++t) m = lanes[t] > m ? lanes[t] : m;
  for (; j < n; ++j) {
    if (x[j] != x[j]) return __builtin_nanf("");
    if (x[j] > m) m = x[j];
  }
  return m;
}

}  // namespace

void gemm_avx2(const GemmArgs& g) { gemm_blocked<Avx2Kernel>(g); }

void exp_row_avx2(const float* x, float* y, int n) {
  int j = 0;
  for (; j + 32 <= n; j += 32) {
    __m256 v[4];
    for (int t = 0; t < 4; ++t) v[t] = _mm256_loadu_ps(x + j + 8 * t);
    exp8_n<4>(v, v);
    for (int t = 0; t < 4; ++t) _mm256_storeu_ps(y + j + 8 * t, v[t]);
  }
  for (; j + 8 <= n; j += 8) {
    __m256 v = _mm256_loadu_ps(x + j);
    exp8_n<1>(&v, &v);
    _mm256_storeu_ps(y + j, v);
  }
  for (; j < n; ++j) y[j] = exp_f32(x[j]);
}

float softmax_exps_avx2(const float* x, float* e, int n, float ceiling) {
  const float neg_inf = -__builtin_inff();
  const float mx = max_row(x, n);
  if (ceiling == ceiling && !(mx <= ceiling)) return mx;
  const float m = ceiling == ceiling ? ceiling : mx;
  const __m256 mv = _mm256_set1_ps(m);
  const bool m_finite = m - m == 0.0f;
  const __m256 ninf = _mm256_set1_ps(neg_inf);
  int j = 0;
  for (; j + 32 <= n; j += 32) {
    __m256 v[4];
    int all_masked = 0xff;
    for (int t = 0; t < 4; ++t) {
      v[t] = _mm256_loadu_ps(x + j + 8 * t);
      all_masked &= _mm256_movemask_ps(_mm256_cmp_ps(v[t], ninf, _CMP_EQ_OQ));
    }
    // 32 −inf (masked keys) under a finite max: exp(−inf) = 0.
    if (m_finite && all_masked == 0xff) {
      for (int t = 0; t < 4; ++t) _mm256_storeu_ps(e + j + 8 * t, _mm256_setzero_ps());
      continue;
    }
    for (int t = 0; t < 4; ++t) v[t] = _mm256_sub_ps(v[t], mv);
    exp8_n<4>(v, v);
    for (int t = 0; t < 4; ++t) _mm256_storeu_ps(e + j + 8 * t, v[t]);
  }
  for (; j + 8 <= n; j += 8) {
    __m256 v = _mm256_sub_ps(_mm256_loadu_ps(x + j), mv);
    exp8_n<1>(&v, &v);
    _mm256_storeu_ps(e + j, v);
  }
  for (; j < n; ++j) e[j] = exp_f32(x[j] - m);
  return mx;
}

void softmax_normalize_avx2(const float* e, float* y, int n) {
  // sum_f32_torch: 8 lanes, then (0+4, 1+5, 2+6, 3+7), pairs, the last two.
  float sum;
  if (n < 8) {
    sum = e[0];
    for (int t = 1; t < n; ++t) sum = sum + e[t];
  } else {
    __m256 acc = _mm256_loadu_ps(e);
    int d = 8;
    for (; d + 8 <= n; d += 8) acc = _mm256_add_ps(acc, _mm256_loadu_ps(e + d));
    float lane[8];
    _mm256_storeu_ps(lane, acc);
    for (int t = 0; d + t < n; ++t) lane[t] = lane[t] + e[d + t];
    const float a0 = lane[0] + lane[4], a1 = lane[1] + lane[5];
    const float a2 = lane[2] + lane[6], a3 = lane[3] + lane[7];
    sum = (a0 + a2) + (a1 + a3);
  }
  const float inv = 1.0f / sum;
  const __m256 iv = _mm256_set1_ps(inv);
  int j = 0;
  for (; j + 8 <= n; j += 8) _mm256_storeu_ps(y + j, _mm256_mul_ps(_mm256_loadu_ps(e + j), iv));
  for (; j < n; ++j) y[j] = e[j] * inv;
}

void masked_row_avx2(const float* scores, float* y, int n, int i, float divisor, bool causal,
                     const uint8_t* key_padded, float fill) {
  const __m256 dv = _mm256_set1_ps(divisor);
  const __m256 fv = _mm256_set1_ps(fill);
  const __m256i iv = _mm256_set1_epi32(i);
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    if (causal && j > i) {  // the whole block lies above the diagonal
      _mm256_storeu_ps(y + j, fv);
      continue;
    }
    __m256 m = _mm256_setzero_ps();
    if (causal) m = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_add_epi32(_mm256_set1_epi32(j), lane), iv));
    if (key_padded != nullptr) {
      uint64_t bytes;
      std::memcpy(&bytes, key_padded + j, 8);
      const __m256i pad = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(bytes)));
      m = _mm256_or_ps(m, _mm256_castsi256_ps(_mm256_cmpgt_epi32(pad, _mm256_setzero_si256())));
    }
    const __m256 v = _mm256_div_ps(_mm256_loadu_ps(scores + j), dv);
    _mm256_storeu_ps(y + j, _mm256_blendv_ps(v, fv, m));
  }
  for (; j < n; ++j) {
    const bool masked = (causal && j > i) || (key_padded != nullptr && key_padded[j] != 0);
    y[j] = masked ? fill : scores[j] / divisor;
  }
}

}  // namespace detail
}  // namespace kernels
}  // namespace attnviz
