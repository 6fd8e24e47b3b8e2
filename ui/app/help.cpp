// help.cpp: the Help menu, the keyboard shortcuts window, Shift+arrow cell moves
// and the aria-live sentence (help.h).
#include "app/help.h"

#include <cmath>
#include <cstdio>

#include "app/app_model.h"
#include "app/heatmap.h"
#include "app/item_registry.h"
#include "app/links.h"
#include "imgui.h"
#include "imgui_internal.h"  // the keyboard navigation cursor, for register_nav_focus

namespace attnviz::ui {

namespace {

// Every shortcut the app answers to, in the order the window lists them. Keep in
// step with the code that handles each (named on the right).
struct Shortcut {
  const char* keys;
  const char* what;
};
constexpr Shortcut kShortcuts[] = {
    {"F1  or  ?", "show or hide this window"},  // help.cpp
    {"Tab / Shift+Tab", "move between controls (ImGui keyboard navigation)"},
    {"Arrow keys", "move between controls; change a focused slider or field"},
    {"Space / Enter", "press the focused button, toggle a checkbox, edit a field"},
    {"Ctrl+Tab", "switch between the Parameters, Inspector and Views windows"},
    {"Esc", "leave a field or menu, close this window"},
    {"Ctrl+Z", "undo the last change of the state"},               // menu_edit.cpp
    {"Ctrl+Shift+Z / Ctrl+Y", "redo"},                             // menu_edit.cpp
    {"Ctrl+V (outside a field)", "paste a share link or a state"},  // menu_edit.cpp
    {"Shift+Arrow keys", "move the pinned cell (pins the hovered one first)"},  // help.cpp
    {"Click a cell", "pin it in the Inspector; click again to release"},
    {"Mouse wheel", "zoom a heatmap about the pointer"},
    {"Right or middle drag", "pan a zoomed heatmap"},
    {"Double-click", "fit the heatmap to its panel again"},
    {"Right-click a heatmap", "export it (PNG, CSV, JSON) or copy it as TSV"},
};

const char* token(const AppModel& m, int i) {
  const auto& t = m.engine.tokens();
  return i >= 0 && i < (int)t.size() ? t[i].c_str() : "?";
}

}  // namespace

void help_menu(AppModel& m) {
  bool open = ImGui::BeginMenu("Help");
  item_register("Help");
  if (!open) return;
  if (ImGui::MenuItem("Keyboard shortcuts", "F1")) m.help_open = true;
  item_register("Keyboard shortcuts");
  ImGui::Separator();
  ImGui::TextDisabled("attnviz shows every stage of multi-head attention,");
  ImGui::TextDisabled("with PyTorch's numbers (torch.manual_seed gives the same matrices).");
  ImGui::EndMenu();
}

void help_overlay(AppModel& m) {
  const ImGuiIO& io = ImGui::GetIO();
  if (!io.WantTextInput) {
    const bool question = ImGui::IsKeyPressed(ImGuiKey_Slash, false) && io.KeyShift;
    if (ImGui::IsKeyPressed(ImGuiKey_F1, false) || question) m.help_open = !m.help_open;
  }
  if (!m.help_open) return;
  if (ImGui::IsKeyPressed(ImGuiKey_Escape, false)) {
    m.help_open = false;
    return;
  }
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(vp->Pos.x + vp->Size.x * 0.5f, vp->Pos.y + vp->Size.y * 0.5f), ImGuiCond_Appearing,
                          ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowFocus();
  ImGui::SetNextWindowBgAlpha(1.0f);
  ImGuiWindowFlags flags = ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse |
                           ImGuiWindowFlags_NoSavedSettings;
  if (ImGui::Begin("Keyboard shortcuts###help", &m.help_open, flags)) {
    ImGuiTableFlags tf = ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_BordersInnerV;
    if (ImGui::BeginTable("shortcuts", 2, tf)) {
      for (const Shortcut& s : kShortcuts) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(s.keys);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(s.what);
      }
      ImGui::EndTable();
    }
    ImGui::Spacing();
    ImGui::TextDisabled("Screen readers hear the focused cell's value (an aria-live region).");
  }
  item_registry().add("Keyboard shortcuts window", ImGui::GetWindowPos(),
                      ImVec2(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x,
                             ImGui::GetWindowPos().y + ImGui::GetWindowSize().y));
  ImGui::End();
}

void cell_keys(AppModel& m) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || !io.KeyShift || io.KeyCtrl || io.KeyAlt) return;
  int dr = 0, dc = 0;
  if (ImGui::IsKeyPressed(ImGuiKey_UpArrow)) dr = -1;
  if (ImGui::IsKeyPressed(ImGuiKey_DownArrow)) dr = 1;
  if (ImGui::IsKeyPressed(ImGuiKey_LeftArrow)) dc = -1;
  if (ImGui::IsKeyPressed(ImGuiKey_RightArrow)) dc = 1;
  if (dr == 0 && dc == 0) return;
  if (!m.pinned.valid) {
    if (!m.hover.valid) return;
    m.pinned = m.hover;  // the first press pins the cell under the pointer
  }
  MatrixView v = m.engine.matrix(m.pinned.stage, m.pinned.head);
  if (!v.data) return;
  auto clamp = [](int x, int n) { return x < 0 ? 0 : (x >= n ? n - 1 : x); };
  m.pinned.row = clamp(m.pinned.row + dr, v.rows);
  m.pinned.col = clamp(m.pinned.col + dc, v.cols);
}

void register_nav_focus() {
  // Where ImGui's keyboard navigation cursor is: tests steer it with arrow keys
  // and check it reached a control before pressing Space.
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  ImGuiWindow* w = g.NavWindow;
  if (!w || g.NavId == 0 || g.NavDisableHighlight) return;
  ImRect r = ImGui::WindowRectRelToAbs(w, w->NavRectRel[g.NavLayer]);
  item_registry().add("keyboard focus", r.Min, r.Max);
}

bool live_text(const AppModel& m, std::string& out) {
  out.clear();
  if (!m.error.empty()) {
    out = "Not applied: ";
    out += m.error;
    return true;
  }
  const CellRef& c = m.focus();
  if (!c.valid || !m.engine.has_result()) return false;
  MatrixView v = m.engine.matrix(c.stage, c.head);
  if (!v.data || c.row < 0 || c.row >= v.rows || c.col < 0 || c.col >= v.cols) return false;
  const float x = v.data[(size_t)c.row * v.cols + c.col];
  // Runs every frame while a cell is focused: appends into `out`'s kept capacity,
  // no temporaries.
  char buf[96];
  auto quoted = [&](int i) {
    out += "\u201c";
    out += token(m, i);
    out += "\u201d";
  };
  out = stage_name(c.stage);
  if (stage_is_square(c.stage)) {
    std::snprintf(buf, sizeof buf, ", head %d, query %d ", c.head, c.row);
    out += buf;
    quoted(c.row);
    std::snprintf(buf, sizeof buf, ", key %d ", c.col);
    out += buf;
    quoted(c.col);
    out += ": ";
  } else {
    std::snprintf(buf, sizeof buf, ", row %d", c.row);
    out += buf;
    if (stage_rows_are_tokens(c.stage)) {
      out += " ";
      quoted(c.row);
    }
    std::snprintf(buf, sizeof buf, ", column %d: ", c.col);
    out += buf;
  }
  if (std::isinf(x) && x < 0) {
    out += "minus infinity (masked)";
  } else {
    out += format_value(x, 4);  // a few characters: held inline, no allocation
  }
  if (m.pinned.valid) out += ", pinned";
  return true;
}

}  // namespace attnviz::ui
