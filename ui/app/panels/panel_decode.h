// panel_decode.h: the Decode tab, generation with a KV cache (panel_decode.cpp).
#pragma once

namespace attnviz::ui {

struct AppModel;

void decode_tab(AppModel& m);

// The cell width of the rows over the keys 0 … t (scores, masked, weights, dropped), for
// `keys` columns in `avail_w` px of which `label_w` go to the row label, when each value
// wants `value_w`: that width when they fit; else the width that fits them all, so the
// whole row shows (values print with fewer decimals, or none: hover reads them), as
// long as a cell stays at least kDecodeMinFitCell px wide (a cell to hover, a row to read); past that (hundreds of keys)
// the cells keep `value_w` and the rows scroll sideways (*scroll set). Pure.
constexpr float kDecodeMinFitCell = 16.0f;
float decode_key_cell_w(float avail_w, float label_w, int keys, float value_w, bool* scroll);

}  // namespace attnviz::ui
