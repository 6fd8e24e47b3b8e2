// app.h: the attnviz application: session state, the engine's results, and the
// panels that show them. Platform-free: the browser and desktop main loops
// (ui/platform/) call frame() between ImGui::NewFrame() and ImGui::Render(), and
// tests call it with no backend at all.
//
// The app never computes attention: it hands the state to the engine and draws
// what the engine kept.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>  // the full header only where JSON is built or read (.cpp)

#include "app/widgets/fonts.h"
#include "app/widgets/item_registry.h"
#include "app/model/matrix_view.h"
#include "app/model/share.h"
#include "app/widgets/texture_host.h"

namespace attnviz::ui {

struct AppModel;  // app_model.h: state, engine results, UI selections
struct ExportQueue;  // export.h

class App {
 public:
  explicit App(TextureHost* textures);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Draws every panel for this frame.
  void frame();

  // --- The test API (window.attnviz in the browser; docs/test-api.md)
  std::string state_json() const;
  // Replaces the whole session state. Returns {"ok": bool, "error": str, "field": str}.
  // On error nothing changes: the app keeps the last valid state and results.
  nlohmann::json set_state_text(std::string_view text);
  // A stage's matrix by its name (stage_name: "X", "Q", "weights", ...); empty for
  // an unknown name, or a head a stage does not have.
  MatrixView matrix(std::string_view name, int head) const;
  // Row i of a stage by its name, computed on demand without the head's (S × S)
  // matrices (Pipeline::row); false (out empty) when there is no such row.
  bool row(std::string_view name, int head, int i, std::vector<float>* out) const;
  // Bytes the engine's pipelines hold (every layer's; Pipeline::bytes_held).
  uint64_t pipeline_bytes() const;
  // Whether the engine holds that stage up to date (it computes a stage no
  // panel reads only when one first does; engine_session.h); false for an unknown name.
  bool stage_current(std::string_view name, int head) const;
  // Rectangle (x, y, w, h in logical = CSS pixels) of the labelled item as last drawn.
  bool item_rect(std::string_view label, float out[4]) const;
  double engine_ms_last() const;
  // Seconds after the last frame at which the app wants another one with no input (a
  // notice's end; 0: now, an export's sentence waits to be shown); infinity: never. The
  // platform's loop rests otherwise (ui/platform/frame_pacer.h).
  double next_frame_in() const;
  // What the heatmap with that label ("weights h0", "Q h1", "X") drew in the last
  // frame: geometry, labels and cell texts (heatmap.h, heatmap_info); null when it
  // was not drawn in the last frame or the one before.
  nlohmann::json heatmap_info(std::string_view label) const;
  // The labels of the heatmaps drawn in the last frame, in no particular order.
  std::vector<std::string> heatmaps_drawn() const;
  // The text the Inspector drew in the last frame, a line per '\n' (inspector_text.h).
  std::string inspector_text() const;
  // Each layer's each head's scores (attnviz/model.h, head_scores_report): what
  // `attnviz-cli head-scores` prints for the current state.
  std::string head_scores() const;

  // --- Lessons (docs/lessons.md; the test API's lessons(), lesson(), startLesson()).
  nlohmann::json lessons() const;  // [{id, title, steps}] in the interface's language
  nlohmann::json lesson() const;   // {id, step, steps, task: {kind, target, value, text}, done}
  // Opens lesson `id` at `step` (its state and view); id "" closes it. {"ok", "error"}.
  nlohmann::json start_lesson(std::string_view id, int step);
  // The learner's progress as the platform keeps it (localStorage), and a counter that
  // changes with it; load_lesson_progress takes what was kept (bad text is ignored).
  std::string lesson_progress() const;
  uint64_t lesson_progress_version() const;
  void load_lesson_progress(std::string_view text);

  // --- Import (export.h): a state file's text from the page's picker or a drop, or a
  // path on disk. Refusals return {"ok": false, "error": sentence}, also shown in the app;
  // the state is unchanged. Exports are requests in exports() that the platform drains.
  nlohmann::json import_state(std::string_view name, std::string_view text);
  nlohmann::json import_state_too_large(std::string_view name, double size);
  nlohmann::json import_state_file(const std::string& path);
  // Several paths dropped at once (export.h, import_paths): weights files as one import.
  nlohmann::json import_files(const std::vector<std::string>& paths);
  ExportQueue& exports();  // what the app asks the platform to save or capture, drained after each frame
  // One sentence for screen readers (the page's aria-live region): the focused
  // cell and its value, or why the last edit was not applied. False: nothing to say.
  bool live_text(std::string& out) const;

  // --- Sharing, clipboard and undo (share.h; docs/ui.md "Sharing"). Defined in share.cpp.
  nlohmann::json session_json() const;  // {"v", "state", "view"}: what a share link carries
  // Applies a share payload or a bare state (undoable); {"ok", "error", "field"}.
  nlohmann::json set_session_text(std::string_view text);
  // Changes whenever the state or a view selection (head, tab, pinned cell...) changes.
  uint64_t session_serial();
  void notify(std::string text, bool error);   // a sentence under the menu bar
  nlohmann::json notice() const;               // {"text", "error", "action"} of that sentence
  // About how long a share link would be, from the explicit values alone (share.h): the
  // page asks after every change, before it builds any text.
  double session_link_estimate() const;
  // A link of about `chars` would be too long for an address: says so, offers the file.
  void link_too_long(double chars);
  nlohmann::json history_info() const;         // {"undo", "redo", "bytes"}
  void history_clear();                        // the opening session starts the history
  ShareHooks& share_hooks();                   // the platform's clipboard side

  // --- The interface's language (i18n.h): "en" or "zh-CN". set_language takes any tag
  // lang_from_code reads ("zh", "zh-Hans", "en-GB"); another one returns
  // {"ok": false, "error": sentence}, shown in the app, and the language stays.
  std::string language() const;
  nlohmann::json set_language(std::string_view code);

  // Codepoints beyond the built-in font ranges that the session's text uses
  // (sorted, unique), and a counter that changes when the list grows: the platform
  // then rebuilds the font atlas with them (fetching the CJK font first if needed).
  const std::vector<ImWchar>& glyphs() const;
  uint64_t glyphs_version() const;

 private:
  std::unique_ptr<AppModel> model_;
};

}  // namespace attnviz::ui
