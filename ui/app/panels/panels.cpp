// panels.cpp: the frame's layout: menu bar, the Parameters column with the
// Inspector under it, and the main area's tabs (Stages, Q K V & output, Compare
// heads, Lines, Edit values, Decode). The default arrangement is made for the screen at hand, with
// Parameters as tall as its controls need (layout.h); users move and resize
// windows freely, the layout is remembered (platform layer) and fitted back onto
// a smaller screen; View > Reset layout brings the default back.
#include "app/panels/panels.h"
#include "app/panels/menu_edit.h"
#include "app/lessons/panel_lesson.h"

#include <algorithm>

#include "app/model/app_model.h"
#include "app/panels/export.h"
#include "app/widgets/fonts.h"
#include "app/text/i18n.h"
#include "app/panels/help.h"
#include "app/widgets/heatmap_layout.h"
#include "app/widgets/item_registry.h"
#include "app/panels/layout.h"
#include "app/model/presets.h"
#include "imgui.h"
#include "imgui_internal.h"  // ImGui::FindWindowByName: the windows' places, to keep them on screen

namespace attnviz::ui {

bool apply_edit(AppModel& m) { return m.apply(m.draft, Change::edit, ImGui::GetActiveID()); }

void error_line(const AppModel& m, const char* field) {
  if (m.error.empty()) return;
  const std::string& f = m.error_field;
  bool match = *field ? f.rfind(field, 0) == 0 : f.empty();
  if (!match) return;
  ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 138, 122, 255));
  ImGui::TextWrapped("%s", m.error.c_str());
  ImGui::PopStyleColor();
  item_register("error");
}

nlohmann::json default_state() {
  const auto& p = presets();
  if (!p.empty()) return p.front().state;  // App() also takes its decimals
  return nlohmann::json::object();  // the engine's defaults are tutorial 000 too
}

// View → Decimals: how many decimals cells print at most (auto: what fits, up to 4).
static void decimals_menu(AppModel& m) {
  bool open = ImGui::BeginMenu(L("Decimals"));
  if (!open) return;
  static const struct { int n; const char* label; } kChoices[] = {
      {0, N_("auto (what fits, up to 4)")}, {2, "2"}, {3, "3"}, {4, N_("4 (as PyTorch prints)")}};
  for (const auto& c : kChoices)
    if (menu_item(c.label, m.view.decimals == c.n)) m.view.decimals = c.n;
  ImGui::EndMenu();
}

// View → Overview cells: a map of more than 256 tokens draws each cell as a block of
// cells, their maximum (the default: a single strong weight stays visible) or their mean.
static void overview_menu(AppModel& m) {
  bool open = ImGui::BeginMenu(L("Overview cells"));
  item_register("Overview cells");
  if (!open) return;
  if (menu_item("max of each block", !m.view.overview_mean)) m.view.overview_mean = false;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("a long map's cell shows the largest value of its block"));
  if (menu_item("mean of each block", m.view.overview_mean)) m.view.overview_mean = true;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("a long map's cell shows the mean of its block"));
  ImGui::EndMenu();
}

// View → Language: each language named in itself. Items are registered as
// "Language: en" / "Language: zh-CN" (the menu itself as "Language").
static void language_menu(AppModel& m) {
  bool open = ImGui::BeginMenu(L("Language"));
  if (!open) return;
  static const char* const kItems[] = {"Language: en", "Language: zh-CN"};
  for (int i = 0; i < kLangCount; ++i) {
    const Lang l = static_cast<Lang>(i);
    if (ImGui::MenuItem(lang_native_name(l), nullptr, language() == l)) change_language(m, l);
    item_register(kItems[i]);
  }
  ImGui::EndMenu();
}

