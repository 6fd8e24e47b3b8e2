// web_share.h: the browser side of sharing, the system clipboard and text input
// (web_share.cpp; the page half is web/site/attnviz-share.js).
#pragma once

namespace attnviz::ui {
class App;
}

namespace attnviz::platform {

// After the ImGui context and the app exist: routes ImGui's clipboard to the system
// clipboard, its IME position to the page's text-input helper, gives the Edit menu its
// clipboard hooks, and tells the page to restore the session (link, else saved).
void web_share_init(ui::App* app);
// After every frame: tells the page whether the state or view changed (it then
// updates location.hash and localStorage) and whether a text field wants the keyboard.
void web_share_after_frame();

// Wakes the page's frame loop (main_web.cpp; runner.h, frame_pacer.h): the exported
// functions that change what is shown call it, since a resting page draws once a second.
void web_wake();

}  // namespace attnviz::platform
