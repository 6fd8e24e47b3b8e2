// web_share.cpp: see web_share.h. The C half of the page's share API: exported
// functions the page calls (attnviz-share.js) and EM_JS calls into the page.
//
//   clipboard  ImGui → navigator.clipboard.writeText (the click that copies runs in a
//              requestAnimationFrame right after the user's gesture, which still counts);
//              page `paste` event → the text ImGui's paste reads, then Ctrl+V to ImGui
//   IME        ImGui's text cursor → a hidden <textarea> placed there; what an input
//              method (or a keyboard layout beyond SDL's keypress) commits comes back
//              through attnviz_text_input
#include <emscripten.h>

#include <cstring>
#include <string>

#include <SDL.h>

#include "app/app.h"

#include <nlohmann/json.hpp>
#include "imgui.h"
#include "platform/web_share.h"

namespace {

attnviz::ui::App* g_app = nullptr;
std::string g_clipboard;  // the text ImGui pastes: the last system clipboard text seen or written
bool g_wants_text = false;

}  // namespace

EM_JS(void, js_clipboard_write, (const char* text), {
  if (Module.attnvizShare) Module.attnvizShare.clipboardWrite(UTF8ToString(text));
});
EM_JS(void, js_copy_link, (), {
  if (Module.attnvizShare) Module.attnvizShare.copyLink();
});
EM_JS(void, js_paste_state, (), {
  if (Module.attnvizShare) Module.attnvizShare.pasteFromClipboard();
});
EM_JS(void, js_share_start, (), {
  if (Module.attnvizShare) Module.attnvizShare.start();
});
EM_JS(void, js_share_frame, (double serial, int wants_text), {
  if (Module.attnvizShare) Module.attnvizShare.afterFrame(serial, wants_text !== 0);
});
EM_JS(void, js_ime_rect, (int visible, float x, float y, float h), {
  if (Module.attnvizShare) Module.attnvizShare.imeRect(visible !== 0, x, y, h);
});

static void set_clipboard(void*, const char* text) {
  g_clipboard = text ? text : "";
  js_clipboard_write(g_clipboard.c_str());
}
static const char* get_clipboard(void*) { return g_clipboard.c_str(); }
static void set_ime(ImGuiViewport*, ImGuiPlatformImeData* d) {
  js_ime_rect(d->WantVisible ? 1 : 0, d->InputPos.x, d->InputPos.y, d->InputLineHeight);
}

namespace attnviz::platform {

void web_share_init(ui::App* app) {
  g_app = app;
  ImGuiIO& io = ImGui::GetIO();
  io.SetClipboardTextFn = set_clipboard;
  io.GetClipboardTextFn = get_clipboard;
  io.SetPlatformImeDataFn = set_ime;
  ui::ShareHooks& h = app->share_hooks();
  h.copy_link = [] { js_copy_link(); };
  h.paste_state = [] { js_paste_state(); };
  h.ctrl_v_reads_clipboard = false;  // the page's paste event brings Ctrl+V's text
  js_share_start();
}

void web_share_after_frame() {
  g_wants_text = ImGui::GetIO().WantTextInput;
  js_share_frame((double)g_app->session_serial(), g_wants_text ? 1 : 0);
}

}  // namespace attnviz::platform

