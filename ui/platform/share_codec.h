// share_codec.h: share links on the desktop (the browser does the same in
// web/site/attnviz-share.js with CompressionStream). A link is
//   "s1." + base64url(deflate-raw(UTF-8 JSON of {"v": 1, "state", "view"}))
// given alone, after a '#', or as a whole URL. zlib (Debian's zlib1g) does the
// raw deflate; the inflated size is capped so a small hostile link cannot expand
// into gigabytes.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace attnviz::ui {
class App;
}

namespace attnviz::platform {

constexpr int kLinkFormat = 1;
constexpr size_t kLinkMaxChars = size_t{8} << 20;    // link data accepted
constexpr size_t kLinkMaxInflated = size_t{16} << 20; // bytes a link may expand to

struct LinkDecoded {
  bool ok = false;
  std::string text;   // the payload's JSON text, when ok
  std::string error;  // else why, as the end of a sentence: "it is damaged: ..."
};

// A link (URL, "#s1.…" or "s1.…") → its JSON text, or why not.
LinkDecoded share_link_decode(std::string_view link);
// JSON text → "s1.…" (no '#').
std::string share_link_encode(std::string_view json_text);

// Opens a link in the app (undoable). Returns "" or the full sentence saying why not
// ("This link could not be opened: ...").
std::string share_open_link(ui::App& app, std::string_view link);

// The desktop's Edit menu hooks: Copy share link puts "#s1.…" on SDL's clipboard;
// Paste state (and Ctrl+V outside a text field) reads a link or a state JSON from it.
void desktop_share_hooks(ui::App& app);

// File → Open weights… on the desktop: zlib inflates deflated .npz members
// (desktop_weights.cpp).
void desktop_weights_hooks();

}  // namespace attnviz::platform
