// Internal to the engine's file readers (weights_file.cpp, state_file.cpp): how a
// file's bytes and name appear in a sentence.
#pragma once

#include <string>
#include <string_view>

namespace attnviz::detail {

// The first 8 bytes as hex pairs, "50 4b 03 04 ...": what a file that is none of the
// known formats starts with.
std::string hex_prefix(std::string_view bytes);
// A file's name for a sentence: at most 120 bytes, cut at a UTF-8 boundary ("..." added).
std::string shown(std::string_view name);

}  // namespace attnviz::detail
