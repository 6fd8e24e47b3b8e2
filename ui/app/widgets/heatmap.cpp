// heatmap.cpp: see heatmap.h.
// [SECTION] values and texture (on a new version)
// [SECTION] layout input (fonts and labels → HeatmapLayoutIn)
// [SECTION] input: hover, zoom, pan, scroll
// [SECTION] drawing: labels, values, marks, colour bar
// [SECTION] heatmap(): the three together
// [SECTION] heatmap_info()
#include "app/widgets/heatmap.h"
#include "app/widgets/heatmap_internal.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

#include "app/panels/export.h"
#include "app/widgets/fonts.h"
#include "app/text/i18n.h"
#include "app/widgets/item_registry.h"
#include "imgui_internal.h"

namespace attnviz::ui {

constexpr uint32_t kColourDroppedMark = 0xFF2E8CF0u;  // dropped: an orange ×
constexpr float kMinBarWidth = 120.0f;  // a colour bar is this wide where the map may be (bar_fit)

std::string format_value(float v, int digits) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[32];
  float a = std::fabs(v);
  if (a != 0.0f && (a >= 1e5f || a < 1e-3f))
    std::snprintf(buf, sizeof buf, "%.*e", std::max(digits - 3, 1), (double)v);
  else
    format_cell(v, digits, buf, sizeof buf);
  return buf;
}

float heatmap_bar_height(bool stacked, bool caption) {
  return 8.0f + ImGui::GetTextLineHeight() * ((stacked ? 2.0f : 1.0f) + (caption ? 1.0f : 0.0f)) + 6.0f;
}

// The colour bar's two numbers: its low end and its top ("≥ 1.000" when a pinned top
// is exceeded).
struct BarText {
  char lo[32], hi[40];
};
static BarText bar_text(const HeatmapCache& c, const HeatmapSpec& spec) {
  BarText t;
  format_cell(c.lo, 3, t.lo, sizeof t.lo);
  char top[32];
  format_cell(c.hi, 3, top, sizeof top);
  std::snprintf(t.hi, sizeof t.hi, "%s%s", spec.fixed_range && c.stats.hi > c.hi ? "\xE2\x89\xA5 " : "", top);
  return t;
}

// How the colour bar fits a map that may be `room` wide beside its row labels: as wide
// as the cells, at least kMinBarWidth where the map may be that wide, never wider than
// the map may be; when its two numbers do not fit side by side (a map of one or two
// columns), they stack, the top one line below the low end.
struct BarFit {
  float w = 0;
  float room = 0;  // the widest the map may be right of its row labels (an overview's caption)
  bool stacked = false;
  BarText text;  // formatted once a frame, drawn as is
};
static BarFit bar_fit(const HeatmapCache& c, const HeatmapSpec& spec, float room, float grid_w) {
  BarFit f;
  f.text = bar_text(c, spec);
  const float need = ImGui::CalcTextSize(f.text.lo).x + ImGui::CalcTextSize(f.text.hi).x + 10.0f;
  f.w = std::max(grid_w, std::min(std::max(kMinBarWidth, need), room));
  f.stacked = f.w < need;
  f.room = room;
  return f;
}

// =============================================================================
// [SECTION] values and texture (on a new version)
// =============================================================================

// The labels a map shows: `src` when it has one per row (column), else indices (empty).
bool labels_current(const std::vector<std::string>& have, const std::vector<std::string>* src, int n) {
  if (!src || (int)src->size() != n) return have.empty();
  return have == *src;  // compares in place: no allocation
}

static void copy_labels(std::vector<std::string>& dst, const std::vector<std::string>* src, int n) {
  if (src && (int)src->size() == n) dst = *src;  // reuses dst's strings' capacity
  else dst.clear();
}

void take_labels(HeatmapCache& c, const HeatmapSpec& spec, int rows, int cols) {
  copy_labels(c.row_labels, spec.row_labels, rows);
  copy_labels(c.col_labels, spec.col_labels, cols);
  ++c.labels_serial;
}

CacheMiss heatmap_cache_miss(const HeatmapCache& c, const HeatmapSpec& spec, const MatrixView& m, uint64_t version) {
  if (c.version != version || c.rows != m.rows || c.cols != m.cols || c.had_keep != (spec.keep != nullptr) ||
      c.absent.empty() != (spec.absent == nullptr))
    return CacheMiss::matrix;
  if (!labels_current(c.row_labels, spec.row_labels, m.rows) || !labels_current(c.col_labels, spec.col_labels, m.cols))
    return CacheMiss::labels;
  return CacheMiss::none;
}

// A new matrix: keep its values, which cells dropout dropped, its labels and range.
static void take_matrix(HeatmapCache& c, const HeatmapSpec& spec, const MatrixView& m, uint64_t version) {
  c.version = version;
  c.rows = m.rows;
  c.cols = m.cols;
  c.values.resize((size_t)m.rows * m.cols);
  for (int i = 0; i < m.rows; ++i)
    std::memcpy(&c.values[(size_t)i * m.cols], m.data + (size_t)i * m.row_stride(), sizeof(float) * m.cols);
  c.had_keep = spec.keep != nullptr;
  if (spec.keep) {
    c.dropped.resize(c.values.size());
    for (size_t k = 0; k < c.values.size(); ++k) c.dropped[k] = spec.keep[k] == 0;
  } else {
    c.dropped.clear();
  }
  if (spec.absent) c.absent.assign(spec.absent, spec.absent + c.values.size());
  else c.absent.clear();
  take_labels(c, spec, m.rows, m.cols);
  c.stats = value_stats(c.values.data(), m.rows, m.cols, m.cols);
  if (c.view_rows != m.rows || c.view_cols != m.cols) heatmap_reset_view(c);
  c.view_rows = m.rows;
  c.view_cols = m.cols;
}

