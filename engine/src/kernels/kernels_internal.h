// Internal to the engine: the instruction-set-specific kernel entry points
// behind kernels.h. kernels.cpp holds the portable versions and picks one set
// at run time (kernels::active_isa()); kernels_avx2.cpp (x86-64, compiled with
// -mavx2, called only when the CPU has AVX2) and kernels_wasm.cpp (WebAssembly
// with -msimd128) hold the vector ones. Every version computes the same bits:
// the arithmetic order of each output value is fixed by kernels.h, only the
// number of values computed side by side differs.
//
// This header must stay free of inline functions and templates that other
// translation units also use: kernels_avx2.cpp is compiled for AVX2, and an
// inline function emitted there could be picked by the linker for callers
// that run on CPUs without AVX2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace attnviz {
namespace kernels {
namespace detail {

// One matrix product C[rows] = A[rows] · B (+ bias), as matmul_rows.
struct GemmArgs {
  const float* a = nullptr;  // (M × K), row stride lda
  int lda = 0;
  const float* b = nullptr;  // (K × N), row stride ldb
  int ldb = 0;
  const float* bias = nullptr;  // (N) or null
  float* c = nullptr;           // (M × N), row stride ldc
  int ldc = 0;
  int k = 0, n = 0;
  const int* rows = nullptr;   // (num_rows) row indices into A and C
  int num_rows = 0;
  const int* k_end = nullptr;  // (num_rows) or null: terms k >= k_end[t] are exact zeros
  float* pack = nullptr;       // scratch of pack_floats(k, n) floats (64-byte aligned) or null
  float* apack = nullptr;      // scratch of apack_floats() floats (64-byte aligned) or null
};

// Floats of packing scratch the vector gemms can use for a (K × N) B.
size_t pack_floats(int k, int n);
// Floats of packing scratch for one row block of A (72 rows × a k-block of 256).
size_t apack_floats();

// SLEEF exp's Horner steps u1 … u4 (kernels::exp_f32): u <- fma(u, s, c).
// For every reduced argument |s| <= 0.35 each of these results lies in one
// binade [2^e, 2^(e+1)] (bounds beside exp_f32, checked by the test
// Kernels.ExpHornerStepsStayInOneBinade). There a fused multiply-add is
// three double operations, (u·s + (c + m)) − m with m = 1.5·2^(e+29):
// - u·s is exact (24 × 24 significant bits);
// - c + m is exact (c is a multiple of 2^(e−23), m's unit in the last place);
// - the add rounds the exact u·s + c + m once, to the nearest multiple of
//   2^(e−23): float32's spacing in that binade, ties to even alike (m is an
//   even multiple of it);
// - subtracting m is exact.
// So the result is the float32 fused multiply-add, bit for bit, with one
// instruction less than kernels::fma_f32 and without its rare double rounding.
// 1 / d when d is ±2^e with 1 / d a normal float (then x / d and x · (1 / d)
// are the same float for every x, infinities, NaN and zeros included: both
// round the one real value x · 2^−e), else 0.
inline float exact_reciprocal(float d) {
  uint32_t u;
  std::memcpy(&u, &d, sizeof u);
  const uint32_t exp = (u >> 23) & 0xffu;
  if ((u & 0x7fffffu) != 0 || exp < 1 || exp > 253) return 0.0f;  // not 2^e, or 1 / d subnormal / d not finite
  return 1.0f / d;
}

struct ExpBinadeStep {
  float c;          // SLEEF's coefficient
  double m;         // 1.5 · 2^(e+29)
  double c_plus_m;  // c + m, exact
};
constexpr ExpBinadeStep kExpBinades[4] = {
    {0.00139304355252534151077271f, 786432.0, static_cast<double>(0.00139304355252534151077271f) + 786432.0},  // e = −10
    {0.00833336077630519866943359f, 6291456.0, static_cast<double>(0.00833336077630519866943359f) + 6291456.0},  // e = −7
    {0.0416664853692054748535156f, 25165824.0, static_cast<double>(0.0416664853692054748535156f) + 25165824.0},  // e = −5
    {0.166666671633720397949219f, 100663296.0, static_cast<double>(0.166666671633720397949219f) + 100663296.0},  // e = −3
};

// The two halves of kernels::softmax_row over n >= 1 values, as
// kernels::softmax_exps and kernels::softmax_normalize (x, e and y may alias).
// The exps half returns max(x) (NaN if x has a NaN) and writes
// e_j = exp_f32(x_j − max); with a ceiling (not NaN) it writes
// e_j = exp_f32(x_j − ceiling) instead, and nothing unless max(x) <= ceiling
// (kernels::softmax_exps_under).
using SoftmaxExpsFn = float (*)(const float* x, float* e, int n, float ceiling);
using SoftmaxNormalizeFn = void (*)(const float* e, float* y, int n);
using GemmFn = void (*)(const GemmArgs& g);
// y_j = exp_f32(x_j) for n values, as kernels::exp_row (x, y may alias).
using ExpFn = void (*)(const float* x, float* y, int n);
using MaskedRowFn = void (*)(const float* scores, float* y, int n, int i, float divisor, bool causal,
                             const uint8_t* key_padded, float fill);

void gemm_portable(const GemmArgs& g);
float softmax_exps_portable(const float* x, float* e, int n, float ceiling);
void softmax_normalize_portable(const float* e, float* y, int n);
void exp_row_portable(const float* x, float* y, int n);
void masked_row_portable(const float* scores, float* y, int n, int i, float divisor, bool causal,
                         const uint8_t* key_padded, float fill);

#if defined(ATTNVIZ_HAVE_AVX2_KERNELS)
void gemm_avx2(const GemmArgs& g);
float softmax_exps_avx2(const float* x, float* e, int n, float ceiling);
void softmax_normalize_avx2(const float* e, float* y, int n);
void exp_row_avx2(const float* x, float* y, int n);
void masked_row_avx2(const float* scores, float* y, int n, int i, float divisor, bool causal,
                     const uint8_t* key_padded, float fill);
#endif

#if defined(__wasm_simd128__)
void gemm_wasm(const GemmArgs& g);
float softmax_exps_wasm(const float* x, float* e, int n, float ceiling);
void softmax_normalize_wasm(const float* e, float* y, int n);
void exp_row_wasm(const float* x, float* y, int n);
void masked_row_wasm(const float* scores, float* y, int n, int i, float divisor, bool causal,
                     const uint8_t* key_padded, float fill);
#endif

}  // namespace detail
}  // namespace kernels
}  // namespace attnviz
