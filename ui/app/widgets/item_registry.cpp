// item_registry.cpp: see item_registry.h.
#include "app/widgets/item_registry.h"

#include <cstring>

#include "imgui_internal.h"

namespace attnviz::ui {

ItemRegistry& item_registry() {
  static ItemRegistry r;
  return r;
}

void ItemRegistry::add(std::string_view label, ImVec2 min, ImVec2 max) {
  // Every frame registers every item: look the label up through a reused key so a
  // frame allocates nothing (a new label allocates once, when first seen).
  key_.assign(label.data(), label.size());
  auto it = rects_.find(key_);
  if (it == rects_.end()) it = rects_.emplace(key_, ItemRect{}).first;
  ItemRect& r = it->second;
  r.min = min;
  r.max = max;
  r.frame = ImGui::GetFrameCount();
}

void ItemRegistry::add_last_item(std::string_view label) {
  ImRect rect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  ImGuiWindow* w = ImGui::GetCurrentWindowRead();
  if (w && !reveal_.empty() && label == reveal_) {
    // A map's title and column labels sit above the item: bring them in too, and a
    // margin below it, so no frame's edge sits under the next window's title bar.
    ImRect want(rect.Min.x, rect.Min.y - 3 * ImGui::GetFontSize(), rect.Max.x, rect.Max.y + ImGui::GetFontSize());
    if (!w->InnerClipRect.Contains(want)) ImGui::ScrollToRect(w, want, ImGuiScrollFlags_KeepVisibleEdgeX | ImGuiScrollFlags_KeepVisibleEdgeY);
  }
  if (w) rect.ClipWith(w->ClipRect);
  if (rect.GetWidth() <= 0 || rect.GetHeight() <= 0) return;  // scrolled out of view
  add(label, rect.Min, rect.Max);
}

void item_hooks_enable() {
  if (ImGuiContext* g = ImGui::GetCurrentContext()) g->TestEngineHookItems = true;
}

std::string_view item_name(const char* label) {
  if (label == nullptr) return {};
  if (const char* id = std::strstr(label, "###")) return id + 3;  // L(key): "shown###key"
  if (label[0] == '#' && label[1] == '#') return label + 2;        // a hidden label: "##id"
  const char* hidden = std::strstr(label, "##");
  return hidden ? std::string_view(label, (size_t)(hidden - label)) : std::string_view(label);
}

const ItemRect* ItemRegistry::find(std::string_view label) const {
  key_.assign(label.data(), label.size());
  auto it = rects_.find(key_);
  if (it == rects_.end()) return nullptr;
  // Drawn in this frame or the one before; a frame count ahead of the context's is
  // from an earlier ImGui context (tests make one per case), not drawn in this one.
  const int now = ImGui::GetCurrentContext() ? ImGui::GetFrameCount() : it->second.frame;
  if (it->second.frame < now - 1 || it->second.frame > now) return nullptr;
  return &it->second;
}

}  // namespace attnviz::ui

// [SECTION] ImGui's item hooks --------------------------------------------------------
// ImGui is built with IMGUI_ENABLE_TEST_ENGINE (ui/CMakeLists.txt): every widget that
// takes a label (buttons, checkboxes, sliders, inputs, combos, menus, tab items, tree
// nodes, selectables) reports it here as it is drawn, and the registry keeps it under
// item_name(label). With App setting ImGuiContext::TestEngineHookItems, panels need no
// hand call for such items; the hand calls that remain name what has no label of its
// own (a group, a child region, a heatmap, a line of text) or choose another name.
// Defined here, in a file every binary that draws links, so the static link finds them.

void ImGuiTestEngineHook_ItemInfo(ImGuiContext*, ImGuiID, const char* label, ImGuiItemStatusFlags) {
  const std::string_view name = attnviz::ui::item_name(label);
  if (!name.empty()) attnviz::ui::item_registry().add_last_item(name);
}
void ImGuiTestEngineHook_ItemAdd(ImGuiContext*, ImGuiID, const ImRect&, const ImGuiLastItemData*) {}
void ImGuiTestEngineHook_Log(ImGuiContext*, const char*, ...) {}
const char* ImGuiTestEngine_FindItemDebugLabel(ImGuiContext*, ImGuiID) { return nullptr; }
