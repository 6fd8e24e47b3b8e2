// main_web.cpp: the browser build. Emscripten drives the frame loop from
// requestAnimationFrame; this file also exports the C side of the test API that
// web/site/attnviz-glue.js wraps as window.attnviz (docs/test-api.md).
#include <emscripten.h>
#include <emscripten/html5.h>
#include <SDL.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "app/app.h"

#include <nlohmann/json.hpp>
#include "attnviz/parallel.h"
#include "imgui.h"
#include "imgui_internal.h"  // GImGui->InputEventsQueue: input not yet consumed, for frameStats
#include "platform/runner.h"
#include "platform/web_share.h"

using attnviz::platform::Runner;

namespace attnviz::platform {  // web_export.cpp: downloads, the file picker, imports
void web_export_init(ui::App* app);
void web_export_after_frame(Runner& r);
}  // namespace attnviz::platform

static Runner g_runner;
static attnviz::ui::App* g_app = nullptr;
static bool g_fonts_announced = false;

// Tells the page about progress: after each frame, whether fonts are in place.
EM_JS(void, js_after_frame, (double frames, int fonts_ready), {
  if (Module.attnvizAfterFrame) Module.attnvizAfterFrame(frames, fonts_ready !== 0);
});

// Window layout survives reloads: the page keeps ImGui's settings (attnviz-glue.js: in
// localStorage; an embedded view keeps them for itself and writes no storage of the page).
EM_JS(char*, js_layout_load, (), {
  const s = Module.attnvizLayoutLoad ? Module.attnvizLayoutLoad() : null;
  if (!s) return 0;
  const n = lengthBytesUTF8(s) + 1;
  const p = _malloc(n);
  stringToUTF8(s, p, n);
  return p;
});
// The CJK font (4 MB) is fetched only when a token needs it.
EM_JS(void, js_request_cjk_font, (), {
  if (Module.attnvizLoadFont) Module.attnvizLoadFont(2, 'assets/fonts/DroidSansFallbackFull.ttf');
});
EM_JS(void, js_layout_save, (const char* text), {
  if (Module.attnvizLayoutSave) Module.attnvizLayoutSave(UTF8ToString(text));
});
// The learner's progress through the lessons survives reloads the same way (the page:
// localStorage 'attnviz.lessons'; lesson_run.h has its text).
EM_JS(char*, js_lessons_load, (), {
  const s = Module.attnvizLessonsLoad ? Module.attnvizLessonsLoad() : null;
  if (!s) return 0;
  const n = lengthBytesUTF8(s) + 1;
  const p = _malloc(n);
  stringToUTF8(s, p, n);
  return p;
});
EM_JS(void, js_lessons_save, (const char* text), {
  if (Module.attnvizLessonsSave) Module.attnvizLessonsSave(UTF8ToString(text));
});
static uint64_t g_lessons_saved = 0;

// Which elements SDL listens on, before it starts: "#canvas" is this module's canvas
// (Module.canvas, not the document's element of that id: several embedded views share a
// page), and keys come from Module.attnvizKeyTarget when the page gives one (an embedded
// view's box, so only the view that has focus gets them), else from the window. Returns 1
// when there is a key target. Emscripten's event functions look the names up in
// specialHTMLTargets before the document.
EM_JS(int, js_bind_targets, (), {
  specialHTMLTargets['#canvas'] = Module.canvas;
  if (!Module.attnvizKeyTarget) return 0;
  specialHTMLTargets['#attnviz-keys'] = Module.attnvizKeyTarget;
  return 1;
});
// An embedded view: no window title (SDL would set the page's document.title).
EM_JS(int, js_embedded, (), { return Module.attnvizEmbedded ? 1 : 0; });

// The language the page chose (attnviz-lang.js: ?lang=, remembered, the browser's), and
// the page told when the app's language changes (<html lang>, remembered).
EM_JS(char*, js_initial_language, (), {
  const code = Module.attnvizLanguage ? Module.attnvizLanguage() : 'en';
  const n = lengthBytesUTF8(code) + 1;
  const p = _malloc(n);
  stringToUTF8(code, p, n);
  return p;
});
EM_JS(void, js_language_changed, (const char* code), {
  if (Module.attnvizLanguageChanged) Module.attnvizLanguageChanged(UTF8ToString(code));
});
static void follow_language() {
  static std::string told;
  std::string now = g_app->language();
  if (now == told) return;
  told = now;
  js_language_changed(told.c_str());
}

// Screen readers: the focused cell's value (or the last rejected edit) goes into
// the page's aria-live region, only when the sentence changes.
EM_JS(void, js_set_live, (const char* text), {
  if (Module.attnvizLive) Module.attnvizLive(UTF8ToString(text));
});
static void update_live_region() {
  static std::string said, now;
  if (!g_app->live_text(now)) now.clear();
  if (now == said) return;
  said = now;
  js_set_live(said.c_str());
}

void attnviz::platform::web_wake() { g_runner.wake(); }

