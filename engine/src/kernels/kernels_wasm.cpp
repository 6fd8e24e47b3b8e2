// WebAssembly SIMD128 kernels: compiled only when the wasm build passes
// -msimd128 (engine/CMakeLists.txt). 4 float lanes; no FMA (LLVM 14 has no
// relaxed SIMD), so each term is a multiply then an add, which gives the same
// bits as the portable loops and AVX2 (kernels.h, contract 2). exp's fused
// multiply-adds are emulated in f64x2 lanes exactly like kernels::fma_f32.
//
// [SECTION] matrix product micro-kernel (4 rows × 8 columns)
// [SECTION] exp, softmax, masked rows
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>

#include <cstddef>
#include <cstdint>

#include "kernels/kernels_gemm.h"
#include "kernels/kernels_internal.h"

namespace attnviz {
namespace kernels {

float exp_f32(float x);  // kernels.h (portable; used for row tails)

namespace detail {
namespace {

// ---- [SECTION] matrix product micro-kernel -------------------------------------------

// MR × (4·NV) accumulators in v128 registers (x86 engines have 16 of them:
// 4 × 2 accumulators + 2 of B + 1 broadcast of A, room to spare).
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

  // run<MR> with A packed: a[r][kk] = ap[kk·MR + r]. Both operands advance by
  // a pointer bump and are read at constant offsets (wasm's loads take one
  // address plus a constant), 42 against 35 GFLOP/s for run<4> in node 20.
  static constexpr bool kPackA = true;
  static void run_packed(const float* ap, int klen, const float* b, size_t ldb, float* const* c,
                         bool first) {
    v128_t acc[MR][NV];
    for (int r = 0; r < MR; ++r) {
      for (int v = 0; v < NV; ++v) acc[r][v] = first ? wasm_f32x4_splat(0.0f) : wasm_v128_load(c[r] + 4 * v);
    }
    for (int kk = 0; kk < klen; ++kk) {
      v128_t bv[NV];
      for (int v = 0; v < NV; ++v) bv[v] = wasm_v128_load(b + 4 * v);
      for (int r = 0; r < MR; ++r) {
        const v128_t av = wasm_v128_load32_splat(ap + r);
        for (int v = 0; v < NV; ++v) acc[r][v] = wasm_f32x4_add(acc[r][v], wasm_f32x4_mul(av, bv[v]));
      }
      ap += MR;
      b += ldb;
    }
    for (int r = 0; r < MR; ++r) {
      for (int v = 0; v < NV; ++v) wasm_v128_store(c[r] + 4 * v, acc[r][v]);
    }
  }

  // ap[kk·MR + r] = a[r][kk]: 4 × 4 blocks transposed in registers (4 loads, 8
  // shuffles, 4 stores for 16 floats where the scalar loop made 16 of each).
  // It shows in the context product, whose A blocks serve only 8 column panels
  // (head_dim 64): about 0.4 of its 9 ms at S = 512 (issue 37, docs/bench.md).
  static void pack_a(const float* const* a, int klen, float* ap) {
    static_assert(MR == 4, "pack_a transposes 4 rows");
    int kk = 0;
    for (; kk + 4 <= klen; kk += 4) {
      const v128_t r0 = wasm_v128_load(a[0] + kk), r1 = wasm_v128_load(a[1] + kk);
      const v128_t r2 = wasm_v128_load(a[2] + kk), r3 = wasm_v128_load(a[3] + kk);
      const v128_t t0 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);
      const v128_t t2 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5), t3 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
      float* d = ap + kk * MR;
      wasm_v128_store(d, wasm_i32x4_shuffle(t0, t2, 0, 1, 4, 5));
      wasm_v128_store(d + 4, wasm_i32x4_shuffle(t0, t2, 2, 3, 6, 7));
      wasm_v128_store(d + 8, wasm_i32x4_shuffle(t1, t3, 0, 1, 4, 5));
      wasm_v128_store(d + 12, wasm_i32x4_shuffle(t1, t3, 2, 3, 6, 7));
    }
    for (; kk < klen; ++kk) {
      for (int t = 0; t < MR; ++t) ap[kk * MR + t] = a[t][kk];
    }
  }

