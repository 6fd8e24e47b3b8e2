// map_zoom.h: the pure half of an overview map (issue 36). A square (S × S) stage of more
// than kOverviewAbove tokens is drawn pooled: each drawn cell a block of b × b cells, b
// chosen from what the view shows so that at most kOverviewCells pooled cells lie across
// it; zooming in shrinks the view, so b falls, and at b = 1 the cells are the exact ones.
// A frame keeps a window of pooled rows and columns around the visible ones, its edges on
// a grid of kWindowChunk pooled cells, so that a pan within it asks the engine for nothing.
//
// No ImGui, no engine: tests/ui/test_map_zoom.cpp runs these rules natively. heatmap.cpp
// draws what they decide (heatmap_overview.cpp), the engine computes the pooled rows
// (Pipeline::map, map_pending, map_prepare).
#pragma once

namespace attnviz::ui {

constexpr int kOverviewAbove = 256;  // maps of more tokens than this are drawn as overviews
constexpr int kOverviewCells = 256;  // an overview shows at most this many pooled cells across
constexpr int kWindowChunk = 32;     // the kept window's edges are multiples of this (pooled cells)

// Whether a square map of S tokens is drawn as an overview.
inline bool overview_wanted(int S) { return S > kOverviewAbove; }

// Cells per pooled cell side for a view `span` cells across: the smallest power of two b
// with ⌈span / b⌉ ≤ max_cells (1 when span ≤ max_cells). 8,192 whole → 32; 2,048 → 8.
int overview_block(double span, int max_cells = kOverviewCells);

// Pooled cells [a, z) of a map of S cells pooled by b that a view of cells [c0, c1)
// touches (c0, c1 as fractions of cells: the view's edges), clipped to the map.
struct PooledRange {
  int a = 0, z = 0;
  int size() const { return z - a; }
  bool operator==(const PooledRange& o) const { return a == o.a && z == o.z; }
};
PooledRange pooled_visible(int S, int block, double c0, double c1);

// The pooled range a frame keeps: the visible one widened by `margin` pooled cells on
// each side, its edges moved out to multiples of `chunk`, clipped to the map.
PooledRange pooled_window(int S, int block, PooledRange visible, int margin = kWindowChunk / 2,
                          int chunk = kWindowChunk);

// What one frame of an overview shows: the block, the visible pooled rows and columns,
// and the window kept around them.
struct OverviewView {
  int block = 1;
  PooledRange rows, cols;        // visible
  PooledRange win_rows, win_cols;  // kept
};
// From the matrix fractions in view: rows [v0, v0 + span_v), columns [u0, u0 + span_u).
OverviewView overview_view(int S, float u0, float v0, float span_u, float span_v);

// Texels per pooled cell side in a window of n × n pooled cells: enough for the −inf hatch
// and the dropout × (4 and up) where the window is small, at most 8, at least 1.
inline int overview_texels(int n) {
  const int t = n > 0 ? 256 / n : 8;
  return t < 1 ? 1 : (t > 8 ? 8 : t);
}

}  // namespace attnviz::ui
