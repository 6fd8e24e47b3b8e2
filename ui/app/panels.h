// panels.h: the windows of the interface. Each reads AppModel and edits the state
// only through AppModel::apply().
#pragma once
#include <nlohmann/json.hpp>

namespace attnviz::ui {

struct AppModel;

// The state the app opens with: tutorial 000's "Once upon a time there".
nlohmann::json default_state();

// Lays out and draws every window for this frame.
void draw_panels(AppModel& m);

}  // namespace attnviz::ui
