// panel_stages.h: the Stages tab and the Q K V & output tab, and the one matrix view every
// tab draws a stage with (panel_stages.cpp).
#pragma once
#include <cstdint>

#include "attnviz/stages.h"

namespace attnviz::ui {

struct AppModel;

void stages_tab(AppModel& m);
void data_tab(AppModel& m);

// One matrix view with linked inspection: label "weights h0" / "Q"; hover and
// click feed the inspector; the focused cell's row/column are outlined.
// `max_width` 0 uses the available width.
void matrix_view(AppModel& m, Stage stage, int head, float max_width = 0, float max_cell = 56.0f,
                 bool small = false);

// `text` wrapped to `width` where the Inspector breaks lines: at spaces and between
// Chinese characters, never inside a number or a name (ImGui's TextWrapped broke
// "ln 8 = 2.079" after "2."). Use it for sentences that carry numbers.
void wrapped_text(const char* text, float width);
// The same to the room left on the line, as one group: after SameLine every line starts
// where the first did, as ImGui's TextWrapped's do.
void wrapped_block(const char* text);

// The dropout keep mask a map of `stage` for `head` marks with ×: head h's (S × S)
// for dropped while dropout is active, else null. Every view of dropped passes it
// (Stages, Compare heads), so a map shows the same marks wherever it is drawn.
const uint8_t* dropout_marks(const AppModel& m, Stage stage, int head);

}  // namespace attnviz::ui