// The colour scale: the pinned range, or the finite values' (centred on 0 when diverging).
void colour_range(const HeatmapSpec& spec, const ValueStats& s, float* lo, float* hi) {
  if (spec.fixed_range) {
    *lo = spec.fixed_lo;
    *hi = spec.fixed_hi;
    return;
  }
  float mn = s.lo, mx = s.hi;
  if (spec.diverging) {
    float a = s.maxabs == 0.0f ? 1.0f : s.maxabs;
    mn = -a;
    mx = a;
  } else if (mn == mx) {
    mx = mn + 1.0f;
  }
  *lo = mn;
  *hi = mx;
}

uint32_t cell_colour(Colormap cmap, float v, float lo, float hi) {
  if (std::isnan(v)) return kColourNaN;
  if (std::isinf(v)) return v < 0 ? kColourMasked : kColourPosInf;
  return colormap_at(cmap, (v - lo) / (hi - lo));
}

// Rebuilds the texels: `block`×`block` per cell; −inf cells get a diagonal hatch,
// dropped cells an × when the block is large enough to show one, and absent cells
// (evicted keys) are all but empty: the background with a hatch the other way.
static void rebuild_texture(HeatmapCache& c, TextureHost& textures) {
  int block = std::clamp(256 / std::max(c.rows, c.cols), 1, 8);
  int w = c.cols * block, h = c.rows * block;
  ensure_texture(c, textures, w, h);
  c.block = block;
  c.rgba.resize((size_t)w * h);
  for (int i = 0; i < c.rows; ++i)
    for (int j = 0; j < c.cols; ++j) {
      size_t k = (size_t)i * c.cols + j;
      float v = c.values[k];
      const bool absent = !c.absent.empty() && c.absent[k];
      uint32_t col = absent ? kColourAbsent : cell_colour(c.cmap, v, c.lo, c.hi);
      paint_cell(c.rgba.data(), w, j * block, i * block, block, col, v, !c.dropped.empty() && c.dropped[k], absent);
    }
  textures.upload(c.tex, w, h, reinterpret_cast<const uint8_t*>(c.rgba.data()));
}

void paint_cell(uint32_t* rgba, int w, int x0, int y0, int block, uint32_t colour, float v, bool dropped,
                bool absent) {
  const bool hatch = block >= 4 && std::isinf(v) && v < 0 && !absent;
  const bool cross = block >= 4 && dropped && !absent;
  for (int y = 0; y < block; ++y) {
    uint32_t* row = &rgba[(size_t)(y0 + y) * w + x0];
    for (int x = 0; x < block; ++x) {
      uint32_t t = colour;
      if (hatch && (x + y) % 4 == 0) t = kColourMaskedHatch;
      if (absent && block >= 4 && (x + block - y) % 4 == 0) t = kColourAbsentHatch;
      if (cross && x > 0 && y > 0 && x < block - 1 && y < block - 1 && (x == y || x + y == block - 1))
        t = kColourDroppedMark;
      row[x] = t;
    }
  }
}

static void refresh(HeatmapCache& c, const HeatmapSpec& spec, const MatrixView& m, uint64_t version,
                    TextureHost& textures) {
  const CacheMiss miss = c.tex ? heatmap_cache_miss(c, spec, m, version) : CacheMiss::matrix;
  if (miss == CacheMiss::matrix) take_matrix(c, spec, m, version);
  else if (miss == CacheMiss::labels) take_labels(c, spec, m.rows, m.cols);
  float lo, hi;
  colour_range(spec, c.stats, &lo, &hi);
  if (c.tex_version != c.version || c.cmap != spec.cmap || c.lo != lo || c.hi != hi || !c.tex) {
    c.cmap = spec.cmap;
    c.lo = lo;
    c.hi = hi;
    rebuild_texture(c, textures);
    c.tex_version = c.version;
  }
}

// =============================================================================
// [SECTION] layout input (fonts and labels → HeatmapLayoutIn)
// =============================================================================

static const char* label_text(const std::vector<std::string>& labels, int i, char* buf, size_t n) {
  if (i < (int)labels.size()) return labels[i].c_str();
  std::snprintf(buf, n, "%d", i);
  return buf;
}

static float measure_label(const char* b, const char* e, void*) {
  ImFont* f = g_fonts.regular ? g_fonts.regular : ImGui::GetFont();
  return f->CalcTextSizeA(kFontSize, FLT_MAX, 0.0f, b, e).x;
}

static void measure_labels(HeatmapCache& c) {
  if (c.measured_labels == c.labels_serial && c.measured_fonts == g_fonts.generation) return;
  char buf[16];
  c.row_label_w = c.col_label_w = 0;
  for (int i = 0; i < c.rows; ++i) {
    const char* s = label_text(c.row_labels, i, buf, sizeof buf);
    c.row_label_w = std::max(c.row_label_w, measure_label(s, s + std::strlen(s), nullptr));
  }
  for (int j = 0; j < c.cols; ++j) {
    const char* s = label_text(c.col_labels, j, buf, sizeof buf);
    c.col_label_w = std::max(c.col_label_w, measure_label(s, s + std::strlen(s), nullptr));
  }
  c.measured_labels = c.labels_serial;
  c.measured_fonts = g_fonts.generation;
}

