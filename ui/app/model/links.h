// links.h: linked inspection. Given the focused cell (hovered or pinned) of one
// view, which row and column every other view highlights: e.g. focusing
// weights[i][j] of head h highlights row i and column j in every S×S stage of h,
// row i of context and Q, and row j of K and V.
#pragma once
#include "app/model/app_model.h"
#include "attnviz/stages.h"

namespace attnviz::ui {

struct Highlight {
  int row = -1, col = -1;
};

// head_dim is needed to map a head's columns into Q, K, V and concat.
Highlight linked_highlight(const CellRef& focus, Stage view_stage, int view_head, int head_dim);

// Whether row i of a stage's matrix belongs to token i: every stage but the
// parameters W_q ... b_o (whose rows are model dimensions, or one bias row).
bool stage_rows_are_tokens(Stage stage);

}  // namespace attnviz::ui
