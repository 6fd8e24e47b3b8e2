// attnviz/weights_file.h: reading a learner's trained weights (.safetensors,
// .npz, .npy) without loading the whole file.
//
// Three steps (docs/engine.md, "Trained weights in"):
//   1. Scanner: asks for the byte ranges it needs (the safetensors header; a
//      zip's central directory, each member's local header and .npy header;
//      an .npy header) and turns them into a list of tensors: name, dtype,
//      shape and where their bytes are. The caller reads each range however
//      it can (File.slice in the browser, seeks natively) and feeds it back,
//      so a multi-gigabyte checkpoint is never read whole.
//   2. weights_map.h proposes which tensor is W_q, W_k, ... (pure function).
//   3. to_float32(): the bytes of one chosen tensor → float32 values.
// Bad input never throws or aborts: it gives a Problem code and its values,
// which the UI words (ui/app/text/weights_text.cpp, one table), so that the wording
// can be translated.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attnviz/status.h"

namespace attnviz::weights {

// Every way reading or mapping weights can fail. `values` of an Error fill the
// placeholders {0}, {1}, ... of the sentence the UI has for the code; the
// comment lists them.
enum class Problem {
  none = 0,
  file_empty,            // -
  unknown_format,        // {0} first bytes in hex
  truncated,             // {0} what was being read, {1} bytes needed, {2} bytes the file has
  read_failed,           // {0} what was being read
  header_too_large,      // {0} header bytes, {1} the limit in bytes
  header_not_json,       // {0} the JSON reader's sentence
  header_not_object,     // -
  header_bad_entry,      // {0} tensor name, {1} what is wrong
  offsets_past_end,      // {0} tensor name, {1} end offset, {2} bytes of data in the file
  offsets_overlap,       // {0} tensor name, {1} other tensor name
  size_mismatch,         // {0} tensor name, {1} shape, {2} dtype, {3} bytes expected, {4} bytes it has
  too_many_tensors,      // {0} count, {1} limit
  no_tensors,            // -
  zip_not_zip,           // -
  zip_bad_directory,     // {0} what is wrong
  zip_encrypted,         // {0} member
  zip_method_unsupported,// {0} member, {1} method number
  zip_inflate_failed,    // {0} member
  npy_bad_magic,         // {0} name
  npy_bad_header,        // {0} name, {1} what is wrong
  npy_fortran_order,     // {0} name
  npy_unknown_descr,     // {0} name, {1} descr
  dtype_unsupported,     // {0} tensor name, {1} dtype
  value_not_finite,      // {0} tensor name, {1} index of the first such value
  // Mapping and applying (weights_map.h)
  role_missing,          // {0} role (W_q, W_k, W_v)
  role_not_matrix,       // {0} role, {1} tensor name, {2} shape
  role_not_vector,       // {0} role, {1} tensor name, {2} shape
  role_split_uneven,     // {0} role, {1} tensor name, {2} shape
  // A weight whose shape does not fit. {0} role, {1} tensor name, {2} its shape in the file,
  // {3} the shape it gives as x·W (in, out), after the transpose and the split, {4} the x·W
  // shape it must have, {5} the role it must go with (W_q; W_k for W_v).
  role_shape,            // the choice transposes it (nn.Linear's (out, in))
  role_shape_xw,         // the choice takes it as stored (already x·W)
  role_shape_bias,       // {0} role, {1} tensor name, {2} values it gives, {3} values it must give, {4} the weight it goes with
  kv_width,              // {0} role (W_k), {1} tensor name, {2} its outputs (x·W columns), {3} d_out
  bias_partial,          // {0} roles given, {1} roles missing
  size_limit,            // {0} d_model or d_out, {1} value, {2} limit
  heads_invalid,         // {0} heads, {1} d_out
  heads_kv_invalid,      // {0} heads, {1} d_out, {2} the width of K and V (W_k's outputs)
  state_refused,         // {0} the engine's sentence (the last code)
};

struct Error {
  Problem code = Problem::none;
  std::vector<std::string> values;
  // header_not_json, state_refused: the engine's refusal whose English sentence is {0},
  // with its code and values, so that an interface can word it in its own language
  // (ui/app/text/status_text.h, word_status). ok otherwise.
  Status refusal;
  bool ok() const { return code == Problem::none; }
  static Error make(Problem c, std::vector<std::string> v = {}) { return Error{c, std::move(v), Status{}}; }
};

// A name for the code (for tests, logs, fuzzing): "offsets_overlap".
const char* problem_name(Problem p);

enum class Format { unknown, safetensors, npz, npy };
const char* format_name(Format f);

enum class DType { f32, f16, bf16, f64, unsupported };

// Where bytes are in the file. Plain: `length` bytes at `offset`. With
// `inflate` (a deflated .npz member): those `length` bytes are a raw deflate
// stream, and the bytes meant are its output's [skip, skip + out_length).
struct ByteRange {
  uint64_t offset = 0;
  uint64_t length = 0;
  bool inflate = false;
  uint64_t skip = 0;
  uint64_t out_length = 0;
  // Bytes the caller hands back for this range (length, or out_length when inflating).
  uint64_t wanted() const { return inflate ? out_length : length; }
};

struct TensorInfo {
  std::string name;            // safetensors key; npz member without ".npy"; npy: the file's stem
  std::string dtype;           // as the file spells it: "F32", "BF16", "<f4", "|u1", ...
  DType type = DType::unsupported;
  bool big_endian = false;     // .npy ">f4"
  std::vector<uint64_t> shape; // C order
  ByteRange data;              // the element bytes
  uint64_t count() const;      // number of elements (1 for shape ())
};

// "(768, 2304)", "()" for a scalar.
std::string shape_text(const std::vector<uint64_t>& shape);
const char* dtype_label(DType t);  // "float32", "float16", "bfloat16", "float64", "unsupported"

struct ScanLimits {
  static constexpr uint64_t kMaxHeaderBytes = uint64_t{100} << 20;     // safetensors header, zip directory
  static constexpr uint64_t kMaxNpyHeaderBytes = uint64_t{1} << 20;    // one .npy header
  static constexpr size_t kMaxTensors = 100000;
  static constexpr int kMaxDims = 16;
  static constexpr uint64_t kFirstRead = 64 * 1024;  // bytes asked for first
};

// Step 1. Construct with the file's size and name, then loop:
//   ByteRange r; while (scanner.next(&r)) scanner.feed(read(r));
// feed() takes the bytes asked for (fewer: the file ended or a read failed,
// which becomes an error). When next() returns false, error() says whether it
// worked and tensors() lists what was found.
class Scanner {
 public:
  Scanner(uint64_t file_size, std::string_view file_name);

