// attnviz/state_json.h: the session state as JSON (docs/engine.md "Session
// state"): the edges where a state is read or written as text (files, share
// links, the CLI, the test API). attnviz/state.h has the State itself.
#pragma once

#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "attnviz/json_text.h"  // parse_json_text, which parse_state_text reads with
#include "attnviz/state.h"
#include "attnviz/status.h"

namespace attnviz {

// JSON → State. On error *out is untouched and the status names the field.
// Never throws; any JSON value (however deep, large or oddly typed) gives
// either a valid State or a sentence.
Status parse_state(const nlohmann::json& j, State* out);
// The same from JSON text, through parse_json_text().
Status parse_state_text(std::string_view text, State* out);

// State → JSON, canonical: every field written (the fields of issue 23 —
// rope, num_kv_heads, alibi, window — and of issue 36 — sinks, kv_cache — only
// when they differ from their defaults, so states without them read as before), explicit values as the
// shortest decimals that round-trip their float32 values, only the explicit
// matrices the flags use. parse_state(state_to_json(s)) gives s back.
nlohmann::json state_to_json(const State& s);

// How many times this process has turned a State into JSON or JSON into one
// (state_to_json, parse_state). The app's tests check that no edit, undo or
// steady frame does either: JSON is for files, links and callers.
uint64_t state_json_conversions();

}  // namespace attnviz