  static void add_bias(float* c, const float* bias, int n) {
    int j = 0;
    for (; j + 4 <= n; j += 4) wasm_v128_store(c + j, wasm_f32x4_add(wasm_v128_load(c + j), wasm_v128_load(bias + j)));
    for (; j < n; ++j) c[j] = c[j] + bias[j];
  }
};

// ---- [SECTION] exp, softmax, masked rows ---------------------------------------------

// The lowest exp argument of exp4_n's narrow form: rint(−87 / ln2) = −126,
// the lowest exponent of a normal float (−87.3 would already round to −126,
// −87.7 to −127).
constexpr float kNarrowExpLow = -87.0f;

inline v128_t hi_half(v128_t x) { return wasm_i32x4_shuffle(x, x, 2, 3, 0, 1); }

// The polynomial runs in f64x2 lanes holding float32 values: a·b + c of
// floats is exact-product-then-one-rounding in double, and demoting that to
// float32 gives kernels::fma_f32 exactly. rnd() rounds a double lane to
// float32 precision and back.
//
// opaque() hides a value from LLVM's optimiser (an empty asm statement; no
// instruction). Without it LLVM 14 folds promote_low(demote_zero(x)) into an
// fpext of an fptrunc to <2 x float>, a type wasm has no instruction for, and
// lowers that lane by lane: extract, f32.demote_f64, f64.promote_f32, replace,
// 104 scalar conversions in this file, which made exp 2-3× slower.
inline v128_t opaque(v128_t x) {
  __asm__("" : "+r"(x));
  return x;
}
inline v128_t rnd(v128_t x) { return wasm_f64x2_promote_low_f32x4(opaque(wasm_f32x4_demote_f64x2_zero(x))); }
inline v128_t fma_emu(v128_t a, v128_t b, v128_t c) { return rnd(wasm_f64x2_add(wasm_f64x2_mul(a, b), c)); }
inline v128_t f64(float x) { return wasm_f64x2_splat(static_cast<double>(x)); }
// kernels::fma_f32 where the result's binade is known (kExpBinades).
inline v128_t fma_in_binade(v128_t a, v128_t b, v128_t c_plus_m, v128_t m) {
  return wasm_f64x2_sub(wasm_f64x2_add(wasm_f64x2_mul(a, b), c_plus_m), m);
}

// kernels::exp_f32 on N × 4 lanes, step for step. The steps run in lockstep
// over the N vectors (2N f64x2 halves): each emulated FMA is a chain of four
// dependent instructions, so independent lanes are what keeps the pipes busy.
// Always inlined: called out of line (as LLVM chose), its vectors went
// through the shadow stack in linear memory, about 15 % of exp_row's time.
//
// Narrow: every lane of d is known to lie in [kNarrowExpLow, 0] (no NaN).
// Then the clamp and the three selects never change a lane, and 2^q is a
// normal float (q >= −126), so u · 2^q is one multiply: the two-step scaling
// below multiplies exactly by 2^half first, and both round u · 2^q once.
template <int N, bool Narrow = false>
__attribute__((always_inline)) inline void exp4_n(const v128_t* d, v128_t* out) {
  constexpr int H = 2 * N;
  v128_t q[N], qf[H], s[H], u[H];
  for (int t = 0; t < N; ++t) {
    // clamp to [−104, 100], NaN to −104 (pmax(a, b) = a < b ? b : a, pmin(a, b) = b < a ? b : a)
    const v128_t dc =
        Narrow ? d[t] : wasm_f32x4_pmin(wasm_f32x4_splat(100.0f), wasm_f32x4_pmax(wasm_f32x4_splat(-104.0f), d[t]));
    // q = rint(dc / ln2): |dc / ln2| < 2^22, so adding 1.5 · 2^23 rounds it to an
    // integer (half to even, as rint) that the low mantissa bits then hold.
    const v128_t magic = wasm_f32x4_splat(12582912.0f);
    const v128_t big = wasm_f32x4_add(
        wasm_f32x4_mul(dc, wasm_f32x4_splat(1.442695040888963407359924681001892137426645954152985934135449406931f)), magic);
    q[t] = wasm_i32x4_sub(big, magic);
    const v128_t qff = wasm_f32x4_sub(big, magic);
    qf[2 * t] = wasm_f64x2_promote_low_f32x4(qff);
    qf[2 * t + 1] = wasm_f64x2_promote_low_f32x4(hi_half(qff));
    // fma(q, −l2u, d) is exact in float32 (kernels.h, exp_f32)
    const v128_t s0 = wasm_f32x4_add(wasm_f32x4_mul(qff, wasm_f32x4_splat(-0.693145751953125f)), dc);
    s[2 * t] = wasm_f64x2_promote_low_f32x4(s0);
    s[2 * t + 1] = wasm_f64x2_promote_low_f32x4(hi_half(s0));
  }
  for (int k = 0; k < H; ++k) s[k] = fma_emu(qf[k], f64(-1.428606765330187045e-06f), s[k]);
  for (int k = 0; k < H; ++k) u[k] = f64(0.000198527617612853646278381f);
  for (const ExpBinadeStep& st : kExpBinades) {  // u1 … u4
    const v128_t cm = wasm_f64x2_splat(st.c_plus_m), m = wasm_f64x2_splat(st.m);
    for (int k = 0; k < H; ++k) u[k] = fma_in_binade(u[k], s[k], cm, m);
  }
  for (int k = 0; k < H; ++k) u[k] = fma_emu(u[k], s[k], f64(0.5f));  // u5 spans two binades
  v128_t t2[H];  // [u0, u1, 0, 0] per half
  for (int k = 0; k < H; ++k) {
    const v128_t ss = rnd(wasm_f64x2_mul(s[k], s[k]));  // the float32 product s·s
    t2[k] = wasm_f32x4_demote_f64x2_zero(wasm_f64x2_add(wasm_f64x2_mul(ss, u[k]), s[k]));
  }
  for (int t = 0; t < N; ++t) {
    const v128_t uu = wasm_f32x4_add(wasm_f32x4_splat(1.0f), wasm_i32x4_shuffle(t2[2 * t], t2[2 * t + 1], 0, 1, 4, 5));
    if (Narrow) {
      out[t] = wasm_f32x4_mul(uu, wasm_i32x4_shl(wasm_i32x4_add(q[t], wasm_i32x4_splat(0x7f)), 23));
      continue;
    }
    const v128_t half = wasm_i32x4_shr(q[t], 1);
    const v128_t bias = wasm_i32x4_splat(0x7f);
    const v128_t p1 = wasm_i32x4_shl(wasm_i32x4_add(half, bias), 23);
    const v128_t p2 = wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_sub(q[t], half), bias), 23);
    v128_t r = wasm_f32x4_mul(wasm_f32x4_mul(uu, p1), p2);
    r = wasm_v128_bitselect(wasm_f32x4_splat(0.0f), r, wasm_f32x4_lt(d[t], wasm_f32x4_splat(-104.0f)));
    r = wasm_v128_bitselect(wasm_f32x4_splat(__builtin_inff()), r, wasm_f32x4_gt(d[t], wasm_f32x4_splat(100.0f)));
    out[t] = wasm_v128_bitselect(wasm_i32x4_splat(0x7fc00000), r, wasm_f32x4_ne(d[t], d[t]));
  }
}

