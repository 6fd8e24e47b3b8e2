// item_registry.h: where labelled items were drawn, for tests and automation.
// Panels call item_register("weights h0") right after drawing an item; the
// browser's window.attnviz.itemRect(label) reads it. Rects are in ImGui's logical
// coordinates, which are CSS pixels in the browser.
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>

#include "app/text/i18n.h"
#include "imgui.h"

namespace attnviz::ui {

struct ItemRect {
  ImVec2 min, max;
  int frame = -1;  // ImGui frame count when last drawn
};

class ItemRegistry {
 public:
  // Records the last submitted ImGui item (GetItemRectMin/Max) under `label`,
  // clipped to the visible part of its window so a click at its centre lands on it.
  void add_last_item(std::string_view label);
  // Records an explicit rectangle.
  void add(std::string_view label, ImVec2 min, ImVec2 max);
  // The item as drawn in the most recent frame that drew it, if that frame was the
  // last or the one before (items not drawn any more are forgotten).
  const ItemRect* find(std::string_view label) const;

 private:
  std::unordered_map<std::string, ItemRect> rects_;
  mutable std::string key_;  // lookup key, reused (see add)
};

ItemRegistry& item_registry();

// Shorthand for item_registry().add_last_item(label).
inline void item_register(std::string_view label) { item_registry().add_last_item(label); }

// ImGui::MenuItem showing `key` in the interface's language (i18n.h L), registered
// under the English key whatever the language.
inline bool menu_item(const char* key, bool selected = false, bool enabled = true) {
  bool r = ImGui::MenuItem(L(key), nullptr, selected, enabled);
  item_register(key);
  return r;
}

}  // namespace attnviz::ui