void heatmap_text_metrics(HeatmapLayoutIn& in) {
  in.line_h = ImGui::GetTextLineHeight();
  ImFont* cf = g_fonts.cells ? g_fonts.cells : ImGui::GetFont();
  in.value_char_w = cf->CalcTextSizeA(kCellFontSize, FLT_MAX, 0.0f, "0").x;
  in.value_h = kCellFontSize + 1.0f;
}

// The width a map may take right of its row labels, as the layout will place them.
static float cells_room(const HeatmapSpec& spec, const HeatmapCache& c, float avail_w) {
  const bool rows = spec.show_axis_labels && spec.show_row_labels;
  return avail_w - (rows ? std::min(c.row_label_w, 110.0f) + 6.0f : 0.0f);
}

static HeatmapLayoutIn layout_input(const HeatmapSpec& spec, const HeatmapCache& c, float avail_w, float avail_h,
                                    const BarFit& bar) {
  HeatmapLayoutIn in;
  in.rows = c.rows;
  in.cols = c.cols;
  in.avail_w = avail_w;
  in.avail_h = avail_h;
  in.max_cell = spec.max_cell;
  in.min_cell_w = spec.min_cell_w;
  heatmap_text_metrics(in);
  in.row_label_w = c.row_label_w;
  in.col_label_w = c.col_label_w;
  in.bar_h = spec.show_colour_bar ? heatmap_bar_height(bar.stacked, c.ov.on) : 0.0f;
  in.show_labels = spec.show_axis_labels;
  in.show_row_labels = spec.show_row_labels;
  in.show_values = spec.show_values;
  in.scroll_x = spec.scroll_x;
  in.decimals_max = spec.decimals_max;
  in.stats = c.stats;
  if (c.ov.on) in.min_fit *= std::min(1.0f, (float)kOverviewCells / (float)std::max(1, c.rows));
  return in;
}

// =============================================================================
// [SECTION] input: hover, zoom, pan, scroll
// =============================================================================

static Viewport make_viewport(HeatmapCache& c, const HeatmapLayout& lay, ImVec2 grid0) {
  Viewport v;
  v.grid0 = grid0;
  v.size = ImVec2(lay.view_w, lay.view_h);
  v.span_u = lay.view_w / lay.grid_w / c.zoom;
  v.span_v = lay.view_h / lay.grid_h / c.zoom;
  v.full_w = lay.grid_w * c.zoom;
  v.full_h = lay.grid_h * c.zoom;
  c.u0 = std::clamp(c.u0, 0.0f, std::max(0.0f, 1.0f - v.span_u));
  c.v0 = std::clamp(c.v0, 0.0f, std::max(0.0f, 1.0f - v.span_v));
  return v;
}

// The cells' item is the last one submitted. Zoom about the mouse with the wheel
// (the wheel belongs to the map, not the window), or with Ctrl+wheel where the wheel
// scrolls: a tall map that scrolls, or a map in a window that scrolls; drag with the
// right or middle button pans; a double-click fits the whole matrix again.
static HeatmapHover handle_input(HeatmapCache& c, const HeatmapLayout& lay, const Viewport& vp) {
  HeatmapHover hover;
  if (!ImGui::IsItemHovered()) return hover;
  ImGuiIO& io = ImGui::GetIO();
  ImVec2 mp = io.MousePos;
  float fu = c.u0 + (mp.x - vp.grid0.x) / vp.size.x * vp.span_u;  // matrix fraction under the mouse
  float fv = c.v0 + (mp.y - vp.grid0.y) / vp.size.y * vp.span_v;
  hover.row = std::clamp((int)(fv * (float)c.rows), 0, c.rows - 1);
  hover.col = std::clamp((int)(fu * (float)c.cols), 0, c.cols - 1);
  hover.hovered = true;
  hover.clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
  const float max_zoom = std::max(1.0f, (float)std::max(c.rows, c.cols) / 4.0f);
  // In a window that scrolls, the wheel scrolls it and Ctrl+wheel zooms the map.
  const bool window_scrolls = ImGui::GetScrollMaxY() > 0.0f;
  const bool zoom_wheel = max_zoom > 1.0f && !lay.hscroll && (io.KeyCtrl || (!lay.scroll && !window_scrolls));
  if (lay.hscroll && !io.KeyCtrl) {  // a row that scrolls sideways: the wheel (either) moves it
    ImGui::SetItemKeyOwner(ImGuiKey_MouseWheelY);
    ImGui::SetItemKeyOwner(ImGuiKey_MouseWheelX);
    const float notch = io.MouseWheel != 0.0f ? io.MouseWheel : io.MouseWheelH;
    c.u0 -= notch * 3.0f / (float)c.cols;  // three columns a notch
  } else if (zoom_wheel || lay.scroll) {
    ImGui::SetItemKeyOwner(ImGuiKey_MouseWheelY);
    if (io.MouseWheel != 0.0f && zoom_wheel) {
      float nz = std::clamp(c.zoom * std::pow(1.25f, io.MouseWheel), 1.0f, max_zoom);
      c.u0 = fu - (mp.x - vp.grid0.x) / vp.size.x * (vp.span_u * c.zoom) / nz;
      c.v0 = fv - (mp.y - vp.grid0.y) / vp.size.y * (vp.span_v * c.zoom) / nz;
      c.zoom = nz;
    } else if (io.MouseWheel != 0.0f) {
      c.v0 -= io.MouseWheel * 3.0f / (float)c.rows;  // three rows a notch
    }
  }
  for (ImGuiMouseButton b : {ImGuiMouseButton_Right, ImGuiMouseButton_Middle})
    if (ImGui::IsMouseDragging(b, 2.0f)) {
      c.u0 -= io.MouseDelta.x / vp.full_w;
      c.v0 -= io.MouseDelta.y / vp.full_h;
    }
  if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) heatmap_reset_view(c);
  return hover;
}

