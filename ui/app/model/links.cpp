// links.cpp: see links.h. The query × key stages are stage_is_square (attnviz/stages.h).
#include "app/model/links.h"

namespace attnviz::ui {

bool stage_rows_are_tokens(Stage s) { return stage_rows_are_positions(s); }  // the stage table's row axis

namespace {

// Whether v is one of the stages listed.
template <typename... S>
bool any_of(Stage v, S... s) {
  return ((v == s) || ...);
}

// Focus on query i, key j of a square stage (scores, scaled, bias, masked, weights,
// dropped): the query's rows (Q, q_rot, context ...), the key's (K, k_rot, V).
Highlight from_square(int i, int j, Stage v) {
  if (stage_is_square(v)) return {i, j};
  if (any_of(v, Stage::K, Stage::V, Stage::k_rot)) return {j, -1};
  if (stage_rows_are_tokens(v)) return {i, -1};  // X, Q, context, concat, output
  return {};
}

// Focus on query i, column j of head `head`'s context; c is that column in V and concat.
Highlight from_context(int i, int j, int c, Stage v) {
  if (v == Stage::context) return {i, j};
  if (v == Stage::V) return {-1, c};
  if (v == Stage::concat) return {i, c};
  if (stage_is_square(v) || any_of(v, Stage::Q, Stage::q_rot, Stage::X, Stage::output)) return {i, -1};
  return {};
}

// Focus on row i, column c of head `head`'s q_rot (query i) or k_rot (key i). Column c
// of the head is column head·hd + c of Q (k_rot: of K's K/V head, not known here, so
// K's row only).
Highlight from_rotation(Stage f, int i, int c, int head, int hd, Stage v) {
  if (v == f) return {i, c};
  const bool q = f == Stage::q_rot;
  if (stage_is_square(v)) return q ? Highlight{i, -1} : Highlight{-1, i};
  if (q) {
    if (v == Stage::Q) return {i, head * hd + c};
    return any_of(v, Stage::X, Stage::context) ? Highlight{i, -1} : Highlight{};
  }
  return any_of(v, Stage::K, Stage::V, Stage::X) ? Highlight{i, -1} : Highlight{};
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
      return stage_is_square(v) || any_of(v, Stage::context, Stage::X, Stage::q_rot) ? Highlight{i, -1} : Highlight{};
    case Stage::K:
    case Stage::V:
      if (stage_is_square(v)) return {-1, i};  // key i
      if (v == Stage::k_rot) return f == Stage::K ? Highlight{i, -1} : Highlight{};
      return v == Stage::X ? Highlight{i, -1} : Highlight{};
    case Stage::concat:
    case Stage::output:
      return stage_rows_are_tokens(v) && !any_of(v, Stage::K, Stage::V, Stage::k_rot) ? Highlight{i, -1} : Highlight{};
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
  if (any_of(f.stage, Stage::q_rot, Stage::k_rot)) return from_rotation(f.stage, f.row, f.col, f.head, hd, v);
  return from_shared(f.stage, f.row, f.col, v);
}

}  // namespace attnviz::ui
