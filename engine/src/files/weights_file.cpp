// weights_file.cpp: the .safetensors / .npz / .npy readers (weights_file.h).
// Every length read from a file is checked against the file's size before it
// is used; nothing here throws (the JSON header goes through parse_json_text).
#include "attnviz/weights_file.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "attnviz/state.h"
#include "attnviz/state_json.h"
#include "files/files_internal.h"

namespace attnviz::detail {

std::string hex_prefix(std::string_view b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < b.size() && i < 8; ++i) {
    if (i) s += ' ';
    s += d[static_cast<uint8_t>(b[i]) >> 4];
    s += d[static_cast<uint8_t>(b[i]) & 15];
  }
  return s;
}

// A name for a sentence: at most 120 bytes, cut at a UTF-8 boundary.
std::string shown(std::string_view name) {
  if (name.size() <= 120) return std::string(name);
  size_t n = 117;
  while (n > 0 && (static_cast<uint8_t>(name[n]) & 0xC0) == 0x80) --n;
  return std::string(name.substr(0, n)) + "...";
}

}  // namespace attnviz::detail

namespace attnviz::weights {

using attnviz::detail::shown;

namespace {

uint16_t le16(const char* p) {
  return static_cast<uint16_t>(static_cast<uint8_t>(p[0]) | (static_cast<uint8_t>(p[1]) << 8));
}
uint32_t le32(const char* p) { return le16(p) | (static_cast<uint32_t>(le16(p + 2)) << 16); }
uint64_t le64(const char* p) { return le32(p) | (static_cast<uint64_t>(le32(p + 4)) << 32); }

std::string num(uint64_t v) { return std::to_string(v); }


// Bytes of one element, or 0 when unknown.
uint64_t safetensors_elem_bytes(const std::string& dt, DType* type) {
  *type = DType::unsupported;
  if (dt == "F32") return *type = DType::f32, 4;
  if (dt == "F16") return *type = DType::f16, 2;
  if (dt == "BF16") return *type = DType::bf16, 2;
  if (dt == "F64") return *type = DType::f64, 8;
  if (dt == "I8" || dt == "U8" || dt == "BOOL" || dt == "F8_E4M3" || dt == "F8_E5M2") return 1;
  if (dt == "I16" || dt == "U16") return 2;
  if (dt == "I32" || dt == "U32") return 4;
  if (dt == "I64" || dt == "U64") return 8;
  return 0;
}

uint64_t elem_bytes(const TensorInfo& t) {
  switch (t.type) {
    case DType::f32: return 4;
    case DType::f16:
    case DType::bf16: return 2;
    case DType::f64: return 8;
    default: return 0;
  }
}

// Product of dims, false on overflow past 2^62.
bool shape_count(const std::vector<uint64_t>& shape, uint64_t* n) {
  uint64_t c = 1;
  for (uint64_t d : shape) {
    if (d != 0 && c > (uint64_t{1} << 62) / d) return false;
    c *= d;
  }
  *n = c;
  return true;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// --- .npy header: {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
struct NpyHeader {
  uint64_t total = 0;  // magic + lengths + dict: where the data starts
  std::string descr;
  bool fortran = false;
  std::vector<uint64_t> shape;
};

// The magic, the format version and the dictionary's length: where the dictionary
// is (*start, *hlen). False with *need or *err as parse_npy_header says.
bool npy_preamble(std::string_view b, const std::string& name, uint64_t* start, uint64_t* hlen, uint64_t* need,
                  Error* err) {
  if (b.size() < 10) {
    *need = 10;
    return false;
  }
  if (b.substr(0, 6) != std::string_view("\x93NUMPY", 6)) {
    *err = Error::make(Problem::npy_bad_magic, {shown(name)});
    return false;
  }
  const int major = static_cast<uint8_t>(b[6]);
  if (major == 1) {
    *hlen = le16(b.data() + 8);
    *start = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) {
      *need = 12;
      return false;
    }
    *hlen = le32(b.data() + 8);
    *start = 12;
  } else {
    *err = Error::make(Problem::npy_bad_header, {shown(name), "format version " + std::to_string(major)});
    return false;
  }
  if (*hlen > ScanLimits::kMaxNpyHeaderBytes) {
    *err = Error::make(Problem::npy_bad_header, {shown(name), "a header of " + num(*hlen) + " bytes"});
    return false;
  }
  return true;
}

// The header's dictionary, read left to right from s[i]: whitespace, quoted strings,
// literals. bad() words what is wrong with it as the file's error and returns false.
struct NpyDict {
  std::string_view s;
  const std::string& name;
  Error* err;
  size_t i = 0;