// A map that scrolls sideways brings `col` into view when it changes (the Decode step's
// newest key), keeping the view where the learner left it otherwise.
static void follow_column(HeatmapCache& c, int col, const HeatmapLayout& lay) {
  if (col == c.followed || col < 0 || !lay.hscroll) {
    c.followed = col;
    return;
  }
  c.followed = col;
  const float span = lay.view_w / lay.grid_w / c.zoom, f = ((float)col + 0.5f) / (float)c.cols;
  if (f < c.u0 || f > c.u0 + span) c.u0 = std::clamp(f - span + 1.5f / (float)c.cols, 0.0f, 1.0f - span);
}

// Scrolls a map that shows only part of its matrix (tall, or zoomed) so that the cell
// asked for (reveal_row, reveal_col) is in view, centred where it was out of it; once.
static void reveal_cell(HeatmapCache& c, const HeatmapLayout& lay) {
  if (c.reveal_row < 0 || c.rows <= 0 || c.cols <= 0) return;
  const float span_u = lay.view_w / lay.grid_w / c.zoom, span_v = lay.view_h / lay.grid_h / c.zoom;
  const float fu = ((float)c.reveal_col + 0.5f) / (float)c.cols, fv = ((float)c.reveal_row + 0.5f) / (float)c.rows;
  if (fu < c.u0 || fu > c.u0 + span_u) c.u0 = std::clamp(fu - span_u / 2, 0.0f, std::max(0.0f, 1.0f - span_u));
  if (fv < c.v0 || fv > c.v0 + span_v) c.v0 = std::clamp(fv - span_v / 2, 0.0f, std::max(0.0f, 1.0f - span_v));
  c.reveal_row = c.reveal_col = -1;
}

void heatmap_reset_view(HeatmapCache& c) {
  c.zoom = 1.0f;
  c.u0 = c.v0 = 0.0f;
}

// =============================================================================
// [SECTION] drawing: labels, values, marks, colour bar
// =============================================================================

// Text rotated a quarter turn anticlockwise, reading upwards from `bottom`, centred on x.
static void add_text_rotated(ImDrawList* dl, float x, float bottom, ImU32 col, const char* s) {
  const float th = ImGui::GetTextLineHeight();
  const ImVec2 p(x - th * 0.5f, bottom);
  const int v0 = dl->VtxBuffer.Size;
  dl->AddText(p, col, s);
  for (int k = v0; k < dl->VtxBuffer.Size; ++k) {
    ImVec2& q = dl->VtxBuffer[k].pos;
    q = ImVec2(p.x + (q.y - p.y), p.y - (q.x - p.x));
  }
}

static void draw_col_labels(const HeatmapCache& c, const HeatmapLayout& lay, const HeatmapDetail& d,
                            const Viewport& vp, ImVec2 origin, int hl) {
  if (lay.col_mode == ColLabelMode::none) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled), text = ImGui::GetColorU32(ImGuiCol_Text);
  // AddText drops glyphs outside the clip rectangle before we turn them, so rotated
  // labels are laid out unclipped (only visible columns' labels are drawn).
  if (lay.col_mode == ColLabelMode::rotated) dl->PushClipRectFullScreen();
  else dl->PushClipRect(ImVec2(vp.grid0.x, origin.y), ImVec2(vp.grid0.x + vp.size.x, vp.grid0.y), true);
  char buf[16], fit[320];
  const float cw = vp.full_w / (float)c.cols;
  auto draw = [&](int j, ImU32 col) {
    ellipsize(label_text(c.col_labels, j, buf, sizeof buf), lay.col_label_max, measure_label, nullptr, fit, sizeof fit);
    float cx = vp.x(j, c) + cw * 0.5f;
    if (lay.col_mode == ColLabelMode::horizontal) {
      float tw = ImGui::CalcTextSize(fit).x;
      dl->AddText(ImVec2(cx - tw * 0.5f, origin.y + 1.0f), col, fit);
    } else {
      add_text_rotated(dl, cx, vp.grid0.y - 3.0f, col, fit);
    }
  };
  for (int j = c.drawn.j0; j < c.drawn.j1; ++j)
    if (j != hl && label_drawn(j, d.col_step, hl)) draw(j, dim);
  if (hl >= 0 && hl < c.cols) {  // over the others, on a background so it reads
    float x0 = vp.x(hl, c);
    dl->AddRectFilled(ImVec2(x0, origin.y), ImVec2(x0 + cw, vp.grid0.y - 1.0f), ImGui::GetColorU32(ImGuiCol_FrameBg));
    draw(hl, text);
  }
  dl->PopClipRect();
}

