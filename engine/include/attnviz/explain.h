// attnviz/explain.h: "how was this number computed" for one cell.
//
// Pipeline::explain(stage, head, i, j) returns the ingredients of cell (i, j)
// of a stage, recomputed with the same kernels, so the numbers shown to a
// learner are the numbers the pipeline used. The UI only displays them.
#pragma once

#include <string>
#include <vector>

#include "attnviz/stages.h"
#include "attnviz/state.h"

namespace attnviz {

// Why a cell is masked. The sliding window is named only when neither the
// causal mask nor padding covers the cell (it is the reason left).
enum class MaskReason { none, causal, padding, causal_and_padding, window, window_and_padding };
// "none", "causal", "padding", "causal and padding", "window", "window and padding"
const char* mask_reason_name(MaskReason r);

struct Explanation {
  bool ok = false;      // false when there is no result or stage/head/i/j is out of range
  Stage stage = Stage::X;
  int head = 0, i = 0, j = 0;
  float value = 0.0f;   // the cell as the pipeline stores it
  std::string formula;  // one line for a learner, e.g. "scores[1][2] = Σ_d q_1[d]·k_2[d]"; spaces
                        // around operators, so a UI may wrap it there and never inside a number

  // Dot products: Q, K, V (x_i · W[:, j] + b_j), scores (q_i · k_j),
  // context (Σ_s dropped[i][s]·V_h[s][j]) and output (concat_i · W_o[:, j] + b_j).
  // lhs[t]·rhs[t] = terms[t] (each product rounded to float32); `sum` is the
  // fused multiply-add chain over t in order, which is what the pipeline
  // stores (it can differ from adding the rounded terms in the last bit).
  std::vector<float> lhs, rhs, terms;
  float sum = 0.0f;
  bool has_bias = false;
  float bias = 0.0f;  // value = sum + bias (one float32 addition)

  // Elementwise stages: the previous stage's value of the same cell
  // (scaled: scores, masked: scaled, weights: masked, dropped: weights).
  float input = 0.0f;

  // scaled = input / divisor, divisor = float32(base × temperature)
  float divisor = 0.0f;
  double divisor_base = 0.0;  // √scale_dim: √head_dim, √d_out, or 1 when scale_dim is 0
  double temperature = 1.0;
  ScaleMode scale_mode = ScaleMode::head_dim;  // which dimension the divisor is the root of
  int scale_dim = 0;          // head_dim, d_out, or 0 for ScaleMode::none (divisor_base 1)

  // masked: masked ? fill : input
  bool masked = false;
  MaskReason reason = MaskReason::none;
  float fill = 0.0f;

  // weights = exp(input − row_max) · (1 / normaliser)
  float row_max = 0.0f;
  float exp_term = 0.0f;    // exp(input − row_max)
  float normaliser = 0.0f;  // Σ over the row of exp(masked[i][s] − row_max)
  bool safe_zeroed = false; // whole row −inf and safe_softmax: the row is zeros

  // q_rot / k_rot (RoPE): value = fl(fl(x_a·cos) + fl(∓x_b·sin)) with the pair (a, b) of
  // column j (rope_partner), the angle = position · inv_freq[k] (position = the row).
  int rope_partner = -1;    // the column paired with j
  int rope_k = -1;          // the frequency index of the pair
  float inv_freq = 0.0f, angle = 0.0f, cos = 0.0f, sin = 0.0f;
  float x_self = 0.0f, x_partner = 0.0f;  // Q_h / K_g at (i, j) and at (i, partner)
  // Which K/V head a query head reads (scores, context; always set for per-head stages).
  int kv_head = 0;
  // bias (ALiBi) and masked under ALiBi: bias = −(slope · distance), distance = |i − j|.
  bool alibi = false;
  float slope = 0.0f, alibi_bias = 0.0f;
  int distance = 0;
  int window = 0;           // the sliding window (0: none)

  // dropped = input · (kept ? scale : 0); identity when dropout is inactive
  bool dropout_active = false;
  bool kept = true;
  float scale = 1.0f;  // 1 / (1 − p) in float32
};

}  // namespace attnviz
