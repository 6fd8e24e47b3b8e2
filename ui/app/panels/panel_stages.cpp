// panel_stages.cpp: the Stages tab, the selected head's computation drawn as a flow
// (stage_flow.h: Q_h K_h V_h [→ q_rot k_rot] → scores → scaled [→ bias] → masked →
// weights → dropped → context, each step labelled with its operation and numbers;
// the bracketed cards only with RoPE, ALiBi), and the Q K V &
// output tab's shared matrices; all linked to the inspector.
// [SECTION] one map (matrix_view, map)
// [SECTION] the flow's cards
// [SECTION] tabs
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "app/model/app_model.h"
#include "app/widgets/fonts.h"
#include "app/text/i18n.h"
#include "app/text/inspector_text.h"
#include "app/widgets/item_registry.h"
#include "app/widgets/map_label.h"
#include "app/model/links.h"
#include "app/panels/panels.h"
#include "app/panels/stage_flow.h"
#include "app/panels/stage_map.h"
#include "imgui.h"

namespace attnviz::ui {

// =============================================================================
// [SECTION] one map
// =============================================================================

// The K/V head query head h reads (GQA/MQA: h / (H/G); plain attention: h itself).
static int kv_head(const AppModel& m, int h) {
  const State& s = m.engine.pipeline().state();
  const int H = std::max(s.num_heads, 1), G = std::max(s.kv_heads(), 1);
  return H % G == 0 ? h / (H / G) : h;
}

struct MapReq {
  Stage stage = Stage::weights;
  int head = 0;             // the (query) head
  bool slice = false;       // the head's columns of Q, or of K or V those of the K/V head it reads ("Q h0")
  float max_w = 0, max_h = 0, max_cell = 64.0f;
  bool small = false;       // no values, no colour bar (the Compare grid)
  bool row_labels = true;
  bool kv = false;          // a slice of K or V under GQA/MQA: named by its K/V head ("K kv1")
};

static int decimals_max(const AppModel& m) { return m.view.decimals > 0 ? m.view.decimals : 4; }

static void colours(AppModel& m, Stage st, HeatmapSpec& spec) {
  const bool weights_like = st == Stage::weights || st == Stage::dropped;
  if (weights_like) {  // dropped shares weights' [0, 1] scale: a kept cell, rescaled, reads brighter
    spec.cmap = m.view.weights_cmap;
    spec.fixed_range = true;
    spec.fixed_lo = 0.0f;
    spec.fixed_hi = 1.0f;
  } else {
    spec.cmap = Colormap::rdbu;
    spec.diverging = true;
  }
}

static void map(AppModel& m, const MapReq& r) {
  const Pipeline& p = m.engine.pipeline();
  const bool per_head = stage_is_per_head(r.stage);
  const char* name = stage_name(r.stage);
  // The label is the map's name for the registry, caches and tests ("weights h0", in
  // every language); the title is what a learner reads ("注意力权重 weights，头 0").
  char term[96], title[128];
  const int head = per_head || r.slice ? r.head : -1;
  // A slice is columns [sh·hd, (sh+1)·hd) of its matrix: Q's of this head, K's and V's
  // of the K/V head this head reads (head_slice picks the same ones).
  const int sh = r.slice && r.stage != Stage::Q ? kv_head(m, r.head) : r.head;
  const MapLabel label = r.kv ? map_label_kv(r.stage, sh) : map_label(r.stage, head);  // map_label.h
  if (r.kv) std::snprintf(term, sizeof term, tr("%s, K/V head %d"), name, sh);
  else stage_term(r.stage, head, term, sizeof term);
  const bool overview = !r.slice && stage_overview(m, r.stage);  // a long map: pooled, a window at a time
  MatrixView v;
  if (overview) {
    v.rows = v.cols = m.engine.pipeline().seq_len();
  } else if (r.slice) {
    TensorView t = p.head_slice(r.stage, r.head);
    v = MatrixView{t.rows, t.cols, t.data, t.stride};
    m.engine.matrix(r.stage, 0);  // counts as a read of Q/K/V (lazy pipeline)
  } else {
    v = m.engine.matrix(r.stage, per_head ? r.head : 0);
  }
  std::snprintf(title, sizeof title, "%s  (%d\xC3\x97%d)", term, v.rows, v.cols);

  HeatmapSpec spec;
  spec.label = label.c_str();
  spec.exports = &m.exports;
  spec.title = title;
  const auto& toks = m.engine.tokens();
  spec.row_labels = r.row_labels && v.rows == (int)toks.size() ? &toks : nullptr;
  spec.col_labels = stage_is_square(r.stage) ? &toks : nullptr;  // not context, q_rot, k_rot: their columns are features
  colours(m, r.stage, spec);
  spec.keep = dropout_marks(m, r.stage, r.head);
  const int hd = m.engine.has_result() ? p.head_dim() : 1;
  Highlight hl = linked_highlight(m.focus(), r.stage, per_head ? r.head : 0, hd);
  spec.highlight_row = hl.row;
  spec.highlight_col = r.slice ? (hl.col >= sh * hd && hl.col < (sh + 1) * hd ? hl.col - sh * hd : -1) : hl.col;
  spec.max_width = r.max_w;
  spec.max_height = r.max_h;
  spec.max_cell = r.max_cell;
  spec.decimals_max = decimals_max(m);
  spec.show_values = !r.small;
  spec.show_colour_bar = !r.small;
  spec.show_row_labels = r.row_labels;

  HeatmapHover h;
  if (overview) {
    const StageMap src(m.engine, r.stage, r.head, m.view.overview_mean);
    h = heatmap_overview(spec, src, m.heatmap_cache(label.c_str()), *m.textures);
  } else {
    uint64_t version = m.engine.version(r.stage, per_head ? r.head : 0);
    h = heatmap(spec, v, version, m.heatmap_cache(label.c_str()), *m.textures);
  }
  if (!h.hovered || h.block > 1) return;  // a pooled block is no one cell: its tooltip says what it pools
  // A slice's cell is the Q/K/V cell it shows (the inspector explains that one).
  m.hover_next = CellRef{true, r.stage, per_head ? r.head : 0, h.row, r.slice ? h.col + sh * hd : h.col};
  if (h.clicked) {
    toggle_pin(m.view.pinned, m.hover_next);
  }
}

const uint8_t* dropout_marks(const AppModel& m, Stage stage, int head) {
  const Pipeline& p = m.engine.pipeline();
  return stage == Stage::dropped && m.engine.has_result() && p.dropout_active() ? p.dropout_keep(head) : nullptr;
}

void matrix_view(AppModel& m, Stage stage, int head, float max_width, float max_cell, bool small) {
  MapReq r;
  r.stage = stage;
  r.head = head;
  r.max_w = max_width;
  r.max_cell = max_cell;
  r.small = small;
  map(m, r);
}

// =============================================================================
// [SECTION] the flow's cards
// =============================================================================

static const ImU32 kOpColour = IM_COL32(255, 200, 110, 255);

// An arrow in the gutter from the card on the left into this one's operation line.
static void arrow(ImDrawList* dl, float x0, float x1, float y) {
  const ImU32 col = IM_COL32(255, 200, 110, 200);
  dl->AddLine(ImVec2(x0, y), ImVec2(x1 - 7.0f, y), col, 2.0f);
  dl->AddTriangleFilled(ImVec2(x1, y), ImVec2(x1 - 8.0f, y - 5.0f), ImVec2(x1 - 8.0f, y + 5.0f), col);
}

// Draws `text` wrapped to `width`, breaking where the Inspector does (inspector_wrap:
// at spaces and between Chinese characters, never inside a number or a name).
void wrapped_text(const char* text, float width) {
  const char* const end = text + std::strlen(text);
  for (const char* p = text; p < end;) {
    const char* le = inspector_wrap(p, end, width);
    ImGui::TextUnformatted(p, le);
    p = le;
    while (p < end && *p == ' ') ++p;
  }
}

void wrapped_block(const char* text) {
  ImGui::BeginGroup();
  wrapped_text(text, std::max(1.0f, ImGui::GetContentRegionAvail().x));
  ImGui::EndGroup();
}

static int wrapped_lines(const char* text, float width) {
  const char* const end = text + std::strlen(text);
  int lines = 0;
  for (const char* p = text; p < end; ++lines) {
    p = inspector_wrap(p, end, width);
    while (p < end && *p == ' ') ++p;
  }
  return lines;
}

// A card's head text (FlowOpText, widgets_state.h), formatted for this frame.
static void op_text(const AppModel& m, Stage st, bool wrapped, FlowOpText& t) {
  const State& s = m.engine.pipeline().state();
  char op[256];
  flow_op(s, m.engine.pipeline().divisor(), st, op, sizeof op, m.view.head);
  std::snprintf(t.op, sizeof t.op, "%s%s", wrapped ? "\xE2\x86\xB3 " : "", op);  // ↳ after a wrap
  flow_torch(s, st, t.torch, sizeof t.torch);
  const char* same = flow_identity(s, st);
  if (*same) std::snprintf(t.same, sizeof t.same, tr("(%s)"), same);
  else t.same[0] = '\0';
}

// The height op_lines takes at this width (the maps of a row start below the tallest).
static float op_height(const AppModel& m, const FlowOpText& t, float width) {
  const float line = ImGui::GetTextLineHeightWithSpacing();
  float h = line * (float)(wrapped_lines(t.op, width) + wrapped_lines(t.same, width));
  if (m.view.show_torch) {
    ImGui::PushFont(g_fonts.mono);
    h += ImGui::CalcTextSize(t.torch, nullptr, false, width).y + ImGui::GetStyle().ItemSpacing.y;
    ImGui::PopFont();
  }
  return h;
}

// The operation line (and the PyTorch line when asked), with the PyTorch line on hover.
static void op_lines(AppModel& m, Stage st, const FlowOpText& t, float width) {
  ImGui::PushStyleColor(ImGuiCol_Text, kOpColour);
  ImGui::BeginGroup();
  wrapped_text(t.op, width);
  ImGui::EndGroup();
  ImGui::PopStyleColor();
  char id[32];
  std::snprintf(id, sizeof id, "op %s", stage_name(st));
  item_register(id);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n\n%s", tr("PyTorch, as the tutorials write it:"), t.torch);
  if (m.view.show_torch) {
    ImGui::PushFont(g_fonts.mono);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    ImGui::TextUnformatted(t.torch);
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
    ImGui::PopFont();
  }
  if (t.same[0]) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    wrapped_text(t.same, width);
    ImGui::PopStyleColor();
  }
}

