// panel_heads_grid.cpp: see panel_heads_grid.h. Every number shown comes from the
// engine (attnviz/model.h); this file caches it per state and draws it.
//
// [SECTION] index
//   Cache        the scores on this input and on the probe, a score's terms, keyed by state
//   Jobs         naming a head's job, and its colour
//   Score text   a score as an item: hover explains it in the Inspector, a click pins it
//   Grid         the layers × heads grid of a trained model or of captured layers (their names beside the rows)
//   One layer    the scores above each map of a one-layer state
//   Inspector    the score in focus
#include "app/panels/panel_heads_grid.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/model/app_model.h"
#include "app/panels/stage_map.h"
#include "app/model/links.h"
#include "app/panels/heads_grid_layout.h"
#include "app/panels/panel_stages.h"
#include "app/text/i18n.h"
#include "app/text/inspector_text.h"
#include "app/widgets/heatmap_layout.h"
#include "app/widgets/item_registry.h"
#include "attnviz/pipeline.h"
#include "imgui.h"

namespace attnviz::ui {

// [SECTION] Cache -----------------------------------------------------------------------

struct HeadsGridCache {
  bool input_done = false, probe_done = false, terms_done = false;
  uint64_t input_serial = 0, probe_serial = 0, terms_serial = 0;  // m.state_serial each was made for
  LayerScores input, probe;                   // [layer][head]
  HeadScores input_chance, probe_chance;      // uniform attention on the same tokens
  ScoreRef terms_ref;
  HeadScoreTerms terms;
  std::vector<HeadsGridDrawnCell> drawn;      // (L·H) what the grid drew last
  HeadsGridIn measured;                       // the one-layer grid's text widths, this frame
};

static HeadsGridCache& cache_of(AppModel& m) {
  if (!m.heads_grid_cache) m.heads_grid_cache = std::make_shared<HeadsGridCache>();
  return *m.heads_grid_cache;
}

GridScores grid_scores(AppModel& m, bool probe) {
  HeadsGridCache& c = cache_of(m);
  const State& s = m.engine.state();
  if (probe && m.engine.is_model() && s.model.model) {
    if (!c.probe_done || c.probe_serial != m.state_serial) {
      c.probe = probe_head_scores(s);
      c.probe_chance = uniform_head_scores(s.model.model->probe, s.causal);
      c.probe_done = true;
      c.probe_serial = m.state_serial;
    }
    return {&c.probe, &c.probe_chance, true};
  }
  if (!c.input_done || c.input_serial != m.state_serial) {
    c.input = head_scores(m.engine.stack());
    c.input_chance = uniform_head_scores(m.engine.tokens(), s.causal);
    c.input_done = true;
    c.input_serial = m.state_serial;
  }
  return {&c.input, &c.input_chance, false};
}

static std::vector<HeadsGridDrawnCell> g_drawn;  // the last frame's, for tests (copied: no allocation once sized)
const std::vector<HeadsGridDrawnCell>& heads_grid_drawn() { return g_drawn; }
static std::vector<std::string> g_row_labels;     // the same for the rows' labels
const std::vector<std::string>& heads_grid_row_labels() { return g_row_labels; }

// [SECTION] Jobs ------------------------------------------------------------------------

int head_job(const HeadScores& s, const HeadScores& chance) {
  int best = -1;
  double top = 0;
  for (int k = 0; k < kHeadScoreKinds; ++k) {
    const double x = head_score(s, static_cast<HeadScoreKind>(k));
    const double ch = head_score(chance, static_cast<HeadScoreKind>(k));
    if (!(x >= kJobMin) || !(x >= kJobOverChance * ch)) continue;  // NaN names nothing
    if (best < 0 || x > top) {
      best = k;
      top = x;
    }
  }
  return best;
}

// A job's colour, on the grid's frame, its badge and its score: amber for induction
// (the one a learner looks for), sky blue for previous-token, grey, green.
static ImU32 job_colour(int kind) {
  switch (kind) {
    case 0: return IM_COL32(90, 200, 255, 255);
    case 1: return IM_COL32(255, 170, 40, 255);
    case 2: return IM_COL32(175, 175, 190, 255);
    default: return IM_COL32(140, 220, 120, 255);
  }
}

// The kinds' names in item labels (the same in every language).
static const char* const kKindId[] = {"previous_token", "induction", "first_token", "duplicate_token"};

// [SECTION] Score text ------------------------------------------------------------------

static bool hovered_recently(const HeadsGridWidgets& w) { return w.hover_frame >= ImGui::GetFrameCount() - 1; }

// One score ("ind 0.88") as an item named "score L1 H2 induction": in its job's colour
// when it names the head's job, framed while the Inspector explains it.
static void score_item(AppModel& m, const ScoreRef& r, const char* text, bool named) {
  HeadsGridWidgets& w = m.widgets.heads_grid;
  if (named) ImGui::TextColored(ImColor(job_colour(r.kind)), "%s", text);
  else ImGui::TextUnformatted(text);
  char id[64];
  std::snprintf(id, sizeof id, "score L%d H%d %s", r.layer, r.head, kKindId[r.kind]);
  item_register(id);
  const bool hovered = ImGui::IsItemHovered();
  if (hovered) {
    w.hovered = r;
    w.hover_frame = ImGui::GetFrameCount();
    ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
  }
  if (hovered && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
    w.pinned = w.pinned == r ? ScoreRef{} : r;
    w.pinned_cell = m.view.pinned;
  }
  if (hovered || w.pinned == r) {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    ImGui::GetWindowDrawList()->AddRect(ImVec2(a.x - 2, a.y - 1), ImVec2(b.x + 2, b.y + 1),
                                        ImGui::GetColorU32(ImGuiCol_Text), 2.0f);
  }
}

// The four scores' text into d (as the grid draws them, 2 decimals).
static void format_scores(const HeadScores& s, HeadsGridDrawnCell& d) {
  for (int k = 0; k < kHeadScoreKinds; ++k)
    std::snprintf(d.scores[k], sizeof d.scores[k], "%s %.2f", head_score_short(static_cast<HeadScoreKind>(k)),
                  head_score(s, static_cast<HeadScoreKind>(k)));
}

constexpr float kDotSpace = 5.0f;  // either side of the "·" between two scores

static float score_sep() { return ImGui::CalcTextSize("\xC2\xB7").x + 2 * kDotSpace; }

// Head d's four scores, `per` to a line, from the cursor.
static void score_lines(AppModel& m, const HeadsGridDrawnCell& d, int per, bool probe) {
  for (int k = 0; k < kHeadScoreKinds; ++k) {
    if (k % per != 0) {
      ImGui::SameLine(0, kDotSpace);
      ImGui::TextDisabled("\xC2\xB7");
      ImGui::SameLine(0, kDotSpace);
    }
    score_item(m, ScoreRef{true, d.layer, d.head, k, probe}, d.scores[k], d.job == k);
  }
}

// The job's badge at p: a chip in the job's colour, registered "job L1 H2 induction".
static void job_badge(const HeadsGridDrawnCell& d, ImVec2 p) {
  if (d.job < 0) return;
  const char* text = head_job_name(static_cast<HeadScoreKind>(d.job));
  const ImVec2 ts = ImGui::CalcTextSize(text);
  const ImVec2 b(p.x + ts.x + 8.0f, p.y + ts.y + 2.0f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(p, b, job_colour(d.job), 4.0f);
  dl->AddText(ImVec2(p.x + 4.0f, p.y + 1.0f), IM_COL32(20, 20, 24, 255), text);
  char id[64];
  std::snprintf(id, sizeof id, "job L%d H%d %s", d.layer, d.head, kKindId[d.job]);
  item_registry().add(id, p, b);
}

static float badge_width(int job) {
  return job < 0 ? 0.0f : ImGui::CalcTextSize(head_job_name(static_cast<HeadScoreKind>(job))).x + 8.0f;
}

// [SECTION] Grid ------------------------------------------------------------------------

// Selects layer l, head h for every tab (the second head of A/B moves off it).
static void select_head(AppModel& m, int l, int h) {
  m.view.layer = l;
  m.view.head = h;
  if (m.view.head_b == h) m.view.head_b = (h + 1) % std::max(m.engine.stack().layer(l).num_heads(), 1);
}

// The cell's name line, "L1 H2" and the job's badge: a click selects the head.
static void name_line(AppModel& m, const HeadsGridDrawnCell& d, const HeadsGridLayout& lay, float inner_w) {
  char name[32], id[48];
  std::snprintf(name, sizeof name, "L%d H%d", d.layer, d.head);
  std::snprintf(id, sizeof id, "heads grid L%d H%d", d.layer, d.head);
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, ImVec2(inner_w, line * (lay.badge_below ? 2.0f : 1.0f)));
  item_register(id);
  if (ImGui::IsItemClicked()) select_head(m, d.layer, d.head);
  if (ImGui::IsItemHovered()) {
    const std::string& layer_name = m.engine.layer_name(d.layer);
    if (layer_name.empty()) ImGui::SetTooltip(tr("Click: show layer %d, head %d in every tab"), d.layer, d.head);
    else ImGui::SetTooltip(tr("Click: show layer %d (%s), head %d in every tab"), d.layer, layer_name.c_str(), d.head);
  }
  ImGui::GetWindowDrawList()->AddText(p, ImGui::GetColorU32(ImGuiCol_Text), name);
  const float name_w = ImGui::CalcTextSize(name).x;
  job_badge(d, lay.badge_below ? ImVec2(p.x, p.y + line) : ImVec2(p.x + name_w + score_sep(), p.y - 1.0f));
}

// Layer l, head h's map: the grid's scale, no title, labels or bar of its own. On the
// layer the view shows, a hover is the Inspector's cell and a click pins it; on another
// layer a tooltip says what a click does (select that layer and head, pin the cell).
static void grid_map(AppModel& m, const GridScale& sc, int l, int h, const HeadsGridLayout& lay) {
  const Pipeline& p = m.engine.stack().layer(l);
  const Tensor* t = p.matrix(sc.stage, h);
  if (!t) return;
  char label[48];
  std::snprintf(label, sizeof label, "L%d %s h%d", l, stage_name(sc.stage), h);
  HeatmapSpec spec;
  spec.label = label;
  spec.exports = &m.exports;
  spec.title = label;
  spec.show_title = false;
  spec.show_axis_labels = false;
  spec.show_colour_bar = false;
  spec.cmap = sc.cmap;
  spec.fixed_range = true;
  spec.fixed_lo = sc.lo;
  spec.fixed_hi = sc.hi;
  const bool shown = l == m.view.layer;
  spec.keep = sc.stage == Stage::dropped && p.dropout_active() ? p.dropout_keep(h) : nullptr;
  if (shown) {
    const Highlight hl = linked_highlight(m.focus(), sc.stage, h, p.head_dim());
    spec.highlight_row = hl.row;
    spec.highlight_col = hl.col;
  }
  spec.max_width = lay.map_w;
  spec.max_cell = lay.cell_px;
  const HeatmapHover hv = heatmap(spec, MatrixView{t->rows, t->cols, t->data.data()}, p.version(sc.stage, h),
                                  m.heatmap_cache(label), *m.textures);
  if (!hv.hovered) return;
  const CellRef cell{true, sc.stage, h, hv.row, hv.col};
  if (shown) m.hover_next = cell;
  else ImGui::SetTooltip(tr("layer %d, head %d: [%d][%d] = %.4f\nclick: show this layer and head, this cell pinned"), l,
                         h, hv.row, hv.col, (double)t->at(hv.row, hv.col));
  if (!hv.clicked) return;
  if (shown) toggle_pin(m.view.pinned, cell);
  else m.view.pinned = cell;
  select_head(m, l, h);
}

// The frame of a grid cell: a filled band when selected, the job's colour around it.
static void cell_frame(const HeadsGridDrawnCell& d, ImVec2 a, ImVec2 b) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (d.selected) {
    dl->AddRectFilled(a, b, ImGui::GetColorU32(ImGuiCol_Header, 0.45f), 4.0f);
    dl->AddRect(a, b, ImGui::GetColorU32(ImGuiCol_Text), 4.0f, 0, 2.0f);
  }
  if (d.job >= 0) {
    const float k = d.selected ? 3.0f : 0.0f;  // outside the selection's frame
    dl->AddRect(ImVec2(a.x - k, a.y - k), ImVec2(b.x + k, b.y + k), job_colour(d.job), 5.0f, 0,
                d.job == 1 ? 3.0f : 1.5f);
  }
}

