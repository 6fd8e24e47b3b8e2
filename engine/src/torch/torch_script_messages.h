// torch_script_messages.h (internal): the comments and printed headings of the
// PyTorch script (torch_script.cpp), one table per language.
//
// Every comment and heading the script carries, by id. A language is one table
// of {id, text} rows (any order; an id it lacks falls back to English) and one
// row of the languages (torch_script_messages.cpp). Texts may hold "{}", replaced
// in turn by the arguments the generator passes (numbers, names: never
// translated). A comment may span lines.
#pragma once

namespace attnviz {
namespace detail {

enum class PyMsg : int {
  intro, usage, made_by,
  show_doc, numbers_doc, digits_note, matrix_doc,
  sizes, d_model, d_out, head_dim, temperature, num_kv_heads,
  embedding, vocab, embedding_seeded, embedding_values, positional,
  weights, weights_rand, weights_linear_fused, weights_linear_per_head, weights_values, linear_orientation,
  weights_kv, qkv, split_heads, split_kv_heads,
  rope, rope_half, rope_interleaved, rope_base, rope_positions, rope_angles, rope_repeat, rotate_half_doc,
  rotate_every_two_doc, repeat_kv,
  alibi, get_slopes_doc, alibi_slopes, alibi_distance, alibi_shape, alibi_added, alibi_no_mask,
  window, window_before, window_after,
  // issue 36: StreamingLLM's cache as a mask, gpt-oss's sinks in the softmax
  cache_streaming, cache_evicted, sinks, sink_values, sink_column, sink_drop, h_sink_share,
  scores, scale_head_dim, scale_d_out, scale_none, scale_temperature,
  mask, no_mask, causal, padding, fill_inf, fill_number,
  softmax, safe_softmax,
  dropout, dropout_train, dropout_eval,
  context, concat, output, output_none,
  json_report,
  h_X, h_param, h_queries, h_keys, h_values, h_scores, h_scaled, h_masked, h_weights, h_dropped,
  h_context, h_concat, h_output, h_q_rot, h_k_rot, h_bias,
  // a trained model (torch_script.cpp, [SECTION] a trained model)
  model_intro, model_file, model_loader_doc, model_prefix, model_embedding, model_layers, model_layer_weights,
  model_residual, model_logits, h_x0, h_layer, h_logits,
  // captured layers (torch_script.cpp, torch_script): the one layer a script computes
  captured_layer,
  count
};
constexpr int kPyMsgCount = static_cast<int>(PyMsg::count);

struct PyMsgText {
  PyMsg id;
  const char* text;
};

struct PyLanguage {
  const char* name;  // "en", "zh-CN": TorchScriptOptions::language
  const PyMsgText* rows;
  int count;
};

// The languages with a table, English first.
constexpr int kPyLanguageCount = 2;
const PyLanguage* py_languages();

}  // namespace detail
}  // namespace attnviz
