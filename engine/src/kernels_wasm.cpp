// WebAssembly SIMD128 kernels: compiled only when the wasm build passes
// -msimd128 (engine/CMakeLists.txt). 4 float lanes; no FMA (LLVM 14 has no
// relaxed SIMD), so each term is a multiply then an add, which gives the same
// bits as the portable loops and AVX2 (kernels.h, contract 2). exp's fused
// multiply-adds are emulated in f64x2 lanes exactly like kernels::fma_f32.
//
// [SECTION] matrix product micro-kernel (4 rows × 12 columns)
// [SECTION] exp, softmax, masked rows
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>

#include <cstddef>
#include <cstdint>

#include "kernels_gemm.h"
#include "kernels_internal.h"

namespace attnviz {
namespace kernels {

float exp_f32(float x);  // kernels.h (portable; used for row tails)

namespace detail {
namespace {

// ---- [SECTION] matrix product micro-kernel -------------------------------------------

// MR × (4·NV) accumulators in v128 registers (x86 engines have 16 of them:
// 4 × 3 accumulators + 3 of B + 1 broadcast of A).
template <int NV>
struct WasmKernel {
  static constexpr int NR = 4 * NV;
  static constexpr int MR = 4;

  template <int R>
  static void run(const float* const* a, int klen, const float* b, size_t ldb, float* const* c,
                  bool first) {
    v128_t acc[R][NV];
    for (int r = 0; r < R; ++r) {
      for (int v = 0; v < NV; ++v) acc[r][v] = first ? wasm_f32x4_splat(0.0f) : wasm_v128_load(c[r] + 4 * v);
    }
    for (int kk = 0; kk < klen; ++kk) {
      const float* bk = b + static_cast<size_t>(kk) * ldb;
      v128_t bv[NV];
      for (int v = 0; v < NV; ++v) bv[v] = wasm_v128_load(bk + 4 * v);
      for (int r = 0; r < R; ++r) {
        const v128_t av = wasm_v128_load32_splat(a[r] + kk);
        for (int v = 0; v < NV; ++v) acc[r][v] = wasm_f32x4_add(acc[r][v], wasm_f32x4_mul(av, bv[v]));
      }
    }
    for (int r = 0; r < R; ++r) {
      for (int v = 0; v < NV; ++v) wasm_v128_store(c[r] + 4 * v, acc[r][v]);
    }
  }

  static void add_bias(float* c, const float* bias, int n) {
    int j = 0;
    for (; j + 4 <= n; j += 4) wasm_v128_store(c + j, wasm_f32x4_add(wasm_v128_load(c + j), wasm_v128_load(bias + j)));
    for (; j < n; ++j) c[j] = c[j] + bias[j];
  }
};

// ---- [SECTION] exp, softmax, masked rows ---------------------------------------------

inline v128_t hi_half(v128_t x) { return wasm_i32x4_shuffle(x, x, 2, 3, 0, 1); }

// float32(a·b + c) computed in double, lane by lane: kernels::fma_f32.
inline v128_t fma_emu(v128_t a, v128_t b, v128_t c) {
  const v128_t lo = wasm_f64x2_add(wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(a), wasm_f64x2_promote_low_f32x4(b)),
                                   wasm_f64x2_promote_low_f32x4(c));
  const v128_t hi = wasm_f64x2_add(
      wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(hi_half(a)), wasm_f64x2_promote_low_f32x4(hi_half(b))),
      wasm_f64x2_promote_low_f32x4(hi_half(c)));
  return wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(lo), wasm_f32x4_demote_f64x2_zero(hi), 0, 1, 4, 5);
}

// kernels::exp_f32 on 4 lanes, step for step.
inline v128_t exp4(v128_t d) {
  const v128_t nan_lanes = wasm_f32x4_ne(d, d);
  const v128_t under = wasm_f32x4_lt(d, wasm_f32x4_splat(-104.0f));
  const v128_t over = wasm_f32x4_gt(d, wasm_f32x4_splat(100.0f));
  // clamp (NaN lanes become -104 here and are replaced at the end)
  v128_t dc = wasm_v128_bitselect(wasm_f32x4_splat(-104.0f), d, wasm_v128_or(under, nan_lanes));
  dc = wasm_v128_bitselect(wasm_f32x4_splat(100.0f), dc, over);
  const v128_t t = wasm_f32x4_nearest(
      wasm_f32x4_mul(dc, wasm_f32x4_splat(1.442695040888963407359924681001892137426645954152985934135449406931f)));
  const v128_t q = wasm_i32x4_trunc_sat_f32x4(t);
  const v128_t qf = wasm_f32x4_convert_i32x4(q);
  v128_t s = fma_emu(qf, wasm_f32x4_splat(-0.693145751953125f), dc);
  s = fma_emu(qf, wasm_f32x4_splat(-1.428606765330187045e-06f), s);
  v128_t u = wasm_f32x4_splat(0.000198527617612853646278381f);
  u = fma_emu(u, s, wasm_f32x4_splat(0.00139304355252534151077271f));
  u = fma_emu(u, s, wasm_f32x4_splat(0.00833336077630519866943359f));
  u = fma_emu(u, s, wasm_f32x4_splat(0.0416664853692054748535156f));
  u = fma_emu(u, s, wasm_f32x4_splat(0.166666671633720397949219f));
  u = fma_emu(u, s, wasm_f32x4_splat(0.5f));
  u = wasm_f32x4_add(wasm_f32x4_splat(1.0f), fma_emu(wasm_f32x4_mul(s, s), u, s));
  const v128_t half = wasm_i32x4_shr(q, 1);
  const v128_t bias = wasm_i32x4_splat(0x7f);
  const v128_t p1 = wasm_i32x4_shl(wasm_i32x4_add(half, bias), 23);
  const v128_t p2 = wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_sub(q, half), bias), 23);
  v128_t r = wasm_f32x4_mul(wasm_f32x4_mul(u, p1), p2);
  r = wasm_v128_bitselect(wasm_f32x4_splat(0.0f), r, under);
  r = wasm_v128_bitselect(wasm_f32x4_splat(__builtin_inff()), r, over);
  return wasm_v128_bitselect(wasm_i32x4_splat(0x7fc00000), r, nan_lanes);
}