// What a cell's texts need, measured: into `in` (widest over the heads).
static void measure_cells(const std::vector<HeadsGridDrawnCell>& cells, HeadsGridIn& in) {
  char name[32];
  std::snprintf(name, sizeof name, "L%d H%d", in.layers - 1, in.heads - 1);
  in.name_w = ImGui::CalcTextSize(name).x;
  in.line_h = ImGui::GetTextLineHeightWithSpacing();
  in.score_sep = score_sep();
  for (const HeadsGridDrawnCell& d : cells) {
    for (int k = 0; k < kHeadScoreKinds; ++k) in.score_w[k] = std::max(in.score_w[k], ImGui::CalcTextSize(d.scores[k]).x);
    in.badge_w = std::max(in.badge_w, badge_width(d.job));
  }
}

// Formats every head's scores into the cache's drawn cells (L·H of them).
static void fill_cells(AppModel& m, const GridScores& gs, std::vector<HeadsGridDrawnCell>& cells) {
  const LayerStack& st = m.engine.stack();
  const int L = st.num_layers();
  size_t n = 0;
  for (int l = 0; l < L; ++l) n += (size_t)st.layer(l).num_heads();
  cells.resize(n);
  size_t k = 0;
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < st.layer(l).num_heads(); ++h, ++k) {
      HeadsGridDrawnCell& d = cells[k];
      d.layer = l;
      d.head = h;
      const bool have = l < (int)gs.scores->size() && h < (int)(*gs.scores)[l].size();
      const HeadScores s = have ? (*gs.scores)[l][h] : HeadScores{};
      format_scores(s, d);
      d.job = have ? head_job(s, *gs.chance) : -1;
      d.selected = l == m.view.layer && h == m.view.head;
    }
}

