// weights_text.cpp: the wording of every weights-import problem, in one table.
// The engine gives only a code and its values (attnviz/weights_file.h, Problem);
// each sentence is a catalogue key (i18n.h) whose {0}, {1}, ... the translation may
// put in another order.
#include "app/text/weights_text.h"

#include "app/text/i18n.h"

namespace attnviz::ui {

namespace {

using weights::Problem;

struct Wording {
  Problem code;
  const char* text;  // a catalogue key; {0}, {1}, ...: the error's values, in the order weights_file.h lists them
};

const Wording kWording[] = {
    {Problem::none, ""},
    {Problem::file_empty, N_("The file is empty.")},
    {Problem::unknown_format, N_("This is not a .safetensors, .npz or .npy file (it starts with the bytes {0}).")},
    {Problem::truncated, N_("The file is cut short: reading {0} needs {1} bytes, but the file has {2}.")},
    {Problem::read_failed, N_("The file could not be read ({0}).")},
    {Problem::header_too_large, N_("The file's header is {0} bytes; attnviz reads headers of up to {1} bytes (100 MB).")},
    {Problem::header_not_json, N_("The safetensors header is not valid JSON: {0}.")},
    {Problem::header_not_object, N_("The safetensors header is not a JSON object of tensors.")},
    {Problem::header_bad_entry, N_("The safetensors header's entry for “{0}” is damaged: {1}.")},
    {Problem::offsets_past_end, N_("Tensor “{0}” ends at byte {1} of the data, past the end of the file ({2} bytes of data).")},
    {Problem::offsets_overlap, N_("Tensors “{0}” and “{1}” claim the same bytes of the file.")},
    {Problem::size_mismatch, N_("Tensor “{0}” has shape {1} in the file and dtype {2}, which takes {3} bytes, but the file gives it {4}.")},
    {Problem::too_many_tensors, N_("The file lists {0} tensors; attnviz reads at most {1}.")},
    {Problem::no_tensors, N_("The file holds no tensors.")},
    {Problem::zip_not_zip, N_("This is not a zip archive (.npz): no zip directory at its end. It may be cut short.")},
    {Problem::zip_bad_directory, N_("The zip directory of this .npz is damaged: {0}.")},
    {Problem::zip_encrypted, N_("“{0}” in this .npz is encrypted.")},
    {Problem::zip_method_unsupported, N_("“{0}” in this .npz is compressed with method {1}; attnviz reads stored and deflated members (np.savez, np.savez_compressed).")},
    {Problem::zip_inflate_failed, N_("“{0}” in this .npz could not be decompressed: its data is damaged.")},
    {Problem::npy_bad_magic, N_("“{0}” is not a NumPy .npy array.")},
    {Problem::npy_bad_header, N_("The .npy header of “{0}” cannot be read: {1}.")},
    {Problem::npy_fortran_order, N_("“{0}” is stored in Fortran order; save it with np.ascontiguousarray(...) first.")},
    {Problem::npy_unknown_descr, N_("“{0}” has the dtype {1}, which attnviz does not know.")},
    {Problem::dtype_unsupported, N_("Tensor “{0}” is {1}; attnviz reads float32, float16, bfloat16 and float64 weights.")},
    {Problem::value_not_finite, N_("Tensor “{0}” holds a value that is not a finite float32 (element {1}: NaN, infinity or beyond float32's range).")},
    {Problem::role_missing, N_("Choose a tensor for {0}.")},
    {Problem::role_not_matrix, N_("{0} must be a matrix, but “{1}” has shape {2} in the file.")},
    {Problem::role_not_vector, N_("{0} must be a vector, but “{1}” has shape {2} in the file.")},
    {Problem::role_split_uneven, N_("“{1}” ({2} in the file) cannot be cut into three equal parts along its output axis for {0}.")},
    // A shape is always said with whose it is: the file's, or as x·W (in, out).
    {Problem::role_shape, N_("{0} from “{1}” is {2} in the file (PyTorch's (out, in)), {3} once transposed to x·W (in, out); "
                             "to go with {5} it must be {4} as x·W.")},
    {Problem::role_shape_xw, N_("{0} from “{1}” is {2} in the file, {3} as x·W (in, out) without transposing; "
                                "to go with {5} it must be {4} as x·W.")},
    {Problem::role_shape_bias, N_("{0} from “{1}” has {2} values, but to go with {4} it must have {3}.")},
    {Problem::kv_width, N_("{0} from “{1}” has {2} outputs, but K and V must be as wide as W_q's d_out {3} or a divisor of it "
                           "(num_kv_heads × head_dim, grouped-query attention).")},
    {Problem::bias_partial, N_("The Q, K and V biases go together: {0} chosen, {1} missing.")},
    {Problem::size_limit, N_("{0} would be {1}; attnviz handles at most {2}.")},
    {Problem::heads_invalid, N_("{0} heads do not divide d_out {1}: choose another number of heads.")},
    {Problem::heads_kv_invalid, N_("{0} heads do not fit K and V {2} wide: head_dim (d_out {1} / {0}) must divide {2}, and the "
                                   "K/V heads that gives must divide {0}. Choose another number of heads.")},
    {Problem::state_refused, N_("These weights do not make a valid state: {0}")},
};

}  // namespace

std::string weights_sentence(const weights::Error& e) {
  for (const Wording& w : kWording) {
    if (w.code == e.code) return w.text[0] ? tr_args(w.text, e.values) : std::string();
  }
  return tr_args("The weights could not be read ({0}).", {weights::problem_name(e.code)});
}

}  // namespace attnviz::ui