static void draw_row_labels(const HeatmapCache& c, const HeatmapLayout& lay, const HeatmapDetail& d,
                            const Viewport& vp, ImVec2 origin, int hl) {
  if (lay.row_label_w <= 0) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled), text = ImGui::GetColorU32(ImGuiCol_Text);
  const float th = ImGui::GetTextLineHeight(), ch = vp.full_h / (float)c.rows;
  // A label is centred on its row, but never below the cells' bottom edge: rows thinner
  // than a line (a long K cache squeezed above the Decode tab's size panel) would
  // otherwise put the last one's label over whatever is drawn under the map.
  const float bottom = vp.grid0.y + vp.size.y;
  auto label_y = [&](int i) { return std::min(vp.y(i, c) + (ch - th) * 0.5f, bottom - th); };
  dl->PushClipRect(ImVec2(origin.x, vp.grid0.y - th * 0.5f), ImVec2(vp.grid0.x, bottom), true);
  char buf[16], fit[320];
  auto draw = [&](int i, ImU32 col) {
    ellipsize(label_text(c.row_labels, i, buf, sizeof buf), lay.row_label_max, measure_label, nullptr, fit, sizeof fit);
    float tw = ImGui::CalcTextSize(fit).x;
    dl->AddText(ImVec2(vp.grid0.x - 4.0f - tw, label_y(i)), col, fit);
  };
  for (int i = c.drawn.i0; i < c.drawn.i1; ++i)
    if (i != hl && label_drawn(i, d.row_step, hl)) draw(i, dim);
  if (hl >= 0 && hl < c.rows) {
    float y = label_y(hl);
    dl->AddRectFilled(ImVec2(origin.x, y), ImVec2(vp.grid0.x - 1.0f, y + th), ImGui::GetColorU32(ImGuiCol_FrameBg));
    draw(hl, text);
  }
  dl->PopClipRect();
}

// Cell (i, j) as drawn: false for a cell that is not there (an evicted key) or not
// fetched yet (an overview's row still computing).
static bool cell_value(const HeatmapCache& c, int i, int j, float* v) {
  if (c.ov.on) return overview_cell(c, i, j, v);
  const size_t k = (size_t)i * c.cols + j;
  if (!c.absent.empty() && c.absent[k]) return false;
  *v = c.values[k];
  return true;
}

static void draw_values(const HeatmapCache& c, const HeatmapDetail& d, const Viewport& vp) {
  if (d.decimals < 0) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImFont* font = g_fonts.cells ? g_fonts.cells : ImGui::GetFont();
  const float cw = vp.full_w / (float)c.cols, ch = vp.full_h / (float)c.rows;
  // Hairlines in the background's colour between cells that print values: two
  // neighbours of like colour ("-0.01" "-0.32") never run together into one number.
  const ImU32 sep = ImGui::GetColorU32(ImGuiCol_WindowBg);
  const float x0 = vp.grid0.x, y0 = vp.grid0.y, x1 = x0 + vp.size.x, y1 = y0 + vp.size.y;
  for (int j = c.drawn.j0 + 1; j < c.drawn.j1; ++j) {  // on whole pixels: crisp, not a blurred pair
    const float x = std::floor(vp.x(j, c));
    dl->AddLine(ImVec2(x, y0), ImVec2(x, y1), sep);
  }
  for (int i = c.drawn.i0 + 1; i < c.drawn.i1; ++i) {
    const float y = std::floor(vp.y(i, c));
    dl->AddLine(ImVec2(x0, y), ImVec2(x1, y), sep);
  }
  char s[48];
  for (int i = c.drawn.i0; i < c.drawn.i1; ++i)
    for (int j = c.drawn.j0; j < c.drawn.j1; ++j) {
      float v;
      if (!cell_value(c, i, j, &v)) continue;  // not there (evicted; an overview's row still computing)
      int n = format_cell(v, d.decimals, s, sizeof s);
      ImVec2 ts = font->CalcTextSizeA(kCellFontSize, FLT_MAX, 0.0f, s, s + n);
      uint32_t bg = cell_colour(c.cmap, v, c.lo, c.hi);
      float lum = 0.2126f * (bg & 0xFF) + 0.7152f * ((bg >> 8) & 0xFF) + 0.0722f * ((bg >> 16) & 0xFF);
      ImU32 fg = lum > 140 ? IM_COL32(20, 20, 24, 255) : IM_COL32(245, 245, 245, 255);
      dl->AddText(font, kCellFontSize, ImVec2(vp.x(j, c) + (cw - ts.x) * 0.5f, vp.y(i, c) + (ch - ts.y) * 0.5f), fg, s,
                  s + n);
    }
}

static void draw_highlights(const HeatmapCache& c, const Viewport& vp, int hr, int hc) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 hl = IM_COL32(255, 255, 255, 200);
  const float cw = vp.full_w / (float)c.cols, ch = vp.full_h / (float)c.rows;
  if (hr >= 0 && hr < c.rows)
    dl->AddRect(ImVec2(vp.grid0.x, vp.y(hr, c)), ImVec2(vp.grid0.x + vp.size.x, vp.y(hr, c) + ch), hl, 0, 0, 1.5f);
  if (hc >= 0 && hc < c.cols)
    dl->AddRect(ImVec2(vp.x(hc, c), vp.grid0.y), ImVec2(vp.x(hc, c) + cw, vp.grid0.y + vp.size.y), hl, 0, 0, 1.5f);
}

