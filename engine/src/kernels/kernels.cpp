// Portable kernels (plain loops with the arithmetic order documented in
// kernels.h) and the run-time choice between them and the vector versions in
// kernels_avx2.cpp / kernels_wasm.cpp. Shapes are in the header; this file
// only repeats them where a loop needs them.
//
// [SECTION] implementation choice
// [SECTION] comparison
// [SECTION] matrix products
// [SECTION] elementwise
// [SECTION] softmax
// [SECTION] dropout
#include "attnviz/kernels.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

#include "attnviz/parallel.h"
#include "attnviz/tensor.h"
#include "kernels/kernels_internal.h"
#include "kernels/parallel_internal.h"

namespace attnviz {

namespace kernels {

// Blocks of 64 are tested without branches (all exponent bits set = inf or
// NaN) so the compiler vectorises them: every set_state checks the explicit
// weights, 2.4 M values at d_model 768.
bool all_finite(const float* x, size_t n) {
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    uint32_t bad = 0;
    for (size_t k = 0; k < 64; ++k) {
      uint32_t b;
      std::memcpy(&b, x + i + k, sizeof b);
      bad |= static_cast<uint32_t>((b & 0x7f800000u) == 0x7f800000u);
    }
    if (bad != 0) return false;
  }
  for (; i < n; ++i) {
    if (!std::isfinite(x[i])) return false;
  }
  return true;
}

bool all_finite_rows(const float* x, int rows, int cols, size_t stride) {
  // An exponent of all ones (inf, NaN) in any entry: AND of the exponent bits
  // per entry would need a branch per row; instead count the entries whose
  // exponent is all ones, which the compiler vectorises.
  uint32_t bad = 0;
  for (int r = 0; r < rows; ++r) {
    const float* row = x + static_cast<size_t>(r) * stride;
    for (int c = 0; c < cols; ++c) {
      uint32_t b;
      std::memcpy(&b, row + c, sizeof b);
      bad |= static_cast<uint32_t>((b & 0x7f800000u) == 0x7f800000u);
    }
  }
  return bad == 0;
}

// ---- [SECTION] implementation choice -------------------------------------------------

namespace {

struct Impl {
  Isa isa;
  detail::GemmFn gemm;
  detail::SoftmaxExpsFn exps;
  detail::SoftmaxNormalizeFn normalize;
  detail::MaskedRowFn masked;
  detail::ExpFn exp;
};

Impl impl_for(Isa isa) {
  switch (isa) {
#if defined(ATTNVIZ_HAVE_AVX2_KERNELS)
    case Isa::avx2:
      return {Isa::avx2, detail::gemm_avx2, detail::softmax_exps_avx2,
              detail::softmax_normalize_avx2, detail::masked_row_avx2,
              detail::exp_row_avx2};
#endif
#if defined(__wasm_simd128__)
    case Isa::wasm_simd128:
      return {Isa::wasm_simd128, detail::gemm_wasm, detail::softmax_exps_wasm,
              detail::softmax_normalize_wasm, detail::masked_row_wasm,
              detail::exp_row_wasm};
#endif
    default:
      return {Isa::portable, detail::gemm_portable, detail::softmax_exps_portable,
              detail::softmax_normalize_portable,
              detail::masked_row_portable, detail::exp_row_portable};
  }
}

Isa best_isa() {
  if (isa_supported(Isa::avx2)) return Isa::avx2;
  if (isa_supported(Isa::wasm_simd128)) return Isa::wasm_simd128;
  return Isa::portable;
}

Impl& current() {
  static Impl impl = impl_for(best_isa());
  return impl;
}

// Packing scratch for the vector gemms, per thread, one per part of a
// product split among threads: grows to the largest product seen and is then
// reused, so repeated calls allocate nothing. (floats + 16) floats, the
// pointer handed out aligned to 64 bytes. The thread calling matmul_rows
// grows it and hands the workers pointers; a worker grows its own only for a
// product it runs whole inside a head group (in a pthreads WebAssembly build
// that may grow the memory: attnviz-glue.js reads through fresh views).
float* pack_scratch(int part, size_t floats) {
  thread_local std::vector<std::vector<float>> bufs;
  if (bufs.size() <= static_cast<size_t>(part)) bufs.resize(static_cast<size_t>(part) + 1);
  std::vector<float>& buf = bufs[static_cast<size_t>(part)];
  if (buf.size() < floats + 16) buf.resize(floats + 16);
  const uintptr_t p = reinterpret_cast<uintptr_t>(buf.data());
  return reinterpret_cast<float*>((p + 63) & ~static_cast<uintptr_t>(63));
}

}  // namespace

bool isa_supported(Isa isa) {
  switch (isa) {
    case Isa::portable: return true;
    case Isa::avx2:
#if defined(ATTNVIZ_HAVE_AVX2_KERNELS)
      return __builtin_cpu_supports("avx2");
#else
      return false;
#endif
    case Isa::wasm_simd128:
#if defined(__wasm_simd128__)
      return true;
#else
      return false;
#endif
  }
  return false;
}

Isa active_isa() { return current().isa; }

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::portable: return "portable";
    case Isa::avx2: return "avx2";
    case Isa::wasm_simd128: return "wasm_simd128";
  }
  return "";
}

