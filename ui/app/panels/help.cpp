// help.cpp: the Help menu, the keyboard shortcuts window, Shift+arrow cell moves
// and the aria-live sentence (help.h).
#include "app/panels/help.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "app/model/app_model.h"
#include "app/widgets/heatmap.h"
#include "app/text/i18n.h"
#include "app/widgets/item_registry.h"
#include "app/model/links.h"
#include "imgui.h"
#include "imgui_internal.h"  // the keyboard navigation cursor, for register_nav_focus

namespace attnviz::ui {

namespace {

// Every shortcut the app answers to, in the order the window lists them. Keep in
// step with the code that handles each (named on the right). Key names stay as the
// keyboard prints them (NO_TR); words around them are translated (N_).
struct Shortcut {
  const char* keys;
  bool keys_translated;  // keys is a catalogue key ("Arrow keys"), not only key names
  const char* what;      // a catalogue key
};
constexpr Shortcut kShortcuts[] = {
    {N_("F1  or  ?"), true, N_("show or hide this window")},  // help.cpp
    {NO_TR("Tab / Shift+Tab"), false, N_("move between controls (ImGui keyboard navigation)")},
    {N_("Arrow keys"), true, N_("move between controls; change a focused slider or field")},
    {NO_TR("Space / Enter"), false, N_("press the focused button, toggle a checkbox, edit a field")},
    {NO_TR("Ctrl+Tab"), false, N_("switch between the Parameters, Inspector and Views windows")},
    {NO_TR("Esc"), false, N_("leave a field or menu, close this window")},
    {NO_TR("Ctrl+Z"), false, N_("undo the last change of the state")},               // menu_edit.cpp
    {NO_TR("Ctrl+Shift+Z / Ctrl+Y"), false, N_("redo")},                             // menu_edit.cpp
    {N_("Ctrl+V (outside a field)"), true, N_("paste a share link or a state")},  // menu_edit.cpp
    {N_("Shift+Arrow keys"), true, N_("move the pinned cell (pins the hovered one first)")},  // help.cpp
    {NO_TR("\xE2\x86\x90 / \xE2\x86\x92"), false, N_("Decode tab: the previous / next step")},  // panel_decode.cpp
    {NO_TR("Ctrl+\xE2\x86\x92 / Ctrl+\xE2\x86\x90"), false, N_("a lesson: the next step (once its task is done) / the step before")},  // panel_lesson.cpp
    {N_("Click a cell"), true, N_("pin it in the Inspector; click again to release")},
    {N_("Mouse wheel"), true, N_("zoom a heatmap about the pointer")},
    {N_("Right or middle drag"), true, N_("pan a zoomed heatmap")},
    {N_("Double-click"), true, N_("fit the heatmap to its panel again")},
    {N_("Right-click a heatmap"), true, N_("export it (PNG, CSV, JSON) or copy it as TSV")},
};

// printf onto the end of `out`, in the capacity it already has (live_text runs every
// frame: no allocation once `out` has grown to the longest sentence).
void append_printf(std::string& out, const char* format, ...) {
  va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  if (n > 0) {
    const size_t at = out.size();
    out.resize(at + static_cast<size_t>(n));
    std::vsnprintf(&out[at], static_cast<size_t>(n) + 1, format, again);  // writes the '\0' into the terminator
  }
  va_end(again);
}

const char* token(const AppModel& m, int i) {
  const auto& t = m.engine.tokens();
  return i >= 0 && i < (int)t.size() ? t[i].c_str() : "?";
}

}  // namespace

void help_menu(AppModel& m) {
  bool open = ImGui::BeginMenu(L("Help"));
  if (!open) return;
  if (ImGui::MenuItem(L("Keyboard shortcuts"), "F1")) m.help_open = true;
  ImGui::Separator();
  ImGui::TextDisabled("%s", tr("attnviz shows every stage of multi-head attention,\n"
                               "with PyTorch's numbers (torch.manual_seed gives the same matrices)."));
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
  if (ImGui::Begin(L("Keyboard shortcuts###help"), &m.help_open, flags)) {
    ImGuiTableFlags tf = ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_BordersInnerV;
    if (ImGui::BeginTable("shortcuts", 2, tf)) {
      for (const Shortcut& s : kShortcuts) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(s.keys_translated ? tr(s.keys) : s.keys);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(tr(s.what));
      }
      ImGui::EndTable();
    }
    ImGui::Spacing();
    ImGui::TextDisabled("%s", tr("Screen readers hear the focused cell's value (an aria-live region)."));
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
  if (!m.view.pinned.valid) {
    if (!m.hover.valid) return;
    m.view.pinned = m.hover;  // the first press pins the cell under the pointer
  }
  int rows = 0, cols = 0;
  if (!m.engine.shape(m.view.pinned.stage, m.view.pinned.head, &rows, &cols)) return;
  auto clamp = [](int x, int n) { return x < 0 ? 0 : (x >= n ? n - 1 : x); };
  m.view.pinned.row = clamp(m.view.pinned.row + dr, rows);
  m.view.pinned.col = clamp(m.view.pinned.col + dc, cols);
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
    append_printf(out, tr("Not applied: %s"), m.error.c_str());
    return true;
  }
  const CellRef& c = m.focus();
  if (!c.valid || !m.engine.has_result()) return false;
  float x;
  if (!m.engine.cell(c.stage, c.head, c.row, c.col, &x)) return false;
  // Runs every frame while a cell is focused: one translated sentence printed into
  // `out`'s kept capacity, no temporaries. The stage keeps its name (the heatmap's).
  const std::string value = std::isinf(x) && x < 0 ? std::string() : format_value(x, 4);  // short: held inline
  const char* shown = value.empty() ? tr("minus infinity (masked)") : value.c_str();
  const char* pinned = m.view.pinned.valid ? tr(", pinned") : "";
  const char* name = stage_name(c.stage);
  if (stage_is_square(c.stage))
    append_printf(out, tr("%s, head %d, query %d “%s”, key %d “%s”: %s%s"), name, c.head, c.row,
                  token(m, c.row), c.col, token(m, c.col), shown, pinned);
  else if (stage_rows_are_tokens(c.stage))
    append_printf(out, tr("%s, row %d “%s”, column %d: %s%s"), name, c.row, token(m, c.row), c.col, shown,
                  pinned);
  else
    append_printf(out, tr("%s, row %d, column %d: %s%s"), name, c.row, c.col, shown, pinned);
  return true;
}

}  // namespace attnviz::ui
