// panel_compare.cpp: the Compare heads tab. The engine computes every number shown
// here (attnviz/analysis.h); this file keeps the results in a CompareCache keyed by
// the stage versions they came from and draws them.
//
// [SECTION] index
//   CompareCache       retained analysis results, rebuilt only when versions change
//   All heads          small multiples of one stage, click selects the head; a trained
//                      model's layers × heads grid with head scores (panel_heads_grid.cpp)
//   A/B                two heads, their difference, and the heads × heads divergence
//   Row statistics     entropy, max weight and argmax key of every query row, per head
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/model/app_model.h"
#include "app/text/i18n.h"
#include "app/widgets/item_registry.h"
#include "app/widgets/map_label.h"
#include "app/model/links.h"
#include "app/panels/panel_heads_grid.h"
#include "app/panels/panels.h"
#include "imgui_internal.h"  // the table's inner window: where its rows show, scroll bars excluded
#include "app/panels/stage_flow.h"
#include "app/panels/stage_map.h"
#include "attnviz/pipeline.h"
#include "attnviz/analysis.h"
#include "imgui.h"

namespace attnviz::ui {

// [SECTION] CompareCache --------------------------------------------------------------

// The head divergence costs H(H−1)/2 · S² logarithms; above this many it waits for a
// click instead of recomputing on every edit (2^23 take about 0.09 s in wasm, 0.05 s
// native; the other statistics here cost H·S², as much as the softmax itself).
constexpr double kDivergenceAutoBudget = double(1 << 23);

// ln 2 in float32: the largest Jensen–Shannon divergence (natural log), the top of
// the divergence map's fixed scale.
constexpr float kLn2f = 0.693147182f;

struct CompareCache {
  // Row statistics of weights, per head, each for the weights version it was computed from.
  std::vector<RowStats> stats;            // (H), stats[h] over weights h (S × S)
  std::vector<uint64_t> stats_version;    // (H), 0 = not computed

  // Mean Jensen–Shannon divergence of all heads' weights (analysis_head_divergence).
  Tensor divergence;                      // (H × H)
  std::vector<uint64_t> divergence_for;   // (H) weights versions it was computed from
  uint64_t divergence_version = 0;        // derived from those, for the heatmap texture
  bool divergence_requested = false;      // the user asked for a large computation
  std::vector<TensorView> views;          // (H) scratch: every head's weights
  std::vector<std::string> head_names;    // (H) "h0", "h1", ...: divergence axis labels

  // The All heads grid's one colour scale: the stage (and its versions) it was found for.
  uint64_t grid_version = 0;
  float grid_lo = 0.0f, grid_hi = 1.0f;
  bool grid_signed = false;               // a diverging scale centred on 0
  bool grid_own = false;                  // no (S × S) matrices to scan (long input): each head its own scale

  // A − B of the compare stage.
  Tensor diff;                            // (R × C) of that stage
  uint64_t diff_version = 0;              // derived from the versions of A and B (0 = none)
};

// Mixes two stamps into one (splitmix64 finaliser); never 0, so it never looks "unset".
static uint64_t mix_versions(uint64_t a, uint64_t b) {
  uint64_t z = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull + (a << 6) + (a >> 2));
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return z ? z : 1;
}

static CompareCache& cache_of(AppModel& m) {
  if (!m.compare_cache) m.compare_cache = std::make_shared<CompareCache>();
  CompareCache& c = *m.compare_cache;
  const int H = m.engine.num_heads();
  if ((int)c.stats.size() != H) {
    // A new number of heads: start A/B on two different heads.
    if (H > 1 && m.view.head_b == m.view.head) m.view.head_b = (m.view.head + 1) % H;
    c.stats.assign(H, RowStats{});
    c.stats_version.assign(H, 0);
    c.head_names.clear();
    for (int h = 0; h < H; ++h) c.head_names.push_back("h" + std::to_string(h));
  }
  return c;
}

static TensorView weights_view(const AppModel& m, int h) {
  const Tensor* t = m.engine.pipeline().matrix(Stage::weights, h);
  return t ? t->view() : TensorView{};
}

