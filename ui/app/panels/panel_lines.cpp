// panel_lines.cpp: the Lines tab, BertViz's head view. Tokens are listed twice
// (queries on the left, keys on the right) and a line joins query i to key j for
// every head shown, its opacity and width proportional to weights[i][j] (scaled so
// the heaviest line shown is opaque), one colour per head. Hovering a token shows
// only its lines (and feeds the inspector its strongest link); masked (zero)
// weights draw nothing.
//
// Smooth at S = 256 and beyond: lines under kMinWeight are not drawn (at that
// opacity they would be invisible), and of the rest at most kMaxLines, the
// heaviest, are kept. That list is built when a weights version or the set of
// heads shown changes, never per frame.
//
// [SECTION] index
//   LinesCache     heads shown, the lines worth drawing, per-head argmax for hover
//   head toggles   one checkbox per head with its colour
//   the drawing    LinesGeometry, token columns, hover and focus, lines
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "app/model/app_model.h"
#include "app/panels/stage_map.h"
#include "app/widgets/heatmap.h"
#include "app/text/i18n.h"
#include "app/widgets/item_registry.h"
#include "app/model/links.h"
#include "app/panels/panels.h"
#include "attnviz/analysis.h"
#include "imgui.h"

namespace attnviz::ui {

// [SECTION] LinesCache ------------------------------------------------------------------

constexpr float kMinWeight = 0.01f;  // lines for weights below 1% are not drawn
constexpr int kMaxLines = 6000;      // the heaviest lines kept (≤ 48k vertices in this child's draw list)

// Okabe–Ito: distinguishable with every common colour-vision deficiency. Its black
// is replaced by light grey, which shows on the dark background. Heads beyond 8
// reuse the colours in order (their checkboxes say which is which).
constexpr ImU32 kHeadColours[] = {IM_COL32(230, 159, 0, 255),   IM_COL32(86, 180, 233, 255),
                                  IM_COL32(0, 158, 115, 255),   IM_COL32(240, 228, 66, 255),
                                  IM_COL32(0, 114, 178, 255),   IM_COL32(213, 94, 0, 255),
                                  IM_COL32(204, 121, 167, 255), IM_COL32(187, 187, 187, 255)};
static ImU32 head_colour(int h, float alpha = 1.0f) {
  ImU32 c = kHeadColours[h % 8];
  int a = std::clamp((int)std::lround(alpha * 255.0f), 0, 255);
  return (c & 0x00FFFFFFu) | ((ImU32)a << IM_COL32_A_SHIFT);
}

struct LinesCache {
  struct Line {
    float w;  // weights[i][j] of head h
    int h, i, j;
  };
  std::vector<char> shown;             // (H) 1 = head drawn
  std::vector<Line> lines;             // ≤ kMaxLines, lightest first (heavy lines end on top)
  std::vector<uint64_t> built_for;     // (H) weights versions `lines` was built from
  std::vector<char> built_shown;       // (H) `shown` when it was built
  // For hover: the strongest link of a token in each head (analysis_row_stats /
  // analysis_column_argmax of weights h), with the versions they came from.
  std::vector<RowStats> row_stats;     // (H)
  std::vector<std::vector<int>> col_argmax;  // (H) × (S)
  std::vector<uint64_t> argmax_for;    // (H)
};

static TensorView weights_of(const AppModel& m, int h) {
  const Tensor* t = m.engine.pipeline().matrix(Stage::weights, h);
  return t ? t->view() : TensorView{};
}

static LinesCache& cache_of(AppModel& m) {
  if (!m.lines_cache) m.lines_cache = std::make_shared<LinesCache>();
  LinesCache& c = *m.lines_cache;
  const int H = m.engine.num_heads();
  if ((int)c.shown.size() != H) {
    c.shown.assign(H, 1);
    c.built_for.clear();
    c.row_stats.assign(H, RowStats{});
    c.col_argmax.assign(H, {});
    c.argmax_for.assign(H, 0);
  }
  return c;
}

// Rebuilds the line list if a head's weights or the heads shown changed.
static void update_lines(const AppModel& m, LinesCache& c) {
  const int H = (int)c.shown.size();
  bool current = (int)c.built_for.size() == H && c.built_shown == c.shown;
  for (int h = 0; current && h < H; ++h) current = c.built_for[h] == m.engine.version(Stage::weights, h);
  if (current) return;
  c.lines.clear();
  c.built_for.resize(H);
  for (int h = 0; h < H; ++h) {
    c.built_for[h] = m.engine.version(Stage::weights, h);
    if (!c.shown[h]) continue;
    TensorView w = weights_of(m, h);  // (S × S)
    for (int i = 0; i < w.rows; ++i)
      for (int j = 0; j < w.cols; ++j) {
        float v = w.at(i, j);
        if (v >= kMinWeight) c.lines.push_back({v, h, i, j});  // NaN and masked zeros fail the test
      }
  }
  auto lighter = [](const LinesCache::Line& a, const LinesCache::Line& b) { return a.w < b.w; };
  if ((int)c.lines.size() > kMaxLines) {
    std::nth_element(c.lines.begin(), c.lines.end() - kMaxLines, c.lines.end(), lighter);
    c.lines.erase(c.lines.begin(), c.lines.end() - kMaxLines);
  }
  std::sort(c.lines.begin(), c.lines.end(), lighter);
  c.built_shown = c.shown;
}

// Head h's strongest link from query i (side 0) or onto key j (side 1), as a weights cell.
static CellRef strongest_link(const AppModel& m, LinesCache& c, int h, int side, int idx) {
  const uint64_t v = m.engine.version(Stage::weights, h);
  if (c.argmax_for[h] != v) {
    analysis_row_stats(weights_of(m, h), &c.row_stats[h]);
    analysis_column_argmax(weights_of(m, h), &c.col_argmax[h]);
    c.argmax_for[h] = v;
  }
  int other = side == 0 ? c.row_stats[h].argmax[idx] : c.col_argmax[h][idx];
  if (other < 0) other = idx;  // nothing attended: point at the diagonal cell
  return side == 0 ? CellRef{true, Stage::weights, h, idx, other} : CellRef{true, Stage::weights, h, other, idx};
}

// [SECTION] head toggles ----------------------------------------------------------------

static void head_toggles(LinesCache& c) {
  const int H = (int)c.shown.size();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr("Heads:"));
  for (int h = 0; h < H; ++h) {
    ImGui::SameLine(0, h == 0 ? 8 : 14);
    if (ImGui::GetContentRegionAvail().x < 90) ImGui::NewLine();
    // a swatch of the head's colour, then its checkbox
    ImVec2 p = ImGui::GetCursorScreenPos();
    float s = ImGui::GetFrameHeight();
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + 3), ImVec2(p.x + s - 6, p.y + s - 3), head_colour(h), 2);
    ImGui::Dummy(ImVec2(s - 6, s));
    ImGui::SameLine(0, 3);
    char shown[32], label[64], reg[32];
    std::snprintf(shown, sizeof shown, tr("head %d"), h);
    std::snprintf(label, sizeof label, "%s###lines head %d", shown, h);  // the same ID in every language
    std::snprintf(reg, sizeof reg, "lines head %d", h);
    bool on = c.shown[h] != 0;
    if (ImGui::Checkbox(label, &on)) c.shown[h] = on ? 1 : 0;
    item_register(reg);
  }
  ImGui::SameLine(0, 24);
  if (ImGui::SmallButton(L("all"))) std::fill(c.shown.begin(), c.shown.end(), 1);
  item_register("lines all heads");
}

