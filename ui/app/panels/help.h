// help.h: the keyboard side of the app, and what it tells screen readers.
//   help_menu      the "Help" menu (Keyboard shortcuts…, About)
//   help_overlay   the shortcuts window (F1 or ? toggles it, Esc closes it)
//   cell_keys      Shift+arrows move the pinned cell (pinning the hovered one first)
//   live_text      one sentence for the page's aria-live region: the focused
//                  cell and its value, or the last rejected edit
#pragma once
#include <string>

namespace attnviz::ui {

struct AppModel;

void help_menu(AppModel& m);
void help_overlay(AppModel& m);
void cell_keys(AppModel& m);
// Registers ImGui's keyboard navigation cursor as the item "keyboard focus" (when shown).
void register_nav_focus();
// Writes the sentence into `out` (reusing its capacity); false when there is nothing to say.
bool live_text(const AppModel& m, std::string& out);

}  // namespace attnviz::ui
