// heatmap.cpp: see heatmap.h.
#include "app/heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/app.h"
#include "app/export.h"
#include "app/fonts.h"
#include "app/item_registry.h"
#include "imgui_internal.h"

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
  const ImVec2 panel0 = ImGui::GetCursorScreenPos();  // the panel, title included, for PNG export
  ImGui::TextUnformatted(spec.title);
  const float title_x1 = ImGui::GetItemRectMax().x;
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
  // The cells area fits the panel; a larger matrix is zoomed (mouse wheel) and
  // panned (drag with the right or middle button); a double-click resets the view.
  char buf[32];
  if (cache.label_w_version != version) {  // token widths change only with the matrix
    float w = 0;
    for (int i = 0; i < m.rows; ++i)
      w = std::max(w, ImGui::CalcTextSize(label_at(spec.row_labels, i, buf, sizeof buf)).x);
    cache.label_w = w;
    cache.label_w_version = version;
  }
  float label_w = spec.show_axis_labels ? std::min(cache.label_w, 90.0f) + 6.0f : 0.0f;
  const float bar_w = spec.show_colour_bar ? 12.0f : 0.0f, bar_gap = spec.show_colour_bar ? 8.0f : 0.0f;
  float bar_text_w = spec.show_colour_bar ? std::max(ImGui::CalcTextSize(format_value(lo, 3).c_str()).x,
                                                     ImGui::CalcTextSize(format_value(hi, 3).c_str()).x) + 6.0f
                                          : 0.0f;
  float avail = spec.max_width > 0 ? spec.max_width : ImGui::GetContentRegionAvail().x;
  float cells_w = std::max(40.0f, avail - label_w - bar_gap - bar_w - bar_text_w);
  // Square cells that fit the width: at zoom 1 the whole matrix is visible.
  // Tall matrices (context at large S) are capped at a square's height.
  float base = std::min({spec.max_cell, cells_w / (float)m.cols, cells_w / (float)m.rows});
  ImVec2 grid_size(base * (float)m.cols, base * (float)m.rows);
  float header_h = spec.show_axis_labels ? ImGui::GetTextLineHeight() + 4.0f : 0.0f;
  ImVec2 origin = ImGui::GetCursorScreenPos();
  ImVec2 grid0(origin.x + label_w, origin.y + header_h);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  ImU32 dim_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);

  // The visible window onto the matrix, in matrix fractions [u0, u0 + 1/zoom].
  const float zoom = cache.zoom;
  const float span = 1.0f / zoom;
  cache.u0 = std::clamp(cache.u0, 0.0f, 1.0f - span);
  cache.v0 = std::clamp(cache.v0, 0.0f, 1.0f - span);
  const float cell_w = grid_size.x * zoom / (float)m.cols, cell_h = grid_size.y * zoom / (float)m.rows;
  // Screen position of the top-left corner of cell (i, j).
  auto cell_x = [&](int j) { return grid0.x + ((float)j / (float)m.cols - cache.u0) * zoom * grid_size.x; };
  auto cell_y = [&](int i) { return grid0.y + ((float)i / (float)m.rows - cache.v0) * zoom * grid_size.y; };
  const int j0 = std::max(0, (int)(cache.u0 * (float)m.cols)), j1 = std::min(m.cols, (int)std::ceil((cache.u0 + span) * (float)m.cols));
  const int i0 = std::max(0, (int)(cache.v0 * (float)m.rows)), i1 = std::min(m.rows, (int)std::ceil((cache.v0 + span) * (float)m.rows));
  ImVec4 grid_clip(grid0.x, grid0.y, grid0.x + grid_size.x, grid0.y + grid_size.y);

  // Column labels (clipped to their cell; hovering shows the whole token).
  float th = ImGui::GetTextLineHeight();
  // Column labels are thinned to every col_step-th so they never overlap.
  float col_label_w = spec.col_labels ? std::min(cache.label_w, 90.0f) + 6.0f : th * 1.5f;
  int col_step = std::max(1, (int)std::ceil(col_label_w / cell_w));
  for (int j = j0; j < j1 && spec.show_axis_labels; ++j) {
    if (j % col_step != 0) continue;
    const char* s = label_at(spec.col_labels, j, buf, sizeof buf);
    float x0 = cell_x(j), w = std::max(cell_w, col_label_w);
    ImVec4 clip(std::max(x0, grid_clip.x), origin.y, std::min(x0 + w, grid_clip.z), origin.y + header_h);
    float tw = ImGui::CalcTextSize(s).x;
    float x = x0 + std::max(0.0f, (cell_w - tw) * 0.5f);
    dl->AddText(nullptr, 0.0f, ImVec2(x, origin.y), j == spec.highlight_col ? text_col : dim_col, s, nullptr, 0.0f, &clip);
  }
  // Row labels, right-aligned against the grid; thinned out when rows are short.
  int row_step = std::max(1, (int)std::ceil(th / cell_h));
  for (int i = i0; i < i1 && spec.show_axis_labels; ++i) {
    if (cell_h < th * 0.8f && i % row_step != 0 && i != spec.highlight_row) continue;
    const char* s = label_at(spec.row_labels, i, buf, sizeof buf);
    float tw = ImGui::CalcTextSize(s).x;
    ImVec2 p(grid0.x - 4.0f - std::min(tw, label_w - 6.0f), cell_y(i) + (cell_h - th) * 0.5f);
    if (p.y < grid0.y - th * 0.5f || p.y > grid0.y + grid_size.y - th * 0.5f) continue;
    ImVec4 clip(origin.x, p.y, grid0.x - 2.0f, p.y + th);
    dl->AddText(nullptr, 0.0f, p, i == spec.highlight_row ? text_col : dim_col, s, nullptr, 0.0f, &clip);
  }

  // The cells: one textured quad showing the visible part of the texture.
  ImGui::SetCursorScreenPos(grid0);
  ImGui::Image(cache.tex, grid_size, ImVec2(cache.u0, cache.v0), ImVec2(cache.u0 + span, cache.v0 + span));
  item_register(spec.label);
  if (ImGui::IsItemHovered()) {
    ImGuiIO& io = ImGui::GetIO();
    ImVec2 mp = io.MousePos;
    float fu = cache.u0 + (mp.x - grid0.x) / grid_size.x * span;  // matrix fraction under the mouse
    float fv = cache.v0 + (mp.y - grid0.y) / grid_size.y * span;
    hover.row = std::clamp((int)(fv * (float)m.rows), 0, m.rows - 1);
    hover.col = std::clamp((int)(fu * (float)m.cols), 0, m.cols - 1);
    hover.hovered = true;
    hover.clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
    // Zoom about the mouse; the wheel belongs to the map, not the window's scrolling.
    const float max_zoom = std::max(1.0f, (float)std::max(m.rows, m.cols) / 4.0f);
    if (max_zoom > 1.0f) {
      ImGui::SetItemKeyOwner(ImGuiKey_MouseWheelY);
      if (io.MouseWheel != 0.0f) {
        float nz = std::clamp(zoom * std::pow(1.25f, io.MouseWheel), 1.0f, max_zoom);
        float nspan = 1.0f / nz;
        cache.u0 = fu - (mp.x - grid0.x) / grid_size.x * nspan;
        cache.v0 = fv - (mp.y - grid0.y) / grid_size.y * nspan;
        cache.zoom = nz;
      }
      for (ImGuiMouseButton b : {ImGuiMouseButton_Right, ImGuiMouseButton_Middle})
        if (ImGui::IsMouseDragging(b, 2.0f)) {
          cache.u0 -= io.MouseDelta.x / grid_size.x * span;
          cache.v0 -= io.MouseDelta.y / grid_size.y * span;
        }
    }
    if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
      cache.zoom = 1.0f;
      cache.u0 = cache.v0 = 0.0f;
    }
  }
  export_context_menu(spec.label, m, MatrixLabels{spec.row_labels, spec.col_labels});  // right-click: export
  dl->PushClipRect(ImVec2(grid_clip.x, grid_clip.y), ImVec2(grid_clip.z, grid_clip.w), true);

  // Values inside cells when they fit.
  float probe_w = ImGui::CalcTextSize("-0.0000").x;
  int digits = cell_w >= probe_w + 4 ? 4 : (cell_w >= ImGui::CalcTextSize("-0.00").x + 4 ? 2 : -1);
  if (spec.show_values && digits > 0 && cell_h >= th) {
    for (int i = i0; i < i1; ++i)
      for (int j = j0; j < j1; ++j) {
        float v = m.data[(size_t)i * m.cols + j];
        std::string s = format_cell(v, digits);
        ImVec2 ts = ImGui::CalcTextSize(s.c_str());
        if (ts.x > cell_w - 2) continue;
        uint32_t bg = cell_colour(spec.cmap, v, lo, hi);
        float lum = 0.2126f * (bg & 0xFF) + 0.7152f * ((bg >> 8) & 0xFF) + 0.0722f * ((bg >> 16) & 0xFF);
        ImU32 fg = lum > 140 ? IM_COL32(20, 20, 24, 255) : IM_COL32(245, 245, 245, 255);
        dl->AddText(ImVec2(cell_x(j) + (cell_w - ts.x) * 0.5f, cell_y(i) + (cell_h - ts.y) * 0.5f), fg, s.c_str());
      }
  }

  // Linked cursor: outline the highlighted row and column.
  ImU32 hl = IM_COL32(255, 255, 255, 200);
  if (spec.highlight_row >= 0 && spec.highlight_row < m.rows)
    dl->AddRect(ImVec2(grid0.x, cell_y(spec.highlight_row)),
                ImVec2(grid0.x + grid_size.x, cell_y(spec.highlight_row) + cell_h), hl, 0, 0, 1.5f);
  if (spec.highlight_col >= 0 && spec.highlight_col < m.cols)
    dl->AddRect(ImVec2(cell_x(spec.highlight_col), grid0.y),
                ImVec2(cell_x(spec.highlight_col) + cell_w, grid0.y + grid_size.y), hl, 0, 0, 1.5f);
  dl->PopClipRect();
  if (zoom > 1.0f) {
    char z[48];
    std::snprintf(z, sizeof z, "×%.1f  (double-click: fit)", zoom);
    dl->AddText(ImVec2(grid0.x, grid0.y + grid_size.y + 1), dim_col, z);
  }

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

  float below = zoom > 1.0f ? th + 2.0f : 0.0f;
  ImGui::SetCursorScreenPos(ImVec2(origin.x, grid0.y + std::max(grid_size.y + below, bar_h) + 4.0f));
  ImGui::Dummy(ImVec2(label_w + grid_size.x + bar_gap + bar_w + bar_text_w, 0.0f));
  export_panel_drawn(spec.label, panel0,
                     ImVec2(std::max(title_x1, origin.x + label_w + grid_size.x + bar_gap + bar_w + bar_text_w),
                            grid0.y + std::max(grid_size.y + below, bar_h) + 2.0f));
  ImGui::PopID();
  return hover;
}

}  // namespace attnviz::ui