  bool bad(const std::string& what) {
    *err = Error::make(Problem::npy_bad_header, {shown(name), what});
    return false;
  }
  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) ++i;
  }
  bool str(std::string* out) {
    ws();
    if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) return false;
    const char q = s[i++];
    const size_t j = s.find(q, i);
    if (j == std::string_view::npos) return false;
    *out = std::string(s.substr(i, j - i));
    i = j + 1;
    return true;
  }
  bool lit(std::string_view w) {
    ws();
    if (s.substr(i, w.size()) != w) return false;
    i += w.size();
    return true;
  }
};

// 'descr': a type string such as '<f4' (a list would be a structured dtype).
bool npy_descr_value(NpyDict& d, NpyHeader* h) {
  d.ws();
  if (d.i < d.s.size() && d.s[d.i] == '[') {
    *d.err = Error::make(Problem::npy_unknown_descr, {shown(d.name), "a structured dtype"});
    return false;
  }
  if (!d.str(&h->descr)) return d.bad("a descr that is not a string");
  return true;
}

// 'fortran_order': True or False.
bool npy_fortran_value(NpyDict& d, NpyHeader* h) {
  if (d.lit("True")) h->fortran = true;
  else if (d.lit("False")) h->fortran = false;
  else return d.bad("fortran_order is neither True nor False");
  return true;
}

// 'shape': a tuple of whole numbers, "(3, 4)", "(3,)" or "()".
bool npy_shape_value(NpyDict& d, NpyHeader* h) {
  if (!d.lit("(")) return d.bad("a shape that is not a tuple");
  for (;;) {
    if (d.lit(")")) break;
    d.ws();
    uint64_t v = 0;
    size_t digits = 0;
    while (d.i < d.s.size() && d.s[d.i] >= '0' && d.s[d.i] <= '9') {
      if (v > (uint64_t{1} << 50)) return d.bad("a dimension too large");
      v = v * 10 + static_cast<uint64_t>(d.s[d.i++] - '0');
      ++digits;
    }
    if (digits == 0) return d.bad("a dimension that is not a whole number");
    if (d.i < d.s.size() && d.s[d.i] == 'L') ++d.i;  // Python 2's long
    if (h->shape.size() >= static_cast<size_t>(ScanLimits::kMaxDims)) return d.bad("more than 16 dimensions");
    h->shape.push_back(v);
    if (d.lit(",")) continue;
    if (d.lit(")")) break;
    return d.bad("a malformed shape");
  }
  return true;
}

// The dictionary: each of descr, fortran_order and shape once, no other key.
bool npy_dict(NpyDict& d, NpyHeader* h) {
  bool have_descr = false, have_fortran = false, have_shape = false;
  if (!d.lit("{")) return d.bad("no dictionary");
  for (;;) {
    if (d.lit("}")) break;
    std::string key;
    if (!d.str(&key)) return d.bad("a key that is not a string");
    if (!d.lit(":")) return d.bad("no ':' after '" + shown(key) + "'");
    if (key == "descr") {
      if (!npy_descr_value(d, h)) return false;
      have_descr = true;
    } else if (key == "fortran_order") {
      if (!npy_fortran_value(d, h)) return false;
      have_fortran = true;
    } else if (key == "shape") {
      if (!npy_shape_value(d, h)) return false;
      have_shape = true;
    } else {
      return d.bad("an unknown key '" + shown(key) + "'");
    }
    if (d.lit(",")) continue;
    if (d.lit("}")) break;
    return d.bad("a malformed dictionary");
  }
  if (!have_descr || !have_fortran || !have_shape) return d.bad("descr, fortran_order or shape missing");
  return true;
}

