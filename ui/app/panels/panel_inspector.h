// panel_inspector.h: the Inspector window: how the focused cell came to be (panel_inspector.cpp;
// its text: app/text/inspector_text.h).
#pragma once

namespace attnviz::ui {

struct AppModel;

void inspector_panel(AppModel& m);

}  // namespace attnviz::ui
