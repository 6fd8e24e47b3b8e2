// attnviz/stages.h: the names of the pipeline's matrices.
//
// Every matrix the pipeline keeps, in pipeline order. Per-head stages
// (scores ... context) exist once per head; the others once.
//
//   X        (S × d_model)       token embeddings (+ positions)
//   W_q/k/v  (d_model × d_out)   projections in x·W orientation
//   W_o      (d_out × d_out)     output projection (when out_proj)
//   b_q/k/v  (1 × d_out)         projection biases (when qkv_bias)
//   b_o      (1 × d_out)         output bias (when out_proj and out_bias)
//   Q, K, V  (S × d_out)         head h owns columns h·head_dim ... (h+1)·head_dim − 1
//   scores   (S × S) per head    Q_h · K_hᵀ
//   scaled   (S × S) per head    scores / (divisor × temperature)
//   masked   (S × S) per head    scaled with masked cells set to mask_fill
//   weights  (S × S) per head    row softmax of masked
//   dropped  (S × S) per head    dropout(weights)
//   context  (S × head_dim) per head   dropped · V_h
//   concat   (S × d_out)         [context_0 ... context_{H−1}]
//   output   (S × d_out)         concat · W_o (+ b_o), or concat
#pragma once

#include <string_view>

namespace attnviz {

enum class Stage : int {
  X, W_q, W_k, W_v, W_o, b_q, b_k, b_v, b_o,
  Q, K, V,
  scores, scaled, masked, weights, dropped, context,
  concat, output,
};
constexpr int kStageCount = static_cast<int>(Stage::output) + 1;

// "X", "W_q", ..., "output": the names used by the report, the UI and docs.
const char* stage_name(Stage s);
// Parses a name as above; false if unknown.
bool stage_from_name(std::string_view name, Stage* out);
// True for scores, scaled, masked, weights, dropped, context.
bool stage_is_per_head(Stage s);
// True for the query × key (S × S) stages: scores, scaled, masked, weights, dropped.
bool stage_is_square(Stage s);

}  // namespace attnviz
