// notice.h: the sentence under the menu bar that says what just happened (a link
// copied, a paste refused and why, a file saved). The Edit menu draws it
// (menu_edit.cpp, notice_line); anything may set it.
#pragma once
#include <string>

namespace attnviz::ui {

struct AppModel;

constexpr double kNoticeSeconds = 5.0;  // how long a notice that is not an error stays

// What a notice's button does (none: only Dismiss).
enum class NoticeAction { none, save_safetensors };

// A sentence for the user about sharing, the clipboard or undo, shown under the
// menu bar. Errors stay until dismissed or replaced; other notices fade.
struct Notice {
  std::string text;
  bool error = false;
  double shown_at = -1.0;  // ImGui time when first drawn (-1: not yet)
  NoticeAction action = NoticeAction::none;  // a button beside Dismiss (notify() clears it)
};

// Shows a sentence under the menu bar (replacing the previous one).
void notify(AppModel& m, std::string text, bool error);
// Seconds after the last frame when the notice line next changes by itself (a notice
// that is not an error goes after 5 s; 0: one not drawn yet); infinity: never.
double notice_ends_in(const AppModel& m);

// A share link of about `chars` characters would be too long for an address: the
// sentence that says so and offers the state as a file, with File → Save state
// (.safetensors) as the notice's button. Nothing is copied.
void notify_link_too_long(AppModel& m, double chars);

}  // namespace attnviz::ui
