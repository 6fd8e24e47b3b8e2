// heads_grid_layout.cpp: see heads_grid_layout.h.
#include "app/panels/heads_grid_layout.h"

#include <algorithm>
#include <cmath>

namespace attnviz::ui {

// Width of the widest line when the four scores go `per` to a line.
static float scores_line_w(const HeadsGridIn& in, int per) {
  float widest = 0;
  for (int first = 0; first < 4; first += per) {
    float w = 0;
    for (int k = first; k < std::min(first + per, 4); ++k) w += in.score_w[k] + (k > first ? in.score_sep : 0.0f);
    widest = std::max(widest, w);
  }
  return widest;
}

HeadsGridLayout heads_grid_layout(const HeadsGridIn& in) {
  HeadsGridLayout o;
  const int L = std::max(in.layers, 1), H = std::max(in.heads, 1);
  const int R = std::max(in.rows, 1), C = std::max(in.cols, 1);
  o.col_w = std::max(0.0f, std::floor((in.avail_w - in.gap_x * (H - 1)) / H));
  const float inner = o.col_w - 2 * in.pad;

  // Text: as many scores a line as fit, the badge beside the name when it fits.
  o.scores_per_line = 1;
  for (int per : {4, 2}) {
    if (scores_line_w(in, per) <= inner) {
      o.scores_per_line = per;
      break;
    }
  }
  o.score_lines = (4 + o.scores_per_line - 1) / o.scores_per_line;
  const float gap = in.score_sep;
  o.badge_below = in.badge_w > 0 && in.name_w + gap + in.badge_w > inner;
  o.text_fits = scores_line_w(in, o.scores_per_line) <= inner && in.name_w <= inner && in.badge_w <= inner;
  o.text_h = in.line_h * (1 + (o.badge_below ? 1 : 0) + o.score_lines);

  // The maps: as large as the width of a column and the height of a row allow.
  float side = inner / C;
  if (in.avail_h > 0) {
    const float row_room = (in.avail_h - in.gap_y * (L - 1)) / L - o.text_h - 2 * in.pad;
    side = std::min(side, row_room / R);
  }
  o.cell_px = std::min(side, in.max_cell);
  if (o.cell_px < in.min_cell) {
    o.cell_px = in.min_cell;
    o.scroll = in.avail_h > 0;
  }
  o.map_w = o.cell_px * C;
  o.map_h = o.cell_px * R;
  o.box_h = o.text_h + o.map_h + 2 * in.pad;
  o.total_w = o.col_w * H + in.gap_x * (H - 1);
  o.total_h = o.box_h * L + in.gap_y * (L - 1);
  return o;
}

}  // namespace attnviz::ui
