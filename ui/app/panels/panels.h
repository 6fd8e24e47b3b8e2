// panels.h: the windows of the interface. Each reads AppModel and edits the state
// only through AppModel::apply() / apply_edit().
#pragma once
#include <nlohmann/json_fwd.hpp>  // the full header only where JSON is built or read (.cpp)

#include "app/widgets/heatmap.h"
#include "attnviz/stages.h"

namespace attnviz::ui {

struct AppModel;

// The state the app opens with: the first preset, tutorial 000's "Once upon a time there".
nlohmann::json default_state();

// Lays out and draws every window for this frame (panels.cpp).
void draw_panels(AppModel& m);

// A control changed m.draft: applies it as an edit of that control (the one ImGui has
// active), so its changes while it stays active (a drag, digits typed) are one undo step.
bool apply_edit(AppModel& m);
// View > Reset layout: the next frame puts the windows back in their default
// arrangement for the current screen size (panels.cpp, m.widgets.layout).
void request_layout_reset(AppModel& m);

void parameters_panel(AppModel& m);  // panel_params.cpp
// Height (logical px, title bar included) the Parameters window needs to show its
// controls without scrolling as it first opens (panel_params.cpp).
float parameters_height_wanted();
void inspector_panel(AppModel& m);   // panel_inspector.cpp
void stages_tab(AppModel& m);        // panel_stages.cpp
void data_tab(AppModel& m);          // panel_stages.cpp
void compare_tab(AppModel& m);       // panel_compare.cpp
void lines_tab(AppModel& m);         // panel_lines.cpp
void values_tab(AppModel& m);        // panel_values.cpp
void decode_tab(AppModel& m);        // panel_decode.cpp: generation with a KV cache

// One matrix view with linked inspection: label "weights h0" / "Q"; hover and
// click feed the inspector; the focused cell's row/column are outlined.
// `max_width` 0 uses the available width.
void matrix_view(AppModel& m, Stage stage, int head, float max_width = 0, float max_cell = 56.0f,
                 bool small = false);

// `text` wrapped to `width` where the Inspector breaks lines: at spaces and between
// Chinese characters, never inside a number or a name (ImGui's TextWrapped broke
// "ln 8 = 2.079" after "2."). Use it for sentences that carry numbers.
void wrapped_text(const char* text, float width);

// The dropout keep mask a map of `stage` for `head` marks with ×: head h's (S × S)
// for dropped while dropout is active, else null. Every view of dropped passes it
// (Stages, Compare heads), so a map shows the same marks wherever it is drawn.
const uint8_t* dropout_marks(const AppModel& m, Stage stage, int head);

}  // namespace attnviz::ui