static float measure_text(const char* b, const char* e, void*) { return ImGui::CalcTextSize(b, e).x; }

// The width of the captured layers' names column (0: no names to show), at most a
// fifth of the room and 12 em; a longer name is ellipsised there.
static float row_label_width(AppModel& m, float avail_w) {
  const LayerStack& st = m.engine.stack();
  float w = 0;
  for (int l = 0; l < st.num_layers(); ++l) w = std::max(w, ImGui::CalcTextSize(st.layer_name(l).c_str()).x);
  if (w <= 0) return 0;
  return std::min({w, avail_w * 0.2f, ImGui::GetFontSize() * 12.0f}) + ImGui::GetFontSize();
}

// Row l's label at p: the layer's name, ellipsised to `width`; hovered, the whole name.
static void row_label(AppModel& m, int l, ImVec2 p, float width) {
  const std::string& name = m.engine.layer_name(l);
  char fit[288], id[40];
  ellipsize(name.c_str(), width, measure_text, nullptr, fit, sizeof fit);
  ImGui::SetCursorScreenPos(p);
  ImGui::TextDisabled("%s", fit);
  std::snprintf(id, sizeof id, "heads grid layer name L%d", l);
  item_register(id);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip(tr("Layer %d: %s"), l, name.c_str());
  g_row_labels[(size_t)l] = fit;
}