// Called at every animation frame of the browser; draws only when the pacer says so
// (frame_pacer.h: input, a change, a timer, or the heartbeat once a second). The loop is
// not paused while it rests: resumed, its callback would run after the animation-frame
// callbacks a script registered meanwhile, which would then see a change made outside a
// frame (an imported state) before the frame that follows it (the import's notice).
static void main_loop() {
  if (!g_runner.should_draw()) return;
  g_runner.frame();
  attnviz::platform::web_share_after_frame();  // hash, saved session, text focus
  attnviz::platform::web_export_after_frame(g_runner);  // PNG/CSV/JSON/state files asked for this frame
  update_live_region();
  follow_language();
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantSaveIniSettings) {
    js_layout_save(ImGui::SaveIniSettingsToMemory());
    io.WantSaveIniSettings = false;
  }
  if (g_app->lesson_progress_version() != g_lessons_saved) {
    g_lessons_saved = g_app->lesson_progress_version();
    js_lessons_save(g_app->lesson_progress().c_str());
  }
  js_after_frame((double)g_runner.frames, g_fonts_announced && !g_runner.fonts_dirty);
}

extern "C" {

// Font bytes fetched by the page (kind 0: regular, 1: mono, 2: CJK). Copied; the caller frees.
EMSCRIPTEN_KEEPALIVE void attnviz_set_font_data(int kind, const uint8_t* bytes, int len) {
  std::vector<uint8_t> data(bytes, bytes + (len > 0 ? len : 0));
  if (kind == 0) g_runner.fonts.regular = std::move(data);
  if (kind == 1) g_runner.fonts.mono = std::move(data);
  if (kind == 2) g_runner.fonts.cjk = std::move(data);
  g_runner.fonts_dirty = true;
  g_fonts_announced = true;
  g_runner.wake();
}

// The session state as JSON text. The pointer stays valid until the next call.
EMSCRIPTEN_KEEPALIVE const char* attnviz_get_state() {
  static std::string s;
  s = g_app->state_json();
  return s.c_str();
}

// Replaces the session state; returns {"ok": bool, "error": "...", "field": "..."}.
// On error the app keeps its last valid state.
EMSCRIPTEN_KEEPALIVE const char* attnviz_set_state(const char* json) {
  static std::string s;
  s = g_app->set_state_text(json ? json : "").dump();
  g_runner.wake();
  return s.c_str();
}

// A matrix as shown: dims_out[0] = rows, dims_out[1] = cols; returns the row-major
// float32 data (valid until the state changes), or null for an unknown name/head.
EMSCRIPTEN_KEEPALIVE const float* attnviz_matrix(const char* name, int head, int* dims_out) {
  attnviz::ui::MatrixView m = g_app->matrix(name ? name : "", head);
  dims_out[0] = m.rows;
  dims_out[1] = m.cols;
  return m.data;
}

// Row i of a stage of a head, computed on demand (Pipeline::row: no (S × S) matrix is
// read or built): *len_out = its length; the data stay valid until the next call. Null
// (length 0) when there is no such row.
EMSCRIPTEN_KEEPALIVE const float* attnviz_row(const char* name, int head, int i, int* len_out) {
  static std::vector<float> row;
  const bool ok = g_app->row(name ? name : "", head, i, &row);
  *len_out = ok ? static_cast<int>(row.size()) : 0;
  return ok ? row.data() : nullptr;
}

// Bytes the engine's pipelines hold (memoryStats' pipeline_bytes).
EMSCRIPTEN_KEEPALIVE double attnviz_pipeline_bytes() { return static_cast<double>(g_app->pipeline_bytes()); }

// The lessons (docs/lessons.md): [{id, title, steps}]; the open one {id, step, steps,
// task, done}; opening one (id "" closes) → {ok, error}. Valid until the next call.
EMSCRIPTEN_KEEPALIVE const char* attnviz_lessons() {
  static std::string s;
  s = g_app->lessons().dump();
  return s.c_str();
}
EMSCRIPTEN_KEEPALIVE const char* attnviz_lesson() {
  static std::string s;
  s = g_app->lesson().dump();
  return s.c_str();
}
EMSCRIPTEN_KEEPALIVE const char* attnviz_start_lesson(const char* id, int step) {
  static std::string s;
  s = g_app->start_lesson(id ? id : "", step).dump();
  g_runner.wake();
  return s.c_str();
}

// 1 when the engine holds that stage up to date, 0 when it is stale (no panel
// read it lately: it is computed when first read) or unknown.
EMSCRIPTEN_KEEPALIVE int attnviz_stage_current(const char* name, int head) {
  return g_app->stage_current(name ? name : "", head) ? 1 : 0;
}

// The rectangle (CSS pixels) of the ImGui item with that label as last drawn:
// out[0..3] = x, y, w, h. Returns 0 when no such item was drawn.
EMSCRIPTEN_KEEPALIVE int attnviz_item_rect(const char* label, float* out) {
  return g_app->item_rect(label ? label : "", out) ? 1 : 0;
}

// The interface's language, "en" or "zh-CN" (valid until the next call).
EMSCRIPTEN_KEEPALIVE const char* attnviz_language() {
  static std::string s;
  s = g_app->language();
  return s.c_str();
}

// Sets the interface's language from a tag ("zh-CN", "zh", "en"); {"ok", "error"}.
EMSCRIPTEN_KEEPALIVE const char* attnviz_set_language(const char* code) {
  static std::string s;
  s = g_app->set_language(code ? code : "").dump();
  g_runner.wake();
  return s.c_str();
}

// The canvas's CSS size changed without the window's (an embedded view's box followed its
// container; attnviz-glue.js watches it): the drawing buffer follows, as SDL does on a
// window resize.
EMSCRIPTEN_KEEPALIVE void attnviz_canvas_resized() {
  double w = 0, h = 0;
  if (!g_runner.window || emscripten_get_element_css_size("#canvas", &w, &h) != EMSCRIPTEN_RESULT_SUCCESS) return;
  if (w >= 1 && h >= 1) SDL_SetWindowSize(g_runner.window, (int)w, (int)h);
  g_runner.wake();
}

// Draw at least n more frames from now (window.attnviz.requestFrames; the harness asks
// before it counts frames, since a resting page draws one a second).
EMSCRIPTEN_KEEPALIVE void attnviz_request_frames(int n) { g_runner.wake(n > 0 ? n : 1); }

// {"frames", "frame_ms_avg", "frame_ms_max", "engine_ms_last", "fonts_pending", "input_pending",
// "threads", "parallel_jobs", "idle", "skipped"} as JSON text (docs/test-api.md).
EMSCRIPTEN_KEEPALIVE const char* attnviz_frame_stats() {
  static std::string s;
  char buf[340];
  double avg = g_runner.frames ? g_runner.frame_ms_sum / (double)g_runner.frames : 0.0;
  // Input the app has not acted on yet: browser events SDL holds for the next frame,
  // plus events ImGui trickles out one change per frame (a key's down and up, or a
  // key then text, that arrived within one frame take a frame each).
  const int input_pending = SDL_PeepEvents(nullptr, 0, SDL_PEEKEVENT, SDL_FIRSTEVENT, SDL_LASTEVENT) +
                            GImGui->InputEventsQueue.Size;
  std::snprintf(buf, sizeof buf,
                "{\"frames\":%llu,\"frame_ms_avg\":%.4f,\"frame_ms_max\":%.4f,\"engine_ms_last\":%.4f,"
                "\"fonts_pending\":%s,\"input_pending\":%d,\"threads\":%d,\"parallel_jobs\":%llu,"
                "\"idle\":%s,\"skipped\":%llu}",
                (unsigned long long)g_runner.frames, avg, g_runner.frame_ms_max, g_app->engine_ms_last(),
                g_runner.fonts_pending() ? "true" : "false", input_pending, attnviz::threads(),
                (unsigned long long)attnviz::parallel_jobs(), g_runner.pacer.resting() ? "true" : "false",
                (unsigned long long)g_runner.pacer.skipped());
  s = buf;
  return s.c_str();
}

}  // extern "C"

