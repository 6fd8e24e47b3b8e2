// heatmap.h: one matrix drawn as a texture (one texel block per cell) with its
// labels on both axes, a colour bar with its numeric range, the values printed in
// the cells, and marks for −inf (masked), dropped (dropout), absent (an evicted
// key of a KV cache) and NaN cells.
//
// Three parts, each short enough to read:
//   * heatmap_layout.h: the pure layout (sizes, label orientation and thinning,
//     precision), unit-tested without a GPU;
//   * input: hover, zoom (mouse wheel), pan (right/middle drag), scroll (tall maps);
//   * drawing: labels, the cells' quad, values, highlights, colour bar.
//
// Immediate-mode call, retained state: each heatmap owns a HeatmapCache keyed by its
// label. The cache is keyed on everything it keeps (heatmap_cache_miss): the matrix's
// version and shape, whether dropout's keep mask or an absent mask came with it, and
// the row and column labels. On a new matrix it copies the values (the map reports what it drew from
// them, heatmapInfo), computes their range once and re-uploads the texture; on new
// labels alone (a renamed token keeps every number) it copies and measures the labels.
// Titles, decimals and the language are read from the spec every frame. An unchanged
// frame recomputes nothing and allocates nothing.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "app/widgets/colormap.h"
#include "app/widgets/heatmap_layout.h"
#include "app/widgets/map_zoom.h"
#include "app/model/matrix_view.h"
#include "app/widgets/texture_host.h"
#include "imgui.h"

