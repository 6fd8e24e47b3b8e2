// materialize.cpp: see attnviz/materialize.h.
#include "attnviz/materialize.h"

#include "pipeline_internal.h"

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

}  // namespace attnviz