// Row statistics of head h's weights, recomputed only when that head's weights changed.
static const RowStats& head_stats(AppModel& m, CompareCache& c, int h) {
  uint64_t v = m.engine.version(Stage::weights, h);
  if (c.stats_version[h] != v) {
    analysis_row_stats(weights_view(m, h), &c.stats[h]);
    c.stats_version[h] = v;
  }
  return c.stats[h];
}

// Brings the divergence matrix up to date if it is cheap or was asked for; returns
// whether it is current.
static bool update_divergence(AppModel& m, CompareCache& c) {
  const int H = m.engine.num_heads(), S = m.engine.pipeline().seq_len();
  std::vector<uint64_t>& now = c.divergence_for;  // (H)
  bool current = (int)now.size() == H && c.divergence.rows == H;
  for (int h = 0; current && h < H; ++h) current = now[h] == m.engine.version(Stage::weights, h);
  if (current) return true;
  const double cost = 0.5 * H * (H - 1) * (double)S * S;
  if (cost > kDivergenceAutoBudget && !c.divergence_requested) return false;
  c.views.resize(H);
  now.resize(H);
  uint64_t v = 0x5157u;
  for (int h = 0; h < H; ++h) {
    c.views[h] = weights_view(m, h);
    now[h] = m.engine.version(Stage::weights, h);
    v = mix_versions(v, now[h]);
  }
  analysis_head_divergence(c.views.data(), H, &c.divergence);
  c.divergence_version = v;
  c.divergence_requested = false;
  return true;
}

static const std::vector<std::string>* tokens_if(const AppModel& m, int n) {
  const auto& t = m.engine.tokens();
  return (int)t.size() == n ? &t : nullptr;
}

// Picks a head into *head with a combo labelled `label` (an English key).
static void head_combo(const char* label, int* head, int H) {
  char preview[32], widest[32];
  std::snprintf(preview, sizeof preview, tr("head %d"), *head);
  std::snprintf(widest, sizeof widest, tr("head %d"), 88);
  ImGui::SetNextItemWidth(ImGui::CalcTextSize(widest).x + ImGui::GetFrameHeight() * 2);
  if (ImGui::BeginCombo(L(label), preview)) {
    for (int h = 0; h < H; ++h) {
      char name[32];
      std::snprintf(name, sizeof name, tr("head %d"), h);
      if (ImGui::Selectable(name, *head == h)) *head = h;
    }
    ImGui::EndCombo();
  }
  item_register(label);
}

// [SECTION] All heads -------------------------------------------------------------------

// The stage combo shared by the grid and the A/B view (m.view.compare_stage): every
// per-head stage, in pipeline order. Stages go by their PyTorch names in every language.
static void stage_combo(AppModel& m) {
  const State& st = m.engine.pipeline().state();
  // A stage the state no longer has (q_rot after RoPE was turned off): back to weights.
  if (!stage_present(st, m.view.compare_stage)) m.view.compare_stage = Stage::weights;
  ImGui::SetNextItemWidth(ImGui::CalcTextSize(stage_name(Stage::weights)).x + ImGui::GetFrameHeight() * 2.5f);
  if (ImGui::BeginCombo(L("Stage"), stage_name(m.view.compare_stage))) {
    char name[32];
    for (int k = 0; k < kStageCount; ++k) {
      const Stage s = static_cast<Stage>(k);
      if (!stage_is_per_head(s) || !stage_present(st, s)) continue;  // q_rot, k_rot: RoPE; bias: ALiBi
      if (ImGui::Selectable(stage_name(s), m.view.compare_stage == s)) m.view.compare_stage = s;
      std::snprintf(name, sizeof name, "Stage: %s", stage_name(s));  // e.g. "Stage: scores", for tests
      item_register(name);
    }
    ImGui::EndCombo();
  }
  item_register("Stage");
}

