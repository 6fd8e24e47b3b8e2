// share.h: the session as one JSON document (what a share link, the saved session
// and "Paste state" carry), the sentences the app shows about sharing, and the hooks
// the platform gives the Edit menu.
//
// Share payload, format 1 (docs/ui.md "Sharing"):
//   {"v": 1,
//    "state": <session state, docs/engine.md>,
//    "view": {"tab": "stages"|"data"|"compare"|"lines"|"values", "head": int, "head_b": int,
//             "compare_stage": "scores"|"scaled"|"masked"|"weights"|"dropped"|"context",
//             "cmap": "viridis"|"cividis", "decimals": 0|2|3|4, "torch": bool,
//             "split": "words"|"whitespace", "lang": "en"|"zh-CN" (the interface's language),
//             "pinned": null | {"stage": str, "head": int, "row": int, "col": int}}}
// A link is "s1." + base64url(deflate-raw(UTF-8 of that JSON)); "1" is the link format.
// Pasted text may also be a bare session state (no "v"): it replaces the state only.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>  // the full header only where JSON is built or read (.cpp)

#include "app/model/view.h"

namespace attnviz::ui {

struct AppModel;

constexpr int kShareFormat = 1;          // the "v" this build writes and reads
constexpr int kShareMaxDepth = 64;       // JSON nesting accepted (a state needs 4)
// The longest link the page puts in the address bar (attnviz-share.js MAX_HASH_WRITE).
constexpr double kShareMaxAddressChars = 1 << 20;
// Characters of link a state's explicit float32 value takes, on average: its shortest
// decimal (about 11 characters of JSON) deflated to about 4.7 bytes, in base64url
// (measured on torch.rand and torch.randn values: 6.1 to 6.5). With it the page
// decides that a link would be too long before it builds any text (session_link_estimate).
constexpr double kShareLinkCharsPerValue = 6.3;

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

// What the Edit menu asks of the platform (set by main_web.cpp / main_desktop.cpp).
struct ShareHooks {
  std::function<void()> copy_link;    // put the share link on the system clipboard
  std::function<void()> paste_state;  // read the system clipboard, then App::paste_text()
  // Whether Ctrl+V outside a text field should call paste_state. The browser says no:
  // the page's `paste` event delivers the text itself (attnviz-share.js).
  bool ctrl_v_reads_clipboard = true;
};

// {"v", "state", "view"} of the current session, built when a link, a file or the
// test API asks (never on a frame's or an edit's path).
nlohmann::json session_to_json(const AppModel& m);
// The view selections as a link carries them: m.view with i18n.h's language, and
// decode_t only on the Decode tab (-1 elsewhere).
View view_of(const AppModel& m);
nlohmann::json view_to_json(const View& v);
// How many views this process has written as JSON (view_to_json): with
// attnviz::state_json_conversions(), what tests count to show a frame builds none.
uint64_t view_json_conversions();

// Result of applying a payload: ok, or a sentence (and the field it concerns).
struct ShareResult {
  bool ok = false;
  std::string error;
  std::string field;
};

// Applies text holding a share payload {"v", "state", "view"} (or a bare state):
// checks nesting depth, JSON, format version and view types first, then the state
// through the engine (an undoable replace), then the view. On any error nothing
// changes and the sentence says why.
ShareResult session_apply_text(AppModel& m, std::string_view text);

// The Edit menu, its shortcuts and the notice line (menu_edit.cpp); called in the
// main menu bar every frame.
void edit_menu(AppModel& m);
// Shows a sentence under the menu bar (replacing the previous one).
void notify(AppModel& m, std::string text, bool error);
// Seconds after the last frame when the notice line next changes by itself (a notice
// that is not an error goes after 5 s; 0: one not drawn yet); infinity: never.
double notice_ends_in(const AppModel& m);
// About how long a share link of this state would be, from its explicit values alone
// (kShareLinkCharsPerValue each; the rest of a state is a few hundred characters): no
// text is built, so the page can ask after every change.
double session_link_estimate(const AppModel& m);
// A share link of about `chars` characters would be too long for an address: the
// sentence that says so and offers the state as a file, with File → Save state
// (.safetensors) as the notice's button. Nothing is copied.
void notify_link_too_long(AppModel& m, double chars);

}  // namespace attnviz::ui
