// panel_lines.h: the Lines tab, BertViz's head view (panel_lines.cpp).
#pragma once

namespace attnviz::ui {

struct AppModel;

void lines_tab(AppModel& m);

}  // namespace attnviz::ui
