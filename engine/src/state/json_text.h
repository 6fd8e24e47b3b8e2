// Internal: helpers for messages about JSON values, and the depth check
// parse_state() runs on a DOM it did not parse itself. parse_json_text() is
// public (state.h).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "attnviz/status.h"
#include "attnviz/state_json.h"

namespace attnviz {
namespace detail {

// !ok when j is nested deeper than Limits::kMaxJsonDepth (iterative walk).
Status check_json_depth(const nlohmann::json& j);

// A short, valid-UTF-8 rendering of a value for a sentence: numbers, true/false
// and null as written; strings quoted and cut to 40 bytes ("… (N bytes)", a phrase);
// lists and objects by kind only, as phrases (never dumped: they may be huge or deep).
MsgArg preview(const nlohmann::json& v);

// A string quoted as JSON, cut to its first 40 bytes (valid UTF-8).
std::string quoted_head(const std::string& s);

// An object key for a field path, cut to 40 bytes ("…").
std::string path_key(const std::string& key);

}  // namespace detail
}  // namespace attnviz
