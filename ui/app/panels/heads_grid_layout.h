// heads_grid_layout.h: the pure half of Compare heads' layers × heads grid
// (panel_heads_grid.cpp draws it). Given the room, the model's shape and the widths of
// the texts a cell holds, decides every size: how many scores go on a line, whether
// the job's badge fits beside the cell's name, and how large the maps' cells are, so
// that every layer's every head is in view at once with its labels whole.
//
// No ImGui here: the caller measures text and passes widths, so tests run the rules
// without a GPU or a font atlas (tests/ui/test_head_scores_ui.cpp).
//
// A grid cell, top to bottom (rows = layers, columns = heads):
//   "L1 H2  [induction head]"                 name line (the badge on a line of its own when narrow)
//   "prev 0.02 · ind 0.88 · first 0.41 · dup 0.01"  score lines: 4, 2 or 1 scores a line
//   the map (S × S cells of cell_px, square)
#pragma once

namespace attnviz::ui {

struct HeadsGridIn {
  int layers = 1, heads = 1;
  int rows = 1, cols = 1;       // the matrix each map shows (S × S for weights)
  float avail_w = 0;            // room for the grid
  float avail_h = 0;            // <= 0: unbounded
  float line_h = 17.0f;         // a line of text, with its spacing
  float score_w[4] = {};        // each score's text ("prev 0.70"), measured, widest over the heads
  float score_sep = 12.0f;      // between two scores on a line (" · ")
  float name_w = 0;             // "L1 H2"
  float badge_w = 0;            // the widest job badge ("induction head"), 0: none
  float gap_x = 14.0f, gap_y = 10.0f;  // between grid cells
  float pad = 4.0f;             // inside a grid cell, around its contents (the frame)
  float min_cell = 1.0f;        // below this the grid scrolls instead of shrinking
  float max_cell = 24.0f;
};

struct HeadsGridLayout {
  float col_w = 0;              // a grid cell's width (pad included), the same for every head
  int scores_per_line = 4;      // 4, 2 or 1
  int score_lines = 1;
  bool badge_below = false;     // the badge goes on a line of its own under the name
  float text_h = 0;             // name + badge + score lines
  float cell_px = 0;            // a map cell's side
  float map_w = 0, map_h = 0;   // cols · cell_px, rows · cell_px
  float box_h = 0;              // a grid cell's height (pad included)
  float total_w = 0, total_h = 0;  // the whole grid
  bool scroll = false;          // at min_cell the grid is taller than avail_h
  bool text_fits = true;        // every text line fits col_w (false: too many heads for the width)
};

HeadsGridLayout heads_grid_layout(const HeadsGridIn& in);

}  // namespace attnviz::ui