// Zoom factor or scroll position, drawn over the cells' bottom-right corner.
static void draw_view_state(const HeatmapCache& c, const HeatmapLayout& lay, const Viewport& vp) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 g1(vp.grid0.x + vp.size.x, vp.grid0.y + vp.size.y);
  if (lay.hscroll) {  // a thin scroll bar along the bottom edge
    const float t0 = c.u0, t1 = std::min(1.0f, c.u0 + vp.span_u);
    dl->AddRectFilled(ImVec2(vp.grid0.x + t0 * vp.size.x, g1.y - 4), ImVec2(vp.grid0.x + t1 * vp.size.x, g1.y),
                      IM_COL32(255, 255, 255, 150));
  }
  if (lay.scroll || c.zoom > 1.0f) {  // a thin scroll bar on the right edge
    float t0 = c.v0, t1 = std::min(1.0f, c.v0 + vp.span_v);
    dl->AddRectFilled(ImVec2(g1.x - 4, vp.grid0.y + t0 * vp.size.y), ImVec2(g1.x, vp.grid0.y + t1 * vp.size.y),
                      IM_COL32(255, 255, 255, 150));
  }
  if (c.zoom > 1.0f) {
    char z[96];
    std::snprintf(z, sizeof z, tr("\xC3\x97%.1f (double-click: fit)"), c.zoom);
    ImVec2 ts = ImGui::CalcTextSize(z);
    dl->AddRectFilled(ImVec2(g1.x - ts.x - 6, g1.y - ts.y - 2), g1, IM_COL32(0, 0, 0, 170));
    dl->AddText(ImVec2(g1.x - ts.x - 3, g1.y - ts.y - 1), IM_COL32(255, 255, 255, 255), z);
  }
}

static float measure_current(const char* b, const char* e, void*) { return ImGui::CalcTextSize(b, e).x; }

// A horizontal colour bar under the cells: low end left, high end right (0 in the
// middle of a diverging one). "≥" marks a pinned top that some values exceed. A
// narrow bar puts the top's number on a line of its own (bar_fit).
static void draw_colour_bar(const HeatmapCache& c, const HeatmapSpec& spec, ImVec2 p, const BarFit& fit) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const float bh = 8.0f, w = fit.w;
  const int steps = 32;
  for (int k = 0; k < steps; ++k) {
    float t = ((float)k + 0.5f) / steps;
    dl->AddRectFilled(ImVec2(p.x + w * k / steps, p.y), ImVec2(p.x + w * (k + 1) / steps, p.y + bh),
                      colormap_at(c.cmap, t));
  }
  dl->AddRect(p, ImVec2(p.x + w, p.y + bh), dim);
  const BarText& t = fit.text;
  dl->AddText(ImVec2(p.x, p.y + bh + 2), text, t.lo);
  const float hw = ImGui::CalcTextSize(t.hi).x;
  const float hy = p.y + bh + 2 + (fit.stacked ? ImGui::GetTextLineHeight() : 0.0f);
  dl->AddText(ImVec2(std::max(p.x, p.x + w - hw), hy), text, t.hi);
  if (spec.diverging && w > 160.0f && !fit.stacked) {
    float zw = ImGui::CalcTextSize("0").x;
    dl->AddText(ImVec2(p.x + w * 0.5f - zw * 0.5f, p.y + bh + 2), dim, "0");
  }
  if (c.ov.on) {  // an overview says how its cells pool the matrix's: "max of 32×32 cells"
    char cap[128], fitted[160];
    overview_caption(c, cap, sizeof cap);
    ellipsize(cap, std::max(w, fit.room), measure_current, nullptr, fitted, sizeof fitted);
    dl->AddText(ImVec2(p.x, hy + ImGui::GetTextLineHeight()), dim, fitted);
  }
}

// =============================================================================
// [SECTION] heatmap(): the three together
// =============================================================================


