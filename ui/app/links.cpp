// links.cpp: see links.h.
#include "app/links.h"

namespace attnviz::ui {

bool is_square_stage(std::string_view s) {
  return s == "scores" || s == "scaled" || s == "masked" || s == "weights" || s == "dropped";
}

static bool per_head(std::string_view s) { return is_square_stage(s) || s == "context"; }

Highlight linked_highlight(const CellRef& f, std::string_view v, int view_head, int hd) {
  Highlight h;
  if (!f.valid) return h;
  const int i = f.row, j = f.col;
  if (per_head(f.stage) && per_head(v) && view_head != f.head) return h;

  if (is_square_stage(f.stage)) {
    // query i attends to key j
    if (is_square_stage(v)) h = {i, j};
    else if (v == "context" || v == "Q" || v == "X" || v == "concat" || v == "output") h = {i, -1};
    else if (v == "K" || v == "V") h = {j, -1};
  } else if (f.stage == "context") {
    int c = f.head * hd + j;  // the column in V and concat
    if (is_square_stage(v)) h = {i, -1};
    else if (v == "context") h = {i, j};
    else if (v == "V") h = {-1, c};
    else if (v == "concat") h = {i, c};
    else if (v == "Q" || v == "X" || v == "output") h = {i, -1};
  } else if (f.stage == "Q") {
    if (is_square_stage(v) || v == "context") h = {i, -1};
    else if (v == "Q") h = {i, j};
    else if (v == "X") h = {i, -1};
  } else if (f.stage == "K" || f.stage == "V") {
    if (is_square_stage(v)) h = {-1, i};
    else if (v == f.stage) h = {i, j};
    else if (v == "X") h = {i, -1};
  } else if (f.stage == "X") {
    if (is_square_stage(v)) h = {i, i};
    else if (v == "X") h = {i, j};
    else if (v == "Q" || v == "K" || v == "V" || v == "context" || v == "concat" || v == "output") h = {i, -1};
  } else if (f.stage == "concat" || f.stage == "output") {
    if (v == f.stage) h = {i, j};
    else if (is_square_stage(v) || v == "context" || v == "X" || v == "Q" || v == "concat" || v == "output") h = {i, -1};
  }
  return h;
}

}  // namespace attnviz::ui
