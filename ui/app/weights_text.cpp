// weights_text.cpp: the wording of every weights-import problem, in one table
// (English). A translation is another table with the same codes: the engine
// gives only a code and its values (attnviz/weights_file.h, Problem).
#include "app/weights_text.h"

namespace attnviz::ui {

namespace {

using weights::Problem;

struct Wording {
  Problem code;
  const char* text;  // {0}, {1}, ...: the error's values, in the order weights_file.h lists them
};

const Wording kEnglish[] = {
    {Problem::none, ""},
    {Problem::file_empty, "The file is empty."},
    {Problem::unknown_format, "This is not a .safetensors, .npz or .npy file (it starts with the bytes {0})."},
    {Problem::truncated, "The file is cut short: reading {0} needs {1} bytes, but the file has {2}."},
    {Problem::read_failed, "The file could not be read ({0})."},
    {Problem::header_too_large, "The file's header is {0} bytes; attnviz reads headers of up to {1} bytes (100 MB)."},
    {Problem::header_not_json, "The safetensors header is not valid JSON: {0}."},
    {Problem::header_not_object, "The safetensors header is not a JSON object of tensors."},
    {Problem::header_bad_entry, "The safetensors header's entry for “{0}” is damaged: {1}."},
    {Problem::offsets_past_end, "Tensor “{0}” ends at byte {1} of the data, past the end of the file ({2} bytes of data)."},
    {Problem::offsets_overlap, "Tensors “{0}” and “{1}” claim the same bytes of the file."},
    {Problem::size_mismatch, "Tensor “{0}” has shape {1} and dtype {2}, which takes {3} bytes, but the file gives it {4}."},
    {Problem::too_many_tensors, "The file lists {0} tensors; attnviz reads at most {1}."},
    {Problem::no_tensors, "The file holds no tensors."},
    {Problem::zip_not_zip, "This is not a zip archive (.npz): no zip directory at its end. It may be cut short."},
    {Problem::zip_bad_directory, "The zip directory of this .npz is damaged: {0}."},
    {Problem::zip_encrypted, "“{0}” in this .npz is encrypted."},
    {Problem::zip_method_unsupported, "“{0}” in this .npz is compressed with method {1}; attnviz reads stored and deflated members (np.savez, np.savez_compressed)."},
    {Problem::zip_inflate_failed, "“{0}” in this .npz could not be decompressed: its data is damaged."},
    {Problem::npy_bad_magic, "“{0}” is not a NumPy .npy array."},
    {Problem::npy_bad_header, "The .npy header of “{0}” cannot be read: {1}."},
    {Problem::npy_fortran_order, "“{0}” is stored in Fortran order; save it with np.ascontiguousarray(...) first."},
    {Problem::npy_unknown_descr, "“{0}” has the dtype {1}, which attnviz does not know."},
    {Problem::dtype_unsupported, "Tensor “{0}” is {1}; attnviz reads float32, float16, bfloat16 and float64 weights."},
    {Problem::value_not_finite, "Tensor “{0}” holds a value that is not a finite float32 (element {1}: NaN, infinity or beyond float32's range)."},
    {Problem::role_missing, "Choose a tensor for {0}."},
    {Problem::role_not_matrix, "{0} must be a matrix, but “{1}” has shape {2}."},
    {Problem::role_not_vector, "{0} must be a vector, but “{1}” has shape {2}."},
    {Problem::role_split_uneven, "“{1}” (shape {2}) cannot be cut into three equal parts for {0}."},
    {Problem::role_shape, "{0} from “{1}” is {2}, but it must be {3} to go with W_q."},
    {Problem::bias_partial, "The Q, K and V biases go together: {0} chosen, {1} missing."},
    {Problem::size_limit, "{0} would be {1}; attnviz handles at most {2}."},
    {Problem::heads_invalid, "{0} heads do not divide d_out {1}: choose another number of heads."},
    {Problem::state_refused, "These weights do not make a valid state: {0}"},
};

}  // namespace

std::string fill_placeholders(const std::string& tmpl, const std::vector<std::string>& values) {
  std::string out;
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

std::string weights_sentence(const weights::Error& e) {
  for (const Wording& w : kEnglish) {
    if (w.code == e.code) return fill_placeholders(w.text, e.values);
  }
  return std::string("The weights could not be read (") + weights::problem_name(e.code) + ").";
}

}  // namespace attnviz::ui
