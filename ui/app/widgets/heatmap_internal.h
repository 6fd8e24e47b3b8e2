// heatmap_internal.h: what heatmap.cpp (a matrix held whole) and heatmap_overview.cpp (a
// square map read pooled, a window at a time) share: the viewport, the cells' colours and
// texels, the labels' copy. Not for panels: they call heatmap.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "app/widgets/heatmap.h"
#include "imgui.h"

namespace attnviz::ui {

// The visible window onto the matrix: columns [u0, u0 + span_u), rows [v0, v0 + span_v)
// as matrix fractions. A scrolling map shows view_h of its grid_h.
struct Viewport {
  ImVec2 grid0;         // top-left of the cells area on screen
  ImVec2 size;          // cells area on screen
  float span_u = 1, span_v = 1;
  float full_w = 0, full_h = 0;  // the whole matrix's size on screen at this zoom
  float x(int j, const HeatmapCache& c) const { return grid0.x + ((float)j / c.cols - c.u0) * full_w; }
  float y(int i, const HeatmapCache& c) const { return grid0.y + ((float)i / c.rows - c.v0) * full_h; }
};

// The colour scale: the pinned range, or the finite values' (centred on 0 when diverging).
void colour_range(const HeatmapSpec& spec, const ValueStats& s, float* lo, float* hi);
uint32_t cell_colour(Colormap cmap, float v, float lo, float hi);
// One cell's block × block texels at (x0, y0) of a texture `w` texels wide: its colour,
// the −inf hatch, the dropout ×, or an absent cell's empty hatch (blocks of 4 and up).
void paint_cell(uint32_t* rgba, int w, int x0, int y0, int block, uint32_t colour, float v, bool dropped,
                bool absent);
// The row and column labels a map shows, copied when they changed (labels_serial moves).
bool labels_current(const std::vector<std::string>& have, const std::vector<std::string>* src, int n);
void take_labels(HeatmapCache& c, const HeatmapSpec& spec, int rows, int cols);

// --- heatmap_overview.cpp
// Shape, labels and version of the map `src` (c.rows = c.cols = S); resets the view on a
// new shape.
void overview_refresh(HeatmapCache& c, const HeatmapSpec& spec, const MapSource& src);
// The block and window for the view, the pooled rows computed within the frame's budget,
// the ready ones fetched, the colour range and the texture brought up to date.
void overview_update(HeatmapCache& c, const HeatmapSpec& spec, const MapSource& src, const Viewport& vp,
                     TextureHost& textures);
// The window's texture under the cells area, and the rows still computing over it.
void overview_draw(const HeatmapCache& c, const Viewport& vp);
// The value of cell (i, j) at block 1 when the window holds it.
bool overview_cell(const HeatmapCache& c, int i, int j, float* v);
// A hovered pooled cell: its block's rows and columns and pooled value, as a tooltip.
void overview_tooltip(const HeatmapCache& c, const HeatmapHover& h);
// The pooling in words: "max of 32×32 cells" (in the interface's language).
void overview_caption(const HeatmapCache& c, char* out, size_t n);
// heatmapInfo's overview fields: overview, block, pool, pending, pooled {row0, col0, rows,
// cols, data}, and the printed cells of the view (cells_row0, cells_col0, cells).
void overview_info(const HeatmapCache& c, nlohmann::json& out);

// c's texture as w × h texels: the one it has when that is its size, else a new one (the
// old destroyed).
inline void ensure_texture(HeatmapCache& c, TextureHost& textures, int w, int h) {
  if (c.tex && c.tex_w == w && c.tex_h == h) return;
  if (c.tex) textures.destroy(c.tex);
  c.tex = textures.create(w, h);
  c.tex_w = w;
  c.tex_h = h;
}

}  // namespace attnviz::ui