namespace attnviz::ui {

// What a heatmap drew in its last frame (App::heatmap_info reports it).
struct HeatmapDrawn {
  int frame = -1;                    // ImGui frame count
  float x = 0, y = 0, w = 0, h = 0;  // the visible cells area on screen
  float px0 = 0, py0 = 0, px1 = 0, py1 = 0;  // the whole panel: title, labels, cells, colour bar
  float cell_w = 0, cell_h = 0;      // as drawn (zoom included)
  int i0 = 0, i1 = 0, j0 = 0, j1 = 0;  // rows / columns whose centres are visible
  int highlight_row = -1, highlight_col = -1;
  int hover_row = -1, hover_col = -1;  // the cell under the pointer (-1: none), in the map's own rows and columns
  char title[224] = "";              // the title as drawn (whole, before any ellipsis)
  bool values_hint = false;          // the title says why the cells print no values
  HeatmapLayout lay;
  HeatmapDetail detail;
};

// An overview map's window (heatmap_overview.cpp): the pooled cells it keeps and drew.
struct OverviewCache {
  bool on = false;                 // the map was last drawn as an overview
  uint64_t version = 0;            // MapSource::version() the values came from
  bool mean = false;               // pooled by mean (else max)
  int block = 1;                   // cells per pooled cell side
  PooledRange rows, cols;          // visible pooled rows and columns
  PooledRange win_rows, win_cols;  // the window kept (values, texture)
  std::vector<float> values;       // (win_rows × win_cols) pooled values
  std::vector<uint8_t> ready;      // (win_rows) 1 = fetched from the engine
  std::vector<uint8_t> dropped;    // (win_rows × win_cols) at block 1: 1 = dropout zeroed it (×)
  int pending = 0;                 // visible pooled rows not computed yet (drawn as computing)
  bool dirty = true;               // the texture must be rebuilt
  float seen_lo = 0, seen_hi = 0;  // finite values seen since `version`: the colour range
  bool seen_any = false;
  int texels = 1;                  // texels per pooled cell side in the texture
};

struct HeatmapCache {
  // --- the matrix as last seen (copied on a new version)
  uint64_t version = 0;
  int rows = 0, cols = 0;
  std::vector<float> values;               // (rows × cols) dense copy
  std::vector<uint8_t> dropped;            // (rows × cols) 1 = dropped by dropout; empty: none
  bool had_keep = false;                   // the matrix came with a keep mask (dropped is its copy)
  std::vector<uint8_t> absent;             // (rows × cols) 1 = not there (an evicted key); empty: none
  std::vector<std::string> row_labels, col_labels;  // (rows), (cols); empty: indices
  uint64_t labels_serial = 0;              // changes whenever the labels are copied
  ValueStats stats;
  // --- texture
  ImTextureID tex = ImTextureID();
  int tex_w = 0, tex_h = 0;       // texels
  int block = 1;                  // texels per cell side (hatching needs > 1)
  uint64_t tex_version = 0;
  Colormap cmap = Colormap::count;
  float lo = 0, hi = 0;           // range baked into the texture
  std::vector<uint32_t> rgba;     // (tex_h × tex_w) staging buffer, reused
  // --- label widths, measured when the labels or the fonts change
  uint64_t measured_labels = 0;   // labels_serial the widths belong to
  int measured_fonts = -1;
  float row_label_w = 0, col_label_w = 0;  // widest
  // --- view
  float zoom = 1.0f;              // 1 = whole matrix; up to max(rows, cols)/4
  float u0 = 0.0f, v0 = 0.0f;     // top-left of the visible part, as matrix fractions
  int view_rows = 0, view_cols = 0;  // shape the zoom belongs to: a new shape resets it
  int followed = -1;              // HeatmapSpec::follow_col as last seen
  int reveal_row = -1, reveal_col = -1;  // a cell to bring into view when next drawn (a lesson's task), then -1
  HeatmapDrawn drawn;
  OverviewCache ov;  // a square map of more than kOverviewAbove tokens (heatmap_overview)
};

struct ExportQueue;  // export.h

struct HeatmapSpec {
  const char* label = "";                          // registry id, e.g. "weights h0"
  const char* title = "";                          // e.g. "weights  (5×5)"; a char buffer, so drawing allocates nothing
  const std::vector<std::string>* row_labels = nullptr;  // tokens, or null for indices
  const std::vector<std::string>* col_labels = nullptr;
  Colormap cmap = Colormap::viridis;
  bool fixed_range = false;  // weights live in [0, 1]: pin the scale there
  float fixed_lo = 0.0f, fixed_hi = 1.0f;
  bool diverging = false;    // centre the range on 0 (signed values)
  const uint8_t* keep = nullptr;  // (rows × cols) dropout keep mask: 0 marks a dropped cell
  const uint8_t* absent = nullptr;  // (rows × cols) 1: a cell that is not there (a key StreamingLLM's
                                    // cache evicted): drawn as an empty hatched cell, no value printed
  int highlight_row = -1, highlight_col = -1;  // linked cursor from another view
  float max_width = 0;       // 0: use the available width
  float max_height = 0;      // 0: unbounded (the map takes the height its cells need)
  float max_cell = 64.0f;    // largest cell side in pixels
  float min_cell_w = 0;      // > 0: cells at least this wide where they fit (heatmap_layout.h)
  bool scroll_x = false;     // with min_cell_w: keep that width and scroll sideways when the columns
                             // do not fit (the wheel scrolls; heatmap_layout.h)
  int follow_col = -1;       // a map that scrolls sideways shows this column whenever it changes
  int decimals_max = 4;      // View → Decimals
  bool show_values = true;   // print values inside cells when they fit
  bool show_colour_bar = true;
  bool show_axis_labels = true;
  bool show_row_labels = true;  // off: column labels only
  bool show_title = true;
  ExportQueue* exports = nullptr;  // the App's: the right-click export menu and PNG capture (null: none)
};

// Why a cache cannot draw `m` as it stands: `matrix` (new version, shape or keep mask:
// copy everything), `labels` (the same numbers under other labels: copy the labels),
// or `none`. Pure, so tests check the key without a GPU.
enum class CacheMiss { none, labels, matrix };
CacheMiss heatmap_cache_miss(const HeatmapCache& c, const HeatmapSpec& spec, const MatrixView& m, uint64_t version);

struct HeatmapHover {
  bool hovered = false;
  int row = -1, col = -1;  // the cell (an overview's block: its first cell)
  bool clicked = false;
  int block = 1;           // an overview hovered at a block of block × block cells (> 1: no one cell)
};

// A square (S × S) map read pooled, a window at a time: the engine's Pipeline::map,
// map_pending and map_prepare, which a panel passes through (the widget knows no engine).
class MapSource {
 public:
  virtual ~MapSource() = default;
  virtual int size() const = 0;             // S
  virtual uint64_t version() const = 0;     // changes whenever the map's numbers may have changed
  virtual bool mean() const = 0;            // pooled by mean, else by max
  // Pooled rows of [I0, I0 + nI) at `block` not computed yet.
  virtual int pending(int block, int I0, int nI) const = 0;
  // Computes pending ones for about budget_ms; returns how many still pend.
  virtual int prepare(int block, int I0, int nI, double budget_ms) const = 0;
  // Kept pooled cells [I0, I0 + nI) × [J0, J0 + nJ) into out (nI × nJ, row-major).
  virtual bool fetch(int block, int I0, int nI, int J0, int nJ, float* out) const = 0;
};

// Draws the heatmap at the cursor. Returns which cell the mouse is over.
// `m` may be a strided view (a head's columns of Q).
HeatmapHover heatmap(const HeatmapSpec& spec, const MatrixView& m, uint64_t version,
                     HeatmapCache& cache, TextureHost& textures);

// The same for a square map read through `src`, as an overview (map_zoom.h): pooled
// cells whose zoom reaches the exact ones, computing only the pooled rows that come into
// view, within the frame's budget (heatmap_frame_begin), rows not ready drawn as
// computing. Panels use it above kOverviewAbove tokens (overview_wanted).
HeatmapHover heatmap_overview(const HeatmapSpec& spec, const MapSource& src, HeatmapCache& cache,
                              TextureHost& textures);

// The time the frame's overviews may spend computing pooled rows, shared by all of them
// (App::frame sets it), and whether one of them drew rows still computing in the last
// frame (App::next_frame_in then asks for the next frame at once).
void heatmap_frame_begin(double budget_ms);
bool heatmap_rows_pending();

// Forgets the zoom and pan (a preset loaded, a new shape).
void heatmap_reset_view(HeatmapCache& cache);

// {title, x, y, w, h, rows, cols, cell_w, cell_h, decimals, row_labels, col_labels, cells}:
// what the map drew in its last frame (docs/test-api.md, heatmapInfo).
nlohmann::json heatmap_info(const HeatmapCache& cache);

// Shortest readable form of a value for a tooltip: "-inf", "nan", "0.3374".
std::string format_value(float v, int digits = 4);

// The fonts' sizes a layout needs: label line height, cell font advance and height.
void heatmap_text_metrics(HeatmapLayoutIn& in);

// Height of the colour bar band under a map (stacked: a narrow map's, its two numbers
// on two lines; caption: an overview's, a line saying how its cells pool).
float heatmap_bar_height(bool stacked = false, bool caption = false);

}  // namespace attnviz::ui
