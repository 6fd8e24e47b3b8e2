// JSON text → nlohmann::json for session states, with the checks a learner's
// (or an attacker's) text needs before anything recursive touches it:
//   * nesting deeper than Limits::kMaxJsonDepth is refused while parsing, so a
//     100 000-level "[[[[…" never reaches nlohmann's recursive dump/copy/==
//     (the wasm build has a 5 MiB stack);
//   * a field given twice in one object is an error (nlohmann keeps the last);
//   * NaN/Infinity, numbers beyond double's range and ill-formed UTF-8 get
//     their own sentence and the field they were in.
// nlohmann's parser itself is iterative; this wraps its DOM builder in a SAX
// handler that keeps a path (e.g. "weights.W_q[2][0]") for the messages.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "attnviz/state.h"
#include "attnviz/json_text.h"
#include "attnviz/state_json.h"
#include "state/json_text.h"

namespace attnviz {

namespace {

using nlohmann::json;

// Cuts s to at most max_bytes without splitting a UTF-8 sequence.
std::string cut_utf8(const std::string& s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t n = max_bytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

// The line and column (1-based) of a 1-based parser position, as two values of a sentence.
std::vector<std::string> line_column(std::string_view text, size_t position) {
  size_t line = 1, col = 1;
  const size_t upto = position == 0 ? 0 : std::min(position - 1, text.size());
  for (size_t i = 0; i < upto; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {std::to_string(line), std::to_string(col)};
}

bool starts_with_ci(std::string_view text, size_t at, std::string_view word) {
  if (at > text.size() || text.size() - at < word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    const char c = text[at + i];
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if (lower != word[i]) return false;
  }
  return true;
}

// The JSON lexer stopped at `position` (1-based, one past the offending
// character): is a NaN/Infinity literal (possibly signed) there?
bool is_non_finite_literal(std::string_view text, size_t position) {
  if (position == 0 || text.empty()) return false;
  size_t at = std::min(position - 1, text.size() - 1);
  while (at > 0 && (text[at - 1] == '-' || text[at - 1] == '+' ||
                    std::string_view("nNiI").find(text[at - 1]) != std::string_view::npos)) {
    --at;  // back to the start of the literal
  }
  if (at < text.size() && (text[at] == '-' || text[at] == '+')) ++at;
  return starts_with_ci(text, at, "nan") || starts_with_ci(text, at, "inf");
}

class CheckedDomBuilder {
 public:
  using string_t = json::string_t;
  using binary_t = json::binary_t;

  CheckedDomBuilder(std::string_view text, json* out) : text_(text), dom_(*out, false) {}

  bool null() { return value() && dom_.null(); }
  bool boolean(bool v) { return value() && dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return value() && dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return value() && dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const string_t& s) {
    return value() && dom_.number_float(v, s);
  }
  bool string(string_t& v) { return value() && dom_.string(v); }
  bool binary(binary_t& v) { return value() && dom_.binary(v); }

  bool start_object(std::size_t n) { return open(true) && dom_.start_object(n); }
  bool start_array(std::size_t n) { return open(false) && dom_.start_array(n); }
  bool end_object() {
    frames_.pop_back();
    return dom_.end_object();
  }
  bool end_array() {
    frames_.pop_back();
    return dom_.end_array();
  }

  bool key(string_t& k) {
    Frame& f = frames_.back();
    f.key = k;
    if (!f.keys.insert(k).second) {
      if (f.path.empty()) return fail(Msg::field_twice_in_state, next_path(), {quoted_preview(k)});
      return fail(Msg::field_twice, next_path(), {quoted_preview(k), f.path});
    }
    return dom_.key(k);
  }

  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& ex) {
    const std::vector<std::string> at = line_column(text_, position);  // line, column
    const std::string field = next_path();
    const std::string what = ex.what();
    if (ex.id == 406) {  // out_of_range: number overflow
      const std::string number = cut_utf8(last_token, 40) + (last_token.size() > 40 ? "…" : "");
      if (field.empty()) return fail(Msg::a_number_too_large, field, {number, at[0], at[1]});
      return fail(Msg::number_too_large, field, {field, number, at[0], at[1]});
    }
    if (is_non_finite_literal(text_, position)) {
      if (field.empty()) return fail(Msg::a_nan_literal, field, {at[0], at[1]});
      if (field == "mask_fill") return fail(Msg::nan_literal_mask_fill, field, {at[0], at[1]});
      return fail(Msg::nan_literal, field, {field, at[0], at[1]});
    }
    if (what.find("ill-formed UTF-8") != std::string::npos) {
      if (field.empty()) return fail(Msg::text_not_utf8_at, field, {at[0], at[1]});
      return fail(Msg::field_not_utf8_at, field, {field, at[0], at[1]});
    }
    // Plain syntax errors name no field: the text is not a state at all.
    return fail(Msg::not_json_at, "", {at[0], at[1]});
  }

  const Status& status() const { return status_; }

 private:
  struct Frame {
    bool object;
    std::string path;           // this container's JSON path ("" at the top)
    std::string key;            // the last key read (objects)
    std::set<std::string> keys; // every key read (objects)
    size_t index = 0;           // the next element's index (arrays)
  };

  // The path of the value about to be read, at most kMaxPathBytes (+ "…"): 32
  // levels of 40-byte keys would otherwise make a 1 KB field name. The head is
  // kept, since callers match a field by its prefix ("embedding", "weights").
  static constexpr size_t kMaxPathBytes = 120;
  std::string next_path() const {
    if (frames_.empty()) return "";
    const Frame& f = frames_.back();
    std::string p;
    if (f.object) {
      if (f.key.empty()) return f.path;  // between fields
      const std::string k = path_key(f.key);
      p = f.path.empty() ? k : f.path + "." + k;
    } else {
      p = f.path + "[" + std::to_string(f.index) + "]";
    }
    return p.size() > kMaxPathBytes ? cut_utf8(p, kMaxPathBytes) + "…" : p;
  }

  static std::string path_key(const std::string& k) {
    return k.size() > 40 ? cut_utf8(k, 40) + "…" : k;
  }

  static std::string quoted_preview(const std::string& s) {
    return json(path_key(s)).dump(-1, ' ', false, json::error_handler_t::replace);
  }

  // A value starts: the next one in a list gets the next index; in an object
  // the next needs a key first.
  bool value() {
    if (frames_.empty()) return true;
    Frame& f = frames_.back();
    if (f.object) {
      f.key.clear();
    } else {
      ++f.index;
    }
    return true;
  }

  bool open(bool object) {
    if (frames_.size() >= static_cast<size_t>(Limits::kMaxJsonDepth)) {
      // Blame the top-level field it is in (its path is the first child's).
      const std::string top = frames_.size() > 1 && frames_[0].object ? frames_[1].path : "";
      const std::string limit = std::to_string(Limits::kMaxJsonDepth);
      if (top.empty()) return fail(Msg::nested_too_deep, top, {limit});
      return fail(Msg::nested_too_deep_in, top, {limit, top});
    }
    const std::string path = next_path();
    value();
    frames_.push_back(Frame{object, path, {}, {}, 0});
    return true;
  }

  bool fail(Msg m, std::string field, const std::vector<MsgArg>& args) {
    if (status_.ok) status_ = Status::refusal(m, std::move(field), args);
    return false;
  }

  std::string_view text_;
  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::vector<Frame> frames_;
  Status status_;
};

}  // namespace

Status parse_json_text(std::string_view text, nlohmann::json* out) {
  try {
    json j;
    CheckedDomBuilder builder(text, &j);
    const bool ok = json::sax_parse(text.begin(), text.end(), &builder);
    if (!ok || !builder.status().ok) {
      if (!builder.status().ok) return builder.status();
      return Status::refusal(Msg::not_json, "");
    }
    *out = std::move(j);
    return Status::success();
  } catch (const std::bad_alloc&) {
    return Status::refusal(Msg::no_memory_to_read, "");
  } catch (const std::exception& e) {
    return Status::refusal(Msg::not_json_because, "", {e.what()});
  }
}

namespace detail {

Status check_json_depth(const nlohmann::json& j) {
  // Iterative: the value may be arbitrarily deep (built in code, or parsed by
  // a caller without parse_json_text).
  struct Item {
    const json* v;
    int depth;
  };
  std::vector<Item> todo{{&j, 1}};
  while (!todo.empty()) {
    const Item it = todo.back();
    todo.pop_back();
    if (!it.v->is_structured()) continue;
    if (it.depth > Limits::kMaxJsonDepth) {
      return Status::refusal(Msg::nested_too_deep, "", {std::to_string(Limits::kMaxJsonDepth)});
    }
    for (const json& child : *it.v) {
      if (child.is_structured()) todo.push_back({&child, it.depth + 1});
    }
  }
  return Status::success();
}

std::string quoted_head(const std::string& s) {
  return json(cut_utf8(s, 40)).dump(-1, ' ', false, json::error_handler_t::replace);
}

MsgArg preview(const nlohmann::json& v) {
  switch (v.type()) {
    case json::value_t::string: {
      const std::string& s = v.get_ref<const std::string&>();
      if (s.size() > 40) return MsgArg(Msg::long_string, {quoted_head(s), std::to_string(s.size())});
      return quoted_head(s);
    }
    case json::value_t::array: return Msg::type_list;
    case json::value_t::object: return Msg::type_object;
    case json::value_t::binary: return Msg::binary_data;
    case json::value_t::discarded: return Msg::nothing;
    default: return v.dump();  // null, booleans and numbers are short
  }
}

std::string path_key(const std::string& key) {
  return key.size() > 40 ? cut_utf8(key, 40) + "…" : key;
}

}  // namespace detail

}  // namespace attnviz