// max(x), NaN if x holds one. Four accumulators over 16 values at a time
// (one pmax chain would wait on its own latency). The order only decides
// whether a max of 0 comes back as +0 or −0, which no caller can tell apart:
// they compare with it and subtract it (x − (±0) is the same number, and
// exp(±0) = 1). *min16 is the min of the values the 16-wide loop saw (+inf
// if none, and meaningless when the max is NaN).
inline float max_row(const float* x, int n, float* min16) {
  v128_t mx = wasm_f32x4_splat(-__builtin_inff());
  v128_t nan_any = wasm_i32x4_splat(0);
  int j = 0;
  *min16 = __builtin_inff();
  if (n >= 16) {
    const v128_t pinf = wasm_f32x4_splat(__builtin_inff());
    v128_t m4[4] = {mx, mx, mx, mx}, lo[4] = {pinf, pinf, pinf, pinf}, bad[4] = {nan_any, nan_any, nan_any, nan_any};
    for (; j + 16 <= n; j += 16) {
      for (int t = 0; t < 4; ++t) {
        const v128_t v = wasm_v128_load(x + j + 4 * t);
        bad[t] = wasm_v128_or(bad[t], wasm_f32x4_ne(v, v));
        m4[t] = wasm_f32x4_pmax(m4[t], v);
        lo[t] = wasm_f32x4_pmin(lo[t], v);
      }
    }
    mx = wasm_f32x4_pmax(wasm_f32x4_pmax(m4[0], m4[1]), wasm_f32x4_pmax(m4[2], m4[3]));
    nan_any = wasm_v128_or(wasm_v128_or(bad[0], bad[1]), wasm_v128_or(bad[2], bad[3]));
    const v128_t l = wasm_f32x4_pmin(wasm_f32x4_pmin(lo[0], lo[1]), wasm_f32x4_pmin(lo[2], lo[3]));
    const float l0 = wasm_f32x4_extract_lane(l, 0), l1 = wasm_f32x4_extract_lane(l, 1),
                l2 = wasm_f32x4_extract_lane(l, 2), l3 = wasm_f32x4_extract_lane(l, 3);
    const float a = l1 < l0 ? l1 : l0, b = l3 < l2 ? l3 : l2;
    *min16 = b < a ? b : a;
  }
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

// e = exp(x − m) over the whole 16-blocks of x (n); returns how many values
// that was. SkipMasked: a block of 16 −inf is stored as 0 without its exps
// (exp(−inf) = 0 under a finite max). Two loops rather than one test: the
// test's mere presence in the loop cost about 15 % on rows with nothing
// masked.
template <bool SkipMasked, bool Narrow>
int exps16(const float* x, float* e, int n, v128_t mv) {
  const v128_t ninf = wasm_f32x4_splat(-__builtin_inff());
  int j = 0;
  for (; j + 16 <= n; j += 16) {
    v128_t v[4];
    for (int t = 0; t < 4; ++t) v[t] = wasm_v128_load(x + j + 4 * t);
    if (SkipMasked) {
      v128_t all_masked = wasm_f32x4_eq(v[0], ninf);
      for (int t = 1; t < 4; ++t) all_masked = wasm_v128_and(all_masked, wasm_f32x4_eq(v[t], ninf));
      if (wasm_i32x4_all_true(all_masked)) {
        for (int t = 0; t < 4; ++t) wasm_v128_store(e + j + 4 * t, wasm_f32x4_splat(0.0f));
        continue;
      }
    }
    for (int t = 0; t < 4; ++t) v[t] = wasm_f32x4_sub(v[t], mv);
    exp4_n<4, Narrow>(v, v);
    for (int t = 0; t < 4; ++t) wasm_v128_store(e + j + 4 * t, v[t]);
  }
  return j;
}

}  // namespace