// One colour scale for every head's map, so equal colours mean equal values across
// heads: weights [0, 1], dropped weights [0, 1/(1−p)], signed stages ± the largest
// |value| of any head (−inf and NaN have their own colours). Recomputed only when a
// head's matrix of that stage changed.
static void update_grid_range(AppModel& m, CompareCache& c, Stage stage) {
  const int H = m.engine.num_heads();
  // A grid of layers (a trained model's, captured ones) shows every layer: one scale for all of them.
  const LayerStack& st = m.engine.stack();
  const bool all = m.engine.layered();
  const int l0 = all ? 0 : m.engine.layer(), l1 = all ? st.num_layers() : l0 + 1;
  uint64_t v = mix_versions(0x6A1D, (uint64_t)stage);
  for (int l = l0; l < l1; ++l)
    for (int h = 0; h < H; ++h) v = mix_versions(v, st.layer(l).version(stage, h));
  const Pipeline& p = m.engine.pipeline();
  if (stage == Stage::dropped && p.dropout_active() && p.dropout_scale() > 0)
    v = mix_versions(v, (uint64_t)(p.dropout_scale() * 1e6f));
  if (v == c.grid_version) return;
  c.grid_version = v;
  c.grid_lo = 0.0f;
  c.grid_signed = false;
  c.grid_own = false;
  if (stage == Stage::weights) {
    c.grid_hi = 1.0f;
  } else if (stage == Stage::dropped) {
    c.grid_hi = p.dropout_active() && p.dropout_scale() > 0 ? p.dropout_scale() : 1.0f;
  } else if (m.engine.long_mode()) {  // no matrices to scan: each head's overview keeps its own scale
    c.grid_signed = true;
    c.grid_own = true;
  } else {
    float a = 0.0f;
    for (int l = l0; l < l1; ++l)
      for (int h = 0; h < H; ++h) {
        const Tensor* t = st.layer(l).matrix(stage, h);
        for (size_t k = 0, n = t ? t->data.size() : 0; k < n; ++k)
          if (std::isfinite(t->data[k])) a = std::max(a, std::fabs(t->data[k]));
      }
    if (a == 0.0f) a = 1.0f;
    c.grid_lo = -a;
    c.grid_hi = a;
    c.grid_signed = true;
  }
}

// The grid's colour bar: a horizontal gradient with its range written at both ends
// (and a tick at 0, the middle of a signed scale). Registered as "all heads colour bar".
static void grid_colour_bar(const CompareCache& c, Colormap cmap) {
  const float th = ImGui::GetTextLineHeight();
  const float bar_w = std::clamp(ImGui::GetContentRegionAvail().x * 0.3f, 120.0f, 260.0f);
  char lo[24], hi[24];
  std::snprintf(lo, sizeof lo, "%.4g", (double)c.grid_lo);
  std::snprintf(hi, sizeof hi, "%.4g", (double)c.grid_hi);
  ImGui::TextUnformatted(lo);
  ImGui::SameLine(0, 6);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float y0 = p0.y + 2.0f, h = th - 4.0f;
  ImGui::Dummy(ImVec2(bar_w, th));
  item_register("all heads colour bar");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int steps = 64;
  for (int k = 0; k < steps; ++k)
    dl->AddRectFilled(ImVec2(p0.x + bar_w * k / steps, y0), ImVec2(p0.x + bar_w * (k + 1) / steps, y0 + h),
                      colormap_at(cmap, (k + 0.5f) / steps));
  dl->AddRect(ImVec2(p0.x, y0), ImVec2(p0.x + bar_w, y0 + h), ImGui::GetColorU32(ImGuiCol_TextDisabled));
  if (c.grid_signed) {  // a tick at 0, the white centre
    const float x = p0.x + bar_w * 0.5f;
    dl->AddLine(ImVec2(x, y0 - 2.0f), ImVec2(x, y0 + h + 2.0f), ImGui::GetColorU32(ImGuiCol_Text), 1.0f);
  }
  ImGui::SameLine(0, 6);
  ImGui::TextUnformatted(hi);
}