// The title, cut with "…" when it is wider than the map may be (a title in another
// language can be longer than the English one), the whole title on hover; as wide
// as the colour bar under the map at least. Returns its right edge.
static float draw_title(const HeatmapSpec& spec, const char* title) {
  const float max_w = spec.max_width > 0 ? spec.max_width : ImGui::GetContentRegionAvail().x;
  char fit[256];
  const int n = ellipsize(title, std::max(max_w, 24.0f), measure_current, nullptr, fit, sizeof fit);
  ImGui::TextUnformatted(fit, fit + n);
  if (std::strcmp(fit, title) != 0 && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", title);
  return ImGui::GetItemRectMax().x;
}

// Rows / columns whose centres lie inside the visible cells area.
static void visible_range(HeatmapCache& c, const Viewport& vp) {
  auto first = [](float f0, int n) { return std::clamp((int)std::ceil(f0 * n - 0.5f), 0, n); };
  auto last = [](float f1, int n) { return std::clamp((int)std::floor(f1 * n - 0.5f) + 1, 0, n); };
  c.drawn.j0 = first(c.u0, c.cols);
  c.drawn.j1 = last(c.u0 + vp.span_u, c.cols);
  c.drawn.i0 = first(c.v0, c.rows);
  c.drawn.i1 = last(c.v0 + vp.span_v, c.rows);
}

// The title, and when the cells are too small to print values, why and what to do:
// zoom in with the wheel where the map zooms, else hover a cell (the Inspector and the
// tooltip give its value). Returns whether it says so.
static bool title_text(const HeatmapSpec& spec, const HeatmapCache& c, const HeatmapDetail& det, char* out, size_t n) {
  const bool hint = spec.show_values && det.decimals < 0;
  const float max_zoom = std::max(1.0f, (float)std::max(c.rows, c.cols) / 4.0f);
  const char* why = c.zoom < max_zoom ? tr("too small for values: zoom in (wheel)") : tr("hover a cell for its value");
  if (hint) std::snprintf(out, n, "%s \xC2\xB7 %s", spec.title, why);
  else std::snprintf(out, n, "%s", spec.title);
  return hint;
}

// Draws the map the cache holds (a whole matrix, or an overview's window from `src`):
// layout, title, cells, input, labels, values, highlights, colour bar; records what it drew.
static HeatmapHover heatmap_body(const HeatmapSpec& spec, HeatmapCache& c, TextureHost& textures, ImVec2 panel0,
                                 const MapSource* src) {
  measure_labels(c);
  // Laid out before the title is drawn: the title says when the cells print no values.
  const float title_h = spec.show_title ? ImGui::GetTextLineHeightWithSpacing() : 0.0f;
  const ImVec2 origin(panel0.x, panel0.y + title_h);
  const float avail_w = spec.max_width > 0 ? spec.max_width : ImGui::GetContentRegionAvail().x;
  const float avail_h = spec.max_height > 0 ? spec.max_height - title_h : 0.0f;
  BarFit bar = spec.show_colour_bar ? bar_fit(c, spec, cells_room(spec, c, avail_w), 0.0f) : BarFit{};
  const HeatmapLayoutIn in = layout_input(spec, c, avail_w, avail_h, bar);
  const HeatmapLayout lay = heatmap_layout(in);
  follow_column(c, spec.follow_col, lay);
  reveal_cell(c, lay);
  const Viewport vp = make_viewport(c, lay, ImVec2(origin.x + lay.row_label_w, origin.y + lay.header_h));
  if (src) overview_update(c, spec, *src, vp, textures);
  HeatmapDetail det = heatmap_detail(in, lay, vp.full_w / (float)c.cols, vp.full_h / (float)c.rows);
  if (c.ov.on && c.ov.block > 1) det.decimals = -1;  // a pooled cell is no one cell's value
  visible_range(c, vp);
  char title[sizeof c.drawn.title];
  const bool values_hint = title_text(spec, c, det, title, sizeof title);
  float title_x1 = panel0.x;
  if (spec.show_title) title_x1 = draw_title(spec, title);

  // The cells: one textured quad showing the visible part of the texture (an overview:
  // its window's, clipped to the cells area).
  ImGui::SetCursorScreenPos(vp.grid0);
  if (c.ov.on) {
    ImGui::Dummy(vp.size);
    overview_draw(c, vp);
  } else {
    ImGui::Image(c.tex, vp.size, ImVec2(c.u0, c.v0), ImVec2(c.u0 + vp.span_u, c.v0 + vp.span_v));
  }
  item_register(spec.label);
  HeatmapHover hover = handle_input(c, lay, vp);
  if (c.ov.on) {
    hover.block = c.ov.block;
    if (hover.hovered && c.ov.block > 1) {
      overview_tooltip(c, hover);
      hover.row = hover.row / c.ov.block * c.ov.block;  // the block's first cell
      hover.col = hover.col / c.ov.block * c.ov.block;
    }
  }
  c.drawn.hover_row = hover.hovered ? hover.row : -1;
  c.drawn.hover_col = hover.hovered ? hover.col : -1;
  if (spec.exports && !c.ov.on)  // right-click: export (an overview is never held whole)
    export_context_menu(*spec.exports, spec.label, spec.title, MatrixView{c.rows, c.cols, c.values.data()},
                        MatrixLabels{spec.row_labels, spec.col_labels});

  draw_col_labels(c, lay, det, vp, origin, spec.highlight_col);
  draw_row_labels(c, lay, det, vp, origin, spec.highlight_row);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(vp.grid0, ImVec2(vp.grid0.x + vp.size.x, vp.grid0.y + vp.size.y), true);
  draw_values(c, det, vp);
  draw_highlights(c, vp, spec.highlight_row, spec.highlight_col);
  draw_view_state(c, lay, vp);
  dl->PopClipRect();
  bar.w = std::max(bar.w, vp.size.x);
  if (spec.show_colour_bar) draw_colour_bar(c, spec, ImVec2(vp.grid0.x, vp.grid0.y + vp.size.y + 4.0f), bar);

  const float bottom = vp.grid0.y + vp.size.y + (spec.show_colour_bar ? in.bar_h : 2.0f);
  const float right = std::max(origin.x + lay.total_w, spec.show_colour_bar ? vp.grid0.x + bar.w : 0.0f);
  ImGui::SetCursorScreenPos(ImVec2(origin.x, bottom));
  ImGui::Dummy(ImVec2(right - origin.x, 0.0f));
  export_panel_drawn(spec.exports, spec.label, panel0, ImVec2(std::max(title_x1, right), bottom));

  HeatmapDrawn& d = c.drawn;
  d.frame = ImGui::GetFrameCount();
  d.px0 = panel0.x;
  d.py0 = panel0.y;
  d.px1 = std::max(title_x1, right);
  d.py1 = bottom;
  d.x = vp.grid0.x;
  d.y = vp.grid0.y;
  d.w = vp.size.x;
  d.h = vp.size.y;
  d.cell_w = vp.full_w / (float)c.cols;
  d.cell_h = vp.full_h / (float)c.rows;
  d.highlight_row = spec.highlight_row;
  d.highlight_col = spec.highlight_col;
  std::snprintf(d.title, sizeof d.title, "%s", title);
  d.values_hint = values_hint;
  d.lay = lay;
  d.detail = det;
  return hover;
}

// A map with nothing to draw: its title and why.
static void heatmap_empty(const HeatmapSpec& spec) {
  if (spec.show_title) draw_title(spec, spec.title);
  ImGui::TextDisabled("%s", tr("(not computed)"));
}

HeatmapHover heatmap(const HeatmapSpec& spec, const MatrixView& m, uint64_t version, HeatmapCache& c,
                     TextureHost& textures) {
  HeatmapHover hover;
  ImGui::PushID(spec.label);
  const ImVec2 panel0 = ImGui::GetCursorScreenPos();  // the panel, title included, for PNG export
  if (!m.data || m.rows == 0 || m.cols == 0) {
    heatmap_empty(spec);
  } else {
    if (c.ov.on) {  // was an overview: its texture is the window's
      c.ov = OverviewCache{};
      c.version = 0;
      c.tex_version = 0;
    }
    refresh(c, spec, m, version, textures);
    hover = heatmap_body(spec, c, textures, panel0, nullptr);
  }
  ImGui::PopID();
  return hover;
}

HeatmapHover heatmap_overview(const HeatmapSpec& spec, const MapSource& src, HeatmapCache& c, TextureHost& textures) {
  HeatmapHover hover;
  ImGui::PushID(spec.label);
  const ImVec2 panel0 = ImGui::GetCursorScreenPos();
  if (src.size() <= 0) {
    heatmap_empty(spec);
  } else {
    overview_refresh(c, spec, src);
    hover = heatmap_body(spec, c, textures, panel0, &src);
  }
  ImGui::PopID();
  return hover;
}

// =============================================================================
// [SECTION] heatmap_info()
// =============================================================================

nlohmann::json heatmap_info(const HeatmapCache& c) {
  const HeatmapDrawn& d = c.drawn;
  nlohmann::json rows = nlohmann::json::array(), cols = nlohmann::json::array(), cells = nlohmann::json::array();
  char buf[16], fit[320], s[48];
  for (int i = 0; i < c.rows; ++i) {
    bool vis = i >= d.i0 && i < d.i1;
    bool on = vis && d.lay.row_label_w > 0 && label_drawn(i, d.detail.row_step, d.highlight_row);
    if (on) ellipsize(label_text(c.row_labels, i, buf, sizeof buf), d.lay.row_label_max, measure_label, nullptr, fit, sizeof fit);
    rows.push_back(on ? fit : "");
    if (c.ov.on) continue;  // an overview's cells: overview_info, the view's alone
    nlohmann::json line = nlohmann::json::array();
    for (int j = 0; j < c.cols; ++j) {
      bool shown = vis && j >= d.j0 && j < d.j1 && d.detail.decimals >= 0 &&
                   (c.absent.empty() || !c.absent[(size_t)i * c.cols + j]);
      if (shown) format_cell(c.values[(size_t)i * c.cols + j], d.detail.decimals, s, sizeof s);
      line.push_back(shown ? s : "");
    }
    cells.push_back(std::move(line));
  }
  for (int j = 0; j < c.cols; ++j) {
    bool on = j >= d.j0 && j < d.j1 && d.lay.col_mode != ColLabelMode::none &&
              label_drawn(j, d.detail.col_step, d.highlight_col);
    if (on) ellipsize(label_text(c.col_labels, j, buf, sizeof buf), d.lay.col_label_max, measure_label, nullptr, fit, sizeof fit);
    cols.push_back(on ? fit : "");
  }
  nlohmann::json dropped = nlohmann::json::array();  // the cells marked with ×
  for (int i = 0; i < c.rows && !c.dropped.empty(); ++i)
    for (int j = 0; j < c.cols; ++j)
      if (c.dropped[(size_t)i * c.cols + j]) dropped.push_back({i, j});
  nlohmann::json absent = nlohmann::json::array();  // the cells drawn as not there
  for (int i = 0; i < c.rows && !c.absent.empty(); ++i)
    for (int j = 0; j < c.cols; ++j)
      if (c.absent[(size_t)i * c.cols + j]) absent.push_back({i, j});
  const char* mode = d.lay.col_mode == ColLabelMode::rotated ? "rotated" : d.lay.col_mode == ColLabelMode::horizontal ? "horizontal" : "none";
  const nlohmann::json panel = {{"x", d.px0}, {"y", d.py0}, {"w", d.px1 - d.px0}, {"h", d.py1 - d.py0}};
  nlohmann::json out = {{"title", d.title}, {"values_hint", d.values_hint}, {"panel", panel}, {"x", d.x}, {"y", d.y}, {"w", d.w}, {"h", d.h}, {"rows", c.rows}, {"cols", c.cols},
          {"cell_w", d.cell_w}, {"cell_h", d.cell_h}, {"decimals", d.detail.decimals},
          {"col_label_mode", mode}, {"scroll", d.lay.scroll}, {"zoom", c.zoom}, {"row0", c.v0 * (float)c.rows}, {"col0", c.u0 * (float)c.cols},
          {"hover", d.hover_row >= 0 ? nlohmann::json::array({d.hover_row, d.hover_col}) : nlohmann::json()},
          {"row_labels", std::move(rows)}, {"col_labels", std::move(cols)}, {"cells", std::move(cells)},
          {"dropped", std::move(dropped)}, {"absent", std::move(absent)}, {"marks_drawn", c.ov.on ? c.ov.block == 1 && c.ov.texels >= 4 : c.block >= 4}, {"overview", false}};
  if (c.ov.on) overview_info(c, out);
  return out;
}

}  // namespace attnviz::ui
