// panel_compare.h: the Compare heads tab (panel_compare.cpp).
#pragma once

namespace attnviz::ui {

struct AppModel;

void compare_tab(AppModel& m);

}  // namespace attnviz::ui