  bool next(ByteRange* want) const;
  void feed(std::string_view bytes);
  // The caller could not read or inflate the range asked for.
  void fail_read();

  bool finished() const { return phase_ == Phase::done; }
  const Error& error() const { return error_; }
  Format format() const { return format_; }
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  // A .safetensors header's "__metadata__": its string entries (the format allows
  // only strings; other values are skipped), in the header's order. Kept when the
  // scan then fails with no_tensors (a state file of a seeded state holds none).
  const std::vector<std::pair<std::string, std::string>>& metadata() const { return metadata_; }
  // The value of one metadata entry, or null.
  const std::string* metadata_value(std::string_view key) const;

 private:
  enum class Phase { prefix, st_header, npy_header, zip_tail, zip64_record, zip_dir, zip_member, done };
  struct Member {
    std::string name;
    uint16_t method = 0;
    uint64_t comp_size = 0, size = 0, local_offset = 0;
  };
  void fail(Error e);
  void on_prefix(std::string_view b);
  void parse_safetensors(std::string_view header, uint64_t data_start);
  void on_npy_header(std::string_view b);
  void on_zip_tail(std::string_view b);
  void on_zip64_record(std::string_view b);
  void on_zip_dir(std::string_view b);
  void on_zip_member(std::string_view b);
  void next_member();
  void finish();

  uint64_t size_;
  std::string name_;
  Phase phase_ = Phase::prefix;
  ByteRange want_;
  Error error_;
  Format format_ = Format::unknown;
  std::vector<TensorInfo> tensors_;
  std::vector<std::pair<std::string, std::string>> metadata_;
  // zip
  uint64_t tail_offset_ = 0;
  uint64_t dir_offset_ = 0, dir_size_ = 0, dir_count_ = 0;
  std::vector<Member> members_;
  size_t member_ = 0;
  uint64_t member_data_ = 0;  // offset of the current member's data (after its local header); 0 = unknown yet
};

// Step 3. The bytes of t.data (as the caller read them) → t.count() float32
// values, row-major. float16 and bfloat16 convert exactly; float64 rounds to
// nearest. Non-finite values are refused (value_not_finite) as the engine
// refuses them in a state.
Error to_float32(const TensorInfo& t, std::string_view bytes, std::vector<float>* out);
// The same into `out`, room for t.count() floats (a Tensor's own buffer: no copy).
// Little-endian float32 is copied whole, then checked.
Error to_float32(const TensorInfo& t, std::string_view bytes, float* out);

// Exact conversions (for tests and to_float32).
float half_to_float(uint16_t h);
float bfloat16_to_float(uint16_t b);

// A synchronous driver (the desktop, tests): reads each range with `read`
// (offset, length → bytes; false on failure) and, for deflated members, hands
// the compressed bytes to `inflate` (raw deflate, at most `limit` output
// bytes → false on a corrupt stream). Without an inflater a deflated member
// gives zip_inflate_failed.
using ReadFn = std::function<bool(uint64_t offset, uint64_t length, std::string* out)>;
using InflateFn = std::function<bool(std::string_view in, uint64_t limit, std::string* out)>;
// Reads one range (for Scanner::next or a TensorInfo's data).
bool read_range(const ByteRange& r, const ReadFn& read, const InflateFn& inflate, std::string* out);
void scan_all(Scanner& s, const ReadFn& read, const InflateFn& inflate);

}  // namespace attnviz::weights
