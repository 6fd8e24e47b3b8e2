// bench_machine.cpp: the machine's SIMD peak, its read bandwidth and the
// forward's kernels one by one (bench_machine.h; docs/bench.md, "The
// machine's peak").
//
// The peak kernels use GCC/Clang vector types, so one source gives SIMD128 in
// the wasm build (-msimd128: f32x4.mul, f32x4.add) and SSE natively; natively
// on an AVX2 CPU the same kernels are compiled a second time for 8 lanes
// (target("avx2"), no FMA: the engine's products never fuse). The peak is the
// best of three shapes, each the best of several runs:
//   chains<16>  acc_i = acc_i·m + c, 16 independent chains (mul → add → mul …)
//   indep<8>    acc_i = acc_i + x_(i mod 4)·m, 8 chains of adds fed by free multiplies
//   tile<4, 2>  the wasm micro-kernel's own shape (4 rows × 2 vectors of
//               accumulators, a broadcast of A times two vectors of B) over a
//               packed panel that stays in L1; tile<3, 3> the same, 3 × 3
// Which one wins depends on the core (ports, latencies, how many vector
// registers the engine's compiler keeps), hence the max, not one tuned kernel.
// Each run (about 3 ms) is timed on this process's CPU time, like the
// figures it divides: on the wall clock a run that another process preempts
// counts that process's time too (at load 10 on two cores that made the peak
// 30 % low and the forward's fraction 1.17).
#include "bench_machine.h"
#include "bench_clock.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <time.h>

#ifdef __EMSCRIPTEN__
#include <emscripten/em_asm.h>
#endif

#include "attnviz/kernels.h"
#include "attnviz/state.h"

