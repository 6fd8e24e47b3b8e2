// share.h: the session as one JSON document (what a share link, the saved session
// and "Paste state" carry), how long its link would be, and the hooks the platform
// gives the Edit menu. The sentences the app shows about it: notice.h.
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

#include "app/model/notice.h"
#include "app/model/view.h"

namespace attnviz::ui {

struct AppModel;

constexpr int kShareFormat = 1;          // the "v" this build writes and reads
constexpr int kShareMaxDepth = 64;       // JSON nesting accepted (a state needs 6: state → layers → layer → weights → W_q → row)
// The longest link the page puts in the address bar (attnviz-share.js MAX_HASH_WRITE).
constexpr double kShareMaxAddressChars = 1 << 20;
// Characters of link a state's explicit float32 value takes, on average: its shortest
// decimal (about 11 characters of JSON) deflated to about 4.7 bytes, in base64url
// (measured on torch.rand and torch.randn values: 6.1 to 6.5). With it the page
// decides that a link would be too long before it builds any text (session_link_estimate).
constexpr double kShareLinkCharsPerValue = 6.3;

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

// About how long a share link of this state would be, from its explicit values alone
// (kShareLinkCharsPerValue each; the rest of a state is a few hundred characters): no
// text is built, so the page can ask after every change.
double session_link_estimate(const AppModel& m);
}  // namespace attnviz::ui
