// links.cpp: see links.h. The query × key stages are stage_is_square (attnviz/stages.h).
#include "app/links.h"

namespace attnviz::ui {

bool stage_rows_are_tokens(Stage s) { return stage_rows_are_positions(s); }  // the stage table's row axis

namespace {

// Whether v is one of the stages listed.
template <typename... S>
bool any_of(Stage v, S... s) {
  return ((v == s) || ...);
}

// Focus on query i, key j of a square stage.
Highlight from_square(int i, int j, Stage v) {
  if (stage_is_square(v)) return {i, j};
  if (any_of(v, Stage::K, Stage::V)) return {j, -1};
  if (stage_rows_are_tokens(v)) return {i, -1};  // X, Q, context, concat, output
  return {};
}

// Focus on query i, column j of head `head`'s context; c is that column in V and concat.
Highlight from_context(int i, int j, int c, Stage v) {
  if (v == Stage::context) return {i, j};
  if (v == Stage::V) return {-1, c};
  if (v == Stage::concat) return {i, c};
  if (stage_is_square(v) || any_of(v, Stage::Q, Stage::X, Stage::output)) return {i, -1};
  return {};
}

// Focus on token i, column j of X, Q, K, V, concat or output (f). The parameters
// link to nothing: no other view is indexed by their rows.
Highlight from_shared(Stage f, int i, int j, Stage v) {
  if (!stage_rows_are_tokens(f)) return {};
  if (v == f) return {i, j};
  switch (f) {
    case Stage::X:
      if (stage_is_square(v)) return {i, i};
      return stage_rows_are_tokens(v) ? Highlight{i, -1} : Highlight{};
    case Stage::Q:
      return stage_is_square(v) || any_of(v, Stage::context, Stage::X) ? Highlight{i, -1} : Highlight{};
    case Stage::K:
    case Stage::V:
      if (stage_is_square(v)) return {-1, i};  // key i
      return v == Stage::X ? Highlight{i, -1} : Highlight{};
    case Stage::concat:
    case Stage::output:
      return stage_rows_are_tokens(v) && !any_of(v, Stage::K, Stage::V) ? Highlight{i, -1} : Highlight{};
    default:
      return {};
  }
}

}  // namespace

Highlight linked_highlight(const CellRef& f, Stage v, int view_head, int hd) {
  if (!f.valid) return {};
  if (stage_is_per_head(f.stage) && stage_is_per_head(v) && view_head != f.head) return {};
  if (stage_is_square(f.stage)) return from_square(f.row, f.col, v);
  if (f.stage == Stage::context) return from_context(f.row, f.col, f.head * hd + f.col, v);
  return from_shared(f.stage, f.row, f.col, v);
}

}  // namespace attnviz::ui