namespace attnviz_cli {
namespace {

double r3(double x) { return std::round(x * 1000.0) / 1000.0; }

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// A value the optimiser cannot see through (the kernels' constants come from
// it, so nothing is folded or hoisted out of the timed loops).
volatile float g_one = 1.0f, g_small = 1e-3f;
volatile float g_sink = 0.0f;

constexpr int kPeakRuns = 7;

// The peak kernels for vector type V of L lanes. ATTR is empty or target("avx2").
// (vec){x, …} and the may_alias load compile to a splat / load32_splat and a plain
// vector load; a lane loop or memcpy made Clang keep the tile in memory.
#define ATTNVIZ_PEAK_KERNELS(NS, L, ATTR, ...)                                             \
  namespace NS {                                                                           \
  typedef float vec __attribute__((vector_size(4 * L)));                                   \
  typedef float uvec __attribute__((vector_size(4 * L), aligned(4), may_alias));           \
  ATTR inline vec splat(float x) { return (vec){__VA_ARGS__}; }                            \
  template <int N>                                                                         \
  ATTR __attribute__((noinline)) double chains(int iters) {                                \
    const vec m = splat(g_one - 1e-4f), c = splat(g_small);                                \
    vec acc[N];                                                                            \
    for (int i = 0; i < N; ++i) acc[i] = splat(1.0f + 1e-3f * static_cast<float>(i));      \
    const double t0 = now_cpu_ms();                                                        \
    for (int it = 0; it < iters; ++it) {                                                   \
      for (int i = 0; i < N; ++i) acc[i] = acc[i] * m + c;                                 \
    }                                                                                      \
    const double t = now_cpu_ms() - t0;                                                    \
    float s = 0;                                                                           \
    for (int i = 0; i < N; ++i) s += acc[i][0];                                            \
    g_sink = g_sink + s;                                                                   \
    return 2.0 * L * N * static_cast<double>(iters) / (t * 1e6);                           \
  }                                                                                        \
  template <int N>                                                                         \
  ATTR __attribute__((noinline)) double indep(int iters) {                                 \
    vec m = splat(g_one), x[4], acc[N];                                                    \
    const vec zero = splat(g_small - g_small);                                             \
    for (int i = 0; i < 4; ++i) x[i] = splat(1e-3f * static_cast<float>(i + 1));           \
    for (int i = 0; i < N; ++i) acc[i] = splat(0.0f);                                      \
    const double t0 = now_cpu_ms();                                                        \
    for (int it = 0; it < iters; ++it) {                                                   \
      for (int i = 0; i < N; ++i) acc[i] = acc[i] + x[i % 4] * m;                          \
      m = m + zero; /* loop-carried: x_i·m is recomputed every time */                     \
    }                                                                                      \
    const double t = now_cpu_ms() - t0;                                                    \
    float s = 0;                                                                           \
    for (int i = 0; i < N; ++i) s += acc[i][0];                                            \
    g_sink = g_sink + s;                                                                   \
    return 2.0 * L * N * static_cast<double>(iters) / (t * 1e6);                           \
  }                                                                                        \
  /* panel: kK steps of MR broadcasts (ap) and NV vectors (bp), 64-byte aligned, in L1 */  \
  template <int MR, int NV>                                                                \
  ATTR __attribute__((noinline)) double tile(int iters, const float* ap, const float* bp,  \
                                             int kk) {                                     \
    vec acc[MR][NV];                                                                       \
    for (int r = 0; r < MR; ++r)                                                           \
      for (int v = 0; v < NV; ++v) acc[r][v] = splat(0.0f);                                \
    const double t0 = now_cpu_ms();                                                        \
    for (int it = 0; it < iters; ++it) {                                                   \
      const float* a = ap;                                                                 \
      const float* b = bp;                                                                 \
      for (int k = 0; k < kk; ++k) {                                                       \
        vec bv[NV];                                                                        \
        for (int v = 0; v < NV; ++v) bv[v] = *reinterpret_cast<const uvec*>(b + L * v);    \
        for (int r = 0; r < MR; ++r) {                                                     \
          const vec av = splat(a[r]);                                                      \
          for (int v = 0; v < NV; ++v) acc[r][v] = acc[r][v] + av * bv[v];                 \
        }                                                                                  \
        a += MR;                                                                           \
        b += L * NV;                                                                       \
      }                                                                                    \
    }                                                                                      \
    const double t = now_cpu_ms() - t0;                                                    \
    float s = 0;                                                                           \
    for (int r = 0; r < MR; ++r)                                                           \
      for (int v = 0; v < NV; ++v) s += acc[r][v][0];                                      \
    g_sink = g_sink + s;                                                                   \
    return 2.0 * L * MR * NV * static_cast<double>(kk) * iters / (t * 1e6);                \
  }                                                                                        \
  ATTR nlohmann::json peaks() {                                                            \
    constexpr int kK = 256;                                                                \
    std::vector<float> a(4 * kK + 16), b(3 * L * kK + 16);                                 \
    for (size_t i = 0; i < a.size(); ++i) a[i] = 1e-3f * static_cast<float>(i % 97);       \
    for (size_t i = 0; i < b.size(); ++i) b[i] = 1e-3f * static_cast<float>(i % 89);       \
    double c16 = 0, i8 = 0, t42 = 0, t33 = 0;                                              \
    for (int run = 0; run < kPeakRuns; ++run) {                                            \
      c16 = std::max(c16, chains<16>(450000));                                             \
      i8 = std::max(i8, indep<8>(900000));                                                 \
      t42 = std::max(t42, tile<4, 2>(1800, a.data(), b.data(), kK));                       \
      t33 = std::max(t33, tile<3, 3>(1500, a.data(), b.data(), kK));                       \
    }                                                                                      \
    return {{"chains16", r3(c16)}, {"indep8", r3(i8)}, {"tile4x2v", r3(t42)},              \
            {"tile3x3v", r3(t33)}};                                                        \
  }                                                                                        \
  }

ATTNVIZ_PEAK_KERNELS(v4, 4, , x, x, x, x)
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
ATTNVIZ_PEAK_KERNELS(v8, 8, __attribute__((target("avx2"))), x, x, x, x, x, x, x, x)
#endif
#undef ATTNVIZ_PEAK_KERNELS

double best_of(const nlohmann::json& kernels) {
  double best = 0;
  for (const auto& kv : kernels.items()) best = std::max(best, kv.value().get<double>());
  return best;
}

// GB/s of summing n floats (a vector sum, 8 accumulators) over and over.
double read_gbs(size_t bytes) {
  const size_t n = bytes / sizeof(float);
  std::vector<float> buf(n, 1.0f);
  typedef float vec __attribute__((vector_size(16)));
  typedef float uvec __attribute__((vector_size(16), aligned(4), may_alias));
  const size_t passes = std::max<size_t>(1, (64u << 20) / bytes);  // about 64 MB read per run
  double best = 0;
  for (int run = 0; run < 5; ++run) {
    vec acc[8] = {};
    const double t0 = now_cpu_ms();
    for (size_t p = 0; p < passes; ++p) {
      for (size_t i = 0; i + 32 <= n; i += 32) {
        for (int v = 0; v < 8; ++v) {
          acc[v] = acc[v] + *reinterpret_cast<const uvec*>(buf.data() + i + 4 * v);
        }
      }
    }
    const double t = now_cpu_ms() - t0;
    float s = 0;
    for (int v = 0; v < 8; ++v) s += acc[v][0];
    g_sink = g_sink + s;
    if (t > 0) best = std::max(best, static_cast<double>(bytes) * passes / (t * 1e6));
  }
  return best;
}

}  // namespace

std::string cpu_model() {
  std::string model;
#ifdef __EMSCRIPTEN__
  char buf[256] = {0};
  EM_ASM(
      {
        let m = "";
        try {
          m = require("os").cpus()[0].model;
        } catch (e) {
        }
        for (let i = 0; i < m.length && i < 255; ++i) {
          const c = m.charCodeAt(i);
          HEAPU8[$0 + i] = c < 128 ? c : 63;
        }
      },
      buf);
  model = buf;
#else
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) model = line.substr(line.find_first_not_of(" \t", colon + 1));
      break;
    }
  }