// [SECTION] the drawing -----------------------------------------------------------------

// Where everything goes: [query labels | lines | key labels], centred, one row per
// token. Sizes come from the tab's room (lines_sizes), places from the child's
// scrolled cursor and clip rectangle (lines_places).
struct LinesGeometry {
  int H = 0, S = 0;
  float th = 0;             // a text line's height
  float label_w = 0;        // a token column's width
  float gap = 0;            // the lines' span between the columns
  float header_h = 0;       // the "queries" / "keys" line above the rows
  float row_h = 0;          // one token's row
  float fan = 0;            // how far apart the heads' lines end within a row
  float total_w = 0;        // both columns and the gap
  // In the child, in screen pixels:
  ImVec2 win0;              // the content's top left (scrolls with it)
  float x0 = 0;             // the query column's left edge
  float gx0 = 0, gx1 = 0;   // the lines run between gx0 and gx1
  float y0 = 0;             // the first row's top
  ImVec2 clip_min, clip_max;  // the visible part of the child
  int first = 0, last = -1;   // the rows in view

  float row_y(int i) const { return y0 + row_h * ((float)i + 0.5f); }
  // Each head's lines end at its own height within a row, so heads sharing a link
  // show as parallel lines in their colours rather than one blended line.
  float head_dy(int h) const { return fan * ((float)h - 0.5f * (float)(H - 1)); }
};