bool set_isa(Isa isa) {
  if (!isa_supported(isa)) return false;
  current() = impl_for(isa);
  return true;
}

// ---- [SECTION] comparison ------------------------------------------------------------

bool same_bytes(const void* a, const void* b, size_t bytes) {
#if defined(__wasm__)
  const unsigned char* p = static_cast<const unsigned char*>(a);
  const unsigned char* q = static_cast<const unsigned char*>(b);
  size_t i = 0;
  for (; i + 64 <= bytes; i += 64) {
    uint64_t x[8], y[8];
    std::memcpy(x, p + i, 64);
    std::memcpy(y, q + i, 64);
    uint64_t d = 0;
    for (int t = 0; t < 8; ++t) d |= x[t] ^ y[t];
    if (d != 0) return false;
  }
  return i == bytes || std::memcmp(p + i, q + i, bytes - i) == 0;
#else
  return bytes == 0 || std::memcmp(a, b, bytes) == 0;  // glibc's is vectorised already
#endif
}

// ---- [SECTION] matrix products -------------------------------------------------------

namespace {

// A product split among threads by rows: part p computes rows[bounds[p] ..
// bounds[p + 1]) with its own packing scratch. Each row is computed whole by
// one part with the arithmetic it has alone (contract 1), so the split never
// changes a bit.
struct RowSplit {
  const detail::GemmArgs* g;
  detail::GemmFn gemm;
  size_t bf;                         // B-panel floats at the start of each scratch
  int bounds[kMaxThreads + 1];
  float* scratch[kMaxThreads];       // (bf + apack_floats()) each, or null (portable)
};

void run_row_part(void* ctx, int part) {
  const RowSplit& s = *static_cast<const RowSplit*>(ctx);
  detail::GemmArgs g = *s.g;
  const int b = s.bounds[part];
  g.rows += b;
  g.num_rows = s.bounds[part + 1] - b;
  if (g.k_end != nullptr) g.k_end += b;
  if (s.scratch[part] != nullptr) {
    g.pack = s.scratch[part];
    g.apack = g.pack + s.bf;
  }
  if (g.num_rows > 0) s.gemm(g);
}

// Work below this many multiply-adds per part is not worth a hand-over to a
// worker (a notify and a wait cost tens of µs; 1 M multiply-adds take about
// 50 µs in wasm at 40 GFLOP/s).
constexpr double kMinMaddsPerPart = 1 << 20;

}  // namespace