#endif
  return model.empty() ? "unknown" : model;
}

nlohmann::json measure_peak() {
  nlohmann::json j;
  const attnviz::kernels::Isa isa = attnviz::kernels::active_isa();
  const nlohmann::json k4 = v4::peaks();
  j["peak_isa"] = attnviz::kernels::isa_name(isa);
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
  if (isa == attnviz::kernels::Isa::avx2) {
    const nlohmann::json k8 = v8::peaks();
    j["peak_gflops"] = best_of(k8);
    j["peak_lanes"] = 8;
    j["peak_kernels"] = k8;
    j["peak_simd128_gflops"] = best_of(k4);
    j["peak_simd128_kernels"] = k4;
    return j;
  }
#endif
  j["peak_gflops"] = best_of(k4);
  j["peak_lanes"] = 4;
  j["peak_kernels"] = k4;
  return j;
}

nlohmann::json measure_peak_again(const nlohmann::json& before) {
  nlohmann::json j = measure_peak();
  for (const char* kernels : {"peak_kernels", "peak_simd128_kernels"}) {
    if (!j.contains(kernels) || !before.contains(kernels)) continue;
    for (auto& kv : j[kernels].items()) {
      kv.value() = std::max(kv.value().get<double>(), before[kernels].value(kv.key(), 0.0));
    }
  }
  j["peak_gflops"] = best_of(j["peak_kernels"]);
  if (j.contains("peak_simd128_kernels")) j["peak_simd128_gflops"] = best_of(j["peak_simd128_kernels"]);
  return j;
}

nlohmann::json measure_bandwidth() {
  return {{"bandwidth_gbs",
           {{"l1_16k", r3(read_gbs(16u << 10))}, {"l2_512k", r3(read_gbs(512u << 10))},
            {"mem_32m", r3(read_gbs(32u << 20))}}}};
}