// The token focused: side 0 = query idx (`other`: the key of a focused cell), 1 = key idx.
struct LinesFocus {
  int side = -1, idx = -1, other = -1;
  bool on() const { return side >= 0; }
};

// What the tab shows and how to read it, greyed, above the head toggles.
static void lines_intro() {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
  ImGui::TextWrapped(tr("Query i (left) attends to key j (right): opacity and width grow with weights[i][j]. "
                        "Hover a token to see only its lines; click to pin it. No line for weights under %g%%."),
                     100.0 * kMinWeight);
  ImGui::PopStyleColor();
}

// Column and row sizes from the room the tab has left.
static LinesGeometry lines_sizes(const std::vector<std::string>& toks, int H, int S) {
  LinesGeometry g;
  g.H = H;
  g.S = S;
  g.th = ImGui::GetTextLineHeight();
  g.label_w = std::max(ImGui::CalcTextSize(tr("queries")).x, ImGui::CalcTextSize(tr("keys")).x);
  for (const auto& t : toks) g.label_w = std::max(g.label_w, ImGui::CalcTextSize(t.c_str()).x);
  g.label_w = std::min(g.label_w, 160.0f) + 12.0f;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  g.gap = std::clamp(avail.x - 2 * g.label_w - 40.0f, 160.0f, 520.0f);
  g.header_h = g.th + 8.0f;
  g.row_h = std::clamp((avail.y - g.header_h - 8.0f) / (float)std::max(S, 1), g.th + 3.0f, 44.0f);
  g.fan = std::min(3.0f, (g.row_h - 4.0f) / (float)std::max(H, 1));
  g.total_w = 2 * g.label_w + g.gap;
  return g;
}

// Inside the child: where the columns and rows are now, and which rows are in view.
static void lines_places(LinesGeometry& g, const ImDrawList* dl) {
  g.win0 = ImGui::GetCursorScreenPos();
  g.x0 = g.win0.x + std::max(0.0f, (ImGui::GetContentRegionAvail().x - g.total_w) * 0.5f);
  g.gx0 = g.x0 + g.label_w;
  g.gx1 = g.gx0 + g.gap;
  g.y0 = g.win0.y + g.header_h;
  g.clip_min = dl->GetClipRectMin();
  g.clip_max = dl->GetClipRectMax();
  g.first = std::max(0, (int)std::floor((g.clip_min.y - g.y0) / g.row_h));
  g.last = std::min(g.S - 1, (int)std::ceil((g.clip_max.y - g.y0) / g.row_h));
}

static void column_headers(ImDrawList* dl, const LinesGeometry& g) {
  const ImU32 dim_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const char* queries = tr("queries");
  dl->AddText(ImVec2(g.gx0 - 8 - ImGui::CalcTextSize(queries).x, g.win0.y), dim_col, queries);
  dl->AddText(ImVec2(g.gx1 + 8, g.win0.y), dim_col, tr("keys"));
}

