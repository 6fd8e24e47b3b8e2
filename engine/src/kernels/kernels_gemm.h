// Internal to kernels_avx2.cpp and kernels_wasm.cpp: the cache-blocked matrix
// product both vector builds share; only the micro-kernel (UK) differs.
//
// Everything here has internal linkage (anonymous namespace), so each
// instruction set's copy stays in its own translation unit (see
// kernels_internal.h on why that matters for AVX2).
//
// Blocking, for C[rows] = A[rows] · B with A (M × K), B (K × N):
//   for each k-block of KC rows of B           (partial sums stay in C: a
//                                               stored float32 is exact, so
//                                               the order k = 0..K−1 holds)
//     pack B's k-block into NR-column panels   (kc × NR each, contiguous,
//                                               zero-padded past N)
//     for each block of MC rows of A            (MC × KC of A: in L2)
//       for each panel                          (KC × NR: in L1)
//         for each group of MR rows             (MR × NR accumulators in
//                                               registers: the micro-kernel)
//         (UK::kPackA: each MR-row group's k-block of A is first
//          interleaved into (klen × MR) at g.apack, once per row block, so
//          the micro-kernel walks two pointers with constant offsets; that
//          is what lets V8 keep wasm's 4 × 8 tile free of address arithmetic)
// With few rows (an incremental update) packing would cost as much as the
// product, so B is read in place. Column panels narrower than NR (N not a
// multiple of NR) go through a scalar edge loop with the same arithmetic.
#pragma once

#include <cstddef>
#include <cstring>

#include "kernels/kernels_internal.h"

