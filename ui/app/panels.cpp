// panels.cpp: the frame's layout: menu bar, the Parameters column with the
// Inspector under it, and the main area's tabs (Stages, Q K V & output, Compare
// heads, Lines). Default positions fit a 1366×768 laptop screen; users move and
// resize windows freely and the layout is remembered (platform layer).
#include "app/panels.h"

#include <algorithm>

#include "app/app_model.h"
#include "app/export.h"
#include "app/fonts.h"
#include "app/help.h"
#include "app/item_registry.h"
#include "app/presets.h"
#include "imgui.h"

namespace attnviz::ui {

nlohmann::json default_state() {
  const auto& p = presets();
  if (!p.empty()) return p.front().state;
  return nlohmann::json::object();  // the engine's defaults are tutorial 000 too
}

// View → Decimals: how many decimals cells print at most (auto: what fits, up to 4).
static void decimals_menu(AppModel& m) {
  bool open = ImGui::BeginMenu("Decimals");
  item_register("Decimals");
  if (!open) return;
  static const struct { int n; const char* label; } kChoices[] = {
      {0, "auto (what fits, up to 4)"}, {2, "2"}, {3, "3"}, {4, "4 (as PyTorch prints)"}};
  for (const auto& c : kChoices)
    if (menu_item(c.label, m.decimals == c.n)) m.decimals = c.n;
  ImGui::EndMenu();
}

static void menu_bar(AppModel& m) {
  if (!ImGui::BeginMainMenuBar()) return;
  file_menu(m);  // export.h: Save/Open state, Export window as PNG
  edit_menu(m);  // share.h: Undo, Redo, Copy share link, Paste state
  if (ImGui::BeginMenu("Presets")) {
    // Titles in other scripts need their glyphs: add them once the menu opens.
    for (const Preset& p : presets())
      if (fonts_collect_glyphs(p.title.c_str(), m.glyphs)) ++m.glyphs_version;
    for (const Preset& p : presets()) {
      if (ImGui::MenuItem(p.title.c_str())) {
        m.apply(p.state);
        m.pinned = CellRef{};
        for (auto& [label, cache] : m.heatmaps) heatmap_reset_view(cache);  // a new scene: whole maps
      }
      item_register(p.title);
      if (ImGui::IsItemHovered() && !p.about.empty()) ImGui::SetTooltip("%s", p.about.c_str());
    }
    ImGui::EndMenu();
  }
  item_register("Presets");
  if (ImGui::BeginMenu("View")) {
    bool open = ImGui::BeginMenu("Weights colormap");
    item_register("Weights colormap");
    if (open) {
      if (menu_item("viridis", m.weights_cmap == Colormap::viridis)) m.weights_cmap = Colormap::viridis;
      if (menu_item("cividis (colour-blind safe)", m.weights_cmap == Colormap::cividis))
        m.weights_cmap = Colormap::cividis;
      ImGui::EndMenu();
    }
    decimals_menu(m);
    ImGui::EndMenu();
  }
  item_register("View");
  help_menu(m);
  ImGui::Separator();
  ImGui::TextDisabled("attnviz: every stage of multi-head attention");
  ImGui::EndMainMenuBar();
}

// Windows are addressable too ("Inspector window"): tests drag them by the title bar.
static void register_window(const char* label) {
  ImVec2 p = ImGui::GetWindowPos(), s = ImGui::GetWindowSize();
  item_registry().add(label, p, ImVec2(p.x + s.x, p.y + s.y));
}

// The marks a map may carry: masked (−inf, hatched), dropped by dropout (an ×, the
// cell holds 0), a computed 0 (the colormap's low end, no mark), NaN and +inf.
static void legend(const AppModel& m) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  enum Mark { plain, hatch, cross };
  auto swatch = [&](ImU32 col, const char* text, Mark mark, const char* tip) {
    ImVec2 p = ImGui::GetCursorScreenPos();
    float s = ImGui::GetTextLineHeight();
    dl->AddRectFilled(p, ImVec2(p.x + s, p.y + s), col);
    if (mark == hatch)
      for (float k = 0; k < 2 * s; k += 4) {
        ImVec2 a(p.x + std::max(0.0f, k - s), p.y + std::min(k, s));
        ImVec2 b(p.x + std::min(k, s), p.y + std::max(0.0f, k - s));
        dl->AddLine(a, b, kColourMaskedHatch);
      }
    if (mark == cross) {
      const ImU32 c = IM_COL32(0xF0, 0x8C, 0x2E, 0xFF);
      dl->AddLine(ImVec2(p.x + 3, p.y + 3), ImVec2(p.x + s - 3, p.y + s - 3), c, 2.0f);
      dl->AddLine(ImVec2(p.x + s - 3, p.y + 3), ImVec2(p.x + 3, p.y + s - 3), c, 2.0f);
    }
    ImGui::Dummy(ImVec2(s, s));
    ImGui::SameLine();
    ImGui::TextUnformatted(text);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
    ImGui::SameLine(0, 18);
  };
  swatch(kColourMasked, "masked (\xE2\x88\x92inf)", hatch,
         "masked_fill put \xE2\x88\x92inf here (causal or padding mask); softmax turns it into 0.");
  swatch(colormap_at(m.weights_cmap, 0.0f), "dropped (0)", cross,
         "Dropout (training) zeroed this weight; the kept ones are scaled by 1/(1\xE2\x88\x92p).");
  swatch(colormap_at(m.weights_cmap, 0.0f), "computed 0", plain,
         "A weight that is 0 because of the numbers (e.g. a masked score after softmax): no mark.");
  swatch(kColourNaN, "NaN", plain, "Not a number, e.g. softmax of a row that is all \xE2\x88\x92inf.");
  swatch(kColourPosInf, "+inf", plain, "Positive infinity.");
  ImGui::NewLine();
}

