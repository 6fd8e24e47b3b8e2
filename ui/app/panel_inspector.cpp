// panel_inspector.cpp: "how did this number come to be" for the focused cell.
// Everything shown comes from Pipeline::explain(): the UI formats, never computes.
#include <cmath>
#include <cstdio>

#include "app/app_model.h"
#include "app/heatmap.h"
#include "app/item_registry.h"
#include "app/panels.h"
#include "attnviz/explain.h"
#include "imgui.h"

namespace attnviz::ui {

static const char* token_at(const AppModel& m, int i) {
  const auto& t = m.engine.tokens();
  return i >= 0 && i < (int)t.size() ? t[i].c_str() : "?";
}

// The terms of a dot product as a table: index, left, right, product; then the sum.
static void dot_table(const Explanation& e, const char* lhs_name, const char* rhs_name) {
  const int n = (int)e.terms.size();
  const int shown = n > 64 ? 64 : n;
  ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                          ImGuiTableFlags_ScrollY;
  float h = ImGui::GetTextLineHeightWithSpacing() * (float)(std::min(shown, 10) + 2);
  if (ImGui::BeginTable("terms", 4, flags, ImVec2(0, h))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("k");
    ImGui::TableSetupColumn(lhs_name);
    ImGui::TableSetupColumn(rhs_name);
    ImGui::TableSetupColumn("product");
    ImGui::TableHeadersRow();
    for (int t = 0; t < shown; ++t) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d", t);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_value(e.lhs[t], 4).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_value(e.rhs[t], 4).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_value(e.terms[t], 4).c_str());
    }
    ImGui::EndTable();
  }
  if (shown < n) ImGui::TextDisabled("(first %d of %d terms)", shown, n);
  ImGui::Text("sum = %s", format_value(e.sum, 6).c_str());
  if (e.has_bias) ImGui::Text("+ bias %s", format_value(e.bias, 6).c_str());
}

static void explain_body(const AppModel& m, const Explanation& e, const CellRef& c) {
  ImGui::TextWrapped("%s", e.formula.c_str());
  ImGui::Separator();
  switch (e.stage) {
    case Stage::Q: case Stage::K: case Stage::V:
      dot_table(e, "X[i][k]", "W[k][j]");
      break;
    case Stage::output:
      dot_table(e, "concat[i][k]", "W_o[k][j]");
      break;
    case Stage::scores:
      ImGui::Text("query \"%s\" (row %d) · key \"%s\" (row %d), head %d", token_at(m, c.row), c.row,
                  token_at(m, c.col), c.col, c.head);
      dot_table(e, "q_i[d]", "k_j[d]");
      break;
    case Stage::scaled:
      ImGui::Text("%s / (%s × temperature %s)", format_value(e.input, 6).c_str(),
                  format_value((float)e.divisor_base, 6).c_str(), format_value((float)e.temperature, 4).c_str());
      ImGui::Text("= %s / %s = %s", format_value(e.input, 6).c_str(), format_value(e.divisor, 6).c_str(),
                  format_value(e.value, 6).c_str());
      break;
    case Stage::masked:
      if (e.masked)
        ImGui::TextWrapped("Masked (%s): key %d %s, so the value %s is replaced by the fill %s.",
                           mask_reason_name(e.reason), c.col,
                           e.reason == MaskReason::padding ? "is padding" : "comes after the query",
                           format_value(e.input, 6).c_str(), format_value(e.fill, 6).c_str());
      else
        ImGui::TextWrapped("Not masked: the scaled value %s passes through.", format_value(e.input, 6).c_str());
      break;
    case Stage::weights:
      if (e.safe_zeroed) {
        ImGui::TextWrapped("Every key of this row is masked and safe softmax is on: the row is zeros.");
      } else {
        ImGui::Text("exp(%s − row max %s) = %s", format_value(e.input, 6).c_str(), format_value(e.row_max, 6).c_str(),
                    format_value(e.exp_term, 6).c_str());
        ImGui::Text("normaliser Σ exp(row − max) = %s", format_value(e.normaliser, 6).c_str());
        ImGui::Text("weight = %s / %s = %s", format_value(e.exp_term, 6).c_str(), format_value(e.normaliser, 6).c_str(),
                    format_value(e.value, 6).c_str());
        if (std::isnan(e.value))
          ImGui::TextWrapped("NaN: every key of this row is masked with −inf, so softmax divides 0 by 0 "
                             "(torch.softmax does the same). Safe softmax gives zeros instead.");
      }
      break;
    case Stage::dropped:
      if (!e.dropout_active)
        ImGui::TextWrapped("Dropout is off (not training, or p = 0): the weight %s passes through.",
                           format_value(e.input, 6).c_str());
      else if (e.kept)
        ImGui::Text("kept: %s × 1/(1−p) = %s × %s = %s", format_value(e.input, 6).c_str(),
                    format_value(e.input, 6).c_str(), format_value(e.scale, 6).c_str(), format_value(e.value, 6).c_str());
      else
        ImGui::Text("dropped: %s → 0", format_value(e.input, 6).c_str());
      break;
    case Stage::context:
      ImGui::TextWrapped("Σ over keys s of dropped[%d][s] · V[s][%d] (head %d's value column %d)", c.row, c.col,
                         c.head, c.col);
      dot_table(e, "dropped[i][s]", "v_s[j]");
      break;
    default:
      break;
  }
  ImGui::Separator();
  ImGui::Text("value = %s", format_value(e.value, 8).c_str());
}

void inspector_panel(AppModel& m) {
  const CellRef& c = m.focus();
  if (!c.valid || !m.engine.has_result()) {
    ImGui::TextWrapped("Hover over any cell of any heatmap to see how its number was computed. "
                       "Click to pin it; click the pinned cell again (or Unpin) to release.");
    return;
  }
  Stage stage;
  if (!stage_from_name(c.stage, &stage)) return;
  Explanation e = m.engine.pipeline().explain(stage, c.head, c.row, c.col);
  if (!e.ok) {
    ImGui::TextDisabled("(that cell no longer exists)");
    return;
  }
  if (m.pinned.valid) {
    if (ImGui::SmallButton("Unpin")) m.pinned = CellRef{};
    item_register("Unpin");
    ImGui::SameLine();
    ImGui::TextDisabled("pinned");
  }
  const bool square = c.stage == "scores" || c.stage == "scaled" || c.stage == "masked" || c.stage == "weights" ||
                      c.stage == "dropped";
  if (square)
    ImGui::Text("%s h%d [%d][%d]: \"%s\" → \"%s\"", c.stage.c_str(), c.head, c.row, c.col, token_at(m, c.row),
                token_at(m, c.col));
  else
    ImGui::Text("%s [%d][%d] (token \"%s\")", c.stage.c_str(), c.row, c.col, token_at(m, c.row));
  explain_body(m, e, c);
}

}  // namespace attnviz::ui