// Card 0: the head's columns of Q, K and V side by side (row labels on Q only). Under
// GQA/MQA, K and V show the columns of the K/V head this query head reads.
static void qkv_card(AppModel& m, float w, float h) {
  const float gap = 10.0f, labels = m.heatmap_cache(map_label(Stage::Q, m.view.head).c_str()).row_label_w + 6.0f;
  const float cells = std::max(30.0f, (w - 2 * gap - labels) / 3.0f);
  const Stage st[3] = {Stage::Q, Stage::K, Stage::V};
  const State& s = m.engine.pipeline().state();
  for (int k = 0; k < 3; ++k) {
    if (k) ImGui::SameLine(0, gap);
    ImGui::BeginGroup();
    MapReq r;
    r.stage = st[k];
    r.head = m.view.head;
    r.kv = k > 0 && s.kv_heads() != s.num_heads;
    r.slice = true;
    r.row_labels = k == 0;
    r.max_w = k == 0 ? cells + labels : cells;
    r.max_h = h;
    map(m, r);
    ImGui::EndGroup();
  }
}

// The RoPE card: this head's q_rot and k_rot side by side (row labels on q_rot only).
static void rot_card(AppModel& m, float w, float h) {
  const float gap = 10.0f, labels = m.heatmap_cache(map_label(Stage::q_rot, m.view.head).c_str()).row_label_w + 6.0f;
  const float cells = std::max(30.0f, (w - gap - labels) / 2.0f);
  const Stage st[2] = {Stage::q_rot, Stage::k_rot};
  for (int k = 0; k < 2; ++k) {
    if (k) ImGui::SameLine(0, gap);
    ImGui::BeginGroup();
    MapReq r;
    r.stage = st[k];
    r.head = m.view.head;
    r.row_labels = k == 0;
    r.max_w = k == 0 ? cells + labels : cells;
    r.max_h = h;
    map(m, r);
    ImGui::EndGroup();
  }
}

