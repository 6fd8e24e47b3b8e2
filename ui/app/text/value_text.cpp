// value_text.cpp: see value_text.h.
#include "app/text/value_text.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "app/widgets/heatmap_layout.h"

namespace attnviz::ui {

int format_value_cell(float v, char* buf, size_t n) {
  int len = format_cell(v, 4, buf, n);
  if (len > 0 && std::isfinite(v) && v != 0.0f && std::strspn(buf, "0.") == (size_t)len)
    len = std::snprintf(buf, n, "%.4e", (double)v);  // "0.0000" for 3e-5: show what it is
  return len;
}

std::string exact_value_text(float v) {
  char buf[48];
  for (int digits = 1; digits <= 9; ++digits) {  // 9 significant digits always read back as v
    std::snprintf(buf, sizeof buf, "%.*g", digits, (double)v);
    if (std::strtof(buf, nullptr) == v || std::isnan(v)) break;
  }
  return buf;
}

TypedValue parse_typed_value(const char* text, float* out) {
  while (*text == ' ' || *text == '\t') ++text;
  if (!*text) return TypedValue::empty;
  errno = 0;
  char* end = nullptr;
  const double d = std::strtod(text, &end);
  if (end == text) return TypedValue::not_a_number;
  while (*end == ' ' || *end == '\t') ++end;
  if (*end) return TypedValue::not_a_number;  // "2.5x", "1,5"
  if (!std::isfinite(d)) return TypedValue::not_finite;  // nan, inf, 1e999
  const float f = static_cast<float>(d);
  if (!std::isfinite(f)) return TypedValue::beyond_float32;  // 1e39: a double, not a float32
  *out = f;
  return TypedValue::ok;
}

}  // namespace attnviz::ui
