// item_registry.cpp: see item_registry.h.
#include "app/widgets/item_registry.h"

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
  if (ImGuiWindow* w = ImGui::GetCurrentWindowRead()) rect.ClipWith(w->ClipRect);
  if (rect.GetWidth() <= 0 || rect.GetHeight() <= 0) return;  // scrolled out of view
  add(label, rect.Min, rect.Max);
}

const ItemRect* ItemRegistry::find(std::string_view label) const {
  key_.assign(label.data(), label.size());
  auto it = rects_.find(key_);
  if (it == rects_.end()) return nullptr;
  if (ImGui::GetCurrentContext() && it->second.frame < ImGui::GetFrameCount() - 1) return nullptr;
  return &it->second;
}

}  // namespace attnviz::ui