void matmul_rows(const float* a, int lda, const float* b, int ldb, const float* bias, float* c,
                 int ldc, int k, int n, const int* rows, int num_rows, const int* k_end) {
  if (num_rows <= 0 || n <= 0) return;
  detail::GemmArgs g;
  g.a = a;
  g.lda = lda;
  g.b = b;
  g.ldb = ldb;
  g.bias = bias;
  g.c = c;
  g.ldc = ldc;
  g.k = k;
  g.n = n;
  g.rows = rows;
  g.num_rows = num_rows;
  g.k_end = k_end;
  const Impl& im = current();
  // Parts: as many threads as the work fills, each with at least 12 rows
  // (whole micro-kernel tiles, MR = 4 or 6).
  double madds = static_cast<double>(num_rows) * k;
  if (k_end != nullptr) {
    madds = 0;
    for (int t = 0; t < num_rows; ++t) madds += k_end[t];
  }
  madds *= n;
  int parts = attnviz::detail::in_part() ? 1 : threads();  // inside a part, parts would run in turn
  while (parts > 1 && (madds < kMinMaddsPerPart * parts || num_rows < 12 * parts)) --parts;

  RowSplit s;
  s.g = &g;
  s.gemm = im.gemm;
  s.bf = detail::pack_floats(k, n);  // a multiple of 16 floats: the A block stays aligned
  // Boundaries at equal shares of the work (a causal context's rows grow
  // with their k_end), rounded to whole tiles.
  s.bounds[0] = 0;
  double acc = 0;
  int t = 0;
  for (int p = 1; p < parts; ++p) {
    const double share = madds / n * p / parts;
    while (t < num_rows && acc < share) {
      acc += k_end != nullptr ? k_end[t] : k;
      ++t;
    }
    const int rounded = (t + 11) / 12 * 12;
    s.bounds[p] = rounded < num_rows ? rounded : num_rows;
  }
  s.bounds[parts] = num_rows;
  for (int p = 0; p < parts; ++p) {
    s.scratch[p] = im.isa != Isa::portable ? pack_scratch(p, s.bf + detail::apack_floats()) : nullptr;
  }
  attnviz::detail::run_parts(parts, run_row_part, &s);
}

namespace detail {

size_t pack_floats(int k, int n) {
  // One k-block (at most 256 rows of B) of every 16-column panel, N rounded up.
  const size_t kc = static_cast<size_t>(k < 256 ? k : 256);
  return kc * ((static_cast<size_t>(n) + 15) / 16 * 16);
}

size_t apack_floats() { return static_cast<size_t>(72) * 256; }

void gemm_portable(const GemmArgs& g) {
  for (int t = 0; t < g.num_rows; ++t) {
    const int r = g.rows[t];
    const int kend = g.k_end != nullptr ? g.k_end[t] : g.k;
    const float* ar = g.a + static_cast<size_t>(r) * g.lda;  // (K)
    float* cr = g.c + static_cast<size_t>(r) * g.ldc;        // (N), the accumulators
    for (int j = 0; j < g.n; ++j) cr[j] = 0.0f;
    for (int kk = 0; kk < kend; ++kk) {
      const float av = ar[kk];
      const float* br = g.b + static_cast<size_t>(kk) * g.ldb;  // (N)
      for (int j = 0; j < g.n; ++j) cr[j] = cr[j] + av * br[j];
    }
    if (g.bias != nullptr) {
      for (int j = 0; j < g.n; ++j) cr[j] = cr[j] + g.bias[j];
    }
  }
}

}  // namespace detail

#if defined(__wasm_simd128__)
namespace {
// dst[j, i0 … i0+3] = src[i0 … i0+3, j] for j in j0 … j0+3: a 4 × 4 block
// through registers (4 loads, 8 shuffles, 4 stores where the scalar loop made
// 16 loads and 16 stores; Qᵀ and Kᵀ of the S = 512 forward).
inline void transpose4x4(const float* s, int lds, float* d, int ldd) {
  const v128_t r0 = wasm_v128_load(s), r1 = wasm_v128_load(s + lds);
  const v128_t r2 = wasm_v128_load(s + 2 * static_cast<size_t>(lds)), r3 = wasm_v128_load(s + 3 * static_cast<size_t>(lds));
  const v128_t t0 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);
  const v128_t t2 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5), t3 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
  wasm_v128_store(d, wasm_i32x4_shuffle(t0, t2, 0, 1, 4, 5));
  wasm_v128_store(d + ldd, wasm_i32x4_shuffle(t0, t2, 2, 3, 6, 7));
  wasm_v128_store(d + 2 * static_cast<size_t>(ldd), wasm_i32x4_shuffle(t1, t3, 0, 1, 4, 5));
  wasm_v128_store(d + 3 * static_cast<size_t>(ldd), wasm_i32x4_shuffle(t1, t3, 2, 3, 6, 7));
}
}  // namespace
#endif