void draw_panels(AppModel& m) {
  m.hover = m.hover_next;  // hovered during the last frame: what views highlight now
  m.hover_next = CellRef{};
  menu_bar(m);

  // Below the menu bar (WorkPos only accounts for it from the second frame on).
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float menu_h = ImGui::GetFrameHeight();
  const ImVec2 p0(vp->Pos.x, vp->Pos.y + menu_h), sz(vp->Size.x, vp->Size.y - menu_h);
  const float side = std::clamp(sz.x * 0.24f, 280.0f, 360.0f);
  const float params_h = sz.y * 0.58f;

  ImGui::SetNextWindowPos(p0, ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(side, params_h), ImGuiCond_FirstUseEver);
  if (ImGui::Begin("Parameters")) parameters_panel(m);
  register_window("Parameters window");
  ImGui::End();

  ImGui::SetNextWindowPos(ImVec2(p0.x, p0.y + params_h), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(side, sz.y - params_h), ImGuiCond_FirstUseEver);
  if (ImGui::Begin("Inspector")) inspector_panel(m);
  register_window("Inspector window");
  ImGui::End();

  ImGui::SetNextWindowPos(ImVec2(p0.x + side, p0.y), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(sz.x - side, sz.y), ImGuiCond_FirstUseEver);
  if (ImGui::Begin("Views")) {
    legend(m);
    if (ImGui::BeginTabBar("main tabs")) {
      struct Tab { const char* name; MainTab id; void (*draw)(AppModel&); };
      static const Tab tabs[] = {{"Stages", MainTab::stages, stages_tab},
                                 {"Q K V & output", MainTab::data, data_tab},
                                 {"Compare heads", MainTab::compare, compare_tab},
                                 {"Lines", MainTab::lines, lines_tab},
                                 {"Edit values", MainTab::values, values_tab}};
      for (const Tab& t : tabs) {
        // A restored view (share link, paste) selects its tab; meanwhile the bar's old one must not win.
        bool restore = m.view_restoring > 0 && m.tab == t.id;
        bool open = ImGui::BeginTabItem(t.name, nullptr, restore ? ImGuiTabItemFlags_SetSelected : 0);
        item_register(t.name);
        if (open) {
          if (m.view_restoring == 0) m.tab = t.id;
          ImGui::BeginChild("tab body");
          t.draw(m);
          ImGui::EndChild();
          ImGui::EndTabItem();
        }
      }
      ImGui::EndTabBar();
    }
  }
  register_window("Views window");
  ImGui::End();

  help_overlay(m);
  cell_keys(m);
  register_nav_focus();
}

}  // namespace attnviz::ui
