// panel_compare.cpp: compare heads (placeholder until the comparison views land).
#include "app/app_model.h"
#include "app/panels.h"
#include "imgui.h"

namespace attnviz::ui {

void compare_tab(AppModel& m) {
  int H = m.engine.num_heads();
  ImGui::Text("%d heads", H);
  for (int h = 0; h < H; ++h) {
    ImGui::PushID(h);
    ImGui::BeginGroup();
    matrix_view(m, "weights", h, 220.0f, 24.0f, true);
    ImGui::EndGroup();
    ImGui::PopID();
    if ((h + 1) % 4) ImGui::SameLine();
  }
}

}  // namespace attnviz::ui
