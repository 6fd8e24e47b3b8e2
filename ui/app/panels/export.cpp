// export.cpp: matrix formats, the export request queue, the notice, and the
// heatmaps' export menu. See export.h.
#include "app/panels/export.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "app/text/i18n.h"
#include "app/widgets/item_registry.h"
#include "imgui_internal.h"

namespace attnviz::ui {

// --- [SECTION] Formats

std::string format_float_exact(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  // The rule of the engine's report (engine/src/state/json_numbers.cpp): the shortest of
  // %.1g … %.9g that survives decimal → double → float; %.9g always does.
  char buf[32];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, (double)v);
    float back = (float)std::strtod(buf, nullptr);
    if (back == v && std::signbit(back) == std::signbit(v)) break;
  }
  return buf;
}

static void append_label(std::string& out, const std::vector<std::string>* labels, int i) {
  if (labels && i < (int)labels->size()) out += (*labels)[i];
  else out += std::to_string(i);
}

// One field of a CSV line: quoted when it holds a separator, a quote or a line break.
static void append_csv_field(std::string& out, const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) {
    out += s;
    return;
  }
  out += '"';
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

// CSV and TSV share the layout: an empty corner, the column labels, then one line
// per row led by its label.
static std::string delimited(const MatrixView& m, const MatrixLabels& labels, char sep, const char* eol) {
  std::string out, label;
  auto field = [&](const std::string& s) {
    if (sep == ',') {
      append_csv_field(out, s);
      return;
    }
    for (char c : s) out += (c == '\t' || c == '\n' || c == '\r') ? ' ' : c;
  };
  for (int j = 0; j < m.cols; ++j) {
    out += sep;
    label.clear();
    append_label(label, labels.cols, j);
    field(label);
  }
  out += eol;
  for (int i = 0; i < m.rows; ++i) {
    label.clear();
    append_label(label, labels.rows, i);
    field(label);
    const float* row = m.data + (size_t)i * m.cols;  // (rows × cols) row-major
    for (int j = 0; j < m.cols; ++j) {
      out += sep;
      out += format_float_exact(row[j]);
    }
    out += eol;
  }
  return out;
}

std::string matrix_csv(const MatrixView& m, const MatrixLabels& labels) {
  if (!m.data) return {};
  return delimited(m, labels, ',', "\r\n");
}

std::string matrix_tsv(const MatrixView& m, const MatrixLabels& labels) {
  if (!m.data) return {};
  return delimited(m, labels, '\t', "\n");
}

static std::string json_string(std::string_view s) {
  return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

static std::string json_labels(const std::vector<std::string>* labels, int n) {
  std::string out = "[", s;
  for (int i = 0; i < n; ++i) {
    s.clear();
    append_label(s, labels, i);
    out += (i ? ", " : "") + json_string(s);
  }
  return out + "]";
}

// Written by hand rather than dump(2), so each matrix row stays on one line.
std::string matrix_json(std::string_view label, const MatrixView& m, const MatrixLabels& labels) {
  if (!m.data) return {};
  std::string out = "{\n  \"matrix\": " + json_string(label) + ",\n";
  out += "  \"rows\": " + std::to_string(m.rows) + ",\n";
  out += "  \"cols\": " + std::to_string(m.cols) + ",\n";
  out += "  \"row_labels\": " + json_labels(labels.rows, m.rows) + ",\n";
  out += "  \"col_labels\": " + json_labels(labels.cols, m.cols) + ",\n";
  out += "  \"data\": [\n";
  for (int i = 0; i < m.rows; ++i) {
    out += "    [";
    const float* row = m.data + (size_t)i * m.cols;  // (rows × cols) row-major
    for (int j = 0; j < m.cols; ++j) {
      if (j) out += ", ";
      if (std::isfinite(row[j])) out += format_float_exact(row[j]);
      else out += '"' + format_float_exact(row[j]) + '"';
    }
    out += i + 1 < m.rows ? "],\n" : "]\n";
  }
  out += "  ]\n}\n";
  return out;
}

std::string export_file_stem(std::string_view label) {
  std::string out = "attnviz";
  bool dash = false;
  for (unsigned char c : label) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (keep) {
      if (dash || out == "attnviz") out += '-';
      out += (char)c;
      dash = false;
    } else {
      dash = true;
    }
  }
  return out;
}

