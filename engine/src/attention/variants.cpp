// The arithmetic of the attention variants (attnviz/variants.h).
#include "attnviz/variants.h"

#include <cmath>

namespace attnviz {

std::vector<float> rope_inv_freq(double base, int head_dim) {
  const int half = head_dim / 2;
  std::vector<float> out(static_cast<size_t>(half));
  const float b = static_cast<float>(base);
  for (int k = 0; k < half; ++k) {
    const float e = static_cast<float>(2 * k) / static_cast<float>(head_dim);  // arange(0, dim, 2).float() / dim
    const float pw = static_cast<float>(std::pow(static_cast<double>(b), static_cast<double>(e)));  // base ** e
    out[static_cast<size_t>(k)] = 1.0f / pw;
  }
  return out;
}

void rope_table(double base, int head_dim, int S, RopeTable* t) {
  t->S = S;
  t->half = head_dim / 2;
  t->inv_freq = rope_inv_freq(base, head_dim);
  const size_t n = static_cast<size_t>(S) * static_cast<size_t>(t->half);
  t->cos.resize(n);
  t->sin.resize(n);
  for (int p = 0; p < S; ++p) {
    for (int k = 0; k < t->half; ++k) {
      const double a = rope_angle(p, t->inv_freq[static_cast<size_t>(k)]);
      const size_t at = static_cast<size_t>(p) * static_cast<size_t>(t->half) + static_cast<size_t>(k);
      t->cos[at] = static_cast<float>(std::cos(a));
      t->sin[at] = static_cast<float>(std::sin(a));
    }
  }
}

int rope_partner(RopeStyle style, int head_dim, int c) {
  const int half = head_dim / 2;
  if (style == RopeStyle::interleaved) return c ^ 1;
  return c < half ? c + half : c - half;
}

int rope_freq_index(RopeStyle style, int head_dim, int c) {
  return style == RopeStyle::interleaved ? c / 2 : c % (head_dim / 2);
}

void rope_rotate_row(RopeStyle style, const RopeTable& t, int p, const float* x, float* y, int head_dim) {
  const float* cs = t.cos.data() + static_cast<size_t>(p) * static_cast<size_t>(t.half);
  const float* sn = t.sin.data() + static_cast<size_t>(p) * static_cast<size_t>(t.half);
  for (int k = 0; k < t.half; ++k) {
    const int a = style == RopeStyle::interleaved ? 2 * k : k;
    const int b = style == RopeStyle::interleaved ? 2 * k + 1 : k + t.half;
    const float c = cs[k], s = sn[k];
    // q * cos + rotate_half(q) * sin: rotate_half puts −x_b at a and x_a at b.
    const float ya = x[a] * c + (-x[b]) * s;
    const float yb = x[b] * c + x[a] * s;
    y[a] = ya;
    y[b] = yb;
  }
}

namespace {

// get_slopes_power_of_2(n): start = 2^(−2^−(log2(n) − 3)); [start · start^i for i < n].
void slopes_power_of_2(int n, std::vector<double>* out) {
  const double start = std::pow(2.0, -std::pow(2.0, -(std::log2(static_cast<double>(n)) - 3.0)));
  const double ratio = start;
  for (int i = 0; i < n; ++i) out->push_back(start * std::pow(ratio, static_cast<double>(i)));
}

void slopes(int n, std::vector<double>* out) {
  const double l = std::log2(static_cast<double>(n));
  if (l == std::floor(l)) {
    slopes_power_of_2(n, out);
    return;
  }
  const int closest = 1 << static_cast<int>(std::floor(l));
  slopes_power_of_2(closest, out);
  std::vector<double> twice;
  slopes(2 * closest, &twice);
  for (int i = 0; i < n - closest; ++i) out->push_back(twice[static_cast<size_t>(2 * i)]);
}

}  // namespace

std::vector<float> alibi_slopes(int num_heads) {
  std::vector<double> d;
  if (num_heads > 0) slopes(num_heads, &d);
  std::vector<float> out(d.size());
  for (size_t i = 0; i < d.size(); ++i) out[i] = static_cast<float>(d[i]);
  return out;
}

}  // namespace attnviz
