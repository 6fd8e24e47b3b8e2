// inspector_text.h: how the Inspector writes text (panel_inspector.cpp), exposed so
// tests can check it: numbers with no "-0.0000", lines wrapped only at spaces (a
// number never splits across lines), and a log of what the last frame drew.
#pragma once
#include <cstddef>

namespace attnviz::ui {

// `v` with `digits` decimals, as format_value (heatmap.h) writes it, except that a
// zero of either sign is written 0.0000: the sign of a zero means nothing to a
// learner. Writes into buf (n ≥ 32) and returns it.
const char* inspector_number(float v, int digits, char* buf, size_t n);

// Where the line that starts at `begin` ends when [begin, end) is wrapped to `width`
// pixels of the current ImGui font: after the last whole word that fits, so lines
// break only at spaces. A word wider than a whole line is cut at the last character
// that fits (only a long token can be: numbers are short), and a line holds at
// least one character. Never past `end`.
const char* inspector_wrap(const char* begin, const char* end, float width);

// What the Inspector drew in the last frame, for tests: every text line and table
// row in order, one per '\n' (table cells separated by " | "), and how wide the
// widest of them was against the width it had.
struct InspectorLog {
  char text[8192] = {};
  int len = 0;
  int lines = 0;
  float widest = 0;  // pixels, the widest line or table as drawn
  float avail = 0;   // pixels the Inspector had for them
  int tables_scrolling = 0;  // tables wider than the panel, drawn with a sideways scrollbar
  bool truncated = false;  // text did not fit in the log (never in practice)
};
const InspectorLog& inspector_log();

}  // namespace attnviz::ui