// Head h's map in the grid: values printed in the cells when they fit, the grid's
// scale, no colour bar of its own; hover explains a cell, a click pins it and
// selects the head.
static void grid_map(AppModel& m, const CompareCache& c, Stage stage, int h, float max_width, float cell) {
  char title[96];
  const MapLabel label = map_label(stage, h);
  const bool overview = stage_overview(m, stage);  // a long map: every head's overview
  MatrixView v = overview ? MatrixView{} : m.engine.matrix(stage, h);
  if (overview) v.rows = v.cols = m.engine.pipeline().seq_len();
  const State& st = m.engine.pipeline().state();
  const int H = st.num_heads, G = st.kv_heads();
  if (G != H && G > 0 && H % G == 0)  // GQA / MQA: the K/V head this query head reads
    std::snprintf(title, sizeof title, tr("%s, K/V head %d  (%d\xC3\x97%d)"), label.c_str(), h / (H / G), v.rows, v.cols);
  else
    std::snprintf(title, sizeof title, "%s  (%d×%d)", label.c_str(), v.rows, v.cols);
  HeatmapSpec spec;
  spec.label = label.c_str();
  spec.exports = &m.exports;
  spec.title = title;
  spec.row_labels = tokens_if(m, v.rows);
  spec.col_labels = stage_is_square(stage) ? tokens_if(m, v.cols) : nullptr;
  spec.cmap = c.grid_signed ? Colormap::rdbu : m.view.weights_cmap;
  spec.fixed_range = !c.grid_own;
  spec.diverging = c.grid_own;  // a long signed stage: each head's own scale (update_grid_range)
  spec.fixed_lo = c.grid_lo;
  spec.fixed_hi = c.grid_hi;
  spec.keep = dropout_marks(m, stage, h);
  Highlight hl = linked_highlight(m.focus(), stage, h, m.engine.pipeline().head_dim());
  spec.highlight_row = hl.row;
  spec.highlight_col = hl.col;
  spec.max_width = max_width;
  spec.max_cell = cell;
  spec.show_colour_bar = overview;  // one bar for the whole grid, above it; an overview's says how it pools
  HeatmapHover hv;
  if (overview) {
    const StageMap src(m.engine, stage, h, m.view.overview_mean);
    hv = heatmap_overview(spec, src, m.heatmap_cache(label.c_str()), *m.textures);
  } else {
    hv = heatmap(spec, v, m.engine.version(stage, h), m.heatmap_cache(label.c_str()), *m.textures);
  }
  if (!hv.hovered) return;
  if (hv.block > 1) {  // a pooled block: its tooltip says what it pools; a click still selects the head
    if (hv.clicked) m.view.head = h;
    return;
  }
  m.hover_next = CellRef{true, stage, h, hv.row, hv.col};
  if (hv.clicked) {
    toggle_pin(m.view.pinned, m.hover_next);
    m.view.head = h;
  }
}

// The grid's controls: the stage, the colour bar and its scale, the head scores'
// choice, and what a click does.
static void all_heads_header(AppModel& m, CompareCache& c) {
  const int H = m.engine.num_heads();
  stage_combo(m);
  update_grid_range(m, c, m.view.compare_stage);  // the stage as the combo left it
  ImGui::SameLine(0, 16);
  ImGui::AlignTextToFramePadding();
  if (!c.grid_own) {  // one scale: its bar; each head's own: under each map
    grid_colour_bar(c, c.grid_signed ? Colormap::rdbu : m.view.weights_cmap);
    ImGui::SameLine(0, 16);
  }
  if (c.grid_own)
    ImGui::TextDisabled("%s", tr("each head its own scale (at this length no head is held whole), white = 0"));
  else
    ImGui::TextDisabled("%s", c.grid_signed ? tr("one scale for every head, white = 0") : tr("one scale for every head"));
  head_scores_toggle(m);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
  if (m.engine.layered())
    ImGui::TextWrapped("%s", tr("Rows are layers, columns heads. Click a head to show it in every tab; hover a score "
                                "for how it is computed, click it to keep it in the Inspector."));
  else
    ImGui::TextWrapped("%s", tr("Click a map to select that head (the Stages tab follows); hover a cell for its value."));
  {
    const State& st = m.engine.pipeline().state();
    const int G = st.kv_heads();
    if (G != H && G > 0 && H % G == 0)
      ImGui::TextWrapped(tr("%d K/V heads for %d query heads: query head h reads K/V head h / %d, so heads %d at a "
                            "time share their K and V."),
                         G, H, H / G, H / G);
  }
  ImGui::PopStyleColor();
}

