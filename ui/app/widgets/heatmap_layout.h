// heatmap_layout.h: the pure half of a heatmap. Given a matrix's shape, the space it
// may take, the widths of its labels and a summary of its values, decides every
// size and every "does it fit": cell width and height, where the row labels and
// the column labels go and in which orientation, which labels are drawn when they
// must thin out, and with how many decimals the cells print their values.
//
// No ImGui here: text is measured by the caller (widths passed in, or a Measure
// callback), so tests run the rules natively without a GPU or a font atlas
// (tests/ui/test_heatmap_layout.cpp). heatmap.cpp draws what this decides, and
// App::heatmap_info() reports it (window.attnviz.heatmapInfo).
//
// The rules (docs/ui.md, "Reading a heatmap"):
//   * cells are as large as the space allows, up to max_cell, and square unless a
//     value needs a wider cell or a line of text a taller one; a matrix much taller
//     than wide keeps columns wide enough for its values and scrolls instead of
//     shrinking to a sliver;
//   * values: one precision per map, the most decimals (at most decimals_max) at
//     which the widest value fits its cell, never fewer than two significant
//     characters ("-15", "2.5", "0.18"): below that no cell prints, so a printed
//     cell never sits beside a blank one;
//   * column labels are horizontal when every label fits its column, else rotated
//     a quarter turn (whole, up to label_cap, then ellipsized); only when a rotated
//     line does not fit a column do they thin out, evenly (every k-th); row labels
//     likewise; the highlighted row's and column's labels are always drawn and the
//     thinned labels that would overlap them are left out.
#pragma once
#include <cstddef>
#include <cstdint>

namespace attnviz::ui {

// What the values of a matrix need to be printed (computed once per version).
struct ValueStats {
  float lo = 0.0f, hi = 0.0f;  // range of the finite values (0, 0 when none)
  float maxabs = 0.0f;         // largest finite magnitude
  bool negative = false;       // some finite value prints with a minus sign
  bool neg_inf = false, pos_inf = false, nan = false;
  bool any_finite = false;
};
// rows × cols, row stride `stride` floats.
ValueStats value_stats(const float* data, int rows, int cols, int stride);

// A cell's text with `decimals` decimals: "0.1754", "-14.69", "-inf", "nan";
// magnitudes ≥ 1e5 in exponent form ("1.23e+05"). A value that rounds to zero
// prints without a sign ("0.0000", never "-0.0000"). Returns the length.
int format_cell(float v, int decimals, char* buf, size_t n);
// Characters of the widest cell text format_cell gives for these values.
int value_chars(const ValueStats& s, int decimals);
// Fewest decimals that still show two significant characters of the largest value:
// 0 from 10 up ("-15"), 1 from 1 ("2.5"), else 2 ("0.18").
int min_decimals(const ValueStats& s);

enum class ColLabelMode : uint8_t { none, horizontal, rotated };

struct HeatmapLayoutIn {
  int rows = 0, cols = 0;
  float avail_w = 0;         // width for labels + cells (the colour bar goes below)
  float avail_h = 0;         // height for header + cells + bar; <= 0: unbounded
  float max_cell = 64.0f;    // largest cell side
  float min_cell_w = 0;      // > 0: cells at least this wide where the width allows (maps stacked so
                             // their columns line up; the Decode tab's rows)
  bool scroll_x = false;     // a row of many columns: cells keep min_cell_w and the map scrolls
                             // sideways instead (the Decode tab's rows over hundreds of keys)
  float min_cell_h = 6.0f;   // a taller-than-wide matrix scrolls rather than go below this
  float min_fit = 0.125f;    // the smallest cell side a map is fitted to (px): an overview's are
                             // smaller (its 256 pooled cells keep this), or 8,192 cells took 1,024 px
  float line_h = 15.0f;      // height of a label's line of text
  float value_char_w = 7.2f; // advance of one character of the (monospaced) cell font
  float value_h = 14.0f;     // line height of the cell font
  float value_pad = 2.0f;    // horizontal room a value leaves in its cell
  float value_gap = 6.0f;    // more room wished between neighbouring values: cells widen by it
                             // where the width allows, else print with value_pad alone
  float row_label_w = 0;     // widest row label, measured
  float col_label_w = 0;     // widest column label, measured
  float label_cap = 110.0f;  // labels wider than this are ellipsized
  float bar_h = 0;           // height of the colour bar band under the cells (0: none)
  bool show_labels = true;
  bool show_row_labels = true;  // off for maps beside one that labels the same rows
  bool show_values = true;
  int decimals_max = 4;      // View → Decimals (2, 3 or 4; auto = 4)
  ValueStats stats;
};

struct HeatmapLayout {
  float cell_w = 0, cell_h = 0;  // at zoom 1
  float row_label_w = 0;         // band left of the cells (0: no row labels)
  float header_h = 0;            // band above the cells for the column labels
  float grid_w = 0, grid_h = 0;  // cells area: cols·cell_w × rows·cell_h
  float view_h = 0;              // visible height of the cells area (< grid_h: scrolls)
  float view_w = 0;              // visible width of the cells area (< grid_w: scrolls sideways)
  float total_w = 0, total_h = 0;  // labels + cells + bar, as laid out (view_h, not grid_h)
  bool scroll = false;           // the cells area scrolls vertically
  bool hscroll = false;          // ... sideways (scroll_x asked, and the cells are wider than the room)
  ColLabelMode col_mode = ColLabelMode::none;
  float col_label_max = 0;       // a column label wider than this is ellipsized
  float row_label_max = 0;       // likewise for row labels
};
HeatmapLayout heatmap_layout(const HeatmapLayoutIn& in);

// What is drawn at a given cell size (the layout's, times the zoom).
struct HeatmapDetail {
  int decimals = -1;        // -1: cells print no values
  int col_step = 1, row_step = 1;  // labels drawn: every k-th (plus the highlighted one)
};
HeatmapDetail heatmap_detail(const HeatmapLayoutIn& in, const HeatmapLayout& lay, float cell_w, float cell_h);

// Whether label i is drawn, given the thinning step and the highlighted index
// (-1: none): the highlighted one always, others on the step unless they would
// overlap the highlighted one.
bool label_drawn(int i, int step, int highlight);

// Text measuring for ellipsize(): width of [b, e).
using Measure = float (*)(const char* b, const char* e, void* ctx);
// Copies `s` into out, or as many whole UTF-8 characters of it as fit in max_w
// followed by "…", so the result is at most max_w wide. Returns the length.
int ellipsize(const char* s, float max_w, Measure measure, void* ctx, char* out, size_t n);

}  // namespace attnviz::ui
