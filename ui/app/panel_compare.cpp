// panel_compare.cpp: the Compare heads tab. The engine computes every number shown
// here (attnviz/analysis.h); this file keeps the results in a CompareCache keyed by
// the stage versions they came from and draws them.
//
// [SECTION] index
//   CompareCache       retained analysis results, rebuilt only when versions change
//   All heads          small multiples of one stage, click selects the head
//   A/B                two heads, their difference, and the heads × heads similarity
//   Row statistics     entropy, max weight and argmax key of every query row, per head
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "app/app_model.h"
#include "app/item_registry.h"
#include "app/links.h"
#include "app/panels.h"
#include "attnviz/analysis.h"
#include "imgui.h"

namespace attnviz::ui {

// [SECTION] CompareCache --------------------------------------------------------------

// Similarity costs H(H−1)/2 · S² logarithms; above this many it waits for a click
// instead of recomputing on every edit (2^23 take about 0.09 s in wasm, 0.05 s native;
// the other statistics here cost H·S², as much as the softmax itself).
constexpr double kSimilarityAutoBudget = double(1 << 23);

struct CompareCache {
  // Row statistics of weights, per head, each for the weights version it was computed from.
  std::vector<RowStats> stats;            // (H), stats[h] over weights h (S × S)
  std::vector<uint64_t> stats_version;    // (H), 0 = not computed

  // Mean-JSD similarity of all heads' weights.
  Tensor similarity;                      // (H × H)
  std::vector<uint64_t> similarity_for;   // (H) weights versions it was computed from
  uint64_t similarity_version = 0;        // derived from those, for the heatmap texture
  bool similarity_requested = false;      // the user asked for a large computation
  std::vector<TensorView> views;          // (H) scratch: every head's weights
  std::vector<std::string> head_names;    // (H) "h0", "h1", ...: similarity axis labels

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
    if (H > 1 && m.head_b == m.head) m.head_b = (m.head + 1) % H;
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
  uint64_t v = m.engine.version("weights", h);
  if (c.stats_version[h] != v) {
    analysis_row_stats(weights_view(m, h), &c.stats[h]);
    c.stats_version[h] = v;
  }
  return c.stats[h];
}

// Brings the similarity matrix up to date if it is cheap or was asked for; returns
// whether it is current.
static bool update_similarity(AppModel& m, CompareCache& c) {
  const int H = m.engine.num_heads(), S = m.engine.pipeline().seq_len();
  std::vector<uint64_t>& now = c.similarity_for;  // (H)
  bool current = (int)now.size() == H && c.similarity.rows == H;
  for (int h = 0; current && h < H; ++h) current = now[h] == m.engine.version("weights", h);
  if (current) return true;
  const double cost = 0.5 * H * (H - 1) * (double)S * S;
  if (cost > kSimilarityAutoBudget && !c.similarity_requested) return false;
  c.views.resize(H);
  now.resize(H);
  uint64_t v = 0x5157u;
  for (int h = 0; h < H; ++h) {
    c.views[h] = weights_view(m, h);
    now[h] = m.engine.version("weights", h);
    v = mix_versions(v, now[h]);
  }
  analysis_head_similarity(c.views.data(), H, &c.similarity);
  c.similarity_version = v;
  c.similarity_requested = false;
  return true;
}

static const std::vector<std::string>* tokens_if(const AppModel& m, int n) {
  const auto& t = m.engine.tokens();
  return (int)t.size() == n ? &t : nullptr;
}

// Picks a head into *head with a combo labelled `label`.
static void head_combo(const char* label, int* head, int H) {
  char preview[16];
  std::snprintf(preview, sizeof preview, "head %d", *head);
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("head 00").x + ImGui::GetFrameHeight() * 2);
  if (ImGui::BeginCombo(label, preview)) {
    for (int h = 0; h < H; ++h) {
      char name[16];
      std::snprintf(name, sizeof name, "head %d", h);
      if (ImGui::Selectable(name, *head == h)) *head = h;
    }
    ImGui::EndCombo();
  }
  item_register(label);
}

