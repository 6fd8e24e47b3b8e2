// attnviz/json_text.h: JSON text read strictly, for every edge that takes a state
// as text. Code: engine/src/state/json_text.cpp.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "attnviz/status.h"

namespace attnviz {

// JSON text → JSON value, for anything that reads a state as text (the CLI,
// URL hashes, files, the clipboard). Stricter than nlohmann::json::parse and
// never throws: nesting deeper than Limits::kMaxJsonDepth, a field given twice
// in one object, NaN/Infinity, numbers beyond double's range and ill-formed
// UTF-8 each get a sentence naming the field they were in; other syntax errors
// give "this is not valid JSON (problem at line L, column C)" with field "".
// On error *out is untouched.
Status parse_json_text(std::string_view text, nlohmann::json* out);

}  // namespace attnviz
