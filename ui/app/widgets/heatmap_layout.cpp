// heatmap_layout.cpp: see heatmap_layout.h. Pure functions: no ImGui, no allocation.
#include "app/widgets/heatmap_layout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>

namespace attnviz::ui {

ValueStats value_stats(const float* data, int rows, int cols, int stride) {
  ValueStats s;
  float mn = INFINITY, mx = -INFINITY;
  for (int i = 0; i < rows; ++i) {
    const float* row = data + (size_t)i * stride;
    for (int j = 0; j < cols; ++j) {
      float v = row[j];
      if (std::isnan(v)) s.nan = true;
      else if (std::isinf(v)) (v < 0 ? s.neg_inf : s.pos_inf) = true;
      else {
        mn = std::min(mn, v);
        mx = std::max(mx, v);
      }
    }
  }
  if (mn <= mx) {
    s.any_finite = true;
    s.lo = mn;
    s.hi = mx;
    s.maxabs = std::max(std::fabs(mn), std::fabs(mx));
    s.negative = mn < 0;
  }
  return s;
}

int format_cell(float v, int decimals, char* buf, size_t n) {
  if (std::isnan(v)) return std::snprintf(buf, n, "nan");
  if (std::isinf(v)) return std::snprintf(buf, n, v < 0 ? "-inf" : "inf");
  decimals = std::clamp(decimals, 0, 8);
  int len = std::fabs(v) >= 1e5f ? std::snprintf(buf, n, "%.*e", decimals, (double)v)
                                  : std::snprintf(buf, n, "%.*f", decimals, (double)v);
  if (len > 0 && buf[0] == '-' && std::strspn(buf + 1, "0.") == (size_t)(len - 1)) {
    std::memmove(buf, buf + 1, (size_t)len);  // "-0.0000" → "0.0000" (moves the NUL too)
    --len;
  }
  return len;
}

int value_chars(const ValueStats& s, int decimals) {
  int w = 0;
  if (s.any_finite) {
    char buf[48];
    w = format_cell(s.maxabs, decimals, buf, sizeof buf) + (s.negative ? 1 : 0);
  }
  if (s.neg_inf) w = std::max(w, 4);
  if (s.pos_inf || s.nan) w = std::max(w, 3);
  return w;
}

int min_decimals(const ValueStats& s) {
  if (s.maxabs >= 10.0f) return 0;
  if (s.maxabs >= 1.0f) return 1;
  return 2;
}

static float value_width(const HeatmapLayoutIn& in, int decimals) {
  return (float)value_chars(in.stats, decimals) * in.value_char_w + in.value_pad;
}

// The column-label band for columns `cw` wide: horizontal when the widest label
// fits, else rotated (as tall as the longest label, up to the cap).
static ColLabelMode col_mode_for(const HeatmapLayoutIn& in, float cw, float* header_h) {
  if (!in.show_labels) {
    *header_h = 0;
    return ColLabelMode::none;
  }
  if (in.col_label_w + 4.0f <= cw) {
    *header_h = in.line_h + 4.0f;
    return ColLabelMode::horizontal;
  }
  *header_h = std::min(in.col_label_w, in.label_cap) + 6.0f;
  return ColLabelMode::rotated;
}

HeatmapLayout heatmap_layout(const HeatmapLayoutIn& in) {
  HeatmapLayout L;
  if (in.rows <= 0 || in.cols <= 0) return L;
  const int dmax = std::max(in.decimals_max, min_decimals(in.stats));
  const float need_w = in.show_values ? value_width(in, dmax) : 0.0f;
  const float need_h = in.show_values ? in.value_h + 2.0f : 0.0f;
  L.row_label_max = std::min(in.row_label_w, in.label_cap);
  L.row_label_w = in.show_labels && in.show_row_labels ? L.row_label_max + 6.0f : 0.0f;
  // Cells may be narrower than a pixel: a 512-column map in a 300 px column is drawn
  // whole (the texture is sampled down; zoom reads the cells), not 512 px wide over
  // its neighbours.
  const float fit_w = std::max(in.min_fit, (in.avail_w - L.row_label_w) / (float)in.cols);

  float cw = std::min(in.max_cell, fit_w), ch = cw, header = 0;
  L.col_mode = col_mode_for(in, cw, &header);
  for (int pass = 0; pass < 2; ++pass) {  // the header depends on the width, the height on the header
    float fit_h = in.avail_h > 0 ? std::max(in.min_fit, (in.avail_h - header - in.bar_h) / (float)in.rows) : INFINITY;
    cw = std::min(in.max_cell, fit_w);
    ch = std::min(in.max_cell, fit_h);
    // Wider than tall only where that lets text print: a value (when a line of digits
    // fits the height), a column label across (up to 2.5 × the height); a matrix
    // taller than wide keeps columns wide enough for its values whatever its height.
    const bool tall = in.rows > in.cols;
    float want_w = ch;
    if (in.show_values && (ch >= in.value_h || tall)) want_w = std::max(want_w, need_w + in.value_gap);
    if (in.show_labels && ch >= in.line_h * 0.9f) want_w = std::max(want_w, std::min(in.col_label_w + 4.0f, 2.5f * ch));
    cw = std::min(cw, want_w);
    // scroll_x: cells shrink towards the width (down to no gap) and past it only
    // where the values would not print; then they keep that width and scroll.
    const float floor_w = in.scroll_x ? std::min(in.min_cell_w, value_width(in, dmax)) : 0.0f;
    if (in.min_cell_w > 0) cw = std::max({cw, std::min(in.min_cell_w, fit_w), floor_w});
    // Taller than wide only for a line of text, where the column holds a value.
    const bool value_fits_w = in.show_values && cw >= value_width(in, min_decimals(in.stats));
    if (ch > cw) ch = value_fits_w ? std::max(cw, std::min(ch, need_h)) : cw;
    if (tall && ch < in.min_cell_h) ch = in.min_cell_h;    // and scroll
    ColLabelMode mode = col_mode_for(in, cw, &header);
    if (mode == L.col_mode && pass > 0) break;
    L.col_mode = mode;
  }
  L.cell_w = cw;
  L.cell_h = ch;
  L.header_h = header;
  L.grid_w = cw * (float)in.cols;
  L.grid_h = ch * (float)in.rows;
  L.view_h = L.grid_h;
  L.view_w = L.grid_w;
  const float room_w = std::max(in.avail_w - L.row_label_w, 4.0f * cw);
  if (in.scroll_x && L.grid_w > room_w + 0.5f) {
    L.hscroll = true;
    L.view_w = std::floor(room_w / cw) * cw;  // whole cells, so the last one is not cut
  }
  if (in.avail_h > 0 && header + L.grid_h + in.bar_h > in.avail_h + 0.5f) {
    L.scroll = true;
    L.view_h = std::max(in.avail_h - header - in.bar_h, std::min(L.grid_h, 4.0f * ch));
  }
  L.total_w = L.row_label_w + L.view_w;
  L.total_h = header + L.view_h + in.bar_h;
  L.col_label_max = L.col_mode == ColLabelMode::horizontal ? cw - 2.0f : std::min(in.col_label_w, in.label_cap);
  return L;
}

HeatmapDetail heatmap_detail(const HeatmapLayoutIn& in, const HeatmapLayout& lay, float cw, float ch) {
  HeatmapDetail d;
  if (in.show_values && ch >= in.value_h) {
    const int dmin = min_decimals(in.stats), dmax = std::max(in.decimals_max, dmin);
    for (int k = dmax; k >= dmin; --k)
      if (value_width(in, k) <= cw) {
        d.decimals = k;
        break;
      }
  }
  // Rows: a label per row when a line fits (a tenth of overlap is invisible).
  d.row_step = ch >= in.line_h * 0.9f ? 1 : (int)std::ceil(in.line_h / std::max(ch, 1e-3f));
  switch (lay.col_mode) {
    case ColLabelMode::none: d.col_step = 0; break;
    case ColLabelMode::horizontal: d.col_step = 1; break;
    case ColLabelMode::rotated:
      d.col_step = cw >= in.line_h * 0.9f ? 1 : (int)std::ceil(in.line_h / std::max(cw, 1e-3f));
      break;
  }
  if (!in.show_labels || !in.show_row_labels) d.row_step = 0;
  return d;
}

bool label_drawn(int i, int step, int highlight) {
  if (i == highlight) return true;
  if (step <= 0 || i % step != 0) return false;
  return highlight < 0 || std::abs(i - highlight) >= step;
}

// Length of the UTF-8 character starting at s.
static int utf8_len(const char* s) {
  unsigned char c = (unsigned char)*s;
  int n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  for (int k = 1; k < n; ++k)
    if (s[k] == 0) return k;
  return n;
}

int ellipsize(const char* s, float max_w, Measure measure, void* ctx, char* out, size_t n) {
  if (n == 0) return 0;
  const size_t len = std::strlen(s);
  if (measure(s, s + len, ctx) <= max_w && len < n) {
    std::memcpy(out, s, len + 1);
    return (int)len;
  }
  static const char kDots[] = "\xE2\x80\xA6";  // …
  const float dots_w = measure(kDots, kDots + 3, ctx);
  size_t keep = 0;
  while (keep < len) {
    size_t next = keep + (size_t)utf8_len(s + keep);
    if (next + 3 >= n || measure(s, s + next, ctx) + dots_w > max_w) break;
    keep = next;
  }
  std::memcpy(out, s, keep);
  if (keep + 3 < n) {
    std::memcpy(out + keep, kDots, 3);
    keep += 3;
  }
  out[keep] = 0;
  return (int)keep;
}

}  // namespace attnviz::ui