// [SECTION] All heads -------------------------------------------------------------------

// The stage combo shared by the grid and the A/B view (m.compare_stage).
static void stage_combo(AppModel& m) {
  static const char* stages[] = {"scores", "scaled", "masked", "weights", "dropped", "context"};
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("weights").x + ImGui::GetFrameHeight() * 2.5f);
  if (ImGui::BeginCombo("Stage", m.compare_stage.c_str())) {
    for (const char* s : stages)
      if (ImGui::Selectable(s, m.compare_stage == s)) m.compare_stage = s;
    ImGui::EndCombo();
  }
  item_register("Stage");
}

static void all_heads(AppModel& m, CompareCache&) {
  const int H = m.engine.num_heads();
  const char* stage = m.compare_stage.c_str();
  stage_combo(m);
  ImGui::SameLine(0, 16);
  ImGui::AlignTextToFramePadding();
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
  if (std::strcmp(stage, "weights") == 0 || std::strcmp(stage, "dropped") == 0)
    ImGui::TextWrapped("Click a map to select that head (the Stages tab follows). Colour: 0 (dark) to %s (bright).",
                       std::strcmp(stage, "weights") == 0 ? "1" : "the dropout scale");
  else
    ImGui::TextWrapped("Click a map to select that head (the Stages tab follows). Each map has its own range, "
                       "centred on 0 (white); hover a cell for its value.");
  ImGui::PopStyleColor();

  // Columns: the count that gives the largest cells, filling the width and the height.
  MatrixView v0 = m.engine.matrix(stage, 0);
  const int R = std::max(v0.rows, 1), C = std::max(v0.cols, 1);
  float label_w = 0;
  for (const auto& t : m.engine.tokens()) label_w = std::max(label_w, ImGui::CalcTextSize(t.c_str()).x);
  label_w = std::min(label_w, 90.0f) + 14.0f;  // as heatmap() lays out row labels, plus the frame
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float spacing = ImGui::GetStyle().ItemSpacing.x + 8.0f;
  const float chrome_h = 2 * ImGui::GetTextLineHeightWithSpacing() + 14.0f;  // title + column labels + gap
  int cols = 1;
  float cell = 0;
  for (int k = 1; k <= H; ++k) {
    const int rows = (H + k - 1) / k;
    const float w = (avail.x - spacing * (k - 1)) / k;
    const float c = std::min((w - label_w) / C, (avail.y / rows - chrome_h) / R);
    if (c > cell * 1.05f) {  // clearly larger (relative: cells may be under a pixel)
      cell = c;
      cols = k;
    }
  }
  // Down to half a pixel per cell: all heads stay on screen together (12 heads at S = 256
  // fit a laptop screen); zoom a map (wheel) to read its cells.
  cell = std::clamp(cell, 0.5f, 40.0f);
  const float width = std::floor((avail.x - spacing * (cols - 1)) / cols);
  for (int h = 0; h < H; ++h) {
    ImGui::PushID(h);
    ImGui::BeginGroup();
    const CellRef before = m.hover_next;
    matrix_view(m, stage, h, std::min(width - 8.0f, label_w + cell * C + 2.0f), cell, true);
    const bool hovered_here = m.hover_next.valid && m.hover_next.head == h && m.hover_next.stage == m.compare_stage &&
                              !(before.valid && before.head == h && before.stage == m.compare_stage);
    if (hovered_here && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) m.head = h;
    ImGui::EndGroup();
    if (h == m.head) {  // the selected head: a frame around its map
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

// [SECTION] A/B -------------------------------------------------------------------------

static void difference_map(AppModel& m, CompareCache& c, int a, int b, float width) {
  const std::string& stage = m.compare_stage;
  MatrixView va = m.engine.matrix(stage, a), vb = m.engine.matrix(stage, b);
  char label[48];
  std::snprintf(label, sizeof label, "diff h%d-h%d", a, b);
  if (!va.data || !vb.data) {
    ImGui::TextDisabled("(not computed)");
    return;
  }
  const uint64_t v = mix_versions(m.engine.version(stage, a), m.engine.version(stage, b));
  if (v != c.diff_version) {
    analysis_difference(TensorView{va.data, va.rows, va.cols, va.cols}, TensorView{vb.data, vb.rows, vb.cols, vb.cols},
                        &c.diff);
    c.diff_version = v;
  }
  HeatmapSpec spec;
  spec.label = label;
  char title[96];
  std::snprintf(title, sizeof title, "A − B: %s h%d − h%d  (%d×%d)", stage.c_str(), a, b, c.diff.rows, c.diff.cols);
  spec.title = title;
  spec.row_labels = tokens_if(m, c.diff.rows);
  spec.col_labels = is_square_stage(stage) ? tokens_if(m, c.diff.cols) : nullptr;
  spec.cmap = Colormap::rdbu;
  spec.diverging = true;  // centred on 0: red where A is larger, blue where B is
  const CellRef& f = m.focus();
  if (f.valid && f.stage == stage && (f.head == a || f.head == b)) {
    spec.highlight_row = f.row;
    spec.highlight_col = f.col;
  }
  spec.max_width = width;
  spec.max_cell = 40.0f;
  HeatmapHover hv = heatmap(spec, MatrixView{c.diff.rows, c.diff.cols, c.diff.data.data()}, c.diff_version,
                            m.heatmap_cache(label), *m.textures);
  if (hv.hovered) m.hover_next = CellRef{true, stage, a, hv.row, hv.col};  // the inspector explains A's cell
}

static void similarity_map(AppModel& m, CompareCache& c) {
  const int H = m.engine.num_heads(), S = m.engine.pipeline().seq_len();
  if (!update_similarity(m, c)) {
    ImGui::TextWrapped("Head similarity compares every pair of heads over all %d×%d weights (%d pairs): "
                       "too much to redo on every edit.", S, S, H * (H - 1) / 2);
    if (ImGui::Button("Compute head similarity")) c.similarity_requested = true;
    item_register("Compute head similarity");
    return;
  }
  HeatmapSpec spec;
  spec.label = "head similarity";
  char title[64];
  std::snprintf(title, sizeof title, "head similarity  (%d×%d)", H, H);
  spec.title = title;
  spec.row_labels = &c.head_names;
  spec.col_labels = &c.head_names;
  // From 0 (the diagonal) to the most different pair: heads are usually far closer than
  // ln 2, and a scale pinned there would paint them all alike. The bar shows the range.
  spec.cmap = m.weights_cmap;
  spec.highlight_row = m.head;
  spec.highlight_col = m.head_b;
  spec.max_cell = 60.0f;  // wide enough for 4 decimals
  spec.max_width = ImGui::GetContentRegionAvail().x;
  HeatmapHover hv = heatmap(spec, MatrixView{c.similarity.rows, c.similarity.cols, c.similarity.data.data()},
                            c.similarity_version, m.heatmap_cache("head similarity"), *m.textures);
  if (hv.hovered) {
    ImGui::SetTooltip("heads %d and %d: mean JSD %s", hv.row, hv.col,
                      format_value(c.similarity.at(hv.row, hv.col), 4).c_str());
    if (hv.clicked) {
      m.head = hv.row;
      m.head_b = hv.col;
    }
  }
}

static void ab_view(AppModel& m, CompareCache& c) {
  const int H = m.engine.num_heads();
  stage_combo(m);
  ImGui::SameLine(0, 16);
  head_combo("Head A", &m.head, H);
  ImGui::SameLine(0, 16);
  head_combo("Head B", &m.head_b, H);
  ImGui::SameLine(0, 16);
  if (ImGui::Button("Swap")) std::swap(m.head, m.head_b);
  item_register("Swap");
  const int a = m.head, b = m.head_b;

  if (ImGui::BeginTable("ab maps", 3, ImGuiTableFlags_SizingStretchSame)) {
    ImGui::TableNextColumn();
    matrix_view(m, m.compare_stage.c_str(), a, 0, 40.0f);
    ImGui::TableNextColumn();
    matrix_view(m, m.compare_stage.c_str(), b, 0, 40.0f);
    ImGui::TableNextColumn();
    difference_map(m, c, a, b, ImGui::GetContentRegionAvail().x);
    ImGui::TextDisabled("red: A larger, blue: B larger, white: equal");
    ImGui::EndTable();
  }
  ImGui::Separator();

  // The similarity matrix on the left, what it means on the right.
  if (ImGui::BeginTable("similarity", 2, ImGuiTableFlags_SizingFixedFit)) {
    const int shown = std::clamp(H, 1, 12);
    ImGui::TableSetupColumn("map", ImGuiTableColumnFlags_WidthFixed, 110.0f + 60.0f * (float)shown);
    ImGui::TableSetupColumn("about", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableNextColumn();
    similarity_map(m, c);
    ImGui::TableNextColumn();
    ImGui::Dummy(ImVec2(0, ImGui::GetTextLineHeight()));
    ImGui::TextWrapped("Each cell is the mean Jensen–Shannon divergence (natural log) between the two heads' "
                       "weight rows: 0 = the heads attend identically, ln 2 ≈ 0.693 = they never attend to the "
                       "same keys. The diagonal is 0. Rows that are NaN or all zero in either head are skipped. "
                       "Colours run from 0 to the most different pair.");
    ImGui::Spacing();
    ImGui::TextWrapped("Click a cell to compare those two heads above (row = A, column = B).");
    ImGui::EndTable();
  }
}

// [SECTION] Row statistics --------------------------------------------------------------

static void row_statistics(AppModel& m, CompareCache& c) {
  const int H = m.engine.num_heads(), S = m.engine.pipeline().seq_len();
  const auto& toks = m.engine.tokens();
  ImGui::TextWrapped("For every query (row of weights) and head: the entropy of its attention in nats "
                     "(0 = all weight on one key, ln n = spread evenly over n keys; ln %d = %.3f here), the "
                     "largest weight and the key that receives it.", S, std::log((double)S));
  for (int h = 0; h < H; ++h) head_stats(m, c, h);  // cached per weights version

  const int ncols = 1 + 3 * H;  // at most 193 (64 heads); ImGui tables hold 512
  ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollX |
                          ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  const float table_h = std::min(ImGui::GetContentRegionAvail().y, ImGui::GetTextLineHeightWithSpacing() * (S + 1.4f));
  if (!ImGui::BeginTable("row stats", ncols, flags, ImVec2(0, table_h))) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn("query");
  char name[32];
  for (int h = 0; h < H; ++h) {
    std::snprintf(name, sizeof name, "h%d entropy", h);
    ImGui::TableSetupColumn(name);
    std::snprintf(name, sizeof name, "h%d max", h);
    ImGui::TableSetupColumn(name);
    std::snprintf(name, sizeof name, "h%d argmax", h);
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
        else ImGui::TextDisabled("none");
      }
    }
  ImGui::EndTable();
}

// [SECTION] the tab ---------------------------------------------------------------------

void compare_tab(AppModel& m) {
  const int H = m.engine.num_heads();
  if (!m.engine.has_result() || H == 0) {
    ImGui::TextDisabled("No result yet.");
    return;
  }
  CompareCache& c = cache_of(m);
  m.head = std::clamp(m.head, 0, H - 1);
  m.head_b = std::clamp(m.head_b, 0, H - 1);
  if (H == 1) ImGui::TextDisabled("One head: set Heads to 2 or more to compare heads.");

  if (ImGui::BeginTabBar("compare views")) {
    struct Sub { const char* name; void (*draw)(AppModel&, CompareCache&); };
    static const Sub subs[] = {{"All heads", all_heads}, {"A/B", ab_view}, {"Row statistics", row_statistics}};
    for (const Sub& s : subs) {
      bool open = ImGui::BeginTabItem(s.name);
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