extern "C" {

// The session {"v", "state", "view"} as JSON text; valid until the next call.
EMSCRIPTEN_KEEPALIVE const char* attnviz_session_get() {
  static std::string s;
  s = g_app->session_json().dump();
  return s.c_str();
}

// Applies a share payload or a bare state (undoable); returns {"ok", "error", "field"}.
EMSCRIPTEN_KEEPALIVE const char* attnviz_session_set(const char* text) {
  static std::string s;
  s = g_app->set_session_text(text ? text : "").dump();
  attnviz::platform::web_wake();
  return s.c_str();
}

// Shows a sentence under the menu bar (error != 0: stays until dismissed).
EMSCRIPTEN_KEEPALIVE void attnviz_notify(const char* text, int error) {
  g_app->notify(text ? text : "", error != 0);
  attnviz::platform::web_wake();
}

// About how many characters a share link of the session would have, from its explicit
// values alone (no text built): the page checks it after every change before making a link.
EMSCRIPTEN_KEEPALIVE double attnviz_session_link_estimate() { return g_app->session_link_estimate(); }

// A link of about `chars` characters would be too long for an address: the sentence that
// says so, with File → Save state (.safetensors) as its button.
EMSCRIPTEN_KEEPALIVE void attnviz_link_too_long(double chars) {
  g_app->link_too_long(chars);
  attnviz::platform::web_wake();  // the sentence is drawn now, not at the next heartbeat
}

// {"text", "error", "action"} of the sentence shown, or null; and {"undo", "redo", "bytes"}.
EMSCRIPTEN_KEEPALIVE const char* attnviz_notice() {
  static std::string s;
  s = g_app->notice().dump();
  return s.c_str();
}
// The page has applied the session it opened with (link or saved): undo starts there.
EMSCRIPTEN_KEEPALIVE void attnviz_history_clear() {
  g_app->history_clear();
  attnviz::platform::web_wake();  // Undo's menu item changes
}
EMSCRIPTEN_KEEPALIVE const char* attnviz_history_info() {
  static std::string s;
  s = g_app->history_info().dump();
  return s.c_str();
}

// Text from the page's paste event, while an ImGui text field has the keyboard: it
// becomes what ImGui's clipboard holds, then ImGui gets Ctrl+V (the page kept the
// keydown from SDL, which would have cancelled the paste event).
EMSCRIPTEN_KEEPALIVE void attnviz_paste_into_text(const char* text) {
  g_clipboard = text ? text : "";
  ImGuiIO& io = ImGui::GetIO();
  const bool ctrl = io.KeyCtrl;
  io.AddKeyEvent(ImGuiMod_Ctrl, true);
  io.AddKeyEvent(ImGuiKey_V, true);
  io.AddKeyEvent(ImGuiKey_V, false);
  io.AddKeyEvent(ImGuiMod_Ctrl, ctrl);
  attnviz::platform::web_wake();
}

// Text committed by an input method or typed on a layout SDL does not turn into text.
// Through SDL's event queue rather than straight into ImGui: keys the browser
// sent just before (Ctrl+A, say) wait in that queue for the next frame, and
// the text must arrive after them, not overtake them. An SDL_TEXTINPUT event
// holds 31 bytes, so longer text goes in pieces cut between characters.
EMSCRIPTEN_KEEPALIVE void attnviz_text_input(const char* utf8) {
  if (!utf8) return;
  const size_t n = std::strlen(utf8);
  SDL_Event ev;
  const size_t room = sizeof ev.text.text - 1;
  for (size_t i = 0; i < n;) {
    size_t len = n - i < room ? n - i : room;
    while (len > 0 && i + len < n && (static_cast<unsigned char>(utf8[i + len]) & 0xC0) == 0x80) --len;
    std::memset(&ev, 0, sizeof ev);
    ev.type = SDL_TEXTINPUT;
    std::memcpy(ev.text.text, utf8 + i, len);
    if (SDL_PushEvent(&ev) != 1) ImGui::GetIO().AddInputCharactersUTF8(ev.text.text);  // queue full or filtered
    i += len;
  }
  attnviz::platform::web_wake();
}

// window.attnviz.heatmapInfo(label): JSON text of what that heatmap drew in the last
// frame ("null" when it was not drawn). The pointer stays valid until the next call.
EMSCRIPTEN_KEEPALIVE const char* attnviz_heatmap_info(const char* label) {
  static std::string s;
  s = g_app->heatmap_info(label ? label : "").dump();
  return s.c_str();
}

// window.attnviz.heatmapsDrawn(): JSON array of the labels of the heatmaps drawn in
// the last frame. The pointer stays valid until the next call.
EMSCRIPTEN_KEEPALIVE const char* attnviz_heatmaps_drawn() {
  static std::string s;
  s = nlohmann::json(g_app->heatmaps_drawn()).dump();
  return s.c_str();
}

// window.attnviz.inspectorText(): what the Inspector drew in the last frame, a line
// per '\n'. The pointer stays valid until the next call.
EMSCRIPTEN_KEEPALIVE const char* attnviz_inspector_text() {
  static std::string s;
  s = g_app->inspector_text();
  return s.c_str();
}

// window.attnviz.headScores(): {"layers": [{"heads": [{"previous_token", "induction",
// "first_token", "duplicate_token"}]}]} (and "probe" for a trained model), as the CLI's head-scores.
EMSCRIPTEN_KEEPALIVE const char* attnviz_head_scores() {
  static std::string s;
  s = g_app->head_scores();
  return s.c_str();
}

}  // extern "C"
