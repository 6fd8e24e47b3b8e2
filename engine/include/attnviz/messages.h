// attnviz/messages.h: every sentence the engine refuses input with, by code.
//
// A refusal (attnviz::Status, status.h) is a message of this list and its values:
// the engine fills the English template for Status::error, and keeps the code and the
// values so that an interface can word the same refusal in another language
// (ui/app/text/status_text.h: the Chinese templates are keyed by the English ones).
// The table of templates is engine/src/state/messages.cpp, one line a message:
//   ENGINE_MSG(d_out_not_divisible, "d_out ({0}) must be divisible by num_heads ({1})")
// {0}, {1}, ... are the values in the order the comment below lists them. A value is
// language-neutral (a number, a JSON field path, quoted text the learner wrote) or a
// phrase: a message of its own (the "phrase" group at the end: "a list", "true/false"
// ...), which an interface words too.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

enum class Msg : int {
  // --- the meaning of a state (state.cpp)
  finite_only,            // {0} field
  matrix_shape,           // {0} field, {1} rows, {2} cols, {3} {4} what rows and cols count, {5} {6} given
  version_must_be_1,      //
  tokens_empty,           //
  tokens_too_many,        // {0} given, {1} limit
  token_too_long,         // {0} field, {1} bytes, {2} limit
  token_not_utf8,         // {0} field
  whole_number_range,     // {0} field, {1} low, {2} high, {3} the value given (or its type: a phrase)
  d_out_not_divisible,    // {0} d_out, {1} num_heads
  too_much_memory,        // {0} needed ("1.2 GiB"), {1} tokens, {2} heads, {3} d_model, {4} d_out, {5} limit
  long_dropout,           // {0} the keep mask's size ("805 MiB"), {1} tokens, {2} Limits::kMaxFullTokens
  temperature_range,      // {0} given
  key_padding_count,      // {0} entries, {1} tokens
  key_padding_value,      // {0} field
  mask_fill_range,        // {0} given
  dropout_p_range,        // {0} given
  kv_heads_not_divisor,   // {0} num_heads, {1} num_kv_heads
  kv_heads_per_head,      // {0} num_heads, {1} num_kv_heads
  rope_odd_head_dim,      // {0} head_dim
  rope_base_range,        // {0} given
  // --- types and names (state_json.cpp)
  unknown_field_in_state, // {0} the name (quoted), {1} the known fields
  unknown_field,          // {0} the name (quoted), {1} the object's path, {2} the known fields
  must_be_bool,           // {0} field, {1} the type given (phrase)
  seed_whole_number,      // {0} field, {1} the value or type given
  must_be_number,         // {0} field, {1} the type given (phrase)
  must_be_one_of,         // {0} field, {1} the choices, {2} the value or type given
  float32_range,          // {0} field, {1} the value
  must_be_rows,           // {0} field, {1} the type given (phrase)
  rows_count,             // {0} field, {1} rows, {2} what a row is (a field name or a phrase), {3} given
  must_be_numbers,        // {0} field, {1} the type given (phrase)
  numbers_count,          // {0} field, {1} numbers, {2} what they count (a field name), {3} given
  tokens_not_list,        // {0} the type given (phrase)
  token_not_string,       // {0} field, {1} the type given (phrase)
  must_be_object,         // {0} field, {1} the type given (phrase)
  embedding_values_and_seed,  //
  weights_values_and_seed,    // {0} the first matrix given
  weight_missing,         // {0} field
  key_padding_not_list,   // {0} the type given (phrase)
  key_padding_value_not,  // {0} field, {1} the value given
  mask_fill_type,         // {0} the value or type given
  version_newer,          // {0} the version given
  version_not_1,          // {0} the value given
  state_not_object,       // {0} the type given (phrase)
  no_memory_to_read,      //
  could_not_read,         // {0} the library's own words (English)
  // --- JSON text (json_text.cpp)
  field_twice_in_state,   // {0} the name (quoted)
  field_twice,            // {0} the name (quoted), {1} the object's path
  number_too_large,       // {0} field, {1} the number, {2} line, {3} column
  a_number_too_large,     // {0} the number, {1} line, {2} column
  nan_literal,            // {0} field, {1} line, {2} column
  nan_literal_mask_fill,  // {0} line, {1} column
  a_nan_literal,          // {0} line, {1} column
  field_not_utf8_at,      // {0} field, {1} line, {2} column
  text_not_utf8_at,       // {0} line, {1} column
  not_json_at,            // {0} line, {1} column
  nested_too_deep,        // {0} the limit
  nested_too_deep_in,     // {0} the limit, {1} the top-level field
  not_json,               //
  not_json_because,       // {0} the library's own words (English)
  // --- state files: a state in a .safetensors file (state_file.cpp)
  state_file_empty,           //
  state_file_not_safetensors, // {0} its first bytes in hex
  state_file_truncated,       // {0} bytes needed, {1} bytes the file has
  state_file_header_too_large,// {0} header bytes, {1} the limit
  state_file_header_not_json, // {0} the JSON reader's sentence (a phrase when it is a refusal)
  state_file_header_bad,      //
  state_file_header_entry,    // {0} tensor name, {1} what is wrong (the reader's words, English)
  state_file_past_end,        // {0} tensor name, {1} its end offset, {2} bytes of data in the file
  state_file_overlap,         // {0} tensor name, {1} other tensor name
  state_file_tensor_bytes,    // {0} tensor name, {1} shape, {2} dtype, {3} bytes it needs, {4} bytes it has
  state_file_unreadable,      // {0} the reader's code for the problem
  state_file_no_state,        //
  state_file_format_newer,    // {0} the format given
  state_file_state_not_json,  // {0} the JSON reader's sentence (a phrase)
  state_file_tensor_missing,  // {0} field, {1} tensor name
  state_file_tensor_dims,     // {0} field, {1} tensor name, {2} its shape
  state_file_tensor_dtype,    // {0} field, {1} tensor name, {2} its dtype
  state_file_tensor_unused,   // {0} tensor name
  // --- trained models (model/trained_model.cpp, state.cpp)
  model_card_bad,             // {0} field of the card, {1} what is wrong (English)
  model_tensors_unreadable,   // {0} the reader's code for the problem
  model_tensor_missing,       // {0} tensor name
  model_tensor_shape,         // {0} tensor name, {1} its shape in the file, {2} the shape the card gives
  model_unknown,              // {0} the name given, {1} the models there are
  model_left_out,             // {0} the name given (a built-in model this build leaves out)
  model_step_unknown,         // {0} model, {1} the step given, {2} the steps there are
  model_token_unknown,        // {0} field, {1} the token, {2} model, {3} a few words of its vocabulary
  model_too_long,             // {0} model, {1} its context, {2} tokens given
  model_fixed_field,          // {0} field, {1} model, {2} the value the model fixes
  model_sets_it,              // {0} field, {1} model
  // --- captured layers (state.cpp, state_json.cpp)
  layers_not_list,            // {0} what was given (a phrase)
  layers_count,               // {0} entries given, {1} the limit
  layers_with_model,          //
  layers_and_top_level,       // {0} field (embedding or weights)
  layer_part_missing,         // {0} field (layers[i].embedding.values, layers[i].weights)
  layer_name_too_long,        // {0} field, {1} its length in bytes, {2} the limit
  layers_too_much_memory,     // {0} layers, {1} memory, {2} tokens, {3} heads, {4} d_model, {5} d_out, {6} the limit
  // --- running a state (pipeline.cpp, report.cpp)
  no_memory_for_state,    //
  could_not_apply,        // {0} the library's own words (English)
  could_not_run,          // {0} the library's own words (English)
  // --- phrases: values that are words
  type_bool,              // "true/false"
  type_string,            // {0} the string (quoted)
  type_long_string,       // {0} its first 40 bytes (quoted), {1} its length in bytes
  type_list,              //
  type_object,            //
  type_number,            //
  long_string,            // {0} its first 40 bytes (quoted), {1} its length in bytes
  binary_data,            //
  nothing,                //
  one_per_token,          // what the rows of embedding.values are
  count
};
constexpr int kMsgCount = static_cast<int>(Msg::count);