namespace {

// Accumulated CPU and wall milliseconds of one kernel over one forward.
struct Clock {
  double cpu = 0, wall = 0, c0 = 0, w0 = 0;
  void start() {
    c0 = now_cpu_ms();
    w0 = now_ms();
  }
  void stop() {
    cpu += now_cpu_ms() - c0;
    wall += now_ms() - w0;
  }
};

enum Part { kQkv, kScores, kSoftmax, kContext, kOutput, kParts };
constexpr const char* kPartNames[kParts] = {"qkv", "scores", "softmax", "context", "output"};

// The buffers of one forward, as the pipeline holds them (every head its own).
struct Forward {
  int S = 0, dm = 0, dout = 0, H = 0, hd = 0;
  bool causal = false;
  float divisor = 1;
  const float *X = nullptr, *W[3] = {}, *bias[3] = {}, *Wo = nullptr, *bo = nullptr;
  std::vector<float> qkv[3];            // Q, K, V: (S × d_out) each
  std::vector<float> QT, KT;            // (d_out × S) each
  std::vector<float> scores, exps, w;   // (H × S × S) each
  std::vector<float> ctx;               // (H × S × head_dim)
  std::vector<float> concat, out;       // (S × d_out) each
  std::vector<int> rows, k_end;         // (S) each
  double context_macs = 0;              // multiply-adds the context product ran (k_end)
};

const float* ptr(const attnviz::SharedTensor& t) { return t.empty() ? nullptr : t->data.data(); }

// One forward; clocks[p] gets each part's time, other the transposes and concat.
void run_forward(Forward& f, Clock* clocks, Clock* other) {
  namespace k = attnviz::kernels;
  const int S = f.S, hd = f.hd;
  const size_t SS = static_cast<size_t>(S) * S;
  clocks[kQkv].start();
  for (int m = 0; m < 3; ++m) {
    k::matmul_rows(f.X, f.dm, f.W[m], f.dout, f.bias[m], f.qkv[m].data(), f.dout, f.dm, f.dout, f.rows.data(), S);
  }
  clocks[kQkv].stop();
  other->start();
  k::transpose(f.qkv[0].data(), f.dout, S, f.dout, f.QT.data(), S);  // Qᵀ: kept for column updates
  k::transpose(f.qkv[1].data(), f.dout, S, f.dout, f.KT.data(), S);
  other->stop();
  f.context_macs = 0;
  for (int h = 0; h < f.H; ++h) {
    float* sc = f.scores.data() + h * SS;
    float* ex = f.exps.data() + h * SS;
    float* wt = f.w.data() + h * SS;
    clocks[kScores].start();
    k::matmul_rows(f.qkv[0].data() + h * hd, f.dout, f.KT.data() + static_cast<size_t>(h) * hd * S, S, nullptr, sc,
                   S, hd, S, f.rows.data(), S);
    clocks[kScores].stop();
    clocks[kSoftmax].start();
    for (int r = 0; r < S; ++r) {  // softmax_rows.cpp, compute_weights_row with kept exps
      const size_t o = static_cast<size_t>(r) * S;
      const int cut = f.causal ? k::softmax_cut(r + 1, S) : S;
      const int live = f.causal ? r + 1 : S;
      k::masked_row(sc + o, ex + o, cut, r, f.divisor, f.causal, nullptr, -INFINITY);
      const float mx = k::softmax_exps(ex + o, ex + o, live);
      k::fill_zero(ex + o + live, static_cast<size_t>(cut - live));  // past the cut: not kept
      k::softmax_normalize(ex + o, wt + o, cut);
      k::fill_zero(wt + o + cut, static_cast<size_t>(S - cut));
      (void)mx;
    }
    clocks[kSoftmax].stop();
    clocks[kContext].start();
    for (int r = 0; r < S; ++r) {  // weights_zero_from: +0 from the cut on
      const int e = k::nonzero_end(wt + static_cast<size_t>(r) * S, f.causal ? k::softmax_cut(r + 1, S) : S);
      f.k_end[static_cast<size_t>(r)] = e;
      f.context_macs += static_cast<double>(e) * hd;
    }
    k::matmul_rows(wt, S, f.qkv[2].data() + h * hd, f.dout, nullptr, f.ctx.data() + static_cast<size_t>(h) * S * hd,
                   hd, S, hd, f.rows.data(), S, f.k_end.data());
    clocks[kContext].stop();
  }
  other->start();
  for (int r = 0; r < S; ++r) {
    for (int h = 0; h < f.H; ++h) {
      std::memcpy(f.concat.data() + static_cast<size_t>(r) * f.dout + h * hd,
                  f.ctx.data() + (static_cast<size_t>(h) * S + r) * hd, sizeof(float) * hd);
    }
  }
  other->stop();
  clocks[kOutput].start();
  k::matmul_rows(f.concat.data(), f.dout, f.Wo, f.dout, f.bo, f.out.data(), f.dout, f.dout, f.dout, f.rows.data(), S);
  clocks[kOutput].stop();
}

}  // namespace