// Parses the .npy header at the start of b. Returns true when parsed; false
// with *need > b.size() when more bytes are needed; false with *err otherwise.
bool parse_npy_header(std::string_view b, const std::string& name, NpyHeader* h, uint64_t* need, Error* err) {
  *need = 0;
  uint64_t start = 0, hlen = 0;
  if (!npy_preamble(b, name, &start, &hlen, need, err)) return false;
  h->total = start + hlen;
  if (b.size() < h->total) {
    *need = h->total;
    return false;
  }
  NpyDict d{b.substr(start, hlen), name, err};
  return npy_dict(d, h);
}

// descr → dtype; false when descr is not a numpy type string at all.
bool npy_descr(const std::string& d, TensorInfo* t, uint64_t* item) {
  t->dtype = d;
  t->type = DType::unsupported;
  *item = 0;
  if (d.size() < 3 || std::string_view("<>|=").find(d[0]) == std::string_view::npos) return false;
  if (std::string_view("biufcmMOSUV?").find(d[1]) == std::string_view::npos) return false;
  uint64_t n = 0;
  for (size_t k = 2; k < d.size(); ++k) {
    if (d[k] < '0' || d[k] > '9' || n > 1000000) return false;
    n = n * 10 + static_cast<uint64_t>(d[k] - '0');
  }
  *item = n;
  t->big_endian = d[0] == '>';
  if (d[1] == 'f' && n == 4) t->type = DType::f32;
  else if (d[1] == 'f' && n == 2) t->type = DType::f16;
  else if (d[1] == 'f' && n == 8) t->type = DType::f64;
  return true;
}

}  // namespace

const char* problem_name(Problem p) {
  switch (p) {
#define N(x) case Problem::x: return #x;
    N(none) N(file_empty) N(unknown_format) N(truncated) N(read_failed) N(header_too_large) N(header_not_json)
    N(header_not_object) N(header_bad_entry) N(offsets_past_end) N(offsets_overlap) N(size_mismatch)
    N(too_many_tensors) N(no_tensors) N(zip_not_zip) N(zip_bad_directory) N(zip_encrypted)
    N(zip_method_unsupported) N(zip_inflate_failed) N(npy_bad_magic) N(npy_bad_header) N(npy_fortran_order)
    N(npy_unknown_descr) N(dtype_unsupported) N(value_not_finite) N(role_missing) N(role_not_matrix)
    N(role_not_vector) N(role_split_uneven) N(role_shape) N(role_shape_xw) N(role_shape_bias) N(kv_width) N(bias_partial)
    N(size_limit) N(heads_invalid) N(heads_kv_invalid)
    N(state_refused)
#undef N
  }
  return "unknown";
}

const char* format_name(Format f) {
  switch (f) {
    case Format::safetensors: return "safetensors";
    case Format::npz: return "npz";
    case Format::npy: return "npy";
    default: return "unknown";
  }
}

const char* dtype_label(DType t) {
  switch (t) {
    case DType::f32: return "float32";
    case DType::f16: return "float16";
    case DType::bf16: return "bfloat16";
    case DType::f64: return "float64";
    default: return "unsupported";
  }
}

uint64_t TensorInfo::count() const {
  uint64_t n = 0;
  return shape_count(shape, &n) ? n : 0;
}