// A button under each token label in view (only those are submitted): the one hovered.
static LinesFocus hovered_token(const LinesGeometry& g) {
  LinesFocus hover;
  for (int i = g.first; i <= g.last; ++i) {
    for (int side = 0; side < 2; ++side) {
      ImGui::PushID(i * 2 + side);
      ImGui::SetCursorScreenPos(ImVec2(side == 0 ? g.x0 : g.gx1, g.y0 + g.row_h * (float)i));
      ImGui::InvisibleButton("tok", ImVec2(g.label_w, g.row_h));
      char reg[32];
      std::snprintf(reg, sizeof reg, side == 0 ? "lines q%d" : "lines k%d", i);
      item_register(reg);
      if (ImGui::IsItemHovered()) {
        hover.side = side;
        hover.idx = i;
      }
      ImGui::PopID();
    }
  }
  return hover;
}

// Our own hover first, else a weights-like cell focused in another view.
static LinesFocus lines_focus(const AppModel& m, const LinesFocus& hover, int S) {
  if (hover.on()) return hover;
  LinesFocus f;
  const CellRef& c = m.focus();
  if (c.valid && stage_is_square(c.stage) && c.row < S && c.col < S) f = LinesFocus{0, c.row, c.col};
  return f;
}

// A hovered token feeds the Inspector its strongest link in the head viewed (else
// the first head shown); a click pins that cell.
static void hover_link(AppModel& m, LinesCache& c, const LinesFocus& hover) {
  if (!hover.on()) return;
  const int H = m.engine.num_heads();
  int h = m.view.head < H && c.shown[m.view.head] ? m.view.head : -1;
  for (int k = 0; k < H && h < 0; ++k)
    if (c.shown[k]) h = k;
  if (h < 0) return;
  m.hover_next = strongest_link(m, c, h, hover.side, hover.idx);
  if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
    toggle_pin(m.view.pinned, m.hover_next);
  }
}

// Labels in view, brighter for the focused token and for the tokens its lines reach.
static void token_labels(ImDrawList* dl, const LinesGeometry& g, const std::vector<std::string>& toks,
                         const LinesFocus& f) {
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text), dim_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  for (int i = g.first; i <= g.last; ++i) {
    const char* t = i < (int)toks.size() ? toks[i].c_str() : "?";
    float tw = std::min(ImGui::CalcTextSize(t).x, g.label_w - 12.0f);
    float y = g.row_y(i) - g.th * 0.5f;
    for (int side = 0; side < 2; ++side) {
      bool hot = (f.side == side && f.idx == i) || (f.side == 0 && side == 1 && f.other == i);
      float x = side == 0 ? g.gx0 - 8 - tw : g.gx1 + 8;
      if (hot)
        dl->AddRectFilled(ImVec2(x - 4, g.row_y(i) - g.row_h * 0.5f + 1),
                          ImVec2(x + tw + 4, g.row_y(i) + g.row_h * 0.5f - 1), ImGui::GetColorU32(ImGuiCol_Header),
                          3.0f);
      ImVec4 lclip(x, y, x + tw + 1, y + g.th);
      dl->AddText(nullptr, 0.0f, ImVec2(x, y), hot || !f.on() ? text_col : dim_col, t, nullptr, 0.0f, &lclip);
    }
  }
}

// The focused token's weight to (or from) token k.
static float focus_weight(const TensorView& w, const LinesFocus& f, int k) {
  return f.side == 0 ? w.at(f.idx, k) : w.at(k, f.idx);
}

// The heaviest line to draw: of the focused token's in every head shown (NaN is
// skipped), else of the cached ones.
static float heaviest_line(const AppModel& m, const LinesCache& c, const LinesGeometry& g, const LinesFocus& f) {
  float w_max = 0.0f;
  if (f.on()) {
    for (int h = 0; h < g.H; ++h)
      if (c.shown[h]) {
        TensorView w = weights_of(m, h);  // (S × S)
        for (int k = 0; k < g.S; ++k) w_max = std::max(w_max, focus_weight(w, f, k));
      }
  } else if (!c.lines.empty()) {
    w_max = c.lines.back().w;  // sorted lightest first
  }
  return w_max;
}