namespace attnviz {
namespace kernels {
namespace detail {
namespace {

constexpr int kKC = 256;  // rows of B per k-block (pack_floats in kernels.cpp assumes 256)
constexpr int kMinRowsToPack = 8;
constexpr int kMaxMC = 72;  // rows per row block at most (MR · 12, MR <= 6): apack_floats in kernels.cpp

// One MR × nr tile (nr < NR) with plain loops: acc = acc + a·b in k order.
inline void edge_tile(const float* const* a, int mr, int klen, const float* b, size_t ldb,
                      float* const* c, int nr, bool first) {
  for (int r = 0; r < mr; ++r) {
    for (int j = 0; j < nr; ++j) {
      float acc = first ? 0.0f : c[r][j];
      for (int kk = 0; kk < klen; ++kk) acc = acc + a[r][kk] * b[static_cast<size_t>(kk) * ldb + j];
      c[r][j] = acc;
    }
  }
}

template <class UK>
void tile(const float* const* a, int mr, int klen, const float* b, size_t ldb, float* const* c,
          bool first) {
  switch (mr) {
    case 1: UK::template run<1>(a, klen, b, ldb, c, first); break;
    case 2: UK::template run<2>(a, klen, b, ldb, c, first); break;
    case 3: UK::template run<3>(a, klen, b, ldb, c, first); break;
    case 4: UK::template run<4>(a, klen, b, ldb, c, first); break;
    case 5: if constexpr (UK::MR >= 5) UK::template run<5>(a, klen, b, ldb, c, first); break;
    case 6: if constexpr (UK::MR >= 6) UK::template run<6>(a, klen, b, ldb, c, first); break;
    default: break;
  }
}

// UK: NR (columns per tile), MR (rows per tile, 4..6),
//     template <int R> static void run(a[R], klen, b, ldb, c[R], first):
//         c[r][0..NR) = (first ? 0 : c[r][0..NR)) + Σ_{kk<klen} a[r][kk] · b[kk·ldb + 0..NR)
//     static void add_bias(float* c, const float* bias, int n)
//     kPackA (bool) and, when true,
//     static void run_packed(ap, klen, b, ldb, c[MR], first): as run<MR> with
//         a[r][kk] = ap[kk·MR + r]
//     static void pack_a(a[MR], klen, ap): ap[kk·MR + r] = a[r][kk] for kk < klen
template <class UK>
void gemm_blocked(const GemmArgs& g) {
  constexpr int NR = UK::NR, MR = UK::MR;
  constexpr int MC = MR * 12;
  static_assert(MC <= kMaxMC, "apack_floats() is sized for kMaxMC rows");
  const bool pack = g.pack != nullptr && g.num_rows >= kMinRowsToPack;
  const bool pack_a = UK::kPackA && pack && g.apack != nullptr;
  const int full_panels = g.n / NR;
  const int k_blocks = g.k > 0 ? (g.k + kKC - 1) / kKC : 1;
  const float* arow[MR];
  float* crow[MR];
  for (int kbi = 0; kbi < k_blocks; ++kbi) {
    const int kb = kbi * kKC;
    const int kc = g.k - kb < kKC ? g.k - kb : kKC;
    const bool first = kb == 0;
    if (pack) {  // panel p: (kc × NR) at g.pack + p·kc·NR, full panels only
      for (int p = 0; p < full_panels; ++p) {
        float* dst = g.pack + static_cast<size_t>(p) * kc * NR;
        const float* src = g.b + static_cast<size_t>(kb) * g.ldb + static_cast<size_t>(p) * NR;
        for (int kk = 0; kk < kc; ++kk) {
          std::memcpy(dst + static_cast<size_t>(kk) * NR, src + static_cast<size_t>(kk) * g.ldb, sizeof(float) * NR);
        }
      }
    }
    for (int rb = 0; rb < g.num_rows; rb += MC) {
      const int rend = rb + MC < g.num_rows ? rb + MC : g.num_rows;
      for (int j0 = 0; j0 < g.n; j0 += NR) {
        const int nr = g.n - j0 < NR ? g.n - j0 : NR;
        const int p = j0 / NR;
        const float* bp = pack && nr == NR ? g.pack + static_cast<size_t>(p) * kc * NR
                                           : g.b + static_cast<size_t>(kb) * g.ldb + j0;
        const size_t ldb = pack && nr == NR ? static_cast<size_t>(NR) : static_cast<size_t>(g.ldb);
        for (int t0 = rb; t0 < rend; t0 += MR) {
          const int mr = rend - t0 < MR ? rend - t0 : MR;
          int kmax = g.k;
          if (g.k_end != nullptr) {
            kmax = 0;
            for (int t = 0; t < mr; ++t) kmax = g.k_end[t0 + t] > kmax ? g.k_end[t0 + t] : kmax;
          }
          int klen = kmax - kb;
          klen = klen < 0 ? 0 : (klen > kc ? kc : klen);
          if (!first && klen == 0) continue;  // nothing to add to the stored sums
          for (int t = 0; t < mr; ++t) {
            arow[t] = g.a + static_cast<size_t>(g.rows[t0 + t]) * g.lda + kb;
            crow[t] = g.c + static_cast<size_t>(g.rows[t0 + t]) * g.ldc + j0;
          }
          if constexpr (UK::kPackA) {
            if (pack_a && mr == MR) {
              // group (t0 − rb) / MR: (klen × MR) at apack + (t0 − rb)·kKC, packed at
              // the first panel and reused by the others (klen does not depend on j0).
              float* ap = g.apack + static_cast<size_t>(t0 - rb) * kKC;
              if (j0 == 0) UK::pack_a(arow, klen, ap);
              if (nr == NR) {
                UK::run_packed(ap, klen, bp, ldb, crow, first);
                continue;
              }
            }
          }
          if (nr == NR) {
            tile<UK>(arow, mr, klen, bp, ldb, crow, first);
          } else {
            edge_tile(arow, mr, klen, bp, ldb, crow, nr, first);
          }
        }
      }
    }
  }
  if (g.bias != nullptr) {
    for (int t = 0; t < g.num_rows; ++t) UK::add_bias(g.c + static_cast<size_t>(g.rows[t]) * g.ldc, g.bias, g.n);
  }
}

}  // namespace
}  // namespace detail
}  // namespace kernels
}  // namespace attnviz