std::string shape_text(const std::vector<uint64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + num(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

// --- Scanner

Scanner::Scanner(uint64_t file_size, std::string_view file_name) : size_(file_size), name_(file_name) {
  if (size_ == 0) {
    fail(Error::make(Problem::file_empty));
    return;
  }
  want_ = ByteRange{0, std::min<uint64_t>(size_, ScanLimits::kFirstRead)};
}

const std::string* Scanner::metadata_value(std::string_view key) const {
  for (const auto& [k, v] : metadata_) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool Scanner::next(ByteRange* want) const {
  if (phase_ == Phase::done) return false;
  *want = want_;
  return true;
}

void Scanner::fail(Error e) {
  error_ = std::move(e);
  tensors_.clear();
  phase_ = Phase::done;
}

void Scanner::fail_read() {
  if (phase_ == Phase::done) return;
  if (want_.inflate && member_ < members_.size()) fail(Error::make(Problem::zip_inflate_failed, {shown(members_[member_].name + ".npy")}));
  else fail(Error::make(Problem::read_failed, {"bytes " + num(want_.offset) + " to " + num(want_.offset + want_.length)}));
}

void Scanner::feed(std::string_view b) {
  if (phase_ == Phase::done) return;
  if (b.size() != want_.wanted()) {
    if (want_.inflate) {
      fail(Error::make(Problem::zip_inflate_failed, {shown(members_[member_].name + ".npy")}));
    } else {
      fail(Error::make(Problem::truncated, {"bytes " + num(want_.offset) + " to " + num(want_.offset + want_.length),
                                            num(want_.offset + want_.length), num(want_.offset + b.size())}));
    }
    return;
  }
  switch (phase_) {
    case Phase::prefix: on_prefix(b); break;
    case Phase::st_header: parse_safetensors(b, 8 + b.size()); break;
    case Phase::npy_header: on_npy_header(b); break;
    case Phase::zip_tail: on_zip_tail(b); break;
    case Phase::zip64_record: on_zip64_record(b); break;
    case Phase::zip_dir: on_zip_dir(b); break;
    case Phase::zip_member: on_zip_member(b); break;
    case Phase::done: break;
  }
}

void Scanner::on_prefix(std::string_view b) {
  if (b.size() >= 4 && (b.substr(0, 4) == std::string_view("PK\x03\x04", 4) || b.substr(0, 4) == std::string_view("PK\x05\x06", 4))) {
    format_ = Format::npz;
    const uint64_t len = std::min<uint64_t>(size_, 22 + 65535 + 20);
    tail_offset_ = size_ - len;
    phase_ = Phase::zip_tail;
    if (size_ <= b.size()) {  // the whole file is here
      on_zip_tail(b.substr(tail_offset_));
      return;
    }
    want_ = ByteRange{tail_offset_, len};
    return;
  }
  if (b.size() >= 6 && b.substr(0, 6) == std::string_view("\x93NUMPY", 6)) {
    format_ = Format::npy;
    std::string stem = name_;
    const size_t slash = stem.find_last_of("/\\");
    if (slash != std::string::npos) stem = stem.substr(slash + 1);
    if (ends_with(stem, ".npy")) stem.resize(stem.size() - 4);
    if (stem.empty()) stem = "array";
    Member m;
    m.name = stem;
    m.comp_size = m.size = size_;
    members_.push_back(m);
    member_ = 0;
    member_data_ = 0;
    phase_ = Phase::npy_header;
    on_npy_header(b);
    return;
  }
  // safetensors: an 8-byte little-endian length, then the JSON header's '{'.
  if (size_ < 8 || (size_ > 8 && b[8] != '{')) {
    fail(Error::make(Problem::unknown_format, {attnviz::detail::hex_prefix(b)}));
    return;
  }
  format_ = Format::safetensors;
  const uint64_t n = le64(b.data());
  if (n > ScanLimits::kMaxHeaderBytes) {
    fail(Error::make(Problem::header_too_large, {num(n), num(ScanLimits::kMaxHeaderBytes)}));
    return;
  }
  if (8 + n > size_) {
    fail(Error::make(Problem::truncated, {"the safetensors header", num(8 + n), num(size_)}));
    return;
  }
  if (8 + n <= b.size()) {
    parse_safetensors(b.substr(8, n), 8 + n);
    return;
  }
  phase_ = Phase::st_header;
  want_ = ByteRange{8, n};
}

void Scanner::parse_safetensors(std::string_view header, uint64_t data_start) {
  nlohmann::json j;
  const Status st = parse_json_text(header, &j);
  if (!st.ok) {
    Error e = Error::make(Problem::header_not_json, {st.error});
    e.refusal = st;
    fail(std::move(e));
    return;
  }
  if (!j.is_object()) {
    fail(Error::make(Problem::header_not_object));
    return;
  }
  if (j.size() > ScanLimits::kMaxTensors + 1) {
    fail(Error::make(Problem::too_many_tensors, {num(j.size()), num(ScanLimits::kMaxTensors)}));
    return;
  }
  const uint64_t data_len = size_ - data_start;
  std::vector<TensorInfo> out;
  out.reserve(j.size());
  if (auto meta = j.find("__metadata__"); meta != j.end() && meta->is_object()) {
    for (auto it = meta->begin(); it != meta->end(); ++it) {
      if (it.value().is_string()) metadata_.emplace_back(it.key(), it.value().get<std::string>());
    }
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& name = it.key();
    if (name == "__metadata__") continue;
    const auto& v = it.value();
    auto bad = [&](const char* what) { fail(Error::make(Problem::header_bad_entry, {shown(name), what})); };
    if (!v.is_object()) return bad("its entry is not an object");
    auto dt = v.find("dtype");
    auto sh = v.find("shape");
    auto off = v.find("data_offsets");
    if (dt == v.end() || !dt->is_string()) return bad("no dtype");
    if (sh == v.end() || !sh->is_array()) return bad("no shape");
    if (off == v.end() || !off->is_array() || off->size() != 2) return bad("no data_offsets [begin, end]");
    TensorInfo t;
    t.name = name;
    t.dtype = dt->get<std::string>();
    const uint64_t elem = safetensors_elem_bytes(t.dtype, &t.type);
    if (sh->size() > static_cast<size_t>(ScanLimits::kMaxDims)) return bad("more than 16 dimensions");
    for (const auto& d : *sh) {
      if (!d.is_number_unsigned()) return bad("a dimension that is not a whole number");
      t.shape.push_back(d.get<uint64_t>());
    }
    if (!(*off)[0].is_number_unsigned() || !(*off)[1].is_number_unsigned()) return bad("data_offsets that are not whole numbers");
    const uint64_t b0 = (*off)[0].get<uint64_t>(), b1 = (*off)[1].get<uint64_t>();
    if (b1 < b0) return bad("data_offsets whose end is before their begin");
    if (b1 > data_len) {
      fail(Error::make(Problem::offsets_past_end, {shown(name), num(b1), num(data_len)}));
      return;
    }
    uint64_t count = 0;
    if (!shape_count(t.shape, &count)) return bad("a shape too large");
    if (elem != 0 && (count > (uint64_t{1} << 62) / elem || count * elem != b1 - b0)) {
      fail(Error::make(Problem::size_mismatch, {shown(name), shape_text(t.shape), t.dtype,
                                                count > (uint64_t{1} << 62) / elem ? "too many" : num(count * elem), num(b1 - b0)}));
      return;
    }
    t.data = ByteRange{data_start + b0, b1 - b0};
    out.push_back(std::move(t));
  }
  if (out.empty()) {
    fail(Error::make(Problem::no_tensors));
    return;
  }
  std::vector<size_t> order(out.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return out[a].data.offset != out[b].data.offset ? out[a].data.offset < out[b].data.offset : a < b;
  });
  const TensorInfo* prev = nullptr;
  for (size_t k : order) {
    const TensorInfo& t = out[k];
    if (t.data.length == 0) continue;
    if (prev != nullptr && t.data.offset < prev->data.offset + prev->data.length) {
      fail(Error::make(Problem::offsets_overlap, {shown(t.name), shown(prev->name)}));
      return;
    }
    prev = &t;
  }
  std::vector<TensorInfo> sorted;
  sorted.reserve(out.size());
  for (size_t k : order) sorted.push_back(std::move(out[k]));
  tensors_ = std::move(sorted);
  phase_ = Phase::done;
}

// b: the first bytes of the current member's (or the .npy file's) data.
void Scanner::on_npy_header(std::string_view b) {
  const Member& m = members_[member_];
  const std::string shown_name = format_ == Format::npz ? m.name + ".npy" : name_;
  NpyHeader h;
  uint64_t need = 0;
  Error err;
  if (!parse_npy_header(b, shown_name, &h, &need, &err)) {
    if (!err.ok()) return fail(std::move(err));
    if (need > m.size || need <= b.size()) {
      return fail(Error::make(Problem::truncated, {"the .npy header of " + shown(shown_name), num(need), num(m.size)}));
    }
    phase_ = Phase::npy_header;
    want_ = m.method == 8 ? ByteRange{member_data_, m.comp_size, true, 0, need} : ByteRange{member_data_, need};
    return;
  }
  if (h.fortran) return fail(Error::make(Problem::npy_fortran_order, {shown(shown_name)}));
  TensorInfo t;
  t.name = m.name;
  uint64_t item = 0;
  if (!npy_descr(h.descr, &t, &item)) return fail(Error::make(Problem::npy_unknown_descr, {shown(shown_name), shown(h.descr)}));
  t.shape = h.shape;
  uint64_t count = 0;
  if (!shape_count(t.shape, &count) || (item != 0 && count > (uint64_t{1} << 62) / item)) {
    return fail(Error::make(Problem::npy_bad_header, {shown(shown_name), "a shape too large"}));
  }
  const uint64_t have = m.size - std::min(m.size, h.total);
  if (h.total > m.size || count * item != have) {
    return fail(Error::make(Problem::size_mismatch, {shown(shown_name), shape_text(t.shape), h.descr, num(count * item), num(have)}));
  }
  if (m.method == 8) {
    t.data = ByteRange{member_data_, m.comp_size, true, h.total, count * item};
  } else {
    t.data = ByteRange{member_data_ + h.total, count * item};
  }
  tensors_.push_back(std::move(t));
  if (format_ == Format::npy) return finish();
  ++member_;
  next_member();
}

void Scanner::on_zip_tail(std::string_view b) {
  // The end-of-central-directory record: the last "PK\5\6" whose comment runs to the end.
  if (b.size() < 22) return fail(Error::make(Problem::zip_not_zip));
  size_t at = std::string_view::npos;
  for (size_t i = b.size() - 22 + 1; i-- > 0;) {
    if (b.substr(i, 4) == std::string_view("PK\x05\x06", 4) && i + 22 + le16(b.data() + i + 20) == b.size()) {
      at = i;
      break;
    }
  }
  if (at == std::string_view::npos) return fail(Error::make(Problem::zip_not_zip));
  const char* e = b.data() + at;
  if (le16(e + 4) != 0 || le16(e + 6) != 0) return fail(Error::make(Problem::zip_bad_directory, {"it is split over several disks"}));
  dir_count_ = le16(e + 10);
  dir_size_ = le32(e + 12);
  dir_offset_ = le32(e + 16);
  if (dir_count_ == 0xFFFF || dir_size_ == 0xFFFFFFFFu || dir_offset_ == 0xFFFFFFFFu) {
    if (at < 20 || b.substr(at - 20, 4) != std::string_view("PK\x06\x07", 4)) {
      return fail(Error::make(Problem::zip_bad_directory, {"its zip64 locator is missing"}));
    }
    const uint64_t rec = le64(b.data() + at - 20 + 8);
    if (rec > size_ || size_ - rec < 56) return fail(Error::make(Problem::zip_bad_directory, {"its zip64 record is past the end"}));
    phase_ = Phase::zip64_record;
    want_ = ByteRange{rec, 56};
    return;
  }
  on_zip64_record(std::string_view());
}

void Scanner::on_zip64_record(std::string_view b) {
  if (!b.empty()) {
    if (b.substr(0, 4) != std::string_view("PK\x06\x06", 4)) return fail(Error::make(Problem::zip_bad_directory, {"its zip64 record is damaged"}));
    dir_count_ = le64(b.data() + 32);
    dir_size_ = le64(b.data() + 40);
    dir_offset_ = le64(b.data() + 48);
  }
  if (dir_offset_ > size_ || dir_size_ > size_ - dir_offset_) {
    return fail(Error::make(Problem::zip_bad_directory, {"its directory lies past the end of the file"}));
  }
  if (dir_size_ > ScanLimits::kMaxHeaderBytes) return fail(Error::make(Problem::header_too_large, {num(dir_size_), num(ScanLimits::kMaxHeaderBytes)}));
  if (dir_count_ > ScanLimits::kMaxTensors) return fail(Error::make(Problem::too_many_tensors, {num(dir_count_), num(ScanLimits::kMaxTensors)}));
  if (dir_count_ == 0) return fail(Error::make(Problem::no_tensors));
  if (dir_count_ * 46 > dir_size_) return fail(Error::make(Problem::zip_bad_directory, {"its directory is shorter than its entries"}));
  phase_ = Phase::zip_dir;
  want_ = ByteRange{dir_offset_, dir_size_};
}

void Scanner::on_zip_dir(std::string_view b) {
  size_t p = 0;
  for (uint64_t k = 0; k < dir_count_; ++k) {
    auto bad = [&](const std::string& what) { fail(Error::make(Problem::zip_bad_directory, {what})); };
    if (b.size() - p < 46 || le32(b.data() + p) != 0x02014b50u) return bad("entry " + num(k) + " is damaged");
    const char* e = b.data() + p;
    const uint16_t flags = le16(e + 8), method = le16(e + 10);
    uint64_t comp = le32(e + 20), size = le32(e + 24), local = le32(e + 42);
    const size_t nlen = le16(e + 28), xlen = le16(e + 30), clen = le16(e + 32);
    if (b.size() - p - 46 < nlen + xlen + clen) return bad("entry " + num(k) + " runs past the directory");
    std::string name(b.substr(p + 46, nlen));
    // zip64 extra field (id 1): the 0xFFFFFFFF values, in this order.
    std::string_view x = b.substr(p + 46 + nlen, xlen);
    while (x.size() >= 4) {
      const uint16_t id = le16(x.data()), len = le16(x.data() + 2);
      if (x.size() - 4 < len) break;
      if (id == 1) {
        std::string_view f = x.substr(4, len);
        for (uint64_t* v : {&size, &comp, &local}) {
          if (*v != 0xFFFFFFFFu) continue;
          if (f.size() < 8) return bad("entry " + num(k) + " has a short zip64 field");
          *v = le64(f.data());
          f.remove_prefix(8);
        }
      }
      x.remove_prefix(4 + len);
    }
    p += 46 + nlen + xlen + clen;
    if (!ends_with(name, ".npy")) continue;  // folders, other files: not arrays
    name.resize(name.size() - 4);
    if (flags & 1) return fail(Error::make(Problem::zip_encrypted, {shown(name + ".npy")}));
    if (method != 0 && method != 8) return fail(Error::make(Problem::zip_method_unsupported, {shown(name + ".npy"), num(method)}));
    if (method == 0 && comp != size) return bad(shown(name + ".npy") + " is stored with two different sizes");
    if (local > size_ || size_ - local < 30 + comp) {
      return fail(Error::make(Problem::truncated, {shown(name + ".npy"), num(local + 30 + comp), num(size_)}));
    }
    members_.push_back(Member{name, method, comp, size, local});
  }
  if (members_.empty()) return fail(Error::make(Problem::no_tensors));
  member_ = 0;
  next_member();
}

void Scanner::next_member() {
  if (member_ >= members_.size()) return finish();
  const Member& m = members_[member_];
  member_data_ = 0;
  phase_ = Phase::zip_member;
  want_ = ByteRange{m.local_offset, 30};
}

void Scanner::on_zip_member(std::string_view b) {
  const Member& m = members_[member_];
  if (le32(b.data()) != 0x04034b50u) {
    return fail(Error::make(Problem::zip_bad_directory, {"the local header of " + shown(m.name + ".npy") + " is damaged"}));
  }
  const uint64_t data = m.local_offset + 30 + le16(b.data() + 26) + le16(b.data() + 28);
  if (data > size_ || size_ - data < m.comp_size) {
    return fail(Error::make(Problem::truncated, {shown(m.name + ".npy"), num(data + m.comp_size), num(size_)}));
  }
  member_data_ = data;
  phase_ = Phase::npy_header;
  const uint64_t first = std::min<uint64_t>(m.size, 4096);
  want_ = m.method == 8 ? ByteRange{data, m.comp_size, true, 0, first} : ByteRange{data, first};
  if (first == 0) on_npy_header(std::string_view());
}

void Scanner::finish() {
  if (tensors_.empty()) return fail(Error::make(Problem::no_tensors));
  phase_ = Phase::done;
}

// --- Conversion

float half_to_float(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 31, man = h & 1023;
  float v;
  if (exp == 0) v = std::ldexp(static_cast<float>(man), -24);
  else if (exp == 31) v = man ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else v = std::ldexp(static_cast<float>(man + 1024), exp - 25);
  return sign ? -v : v;
}

float bfloat16_to_float(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

Error to_float32(const TensorInfo& t, std::string_view bytes, std::vector<float>* out) {
  const uint64_t item = elem_bytes(t);
  if (item == 0) return Error::make(Problem::dtype_unsupported, {shown(t.name), t.dtype});
  const uint64_t n = t.count();
  if (bytes.size() / item != n || bytes.size() % item != 0) {
    return Error::make(Problem::size_mismatch, {shown(t.name), shape_text(t.shape), t.dtype, num(n * item), num(bytes.size())});
  }
  out->resize(n);
  return to_float32(t, bytes, out->data());
}

Error to_float32(const TensorInfo& t, std::string_view bytes, float* out) {
  const uint64_t item = elem_bytes(t);
  if (item == 0) return Error::make(Problem::dtype_unsupported, {shown(t.name), t.dtype});
  const uint64_t n = t.count();
  if (bytes.size() / item != n || bytes.size() % item != 0) {
    return Error::make(Problem::size_mismatch, {shown(t.name), shape_text(t.shape), t.dtype, num(n * item), num(bytes.size())});
  }
  if (t.type == DType::f32 && !t.big_endian) {
    // The common case (and every state file): the bytes are the floats. One copy, then
    // one pass over the exponent bits (a float is not finite when they are all ones).
    if (n != 0) std::memcpy(out, bytes.data(), n * 4);
    uint32_t all_ones = 0;
    for (uint64_t i = 0; i < n; ++i) {
      uint32_t bits;
      std::memcpy(&bits, out + i, 4);
      all_ones |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
    }
    if (all_ones) {
      for (uint64_t i = 0; i < n; ++i) {
        if (!std::isfinite(out[i])) return Error::make(Problem::value_not_finite, {shown(t.name), num(i)});
      }
    }
    return Error{};
  }
  const char* p = bytes.data();
  char tmp[8];
  for (uint64_t i = 0; i < n; ++i, p += item) {
    const char* q = p;
    if (t.big_endian) {
      for (uint64_t k = 0; k < item; ++k) tmp[k] = p[item - 1 - k];
      q = tmp;
    }
    float v;
    switch (t.type) {
      case DType::f32: std::memcpy(&v, q, 4); break;
      case DType::f16: v = half_to_float(le16(q)); break;
      case DType::bf16: v = bfloat16_to_float(le16(q)); break;
      default: {
        double d;
        const uint64_t bits = le64(q);
        std::memcpy(&d, &bits, 8);
        v = static_cast<float>(d);
        break;
      }
    }
    if (!std::isfinite(v)) return Error::make(Problem::value_not_finite, {shown(t.name), num(i)});
    out[i] = v;
  }
  return Error{};
}

// --- Synchronous driver

bool read_range(const ByteRange& r, const ReadFn& read, const InflateFn& inflate, std::string* out) {
  if (!r.inflate) return read(r.offset, r.length, out);
  std::string comp;
  if (!inflate || !read(r.offset, r.length, &comp)) return false;
  std::string full;
  if (!inflate(comp, r.skip + r.out_length, &full) || full.size() < r.skip + r.out_length) return false;
  *out = full.substr(r.skip, r.out_length);
  return true;
}

void scan_all(Scanner& s, const ReadFn& read, const InflateFn& inflate) {
  ByteRange r;
  std::string bytes;
  while (s.next(&r)) {
    bytes.clear();
    if (!read_range(r, read, inflate, &bytes)) s.fail_read();
    else s.feed(bytes);
  }
}

}  // namespace attnviz::weights
