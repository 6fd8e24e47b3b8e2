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
// causal mask nor padding covers the cell (it is the reason left), and
// StreamingLLM's eviction only when the window does not either.
enum class MaskReason { none, causal, padding, causal_and_padding, window, window_and_padding, evicted,
                        evicted_and_padding };
// "none", "causal", "padding", "causal and padding", "window", "window and padding", "evicted",
// "evicted and padding"
const char* mask_reason_name(MaskReason r);

// The formula a cell is explained with: one line of a table (analysis/formulas.cpp,
// ENGINE_FORMULA), an English template with {0}, {1}... and the values that fill it,
// so that an interface words the same formula in its own language from one source
// (ui/app/text/inspector_text.h: the Chinese templates are keyed by the English ones).
// "words" formulas carry English words and are translated; "maths" ones read the
// same in every language. The values are language-neutral: numbers, token text,
// stage and matrix names, "−" or "+". Listed with the values each template takes.
enum class Formula : int {
  none,                 // no result for the cell (Explanation::ok false)
  x_embedding,          // {0} i, {1} j, {2} the token
  x_embedding_sin,      // {0} i, {1} j, {2} the token (sinusoidal positions added)
  parameter,            // {0} the matrix, {1} i, {2} j
  projection,           // {0} Q/K/V, {1} i, {2} j, {3} W_q/W_k/W_v
  projection_bias,      // as projection, {4} b_q/b_k/b_v
  rotation,             // {0} q_rot/k_rot, {1} i, {2} j, {3} Q/K, {4} − or +, {5} partner, {6} k, {7} head
  rotation_kv,          // as rotation, {8} K/V head
  scores,               // {0} i, {1} j, {2} q_ or q_rot_, {3} k_ or k_rot_, {4} head
  scores_kv,            // as scores, {5} K/V head
  alibi_bias,           // {0} i, {1} j, {2} head, {3} slope, {4} distance
  scaled_none,          // {0} i, {1} j (no scaling)
  scaled_temperature,   // {0} i, {1} j (scale none, temperature ≠ 1)
  scaled_d_out,         // {0} i, {1} j
  scaled_d_out_temperature,     // {0} i, {1} j
  scaled_head_dim,              // {0} i, {1} j
  scaled_head_dim_temperature,  // {0} i, {1} j
  masked_not,           // {0} i, {1} j
  masked_not_alibi,     // {0} i, {1} j
  masked_fill,          // {0} i, {1} j, {2} the fill (a masked cell with no reason: never drawn)
  masked_causal,        // {0} i, {1} j, {2} the fill; and the four below
  masked_padding,
  masked_causal_and_padding,
  masked_window,
  masked_window_and_padding,
  masked_evicted,       // StreamingLLM's cache no longer holds the key
  masked_evicted_and_padding,
  weights_safe_zero,    // {0} i, {1} j
  weights_softmax,      // {0} i, {1} j
  weights_softmax_sink, // {0} i, {1} j, {2} head (gpt-oss's sink s_h joins the denominator)
  dropped_off,          // {0} i, {1} j
  dropped_kept,         // {0} i, {1} j
  dropped_zeroed,       // {0} i, {1} j
  context,              // {0} i, {1} j, {2} head
  context_kv,           // as context, {3} K/V head
  concat,               // {0} i, {1} j, {2} the head, {3} j within the head
  output,               // {0} i, {1} j
  output_bias,          // {0} i, {1} j
  output_identity,      // {0} i, {1} j (no output projection)
  // A trained model's layer input (LayerStack::explain): the residual stream.
  x_model_embedding,    // {0} i, {1} j, {2} the token, {3} its embedding's value, {4} position i's
  x_residual,           // {0} i, {1} j, {2} layer l, {3} l − 1, {4} x_{l-1}[i][j], {5} layer l − 1's output[i][j]
};
constexpr int kFormulaCount = static_cast<int>(Formula::x_residual) + 1;
// The English template of f, e.g. "scaled[{0}][{1}] = scores[{0}][{1}] (no scaling)".
const char* formula_template(Formula f);
// True when f's template carries English words (an interface translates it);
// false for pure maths, which reads the same in every language.
bool formula_has_words(Formula f);

struct Explanation {
  bool ok = false;      // false when there is no result or stage/head/i/j is out of range
  Stage stage = Stage::X;
  int head = 0, i = 0, j = 0;
  float value = 0.0f;   // the cell as the pipeline stores it
  std::string formula;  // one line for a learner, e.g. "scores[1][2] = Σ_d q_1[d]·k_2[d]"; spaces
                        // around operators, so a UI may wrap it there and never inside a number.
                        // = msg_format(formula_template(formula_id), formula_args)
  Formula formula_id = Formula::none;
  std::vector<std::string> formula_args;  // the template's values, in order

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
  // gpt-oss's sink (weights with sinks): row_max = max(row, sink_logit), and the normaliser
  // also sums sink_exp = exp(sink_logit − row_max); sink_share = sink_exp · (1 / normaliser) is
  // the weight torch's dropped column holds, so row i's weights sum to about 1 − sink_share.
  bool sink = false;
  float sink_logit = 0.0f, sink_exp = 0.0f, sink_share = 0.0f;
  // masked under StreamingLLM's cache: its first keys kept (j < cache_sinks) and its recent ones
  // (i − j < cache_recent); cache_recent 0 without it.
  int cache_sinks = 0, cache_recent = 0;

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
