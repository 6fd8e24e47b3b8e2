// messages.cpp: the engine's refusals, one table (attnviz/messages.h).
//
// One line a message, in the order of enum Msg: its code and its English template.
// tests/i18n/check_catalogue.py reads the templates from the ENGINE_MSG lines below and
// wants a 简体中文 entry for each in ui/app/text/lang_zh_cn.cpp ([SECTION] Engine refusals),
// so a new refusal is a new line here, a value of Msg and a translation there.
#include "attnviz/messages.h"

#include "attnviz/status.h"

namespace attnviz {

namespace {

struct Entry {
  Msg id;
  const char* code;
  const char* text;
};

#define ENGINE_MSG(id, text) {Msg::id, #id, text}

constexpr Entry kMessages[] = {
    // --- the meaning of a state (state.cpp)
    ENGINE_MSG(finite_only, "{0} must contain finite numbers only"),
    ENGINE_MSG(matrix_shape, "{0} must be {1} × {2} ({3} × {4}), but it is {5} × {6}"),
    ENGINE_MSG(version_must_be_1, "version must be 1 (this attnviz reads session states of version 1)"),
    ENGINE_MSG(tokens_empty, "tokens must contain at least one token"),
    ENGINE_MSG(tokens_too_many, "tokens has {0} entries; the limit is {1} tokens"),
    ENGINE_MSG(token_too_long, "{0} is {1} bytes long; a token may be at most {2} bytes"),
    ENGINE_MSG(token_not_utf8, "{0} is not valid UTF-8 text"),
    ENGINE_MSG(whole_number_range, "{0} must be a whole number from {1} to {2}, not {3}"),
    ENGINE_MSG(d_out_not_divisible, "d_out ({0}) must be divisible by num_heads ({1})"),
    ENGINE_MSG(too_much_memory,
               "this state needs about {0} of memory ({1} tokens, {2} heads, d_model {3}, d_out {4}); "
               "the limit is {5}: use fewer tokens or fewer heads"),
    ENGINE_MSG(long_dropout,
               "dropout would keep a mask of {0} for {1} tokens; above {2} tokens attention is shown without "
               "dropout: switch training off or use at most {2} tokens"),
    ENGINE_MSG(temperature_range,
               "temperature must be a number from 1e-06 to 1e+06 (it divides the scores, so it must be "
               "greater than 0), not {0}"),
    ENGINE_MSG(key_padding_count, "key_padding has {0} entries but there are {1} tokens"),
    ENGINE_MSG(key_padding_value, "{0} must be 1 (a real token) or 0 (padding)"),
    ENGINE_MSG(mask_fill_range,
               "mask_fill must be \"-inf\" or a number within float32's range (about ±3.4e38), like -1e9 "
               "or -1e20, not {0}"),
    ENGINE_MSG(dropout_p_range, "dropout.p must be a number from 0 to 1, not {0}"),
    ENGINE_MSG(kv_heads_not_divisor,
               "num_heads ({0}) must be divisible by num_kv_heads ({1}): each K/V head serves the same number of query heads"),
    ENGINE_MSG(kv_heads_per_head,
               "the per_head weight layout draws one K and V per head, so num_kv_heads must be num_heads ({0}), not {1}"),
    ENGINE_MSG(rope_odd_head_dim,
               "RoPE rotates pairs of dimensions, so head_dim (d_out / num_heads) must be even, not {0}"),
    ENGINE_MSG(rope_base_range,
               "rope.base must be a positive number within float32's range (10000 in most models), not {0}"),
    // --- types and names (state_json.cpp)
    ENGINE_MSG(unknown_field_in_state, "unknown field {0} in a session state (known fields: {1})"),
    ENGINE_MSG(unknown_field, "unknown field {0} in {1} (known fields: {2})"),
    ENGINE_MSG(must_be_bool, "{0} must be true or false, not {1}"),
    ENGINE_MSG(seed_whole_number, "{0} must be a whole number (a torch.manual_seed value), not {1}"),
    ENGINE_MSG(must_be_number, "{0} must be a number, not {1}"),
    ENGINE_MSG(must_be_one_of, "{0} must be one of {1}, not {2}"),
    ENGINE_MSG(float32_range, "{0} ({1}) is outside float32's range (about ±3.4e38)"),
    ENGINE_MSG(must_be_rows, "{0} must be a list of rows, not {1}"),
    ENGINE_MSG(rows_count, "{0} must have {1} rows ({2}), but it has {3}"),
    ENGINE_MSG(must_be_numbers, "{0} must be a list of numbers, not {1}"),
    ENGINE_MSG(numbers_count, "{0} must have {1} numbers ({2}), but it has {3}"),
    ENGINE_MSG(tokens_not_list, "tokens must be a list of strings, not {0}"),
    ENGINE_MSG(token_not_string, "{0} must be a string, not {1}"),
    ENGINE_MSG(must_be_object, "{0} must be an object, not {1}"),
    ENGINE_MSG(embedding_values_and_seed,
               "embedding has values and also init/seed; give either {\"init\", \"seed\"} or {\"values\"}"),
    ENGINE_MSG(weights_values_and_seed,
               "weights has {0} and also init/seed; give either {\"init\", \"seed\"} or the matrices"),
    ENGINE_MSG(weight_missing, "{0} is missing (explicit weights need it with these settings)"),
    ENGINE_MSG(key_padding_not_list,
               "key_padding must be a list with 1 (real token) or 0 (padding) per token, not {0}"),
    ENGINE_MSG(key_padding_value_not, "{0} must be 1 (a real token) or 0 (padding), not {1}"),
    ENGINE_MSG(mask_fill_type, "mask_fill must be \"-inf\" or a number, not {0}"),
    ENGINE_MSG(version_newer,
               "version must be 1 (this attnviz reads session states of version 1); this state is version "
               "{0}, written by a newer attnviz: open it there, or remove the newer settings and set "
               "version to 1"),
    ENGINE_MSG(version_not_1, "version must be 1 (this attnviz reads session states of version 1), not {0}"),
    ENGINE_MSG(state_not_object, "a session state must be a JSON object, not {0}"),
    ENGINE_MSG(no_memory_to_read, "not enough memory to read this state"),
    ENGINE_MSG(could_not_read, "could not read this state: {0}"),
    // --- JSON text (json_text.cpp)
    ENGINE_MSG(field_twice_in_state, "the field {0} appears twice in the session state; give each field once"),
    ENGINE_MSG(field_twice, "the field {0} appears twice in {1}; give each field once"),
    ENGINE_MSG(number_too_large,
               "{0} ({1}) is too large: numbers must be finite, within about ±1.8e308 (at line {2}, "
               "column {3})"),
    ENGINE_MSG(a_number_too_large,
               "a number ({0}) is too large: numbers must be finite, within about ±1.8e308 (at line {1}, "
               "column {2})"),
    ENGINE_MSG(nan_literal,
               "{0} is NaN or Infinity, which JSON does not have: every number must be finite (at line {1}, "
               "column {2})"),
    ENGINE_MSG(nan_literal_mask_fill,
               "mask_fill is NaN or Infinity, which JSON does not have: every number must be finite (write "
               "\"-inf\" in quotes for mask_fill) (at line {0}, column {1})"),
    ENGINE_MSG(a_nan_literal,
               "a number is NaN or Infinity, which JSON does not have: every number must be finite (at line "
               "{0}, column {1})"),
    ENGINE_MSG(field_not_utf8_at, "{0} is not valid UTF-8 text (at line {1}, column {2})"),
    ENGINE_MSG(text_not_utf8_at, "the text is not valid UTF-8 text (at line {0}, column {1})"),
    ENGINE_MSG(not_json_at, "this is not valid JSON (problem at line {0}, column {1})"),
    ENGINE_MSG(nested_too_deep, "the JSON is nested more than {0} levels deep; a session state needs at most 6"),
    ENGINE_MSG(nested_too_deep_in,
               "the JSON is nested more than {0} levels deep inside {1}; a session state needs at most 6"),
    ENGINE_MSG(not_json, "this is not valid JSON"),
    ENGINE_MSG(not_json_because, "this is not valid JSON: {0}"),
    // --- state files (state_file.cpp)
    ENGINE_MSG(state_file_empty, "the file is empty"),
    ENGINE_MSG(state_file_not_safetensors,
               "this is not a .safetensors file: one starts with an 8-byte header length and then '{' "
               "(this one starts with the bytes {0})"),
    ENGINE_MSG(state_file_truncated, "the file is cut short: it needs {0} bytes, but it has {1}"),
    ENGINE_MSG(state_file_header_too_large, "the file's header would be {0} bytes long; the limit is {1} bytes"),
    ENGINE_MSG(state_file_header_not_json, "the file's header is not valid JSON: {0}"),
    ENGINE_MSG(state_file_header_bad, "the file's header is not a JSON object of tensors"),
    ENGINE_MSG(state_file_header_entry, "the file's header entry for “{0}” is damaged: {1}"),
    ENGINE_MSG(state_file_past_end,
               "the tensor “{0}” ends at byte {1} of the data, past the end of the file ({2} bytes of data)"),
    ENGINE_MSG(state_file_overlap, "the tensors “{0}” and “{1}” claim the same bytes of the file"),
    ENGINE_MSG(state_file_tensor_bytes,
               "the tensor “{0}” has shape {1} and dtype {2}, which takes {3} bytes, but the file gives it {4}"),
    ENGINE_MSG(state_file_unreadable, "the file could not be read as a .safetensors file ({0})"),
    ENGINE_MSG(state_file_no_state,
               "this .safetensors file holds no attnviz state (its __metadata__ has no \"attnviz_state\"): "
               "it may hold trained weights instead"),
    ENGINE_MSG(state_file_format_newer,
               "this state file is format {0}, written by a newer attnviz; this one reads format 1"),
    ENGINE_MSG(state_file_state_not_json, "the state in the file's metadata (\"attnviz_state\") is not valid JSON: {0}"),
    ENGINE_MSG(state_file_tensor_missing, "{0} names the tensor “{1}”, which the file does not hold"),
    ENGINE_MSG(state_file_tensor_dims,
               "{0} names the tensor “{1}” of shape {2}; a matrix must have 2 dimensions and a bias 1"),
    ENGINE_MSG(state_file_tensor_dtype,
               "{0} names the tensor “{1}” of dtype {2}; a state file's tensors are F32 (F16, BF16 and F64 are read too)"),
    ENGINE_MSG(state_file_tensor_unused, "the file holds the tensor “{0}”, which its state does not name"),
    // --- trained models (model/trained_model.cpp, state.cpp)
    ENGINE_MSG(model_card_bad, "the model card's {0} is not right: {1}"),
    ENGINE_MSG(model_tensors_unreadable, "the model's checkpoints file could not be read ({0})"),
    ENGINE_MSG(model_tensor_missing, "the model card names the tensor {0}, but the checkpoints file has none by that name"),
    ENGINE_MSG(model_tensor_shape, "the tensor {0} is {1} in the checkpoints file, but the model card says {2}"),
    ENGINE_MSG(model_unknown, "there is no model named {0} (models: {1})"),
    ENGINE_MSG(model_left_out,
               "the trained model {0} is not in this compact attnviz (its checkpoints are left out to keep "
               "embedded views small): open this state in the full attnviz app"),
    ENGINE_MSG(model_step_unknown, "model {0} has no checkpoint at training step {1} (steps: {2})"),
    ENGINE_MSG(model_token_unknown, "{0} is {1}, which is not in the vocabulary of model {2} ({3})"),
    ENGINE_MSG(model_too_long, "model {0} reads at most {1} tokens (its context), but there are {2}"),
    ENGINE_MSG(model_fixed_field, "{0} is fixed by model {1} at {2}"),
    ENGINE_MSG(model_sets_it, "{0} comes from model {1}, so a state that runs it cannot set it"),
    // --- captured layers (state.cpp, state_json.cpp)
    ENGINE_MSG(layers_not_list, "layers must be a list of captured layers (objects with embedding and weights), not {0}"),
    ENGINE_MSG(layers_count, "layers has {0} entries; a state holds 1 to {1} captured layers"),
    ENGINE_MSG(layers_with_model, "layers cannot be given with model: a trained model's layers are its own"),
    ENGINE_MSG(layers_and_top_level,
               "{0} cannot be given with layers: each captured layer gives its own (layers[i].{0})"),
    ENGINE_MSG(layer_part_missing,
               "{0} is missing: each captured layer gives its input (embedding.values) and its weights as numbers"),
    ENGINE_MSG(layer_name_too_long, "{0} is {1} bytes long; a layer's name may be at most {2} bytes"),
    ENGINE_MSG(layers_too_much_memory,
               "these {0} layers need about {1} of memory together ({2} tokens, {3} heads, d_model {4}, d_out {5}); "
               "the limit is {6}: use fewer layers or fewer tokens"),
    // --- running a state (pipeline.cpp, report.cpp)
    ENGINE_MSG(no_memory_for_state,
               "there is not enough memory for this state: use fewer tokens, heads or dimensions"),
    ENGINE_MSG(could_not_apply, "the engine could not apply this state: {0}"),
    ENGINE_MSG(could_not_run, "the engine could not run this state: {0}"),
    // --- phrases: values that are words
    ENGINE_MSG(type_bool, "true/false"),
    ENGINE_MSG(type_string, "a string ({0})"),
    ENGINE_MSG(type_long_string, "a string ({0}… ({1} bytes))"),
    ENGINE_MSG(type_list, "a list"),
    ENGINE_MSG(type_object, "an object"),
    ENGINE_MSG(type_number, "a number"),
    ENGINE_MSG(long_string, "{0}… ({1} bytes)"),
    ENGINE_MSG(binary_data, "binary data"),
    ENGINE_MSG(nothing, "nothing"),
    ENGINE_MSG(one_per_token, "one per token"),
};

#undef ENGINE_MSG

constexpr bool in_enum_order() {
  for (int i = 0; i < kMsgCount; ++i) {
    if (static_cast<int>(kMessages[i].id) != i) return false;
  }
  return true;
}
static_assert(sizeof kMessages / sizeof kMessages[0] == kMsgCount, "one ENGINE_MSG line per Msg");
static_assert(in_enum_order(), "the ENGINE_MSG lines follow enum Msg's order");

const Entry& entry(Msg m) {
  const int i = static_cast<int>(m);
  return kMessages[i >= 0 && i < kMsgCount ? i : 0];
}

}  // namespace

const char* msg_code(Msg m) { return entry(m).code; }
const char* msg_template(Msg m) { return entry(m).text; }

bool msg_from_code(std::string_view code, Msg* out) {
  for (const Entry& e : kMessages) {
    if (code == e.code) {
      *out = e.id;
      return true;
    }
  }
  return false;
}

std::string msg_format(std::string_view tmpl, const std::vector<std::string>& values) {
  std::string out;
  out.reserve(tmpl.size());
  for (size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] == '{' && i + 2 < tmpl.size() && tmpl[i + 1] >= '0' && tmpl[i + 1] <= '9' && tmpl[i + 2] == '}') {
      const size_t k = static_cast<size_t>(tmpl[i + 1] - '0');
      if (k < values.size()) {
        out += values[k];
        i += 2;
        continue;
      }
    }
    out += tmpl[i];
  }
  return out;
}

Status Status::refusal(Msg m, std::string field_path, const std::vector<MsgArg>& args) {
  Status s;
  s.ok = false;
  s.field = std::move(field_path);
  s.code = msg_code(m);
  bool any_phrase = false;
  for (const MsgArg& a : args) {
    s.args.push_back(a.text);
    any_phrase = any_phrase || a.phrase != Msg::count;
  }
  if (any_phrase) {
    for (const MsgArg& a : args)
      s.phrases.push_back({a.phrase == Msg::count ? std::string() : std::string(msg_code(a.phrase)), a.values});
  }
  s.error = msg_format(msg_template(m), s.args);
  return s;
}

}  // namespace attnviz