void fill_zero(float* y, size_t n) {
#if defined(__wasm_simd128__)
  // A loop of zero stores would be turned back into memset, whose wasm build
  // (musl's) stores 8 bytes at a time; the empty asm hides the zero from that
  // rewrite. The causal softmax rows' two fills took 2.4 ms of the S = 512
  // forward; with this and the padded exp tail (kernels_wasm.cpp) the softmax
  // took 0.9 ms less: the rest is memory traffic (issue 37, docs/bench.md).
  v128_t z = wasm_f32x4_splat(0.0f);
  __asm__("" : "+r"(z));
  size_t j = 0;
  for (; j + 16 <= n; j += 16) {
    wasm_v128_store(y + j, z);
    wasm_v128_store(y + j + 4, z);
    wasm_v128_store(y + j + 8, z);
    wasm_v128_store(y + j + 12, z);
  }
  for (; j + 4 <= n; j += 4) wasm_v128_store(y + j, z);
  for (; j < n; ++j) wasm_v128_store32_lane(y + j, z, 0);
#else
  std::memset(y, 0, n * sizeof(float));
#endif
}

void transpose(const float* src, int lds, int rows, int cols, float* dst, int ldd) {
#if defined(__wasm_simd128__)
  // Strips of 16 columns of src (one cache line of each row) down every row:
  // the strip's lines stay in L1 (512 rows: 32 KiB) while dst's 16 rows are
  // each written front to back, streams the prefetcher follows. Walking dst
  // across its rows instead (2 KiB apart at S = 512) missed on nearly every
  // line: Qᵀ and Kᵀ took 1.35 ms of the S = 512 forward that way.
  const int r4 = rows / 4 * 4, c4 = cols / 4 * 4;
  for (int j0 = 0; j0 < c4; j0 += 16) {
    const int j1 = j0 + 16 < c4 ? j0 + 16 : c4;
    for (int i = 0; i < r4; i += 4) {
      for (int j = j0; j < j1; j += 4) {
        transpose4x4(src + static_cast<size_t>(i) * lds + j, lds, dst + static_cast<size_t>(j) * ldd + i, ldd);
      }
    }
  }
  for (int i = r4; i < rows; ++i) {  // the last rows mod 4, every column
    for (int j = 0; j < cols; ++j) dst[static_cast<size_t>(j) * ldd + i] = src[static_cast<size_t>(i) * lds + j];
  }
  for (int j = c4; j < cols; ++j) {  // the last columns mod 4, the other rows
    for (int i = 0; i < r4; ++i) dst[static_cast<size_t>(j) * ldd + i] = src[static_cast<size_t>(i) * lds + j];
  }
  return;
#endif
  // 8 × 8 tiles keep both sides' cache lines in use.
  for (int i0 = 0; i0 < rows; i0 += 8) {
    const int i1 = i0 + 8 < rows ? i0 + 8 : rows;
    for (int j0 = 0; j0 < cols; j0 += 8) {
      const int j1 = j0 + 8 < cols ? j0 + 8 : cols;
      for (int i = i0; i < i1; ++i) {
        for (int j = j0; j < j1; ++j) dst[static_cast<size_t>(j) * ldd + i] = src[static_cast<size_t>(i) * lds + j];
      }
    }
  }
}

float dot_cell(const float* a, int inca, const float* b, int incb, int k, float* terms_out) {
  float acc = 0.0f;
  for (int kk = 0; kk < k; ++kk) {
    const float x = a[static_cast<size_t>(kk) * inca];
    const float y = b[static_cast<size_t>(kk) * incb];
    const float term = x * y;
    if (terms_out != nullptr) terms_out[kk] = term;
    acc = acc + term;
  }
  return acc;
}

// ---- [SECTION] elementwise -----------------------------------------------------------

