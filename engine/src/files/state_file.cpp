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
  std::string name;       // the tensor's name in the file: the matrix's JSON path ("layers.3.weights.W_q")
  int layer;              // the captured layer it belongs to, -1 for the state's own
  const char* group;      // "embedding" or "weights": its object in the state JSON
  const char* key;        // its key in that object
  const SharedTensor* t;  // (rows × cols)
  bool bias;              // written with shape [cols]
};

// An input and weights (the state's own, layer -1, or a captured layer's) in file order.
void add_explicit(const State& s, int layer, const EmbeddingSpec& e, const WeightSpec& w, std::vector<Explicit>* out) {
  const std::string prefix = layer < 0 ? "" : "layers." + std::to_string(layer) + ".";
  auto add = [&](const char* group, const char* key, const SharedTensor* t, bool bias) {
    out->push_back({prefix + group + "." + key, layer, group, key, t, bias});
  };
  if (e.init == EmbeddingInit::values) add("embedding", "values", &e.values, false);
  if (w.init != WeightInit::values) return;
  add("weights", "W_q", &w.W_q, false);
  add("weights", "W_k", &w.W_k, false);
  add("weights", "W_v", &w.W_v, false);
  if (s.out_proj) add("weights", "W_o", &w.W_o, false);
  if (s.qkv_bias) {
    add("weights", "b_q", &w.b_q, true);
    add("weights", "b_k", &w.b_k, true);
    add("weights", "b_v", &w.b_v, true);
  }
  if (s.out_proj && s.out_bias) add("weights", "b_o", &w.b_o, true);
}

// Those the state's flags use, in file order (state_to_json writes the same ones):
// the state's own, or layer after layer.
std::vector<Explicit> explicit_matrices(const State& s) {
  std::vector<Explicit> out;
  if (!s.captured()) add_explicit(s, -1, s.embedding, s.weights, &out);
  for (size_t l = 0; l < s.layers.size(); ++l)
    add_explicit(s, static_cast<int>(l), s.layers[l].embedding, s.layers[l].weights, &out);
  return out;
}

uint64_t floats_of(const SharedTensor& t) { return static_cast<uint64_t>(t->rows) * static_cast<uint64_t>(t->cols); }

void empty_inputs(EmbeddingSpec* e, WeightSpec* w) {
  e->values = Tensor();
  for (SharedTensor* t : {&w->W_q, &w->W_k, &w->W_v, &w->W_o, &w->b_q, &w->b_k, &w->b_v, &w->b_o}) *t = Tensor();
}

// The state JSON with every explicit matrix's numbers replaced by its tensor's name.
std::string state_text_naming(const State& s, const std::vector<Explicit>& mats) {
  State shell = s;  // shares the matrices; emptied below, so no number becomes text
  empty_inputs(&shell.embedding, &shell.weights);
  for (CapturedLayer& c : shell.layers) empty_inputs(&c.embedding, &c.weights);
  json j = state_to_json(shell);
  for (const Explicit& e : mats) {
    json& top = e.layer < 0 ? j : j["layers"][static_cast<size_t>(e.layer)];
    top[e.group][e.key] = e.name;
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
