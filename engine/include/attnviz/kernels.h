// attnviz/kernels.h: every floating-point operation of the attention pipeline.
//
// Plain functions over plain row-major buffers (see tensor.h for the memory
// convention); every argument documents its shape. The pipeline routes all of
// its arithmetic through these few functions.
//
// Contract that every implementation keeps (the incremental pipeline, the
// golden native == WebAssembly reports and tests/engine/test_kernels.cpp rely
// on it):
//   1. Row independence: an output row (or cell) is computed with the same
//      arithmetic, in the same order, whichever subset of rows/columns is
//      requested and however many are computed side by side, so a partial
//      recompute is bitwise equal to a full one.
//   2. Matmul semantics: each output cell is a float32 accumulator that starts
//      at +0 and is updated in order k = 0, 1, ..., K−1 by
//          acc = acc + a[k]·b[k]      (a float32 multiply, then a float32 add;
//                                      no fused multiply-add)
//      then the bias (if any) is added with one float32 addition.
//      Why no FMA: WebAssembly SIMD128 has none (LLVM 14, no relaxed SIMD), and
//      emulating one through double costs about 5× the work. With a separate
//      multiply and add, a cell's bits do not depend on how many cells a
//      vector instruction computes at once, so the portable loops, the AVX2
//      kernels (kernels_avx2.cpp) and the wasm SIMD128 kernels
//      (kernels_wasm.cpp) produce identical bits. PyTorch (OpenBLAS sgemm,
//      FMA) rounds differently; the fixture tests bound the difference per
//      entry by gamma(K) (valid for any rounding of an n-term dot product).
//      An exact zero term (0·finite) never changes an accumulator: the
//      accumulator can never be −0 (it starts at +0, and x + y is −0 only when
//      both are −0), and x + ±0 = x for any other x. So skipping such terms is
//      exact (matmul_rows's k_end).
//   3. Softmax semantics are torch.softmax on CPU with AVX2 (see softmax_row);
//      its exp uses fma_f32 (below), also in the vector versions (emulated in
//      double lanes), so the bits are the same everywhere.
//
// Speed: the vector kernels are chosen at run time (active_isa()): AVX2 on
// x86-64 CPUs that have it (no FMA instructions, see 2), SIMD128 in the
// WebAssembly build, portable loops otherwise. Matrix products are cache
// blocked with a register-tiled micro-kernel; see kernels_avx2.cpp.
//
// Fused multiply-add: fma_f32 evaluates a·b + c with the product exact and one
// rounding (in double, then to float). It equals a true fused multiply-add
// except when the double sum itself had to round and that lands exactly on a
// float32 rounding midpoint (probability about 2^-29 per operation). Used by
// exp_f32 (SLEEF's polynomial is written with FMAs; four of its seven are done
// exactly another way, see exp_f32) and the RNG, not by the matrix products.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnviz {
namespace kernels {

inline float fma_f32(float a, float b, float c) {
  return static_cast<float>(static_cast<double>(a) * static_cast<double>(b) +
                            static_cast<double>(c));
}

// ---- implementation choice -------------------------------------------------

enum class Isa { portable, avx2, wasm_simd128 };
Isa active_isa();                 // the best the machine supports, unless set_isa() chose another
const char* isa_name(Isa isa);    // "portable", "avx2", "wasm_simd128"
bool isa_supported(Isa isa);
// Tests only: run the kernels with isa (false, and no change, if unsupported).
bool set_isa(Isa isa);

// ---- matrix products -------------------------------------------------------

// C[r, :] = A[r, :] · B (+ bias) for every r in rows[0 .. num_rows).
//   a:     (M × K), row stride lda
//   b:     (K × N), row stride ldb
//   bias:  (N) or nullptr
//   c:     (M × N), row stride ldc (must not alias a or b)
//   k_end: (num_rows) or nullptr. When given, the caller promises that for
//          the t-th row every term with k >= k_end[t] is an exact zero
//          (a[r][k] == 0 and B's row k finite), so the kernel may skip them
//          (contract 2: the result is the same bits). The context product
//          uses it to skip the keys a causal mask zeroed.
// Used for Q/K/V = X·W (+b), scores = Q_h·K_hᵀ (with B = K_hᵀ, see
// transpose), context = dropped·V_h, output = concat·W_o (+b_o).
// Allocation: a per-thread packing scratch that only grows (at most
// 256 × max(N) floats), so repeated calls allocate nothing.
void matmul_rows(const float* a, int lda, const float* b, int ldb, const float* bias, float* c,
                 int ldc, int k, int n, const int* rows, int num_rows, const int* k_end = nullptr);

// y[j] = +0.0f for j < n (what std::fill(y, y + n, 0.0f) does; in wasm with
// 16-byte stores, where memset stores 8 bytes at a time).
void fill_zero(float* y, size_t n);
// dst[j, i] = src[i, j] for i < rows, j < cols.
//   src: (rows × cols) stride lds;  dst: (cols × rows) stride ldd
void transpose(const float* src, int lds, int rows, int cols, float* dst, int ldd);

// One cell of a matrix product, with its K products written to terms_out (K)
// if not null; returns the cell value (identical to what matmul_rows stores
// before the bias).
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

// One head's rule from scores to the masked stage (issue 23 adds the window
// and ALiBi, issue 36 StreamingLLM's cache): cell (i, j) is masked when causal
// and j > i, key j is padded, it lies outside the sliding window (i − j ≥
// window, and without the causal mask also j − i ≥ window), or StreamingLLM's
// cache has evicted it (j ≥ cache_sinks and i − j ≥ cache_recent: neither one
// of the first tokens nor a recent one); a masked cell holds fill, any other
// scores / divisor + alibi_bias(slope, i, j) (the bias only when slope ≠ 0).
struct MaskRule {
  float divisor = 1.0f;
  bool causal = false;
  const uint8_t* key_padded = nullptr;  // (n) or null
  float fill = 0.0f;
  int window = 0;      // 0: no window
  float slope = 0.0f;  // ALiBi's m_h; 0: no bias
  int cache_sinks = 0;   // StreamingLLM: the first keys kept (j < cache_sinks)
  int cache_recent = 0;  // StreamingLLM: the recent keys kept (i − j < cache_recent); 0: no eviction
  // The rule for columns j0 … of the same rows (key_padded moved on by j0; the
  // caller passes i − j0 as the row, as for the blocks of masked_row, and the
  // first tokens' bound moves with the columns).
  MaskRule from_column(int j0) const {
    MaskRule r = *this;
    if (key_padded != nullptr) r.key_padded = key_padded + j0;
    r.cache_sinks = cache_sinks - j0;
    return r;
  }
  bool plain() const { return window == 0 && slope == 0.0f && cache_recent == 0; }  // the pre-issue-23 rule
};

// ALiBi's bias of cell (i, j): −(m_h · |i − j|), the product rounded to float32
// once (torch: -(slopes[h] * (i - j).abs().float())).
inline float alibi_bias(float slope, int i, int j) {
  return -(slope * static_cast<float>(i > j ? i - j : j - i));
}

inline bool outside_window(int i, int j, int window, bool causal) {
  return window > 0 && (i - j >= window || (!causal && j - i >= window));
}

// StreamingLLM's eviction: key j has left the cache of query i (issue 36).
inline bool evicted(int i, int j, int cache_sinks, int cache_recent) {
  return cache_recent > 0 && j >= cache_sinks && i - j >= cache_recent;
}

inline bool is_masked(int i, int j, const MaskRule& m) {
  return is_masked(i, j, m.causal, m.key_padded) || outside_window(i, j, m.window, m.causal) ||
         evicted(i, j, m.cache_sinks, m.cache_recent);
}

// Cell (i, j) of the masked stage from its score.
inline float masked_value(float score, int i, int j, const MaskRule& m) {
  if (is_masked(i, j, m)) return m.fill;
  const float x = score / m.divisor;
  return m.slope == 0.0f ? x : x + alibi_bias(m.slope, i, j);
}

// One row i of masked_fill: y[j] = masked(i, j) ? fill : x[j] for j < n.
//   x, y: (n); key_padded: (n) or null
void masked_fill_row(const float* x, float* y, int n, int i, bool causal,
                     const uint8_t* key_padded, float fill);

// Row i of the masked stage straight from the scores (scaled is never needed
// as a buffer): y[j] = masked(i, j) ? fill : scores[j] / divisor, j < n.
// Bit for bit div_scalar followed by masked_fill_row.
//   scores, y: (n), must not alias; key_padded: (n) or null
void masked_row(const float* scores, float* y, int n, int i, float divisor, bool causal,
                const uint8_t* key_padded, float fill);
// The same under a MaskRule: y[j] = masked_value(scores[j], i, j, m), j < n.
// Bit for bit the row above when m.plain().
void masked_row(const float* scores, float* y, int n, int i, const MaskRule& m);

// ---- softmax ---------------------------------------------------------------

// PyTorch's float exp on AVX2 CPUs (SLEEF's expf, 1-ulp): bitwise what
// torch.exp / torch.softmax compute on this kind of machine.
//
// Its first step s = fma(q, −l2u, d) is exact, so the vector versions do it as
// a float32 multiply and add (one emulated FMA fewer): d is clamped to
// [−104, 100], so |q| = |rint(d / ln2)| ≤ 151 (8 bits) and l2u = 45425 · 2^-16
// (16 bits), making q · l2u exact in float32; when q ≠ 0, |d| > 0.34 and
// d − q · l2u is a multiple of ulp(d) no larger than 0.35 < 2^24 · ulp(d), so
// the sum is exact too (tested against this function in test_kernels).
//
// The next four FMAs (Horner steps u1 … u4) are true fused multiply-adds (no
// double rounding): each result stays in one binade, which makes the FMA three
// double operations (kernels_internal.h, kExpBinades). With |s| <= 0.35 and
// u0 = 1.985e-4 (|u_k| <= c_k + max|u_(k-1)| · 0.35): u1 in [1.323e-3,
// 1.463e-3] within [2^-10, 2^-9]; u2 in [7.821e-3, 8.846e-3] within [2^-7,
// 2^-6]; u3 in [0.0385, 0.0448] within [2^-5, 2^-4]; u4 in [0.151, 0.183]
// within [2^-3, 2^-2] (roundings add under 1e-9; test_kernels,
// Kernels.ExpHornerStepsStayInOneBinade). |s| <= 0.35: |d · r_ln2| < 151, so
// rounding it to float32 moves it by at most 2^-17 and |s| <= ln2 · (0.5 +
// 2^-17) plus the two roundings of s.
float exp_f32(float x);
// y_j = exp_f32(x_j) for j < n, vectorised (x and y may alias).
void exp_row(const float* x, float* y, int n);

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
// Its two halves, for callers that keep the numerators (an edit that changes
// a few entries of a row without changing its max needs only their exps and
// the second half again; the bits are softmax_row's):
//   softmax_exps:      e_j = exp_f32(x_j − m), returns m = max(x) (NaN if x has a NaN)
//   softmax_normalize: y_j = e_j · (1 / sum_f32_torch(e))
// softmax_row(x, y, n, false) is softmax_normalize(e, y, n) after
// softmax_exps(x, e, n). x, e and y may alias.
float softmax_exps(const float* x, float* e, int n);
void softmax_normalize(const float* e, float* y, int n);
// The exps of a row's new entries against the max m its other entries
// already have: when every x_j <= m (no NaN), e_j = exp_f32(x_j − m) and
// true; otherwise false and e untouched. (The row's exps then stand as
// softmax_exps would give them, as long as m is still the row's max.)
bool softmax_exps_under(const float* x, float* e, int n, float m);

// ---- softmax with a sink (gpt-oss) -------------------------------------------

// gpt-oss's attention sink: a learned logit per head joins every row of logits
// as one more column, torch.softmax runs over the S + 1 entries and the sink's
// column is dropped, so a row of weights sums to 1 − (the sink's share):
//   torch.softmax(torch.cat([x, sink.expand(S, 1)], dim=-1), dim=-1)[..., :-1]
// The functions below take the row as [x_0 … x_{n−1}, 0 … 0, logit], at + 1
// entries (at >= n): the zeros stand for keys n … at − 1 whose exps are +0
// (masked with −inf), so a row cut short (softmax_cut) or a decoding step of
// t + 1 keys sums exactly as the full row of `at` keys does, the sink in lane
// at mod 8 of sum_f32_torch (adding +0 to a lane changes nothing).
struct Sink {
  float logit = 0.0f;  // s_h, finite
  int at = 0;          // the sink's column in the full row: the number of keys S
};
// m = max(x_0 … x_{n−1}, logit) (NaN if x has a NaN), e_j = exp_f32(x_j − m)
// (e untouched when m is NaN). Returns m. x and e may alias.
float softmax_exps(const float* x, float* e, int n, const Sink& sink);
// y_j = e_j · (1 / Σ) for j < n, Σ = sum_f32_torch of [e_0 … e_{n−1}, 0 …,
// exp_f32(logit − m)]. Returns the sink's own weight exp_f32(logit − m) · (1/Σ),
// the column torch drops. e and y may alias.
float softmax_normalize(const float* e, float* y, int n, float m, const Sink& sink);
// Both halves; a NaN in x makes the row (and the returned sink weight) NaN, as
// in torch. No safe-softmax case: the sink keeps a row from being all −inf (a
// row of masked keys gives zeros, the sink takes the whole weight). x and y may alias.
float softmax_row(const float* x, float* y, int n, const Sink& sink);
// The same three with an optional sink: sink == nullptr is the plain function
// (softmax_normalize's m is then unused; it and softmax_row return NaN).
float softmax_exps(const float* x, float* e, int n, const Sink* sink);
float softmax_normalize(const float* e, float* y, int n, float m, const Sink* sink);
float softmax_row(const float* x, float* y, int n, bool safe, const Sink* sink);

// Softmax of a row whose keys from `live` on are masked to −inf (a causal row
// i has live = i + 1) can skip them: softmax_row over the first
// softmax_cut(live, n) entries, with the rest set to 0, gives the same bits as
// softmax_row over all n, provided the max of those entries is finite (then
// softmax_row's first result is a number; if it is NaN, do the whole row).
// Why: the max is the row's max (the rest are −inf); their exps are exactly 0,
// and adding +0 to a lane of sum_f32_torch changes nothing, so the sum is the
// same as long as every kept entry lands in the same lane, which holds when
// the cut is n or a multiple of 8 that is at least 8 (rows shorter than 8 are
// summed in order instead of by lanes); 0 · (1/sum) = 0 for a finite sum ≥ 1.
int softmax_cut(int live, int n);

// ---- comparison -------------------------------------------------------------

// Whether x (n) holds only finite floats (no inf, no NaN).
bool all_finite(const float* x, size_t n);
// Whether the (rows × cols) block at x, row stride `stride`, holds only finite
// floats: one branch-free pass over the rows (a head's columns of V, whose rows
// are kv_dim apart), one test at the end.
bool all_finite_rows(const float* x, int rows, int cols, size_t stride);

// Whether a and b hold the same bytes (memcmp(a, b, bytes) == 0). The
// pipeline detects what changed by comparing old and new buffers; in
// WebAssembly libc's memcmp runs at about half the speed of this 64-byte
// XOR-OR loop (which the compiler turns into SIMD128).
bool same_bytes(const void* a, const void* b, size_t bytes);

// 1 + the index of the last entry of d (n) that is not ±0 (NaN counts as non-zero), 0 if
// there is none: where a weights row's product with V may stop (contract 2). Skips 8
// zeros at a time.
int nonzero_end(const float* d, int n);

// ---- dropout ---------------------------------------------------------------

// y[j] = w[j] · (keep[j] ? scale : 0) for j < n, a float32 multiply exactly
// like PyTorch's `input * noise` (so NaN stays NaN even where dropped).
//   w, y: (n); keep: (n) with 1 = kept
void dropout_row(const float* w, const uint8_t* keep, float* y, int n, float scale);

}  // namespace kernels
}  // namespace attnviz
