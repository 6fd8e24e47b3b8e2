// app_model.h: everything the panels read and edit, in one struct.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "app/lessons/lesson_run.h"
#include "app/model/engine_session.h"
#include "app/panels/export.h"
#include "app/widgets/heatmap.h"
#include "app/model/history.h"
#include "app/text/i18n.h"
#include "app/model/share.h"
#include "app/widgets/texture_host.h"
#include "app/model/tokenize.h"
#include "app/model/view.h"
#include "app/model/widgets_state.h"
#include "attnviz/stages.h"
#include "attnviz/status.h"

namespace attnviz::ui {

struct CompareCache;  // panel_compare.cpp: analysis results keyed by stage versions
struct LinesCache;    // panel_lines.cpp: heads shown and the lines worth drawing
// What a panel's cached derivation of the result (the Decode step, the Inspector's
// explanation) depends on: the state and the Q, K, V versions. Equal keys: reuse it.
struct ResultKey {
  uint64_t state_serial = 0, q = 0, k = 0, v = 0;
  bool operator==(const ResultKey& o) const {
    return state_serial == o.state_serial && q == o.q && k == o.k && v == o.v;
  }
};

struct DecodeCache;   // panel_decode.cpp: the KV-cache step shown, keyed by state, head and step
struct ExplainCache;  // panel_inspector.cpp: the Explanation shown, keyed by cell and result
struct HeadsGridCache;  // panel_heads_grid.cpp: head scores and a score's terms, keyed by state

// How a state change came about (AppModel::apply): a control's edit (merged into one
// undo step while that control stays active), a whole replacement (paste, link,
// setState: one step each), or undo/redo itself (not recorded).
enum class Change : int { edit, replace, history };

struct AppModel {
  TextureHost* textures = nullptr;
  EngineSession engine;
  ExportQueue exports;  // export.h: files and pictures the platform delivers after the frame

  // --- UI selections: what a shared link restores (view.h). view.lang follows
  // i18n.h's language() (change_language, begin_frame).
  View view;
  bool help_open = false;              // the keyboard shortcuts window (help.cpp)
  int decode_len = 0;                  // the tokens when view.decode_t was last set: on the last token,
                                       // the step follows tokens added after it

  // --- linked inspection: the hovered cell this frame (the pinned one is view.pinned)
  CellRef hover;       // written while drawing, read next frame
  CellRef hover_next;  // collects this frame's hover

  // --- editing: controls edit `draft`, a typed State (attnviz/state.h); a valid
  // draft becomes the state at once, an invalid one stays here with its reason
  // while the views keep the last valid result. Undo works on States too; JSON
  // stays at the edges (share links, files, presets: the apply(json) overload).
  State draft;
  std::string tokens_text;             // the `Tokens` box, split on Enter / leaving it
  SplitMode split = SplitMode::words_and_chars;  // how (tokenize.h); part of the shared view
  bool split_now = false;              // the Split choice changed: split the box's text again
  bool tokens_edited = false;          // the box's text was edited since the last apply
  // The box's text as tokens: split as view.split says, or for a trained model's
  // vocabulary (tokenize.h split_for_vocabulary) when the state runs one.
  std::vector<std::string> split_tokens(std::string_view text) const;
  std::string error;                   // last rejected edit, shown beside its control
  std::string error_field;
  Status error_status;                 // the engine's refusal behind `error`, and `error` as worded
  std::string error_worded;            // from it: a language change words it again
  void refused(const Status& st);      // shows an engine refusal (app_model.cpp)

  // --- text the font atlas must cover beyond Latin (see App::glyphs): the tokens,
  // the presets' and, in Chinese, the catalogue's characters
  std::vector<ImWchar> glyphs;
  uint64_t glyphs_version = 0;
  int language_seen = -1;  // i18n.h language_generation() the glyphs were collected for

  // --- retained per-heatmap textures, keyed by label ("weights h0")
  std::unordered_map<std::string, HeatmapCache> heatmaps;
  // heatmaps[label] without building a std::string per call (a frame must not
  // allocate; wasm's std::string holds only 10 chars inline).
  HeatmapCache& heatmap_cache(std::string_view label) {
    heatmap_key.assign(label.data(), label.size());
    auto it = heatmaps.find(heatmap_key);
    if (it == heatmaps.end()) it = heatmaps.emplace(heatmap_key, HeatmapCache{}).first;
    return it->second;
  }
  std::string heatmap_key;  // reused lookup key

  // --- retained state of the Compare heads and Lines tabs, created by their panels on
  // first draw (shared_ptr because the types are private to those files)
  std::shared_ptr<CompareCache> compare_cache;
  std::shared_ptr<LinesCache> lines_cache;
  std::shared_ptr<DecodeCache> decode_cache;
  std::shared_ptr<ExplainCache> explain_cache;
  std::shared_ptr<HeadsGridCache> heads_grid_cache;
  Widgets widgets;  // what the panels' widgets keep between frames (widgets_state.h)
  LessonRun lesson;  // the open lesson's step, its task and the learner's progress (lesson_run.h)

  // --- sharing and history (share.h, history.h, menu_edit.cpp)
  History history;              // undo/redo of the state
  uint64_t state_serial = 0;    // changes with every applied state change
  ResultKey result_key() const {
    return {state_serial, engine.version(Stage::Q, 0), engine.version(Stage::K, 0), engine.version(Stage::V, 0)};
  }
  uint64_t session_serial = 0;  // ... and with every view change (App::session_serial)
  uint64_t session_seen_state = 0;
  View session_seen_view;       // view_of as last seen
  int view_restoring = 0;       // frames left after a view was restored (link, paste): the
                                // tab bars select m.view.tab / m.view.head instead of reporting theirs
  Notice notice;                // the last sentence about sharing, clipboard, undo
  ShareHooks share;             // the platform's clipboard side of the Edit menu

  // Applies an edited state: on success the views update and the draft becomes
  // the canonical state; on failure the last valid state stays and `error` says why.
  // `group`: for an edit, the ImGui ID of the control making it (panels.h apply_edit):
  // its changes while it stays active are one undo step. AppModel calls no ImGui.
  bool apply(State state, Change how = Change::edit, uint64_t group = 0);
  // The same from JSON (links, undo, files, presets), parsed first.
  bool apply(const nlohmann::json& state, Change how = Change::edit, uint64_t group = 0);
  // The cell every view highlights: the pinned one, else the hovered one.
  const CellRef& focus() const { return view.pinned.valid ? view.pinned : hover; }
};

// View → Language, a share link's view.lang, ?lang= and --lang: the interface speaks
// `l` from the next frame on, its characters join the font atlas (app_model.cpp).
void change_language(AppModel& m, Lang l);

}  // namespace attnviz::ui