static void menu_bar(AppModel& m) {
  if (!ImGui::BeginMainMenuBar()) return;
  file_menu(m);  // export.h: Save/Open state, Export window as PNG
  edit_menu(m);  // share.h: Undo, Redo, Copy share link, Paste state
  if (ImGui::BeginMenu(L("Presets"))) {
    // Titles and abouts in other scripts need their glyphs: add them once the menu
    // opens. Both are shown in the interface's language (presets.h), registered in English.
    for (const Preset& p : presets()) {
      bool added = fonts_collect_glyphs(preset_title(p).c_str(), m.glyphs);
      added |= fonts_collect_glyphs(preset_about(p).c_str(), m.glyphs);
      if (added) ++m.glyphs_version;
    }
    for (const Preset& p : presets()) {
      if (ImGui::MenuItem(preset_title(p).c_str())) {
        m.view.pinned = CellRef{};
        if (p.view.is_object()) {  // the state and its view, as a share link brings them
          session_apply_text(m, nlohmann::json{{"v", kShareFormat}, {"state", p.state}, {"view", p.view}}.dump());
        } else {
          m.apply(p.state, Change::replace);
        }
        m.view.decimals = p.decimals;
        for (auto& [label, cache] : m.heatmaps) heatmap_reset_view(cache);  // a new scene: whole maps
      }
      item_register(p.title);
      const std::string& about = preset_about(p);
      if (ImGui::IsItemHovered() && !about.empty() && ImGui::BeginTooltip()) {  // wrapped: some are a paragraph
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 35.0f);
        ImGui::TextUnformatted(about.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
      }
    }
    ImGui::EndMenu();
  }
  item_register("Presets");
  if (ImGui::BeginMenu(L("View"))) {
    bool open = ImGui::BeginMenu(L("Weights colormap"));
    item_register("Weights colormap");
    if (open) {
      if (menu_item("viridis", m.view.weights_cmap == Colormap::viridis)) m.view.weights_cmap = Colormap::viridis;
      if (menu_item("cividis (colour-blind safe)", m.view.weights_cmap == Colormap::cividis))
        m.view.weights_cmap = Colormap::cividis;
      ImGui::EndMenu();
    }
    decimals_menu(m);
    overview_menu(m);
    language_menu(m);
    ImGui::Separator();
    if (menu_item("Reset layout")) request_layout_reset(m);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", tr("put the windows back where they first opened, sized for this window"));
    ImGui::EndMenu();
  }
  item_register("View");
  learn_menu(m);  // lessons (panel_lesson.h)
  help_menu(m);
  ImGui::Separator();
  ImGui::TextDisabled("%s", tr("attnviz: every stage of multi-head attention"));
  ImGui::EndMainMenuBar();
}

// Windows are addressable too ("Inspector window"): tests drag them by the title bar.
// The window ("Views window") and what of its inside shows, scroll bars and title
// bar excluded ("Views window inside"): a map must not sit under a scroll bar.
static void register_window(const char* label) {
  ImVec2 p = ImGui::GetWindowPos(), s = ImGui::GetWindowSize();
  item_registry().add(label, p, ImVec2(p.x + s.x, p.y + s.y));
  const ImRect in = ImGui::GetCurrentWindow()->InnerRect;
  char inside[64];
  std::snprintf(inside, sizeof inside, "%s inside", label);
  item_registry().add(inside, in.Min, in.Max);
}

// The marks a map may carry: masked (−inf, hatched), dropped by dropout (an ×, the
// cell holds 0), a computed 0 (the colormap's low end, no mark), NaN and +inf; and on
// the Decode tab under StreamingLLM's cache, evicted (an empty cell, hatched the other way).
static void legend(const AppModel& m) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  enum Mark { plain, hatch, cross, hatch_back };
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
    if (mark == hatch_back)
      for (float k = 0; k < 2 * s; k += 4) {
        ImVec2 a(p.x + std::max(0.0f, k - s), p.y + s - std::min(k, s));
        ImVec2 b(p.x + std::min(k, s), p.y + s - std::max(0.0f, k - s));
        dl->AddLine(a, b, kColourAbsentHatch);
      }
    if (mark == cross) {
      const ImU32 c = IM_COL32(0xF0, 0x8C, 0x2E, 0xFF);
      dl->AddLine(ImVec2(p.x + 3, p.y + 3), ImVec2(p.x + s - 3, p.y + s - 3), c, 2.0f);
      dl->AddLine(ImVec2(p.x + s - 3, p.y + 3), ImVec2(p.x + 3, p.y + s - 3), c, 2.0f);
    }
    ImGui::Dummy(ImVec2(s, s));
    ImGui::SameLine();
    ImGui::TextUnformatted(tr(text));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(tip));
    ImGui::SameLine(0, 18);
  };
  swatch(kColourMasked, N_("masked (\xE2\x88\x92inf)"), hatch,
         N_("masked_fill put \xE2\x88\x92inf here (causal or padding mask); softmax turns it into 0."));
  swatch(colormap_at(m.view.weights_cmap, 0.0f), N_("dropped (0)"), cross,
         N_("Dropout (training) zeroed this weight; the kept ones are scaled by 1/(1\xE2\x88\x92p)."));
  swatch(colormap_at(m.view.weights_cmap, 0.0f), N_("computed 0"), plain,
         N_("A weight that is 0 because of the numbers (e.g. a masked score after softmax): no mark."));
  swatch(kColourNaN, N_("NaN"), plain, N_("Not a number, e.g. softmax of a row that is all \xE2\x88\x92inf."));
  swatch(kColourPosInf, N_("+inf"), plain, N_("Positive infinity."));
  if (m.view.tab == MainTab::decode && m.engine.has_result() && m.engine.state().kv_cache.streaming()) {
    swatch(kColourAbsent, N_("evicted"), hatch_back,
           N_("StreamingLLM's cache no longer holds this key: drawn empty, it gets weight 0."));
    item_register("legend evicted");
  }
  ImGui::NewLine();
}

