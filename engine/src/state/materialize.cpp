// materialize.cpp: see attnviz/materialize.h.
#include "attnviz/materialize.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "pipeline/pipeline_internal.h"

namespace attnviz {

State materialize_embedding(const State& s) {
  State out = s;
  if (s.embedding.init == EmbeddingInit::values) return out;
  State no_pos = s;
  no_pos.positional = Positional::none;
  Tensor x;  // (S × d_model)
  detail::build_x(no_pos, &x);
  out.embedding.init = EmbeddingInit::values;
  out.embedding.values = std::move(x);
  return out;
}

State materialize_weights(const State& s) {
  State out = s;
  if (s.weights.init == WeightInit::values) return out;
  detail::Params p;
  detail::build_params(s, &p);
  out.weights.init = WeightInit::values;
  out.weights.W_q = std::move(p.W_q);
  out.weights.W_k = std::move(p.W_k);
  out.weights.W_v = std::move(p.W_v);
  out.weights.W_o = std::move(p.W_o);
  out.weights.b_q = std::move(p.b_q);
  out.weights.b_k = std::move(p.b_k);
  out.weights.b_v = std::move(p.b_v);
  out.weights.b_o = std::move(p.b_o);
  return out;
}

namespace {

// The explicit rows of `e` (n of them) for out's tokens: src[i] the old row of token
// i, or -1 for a new token, which takes the row of a kept token of its text, else
// the row e's seed draws for it among out's tokens (retokenize's rule).
void retokenize_rows(const State& out, const std::vector<int>& src, int n, EmbeddingSpec* e) {
  const Tensor& old = e->values;
  if (e->init != EmbeddingInit::values || old.rows != n) return;
  const int m = out.seq_len(), dm = old.cols;
  Tensor rows(m, dm);
  Tensor drawn;  // the seeded X of the new tokens, drawn when a new token needs it
  for (int i = 0; i < m; ++i) {
    int take = src[i];
    for (int k = 0; take < 0 && k < m; ++k)
      if (src[k] >= 0 && out.tokens[k] == out.tokens[i]) take = src[k];
    if (take >= 0) {
      std::memcpy(rows.row(i), old.row(take), sizeof(float) * dm);
      continue;
    }
    if (drawn.empty()) {
      State seeded = out;
      seeded.layers.clear();
      seeded.embedding = EmbeddingSpec{EmbeddingInit::torch_randn, e->seed, {}};
      seeded.d_model = dm;
      seeded.positional = Positional::none;
      detail::build_x(seeded, &drawn);
    }
    std::memcpy(rows.row(i), drawn.row(i), sizeof(float) * dm);
  }
  e->values = std::move(rows);
}

}  // namespace

State retokenize(const State& s, std::vector<std::string> tokens, const std::vector<int>& from) {
  const int n = s.seq_len(), m = static_cast<int>(tokens.size());
  std::vector<int> src(static_cast<size_t>(m), -1);
  for (int i = 0; i < m && i < static_cast<int>(from.size()); ++i)
    if (from[i] >= 0 && from[i] < n) src[i] = from[i];
  State out = s;
  out.tokens = std::move(tokens);
  if (static_cast<int>(s.key_padding.size()) == n) {
    out.key_padding.assign(static_cast<size_t>(m), uint8_t{1});
    for (int i = 0; i < m; ++i)
      if (src[i] >= 0) out.key_padding[i] = s.key_padding[src[i]];
    if (std::find(out.key_padding.begin(), out.key_padding.end(), uint8_t{0}) == out.key_padding.end())
      out.key_padding.clear();
  }
  retokenize_rows(out, src, n, &out.embedding);
  for (CapturedLayer& c : out.layers) retokenize_rows(out, src, n, &c.embedding);  // every layer's input alike
  return out;
}

}  // namespace attnviz