static float card_head_height(const AppModel& m) {
  const float line = ImGui::GetTextLineHeightWithSpacing();
  return line * (m.view.show_torch ? 5.0f : 3.0f);  // operation, [code ×2], note, title
}

static FlowIn flow_input(AppModel& m, float w, float h) {
  FlowIn in;
  in.w = w;
  in.h = h;
  in.card_head_h = card_head_height(m);
  in.head_dim = m.engine.pipeline().head_dim();
  HeatmapLayoutIn& sq = in.square;
  const int S = (int)m.engine.tokens().size();
  // The label widths as measured when the head's weights map was last drawn.
  const HeatmapCache& c = m.heatmap_cache(map_label(Stage::weights, m.view.head).c_str());
  // An overview is fitted as the (at most) 256 pooled cells it shows whole: the same box,
  // and the choice of cards a row made for what is drawn, not for S cells of a speck each.
  sq.rows = sq.cols = overview_wanted(S) ? std::min(S, kOverviewCells) : S;
  heatmap_text_metrics(sq);
  sq.row_label_w = c.row_label_w;
  sq.col_label_w = c.col_label_w;
  sq.bar_h = heatmap_bar_height(false, overview_wanted(S));  // an overview's bar says how it pools
  sq.decimals_max = decimals_max(m);
  sq.stats.any_finite = true;  // weights: in [0, 1]
  sq.stats.hi = sq.stats.maxabs = 0.99f;
  in.prefer_all_decimals = m.view.decimals > 0;
  in.cards = flow_cards(m.engine.pipeline().state());
  in.overview = overview_wanted(S);  // every card's whole map in view; the wheel zooms to the cells
  return in;
}