inline float max_row(const float* x, int n) {
  v128_t mx = wasm_f32x4_splat(-__builtin_inff());
  v128_t nan_any = wasm_i32x4_splat(0);
  int j = 0;
  for (; j + 4 <= n; j += 4) {
    const v128_t v = wasm_v128_load(x + j);
    nan_any = wasm_v128_or(nan_any, wasm_f32x4_ne(v, v));
    mx = wasm_f32x4_pmax(mx, v);
  }
  if (wasm_v128_any_true(nan_any)) return __builtin_nanf("");
  float m = wasm_f32x4_extract_lane(mx, 0);
  const float l1 = wasm_f32x4_extract_lane(mx, 1), l2 = wasm_f32x4_extract_lane(mx, 2),
              l3 = wasm_f32x4_extract_lane(mx, 3);
  m = l1 > m ? l1 : m;
  m = l2 > m ? l2 : m;
  m = l3 > m ? l3 : m;
  for (; j < n; ++j) {
    if (x[j] != x[j]) return __builtin_nanf("");
    if (x[j] > m) m = x[j];
  }
  return m;
}

}  // namespace

void gemm_wasm(const GemmArgs& g) { gemm_blocked<WasmKernel<3>>(g); }

void softmax_row_wasm(const float* x, float* y, int n, bool safe) {
  if (n <= 0) return;
  const float neg_inf = -__builtin_inff();
  if (safe) {
    bool all_neg_inf = true;
    for (int j = 0; j < n && all_neg_inf; ++j) all_neg_inf = x[j] == neg_inf;
    if (all_neg_inf) {
      for (int j = 0; j < n; ++j) y[j] = 0.0f;
      return;
    }
  }
  const float m = max_row(x, n);
  const v128_t mv = wasm_f32x4_splat(m);
  const bool m_finite = m - m == 0.0f;
  int j = 0;
  for (; j + 4 <= n; j += 4) {
    const v128_t v = wasm_v128_load(x + j);
    if (m_finite && wasm_i32x4_all_true(wasm_f32x4_eq(v, wasm_f32x4_splat(neg_inf)))) {
      wasm_v128_store(y + j, wasm_f32x4_splat(0.0f));  // exp(−inf) = 0 (masked keys)
    } else {
      wasm_v128_store(y + j, exp4(wasm_f32x4_sub(v, mv)));
    }
  }
  for (; j < n; ++j) y[j] = exp_f32(x[j] - m);
  // sum_f32_torch: lanes 0-3 and 4-7 as two vectors.
  float sum;
  if (n < 8) {
    sum = y[0];
    for (int t = 1; t < n; ++t) sum = sum + y[t];
  } else {
    v128_t lo = wasm_v128_load(y), hi = wasm_v128_load(y + 4);
    int d = 8;
    for (; d + 8 <= n; d += 8) {
      lo = wasm_f32x4_add(lo, wasm_v128_load(y + d));
      hi = wasm_f32x4_add(hi, wasm_v128_load(y + d + 4));
    }
    float lane[8];
    wasm_v128_store(lane, lo);
    wasm_v128_store(lane + 4, hi);
    for (int t = 0; d + t < n; ++t) lane[t] = lane[t] + y[d + t];
    const float a0 = lane[0] + lane[4], a1 = lane[1] + lane[5];
    const float a2 = lane[2] + lane[6], a3 = lane[3] + lane[7];
    sum = (a0 + a2) + (a1 + a3);
  }
  const float inv = 1.0f / sum;
  const v128_t iv = wasm_f32x4_splat(inv);
  j = 0;
  for (; j + 4 <= n; j += 4) wasm_v128_store(y + j, wasm_f32x4_mul(wasm_v128_load(y + j), iv));
  for (; j < n; ++j) y[j] = y[j] * inv;
}

void masked_row_wasm(const float* scores, float* y, int n, int i, float divisor, bool causal,
                     const uint8_t* key_padded, float fill) {
  const v128_t dv = wasm_f32x4_splat(divisor);
  const v128_t fv = wasm_f32x4_splat(fill);
  const v128_t iv = wasm_i32x4_splat(i);
  int j = 0;
  for (; j + 4 <= n; j += 4) {
    if (causal && j > i) {
      wasm_v128_store(y + j, fv);
      continue;
    }
    v128_t m = wasm_i32x4_splat(0);
    if (causal) m = wasm_i32x4_gt(wasm_i32x4_make(j, j + 1, j + 2, j + 3), iv);
    if (key_padded != nullptr) {
      const v128_t pad = wasm_i32x4_make(key_padded[j], key_padded[j + 1], key_padded[j + 2], key_padded[j + 3]);
      m = wasm_v128_or(m, wasm_i32x4_ne(pad, wasm_i32x4_splat(0)));
    }
    const v128_t v = wasm_f32x4_div(wasm_v128_load(scores + j), dv);
    wasm_v128_store(y + j, wasm_v128_bitselect(fv, v, m));
  }
  for (; j < n; ++j) {
    const bool masked = (causal && j > i) || (key_padded != nullptr && key_padded[j] != 0);
    y[j] = masked ? fill : scores[j] / divisor;
  }
}

}  // namespace detail
}  // namespace kernels
}  // namespace attnviz
#endif  // __wasm_simd128__
