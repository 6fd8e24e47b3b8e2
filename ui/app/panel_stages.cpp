// panel_stages.cpp: the stage views of the selected head, and the shared matrices
// (X, Q, K, V, concat, output), all linked to the inspector.
#include <cstdio>
#include <cstring>

#include "app/app_model.h"
#include "app/item_registry.h"
#include "app/links.h"
#include "app/panels.h"
#include "imgui.h"

namespace attnviz::ui {

static bool is_weights_like(std::string_view s) { return s == "weights" || s == "dropped"; }

void matrix_view(AppModel& m, const char* stage, int head, float max_width, float max_cell, bool small) {
  const bool per_head = is_square_stage(stage) || std::strcmp(stage, "context") == 0;
  char label[64];
  if (per_head) std::snprintf(label, sizeof label, "%s h%d", stage, head);
  else std::snprintf(label, sizeof label, "%s", stage);
  MatrixView v = m.engine.matrix(stage, per_head ? head : 0);

  HeatmapSpec spec;
  spec.label = label;
  char title[128];
  std::snprintf(title, sizeof title, "%s  (%d×%d)", label, v.rows, v.cols);
  spec.title = title;
  const auto& toks = m.engine.tokens();
  spec.row_labels = v.rows == (int)toks.size() ? &toks : nullptr;
  spec.col_labels = is_square_stage(stage) ? &toks : nullptr;
  if (is_weights_like(stage)) {
    spec.cmap = m.weights_cmap;
    spec.fixed_range = true;
    spec.fixed_lo = 0.0f;
    // dropped weights are scaled by 1/(1−p): pin the top of the scale there
    const Pipeline& p = m.engine.pipeline();
    spec.fixed_hi = std::strcmp(stage, "dropped") == 0 && p.dropout_active() && p.dropout_scale() > 0
                        ? p.dropout_scale() : 1.0f;
  } else {
    spec.cmap = Colormap::rdbu;
    spec.diverging = true;
  }
  Highlight hl = linked_highlight(m.focus(), stage, head, m.engine.has_result() ? m.engine.pipeline().head_dim() : 1);
  spec.highlight_row = hl.row;
  spec.highlight_col = hl.col;
  spec.max_width = max_width;
  spec.max_cell = max_cell;
  spec.show_values = !small;
  spec.show_colour_bar = !small;

  HeatmapHover h = heatmap(spec, v, m.engine.version(stage, per_head ? head : 0), m.heatmap_cache(label), *m.textures);
  if (h.hovered) {
    m.hover_next = CellRef{true, stage, per_head ? head : 0, h.row, h.col};
    if (h.clicked) {
      const CellRef& c = m.hover_next;
      bool same = m.pinned.valid && m.pinned.stage == c.stage && m.pinned.head == c.head && m.pinned.row == c.row &&
                  m.pinned.col == c.col;
      m.pinned = same ? CellRef{} : c;
    }
  }
}

// Head selector: one tab per head; returns after drawing.
static void head_selector(AppModel& m) {
  int H = m.engine.num_heads();
  if (H <= 1) return;
  if (ImGui::BeginTabBar("heads")) {
    // Another view (Compare heads) may have changed m.head: on appearing, select its tab;
    // the tab bar still shows its old head for that one frame, which must not win.
    const bool appearing = ImGui::IsWindowAppearing() || m.view_restoring > 0;  // or a restored view (share.h)
    for (int h = 0; h < H; ++h) {
      char name[16];
      std::snprintf(name, sizeof name, "head %d", h);
      ImGuiTabItemFlags f = 0;
      if (m.head == h && appearing) f |= ImGuiTabItemFlags_SetSelected;
      if (ImGui::BeginTabItem(name, nullptr, f)) {
        if (!appearing) m.head = h;
        ImGui::EndTabItem();
      }
      item_register(name);
    }
    ImGui::EndTabBar();
  }
}

void stages_tab(AppModel& m) {
  head_selector(m);
  // Pipeline order, left to right then top to bottom, every stage of the head at once.
  static const char* stages[] = {"scores", "scaled", "masked", "weights", "dropped", "context"};
  int cols = ImGui::GetContentRegionAvail().x > 860 ? 3 : 2;
  if (ImGui::BeginTable("stage grid", cols, ImGuiTableFlags_SizingStretchSame)) {
    for (const char* st : stages) {
      ImGui::TableNextColumn();
      matrix_view(m, st, m.head);
    }
    ImGui::EndTable();
  }
}

void data_tab(AppModel& m) {
  ImGui::TextDisabled("Inputs, projections and outputs (shared by all heads; head h owns columns h·head_dim …)");
  static const char* names[] = {"X", "Q", "K", "V", "concat", "output"};
  int cols = ImGui::GetContentRegionAvail().x > 860 ? 3 : 2;
  if (ImGui::BeginTable("data grid", cols, ImGuiTableFlags_SizingStretchSame)) {
    for (const char* n : names) {
      ImGui::TableNextColumn();
      matrix_view(m, n, 0, 0, 40.0f);
    }
    ImGui::EndTable();
  }
}

}  // namespace attnviz::ui
