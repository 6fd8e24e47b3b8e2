// links.h: linked inspection. Given the focused cell (hovered or pinned) of one
// view, which row and column every other view highlights: e.g. focusing
// weights[i][j] of head h highlights row i and column j in every S×S stage of h,
// row i of context and Q, and row j of K and V.
#pragma once
#include <string_view>

#include "app/app_model.h"

namespace attnviz::ui {

struct Highlight {
  int row = -1, col = -1;
};

// head_dim is needed to map a head's columns into Q, K, V and concat.
Highlight linked_highlight(const CellRef& focus, std::string_view view_stage, int view_head, int head_dim);

bool is_square_stage(std::string_view stage);  // scores, scaled, masked, weights, dropped

}  // namespace attnviz::ui