// =============================================================================
// [SECTION] tabs
// =============================================================================

// Head selector: one tab per head; returns after drawing.
static void head_selector(AppModel& m) {
  int H = m.engine.num_heads();
  if (H <= 1) return;
  if (ImGui::BeginTabBar("heads")) {
    // Another view (Compare heads) may have changed m.view.head: on appearing, select its tab;
    // the tab bar still shows its old head for that one frame, which must not win.
    const bool appearing = ImGui::IsWindowAppearing() || m.view_restoring > 0;  // or a restored view (share.h)
    for (int h = 0; h < H; ++h) {
      // Shown in this language, with an ID ("###head 0") that is the same in every one.
      char name[16], shown[32], label[64];
      std::snprintf(name, sizeof name, "head %d", h);
      std::snprintf(shown, sizeof shown, tr("head %d"), h);
      std::snprintf(label, sizeof label, "%s###%s", shown, name);
      ImGuiTabItemFlags f = 0;
      if (m.view.head == h && appearing) f |= ImGuiTabItemFlags_SetSelected;
      if (ImGui::BeginTabItem(label, nullptr, f)) {
        if (!appearing) m.view.head = h;
        ImGui::EndTabItem();
      }
      item_register(name);
    }
    ImGui::EndTabBar();
  }
}

// After context: every head's context side by side, then the output projection.
static void onwards(AppModel& m, float width) {
  ImGui::BeginGroup();
  ImGui::PushStyleColor(ImGuiCol_Text, kOpColour);
  const float w = std::max(width, 200.0f);
  wrapped_text(tr("concat(all heads) \xE2\x86\x92 output projection"), w);
  ImGui::PopStyleColor();
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  wrapped_text(tr("Every head's context, side by side, is concat (S \xC3\x97 d_out); output = concat \xC2\xB7 W_o "
                  "(+ b_o) with an output projection, else concat itself."),
               w);
  ImGui::PopStyleColor();
  if (ImGui::SmallButton(L("Q K V & output tab"))) {
    m.view.tab = MainTab::data;
    m.view_restoring = 2;  // the main tab bar selects m.view.tab (share.h)
  }
  item_register("Q K V & output tab");
  ImGui::EndGroup();
}