void div_scalar(const float* x, int incx, float* y, int incy, int n, float divisor) {
  for (int i = 0; i < n; ++i) y[static_cast<size_t>(i) * incy] = x[static_cast<size_t>(i) * incx] / divisor;
}

void masked_fill_row(const float* x, float* y, int n, int i, bool causal,
                     const uint8_t* key_padded, float fill) {
  for (int j = 0; j < n; ++j) y[j] = is_masked(i, j, causal, key_padded) ? fill : x[j];
}

void masked_row(const float* scores, float* y, int n, int i, float divisor, bool causal,
                const uint8_t* key_padded, float fill) {
  current().masked(scores, y, n, i, divisor, causal, key_padded, fill);
}

void masked_row(const float* scores, float* y, int n, int i, const MaskRule& m) {
  if (m.plain()) {
    current().masked(scores, y, n, i, m.divisor, m.causal, m.key_padded, m.fill);
    return;
  }
  for (int j = 0; j < n; ++j) y[j] = masked_value(scores[j], i, j, m);
}

namespace detail {

void masked_row_portable(const float* scores, float* y, int n, int i, float divisor, bool causal,
                         const uint8_t* key_padded, float fill) {
  for (int j = 0; j < n; ++j) y[j] = is_masked(i, j, causal, key_padded) ? fill : scores[j] / divisor;
}

}  // namespace detail

// ---- [SECTION] softmax ---------------------------------------------------------------

namespace {

float pow2i(int e) {  // 2^e for -126 <= e <= 127, built from the exponent bits
  const uint32_t bits = static_cast<uint32_t>(e + 0x7f) << 23;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace

// SLEEF 3.x xexpf (the u10 variant), which PyTorch's Vectorized<float>::exp
// calls on AVX2. vmla is a fused multiply-add there, hence fma_f32 here, and
// for u1 … u4 the exact three-operation form of kExpBinades (kernels_internal.h).
// The vector versions (kernels_avx2.cpp, kernels_wasm.cpp) follow these steps
// exactly.
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
  for (const detail::ExpBinadeStep& st : detail::kExpBinades) {  // u = fma(u, s, st.c), exactly
    u = static_cast<float>((static_cast<double>(u) * static_cast<double>(s) + st.c_plus_m) - st.m);
  }
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
    for (int j = 0; j < n && all_neg_inf; ++j) all_neg_inf = x[j] == -std::numeric_limits<float>::infinity();
    if (all_neg_inf) {
      for (int j = 0; j < n; ++j) y[j] = 0.0f;
      return;
    }
  }
  const Impl& k = current();
  k.exps(x, y, n, std::numeric_limits<float>::quiet_NaN());
  k.normalize(y, y, n);
}
float softmax_exps(const float* x, float* e, int n) {
  return n <= 0 ? -std::numeric_limits<float>::infinity()
                : current().exps(x, e, n, std::numeric_limits<float>::quiet_NaN());
}
bool softmax_exps_under(const float* x, float* e, int n, float m) {
  if (m != m) return false;
  return n <= 0 || current().exps(x, e, n, m) <= m;
}
void softmax_normalize(const float* e, float* y, int n) {
  if (n > 0) current().normalize(e, y, n);
}
void exp_row(const float* x, float* y, int n) { current().exp(x, y, n); }

namespace {

// sum_f32_torch of the row [e_0 … e_{n−1}, 0 …, es] of at + 1 entries (n >= 1,
// at >= n): in order below 8 entries, else in its 8 lanes, es the last entry
// of lane at mod 8. Plain float32 adds in a fixed order: every instruction set
// gets these bits (compilers may vectorise the lanes, never reorder them).
float sum_with_sink(const float* e, int n, float es, int at) {
  if (at + 1 < 8) {
    float s = e[0];
    for (int j = 1; j < n; ++j) s = s + e[j];
    return s + es;  // the zeros between add +0: nothing
  }
  float lane[8];
  for (int k = 0; k < 8; ++k) lane[k] = k < n ? e[k] : 0.0f;
  int d = 8;
  for (; d + 8 <= n; d += 8) {
    for (int k = 0; k < 8; ++k) lane[k] = lane[k] + e[d + k];
  }
  for (int k = 0; d + k < n; ++k) lane[k] = lane[k] + e[d + k];
  lane[at % 8] = lane[at % 8] + es;
  const float a0 = lane[0] + lane[4], a1 = lane[1] + lane[5];
  const float a2 = lane[2] + lane[6], a3 = lane[3] + lane[7];
  return (a0 + a2) + (a1 + a3);
}

}  // namespace

