// value_text.h: the text of an Edit values cell, shown and typed. Pure functions
// (tests/ui/test_values.cpp).
#pragma once
#include <cstddef>
#include <string>

namespace attnviz::ui {

// What a cell shows: the maps' rule (heatmap_layout.h format_cell, 4 decimals:
// "0.1754", "-14.6900", "1.0000e+10" from 1e5 up, never "-0.0000"), except that a
// value that is not zero but too small for 4 decimals shows its exponent
// ("-3.0000e-05") rather than a zero it is not. Returns the length.
int format_value_cell(float v, char* buf, size_t n);

// What a cell's field holds when it opens: the shortest text that reads back as
// exactly v ("0.1", "1e+10", "-0.17777722"), so Enter on it changes nothing.
std::string exact_value_text(float v);

// A typed number, read as a double and rounded to float32 (as the state keeps it).
enum class TypedValue { ok, empty, not_a_number, not_finite, beyond_float32 };
TypedValue parse_typed_value(const char* text, float* out);

}  // namespace attnviz::ui
