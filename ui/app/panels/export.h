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

}  // namespace attnviz::ui

// Reading state files back in, and the File menu: menu_file.h (included here, as
// every caller that exports also imports).
#include "app/panels/menu_file.h"