float softmax_exps(const float* x, float* e, int n, const Sink& sink) {
  if (n <= 0) return sink.logit;
  const Impl& k = current();
  // Against the sink when no entry tops it (exps writes only then), else
  // against the row's own max: max(x ∪ {logit}) either way.
  const float mx = k.exps(x, e, n, sink.logit);
  if (mx <= sink.logit) return sink.logit;
  if (mx != mx) return mx;
  return k.exps(x, e, n, std::numeric_limits<float>::quiet_NaN());
}

float softmax_normalize(const float* e, float* y, int n, float m, const Sink& sink) {
  const float es = exp_f32(sink.logit - m);
  if (n <= 0) return es / es;
  const float inv = 1.0f / sum_with_sink(e, n, es, sink.at < n ? n : sink.at);
  for (int j = 0; j < n; ++j) y[j] = e[j] * inv;
  return es * inv;
}

float softmax_row(const float* x, float* y, int n, const Sink& sink) {
  const float m = softmax_exps(x, y, n, sink);
  if (m != m) {
    for (int j = 0; j < n; ++j) y[j] = m;
    return m;
  }
  return softmax_normalize(y, y, n, m, sink);
}

float softmax_exps(const float* x, float* e, int n, const Sink* sink) {
  return sink != nullptr ? softmax_exps(x, e, n, *sink) : softmax_exps(x, e, n);
}

float softmax_normalize(const float* e, float* y, int n, float m, const Sink* sink) {
  if (sink != nullptr) return softmax_normalize(e, y, n, m, *sink);
  softmax_normalize(e, y, n);
  return std::numeric_limits<float>::quiet_NaN();
}

float softmax_row(const float* x, float* y, int n, bool safe, const Sink* sink) {
  if (sink != nullptr) return softmax_row(x, y, n, *sink);
  softmax_row(x, y, n, safe);
  return std::numeric_limits<float>::quiet_NaN();
}

int softmax_cut(int live, int n) {
  if (n < 8 || live >= n) return n;
  const int cut = live < 8 ? 8 : (live + 7) / 8 * 8;
  return cut < n ? cut : n;
}

namespace detail {

void exp_row_portable(const float* x, float* y, int n) {
  for (int j = 0; j < n; ++j) y[j] = exp_f32(x[j]);
}

float softmax_exps_portable(const float* x, float* e, int n, float ceiling) {
  const float mx = max_f32_torch(x, n);
  if (ceiling == ceiling && !(mx <= ceiling)) return mx;
  const float m = ceiling == ceiling ? ceiling : mx;
  for (int j = 0; j < n; ++j) e[j] = exp_f32(x[j] - m);
  return mx;
}

void softmax_normalize_portable(const float* e, float* y, int n) {
  const float inv = 1.0f / sum_f32_torch(e, n);
  for (int j = 0; j < n; ++j) y[j] = e[j] * inv;
}

}  // namespace detail

// ---- [SECTION] dropout ---------------------------------------------------------------

void dropout_row(const float* w, const uint8_t* keep, float* y, int n, float scale) {
  for (int j = 0; j < n; ++j) y[j] = w[j] * (keep[j] ? scale : 0.0f);
}

int nonzero_end(const float* d, int n) {
  int e = n;
  while (e >= 8) {
    uint32_t bits = 0;
    for (int t = 0; t < 8; ++t) {
      uint32_t u;
      std::memcpy(&u, d + e - 8 + t, sizeof u);
      bits |= u & 0x7fffffffu;
    }
    if (bits != 0) break;
    e -= 8;
  }
  while (e > 0 && d[e - 1] == 0.0f) --e;
  return e;
}

}  // namespace kernels
}  // namespace attnviz
