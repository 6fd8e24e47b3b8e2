// item_registry.h: where labelled items were drawn, for tests and automation.
// Every ImGui widget with a label registers itself under its name (item_name: the
// stable English key of L(key), through ImGui's item hooks, item_registry.cpp);
// panels call item_register("weights h0") right after drawing what has no label of
// its own or needs another name. The browser's window.attnviz.itemRect(label) reads it. Rects are in ImGui's logical
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
  // While set, the item with this label is scrolled into view in the window that holds
  // it (and that window's parents) as it is drawn: a lesson's step brings its map there
  // (panel_lesson.cpp). Empty: none.
  void reveal(std::string_view label) { reveal_.assign(label.data(), label.size()); }

 private:
  std::string reveal_;
  std::unordered_map<std::string, ItemRect> rects_;
  mutable std::string key_;  // lookup key, reused (see add)
};

ItemRegistry& item_registry();

// The name a widget's label registers under: the key after "###" (L(key) gives
// "shown###key"), the id of a hidden "##id" label, else the shown text before "##".
std::string_view item_name(const char* label);

// Lets ImGui report every labelled widget to the registry (ImGuiContext's
// TestEngineHookItems); the App calls it once per frame, before the panels.
void item_hooks_enable();

// Shorthand for item_registry().add_last_item(label).
inline void item_register(std::string_view label) { item_registry().add_last_item(label); }

// ImGui::MenuItem showing `key` in the interface's language (i18n.h L), registered
// under the English key whatever the language.
// (Registered by the item hooks: L(key) is "shown###key".)
inline bool menu_item(const char* key, bool selected = false, bool enabled = true) {
  return ImGui::MenuItem(L(key), nullptr, selected, enabled);
}

}  // namespace attnviz::ui