// A one-layer state's heads: each head's scores above its map, as many maps a row as
// give the largest cells.
static void one_layer_grid(AppModel& m, CompareCache& c) {
  const int H = m.engine.num_heads();
  const Stage stage = m.view.compare_stage;
  // Columns: the count that gives the largest cells, filling the width and the height.
  // An overview is laid out as the kOverviewCells pooled cells it shows across, then its
  // cells are that much smaller (map_zoom.h): every head's whole map stays in view.
  const bool overview = stage_overview(m, stage);
  MatrixView v0 = overview ? MatrixView{} : m.engine.matrix(stage, 0);
  const int S = m.engine.pipeline().seq_len(), shown = overview ? std::min(S, kOverviewCells) : 0;
  const int R = overview ? shown : std::max(v0.rows, 1), C = overview ? shown : std::max(v0.cols, 1);
  float token_w = 0;
  for (const auto& t : m.engine.tokens()) token_w = std::max(token_w, ImGui::CalcTextSize(t.c_str()).x);
  const float label_w = std::min(token_w, 110.0f) + 14.0f;  // as heatmap_layout() caps row labels (+6), plus the frame
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float spacing = ImGui::GetStyle().ItemSpacing.x + 8.0f;
  const float line = ImGui::GetTextLineHeightWithSpacing();
  head_scores_prepare(m);
  // Title + column labels + gap, and the head scores' lines at that width; column labels
  // turn upright (as tall as the longest token, heatmap_layout.h) when they do not fit across a cell.
  auto chrome_h = [&](float side, float w) {
    return line * (1 + head_scores_lines(m, w)) + (token_w + 4.0f <= side ? line : std::min(token_w, 110.0f) + 6.0f) +
           14.0f + (overview ? heatmap_bar_height(false, true) : 0.0f);  // an overview's own bar and caption
  };
  int cols = 1;
  float cell = 0;
  for (int k = 1; k <= H; ++k) {
    const int rows = (H + k - 1) / k;
    const float w = (avail.x - spacing * (k - 1)) / k;
    float side = std::min((w - label_w) / C, (avail.y / rows - chrome_h(1e9f, w)) / R);
    side = std::min(side, (avail.y / rows - chrome_h(side, w)) / R);
    if (side > cell * 1.05f) {  // clearly larger (relative: cells may be under a pixel)
      cell = side;
      cols = k;
    }
  }
  // Down to half a pixel per cell: all heads stay on screen together (12 heads at S = 256
  // fit a laptop screen); zoom a map (wheel) to read its cells.
  cell = std::clamp(cell, 0.5f, 64.0f);  // up to the Stages maps' largest cells
  const float width = std::floor((avail.x - spacing * (cols - 1)) / cols);
  const int Cn = overview ? S : C;  // the map's own columns: an overview's cells are S / shown times smaller
  if (overview) cell = cell * (float)shown / (float)S;
  for (int h = 0; h < H; ++h) {
    ImGui::PushID(h);
    ImGui::BeginGroup();
    head_scores_block(m, h, width - 8.0f);
    grid_map(m, c, stage, h, std::min(width - 8.0f, label_w + cell * Cn + 2.0f), cell);
    ImGui::EndGroup();
    if (h == m.view.head) {  // the selected head: a frame around its map
      ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
      ImGui::GetWindowDrawList()->AddRect(ImVec2(a.x - 4, a.y - 2), ImVec2(b.x + 4, b.y),
                                          ImGui::GetColorU32(ImGuiCol_PlotHistogram), 3.0f, 0, 2.0f);
    }
    ImGui::PopID();
    const float used = ImGui::GetItemRectSize().x;
    if ((h + 1) % cols != 0 && h + 1 < H) ImGui::SameLine(0, spacing + std::max(0.0f, width - used));
    else ImGui::Dummy(ImVec2(0, 4));
  }
}

static void all_heads(AppModel& m, CompareCache& c) {
  all_heads_header(m, c);
  if (!m.engine.layered()) {
    one_layer_grid(m, c);
    return;
  }
  GridScale scale;
  scale.stage = m.view.compare_stage;
  scale.lo = c.grid_lo;
  scale.hi = c.grid_hi;
  scale.cmap = c.grid_signed ? Colormap::rdbu : m.view.weights_cmap;
  heads_grid(m, scale);
}

// [SECTION] A/B -------------------------------------------------------------------------

