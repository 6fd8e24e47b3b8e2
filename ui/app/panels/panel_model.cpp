// panel_model.cpp: the Model tab (panel_model.h).
#include "app/panels/panel_model.h"

#include "app/model/app_model.h"
#include "imgui.h"

namespace attnviz::ui {

void model_tab(AppModel& m) {
  (void)m;
  ImGui::TextUnformatted("(being built)");
}

}  // namespace attnviz::ui
