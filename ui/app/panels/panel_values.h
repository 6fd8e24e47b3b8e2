// panel_values.h: the Edit values tab (panel_values.cpp).
#pragma once

namespace attnviz::ui {

struct AppModel;

void values_tab(AppModel& m);

}  // namespace attnviz::ui
