// attnviz/torch_rng.h: PyTorch's CPU random numbers, bit for bit.
//
// The algorithms are those of PyTorch 1.13's CPU generator on an AVX2 machine
// (../shared/notes/torch-rng.md), checked against python3-torch on this
// project's build machine. One TorchGenerator is one `torch.manual_seed(seed)`
// followed by draws in the order PyTorch makes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace attnviz {

class TorchGenerator {
 public:
  // torch.manual_seed(seed): a 32-bit Mersenne Twister seeded with the low 32
  // bits of seed (negative Python seeds s arrive here as 2^64 + s).
  explicit TorchGenerator(uint64_t seed);

  uint32_t next32();          // one mt19937 draw
  uint64_t next64();          // two draws, first one high (torch random64)
  float uniform_float();      // (next32 & 0xFFFFFF) · 2^-24, in [0, 1)
  double uniform_double();    // (next64 & (2^53 − 1)) · 2^-53, in [0, 1)

  // torch.rand(n) / tensor.uniform_(): out (n) in row-major order.
  void rand(float* out, size_t n);
  // tensor.uniform_(from, to): bounds are rounded to float first, then
  // from + u·(to − from) with one rounding.
  void uniform(float* out, size_t n, double from, double to);

  // tensor.normal_(0, 1) / torch.randn on a contiguous float tensor of n
  // elements: the 16-wide Box–Muller fill for n >= 16, the cached scalar
  // double path below that.
  void normal(float* out, size_t n);

  // nn.Linear(in_features, out_features, bias) construction: weight
  // (out_features × in_features) by kaiming_uniform_(a = √5), then bias
  // (out_features, if not null) by uniform_(−1/√in, 1/√in).
  void linear_init(float* weight, float* bias, int in_features, int out_features);

  // nn.Dropout(p) in training mode on n elements (row-major): keep[i] = 1
  // when a double uniform is < 1 − p. Draws nothing when p == 0 or p == 1
  // (PyTorch short-circuits those: identity, and multiply by zero).
  void dropout_keep(uint8_t* keep, size_t n, double p);

  // torch.randperm(n) on the CPU (n < 2^24): 0..n-1 shuffled by Fisher–Yates,
  // position i swapped with i + next32() % (n − i).
  std::vector<int64_t> randperm(int64_t n);

 private:
  std::mt19937 engine_;
  bool has_cached_normal_ = false;  // torch's next_double_normal_sample
  double cached_normal_ = 0.0;
};

// The value a kept element is multiplied by in nn.Dropout(p):
// float32(1) / float32(1 − p), as PyTorch's noise.div_(1 − p) computes it.
float dropout_scale(double p);

}  // namespace attnviz
