// heatmap.cpp: see heatmap.h.
#include "app/heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/app.h"
#include "app/fonts.h"
#include "app/item_registry.h"

namespace attnviz::ui {

std::string format_value(float v, int digits) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[32];
  float a = std::fabs(v);
  if (a != 0.0f && (a >= 1e5f || a < 1e-3f))
    std::snprintf(buf, sizeof buf, "%.*e", std::max(digits - 3, 1), (double)v);
  else
    std::snprintf(buf, sizeof buf, "%.*f", digits, (double)v);
  return buf;
}

// Inside a cell: fixed-point with `digits` decimals (tiny values read as 0.00),
// exponent form only for large magnitudes. The inspector shows full precision.
static std::string format_cell(float v, int digits) {
  if (!std::isfinite(v) || std::fabs(v) >= 1e5f) return format_value(v, digits);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, (double)v);
  return buf;
}

// Range of the finite values, or the pinned/centred range the spec asks for.
static void value_range(const HeatmapSpec& spec, const MatrixView& m, float* lo, float* hi) {
  if (spec.fixed_range) {
    *lo = spec.fixed_lo;
    *hi = spec.fixed_hi;
    return;
  }
  float mn = INFINITY, mx = -INFINITY;
  size_t n = (size_t)m.rows * m.cols;
  for (size_t k = 0; k < n; ++k) {
    float v = m.data[k];
    if (std::isfinite(v)) {
      mn = std::min(mn, v);
      mx = std::max(mx, v);
    }
  }
  if (!(mn <= mx)) mn = mx = 0.0f;  // nothing finite
  if (spec.diverging) {
    float a = std::max(std::fabs(mn), std::fabs(mx));
    if (a == 0.0f) a = 1.0f;
    mn = -a;
    mx = a;
  } else if (mn == mx) {
    mx = mn + 1.0f;
  }
  *lo = mn;
  *hi = mx;
}

static uint32_t cell_colour(Colormap cmap, float v, float lo, float hi) {
  if (std::isnan(v)) return kColourNaN;
  if (std::isinf(v)) return v < 0 ? kColourMasked : kColourPosInf;
  return colormap_at(cmap, (v - lo) / (hi - lo));
}

// Rebuilds the texels: `block`×`block` texels per cell; −inf cells get a diagonal
// hatch when the block is large enough to show one.
static void rebuild(HeatmapCache& c, const MatrixView& m, Colormap cmap, float lo, float hi,
                    TextureHost& textures) {
  int block = std::clamp(256 / std::max(m.rows, m.cols), 1, 8);
  int w = m.cols * block, h = m.rows * block;
  if (!c.tex || c.tex_w != w || c.tex_h != h) {
    if (c.tex) textures.destroy(c.tex);
    c.tex = textures.create(w, h);
    c.tex_w = w;
    c.tex_h = h;
  }
  c.block = block;
  c.rgba.resize((size_t)w * h);
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j) {
      float v = m.data[(size_t)i * m.cols + j];
      uint32_t col = cell_colour(cmap, v, lo, hi);
      bool hatch = block >= 4 && std::isinf(v) && v < 0;
      for (int y = 0; y < block; ++y) {
        uint32_t* row = &c.rgba[(size_t)(i * block + y) * w + j * block];
        for (int x = 0; x < block; ++x)
          row[x] = hatch && ((x + y) % 4 == 0) ? kColourMaskedHatch : col;
      }
    }
  textures.upload(c.tex, w, h, reinterpret_cast<const uint8_t*>(c.rgba.data()));
}

static const char* label_at(const std::vector<std::string>* labels, int i, char* buf, size_t n) {
  if (labels && i < (int)labels->size()) return (*labels)[i].c_str();
  std::snprintf(buf, n, "%d", i);
  return buf;
}

