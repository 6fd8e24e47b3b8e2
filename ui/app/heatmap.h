// heatmap.h: one matrix drawn as a texture (one texel block per cell) with token
// labels on both axes, a colour bar with its numeric range, values printed in
// cells when they fit, and special styles for −inf / NaN cells.
//
// Immediate-mode call, retained texture: each heatmap owns a HeatmapCache keyed by
// its label; the texture is rebuilt and uploaded only when the matrix version,
// colormap or range changed, never per frame.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "app/colormap.h"
#include "app/texture_host.h"
#include "imgui.h"

#include "app/matrix_view.h"

namespace attnviz::ui {

struct HeatmapCache {
  ImTextureID tex = ImTextureID();
  int tex_w = 0, tex_h = 0;       // texels
  int block = 1;                  // texels per cell side (hatching needs > 1)
  uint64_t version = 0;           // matrix version baked into the texture
  Colormap cmap = Colormap::count;
  float lo = 0, hi = 0;           // range baked into the texture
  std::vector<uint32_t> rgba;     // (tex_h × tex_w) staging buffer, reused
  float label_w = 0;              // widest row label, measured when the matrix changed
  uint64_t label_w_version = 0;
  float zoom = 1.0f;              // 1 = whole matrix; up to max(rows, cols)/4
  float u0 = 0.0f, v0 = 0.0f;     // top-left of the visible part, as matrix fractions
};

struct HeatmapSpec {
  const char* label = "";                          // registry id, e.g. "weights h0"
  const char* title = "";                          // e.g. "weights  (5×5)"; a char buffer, so drawing allocates nothing
  const std::vector<std::string>* row_labels = nullptr;  // tokens, or null for indices
  const std::vector<std::string>* col_labels = nullptr;
  Colormap cmap = Colormap::viridis;
  bool fixed_range = false;  // weights live in [0, 1]: pin the scale there
  float fixed_lo = 0.0f, fixed_hi = 1.0f;
  bool diverging = false;    // centre the range on 0 (signed values)
  int highlight_row = -1, highlight_col = -1;  // linked cursor from another view
  float max_width = 0;       // 0: use the available width
  float max_cell = 40.0f;    // largest cell side in pixels
  bool show_values = true;   // print values inside cells when they fit
  bool show_colour_bar = true;
  bool show_axis_labels = true;
};

struct HeatmapHover {
  bool hovered = false;
  int row = -1, col = -1;
  bool clicked = false;
};

// Draws the heatmap at the cursor. Returns which cell the mouse is over.
HeatmapHover heatmap(const HeatmapSpec& spec, const MatrixView& m, uint64_t version,
                     HeatmapCache& cache, TextureHost& textures);

// Shortest readable form of a value for a cell or a tooltip: "-inf", "nan", "0.3374".
std::string format_value(float v, int digits = 4);

}  // namespace attnviz::ui