void heads_grid(AppModel& m, const GridScale& scale) {
  const LayerStack& st = m.engine.stack();
  const GridScores gs = grid_scores(m, m.widgets.heads_grid.on_probe);
  std::vector<HeadsGridDrawnCell>& cells = cache_of(m).drawn;
  fill_cells(m, gs, cells);
  const int L = st.num_layers(), H = st.layer(0).num_heads();
  const Tensor* t0 = st.layer(0).matrix(scale.stage, 0);
  if (m.engine.long_mode()) {  // no layer holds its (S × S) maps: say so rather than draw nothing
    long_input_sentence(m, tr("The layers \xC3\x97 heads grid draws every layer's maps whole"));
    return;
  }
  if (H == 0 || cells.empty() || !t0) return;
  HeadsGridIn in;
  in.layers = L;
  in.heads = H;
  in.rows = t0->rows;
  in.cols = t0->cols;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float names_w = row_label_width(m, avail.x);  // captured layers' names, left of their rows
  in.avail_w = avail.x - 8.0f - names_w;  // the frames' width outside the cells
  in.avail_h = avail.y - 8.0f;
  measure_cells(cells, in);
  const HeadsGridLayout lay = heads_grid_layout(in);
  const ImVec2 c0 = ImGui::GetCursorScreenPos();
  const ImVec2 o(c0.x + 4.0f + names_w, c0.y + 4.0f);
  g_row_labels.assign(names_w > 0 ? (size_t)L : 0, std::string());
  for (int l = 0; names_w > 0 && l < L; ++l)
    row_label(m, l, ImVec2(c0.x, o.y + l * (lay.box_h + in.gap_y) + in.pad), names_w - ImGui::GetFontSize());
  for (const HeadsGridDrawnCell& d : cells) {
    if (d.head >= H) continue;  // every layer has the same heads in a model
    const ImVec2 a(o.x + d.head * (lay.col_w + in.gap_x), o.y + d.layer * (lay.box_h + in.gap_y));
    const ImVec2 b(a.x + lay.col_w, a.y + lay.box_h);
    cell_frame(d, a, b);
    ImGui::PushID(d.layer * 1024 + d.head);
    ImGui::SetCursorScreenPos(ImVec2(a.x + in.pad, a.y + in.pad));
    ImGui::BeginGroup();
    name_line(m, d, lay, lay.col_w - 2 * in.pad);
    score_lines(m, d, lay.scores_per_line, gs.probe);
    grid_map(m, scale, d.layer, d.head, lay);
    ImGui::EndGroup();
    ImGui::PopID();
  }
  ImGui::SetCursorScreenPos(ImVec2(c0.x, o.y));
  ImGui::Dummy(ImVec2(lay.total_w + names_w + 4.0f, lay.total_h + 4.0f));
  g_drawn = cells;
}