// 4 × 8 measured fastest in node 20 (V8): 38 GFLOP/s at 512 × 768 × 768,
// against 27 for 4 × 12 and 6 × 8 (register spills).
void gemm_wasm(const GemmArgs& g) { gemm_blocked<WasmKernel<2>>(g); }

void exp_row_wasm(const float* x, float* y, int n) {
  int j = 0;
  for (; j + 16 <= n; j += 16) {
    v128_t v[4];
    for (int t = 0; t < 4; ++t) v[t] = wasm_v128_load(x + j + 4 * t);
    exp4_n<4>(v, v);
    for (int t = 0; t < 4; ++t) wasm_v128_store(y + j + 4 * t, v[t]);
  }
  for (; j + 4 <= n; j += 4) {
    v128_t v = wasm_v128_load(x + j);
    exp4_n<1>(&v, &v);
    wasm_v128_store(y + j, v);
  }
  for (; j < n; ++j) y[j] = exp_f32(x[j]);
}

float softmax_exps_wasm(const float* x, float* e, int n, float ceiling) {
  float min16;
  const float mx = max_row(x, n, &min16);
  if (ceiling == ceiling && !(mx <= ceiling)) return mx;
  const float m = ceiling == ceiling ? ceiling : mx;
  const v128_t mv = wasm_f32x4_splat(m);
  // With a finite m (the max, or a ceiling above it) every x − m is at most
  // 0 and not NaN, and rounding is monotonic, so min16 − m is the lowest
  // x − m of the 16-blocks: at or above kNarrowExpLow, they take exp4_n's
  // narrow form. Only rows with a −inf look for blocks of them.
  const bool finite = m - m == 0.0f;
  int j;
  if (finite && min16 - m >= kNarrowExpLow) {
    j = exps16<false, true>(x, e, n, mv);
  } else if (finite && min16 == -__builtin_inff()) {
    j = exps16<true, false>(x, e, n, mv);
  } else {
    j = exps16<false, false>(x, e, n, mv);
  }
  if (j < n) {
    // The last n − j < 16 values as one padded 16-block (padding x = m: exp 1,
    // dropped): four vectors in lockstep instead of up to three single-vector
    // exps, each a chain of dependent emulated FMAs, and up to three scalar
    // exp_f32. Every lane of exp4_n is exp_f32 of its value, bit for bit, so
    // the bits are those of the loops this replaces. A causal row has such a
    // tail at every length not a multiple of 16: 0.5 ms of the S = 512 forward.
    alignas(16) float buf[16];
    const int rest = n - j;
    for (int t = 0; t < 16; ++t) buf[t] = t < rest ? x[j + t] : m;
    v128_t v[4];
    for (int t = 0; t < 4; ++t) v[t] = wasm_f32x4_sub(wasm_v128_load(buf + 4 * t), mv);
    exp4_n<4>(v, v);
    for (int t = 0; t < 4; ++t) wasm_v128_store(buf + 4 * t, v[t]);
    for (int t = 0; t < rest; ++t) e[j + t] = buf[t];
  }
  return mx;
}

