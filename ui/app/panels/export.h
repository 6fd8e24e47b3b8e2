// export.h: getting matrices, pictures and the state out of the app, and state
// files back in (docs/ui.md, "Export and import").
//
//   formats     a matrix exactly as shown, as CSV, TSV or JSON: the engine's float32
//               numbers as the shortest decimals that read back as the same float32
//               (the report's rule), −inf/+inf/NaN spelled "-inf"/"inf"/"nan", the
//               token labels the heatmap shows as header row and first column
//   requests    the app only asks ("save this file", "capture this panel at 2×");
//               the platform layer (ui/platform/web_export.cpp in the browser,
//               main_desktop.cpp natively, png_capture.cpp for pictures) delivers:
//               a download in the browser, a file in the working directory natively
//   notice      one sentence about the last export or import, handed to the app's
//               notice line under the menu bar (share.h, notify)
//
// Platform-free: no GL, no SDL, no emscripten here.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>  // the full header only where JSON is built or read (.cpp)

#include "app/model/matrix_view.h"
#include "attnviz/state.h"
#include "imgui.h"

namespace attnviz::ui {

struct AppModel;

// --- [SECTION] Formats

// Shortest of %.1g … %.9g that gives back exactly `v` when read as a double and
// rounded to float32 ("0.1", "1e-05", "-0"); "-inf", "inf", "nan" otherwise.
std::string format_float_exact(float v);

// Labels of a matrix as its heatmap shows them; null means row/column indices.
struct MatrixLabels {
  const std::vector<std::string>* rows = nullptr;  // queries (tokens) or indices
  const std::vector<std::string>* cols = nullptr;  // keys (tokens) or indices
};

// RFC 4180 CSV, one line per matrix row ("\r\n"):
//   query \ key,<col label 0>,<col label 1>,…
//   <row label 0>,<v00>,<v01>,…
// Labels containing a comma, quote or line break are quoted ("" for a quote).
std::string matrix_csv(const MatrixView& m, const MatrixLabels& labels);
// Tab-separated, for pasting into a spreadsheet: the same layout as the CSV with
// tabs, "\n" line ends, no quoting (tabs and line breaks inside labels become spaces).
std::string matrix_tsv(const MatrixView& m, const MatrixLabels& labels);
// Pretty-printed JSON object:
//   {"matrix": "weights h0", "rows": R, "cols": C,
//    "row_labels": [R strings], "col_labels": [C strings],
//    "data": [[C numbers] × R]}   non-finite values as the strings "-inf", "inf", "nan"
std::string matrix_json(std::string_view label, const MatrixView& m, const MatrixLabels& labels);

// File name stem for a heatmap label: "weights h0" → "attnviz-weights-h0".
std::string export_file_stem(std::string_view label);

// --- [SECTION] Requests (app → platform)

enum class ExportKind {
  file,         // save `bytes` as `filename` (CSV, JSON, state)
  png,          // capture heatmap `label` ("" = the whole window) at `scale`, save as `filename`
  open_picker,  // show the page's file picker for a state file (browser only)
};

struct ExportRequest {
  ExportKind kind = ExportKind::file;
  std::string filename;  // "attnviz-weights-h0.csv"
  std::string mime;      // "text/csv", "application/json", "image/png"
  std::string bytes;     // kind file: the contents
  std::string label;     // kind png: heatmap label, "" for the whole window
  float scale = 2.0f;    // kind png: device pixels per logical (CSS) pixel
};

struct ExportQueue {
  std::vector<ExportRequest> pending;  // drained by the platform after each frame
  bool has_file_picker = false;        // the platform shows its own picker (browser);
                                       // otherwise Open state… asks for a path
  // A PNG capture frame in progress: heatmap() reports where panel `capture_label`
  // was drawn (logical pixels, the whole panel and the part its window shows).
  bool capturing = false;
  std::string capture_label;
  bool capture_seen = false;
  ImVec2 capture_min, capture_max;          // the picture: the whole panel and a 4 px margin
  ImVec2 capture_panel_min, capture_panel_max;  // the panel alone (it must be in view)
  ImVec2 capture_clip_min, capture_clip_max;  // its window's visible area
  // The last export/import sentence; export_overlay() passes it on to the notice
  // line (set here because the heatmaps and the platform have no AppModel).
  std::string notice;
  bool notice_error = false;
  uint64_t notice_seq = 0;      // increments with every notice
  uint64_t notice_shown = 0;    // the seq last passed on
};

// The queue belongs to the App (AppModel::exports; App::exports() for the platform);
// heatmaps reach it through HeatmapSpec::exports.
void export_notify(ExportQueue& q, std::string text, bool error);

// Asks for a file to be saved (browser: downloaded; desktop: written to the working directory).
void export_request_file(ExportQueue& q, std::string filename, std::string mime, std::string bytes);
// Asks for a PNG of heatmap `label` ("" = the whole window) at `scale`×.
void export_request_png(ExportQueue& q, std::string label, std::string filename, float scale = 2.0f);

// Called by heatmap() right after its cells (the last item): a right-click without
// dragging opens the panel's menu (Export PNG (2×), Export CSV, Export JSON, Copy as TSV).
// `shown`: the map's title as the learner reads it, in the interface's language (the
// menu's heading); "" = the label and the shape. Files and the copy notice keep `label`.
void export_context_menu(ExportQueue& q, const char* label, const char* shown, const MatrixView& m,
                         const MatrixLabels& labels);
// Called by heatmap() once the whole panel (title to colour bar) is laid out.
void export_panel_drawn(ExportQueue* q, const char* label, ImVec2 min, ImVec2 max);

// --- [SECTION] Import (menu_file.cpp)

constexpr double kMaxStateFileBytes = 16.0 * 1024 * 1024;
// A .safetensors state file (attnviz/state_file.h) may be far bigger: the largest state
// the engine's limits allow, every matrix explicit, is about 330 MB.
constexpr double kMaxStateBinaryBytes = 512.0 * 1024 * 1024;
// Explicit values beyond which the state's JSON is slow to write and read: Save state
// (.json) then says that the .safetensors file is the quick one, and how big the JSON
// would be at kJsonBytesPerValue (Save state (.json) indents every number on a line
// of its own: GPT-2's 2.36 M values made 47.3 MB, 20 bytes each).
constexpr uint64_t kBigJsonValues = 250000;
constexpr double kJsonBytesPerValue = 20.0;

// Replaces the state with a state file's contents (undoable like any state change).
// On any problem the state stays, and the returned {"ok": false, "error": sentence}
// is also the app's notice. Files over kMaxStateFileBytes are refused unread:
nlohmann::json import_state_text(AppModel& m, std::string_view name, std::string_view text);
nlohmann::json import_state_too_large(AppModel& m, std::string_view name, double size);
// The sentence for a .safetensors state file over kMaxStateBinaryBytes (not read).
std::string state_binary_too_large_text(std::string_view name, double size);
// A .safetensors state file's bytes (attnviz/state_file.h), read and applied the same way.
nlohmann::json import_state_safetensors(AppModel& m, std::string_view name, std::string_view bytes);
// A state file already read (the weights import reads a .safetensors file that turns out
// to hold a state, weights_import.cpp): `st` is how reading it went; applied when ok.
nlohmann::json import_state_read(AppModel& m, std::string_view name, const Status& st, State state);
// The same for a file on disk (desktop: Open state…, a file dropped on the window): JSON,
// or a .safetensors file told by its first bytes (a state, or trained weights: the
// weights import, which hands a state file back to import_state_read).
nlohmann::json import_state_path(AppModel& m, const std::string& path);
// Files dropped together: the weights files among them are one import (several .npy
// files fill W_q, W_k, W_v together), the others are opened one by one. The last answer.
nlohmann::json import_paths(AppModel& m, const std::vector<std::string>& paths);

// The File menu, inside the main menu bar.
void file_menu(AppModel& m);
// File → Save state (.safetensors): the state as attnviz-state.safetensors (state_file.h).
void save_state_safetensors(AppModel& m);
// The state as a PyTorch script (attnviz/torch_script.h) whose comments and headings are
// in the interface's language: File → Export PyTorch script, Edit → Copy as PyTorch.
std::string torch_script_in_language(const AppModel& m);
// Passes the export notice on, and draws the desktop's Open state dialog; once per frame.
void export_overlay(AppModel& m);

}  // namespace attnviz::ui
