// chips_layout.h: the token chips box's pure logic, tested without a GPU
// (tests/ui/test_chips_layout.cpp). The box holds thousands of chips (up to
// Limits::kMaxTokens), so it is virtualised: the chips are laid out in lines once,
// when the tokens, their widths or the box's width change (chips_lines, O(S)), and a
// frame draws only the lines in view (chips_visible, O(1)) with a spacer above and
// below them. Going to a token (the Go to field) finds it (chips_find) and scrolls
// its line to the middle of the box (chips_scroll_to).
//
//   chip widths 40 30 50 20   avail 100, spacing 8     lines: [0 1] [2 3] → starts {0, 2, 4}
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::ui {

// Lines of chips no wider than `avail`: chip i goes on the current line when it fits
// after the ones before it (each followed by `spacing`), else starts a new line; a
// line always takes at least one chip, however wide. `starts` gets each line's first
// chip and then n (so line k holds chips starts[k] … starts[k+1] − 1); no chips: {0}.
void chips_lines(const std::vector<float>& widths, float avail, float spacing, std::vector<int>* starts);

// The line holding chip i (a binary search of `starts`; i is clamped to the chips).
int chips_line_of(const std::vector<int>& starts, int i);

// The lines a box of height `view_h`, scrolled by `scroll_y`, shows when each line is
// `line_h` tall: [first, last), clamped to the `lines` there are, with one line more
// each side so a line half in view is drawn.
struct LineRange {
  int first = 0, last = 0;
};
LineRange chips_visible(float scroll_y, float view_h, float line_h, int lines);

// The scroll that puts `line` in the middle of the box (as near as the ends allow).
float chips_scroll_to(int line, float view_h, float line_h, int lines);

// What the Go to field asks for: a token index ("42", "#42") or a text to find.
struct GoToQuery {
  bool index = false;  // a number was typed
  long long n = -1;    // ... that number
  std::string text;    // else the text (trimmed), case as typed
};
GoToQuery parse_go_to(std::string_view typed);

// The token a Go to query lands on, or -1: an index in range is itself; a text is
// the first token after `after` (wrapping round) equal to it ignoring ASCII case, or
// failing that the first that contains it, so Enter again goes to the next match.
int chips_find(const std::vector<std::string>& tokens, const GoToQuery& q, int after);

}  // namespace attnviz::ui
