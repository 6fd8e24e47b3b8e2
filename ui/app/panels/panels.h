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
// The reason the draft was refused, under the control it concerns: when the refusal's
// field starts with `field` ("" for refusals of no field). The Parameters panel's and
// the Decode tab's controls use it.
void error_line(const AppModel& m, const char* field);
// View > Reset layout: the next frame puts the windows back in their default
// arrangement for the current screen size (panels.cpp, m.widgets.layout).
void request_layout_reset(AppModel& m);

// The catalogue text `key` as a tooltip of the last item, wrapped at 32 font sizes (some
// are a paragraph in either language). The Parameters and Tokens groups use it.
void tooltip(const char* key);
// What a combo needs beside its widest option's text: the arrow and the frame's padding.
float combo_room();

}  // namespace attnviz::ui

// Each window and tab, declared in its own header (its code in the file of the same
// name); included here as the index of the interface's windows.
#include "app/panels/panel_compare.h"    // Compare heads
#include "app/panels/panel_decode.h"     // Decode: generation with a KV cache
#include "app/panels/panel_inspector.h"  // the Inspector
#include "app/panels/panel_lines.h"      // Lines
#include "app/panels/panel_model.h"      // Model: a trained model's predictions, residual stream, training
#include "app/panels/panel_params.h"     // Parameters
#include "app/panels/panel_stages.h"     // Stages, Q K V & output; one matrix view
#include "app/panels/panel_values.h"     // Edit values
