// menu_edit.cpp: the Edit menu (Undo, Redo, Copy share link, Paste state, Copy as
// PyTorch), its keyboard shortcuts, and the notice line under the menu bar that
// says what happened (a link copied, a paste refused and why).
//
// Shortcuts: Ctrl+Z undo; Ctrl+Shift+Z and Ctrl+Y redo; Ctrl+V outside a text field
// pastes a state (in the browser the page's paste event does that). While an ImGui
// text field is active these keys belong to it (ImGui's own text undo and paste).
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include <cstdio>

#include "attnviz/state_file.h"
#include "attnviz/torch_script.h"
#include "app/model/app_model.h"
#include "app/panels/export.h"
#include "app/text/i18n.h"
#include "app/widgets/item_registry.h"
#include "app/model/share.h"
#include "app/panels/menu_edit.h"
#include "imgui.h"
#include "imgui_internal.h"

namespace attnviz::ui {

namespace {

// Goes back (or forward) one state; the view keeps its selections where they still fit.
void step(AppModel& m, bool forward) {
  State current = m.engine.state();  // shares the weights: a few pointers
  std::optional<State> to = forward ? m.history.redo(std::move(current)) : m.history.undo(std::move(current));
  if (!to) return;
  if (!m.apply(std::move(*to), Change::history)) {
    // Cannot happen for states the engine accepted before; said rather than hidden.
    notify(m, tr_args("That step could not be restored: {0}", {m.error}), true);
    return;
  }
  int rows = 0, cols = 0;
  if (!m.view.pinned.valid || !m.engine.shape(m.view.pinned.stage, m.view.pinned.head, &rows, &cols))
    m.view.pinned = CellRef{};
}

// The state as the engine's PyTorch script (attnviz/torch_script.h, in the interface's
// language), on the system clipboard through ImGui's clipboard hook (the platform's:
// navigator.clipboard in the browser, which reports a refusal itself; SDL's on the desktop).
void copy_as_pytorch(AppModel& m) {
  const std::string script = torch_script_in_language(m);
  ImGui::SetClipboardText(script.c_str());
  const long lines = std::count(script.begin(), script.end(), '\n');
  notify(m,
         tr_args("PyTorch script copied ({0} lines): save it as a .py file and run it with python3; --json prints "
                 "attnviz's report.",
                 {std::to_string(lines)}),
         false);
}

bool text_field_active() {
  ImGuiID id = ImGui::GetActiveID();
  return id != 0 && ImGui::GetInputTextState(id) != nullptr;
}

void shortcuts(AppModel& m) {
  if (text_field_active()) return;  // ImGui's text undo/paste own the keys there
  const ImGuiInputFlags f = ImGuiInputFlags_RouteGlobalLow | ImGuiInputFlags_Repeat;
  if (ImGui::Shortcut(ImGuiMod_Ctrl | ImGuiKey_Z, 0, f)) step(m, false);
  if (ImGui::Shortcut(ImGuiMod_Ctrl | ImGuiMod_Shift | ImGuiKey_Z, 0, f) || ImGui::Shortcut(ImGuiMod_Ctrl | ImGuiKey_Y, 0, f))
    step(m, true);
  if (m.share.ctrl_v_reads_clipboard && m.share.paste_state &&
      ImGui::Shortcut(ImGuiMod_Ctrl | ImGuiKey_V, 0, ImGuiInputFlags_RouteGlobalLow))
    m.share.paste_state();
}

// The sentence under the menu bar: errors stay until dismissed or replaced,
// other notices for kNoticeSeconds.
void notice_line(AppModel& m) {
  Notice& n = m.notice;
  if (n.text.empty()) return;
  const double now = ImGui::GetTime();
  if (n.shown_at < 0) n.shown_at = now;
  if (!n.error && now - n.shown_at > kNoticeSeconds) {
    n.text.clear();
    return;
  }
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float w = std::min(vp->Size.x * 0.6f, ImGui::GetFontSize() * 44);
  ImGui::SetNextWindowPos(ImVec2(vp->Pos.x + vp->Size.x * 0.5f, vp->Pos.y + ImGui::GetFrameHeight() + 6),
                          ImGuiCond_Always, ImVec2(0.5f, 0.0f));
  ImGui::SetNextWindowSizeConstraints(ImVec2(w, 0), ImVec2(w, vp->Size.y * 0.5f));
  ImGui::SetNextWindowBgAlpha(1.0f);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                 ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove;
  if (ImGui::Begin("##share notice", nullptr, flags)) {
    ImGui::BringWindowToDisplayFront(ImGui::GetCurrentWindow());  // above the panels, without taking focus
    ImGui::PushStyleColor(ImGuiCol_Text, n.error ? IM_COL32(255, 138, 122, 255) : IM_COL32(160, 220, 160, 255));
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(n.text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
    item_register("share notice");
    if (n.action == NoticeAction::save_safetensors) {
      // The file the sentence offers, one click away (File → Save state (.safetensors)).
      if (ImGui::SmallButton(L("Save state (.safetensors)##notice"))) {
        save_state_safetensors(m);
        n.text.clear();
      }
      item_register("notice action");
      ImGui::SameLine();
    }
    if (ImGui::SmallButton(L("Dismiss"))) n.text.clear();
  }
  ImGui::End();
}

}  // namespace

void edit_menu(AppModel& m) {
  shortcuts(m);
  const bool open = ImGui::BeginMenu(L("Edit"));
  if (open) {
    if (ImGui::MenuItem(L("Undo"), "Ctrl+Z", false, m.history.can_undo())) step(m, false);
    if (ImGui::MenuItem(L("Redo"), "Ctrl+Shift+Z", false, m.history.can_redo())) step(m, true);
    ImGui::Separator();
    if (menu_item("Copy share link", false, (bool)m.share.copy_link)) m.share.copy_link();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("A link that opens this exact state and view"));
    if (ImGui::MenuItem(L("Paste state"), "Ctrl+V", false, (bool)m.share.paste_state)) m.share.paste_state();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("Open a share link or a state JSON from the clipboard"));
    if (menu_item("Copy as PyTorch")) copy_as_pytorch(m);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", tr("This state as a PyTorch script (the text File > Export PyTorch script saves)"));
    ImGui::EndMenu();
  }
  notice_line(m);
}

}  // namespace attnviz::ui