void head_scores_toggle(AppModel& m) {
  HeadsGridWidgets& w = m.widgets.heads_grid;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr("Head scores:"));
  ImGui::SameLine();
  if (!m.engine.is_model()) {
    ImGui::TextDisabled("%s", tr("on this input (hover a score for how it is computed)"));
    return;
  }
  if (ImGui::RadioButton(L("on this input"), !w.on_probe)) w.on_probe = false;
  item_register("on this input");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("What each head does on the tokens shown."));
  ImGui::SameLine();
  if (ImGui::RadioButton(L("on the probe"), w.on_probe)) w.on_probe = true;
  item_register("on the probe");
  if (ImGui::IsItemHovered()) {
    const int n = m.engine.stack().model() ? m.engine.stack().model()->probe_repeat : 0;
    ImGui::SetTooltip(tr("What each head learned: its scores on the model's probe, a start token, %d random symbols, "
                         "then the same %d again."),
                      n, n);
  }
}

// [SECTION] One layer -------------------------------------------------------------------

void head_scores_prepare(AppModel& m) {
  HeadsGridCache& c = cache_of(m);
  fill_cells(m, grid_scores(m, false), c.drawn);
  g_drawn = c.drawn;
  g_row_labels.clear();
  c.measured = HeadsGridIn{};
  c.measured.pad = 0;
  measure_cells(c.drawn, c.measured);
}

// The layout of the scores above a one-layer map `width` wide (head_scores_prepare first).
static HeadsGridLayout block_layout(AppModel& m, float width) {
  HeadsGridIn in = cache_of(m).measured;
  in.avail_w = width;
  return heads_grid_layout(in);
}

int head_scores_lines(AppModel& m, float width) {
  return block_layout(m, width).score_lines + (cache_of(m).measured.badge_w > 0 ? 1 : 0);
}

void head_scores_block(AppModel& m, int head, float width) {
  const HeadsGridCache& c = cache_of(m);
  if (head < 0 || head >= (int)c.drawn.size()) return;
  const HeadsGridDrawnCell& d = c.drawn[(size_t)head];
  const HeadsGridLayout lay = block_layout(m, width);
  if (c.measured.badge_w > 0) {  // a line for the badge in every head, so the maps line up
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(width, ImGui::GetTextLineHeightWithSpacing()));
    job_badge(d, p);
  }
  score_lines(m, d, lay.scores_per_line, false);
}

// [SECTION] Inspector -------------------------------------------------------------------

bool score_focus(AppModel& m, ScoreRef* out) {
  HeadsGridWidgets& w = m.widgets.heads_grid;
  if (w.pinned.valid && m.view.pinned != w.pinned_cell) w.pinned = ScoreRef{};  // a cell pinned since
  if (w.hovered.valid && hovered_recently(w)) *out = w.hovered;
  else if (w.pinned.valid) *out = w.pinned;
  else return false;
  const LayerStack& st = m.engine.stack();
  if (!m.engine.has_result() || out->layer >= st.num_layers() || out->head >= st.layer(out->layer).num_heads())
    return false;
  if (out->probe && !m.engine.is_model()) return false;
  return true;
}

const HeadScoreTerms& score_terms(AppModel& m, const ScoreRef& r) {
  HeadsGridCache& c = cache_of(m);
  if (c.terms_done && c.terms_ref == r && c.terms_serial == m.state_serial) return c.terms;
  const HeadScoreKind kind = static_cast<HeadScoreKind>(r.kind);
  if (r.probe) {
    c.terms = probe_head_score_terms(m.engine.state(), r.layer, r.head, kind);
  } else {
    const Tensor* A = m.engine.stack().layer(r.layer).matrix(Stage::weights, r.head);
    c.terms = A ? head_score_terms(*A, m.engine.tokens(), kind) : HeadScoreTerms{};
  }
  c.terms_ref = r;
  c.terms_serial = m.state_serial;
  c.terms_done = true;
  return c.terms;
}

double score_chance(AppModel& m, const ScoreRef& r) {
  const GridScores gs = grid_scores(m, r.probe);
  return head_score(*gs.chance, static_cast<HeadScoreKind>(r.kind));
}

int score_head_job(AppModel& m, const ScoreRef& r) {
  const GridScores gs = grid_scores(m, r.probe);
  if (r.layer >= (int)gs.scores->size() || r.head >= (int)(*gs.scores)[r.layer].size()) return -1;
  return head_job((*gs.scores)[r.layer][r.head], *gs.chance);
}

}  // namespace attnviz::ui