HeatmapHover heatmap(const HeatmapSpec& spec, const MatrixView& m, uint64_t version,
                     HeatmapCache& cache, TextureHost& textures) {
  HeatmapHover hover;
  ImGui::PushID(spec.label);
  ImGui::TextUnformatted(spec.title.c_str());
  if (!m.data || m.rows == 0 || m.cols == 0) {
    ImGui::TextDisabled("(not computed)");
    ImGui::PopID();
    return hover;
  }

  float lo, hi;
  value_range(spec, m, &lo, &hi);
  if (cache.version != version || cache.cmap != spec.cmap || cache.lo != lo || cache.hi != hi ||
      !cache.tex) {
    rebuild(cache, m, spec.cmap, lo, hi, textures);
    cache.version = version;
    cache.cmap = spec.cmap;
    cache.lo = lo;
    cache.hi = hi;
  }

  // Layout: [row labels | cells | gap | colour bar + range], column labels on top.
  char buf[32];
  float label_w = 0;
  for (int i = 0; i < m.rows; ++i)
    label_w = std::max(label_w, ImGui::CalcTextSize(label_at(spec.row_labels, i, buf, sizeof buf)).x);
  label_w = spec.show_axis_labels ? std::min(label_w, 90.0f) + 6.0f : 0.0f;
  const float bar_w = spec.show_colour_bar ? 12.0f : 0.0f, bar_gap = spec.show_colour_bar ? 8.0f : 0.0f;
  float bar_text_w = spec.show_colour_bar ? std::max(ImGui::CalcTextSize(format_value(lo, 3).c_str()).x,
                                                     ImGui::CalcTextSize(format_value(hi, 3).c_str()).x) + 6.0f
                                          : 0.0f;
  float avail = spec.max_width > 0 ? spec.max_width : ImGui::GetContentRegionAvail().x;
  float cells_w = std::max(40.0f, avail - label_w - bar_gap - bar_w - bar_text_w);
  float cell = std::min(spec.max_cell, cells_w / (float)m.cols);
  cell = std::max(cell, 1.0f);
  float header_h = spec.show_axis_labels ? ImGui::GetTextLineHeight() + 4.0f : 0.0f;
  ImVec2 origin = ImGui::GetCursorScreenPos();
  ImVec2 grid0(origin.x + label_w, origin.y + header_h);
  ImVec2 grid_size(cell * (float)m.cols, cell * (float)m.rows);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  ImU32 dim_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);

  // Column labels (clipped to their cell; the tooltip shows the whole token).
  for (int j = 0; j < m.cols && spec.show_axis_labels; ++j) {
    const char* s = label_at(spec.col_labels, j, buf, sizeof buf);
    ImVec2 p(grid0.x + cell * j, origin.y);
    ImVec4 clip(p.x, p.y, p.x + cell, p.y + header_h);
    float tw = ImGui::CalcTextSize(s).x;
    float x = p.x + std::max(0.0f, (cell - tw) * 0.5f);
    dl->AddText(nullptr, 0.0f, ImVec2(x, p.y), j == spec.highlight_col ? text_col : dim_col, s, nullptr, 0.0f, &clip);
  }
  // Row labels, right-aligned against the grid.
  for (int i = 0; i < m.rows && spec.show_axis_labels; ++i) {
    const char* s = label_at(spec.row_labels, i, buf, sizeof buf);
    float th = ImGui::GetTextLineHeight();
    if (cell < th * 0.8f && i % std::max(1, (int)std::ceil(th / cell)) != 0) continue;
    float tw = ImGui::CalcTextSize(s).x;
    ImVec2 p(grid0.x - 4.0f - std::min(tw, label_w - 6.0f), grid0.y + cell * i + (cell - th) * 0.5f);
    ImVec4 clip(origin.x, p.y, grid0.x - 2.0f, p.y + th);
    dl->AddText(nullptr, 0.0f, p, i == spec.highlight_row ? text_col : dim_col, s, nullptr, 0.0f, &clip);
  }

  // The cells: one textured quad.
  ImGui::SetCursorScreenPos(grid0);
  ImGui::Image(cache.tex, grid_size);
  item_register(spec.label);
  bool hovered = ImGui::IsItemHovered();
  if (hovered) {
    ImVec2 mp = ImGui::GetIO().MousePos;
    hover.row = std::clamp((int)((mp.y - grid0.y) / cell), 0, m.rows - 1);
    hover.col = std::clamp((int)((mp.x - grid0.x) / cell), 0, m.cols - 1);
    hover.hovered = true;
    hover.clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
  }

  // Values inside cells when they fit.
  float th = ImGui::GetTextLineHeight();
  float probe_w = ImGui::CalcTextSize("-0.0000").x;
  int digits = cell >= probe_w + 4 ? 4 : (cell >= ImGui::CalcTextSize("-0.00").x + 4 ? 2 : -1);
  if (spec.show_values && digits > 0 && cell >= th) {
    for (int i = 0; i < m.rows; ++i)
      for (int j = 0; j < m.cols; ++j) {
        float v = m.data[(size_t)i * m.cols + j];
        std::string s = format_cell(v, digits);
        ImVec2 ts = ImGui::CalcTextSize(s.c_str());
        if (ts.x > cell - 2) continue;
        uint32_t bg = cell_colour(spec.cmap, v, lo, hi);
        float lum = 0.2126f * (bg & 0xFF) + 0.7152f * ((bg >> 8) & 0xFF) + 0.0722f * ((bg >> 16) & 0xFF);
        ImU32 fg = lum > 140 ? IM_COL32(20, 20, 24, 255) : IM_COL32(245, 245, 245, 255);
        dl->AddText(ImVec2(grid0.x + cell * j + (cell - ts.x) * 0.5f, grid0.y + cell * i + (cell - ts.y) * 0.5f),
                    fg, s.c_str());
      }
  }

  // Linked cursor: outline the highlighted row and column.
  ImU32 hl = IM_COL32(255, 255, 255, 200);
  if (spec.highlight_row >= 0 && spec.highlight_row < m.rows)
    dl->AddRect(ImVec2(grid0.x, grid0.y + cell * spec.highlight_row),
                ImVec2(grid0.x + grid_size.x, grid0.y + cell * (spec.highlight_row + 1)), hl, 0, 0, 1.5f);
  if (spec.highlight_col >= 0 && spec.highlight_col < m.cols)
    dl->AddRect(ImVec2(grid0.x + cell * spec.highlight_col, grid0.y),
                ImVec2(grid0.x + cell * (spec.highlight_col + 1), grid0.y + grid_size.y), hl, 0, 0, 1.5f);

  // Colour bar with its numeric range.
  ImVec2 b0(grid0.x + grid_size.x + bar_gap, grid0.y);
  float bar_h = spec.show_colour_bar ? std::max(grid_size.y, 3 * th) : grid_size.y;
  const int steps = 32;
  for (int k = 0; k < steps && spec.show_colour_bar; ++k) {
    float t1 = 1.0f - (float)k / steps, t2 = 1.0f - (float)(k + 1) / steps;
    ImU32 c = colormap_at(spec.cmap, 0.5f * (t1 + t2));
    dl->AddRectFilled(ImVec2(b0.x, b0.y + bar_h * k / steps), ImVec2(b0.x + bar_w, b0.y + bar_h * (k + 1) / steps), c);
  }
  if (spec.show_colour_bar) {
    dl->AddRect(b0, ImVec2(b0.x + bar_w, b0.y + bar_h), dim_col);
    dl->AddText(ImVec2(b0.x + bar_w + 4, b0.y), text_col, format_value(hi, 3).c_str());
    dl->AddText(ImVec2(b0.x + bar_w + 4, b0.y + bar_h - th), text_col, format_value(lo, 3).c_str());
  }

  ImGui::SetCursorScreenPos(ImVec2(origin.x, grid0.y + std::max(grid_size.y, bar_h) + 4.0f));
  ImGui::Dummy(ImVec2(label_w + grid_size.x + bar_gap + bar_w + bar_text_w, 0.0f));
  ImGui::PopID();
  return hover;
}

}  // namespace attnviz::ui
