// attnviz/variants.h: the arithmetic of issue 23's attention variants, shared
// by the pipeline, the Inspector's explanations and the tests. Each function is
// written to give PyTorch's float32 bits as the models' reference code computes
// them (docs/engine.md, "Attention variants", has each definition beside its
// PyTorch lines; tests/fixtures/ checks them against python3-torch).
//
//   RoPE     inv_freq[k] = 1 / base^(2k / head_dim)            (head_dim / 2)
//            angle(p, k) = float32(p) · inv_freq[k]             float32 product
//            half:        pairs (k, k + head_dim/2)  (rotate_half: GPT-NeoX, Llama)
//            interleaved: pairs (2k, 2k + 1)         (rotate_every_two: GPT-J, RoFormer)
//            x'_a = x_a·cos − x_b·sin,  x'_b = x_b·cos + x_a·sin   (a < b the pair)
//   ALiBi    m_h from the paper's get_slopes(H), bias(i, j) = −(m_h · |i − j|)
//   window   kernels::outside_window (kernels.h)
//   GQA/MQA  query head h reads K/V head kv_head_of(h, H, G) = h / (H / G)
#pragma once

#include <vector>

#include "attnviz/state.h"

namespace attnviz {

// ---- RoPE ----
// inv_freq (head_dim / 2) as Llama's `1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))`:
// the exponent 2k / head_dim is a float32 quotient, base^e is taken from the float32 base and
// exponent and rounded to float32, and the reciprocal is a float32 division.
std::vector<float> rope_inv_freq(double base, int head_dim);
// The angle of position p for frequency k: the float32 product (torch.outer(t, inv_freq)).
inline float rope_angle(int p, float inv_freq) { return static_cast<float>(p) * inv_freq; }
// cos and sin of every position's angles, (S × head_dim / 2) each, row p = position p:
// cos(angle) and sin(angle) of the float32 angle, rounded to float32.
struct RopeTable {
  int S = 0, half = 0;      // half = head_dim / 2
  std::vector<float> inv_freq;   // (half)
  std::vector<float> cos, sin;   // (S × half)
};
void rope_table(double base, int head_dim, int S, RopeTable* t);
// The component paired with component c of a head_dim-wide row, and the
// frequency index k of that pair.
int rope_partner(RopeStyle style, int head_dim, int c);
int rope_freq_index(RopeStyle style, int head_dim, int c);
// y = x rotated for position p (x, y: head_dim floats, no alias). Each output is
// fl(fl(x_a·cos) + fl(∓x_b·sin)), products rounded first, as `q * cos + rotate_half(q) * sin`.
void rope_rotate_row(RopeStyle style, const RopeTable& t, int p, const float* x, float* y, int head_dim);

// ---- ALiBi ----
// The slopes m_0 … m_{H−1} of ofirpress/attention_with_linear_biases' get_slopes(H),
// computed in double as that Python code does and rounded to float32.
std::vector<float> alibi_slopes(int num_heads);

// ---- GQA / MQA ----
inline int kv_head_of(int h, int num_heads, int num_kv_heads) { return h / (num_heads / num_kv_heads); }

}  // namespace attnviz
