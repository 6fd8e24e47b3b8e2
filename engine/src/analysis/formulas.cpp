// formulas.cpp: every formula the engine explains a cell with, one table
// (attnviz/explain.h, enum Formula).
//
// One line a formula, in the order of enum Formula: its id, whether it carries
// English words, and its English template. tests/i18n/check_catalogue.py reads the
// "words" templates from the ENGINE_FORMULA lines below and wants a 简体中文 entry for
// each in ui/app/text/lang_zh_cn.cpp; "maths" lines read the same in every language.
// Operators have a space on each side, so an interface may wrap a formula there and
// never inside a number.
#include "attnviz/explain.h"

namespace attnviz {

namespace {

struct Entry {
  Formula id;
  bool words;
  const char* text;
};

constexpr bool words = true, maths = false;
#define ENGINE_FORMULA(id, kind, text) {Formula::id, kind, text}

constexpr Entry kFormulas[] = {
    ENGINE_FORMULA(none, maths, ""),
    ENGINE_FORMULA(x_embedding, words, "X[{0}][{1}] = embedding of \"{2}\", column {1}"),
    ENGINE_FORMULA(x_embedding_sin, words, "X[{0}][{1}] = embedding of \"{2}\", column {1} + sinusoidal position"),
    ENGINE_FORMULA(parameter, words, "{0}[{1}][{2}] is a parameter (x·W orientation)"),
    ENGINE_FORMULA(projection, maths, "{0}[{1}][{2}] = Σ_d X[{1}][d] · {3}[d][{2}]"),
    ENGINE_FORMULA(projection_bias, maths, "{0}[{1}][{2}] = Σ_d X[{1}][d] · {3}[d][{2}] + {4}[{2}]"),
    ENGINE_FORMULA(rotation, words,
                   "{0}[{1}][{2}] = {3}[{1}][{2}] · cos θ {4} {3}[{1}][{5}] · sin θ, θ = {1} · inv_freq[{6}] (head {7})"),
    ENGINE_FORMULA(rotation_kv, words,
                   "{0}[{1}][{2}] = {3}[{1}][{2}] · cos θ {4} {3}[{1}][{5}] · sin θ, θ = {1} · inv_freq[{6}] "
                   "(head {7}, K/V head {8})"),
    ENGINE_FORMULA(scores, words, "scores[{0}][{1}] = {2}{0} · {3}{1} = Σ_d {2}{0}[d] · {3}{1}[d] (head {4})"),
    ENGINE_FORMULA(scores_kv, words,
                   "scores[{0}][{1}] = {2}{0} · {3}{1} = Σ_d {2}{0}[d] · {3}{1}[d] (head {4}, K/V head {5})"),
    ENGINE_FORMULA(alibi_bias, maths, "bias[{0}][{1}] = −m_{2} · |{0} − {1}| = −{3} · {4} (ALiBi)"),
    ENGINE_FORMULA(scaled_none, words, "scaled[{0}][{1}] = scores[{0}][{1}] (no scaling)"),
    ENGINE_FORMULA(scaled_temperature, words, "scaled[{0}][{1}] = scores[{0}][{1}] / temperature"),
    ENGINE_FORMULA(scaled_d_out, maths, "scaled[{0}][{1}] = scores[{0}][{1}] / √d_out"),
    ENGINE_FORMULA(scaled_d_out_temperature, words, "scaled[{0}][{1}] = scores[{0}][{1}] / (√d_out × temperature)"),
    ENGINE_FORMULA(scaled_head_dim, maths, "scaled[{0}][{1}] = scores[{0}][{1}] / √head_dim"),
    ENGINE_FORMULA(scaled_head_dim_temperature, words,
                   "scaled[{0}][{1}] = scores[{0}][{1}] / (√head_dim × temperature)"),
    ENGINE_FORMULA(masked_not, words, "masked[{0}][{1}] = scaled[{0}][{1}] (not masked)"),
    ENGINE_FORMULA(masked_not_alibi, words, "masked[{0}][{1}] = scaled[{0}][{1}] + bias[{0}][{1}] (not masked)"),
    ENGINE_FORMULA(masked_fill, maths, "masked[{0}][{1}] = mask_fill {2}"),
    ENGINE_FORMULA(masked_causal, words, "masked[{0}][{1}] = mask_fill {2} (causal)"),
    ENGINE_FORMULA(masked_padding, words, "masked[{0}][{1}] = mask_fill {2} (padding)"),
    ENGINE_FORMULA(masked_causal_and_padding, words, "masked[{0}][{1}] = mask_fill {2} (causal and padding)"),
    ENGINE_FORMULA(masked_window, words, "masked[{0}][{1}] = mask_fill {2} (window)"),
    ENGINE_FORMULA(masked_window_and_padding, words, "masked[{0}][{1}] = mask_fill {2} (window and padding)"),
    ENGINE_FORMULA(masked_evicted, words, "masked[{0}][{1}] = mask_fill {2} (evicted from the KV cache)"),
    ENGINE_FORMULA(masked_evicted_and_padding, words,
                   "masked[{0}][{1}] = mask_fill {2} (evicted from the KV cache, and padding)"),
    ENGINE_FORMULA(weights_safe_zero, words, "weights[{0}][{1}] = 0 (the whole row is −inf and safe_softmax is on)"),
    ENGINE_FORMULA(weights_softmax, words,
                   "weights[{0}][{1}] = exp(masked[{0}][{1}] − row max) / Σ_s exp(masked[{0}][s] − row max)"),
    ENGINE_FORMULA(weights_softmax_sink, words,
                   "weights[{0}][{1}] = exp(masked[{0}][{1}] − row max) / (exp(sink_{2} − row max) + Σ_s "
                   "exp(masked[{0}][s] − row max))"),
    ENGINE_FORMULA(dropped_off, words, "dropped[{0}][{1}] = weights (dropout is off)"),
    ENGINE_FORMULA(dropped_kept, words, "dropped[{0}][{1}] = weights[{0}][{1}] × 1/(1 − p) (kept)"),
    ENGINE_FORMULA(dropped_zeroed, words, "dropped[{0}][{1}] = weights[{0}][{1}] × 0 (dropped)"),
    ENGINE_FORMULA(context, words, "context[{0}][{1}] = Σ_s dropped[{0}][s] · v_s[{1}] (head {2})"),
    ENGINE_FORMULA(context_kv, words, "context[{0}][{1}] = Σ_s dropped[{0}][s] · v_s[{1}] (head {2}, K/V head {3})"),
    ENGINE_FORMULA(concat, words, "concat[{0}][{1}] = context of head {2}, context[{0}][{3}]"),
    ENGINE_FORMULA(output, maths, "output[{0}][{1}] = Σ_d concat[{0}][d] · W_o[d][{1}]"),
    ENGINE_FORMULA(output_bias, maths, "output[{0}][{1}] = Σ_d concat[{0}][d] · W_o[d][{1}] + b_o[{1}]"),
    ENGINE_FORMULA(output_identity, words, "output[{0}][{1}] = concat (no output projection)"),
    ENGINE_FORMULA(x_model_embedding, words,
                   "x0[{0}][{1}] = embedding of \"{2}\"[{1}] + embedding of position {0}[{1}] = {3} + {4}"),
    ENGINE_FORMULA(x_residual, words,
                   "x{2}[{0}][{1}] = x{3}[{0}][{1}] + layer {3}'s output[{0}][{1}] = {4} + {5}"),
};
#undef ENGINE_FORMULA

constexpr bool in_enum_order() {
  for (int i = 0; i < kFormulaCount; ++i)
    if (static_cast<int>(kFormulas[i].id) != i) return false;
  return true;
}
static_assert(sizeof kFormulas / sizeof kFormulas[0] == kFormulaCount, "one ENGINE_FORMULA line per Formula");
static_assert(in_enum_order(), "the ENGINE_FORMULA lines follow enum Formula's order");

const Entry& entry(Formula f) {
  const int i = static_cast<int>(f);
  return kFormulas[i >= 0 && i < kFormulaCount ? i : 0];
}

}  // namespace

const char* formula_template(Formula f) { return entry(f).text; }
bool formula_has_words(Formula f) { return entry(f).words; }

}  // namespace attnviz