// --- [SECTION] Requests and the notice

void export_notify(ExportQueue& q, std::string text, bool error) {
  q.notice = std::move(text);
  q.notice_error = error;
  ++q.notice_seq;
}

void export_request_file(ExportQueue& q, std::string filename, std::string mime, std::string bytes) {
  ExportRequest r;
  r.kind = ExportKind::file;
  r.filename = std::move(filename);
  r.mime = std::move(mime);
  r.bytes = std::move(bytes);
  q.pending.push_back(std::move(r));
}

void export_request_png(ExportQueue& q, std::string label, std::string filename, float scale) {
  ExportRequest r;
  r.kind = ExportKind::png;
  r.filename = std::move(filename);
  r.mime = "image/png";
  r.label = std::move(label);
  r.scale = scale;
  q.pending.push_back(std::move(r));
}

// --- [SECTION] The heatmaps' export menu

void export_context_menu(ExportQueue& q, const char* label, const char* shown, const MatrixView& m,
                         const MatrixLabels& labels) {
  // Right-drag pans the map: only a right-click that did not move opens the menu.
  if (ImGui::IsItemHovered() && ImGui::IsMouseReleased(ImGuiMouseButton_Right) &&
      !ImGui::IsMouseDragPastThreshold(ImGuiMouseButton_Right, 2.0f))
    ImGui::OpenPopup("export menu");
  if (!ImGui::BeginPopup("export menu")) return;
  char heading[256];
  if (shown && shown[0]) std::snprintf(heading, sizeof heading, "%s", shown);
  else std::snprintf(heading, sizeof heading, "%s  (%d×%d)", label, m.rows, m.cols);
  ImGui::TextDisabled("%s", heading);
  const std::string stem = export_file_stem(label);
  if (menu_item("Export PNG (2×)")) export_request_png(q, label, stem + ".png", 2.0f);
  if (menu_item("Export CSV")) export_request_file(q, stem + ".csv", "text/csv", matrix_csv(m, labels));
  if (menu_item("Export JSON")) export_request_file(q, stem + ".json", "application/json", matrix_json(label, m, labels));
  if (menu_item("Copy as TSV")) {
    ImGui::SetClipboardText(matrix_tsv(m, labels).c_str());
    char text[400];
    std::snprintf(text, sizeof text, tr("Copied %s (%d×%d) as tab-separated values: paste it into a spreadsheet."),
                  label, m.rows, m.cols);
    export_notify(q, text, false);
  }
  ImGui::EndPopup();
}

void export_panel_drawn(ExportQueue* qp, const char* label, ImVec2 min, ImVec2 max) {
  ImGuiWindow* w = ImGui::GetCurrentWindow();
  const ImRect clip = w->InnerClipRect;  // the window's visible inside (tables narrow ClipRect)
  // The picture has a margin on every side, so the title's first letter is never at its
  // edge; where the window ends sooner (a map at its left edge), the capture fills the
  // margin with the window's background (png_capture.cpp).
  const float pad = 4.0f;
  const ImVec2 pmin(min.x - pad, min.y - pad), pmax(max.x + pad, max.y + pad);
  char key[96];
  std::snprintf(key, sizeof key, "%s panel", label);
  item_registry().add(key, pmin, pmax);
  if (!qp || !qp->capturing || qp->capture_label != label) return;
  ExportQueue& q = *qp;
  q.capture_seen = true;
  q.capture_min = pmin;
  q.capture_max = pmax;
  q.capture_panel_min = min;
  q.capture_panel_max = max;
  q.capture_clip_min = clip.Min;
  q.capture_clip_max = clip.Max;
  // Scrolled partly out of view: scroll it in; the capture draws another frame.
  if (!clip.Contains(ImRect(min, max))) ImGui::ScrollToRect(w, ImRect(min, max));
}

}  // namespace attnviz::ui