// The A/B row's largest cell: a weight ("0.1754") and a gap between neighbours fit
// (heatmap_layout's value_gap), and the divergence map below stays in view at 1440×900.
constexpr float kAbCell = 48.0f;

static void difference_map(AppModel& m, CompareCache& c, int a, int b, float width) {
  const Stage stage = m.view.compare_stage;
  MatrixView va = m.engine.matrix(stage, a), vb = m.engine.matrix(stage, b);
  const MapLabel label = map_label_diff(a, b);
  if (m.engine.long_mode() && stage_is_square(stage)) {  // A − B needs every cell of both heads
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    long_input_sentence(m, tr("A \xE2\x88\x92 B subtracts every cell of one head from the other's"));
    ImGui::PopTextWrapPos();
    return;
  }
  if (!va.data || !vb.data) {
    ImGui::TextDisabled("%s", tr("(not computed)"));
    return;
  }
  const uint64_t v = mix_versions(m.engine.version(stage, a), m.engine.version(stage, b));
  if (v != c.diff_version) {
    analysis_difference(TensorView{va.data, va.rows, va.cols, va.cols}, TensorView{vb.data, vb.rows, vb.cols, vb.cols},
                        &c.diff);
    c.diff_version = v;
  }
  HeatmapSpec spec;
  spec.label = label.c_str();
  spec.exports = &m.exports;
  char title[96];
  std::snprintf(title, sizeof title, "A − B: %s h%d − h%d  (%d×%d)", stage_name(stage), a, b, c.diff.rows,
                c.diff.cols);
  spec.title = title;
  spec.row_labels = tokens_if(m, c.diff.rows);
  spec.col_labels = stage_is_square(stage) ? tokens_if(m, c.diff.cols) : nullptr;
  spec.cmap = Colormap::rdbu;
  spec.diverging = true;  // centred on 0: red where A is larger, blue where B is
  const CellRef& f = m.focus();
  if (f.valid && f.stage == stage && (f.head == a || f.head == b)) {
    spec.highlight_row = f.row;
    spec.highlight_col = f.col;
  }
  spec.max_width = width;
  spec.max_cell = kAbCell;
  HeatmapHover hv = heatmap(spec, MatrixView{c.diff.rows, c.diff.cols, c.diff.data.data()}, c.diff_version,
                            m.heatmap_cache(label.c_str()), *m.textures);
  if (hv.hovered) m.hover_next = CellRef{true, stage, a, hv.row, hv.col};  // the inspector explains A's cell
}

// The heads × heads mean Jensen–Shannon divergence of the weights, on the fixed scale
// [0, ln 2]: dark = the heads attend alike, bright = they attend to different keys.
static void divergence_map(AppModel& m, CompareCache& c) {
  const int H = m.engine.num_heads(), S = m.engine.pipeline().seq_len();
  if (m.engine.long_mode()) {  // every pair of heads over every row of weights
    long_input_sentence(m, tr("The head divergence compares every row of weights of every pair of heads"));
    return;
  }
  if (!update_divergence(m, c)) {
    ImGui::TextWrapped(tr("The head divergence compares every pair of heads over all %d×%d weights (%d pairs): "
                          "too much to redo on every edit."),
                       S, S, H * (H - 1) / 2);
    if (ImGui::Button(L("Compute head divergence"))) c.divergence_requested = true;
    return;
  }
  HeatmapSpec spec;
  spec.label = "head divergence";
  spec.exports = &m.exports;
  char title[80];
  std::snprintf(title, sizeof title, tr("JS divergence  (%d×%d)"), H, H);
  spec.title = title;
  spec.row_labels = &c.head_names;
  spec.col_labels = &c.head_names;
  spec.cmap = m.view.weights_cmap;
  spec.fixed_range = true;  // the measure's own range: 0 = same, ln 2 = disjoint
  spec.fixed_lo = 0.0f;
  spec.fixed_hi = kLn2f;
  spec.highlight_row = m.view.head;
  spec.highlight_col = m.view.head_b;
  spec.max_cell = 60.0f;  // wide enough for 4 decimals
  spec.max_width = ImGui::GetContentRegionAvail().x;
  HeatmapHover hv = heatmap(spec, MatrixView{c.divergence.rows, c.divergence.cols, c.divergence.data.data()},
                            c.divergence_version, m.heatmap_cache("head divergence"), *m.textures);
  if (hv.hovered) {
    char v[32];
    std::snprintf(v, sizeof v, "%.4f", (double)c.divergence.at(hv.row, hv.col));
    ImGui::SetTooltip(tr("heads %d and %d: mean Jensen–Shannon divergence %s\n(0 = attend alike, ln 2 ≈ 0.6931 = "
                         "disjoint keys)\nclick: compare them above"),
                      hv.row, hv.col, std::isnan(c.divergence.at(hv.row, hv.col)) ? tr("nan (no valid row)") : v);
    if (hv.clicked) {
      m.view.head = hv.row;
      m.view.head_b = hv.col;
    }
  }
}

