// attnviz/kernels.h: every floating-point operation of the attention pipeline.
//
// Plain functions over plain row-major buffers (see tensor.h for the memory
// convention); every argument documents its shape. The pipeline routes all of
// its arithmetic through these few functions, so a faster implementation
// (SIMD, cache blocking) replaces this one file without touching the pipeline.
//
// Contract that any replacement must keep (the incremental pipeline and its
// tests rely on it):
//   1. Row independence: an output row (or cell) is computed with the same
//      arithmetic, in the same order, whichever subset of rows/columns is
//      requested, so a partial recompute is bitwise equal to a full one.
//   2. Matmul semantics: each output cell is a float32 accumulator updated in
//      order k = 0, 1, ..., K−1 by a fused multiply-add, then the bias (if any)
//      is added with one float32 addition. This is OpenBLAS's sgemm (what
//      PyTorch uses here) for K up to its block size (a few hundred); beyond
//      that, or with other BLAS libraries, PyTorch's sums differ in rounding
//      (typically by a few float32 ulps of the largest partial sum).
//      Exact zero terms never change an accumulator (true of any order).
//   3. Softmax semantics are torch.softmax on CPU with AVX2 (see softmax_row).
//
// Fused multiply-add: fma_f32 evaluates a·b + c with the product exact and one
// rounding (in double, then to float). It equals a true fused multiply-add
// except when the double sum itself had to round and that lands exactly on a
// float32 rounding midpoint (probability about 2^-29 per operation; never seen
// in the tests). Native and WebAssembly builds compute identical bits.
#pragma once

#include <cstdint>

namespace attnviz {
namespace kernels {

inline float fma_f32(float a, float b, float c) {
  return static_cast<float>(static_cast<double>(a) * static_cast<double>(b) +
                            static_cast<double>(c));
}

// ---- matrix products -------------------------------------------------------

// C[r, :] = A[r, :] · B (+ bias) for every r in rows[0 .. num_rows).
//   a:    (M × K), row stride lda
//   b:    (K × N), row stride ldb
//   bias: (N) or nullptr
//   c:    (M × N), row stride ldc (must not alias a or b)
// Used for Q/K/V = X·W (+b), context = dropped·V_h, output = concat·W_o (+b_o).
void matmul_rows(const float* a, int lda, const float* b, int ldb, const float* bias, float* c,
                 int ldc, int k, int n, const int* rows, int num_rows);

// C[i, j] = A[i, :] · B[j, :]  (that is A·Bᵀ) for every i in rows, all j < N.
//   a: (M × K) stride lda;  b: (N × K) stride ldb;  c: (M × N) stride ldc
// Used for scores = Q_h · K_hᵀ.
void matmul_abt_rows(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int k,
                     int n, const int* rows, int num_rows);

// The same product for every j in cols and all i < M (whole columns of C).
void matmul_abt_cols(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int k,
                     int m, const int* cols, int num_cols);

// One cell of the above, with its K products written to terms_out (K) if not
// null; returns the cell value (identical to what the matmul kernels store).
float dot_cell(const float* a, int inca, const float* b, int incb, int k, float* terms_out);

// ---- elementwise -----------------------------------------------------------

// y[i·incy] = x[i·incx] / divisor for i < n (float32 division, like
// `scores / math.sqrt(d)` on a float tensor).
void div_scalar(const float* x, int incx, float* y, int incy, int n, float divisor);

// Whether cell (i, j) of the (S × S) score matrix is masked: causal and j > i,
// or key j is padded (key_padded may be null).
inline bool is_masked(int i, int j, bool causal, const uint8_t* key_padded) {
  return (causal && j > i) || (key_padded != nullptr && key_padded[j] != 0);
}

// One row i of masked_fill: y[j] = masked(i, j) ? fill : x[j] for j < n.
//   x, y: (n); key_padded: (n) or null
void masked_fill_row(const float* x, float* y, int n, int i, bool causal,
                     const uint8_t* key_padded, float fill);

// ---- softmax ---------------------------------------------------------------

// PyTorch's float exp on AVX2 CPUs (SLEEF's expf, 1-ulp): bitwise what
// torch.exp / torch.softmax compute on this kind of machine.
float exp_f32(float x);

// Sum of x (n) in the order of PyTorch's vectorised reduce_all with 8 lanes:
// lane k accumulates x[k], x[k+8], ...; lanes combine as (0+4, 1+5, 2+6, 3+7),
// then pairs, then the last two. For n < 8 it is x[0] + x[1] + ... in order.
float sum_f32_torch(const float* x, int n);

// Maximum of x (n), NaN if any element is NaN (like torch.max).
float max_f32_torch(const float* x, int n);

// y = softmax(x) over one row (n), exactly torch.softmax(dim=-1) on CPU:
//   m = max(x); e_j = exp_f32(x_j − m); s = sum_f32_torch(e); y_j = e_j · (1/s).
// A row of all −inf gives NaN (−inf − −inf); with safe = true such a row gives
// zeros instead (torch's _safe_softmax rule). x and y may alias.
void softmax_row(const float* x, float* y, int n, bool safe);

// ---- dropout ---------------------------------------------------------------

// y[j] = w[j] · (keep[j] ? scale : 0) for j < n, a float32 multiply exactly
// like PyTorch's `input * noise` (so NaN stays NaN even where dropped).
//   w, y: (n); keep: (n) with 1 = kept
void dropout_row(const float* w, const uint8_t* keep, float* y, int n, float scale);

}  // namespace kernels
}  // namespace attnviz
