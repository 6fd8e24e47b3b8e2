// chips_layout.cpp: see chips_layout.h.
#include "app/panels/chips_layout.h"

#include <algorithm>
#include <cmath>

namespace attnviz::ui {

void chips_lines(const std::vector<float>& widths, float avail, float spacing, std::vector<int>* starts) {
  starts->clear();
  starts->push_back(0);
  float x = 0;
  const int n = static_cast<int>(widths.size());
  for (int i = 0; i < n; ++i) {
    if (i > 0 && x + widths[i] > avail) {  // does not fit after the line's chips: a new line
      starts->push_back(i);
      x = 0;
    }
    x += widths[i] + spacing;
  }
  if (n > 0) starts->push_back(n);
}

int chips_line_of(const std::vector<int>& starts, int i) {
  const int lines = static_cast<int>(starts.size()) - 1;
  if (lines <= 0) return 0;
  // The last line whose first chip is at or before i.
  const int k = static_cast<int>(std::upper_bound(starts.begin(), starts.end() - 1, i) - starts.begin()) - 1;
  return std::clamp(k, 0, lines - 1);
}

LineRange chips_visible(float scroll_y, float view_h, float line_h, int lines) {
  LineRange r;
  if (lines <= 0 || line_h <= 0) return r;
  r.first = std::clamp(static_cast<int>(std::floor(scroll_y / line_h)) - 1, 0, lines);
  r.last = std::clamp(static_cast<int>(std::ceil((scroll_y + view_h) / line_h)) + 1, r.first, lines);
  return r;
}

float chips_scroll_to(int line, float view_h, float line_h, int lines) {
  const float max_scroll = std::max(0.0f, static_cast<float>(lines) * line_h - view_h);
  const float centred = (static_cast<float>(line) + 0.5f) * line_h - view_h * 0.5f;
  return std::clamp(centred, 0.0f, max_scroll);
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool equal_nocase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (lower(a[k]) != lower(b[k])) return false;
  return true;
}

bool contains_nocase(std::string_view hay, std::string_view needle) {
  if (needle.size() > hay.size()) return false;
  for (size_t at = 0; at + needle.size() <= hay.size(); ++at)
    if (equal_nocase(hay.substr(at, needle.size()), needle)) return true;
  return false;
}

}  // namespace

GoToQuery parse_go_to(std::string_view typed) {
  GoToQuery q;
  std::string_view s = trim(typed);
  std::string_view digits = !s.empty() && s.front() == '#' ? s.substr(1) : s;
  const bool number = !digits.empty() && digits.size() <= 12 &&
                      std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (number) {
    q.index = true;
    q.n = 0;
    for (char c : digits) q.n = q.n * 10 + (c - '0');
  } else {
    q.text.assign(s.data(), s.size());
  }
  return q;
}

int chips_find(const std::vector<std::string>& tokens, const GoToQuery& q, int after) {
  const int n = static_cast<int>(tokens.size());
  if (q.index) return q.n >= 0 && q.n < n ? static_cast<int>(q.n) : -1;
  if (q.text.empty() || n == 0) return -1;
  const int start = std::clamp(after + 1, 0, n);
  for (int pass = 0; pass < 2; ++pass)  // an equal token first, else one that contains the text
    for (int k = 0; k < n; ++k) {
      const int i = (start + k) % n;
      if (pass == 0 ? equal_nocase(tokens[i], q.text) : contains_nocase(tokens[i], q.text)) return i;
    }
  return -1;
}

}  // namespace attnviz::ui