void softmax_normalize_wasm(const float* e, float* y, int n) {
  // sum_f32_torch: lanes 0-3 and 4-7 as two vectors.
  float sum;
  if (n < 8) {
    sum = e[0];
    for (int t = 1; t < n; ++t) sum = sum + e[t];
  } else {
    v128_t lo = wasm_v128_load(e), hi = wasm_v128_load(e + 4);
    int d = 8;
    for (; d + 8 <= n; d += 8) {
      lo = wasm_f32x4_add(lo, wasm_v128_load(e + d));
      hi = wasm_f32x4_add(hi, wasm_v128_load(e + d + 4));
    }
    float lane[8];
    wasm_v128_store(lane, lo);
    wasm_v128_store(lane + 4, hi);
    for (int t = 0; d + t < n; ++t) lane[t] = lane[t] + e[d + t];
    const float a0 = lane[0] + lane[4], a1 = lane[1] + lane[5];
    const float a2 = lane[2] + lane[6], a3 = lane[3] + lane[7];
    sum = (a0 + a2) + (a1 + a3);
  }
  const float inv = 1.0f / sum;
  const v128_t iv = wasm_f32x4_splat(inv);
  int j = 0;
  for (; j + 4 <= n; j += 4) wasm_v128_store(y + j, wasm_f32x4_mul(wasm_v128_load(e + j), iv));
  for (; j < n; ++j) y[j] = e[j] * inv;
}

namespace {

// masked_row_wasm's loops. Mul: every division by the divisor is a product with
// its reciprocal rcp, which is the same number when the divisor is a power of
// two (exact_reciprocal): both operations round the one real value x · 2^−e.
template <bool Mul>
void masked_row_loops(const float* scores, float* y, int n, int i, v128_t dv, bool causal, const uint8_t* key_padded,
                      float fill) {
  auto scaled = [dv](v128_t x) { return Mul ? wasm_f32x4_mul(x, dv) : wasm_f32x4_div(x, dv); };
  const v128_t fv = wasm_f32x4_splat(fill);
  const v128_t iv = wasm_i32x4_splat(i);
  int j = 0;
  if (key_padded == nullptr) {
    // Keys up to the diagonal (all of them without a causal mask) are never
    // masked: a plain division, without building each 4-block's mask.
    const int live = causal ? (i + 1 < n ? i + 1 : n) : n;
    for (; j + 4 <= live; j += 4) wasm_v128_store(y + j, scaled(wasm_v128_load(scores + j)));
  }
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
    wasm_v128_store(y + j, wasm_v128_bitselect(fv, scaled(wasm_v128_load(scores + j)), m));
  }
  const float d = wasm_f32x4_extract_lane(dv, 0);
  for (; j < n; ++j) {
    const bool masked = (causal && j > i) || (key_padded != nullptr && key_padded[j] != 0);
    y[j] = masked ? fill : (Mul ? scores[j] * d : scores[j] / d);
  }
}

}  // namespace

// The division is 3 cycles a vector where a product is half of one: 0.3 ms of
// the S = 512 forward, whose divisor is sqrt(64) = 8 (issue 37).
void masked_row_wasm(const float* scores, float* y, int n, int i, float divisor, bool causal,
                     const uint8_t* key_padded, float fill) {
  const float rcp = exact_reciprocal(divisor);
  if (rcp != 0.0f) {
    masked_row_loops<true>(scores, y, n, i, wasm_f32x4_splat(rcp), causal, key_padded, fill);
  } else {
    masked_row_loops<false>(scores, y, n, i, wasm_f32x4_splat(divisor), causal, key_padded, fill);
  }
}

}  // namespace detail
}  // namespace kernels
}  // namespace attnviz
#endif  // __wasm_simd128__
