// state_file.cpp: a session state as a .safetensors file (attnviz/state_file.h).
//
// [SECTION] The explicit matrices a state writes
// [SECTION] Writing
// [SECTION] Reading: the reader's problems as refusals, then the state
#include "attnviz/state_file.h"

#include <cstring>
#include <unordered_map>
#include <vector>

#include "attnviz/weights_file.h"
#include "files/files_internal.h"
#include "state/state_internal.h"

namespace attnviz {

namespace {

using nlohmann::json;

// --- [SECTION] The explicit matrices a state writes

struct Explicit {
  const char* name;       // the tensor's name in the file: the matrix's JSON path
  const char* key;        // its key in the state JSON's object (embedding or weights)
  const SharedTensor* t;  // (rows × cols)
  bool bias;              // written with shape [cols]
};

// Those the state's flags use, in file order (state_to_json writes the same ones).
std::vector<Explicit> explicit_matrices(const State& s) {
  std::vector<Explicit> out;
  if (s.embedding.init == EmbeddingInit::values) out.push_back({"embedding.values", "values", &s.embedding.values, false});
  if (s.weights.init != WeightInit::values) return out;
  const WeightSpec& w = s.weights;
  out.push_back({"weights.W_q", "W_q", &w.W_q, false});
  out.push_back({"weights.W_k", "W_k", &w.W_k, false});
  out.push_back({"weights.W_v", "W_v", &w.W_v, false});
  if (s.out_proj) out.push_back({"weights.W_o", "W_o", &w.W_o, false});
  if (s.qkv_bias) {
    out.push_back({"weights.b_q", "b_q", &w.b_q, true});
    out.push_back({"weights.b_k", "b_k", &w.b_k, true});
    out.push_back({"weights.b_v", "b_v", &w.b_v, true});
  }
  if (s.out_proj && s.out_bias) out.push_back({"weights.b_o", "b_o", &w.b_o, true});
  return out;
}

uint64_t floats_of(const SharedTensor& t) { return static_cast<uint64_t>(t->rows) * static_cast<uint64_t>(t->cols); }

// The state JSON with every explicit matrix's numbers replaced by its tensor's name.
std::string state_text_naming(const State& s, const std::vector<Explicit>& mats) {
  State shell = s;  // shares the matrices; emptied below, so no number becomes text
  shell.embedding.values = Tensor();
  for (SharedTensor* t : {&shell.weights.W_q, &shell.weights.W_k, &shell.weights.W_v, &shell.weights.W_o,
                          &shell.weights.b_q, &shell.weights.b_k, &shell.weights.b_v, &shell.weights.b_o})
    *t = Tensor();
  json j = state_to_json(shell);
  for (const Explicit& e : mats) {
    json& owner = std::strncmp(e.name, "embedding.", 10) == 0 ? j["embedding"] : j["weights"];
    owner[e.key] = e.name;
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

void put_le64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

uint64_t le64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

}  // namespace

uint64_t state_explicit_values(const State& s) {
  uint64_t n = 0;
  for (const Explicit& e : explicit_matrices(s)) n += floats_of(*e.t);
  return n;
}

// --- [SECTION] Writing

std::string state_to_safetensors(const State& s) {
  static_assert(sizeof(float) == 4, "F32 is 4 bytes");
  const std::vector<Explicit> mats = explicit_matrices(s);
  json header = json::object();
  header["__metadata__"] = {{kStateFileFormatKey, kStateFileFormat}, {kStateFileStateKey, state_text_naming(s, mats)}};
  uint64_t offset = 0;
  for (const Explicit& e : mats) {
    const Tensor& t = e.t->get();
    const uint64_t bytes = floats_of(*e.t) * 4;
    json shape = e.bias && t.rows == 1 ? json::array({t.cols}) : json::array({t.rows, t.cols});
    header[e.name] = {{"dtype", "F32"}, {"shape", std::move(shape)}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump(-1, ' ', false, json::error_handler_t::replace);
  text.append((8 - text.size() % 8) % 8, ' ');  // the data starts at a multiple of 8 (the spec's padding)
  std::string out;
  out.reserve(8 + text.size() + offset);
  put_le64(&out, text.size());
  out += text;
  // The engine's floats are little-endian float32 (x86-64, WebAssembly): their bytes are F32's.
  for (const Explicit& e : mats) {
    const Tensor& t = e.t->get();
    out.append(reinterpret_cast<const char*>(t.data.data()), floats_of(*e.t) * 4);
  }
  return out;
}

// --- [SECTION] Reading

bool looks_like_safetensors(std::string_view head, uint64_t size) {
  if (head.size() < 9 || size < 9 || head[8] != '{') return false;
  const uint64_t n = le64(head.data());
  return n >= 2 && n <= size - 8;
}

bool scanner_found_state(const weights::Scanner& s) {
  return s.format() == weights::Format::safetensors && s.metadata_value(kStateFileStateKey) != nullptr;
}

namespace {

using weights::Problem;

// A refusal quoted inside another: a phrase (so an interface words it in its own
// language) when it is one message with plain values, else its English sentence.
MsgArg quoted_refusal(const Status& st) {
  Msg m;
  if (st.phrases.empty() && msg_from_code(st.code, &m)) return MsgArg(m, st.args);
  return MsgArg(st.error);
}


// What the Scanner refused, as the state file's sentence. Its values are listed in
// weights_file.h, Problem.
Status scan_refusal(const weights::Scanner& scan, std::string_view file) {
  const weights::Error& e = scan.error();
  const auto v = [&](size_t i) { return i < e.values.size() ? e.values[i] : std::string(); };
  switch (e.code) {
    case Problem::file_empty: return Status::refusal(Msg::state_file_empty, "");
    case Problem::unknown_format: return Status::refusal(Msg::state_file_not_safetensors, "", {detail::hex_prefix(file)});
    case Problem::truncated: return Status::refusal(Msg::state_file_truncated, "", {v(1), v(2)});
    case Problem::header_too_large: return Status::refusal(Msg::state_file_header_too_large, "", {v(0), v(1)});
    case Problem::header_not_json:
      return Status::refusal(Msg::state_file_header_not_json, "", {quoted_refusal(e.refusal)});
    case Problem::header_not_object: return Status::refusal(Msg::state_file_header_bad, "");
    case Problem::header_bad_entry: return Status::refusal(Msg::state_file_header_entry, "", {v(0), v(1)});
    case Problem::offsets_past_end: return Status::refusal(Msg::state_file_past_end, "", {v(0), v(1), v(2)});
    case Problem::offsets_overlap: return Status::refusal(Msg::state_file_overlap, "", {v(0), v(1)});
    case Problem::size_mismatch: return Status::refusal(Msg::state_file_tensor_bytes, "", {v(0), v(1), v(2), v(3), v(4)});
    default: return Status::refusal(Msg::state_file_unreadable, "", {weights::problem_name(e.code)});
  }
}

// The tensors of a scanned file, converted when the state first names them.
class TensorTable {
 public:
  TensorTable(const std::vector<weights::TensorInfo>& tensors, std::string_view file)
      : tensors_(tensors), file_(file), loaded_(tensors.size()), named_(tensors.size(), false) {
    for (size_t i = 0; i < tensors.size(); ++i) index_.emplace(tensors[i].name, i);
  }

  // detail::NamedTensorFn: the tensor `name`, for the state's `field`.
  Status take(const std::string& field, const std::string& name, SharedTensor* out) {
    const auto it = index_.find(name);
    if (it == index_.end()) return Status::refusal(Msg::state_file_tensor_missing, field, {field, detail::shown(name)});
    const size_t i = it->second;
    if (!named_[i]) {
      Status st = load(field, tensors_[i], &loaded_[i]);
      if (!st.ok) return st;
      named_[i] = true;
    }
    *out = loaded_[i];  // two fields naming one tensor share it
    return Status::success();
  }

  // The first tensor no field named, or null.
  const weights::TensorInfo* unnamed() const {
    for (size_t i = 0; i < tensors_.size(); ++i)
      if (!named_[i]) return &tensors_[i];
    return nullptr;
  }

 private:
  Status load(const std::string& field, const weights::TensorInfo& t, SharedTensor* out) const {
    const std::vector<uint64_t>& dims = t.shape;
    constexpr uint64_t kMaxDim = uint64_t{1} << 30;  // far beyond any state's (the limits are 4096)
    if (dims.empty() || dims.size() > 2 || dims[0] > kMaxDim || dims.back() > kMaxDim)
      return Status::refusal(Msg::state_file_tensor_dims, field, {field, detail::shown(t.name), weights::shape_text(dims)});
    if (t.type == weights::DType::unsupported)
      return Status::refusal(Msg::state_file_tensor_dtype, field, {field, detail::shown(t.name), detail::shown(t.dtype)});
    Tensor x;
    x.reset_for_overwrite(dims.size() == 2 ? static_cast<int>(dims[0]) : 1, static_cast<int>(dims.back()));
    const weights::Error e = weights::to_float32(t, file_.substr(t.data.offset, t.data.length), x.data.data());
    if (e.code == Problem::value_not_finite) return Status::refusal(Msg::finite_only, field, {field});
    if (!e.ok()) return Status::refusal(Msg::state_file_unreadable, field, {weights::problem_name(e.code)});
    *out = std::move(x);
    return Status::success();
  }

  const std::vector<weights::TensorInfo>& tensors_;
  std::string_view file_;
  std::unordered_map<std::string, size_t> index_;
  std::vector<SharedTensor> loaded_;
  std::vector<bool> named_;
};

}  // namespace

Status state_from_safetensors(std::string_view file, State* out) {
  try {
    weights::Scanner scan(file.size(), "state.safetensors");
    const weights::ReadFn read = [&](uint64_t offset, uint64_t length, std::string* bytes) {
      if (offset > file.size()) return false;
      bytes->assign(file.substr(offset, length));
      return true;
    };
    weights::scan_all(scan, read, nullptr);
    if (scan.error().code == Problem::file_empty) return Status::refusal(Msg::state_file_empty, "");
    if (scan.format() != weights::Format::safetensors)
      return Status::refusal(Msg::state_file_not_safetensors, "", {detail::hex_prefix(file)});
    // No tensors is a state whose inputs are all seeded.
    if (!scan.error().ok() && scan.error().code != Problem::no_tensors) return scan_refusal(scan, file);
    const std::string* text = scan.metadata_value(kStateFileStateKey);
    if (text == nullptr) return Status::refusal(Msg::state_file_no_state, "");
    const std::string* format = scan.metadata_value(kStateFileFormatKey);
    if (format != nullptr && *format != kStateFileFormat)
      return Status::refusal(Msg::state_file_format_newer, "", {detail::shown(*format)});
    json j;
    Status st = parse_json_text(*text, &j);
    if (!st.ok) return Status::refusal(Msg::state_file_state_not_json, st.field, {quoted_refusal(st)});
    TensorTable table(scan.tensors(), file);
    State s;
    st = detail::parse_state_named(
        j, [&](const std::string& field, const std::string& name, SharedTensor* t) { return table.take(field, name, t); },
        &s);
    if (!st.ok) return st;
    if (const weights::TensorInfo* t = table.unnamed()) return Status::refusal(Msg::state_file_tensor_unused, "", {detail::shown(t->name)});
    *out = std::move(s);
    return Status::success();
  } catch (const std::bad_alloc&) {
    return Status::refusal(Msg::no_memory_to_read, "");
  } catch (const std::exception& e) {
    return Status::refusal(Msg::could_not_read, "", {e.what()});
  }
}

}  // namespace attnviz