// What the divergence map shows, in words.
static void divergence_about() {
  ImGui::TextWrapped("%s", tr("How differently two heads attend: for each query, the Jensen–Shannon divergence "
                              "(natural log) between the two heads' rows of weights, averaged over the queries."));
  ImGui::Spacing();
  ImGui::TextWrapped("%s", tr("0 (dark) = the heads attend identically; ln 2 ≈ 0.693 (bright) = no query of one head "
                              "attends to a key the other attends to. The scale is fixed at 0 … ln 2, so colours "
                              "mean the same in every session; the value is printed in each cell. The diagonal is "
                              "0. Rows that are NaN or all zero in either head are skipped."));
  ImGui::Spacing();
  ImGui::TextWrapped("%s", tr("Click a cell to compare those two heads above (row = A, column = B)."));
  ImGui::Spacing();
}

static void ab_view(AppModel& m, CompareCache& c) {
  const int H = m.engine.num_heads();
  stage_combo(m);
  ImGui::SameLine(0, 16);
  head_combo(N_("Head A"), &m.view.head, H);
  ImGui::SameLine(0, 16);
  head_combo(N_("Head B"), &m.view.head_b, H);
  ImGui::SameLine(0, 16);
  if (ImGui::Button(L("Swap"))) std::swap(m.view.head, m.view.head_b);
  const int a = m.view.head, b = m.view.head_b;

  if (ImGui::BeginTable("ab maps", 3, ImGuiTableFlags_SizingStretchSame)) {
    ImGui::TableNextColumn();
    matrix_view(m, m.view.compare_stage, a, 0, kAbCell);
    ImGui::TableNextColumn();
    matrix_view(m, m.view.compare_stage, b, 0, kAbCell);
    ImGui::TableNextColumn();
    difference_map(m, c, a, b, ImGui::GetContentRegionAvail().x);
    ImGui::TextDisabled("%s", tr("red: A larger, blue: B larger, white: equal"));
    ImGui::EndTable();
  }
  ImGui::Separator();

  // The divergence matrix on the left, what it means on the right; stacked (text
  // first) when the window leaves the text less than a readable column.
  const float map_w = 110.0f + 60.0f * (float)std::clamp(H, 1, 12);
  if (ImGui::GetContentRegionAvail().x - map_w < 320.0f) {
    divergence_about();
    divergence_map(m, c);
    return;
  }
  if (ImGui::BeginTable("divergence", 2, ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("map", ImGuiTableColumnFlags_WidthFixed, map_w);
    ImGui::TableSetupColumn("about", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableNextColumn();
    divergence_map(m, c);
    ImGui::TableNextColumn();
    ImGui::Dummy(ImVec2(0, ImGui::GetTextLineHeight()));
    divergence_about();
    ImGui::EndTable();
  }
}

// [SECTION] Row statistics --------------------------------------------------------------

static void row_statistics(AppModel& m, CompareCache& c) {
  const int H = m.engine.num_heads(), S = m.engine.pipeline().seq_len();
  if (m.engine.long_mode()) {  // a statistic of every row of every head's weights
    long_input_sentence(m, tr("Row statistics read every row of every head's weights"));
    return;
  }
  const auto& toks = m.engine.tokens();
  char about[512];
  std::snprintf(about, sizeof about,
                tr("For every query (row of weights) and head: the entropy of its attention in nats "
                   "(0 = all weight on one key, ln n = spread evenly over n keys; ln %d = %.3f here), the "
                   "largest weight and the key that receives it."),
                S, std::log((double)S));
  wrapped_text(about, ImGui::GetContentRegionAvail().x);
  for (int h = 0; h < H; ++h) head_stats(m, c, h);  // cached per weights version

  const int ncols = 1 + 3 * H;  // at most 193 (64 heads); ImGui tables hold 512
  ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollX |
                          ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  // Every row and the header, plus the horizontal scroll bar's height: with many heads
  // the table scrolls sideways and its bar would otherwise cover the last row.
  const ImGuiStyle& style = ImGui::GetStyle();
  const float rows_h = (ImGui::GetTextLineHeight() + 2.0f * style.CellPadding.y) * (float)(S + 1) + 2.0f;
  const float table_h = std::min(ImGui::GetContentRegionAvail().y, rows_h + style.ScrollbarSize);
  if (!ImGui::BeginTable("row stats", ncols, flags, ImVec2(0, table_h))) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn(tr("query"));
  char name[48];
  for (int h = 0; h < H; ++h) {
    std::snprintf(name, sizeof name, tr("h%d entropy"), h);
    ImGui::TableSetupColumn(name);
    std::snprintf(name, sizeof name, tr("h%d max"), h);
    ImGui::TableSetupColumn(name);
    std::snprintf(name, sizeof name, tr("h%d argmax"), h);
    ImGui::TableSetupColumn(name);
  }
  ImGui::TableHeadersRow();
  const ImU32 odd_head_bg = IM_COL32(255, 255, 255, 22);  // groups each head's three columns
  ImGuiListClipper clipper;
  clipper.Begin(S);
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d %s", i, i < (int)toks.size() ? toks[i].c_str() : "");
      if (i == S - 1) item_register("row stats last row");
      for (int h = 0; h < H; ++h) {
        const RowStats& st = c.stats[h];
        if (i >= (int)st.argmax.size()) break;
        auto next = [&] {
          ImGui::TableNextColumn();
          if (h % 2) ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, odd_head_bg);
        };
        next();
        ImGui::TextUnformatted(format_value(st.entropy.data[i], 3).c_str());
        next();
        ImGui::TextUnformatted(format_value(st.max_weight.data[i], 3).c_str());
        next();
        int j = st.argmax[i];
        if (j >= 0 && j < (int)toks.size()) ImGui::Text("%d %s", j, toks[j].c_str());
        else ImGui::TextDisabled("%s", tr("none"));
      }
    }
  // What of the table shows: its inside less the scroll bars (the last row must not hide under one).
  const ImRect inner = ImGui::GetCurrentTable()->InnerWindow->InnerRect;
  ImGui::EndTable();
  item_registry().add("row stats inside", inner.Min, inner.Max);
}

