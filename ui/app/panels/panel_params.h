// panel_params.h: the Parameters window (panel_params.cpp).
#pragma once

namespace attnviz::ui {

struct AppModel;

void parameters_panel(AppModel& m);
// Height (logical px, title bar included) the Parameters window needs to show its
// controls without scrolling as it first opens.
float parameters_height_wanted();

}  // namespace attnviz::ui