int main(int, char**) {
#if defined(__EMSCRIPTEN_PTHREADS__)
  // attnviz-mt: the engine's heads and products on the pool the page sized (its workers
  // plus this thread); the numbers are the same bits as with one thread.
  attnviz::set_threads(EM_ASM_INT({ return (Module.attnvizPoolSize | 0) + 1; }));
#endif
  if (js_bind_targets()) SDL_SetHint(SDL_HINT_EMSCRIPTEN_KEYBOARD_ELEMENT, "#attnviz-keys");
  if (!g_runner.init(js_embedded() ? nullptr : "attnviz", 1280, 800)) {
    EM_ASM({ if (Module.attnvizNoGraphics) Module.attnvizNoGraphics(); });
    return 1;
  }
  ImGui::GetIO().IniFilename = nullptr;  // saved to localStorage instead, see main_loop
  if (char* layout = js_layout_load()) {
    ImGui::LoadIniSettingsFromMemory(layout);
    free(layout);
  }
  static attnviz::platform::GlTextureHost& host = g_runner.textures;
  g_app = new attnviz::ui::App(&host);
  g_runner.app = g_app;
  if (char* code = js_initial_language()) {  // before the first frame: it opens in that language
    g_app->set_language(code);
    free(code);
  }
  if (char* progress = js_lessons_load()) {
    g_app->load_lesson_progress(progress);
    free(progress);
  }
  g_lessons_saved = g_app->lesson_progress_version();
  attnviz::platform::web_share_init(g_app);  // clipboard, IME, restores the session
  attnviz::platform::web_export_init(g_app);
  g_runner.request_cjk = [] { js_request_cjk_font(); };
  emscripten_set_main_loop(main_loop, 0, false);
  return 0;
}
