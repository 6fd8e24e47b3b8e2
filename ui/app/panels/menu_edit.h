// menu_edit.h: the Edit menu (Undo, Redo, Copy share link, Paste state, Copy as
// PyTorch), its keyboard shortcuts and the notice line under the menu bar (notice.h).
#pragma once

namespace attnviz::ui {

struct AppModel;

// The Edit menu, its shortcuts and the notice line ; called in the
// main menu bar every frame.
void edit_menu(AppModel& m);

}  // namespace attnviz::ui