// A stable snake_case id ("d_out_not_divisible"): the CLI's JSON "code", Status::code.
const char* msg_code(Msg m);
// The English template, with {0}, {1}, ... for the values.
const char* msg_template(Msg m);
// The message with this code; false for an unknown code.
bool msg_from_code(std::string_view code, Msg* out);
// `tmpl` with each {n} (n a digit) replaced by values[n]; a {n} without a value stays.
// One pass: a value that itself holds "{0}" is not filled again.
std::string msg_format(std::string_view tmpl, const std::vector<std::string>& values);

// One value of a refusal: shown as it is, or a phrase (a message of its own) with its
// own values. Implicit from text, so call sites read Status::refusal(m, field, {a, b}).
struct MsgArg {
  std::string text;                 // as the English sentence shows it
  Msg phrase = Msg::count;          // Msg::count: the value is shown as it is
  std::vector<std::string> values;  // the phrase's values

  MsgArg(std::string value) : text(std::move(value)) {}  // NOLINT: implicit on purpose
  MsgArg(const char* value) : text(value) {}             // NOLINT
  MsgArg(Msg p, std::vector<std::string> v = {})         // NOLINT
      : text(msg_format(msg_template(p), v)), phrase(p), values(std::move(v)) {}
};

}  // namespace attnviz