// Text as wide as ImGui measures it in the current font (for ellipsize).
static float measure_text(const char* b, const char* e, void*) { return ImGui::CalcTextSize(b, e).x; }

// The layer bar's tooltip for layer l of L: a trained model's residual stream, or the
// captured layer's name and where its input comes from.
static void layer_tooltip(const AppModel& m, int l, int L) {
  if (m.engine.is_model()) {
    ImGui::SetTooltip(tr("Every tab shows layer %d of %d. Its input is the residual stream x%d: the embeddings plus "
                         "the outputs of the layers before it."), l, L, l);
    return;
  }
  const std::string& name = m.engine.layer_name(l);
  ImGui::SetTooltip(tr("Every tab shows layer %d of %d: %s. Its input is what your model handed this attention "
                       "module (captured with a forward hook); its weights are the module's own."),
                    l, L, name.empty() ? "-" : name.c_str());
}

// The layers (a trained model's, attnviz/model.h, or captured ones, State::layers):
// which one every tab shows. One button a layer, the shown one highlighted, on as many
// lines as they need; beside them the model and its training step, or the shown
// captured layer's name (ellipsised when long; whole in the tooltip).
static void layer_bar(AppModel& m) {
  if (!m.engine.layered()) return;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr("Layer"));
  const int L = m.engine.num_layers();
  const float button_w = ImGui::GetFrameHeight() * 1.4f;
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  char label[32];
  for (int l = 0; l < L; ++l) {
    if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + button_w <= right) ImGui::SameLine();
    std::snprintf(label, sizeof label, "%d###layer %d", l, l);
    const bool on = m.view.layer == l;
    if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::Button(label, ImVec2(button_w, 0))) m.view.layer = l;
    if (on) ImGui::PopStyleColor();
    std::snprintf(label, sizeof label, "Layer %d", l);
    item_register(label);
    if (ImGui::IsItemHovered()) layer_tooltip(m, l, L);
  }
  ImGui::SameLine(0, ImGui::GetFontSize());
  if (m.engine.is_model()) {
    const Checkpoint* k = m.engine.stack().checkpoint();
    ImGui::TextDisabled(tr("%s, training step %d"), m.engine.stack().model()->name.c_str(), k ? k->step : 0);
    return;
  }
  const std::string& name = m.engine.layer_name(m.engine.layer());
  if (name.empty()) return;
  char fit[288];
  const float room = std::max(right - ImGui::GetCursorScreenPos().x, ImGui::GetFontSize() * 4);
  ellipsize(name.c_str(), room, measure_text, nullptr, fit, sizeof fit);
  ImGui::TextDisabled("%s", fit);
  item_register("layer name");
  if (ImGui::IsItemHovered()) layer_tooltip(m, m.engine.layer(), L);
}

// --- Window arrangement (layout.h). The default one is made for the screen at
// hand; a saved one that does not fit (a smaller window, a smaller screen) is
// fitted to it, and windows dropped partly off the screen come back inside. What
// that remembers between frames is m.widgets.layout (LayoutState, widgets_state.h).

namespace {

// By ID ("###Parameters"): the title is in the interface's language (i18n.h L).
const char* const kWindowNames[kLayoutCount] = {"###Parameters", "###Inspector", "###Views"};

// The screen below the menu bar (WorkPos only accounts for the bar from the second frame on).
LayoutRect work_area() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float menu_h = ImGui::GetFrameHeight();
  return {vp->Pos.x, vp->Pos.y + menu_h, vp->Size.x, vp->Size.y - menu_h};
}

// The default arrangement for this screen (layout_default), made each frame:
// ImGui uses it for a window it has no saved place for, and View > Reset layout
// for all three.
void default_places(LayoutState& ls, const LayoutRect& work) {
  const float inspector_min = ImGui::GetFrameHeight() * 7;  // title and a few lines of explanation
  layout_default(work, parameters_height_wanted(), inspector_min, ls.def);
}

// Just before Begin(kWindowNames[i]).
void next_window_place(const LayoutState& ls, int i) {
  const ImGuiCond cond = ls.reset ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
  if (ls.reset) ImGui::SetNextWindowCollapsed(false);
  ImGui::SetNextWindowPos(ImVec2(ls.def[i].x, ls.def[i].y), cond);
  ImGui::SetNextWindowSize(ImVec2(ls.def[i].w, ls.def[i].h), cond);
}