// [SECTION] the tab ---------------------------------------------------------------------

void compare_tab(AppModel& m) {
  const int H = m.engine.num_heads();
  if (!m.engine.has_result() || H == 0) {
    ImGui::TextDisabled("%s", tr("No result yet."));
    return;
  }
  CompareCache& c = cache_of(m);
  m.view.head = std::clamp(m.view.head, 0, H - 1);
  m.view.head_b = std::clamp(m.view.head_b, 0, H - 1);
  if (H == 1) ImGui::TextDisabled("%s", tr("One head: set Heads to 2 or more to compare heads."));

  if (ImGui::BeginTabBar("compare views")) {
    struct Sub { const char* name; void (*draw)(AppModel&, CompareCache&); };
    static const Sub subs[] = {
        {N_("All heads"), all_heads}, {N_("A/B"), ab_view}, {N_("Row statistics"), row_statistics}};
    for (const Sub& s : subs) {
      // With layers (a model's, captured ones) All heads is the layers × heads grid, under the same ID.
      const bool grid = s.draw == all_heads && m.engine.layered();
      bool open = ImGui::BeginTabItem(grid ? L("Layers \xC3\x97 heads###All heads") : L(s.name));  // the ID stays English: the selected view is kept
      item_register(s.name);
      if (open) {
        ImGui::BeginChild("compare body");
        s.draw(m, c);
        ImGui::EndChild();
        ImGui::EndTabItem();
      }
    }
    ImGui::EndTabBar();
  }
}

}  // namespace attnviz::ui
