// panel_lines.cpp: token-to-token arcs (placeholder until the line view lands).
#include "app/app_model.h"
#include "app/panels.h"
#include "imgui.h"

namespace attnviz::ui {

void lines_tab(AppModel& m) { ImGui::TextDisabled("The line view is coming."); }

}  // namespace attnviz::ui