// The lines. Focused: that token's lines in every head shown, straight from the
// weights (at most H·S, threshold only). Otherwise the cached heaviest lines.
// Opacity and width are proportional to the weight, scaled so that the heaviest
// line shown is opaque (at large S every weight is small; the header says the scale).
static void draw_lines(ImDrawList* dl, const AppModel& m, const LinesCache& c, const LinesGeometry& g,
                       const LinesFocus& f) {
  const float w_max = heaviest_line(m, c, g, f);
  const float gain = w_max >= kMinWeight ? 1.0f / w_max : 1.0f;
  if (w_max >= kMinWeight) {
    char scale[96];
    std::snprintf(scale, sizeof scale, tr("opaque line = weight %s"), format_value(w_max, 3).c_str());
    dl->AddText(ImVec2(0.5f * (g.gx0 + g.gx1) - 0.5f * ImGui::CalcTextSize(scale).x, g.win0.y),
                ImGui::GetColorU32(ImGuiCol_TextDisabled), scale);
  }
  const float top = g.clip_min.y - g.row_h, bottom = g.clip_max.y + g.row_h;
  int drawn = 0;
  auto line = [&](int h, int i, int j, float w) {
    float ya = g.row_y(i) + g.head_dy(h), yb = g.row_y(j) + g.head_dy(h);
    if ((ya < top && yb < top) || (ya > bottom && yb > bottom)) return;  // off screen
    float t = std::min(w * gain, 1.0f);
    float width = std::round(1.0f + 3.0f * t);  // 1 … 4 px: whole pixels draw fastest
    dl->AddLine(ImVec2(g.gx0, ya), ImVec2(g.gx1, yb), head_colour(h, t), width);
    ++drawn;
  };
  if (!f.on()) {
    for (const LinesCache::Line& l : c.lines) line(l.h, l.i, l.j, l.w);
    return;
  }
  for (int h = 0; h < g.H; ++h) {
    if (!c.shown[h]) continue;
    TensorView w = weights_of(m, h);  // (S × S)
    for (int k = 0; k < g.S && drawn < kMaxLines; ++k) {
      float v = focus_weight(w, f, k);
      if (v >= kMinWeight) line(h, f.side == 0 ? f.idx : k, f.side == 0 ? k : f.idx, v);
    }
  }
}

// Registers the drawing area (its visible part) and reserves the content's size for scrolling.
static void lines_extent(const LinesGeometry& g) {
  ImVec2 a0(g.gx0, std::max(g.y0, g.clip_min.y)), a1(g.gx1, std::min(g.y0 + g.row_h * (float)g.S, g.clip_max.y));
  if (a1.y > a0.y) item_registry().add("lines", a0, a1);
  ImGui::SetCursorScreenPos(g.win0);
  ImGui::Dummy(ImVec2(g.total_w, g.header_h + g.row_h * (float)g.S + 4.0f));
}

void lines_tab(AppModel& m) {
  const int H = m.engine.num_heads();
  if (!m.engine.has_result() || H == 0) {
    ImGui::TextDisabled("%s", tr("No result yet."));
    return;
  }
  if (m.engine.long_mode()) {  // every pair of every head: no head is held whole at this length
    long_input_sentence(m, tr("The lines view draws every query\xE2\x80\x93key pair of every head"));
    return;
  }
  LinesCache& c = cache_of(m);
  const auto& toks = m.engine.tokens();
  lines_intro();
  head_toggles(c);
  update_lines(m, c);
  LinesGeometry g = lines_sizes(toks, H, m.engine.pipeline().seq_len());

  ImGui::BeginChild("lines area", ImVec2(0, 0), false, ImGuiWindowFlags_NoMove);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  lines_places(g, dl);
  column_headers(dl, g);
  const LinesFocus hover = hovered_token(g);
  const LinesFocus focus = lines_focus(m, hover, g.S);
  hover_link(m, c, hover);
  token_labels(dl, g, toks, focus);
  draw_lines(dl, m, c, g, focus);
  lines_extent(g);
  ImGui::EndChild();
}

}  // namespace attnviz::ui