// After the windows are drawn: keep them on the screen. A new screen size is
// acted on once it has held for a few frames (a page's first frames, or a window
// being resized, pass through sizes that are not the one to fit to). While a mouse
// button is down a window may be being dragged: it is put back when released.
void keep_windows_on_screen(LayoutState& ls, const LayoutRect& work) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  if (display.x != ls.display.x || display.y != ls.display.y) {
    ls.display = display;
    ls.stable_frames = 0;
    ls.fitted = false;
  }
  if (++ls.stable_frames < 3 || work.w <= 0 || work.h <= 0) return;
  if (ls.fitted && ImGui::IsAnyMouseDown()) return;
  LayoutRect r[kLayoutCount];
  bool collapsed[kLayoutCount];
  for (int i = 0; i < kLayoutCount; ++i) {
    const ImGuiWindow* w = ImGui::FindWindowByName(kWindowNames[i]);
    if (!w) return;
    collapsed[i] = w->Collapsed;  // only its title bar shows: that is what must be on screen
    r[i] = {w->Pos.x, w->Pos.y, w->SizeFull.x, w->Collapsed ? w->Size.y : w->SizeFull.y};
  }
  LayoutRect fitted[kLayoutCount];
  for (int i = 0; i < kLayoutCount; ++i) fitted[i] = ls.fitted ? layout_clamp(r[i], work) : r[i];
  if (!ls.fitted) layout_fit(fitted, kLayoutCount, work);  // a new size: scale the arrangement if it must
  ls.fitted = true;
  for (int i = 0; i < kLayoutCount; ++i) {
    if (fitted[i] == r[i]) continue;
    ImGui::SetWindowPos(kWindowNames[i], ImVec2(fitted[i].x, fitted[i].y));
    if (!collapsed[i]) ImGui::SetWindowSize(kWindowNames[i], ImVec2(fitted[i].w, fitted[i].h));
  }
}

}  // namespace

void request_layout_reset(AppModel& m) { m.widgets.layout.reset = true; }

void tooltip(const char* key) {
  if (!ImGui::IsItemHovered() || !ImGui::BeginTooltip()) return;
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
  ImGui::TextUnformatted(tr(key));
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

float combo_room() { return ImGui::GetFrameHeight() + 2 * ImGui::GetStyle().FramePadding.x; }

void draw_panels(AppModel& m) {
  menu_bar(m);

  LayoutState& ls = m.widgets.layout;
  const LayoutRect work = work_area();
  default_places(ls, work);

  next_window_place(ls, kLayoutParams);
  if (ImGui::Begin(L("Parameters"))) parameters_panel(m);
  register_window("Parameters window");
  ImGui::End();

  next_window_place(ls, kLayoutInspector);
  if (ImGui::Begin(L("Inspector"))) inspector_panel(m);
  register_window("Inspector window");
  ImGui::End();

  next_window_place(ls, kLayoutViews);
  if (ImGui::Begin(L("Views"))) {
    layer_bar(m);
    legend(m);
    if (ImGui::BeginTabBar("main tabs")) {
      struct Tab { const char* name; MainTab id; void (*draw)(AppModel&); };
      static const Tab tabs[] = {{N_("Stages"), MainTab::stages, stages_tab},
                                 {N_("Q K V & output"), MainTab::data, data_tab},
                                 {N_("Compare heads"), MainTab::compare, compare_tab},
                                 {N_("Lines"), MainTab::lines, lines_tab},
                                 {N_("Edit values"), MainTab::values, values_tab},
                                 {N_("Decode"), MainTab::decode, decode_tab},
                                 {N_("Model"), MainTab::model, model_tab}};
      for (const Tab& t : tabs) {
        if (t.id == MainTab::model && !m.engine.is_model()) continue;  // a trained model's own views
        // A restored view (share link, paste) selects its tab; meanwhile the bar's old one must not win.
        bool restore = m.view_restoring > 0 && m.view.tab == t.id;
        bool open = ImGui::BeginTabItem(L(t.name), nullptr, restore ? ImGuiTabItemFlags_SetSelected : 0);
        item_register(t.name);
        if (open) {
          if (m.view_restoring == 0) m.view.tab = t.id;
          // Decode and Model move their step with ←/→: keyboard navigation must not take them too.
          const bool own_arrows = t.id == MainTab::decode || t.id == MainTab::model;
          ImGui::BeginChild("tab body", ImVec2(0, 0), 0, own_arrows ? ImGuiWindowFlags_NoNavInputs : ImGuiWindowFlags_None);
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
  ls.reset = false;
  keep_windows_on_screen(ls, work);
  lesson_window(m);  // beside the views, drawn last: it lights what the step is about

  help_overlay(m);
  cell_keys(m);
  register_nav_focus();
}

}  // namespace attnviz::ui