nlohmann::json measure_kernels(const attnviz::State& s, int reps, double peak_gflops, double full_cpu_ms) {
  Forward f;
  f.S = static_cast<int>(s.tokens.size());
  f.dm = s.d_model;
  f.dout = s.d_out;
  f.H = s.num_heads;
  f.hd = f.dout / f.H;
  f.causal = s.causal;
  f.divisor = std::sqrt(static_cast<float>(f.hd));
  f.X = ptr(s.embedding.values);
  const attnviz::SharedTensor* W[3] = {&s.weights.W_q, &s.weights.W_k, &s.weights.W_v};
  const attnviz::SharedTensor* B[3] = {&s.weights.b_q, &s.weights.b_k, &s.weights.b_v};
  for (int m = 0; m < 3; ++m) {
    f.W[m] = ptr(*W[m]);
    f.bias[m] = ptr(*B[m]);
    f.qkv[m].resize(static_cast<size_t>(f.S) * f.dout);
  }
  f.Wo = ptr(s.weights.W_o);
  f.bo = ptr(s.weights.b_o);
  // Only the bench's plain layer: explicit values, out_proj, one K/V head per head,
  // no RoPE, ALiBi or window (issue 23's variants run other code).
  const bool gqa = s.num_kv_heads != 0 && s.num_kv_heads != s.num_heads;
  if (f.X == nullptr || f.W[0] == nullptr || f.Wo == nullptr || gqa || s.alibi || s.window > 0 ||
      s.positional == attnviz::Positional::rope)
    return nullptr;
  const size_t SS = static_cast<size_t>(f.S) * f.S;
  f.QT.resize(static_cast<size_t>(f.dout) * f.S);
  f.KT.resize(static_cast<size_t>(f.dout) * f.S);
  f.scores.resize(SS * f.H);
  f.exps.resize(SS * f.H);
  f.w.resize(SS * f.H);
  f.ctx.resize(static_cast<size_t>(f.S) * f.dout);
  f.concat.resize(static_cast<size_t>(f.S) * f.dout);
  f.out.resize(static_cast<size_t>(f.S) * f.dout);
  f.rows.resize(static_cast<size_t>(f.S));
  f.k_end.resize(static_cast<size_t>(f.S));
  for (int i = 0; i < f.S; ++i) f.rows[static_cast<size_t>(i)] = i;

  std::vector<double> cpu[kParts], wall[kParts], other_cpu;
  for (int rep = -1; rep < reps; ++rep) {  // rep −1: a warm-up
    Clock clocks[kParts], other;
    run_forward(f, clocks, &other);
    if (rep < 0) continue;
    for (int p = 0; p < kParts; ++p) {
      cpu[p].push_back(clocks[p].cpu);
      wall[p].push_back(clocks[p].wall);
    }
    other_cpu.push_back(other.cpu);
  }
  const double S = f.S, dm = f.dm, dout = f.dout;
  // GFLOP each part executes: softmax none counted; the context its k_end terms.
  const double gflop[kParts] = {3 * 2 * S * dm * dout / 1e9, 2 * S * S * dout / 1e9, 0,
                                2 * f.context_macs / 1e9, 2 * S * dout * dout / 1e9};
  nlohmann::json j = nlohmann::json::object();
  double sum = 0;
  for (int p = 0; p < kParts; ++p) {
    const double ms = median_of(cpu[p]);
    sum += ms;
    const double g = gflop[p];
    nlohmann::json e = {{"ms", r3(ms)}, {"wall_ms", r3(median_of(wall[p]))}, {"gflop", r3(g)}};
    if (g > 0 && ms > 0) {
      e["gflops"] = r3(g / ms * 1e3);
      if (peak_gflops > 0) e["of_peak"] = r3(g / ms * 1e3 / peak_gflops);
    }
    j[kPartNames[p]] = e;
  }
  j["transpose_concat_ms"] = r3(median_of(other_cpu));
  j["other_ms"] = r3(full_cpu_ms - sum);  // the forward's time outside the five (incl. transposes, allocation)
  return j;
}

}  // namespace attnviz_cli