// The flow: cards in rows, in the order of the computation, an arrow between
// neighbours, the operation above each map; then where concat and output are.
void stages_tab(AppModel& m) {
  head_selector(m);
  ImGui::Checkbox(L("PyTorch code"), &m.view.show_torch);
  ImGui::SameLine();
  ImGui::TextDisabled("%s", tr("hover an operation for its PyTorch line \xC2\xB7 maps: (Ctrl+)wheel zooms, double-click fits"));
  if (!m.engine.has_result()) return;

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const FlowIn in = flow_input(m, avail.x, avail.y);
  const FlowOut out = flow_layout(in);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 top = ImGui::GetCursorScreenPos();
  float row_y = top.y, row_h = 0, prev_right = 0, op_y = 0, head_h = 0;
  const State& s = m.engine.pipeline().state();
  const int cards = in.cards;
  FlowOpText* ops = m.widgets.stages.ops;  // in the model: 9 cards' text is too much for the stack of a wasm frame
  for (int k = 0; k < cards; ++k) op_text(m, flow_stage(s, k), k % out.cols == 0 && k > 0, ops[k]);
  for (int k = 0; k < cards; ++k) {
    const int col = k % out.cols;
    if (col == 0 && k > 0) {
      row_y += row_h + in.vgap;
      row_h = 0;
    }
    if (col == 0) {  // maps of a row start at one height, below the tallest operation's lines
      head_h = in.card_head_h - ImGui::GetTextLineHeightWithSpacing();
      for (int c = k; c < std::min(k + out.cols, cards); ++c) head_h = std::max(head_h, op_height(m, ops[c], out.box_w));
    }
    const float x = top.x + (float)col * (out.box_w + in.gutter);
    ImGui::SetCursorScreenPos(ImVec2(x, row_y));
    ImGui::BeginGroup();
    op_y = row_y + ImGui::GetTextLineHeight() * 0.5f;
    const Stage st = flow_stage(s, k);
    op_lines(m, st, ops[k], out.box_w);
    if (ImGui::GetCursorScreenPos().y < row_y + head_h) {
      ImGui::SetCursorScreenPos(ImVec2(x, row_y + head_h));
    }
    const float used = ImGui::GetCursorScreenPos().y - row_y;
    const float map_h = out.box_h > 0 ? out.box_h - used : 0.0f;
    if (k == 0) {
      qkv_card(m, out.box_w, map_h);
    } else if (st == Stage::q_rot) {
      rot_card(m, out.box_w, map_h);
    } else {
      MapReq r;
      r.stage = st;
      r.head = m.view.head;
      r.max_w = out.box_w;
      r.max_h = map_h;
      map(m, r);
    }
    ImGui::EndGroup();
    row_h = std::max(row_h, ImGui::GetItemRectSize().y);
    if (col > 0) arrow(dl, prev_right + 4.0f, x - 4.0f, op_y);
    prev_right = x + out.box_w;
  }
  // Onwards: in the last row's next slot when there is one, else under the flow.
  const int next = cards % out.cols;
  if (next != 0) {
    const float x = top.x + (float)next * (out.box_w + in.gutter);
    arrow(dl, prev_right + 4.0f, x - 4.0f, op_y);
    ImGui::SetCursorScreenPos(ImVec2(x, row_y));
  } else {
    ImGui::SetCursorScreenPos(ImVec2(top.x, row_y + row_h + in.vgap));
  }
  onwards(m, out.box_w);
  if (next != 0) ImGui::SetCursorScreenPos(ImVec2(top.x, row_y + row_h + 4.0f));
  ImGui::Dummy(ImVec2(0, 4));
}

void data_tab(AppModel& m) {
  ImGui::TextDisabled("%s", tr("Inputs, projections and outputs (shared by all heads; head h owns columns h\xC2\xB7head_dim \xE2\x80\xA6)"));
  // The shared stages indexed by token (the stage table: X, Q, K, V, concat, output).
  Stage names[kStageCount];
  int n = 0;
  for (int k = 0; k < kStageCount; ++k) {
    const StageInfo& info = stage_table()[k];
    if (!info.per_head && stage_rows_are_positions(info.stage)) names[n++] = info.stage;
  }
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const int cols = avail.x > 1100 ? 3 : 2;
  const float box_w = (avail.x - 12.0f * (float)(cols - 1)) / (float)cols;
  const float box_h = (avail.y - 10.0f) / 2.0f * (cols == 3 ? 1.0f : 2.0f / 3.0f);
  if (ImGui::BeginTable("data grid", cols, ImGuiTableFlags_SizingStretchSame)) {
    for (int k = 0; k < n; ++k) {
      const Stage st = names[k];
      ImGui::TableNextColumn();
      MapReq r;
      r.stage = st;
      r.max_w = box_w;
      r.max_h = std::max(box_h, 160.0f);
      map(m, r);
    }
    ImGui::EndTable();
  }
}

}  // namespace attnviz::ui
