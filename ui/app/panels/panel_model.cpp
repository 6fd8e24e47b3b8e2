// panel_model.cpp: the Model tab (panel_model.h).
//
// [SECTION] index
//   Next-token table   next_token_table: top_predictions per row, the real next token's rank
//   Cache              the table and its summary sentence, remade when the logits or the language change
//   Training           the step slider (◀ ▶, ← →), the loss curve, the heads' scores per checkpoint
//   Predictions        one row per position: token → next token, the top 5 with bars
//   Residual stream    the maps: embeddings, x_0 … x_L, logits, each with a sentence
//   The tab
#include "app/panels/panel_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/model/app_model.h"
#include "app/panels/panels.h"
#include "app/text/i18n.h"
#include "app/widgets/fonts.h"
#include "app/widgets/item_registry.h"
#include "attnviz/model.h"
#include "imgui.h"
#include "imgui_internal.h"  // ImGui::SetKeyOwner: ← → belong to the training step

namespace attnviz::ui {

// [SECTION] Next-token table ------------------------------------------------------------

void next_token_table(const LayerStack& stack, NextTokenTable* out) {
  *out = NextTokenTable{};
  const TrainedModel* model = stack.model();
  if (model == nullptr || stack.logits() == nullptr) return;
  const std::vector<int>& ids = stack.token_ids();
  const int S = static_cast<int>(ids.size()), V = model->vocab_size();
  out->rows.resize(static_cast<size_t>(S));
  for (int i = 0; i < S; ++i) {
    NextTokenRow& r = out->rows[static_cast<size_t>(i)];
    const std::vector<Prediction> all = top_predictions(stack, i, V);  // every token, likeliest first
    r.shown = std::min<int>(NextTokenRow::kTop, static_cast<int>(all.size()));
    for (int k = 0; k < r.shown; ++k) {
      r.top_id[k] = all[static_cast<size_t>(k)].id;
      r.top_p[k] = all[static_cast<size_t>(k)].probability;
    }
    if (i + 1 >= S) continue;
    r.next_id = ids[static_cast<size_t>(i + 1)];
    for (size_t k = 0; k < all.size(); ++k) {
      if (all[k].id != r.next_id) continue;
      r.next_rank = static_cast<int>(k) + 1;
      r.next_p = all[k].probability;
      break;
    }
    // Copying predicts t_{i+1} when t_i came before and t_{i+1} followed it there.
    for (int j = 0; j < i && !r.repeat; ++j) r.repeat = ids[static_cast<size_t>(j)] == ids[static_cast<size_t>(i)] &&
                                                         ids[static_cast<size_t>(j + 1)] == r.next_id;
    const bool right = r.next_rank == 1;
    if (r.repeat) {
      ++out->repeat_total;
      out->repeat_right += right;
    } else {
      ++out->other_total;
      out->other_right += right;
    }
  }
}

namespace {

// [SECTION] Cache -------------------------------------------------------------------------

const char* token_text(const TrainedModel& model, int id) {
  return id >= 0 && id < model.vocab_size() ? model.vocabulary[static_cast<size_t>(id)].c_str() : "?";
}

std::string summary_sentence(const NextTokenTable& t, const TrainedModel& model) {
  const std::string chance = std::to_string(std::max(1, model.vocab_size() - 1));
  if (t.repeat_total == 0)
    return tr_args("Nothing in this sequence repeats, so nothing can be copied: the model predicts {0} of {1} next "
                   "tokens right (top 1; chance: 1 in {2}). The probe (start + r + r) repeats.",
                   {std::to_string(t.other_right), std::to_string(t.other_total), chance});
  return tr_args("Where the sequence repeats, the model predicts {0} of {1} next tokens right (top 1); elsewhere "
                 "{2} of {3} (chance: 1 in {4}). That is induction: what followed a token's earlier copy comes next.",
                 {std::to_string(t.repeat_right), std::to_string(t.repeat_total), std::to_string(t.other_right),
                  std::to_string(t.other_total), chance});
}

// Remakes the table when the logits, the tokens or the language change (never per frame).
void update(AppModel& m, ModelWidgets& w, const TrainedModel& model) {
  if (w.token_w_fonts != g_fonts.generation) {  // the rows draw tokens in the mono font
    ImGui::PushFont(g_fonts.mono);
    w.token_w = 0;
    for (const std::string& s : model.vocabulary) w.token_w = std::max(w.token_w, ImGui::CalcTextSize(s.c_str()).x);
    ImGui::PopFont();
    w.token_w_fonts = g_fonts.generation;
  }
  const uint64_t lv = m.engine.logits_version();
  if (w.table_serial == m.state_serial && w.table_logits == lv && w.table_lang == language_generation()) return;
  next_token_table(m.engine.stack(), &w.table);
  w.summary = summary_sentence(w.table, model);
  w.table_serial = m.state_serial;
  w.table_logits = lv;
  w.table_lang = language_generation();
}

// "x0", "x1", …: the residual stream before layer l (as the layer bar's tooltip
// names it; subscript digits are in none of the fonts the atlas merges).
void x_name(int l, char* out, size_t n) { std::snprintf(out, n, "x%d", l); }

// [SECTION] Training ----------------------------------------------------------------------

// Sets the state's checkpoint: one undoable edit, carried by share links (model.step).
void set_checkpoint(AppModel& m, int k) {
  if (k == m.engine.state().model.checkpoint) return;
  m.draft = m.engine.state();
  m.draft.model.checkpoint = k;
  apply_edit(m);
}

// ◀ [step slider] ▶, and ← → while the Views window has the focus.
void step_controls(AppModel& m, const TrainedModel& model, int k) {
  const int K = static_cast<int>(model.checkpoints.size());
  int next = k;
  if (ImGui::ArrowButton("##training prev", ImGuiDir_Left)) next = std::max(0, k - 1);
  item_register("Training step previous");
  ImGui::SameLine(0, 4);
  ImGui::SetNextItemWidth(std::max(80.0f, ImGui::GetContentRegionAvail().x - ImGui::GetFrameHeight() - 4));
  char shown[64];
  std::snprintf(shown, sizeof shown, tr("step %d"), model.checkpoints[static_cast<size_t>(k)].step);
  int slider = k;
  // The slider moves over checkpoints; it shows the step (a literal: no % in `shown`).
  if (ImGui::SliderInt("##training step", &slider, 0, K - 1, shown, ImGuiSliderFlags_NoInput)) next = slider;
  item_register("Training step");
  ImGui::SameLine(0, 4);
  if (ImGui::ArrowButton("##training next", ImGuiDir_Right)) next = std::min(K - 1, k + 1);
  item_register("Training step next");
  const ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) && !io.WantTextInput && !io.KeyCtrl &&
      !io.KeyShift && !io.KeyAlt && !ImGui::IsAnyItemActive()) {
    // As the Decode step: ← → belong to the slider here, not to keyboard navigation.
    const ImGuiID owner = ImGui::GetID("training arrows");
    ImGui::SetKeyOwner(ImGuiKey_LeftArrow, owner);
    ImGui::SetKeyOwner(ImGuiKey_RightArrow, owner);
    if (ImGui::IsKeyPressed(ImGuiKey_LeftArrow)) next = std::max(0, k - 1);
    if (ImGui::IsKeyPressed(ImGuiKey_RightArrow)) next = std::min(K - 1, k + 1);
  }
  set_checkpoint(m, next);
}

// The head of `layer` with the highest score (`which`: 0 previous-token, 1 induction) at checkpoint c.
struct Best {
  int head = -1;
  double score = 0;
};
Best best_head(const Checkpoint& c, int layer, int which) {
  Best b;
  if (layer < 0 || layer >= static_cast<int>(c.card_scores.size())) return b;
  const auto& heads = c.card_scores[static_cast<size_t>(layer)];
  for (size_t h = 0; h < heads.size(); ++h) {
    const double s = which == 0 ? heads[h].previous_token : heads[h].induction;
    if (b.head < 0 || s > b.score) b = {static_cast<int>(h), s};
  }
  return b;
}

constexpr ImU32 kPrevColour = IM_COL32(110, 180, 255, 255);    // previous-token score
constexpr ImU32 kInductColour = IM_COL32(255, 150, 90, 255);   // induction score
constexpr ImU32 kCurrentColour = IM_COL32(255, 214, 80, 255);  // the checkpoint shown

// A plot's frame: axes, ticks with numbers, the axis names; maps data to the screen.
struct Plot {
  ImVec2 a, b;  // plot area, top-left and bottom-right
  float x_hi = 1, y_lo = 0, y_hi = 1;
  ImVec2 at(double x, double y) const {
    return ImVec2(a.x + static_cast<float>(x / x_hi) * (b.x - a.x),
                  b.y - static_cast<float>((y - y_lo) / (y_hi - y_lo)) * (b.y - a.y));
  }
  double x_of(float sx) const { return std::clamp((sx - a.x) / (b.x - a.x), 0.0f, 1.0f) * x_hi; }
};

// A step between ticks for [0, hi] giving at most 5 intervals: 1, 2 or 5 × 10^k.
double nice_step(double hi) {
  double base = std::pow(10.0, std::floor(std::log10(std::max(hi, 1e-9) / 5)));
  for (double f : {1.0, 2.0, 5.0, 10.0})
    if (hi / (f * base) <= 5.0) return f * base;
  return 10 * base;
}

// Draws the frame in a (w × h) box at the cursor (an invisible button named `id`, so
// it takes hover and clicks) with `y_name` above the y axis and `x_name` after the x axis.
Plot plot_frame(const char* id, const char* y_name, const char* x_name, float w, float h, float x_hi, float y_lo,
                float y_hi) {
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, ImVec2(w, h));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float line = ImGui::GetTextLineHeight();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImU32 grid = ImGui::GetColorU32(ImGuiCol_Border);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", y_hi);
  const float left = ImGui::CalcTextSize(buf).x + 8, right = ImGui::CalcTextSize(x_name).x + 10;
  Plot pl;
  pl.a = ImVec2(p.x + left, p.y + line + 4);
  pl.b = ImVec2(p.x + w - right, p.y + h - line - 4);
  pl.x_hi = x_hi;
  pl.y_lo = y_lo;
  pl.y_hi = y_hi;
  dl->AddRectFilled(pl.a, pl.b, ImGui::GetColorU32(ImGuiCol_FrameBg));
  dl->AddText(ImVec2(p.x, p.y), text, y_name);
  const double ys = nice_step(y_hi - y_lo);
  for (double y = y_lo; y <= y_hi + 1e-9; y += ys) {
    const ImVec2 q = pl.at(0, y);
    dl->AddLine(ImVec2(pl.a.x, q.y), ImVec2(pl.b.x, q.y), grid);
    std::snprintf(buf, sizeof buf, ys < 1 ? "%.1f" : "%.0f", y);
    dl->AddText(ImVec2(pl.a.x - 4 - ImGui::CalcTextSize(buf).x, q.y - line * 0.5f), dim, buf);
  }
  const double xs = nice_step(x_hi);
  for (double x = 0; x <= x_hi + 1e-9; x += xs) {
    const ImVec2 q = pl.at(x, y_lo);
    dl->AddLine(ImVec2(q.x, pl.b.y), ImVec2(q.x, pl.b.y + 3), dim);
    std::snprintf(buf, sizeof buf, "%.0f", x);
    const float tw = ImGui::CalcTextSize(buf).x;
    dl->AddText(ImVec2(std::clamp(q.x - tw * 0.5f, pl.a.x - 4, pl.b.x - tw + 4), pl.b.y + 3), dim, buf);
  }
  dl->AddLine(pl.a, ImVec2(pl.a.x, pl.b.y), dim);
  dl->AddLine(ImVec2(pl.a.x, pl.b.y), pl.b, dim);
  dl->AddText(ImVec2(pl.b.x + 6, pl.b.y - line * 0.5f), text, x_name);
  return pl;
}

// The checkpoint whose step is nearest the mouse, if within a few pixels of it; -1 otherwise.
int checkpoint_under_mouse(const Plot& pl, const TrainedModel& model) {
  const float mx = ImGui::GetIO().MousePos.x;
  int best = -1;
  float d = 8.0f;
  for (size_t c = 0; c < model.checkpoints.size(); ++c) {
    const float dx = std::abs(pl.at(model.checkpoints[c].step, pl.y_lo).x - mx);
    if (dx <= d) best = static_cast<int>(c), d = dx;
  }
  return best;
}

// The current checkpoint's vertical line; a click near a checkpoint's mark loads it.
void plot_checkpoint_marks(AppModel& m, const Plot& pl, const TrainedModel& model, int k) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 q = pl.at(model.checkpoints[static_cast<size_t>(k)].step, pl.y_lo);
  dl->AddLine(ImVec2(q.x, pl.a.y), ImVec2(q.x, pl.b.y), kCurrentColour, 1.5f);
  if (!ImGui::IsItemHovered()) return;
  const int c = checkpoint_under_mouse(pl, model);
  if (c >= 0 && ImGui::IsItemClicked()) set_checkpoint(m, c);
}

// The loss per step (the card's curve, every 10 steps), the checkpoints marked on it.
void loss_plot(AppModel& m, const TrainedModel& model, int k, float w, float h) {
  const auto& curve = model.loss_curve;
  double hi = 0;
  for (const LossPoint& p : curve) hi = std::max(hi, p.loss);
  const float x_hi = curve.empty() ? 1.0f : static_cast<float>(std::max(1, curve.back().step));
  const Plot pl = plot_frame("##loss curve", tr("loss (nats)"), tr("step"), w, h, x_hi, 0.0f,
                             static_cast<float>(std::ceil(hi)));
  item_register("Loss curve");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (size_t i = 1; i < curve.size(); ++i)
    dl->AddLine(pl.at(curve[i - 1].step, curve[i - 1].loss), pl.at(curve[i].step, curve[i].loss),
                ImGui::GetColorU32(ImGuiCol_PlotLines), 1.5f);
  plot_checkpoint_marks(m, pl, model, k);
  for (size_t c = 0; c < model.checkpoints.size(); ++c) {
    const Checkpoint& ck = model.checkpoints[c];
    const bool cur = static_cast<int>(c) == k;
    dl->AddCircleFilled(pl.at(ck.step, ck.loss), cur ? 5.5f : 3.5f, cur ? kCurrentColour : ImGui::GetColorU32(ImGuiCol_Text));
  }
  if (!ImGui::IsItemHovered() || curve.empty()) return;
  const double x = pl.x_of(ImGui::GetIO().MousePos.x);
  const LossPoint* near = &curve[0];
  for (const LossPoint& p : curve)
    if (std::abs(p.step - x) < std::abs(near->step - x)) near = &p;
  const ImVec2 q = pl.at(near->step, near->loss);
  dl->AddCircle(q, 4.0f, ImGui::GetColorU32(ImGuiCol_Text));
  const int c = checkpoint_under_mouse(pl, model);
  if (c >= 0)
    ImGui::SetTooltip(tr("Checkpoint at step %d: loss %.3f nats. Click to load it."),
                      model.checkpoints[static_cast<size_t>(c)].step, model.checkpoints[static_cast<size_t>(c)].loss);
  else
    ImGui::SetTooltip(tr("Step %d: loss %.3f nats"), near->step, near->loss);
}

// Per checkpoint, layer 0's best previous-token score and the last layer's best
// induction score (the card's, measured on the probe by the training script).
void scores_plot(AppModel& m, const TrainedModel& model, int k, float w, float h) {
  const float x_hi = static_cast<float>(std::max(1, model.checkpoints.back().step));
  const Plot pl = plot_frame("##head scores curve", tr("best head score (probe)"), tr("step"), w, h, x_hi, 0, 1);
  item_register("Head scores curve");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int last = model.num_layers - 1;
  for (int which = 0; which < 2; ++which) {
    const ImU32 col = which == 0 ? kPrevColour : kInductColour;
    const int layer = which == 0 ? 0 : last;
    for (size_t c = 0; c < model.checkpoints.size(); ++c) {
      const Checkpoint& ck = model.checkpoints[c];
      const ImVec2 q = pl.at(ck.step, best_head(ck, layer, which).score);
      if (c > 0) {
        const Checkpoint& pk = model.checkpoints[c - 1];
        dl->AddLine(pl.at(pk.step, best_head(pk, layer, which).score), q, col, 2.0f);
      }
      dl->AddCircleFilled(q, static_cast<int>(c) == k ? 5.0f : 3.0f, col);
    }
  }
  plot_checkpoint_marks(m, pl, model, k);
  if (!ImGui::IsItemHovered()) return;
  const int c = checkpoint_under_mouse(pl, model);
  if (c < 0) return;
  const Checkpoint& ck = model.checkpoints[static_cast<size_t>(c)];
  const Best p = best_head(ck, 0, 0), in = best_head(ck, last, 1);
  ImGui::SetTooltip(tr("Step %d\nprevious-token: layer 0, head %d: %.2f\ninduction: layer %d, head %d: %.2f\nClick to load it."),
                    ck.step, p.head, p.score, last, in.head, in.score);
}

// A coloured square and text on one line (the legend of the scores).
void swatch_text(ImU32 col, const char* text) {
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float s = ImGui::GetTextLineHeight() * 0.6f, y = p.y + (ImGui::GetTextLineHeight() - s) * 0.5f;
  ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, y), ImVec2(p.x + s, y + s), col);
  ImGui::SetCursorScreenPos(ImVec2(p.x + s + 6, p.y));
  ImGui::TextUnformatted(text);
}

// The step's facts beside the slider: its loss, the heads its card scores.
void step_facts(const TrainedModel& model, int k) {
  const Checkpoint& ck = model.checkpoints[static_cast<size_t>(k)];
  ImGui::Text(tr("Loss at step %d: %.3f nats"), ck.step, ck.loss);
  const int last = model.num_layers - 1;
  const Best p = best_head(ck, 0, 0), in = best_head(ck, last, 1);
  char buf[160];
  std::snprintf(buf, sizeof buf, tr("previous-token: layer 0, head %d: %.2f"), p.head, p.score);
  swatch_text(kPrevColour, buf);
  std::snprintf(buf, sizeof buf, tr("induction: layer %d, head %d: %.2f"), last, in.head, in.score);
  swatch_text(kInductColour, buf);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("%s", tr("The best heads' scores on the probe, from training. ← → move the step."));
  ImGui::PopTextWrapPos();
}

void training(AppModel& m, const TrainedModel& model, float plot_h) {
  const int k = std::clamp(m.engine.state().model.checkpoint, 0, static_cast<int>(model.checkpoints.size()) - 1);
  if (!ImGui::BeginTable("model training", 3, ImGuiTableFlags_SizingStretchProp)) return;
  ImGui::TableSetupColumn("controls", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("loss", ImGuiTableColumnFlags_WidthStretch, 1.25f);
  ImGui::TableSetupColumn("scores", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableNextColumn();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr("Training step"));
  ImGui::SameLine();
  ImGui::TextDisabled(tr("checkpoint %d of %d"), k + 1, static_cast<int>(model.checkpoints.size()));
  step_controls(m, model, k);
  step_facts(model, k);
  ImGui::TableNextColumn();
  loss_plot(m, model, k, ImGui::GetContentRegionAvail().x, plot_h);
  ImGui::TableNextColumn();
  scores_plot(m, model, k, ImGui::GetContentRegionAvail().x, plot_h);
  ImGui::EndTable();
}

// [SECTION] Predictions -------------------------------------------------------------------

// The position every view highlights (the hovered or pinned cell's query or token row), or -1.
int focus_row(const AppModel& m) {
  const CellRef& f = m.focus();
  const StageAxis a = stage_info(f.stage).row_axis;
  return f.valid && (a == StageAxis::query || a == StageAxis::token) ? f.row : -1;
}

constexpr ImU32 kRight = IM_COL32(70, 160, 90, 255);    // the likeliest is the next token
constexpr ImU32 kInTop = IM_COL32(190, 140, 40, 255);   // the next token is in the top 5, not first
constexpr ImU32 kMissed = IM_COL32(170, 70, 70, 255);   // further down
constexpr ImU32 kBar = IM_COL32(80, 130, 210, 150);     // a prediction's probability

ImU32 next_colour(const NextTokenRow& r) { return r.next_rank == 1 ? kRight : (r.next_rank <= NextTokenRow::kTop ? kInTop : kMissed); }

// "97%", "3.2%", "<0.1%".
void percent(float p, char* out, size_t n) {
  const double v = 100.0 * p;
  if (v < 0.1) std::snprintf(out, n, "<0.1%%");
  else std::snprintf(out, n, v < 9.95 ? "%.1f%%" : "%.0f%%", v);
}

// A chip: a rounded box with the token in it.
void chip(ImDrawList* dl, ImVec2 p, float w, float h, const char* text, ImU32 bg) {
  dl->AddRectFilled(p, ImVec2(p.x + w, p.y + h), bg, 3.0f);
  const ImVec2 ts = ImGui::CalcTextSize(text);
  dl->AddText(ImVec2(p.x + (w - ts.x) * 0.5f, p.y + (h - ts.y) * 0.5f), ImGui::GetColorU32(ImGuiCol_Text), text);
}

struct RowGeometry {
  float idx_w, chip_w, arrow_w, cell_w, gap, row_h, rank_w;
  float top_x() const { return idx_w + chip_w * 2 + arrow_w + gap * 3; }
  float rank_x() const { return top_x() + (cell_w + gap) * NextTokenRow::kTop + gap; }
};

RowGeometry geometry(const ModelWidgets& w) {
  const float pad = 10.0f;
  RowGeometry g;
  g.idx_w = ImGui::CalcTextSize("000").x;
  g.chip_w = std::max(w.token_w + pad, ImGui::GetTextLineHeight() * 1.6f);
  g.arrow_w = ImGui::CalcTextSize("\xE2\x86\x92").x;
  g.cell_w = w.token_w + ImGui::CalcTextSize("100%").x + pad * 1.6f;
  g.gap = 6.0f;
  g.row_h = ImGui::GetTextLineHeight() + 7.0f;
  g.rank_w = ImGui::CalcTextSize(tr("%s: rank %d, %s")).x + w.token_w + ImGui::CalcTextSize("64<0.1%").x;
  return g;
}

// The top-5 cells of one row: a bar as long as the probability behind the token and
// its percentage; the next token's cell outlined.
void top_cells(ImDrawList* dl, const RowGeometry& g, ImVec2 p, const NextTokenRow& r, const TrainedModel& model, int i) {
  char pct[16];
  for (int k = 0; k < r.shown; ++k) {
    const ImVec2 c(p.x + g.top_x() + k * (g.cell_w + g.gap), p.y + 2);
    const ImVec2 e(c.x + g.cell_w, p.y + g.row_h - 2);
    const bool hit = r.top_id[k] == r.next_id;
    dl->AddRectFilled(c, e, hit ? IM_COL32(70, 160, 90, 70) : ImGui::GetColorU32(ImGuiCol_FrameBg), 3.0f);
    dl->AddRectFilled(c, ImVec2(c.x + g.cell_w * std::clamp(r.top_p[k], 0.0f, 1.0f), e.y), kBar, 3.0f);
    if (hit) dl->AddRect(c, e, k == 0 ? kRight : kInTop, 3.0f, 0, 2.0f);
    const float ty = c.y + (e.y - c.y - ImGui::GetTextLineHeight()) * 0.5f;
    dl->AddText(ImVec2(c.x + 5, ty), ImGui::GetColorU32(ImGuiCol_Text), token_text(model, r.top_id[k]));
    percent(r.top_p[k], pct, sizeof pct);
    dl->AddText(ImVec2(e.x - 5 - ImGui::CalcTextSize(pct).x, ty), ImGui::GetColorU32(ImGuiCol_Text), pct);
    if (k == 0) {  // what tests read: the likeliest token at row i
      char name[64];
      std::snprintf(name, sizeof name, "prediction %d: %s", i, token_text(model, r.top_id[0]));
      item_registry().add(name, c, e);
    }
  }
}

// Row i: its position, its token → the next token (coloured by how the model ranks
// it), the top 5, and the next token's rank when it is not among them.
void prediction_row(AppModel& m, const ModelWidgets& w, const RowGeometry& g, const TrainedModel& model, int i,
                    int focus) {
  const NextTokenRow& r = w.table.rows[static_cast<size_t>(i)];
  const auto& toks = m.engine.tokens();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float width = std::max(ImGui::GetContentRegionAvail().x, g.rank_x() + g.rank_w);
  ImGui::Dummy(ImVec2(width, g.row_h));
  const bool hovered = ImGui::IsItemHovered();
  if (hovered || focus == i)
    dl->AddRectFilled(p, ImVec2(p.x + width, p.y + g.row_h), ImGui::GetColorU32(ImGuiCol_HeaderHovered, 0.5f));
  char buf[48];
  std::snprintf(buf, sizeof buf, "%d", i);
  const float ty = p.y + (g.row_h - ImGui::GetTextLineHeight()) * 0.5f;
  dl->AddText(ImVec2(p.x + g.idx_w - ImGui::CalcTextSize(buf).x, ty), ImGui::GetColorU32(ImGuiCol_TextDisabled), buf);
  float x = p.x + g.idx_w + g.gap;
  chip(dl, ImVec2(x, p.y + 2), g.chip_w, g.row_h - 4, toks[static_cast<size_t>(i)].c_str(), ImGui::GetColorU32(ImGuiCol_Button));
  x += g.chip_w + g.gap;
  dl->AddText(ImVec2(x, ty), ImGui::GetColorU32(ImGuiCol_TextDisabled), "\xE2\x86\x92");
  x += g.arrow_w + g.gap;
  if (r.next_id >= 0) chip(dl, ImVec2(x, p.y + 2), g.chip_w, g.row_h - 4, token_text(model, r.next_id), next_colour(r));
  else dl->AddText(ImVec2(x + 4, ty), ImGui::GetColorU32(ImGuiCol_TextDisabled), tr("(end)"));
  top_cells(dl, g, p, r, model, i);
  if (r.next_id >= 0 && r.next_rank > NextTokenRow::kTop) {
    char pct[16];
    percent(r.next_p, pct, sizeof pct);
    std::snprintf(buf, sizeof buf, tr("%s: rank %d, %s"), token_text(model, r.next_id), r.next_rank, pct);
    dl->AddText(ImVec2(p.x + g.rank_x(), ty), IM_COL32(240, 130, 120, 255), buf);
  }
  if (!hovered) return;
  // The other views follow: the query row i of the shown head's weights, at the key it weighs most.
  const MatrixView a = m.engine.matrix(Stage::weights, m.view.head);
  int col = 0;
  if (a.data && i < a.rows)
    for (int j = 1; j < a.cols; ++j)
      if (a.data[static_cast<size_t>(i) * a.row_stride() + j] > a.data[static_cast<size_t>(i) * a.row_stride() + col]) col = j;
  m.hover_next = CellRef{true, Stage::weights, m.view.head, i, col};
  if (ImGui::IsItemClicked()) toggle_pin(m.view.pinned, m.hover_next);
}

// The key to the colours, and the columns' names.
void predictions_header(const RowGeometry& g) {
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  dl->AddText(ImVec2(p.x + g.idx_w - ImGui::CalcTextSize("i").x, p.y), dim, "i");
  const char* first = tr("token \xE2\x86\x92 next");
  dl->AddText(ImVec2(p.x + g.idx_w + g.gap, p.y), dim, first);
  // After the first name even where it is wider than the chips under it (the rows are mono, this is not).
  const float x = std::max(g.top_x(), g.idx_w + g.gap + ImGui::CalcTextSize(first).x + 12.0f);
  dl->AddText(ImVec2(p.x + x, p.y), dim, tr("the model's 5 likeliest next tokens"));
  ImGui::Dummy(ImVec2(g.rank_x() + g.rank_w, ImGui::GetTextLineHeight()));
}

void predictions_legend() {
  ImGui::TextDisabled("%s", tr("The next token is"));
  const ImU32 cols[] = {kRight, kInTop, kMissed};
  const char* what[] = {N_("the likeliest"), N_("in the top 5"), N_("further down")};
  for (int k = 0; k < 3; ++k) {
    ImGui::SameLine(0, 10);
    swatch_text(cols[k], tr(what[k]));
  }
}

void residual_stream(AppModel& m, ModelWidgets& w, const TrainedModel& model);

// The rows (tokens and percentages in DejaVu Sans Mono: I, l and 1 differ), and where the
// tab is wide enough (1920 px screens) the residual stream's maps beside them.
void predictions(AppModel& m, ModelWidgets& w, const TrainedModel& model) {
  ImGui::PushFont(g_fonts.mono);
  const RowGeometry g = geometry(w);
  ImGui::PopFont();
  const float need = g.rank_x() + g.rank_w + ImGui::GetStyle().ScrollbarSize + 8;
  const bool beside = ImGui::GetContentRegionAvail().x - need >= 560.0f;
  if (beside) ImGui::BeginChild("##predictions column", ImVec2(need, 0));
  predictions_legend();
  predictions_header(g);
  if (ImGui::BeginChild("##predictions", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar)) {
    const int focus = focus_row(m);
    ImGui::PushFont(g_fonts.mono);
    ImGuiListClipper clip;
    clip.Begin(static_cast<int>(w.table.rows.size()), g.row_h + ImGui::GetStyle().ItemSpacing.y);
    while (clip.Step())
      for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) prediction_row(m, w, g, model, i, focus);
    ImGui::PopFont();
  }
  ImGui::EndChild();
  item_register("Predictions list");
  if (!beside) return;
  ImGui::EndChild();
  ImGui::SameLine(0, 16);
  ImGui::BeginGroup();
  residual_stream(m, w, model);
  ImGui::EndGroup();
}

// [SECTION] Residual stream ---------------------------------------------------------------

// Map k's matrix, version, short name and the sentence under it.
struct MapText {
  char name[32];
  char caption[256];
};
MatrixView map_matrix(const AppModel& m, int k, int L, uint64_t* version) {
  if (k == 0 || k == 1) {
    *version = m.engine.embedding_version();
    return k == 0 ? m.engine.token_embedding() : m.engine.position_embedding();
  }
  if (k == L + 3) {
    *version = m.engine.logits_version();
    return m.engine.logits();
  }
  *version = m.engine.residual_version(k - 2);
  return m.engine.residual(k - 2);
}

void map_text(int k, int L, MapText* t) {
  char a[16], b[16];
  if (k == 0) {
    std::snprintf(t->name, sizeof t->name, "%s", tr("token embedding"));
    std::snprintf(t->caption, sizeof t->caption, "%s", tr("Each token's row of the embedding table: what the token is."));
  } else if (k == 1) {
    std::snprintf(t->name, sizeof t->name, "%s", tr("position embedding"));
    std::snprintf(t->caption, sizeof t->caption, "%s", tr("The learned row for each position 0, 1, 2, …: where the token is."));
  } else if (k == 2) {
    x_name(0, t->name, sizeof t->name);
    std::snprintf(t->caption, sizeof t->caption, tr("%s = token embedding + position embedding: what layer 0 reads."), t->name);
  } else if (k < L + 3) {
    x_name(k - 2, t->name, sizeof t->name);
    x_name(k - 3, a, sizeof a);
    std::snprintf(t->caption, sizeof t->caption, tr("%s = %s + layer %d's output: each layer adds to the residual stream."),
                  t->name, a, k - 3);
  } else {
    std::snprintf(t->name, sizeof t->name, "%s", tr("logits"));
    x_name(L, b, sizeof b);
    std::snprintf(t->caption, sizeof t->caption,
                  tr("logits = %s · W_U: a score per vocabulary token; softmax of row i is the prediction for token i+1."), b);
  }
}

// The choice of maps: a checkbox each.
void map_choice(ModelWidgets& w, int n, int L) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr("Show"));
  MapText t;
  char label[64];
  for (int k = 0; k < n; ++k) {
    map_text(k, L, &t);
    ImGui::SameLine(0, 12);
    std::snprintf(label, sizeof label, "%s###show map %d", t.name, k);
    ImGui::Checkbox(label, &w.show[k]);
  }
}

// One map, at most w × h, its sentence under it.
void residual_map(AppModel& m, const TrainedModel& model, int k, int L, float w, float h, float caption_h, int hl_row) {
  uint64_t version = 0;
  const MatrixView v = map_matrix(m, k, L, &version);
  MapText t;
  map_text(k, L, &t);
  char label[32], title[96];
  std::snprintf(label, sizeof label, "model map %d", k);
  std::snprintf(title, sizeof title, "%s  (%d\xC3\x97%d)", t.name, v.rows, v.cols);
  HeatmapSpec spec;
  spec.label = label;
  spec.title = title;
  spec.exports = &m.exports;
  spec.row_labels = &m.engine.tokens();
  spec.col_labels = k == L + 3 ? &model.vocabulary : nullptr;
  spec.cmap = Colormap::rdbu;
  spec.diverging = true;
  spec.highlight_row = hl_row;
  spec.max_width = w;
  spec.max_height = std::max(80.0f, h - caption_h);
  spec.max_cell = 40.0f;
  spec.decimals_max = m.view.decimals > 0 ? m.view.decimals : 4;
  ImGui::BeginGroup();
  const HeatmapHover hv = heatmap(spec, v, version, m.heatmap_cache(label), *m.textures);
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + w);
  ImGui::TextDisabled("%s", t.caption);
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
  if (hv.hovered && hv.row >= 0 && hv.col >= 0 && v.data) {
    const float x = v.data[static_cast<size_t>(hv.row) * v.row_stride() + hv.col];
    const char* col = k == L + 3 ? token_text(model, hv.col) : nullptr;
    if (col) ImGui::SetTooltip(tr("%s, row %d (%s), column %s: %.4f"), t.name, hv.row,
                               m.engine.tokens()[static_cast<size_t>(hv.row)].c_str(), col, x);
    else ImGui::SetTooltip(tr("%s, row %d (%s), column %d: %.4f"), t.name, hv.row,
                           m.engine.tokens()[static_cast<size_t>(hv.row)].c_str(), hv.col, x);
  }
}

void residual_stream(AppModel& m, ModelWidgets& w, const TrainedModel& model) {
  const int L = model.num_layers, n = std::min(kModelMapsMax, L + 4);
  map_choice(w, n, L);
  int shown = 0;
  for (int k = 0; k < n; ++k) shown += w.show[k];
  if (shown == 0) {
    ImGui::TextDisabled("%s", tr("Tick a map above to show it."));
    return;
  }
  const float gap = 14.0f, avail_w = ImGui::GetContentRegionAvail().x - 4;
  const float each = std::floor((avail_w - gap * static_cast<float>(shown - 1)) / static_cast<float>(shown));
  // The sentences wrap at the map's width: room for the longest one under every map.
  MapText t;
  float caption_h = 0;
  for (int k = 0; k < n; ++k) {
    if (!w.show[k]) continue;
    map_text(k, L, &t);
    caption_h = std::max(caption_h, ImGui::CalcTextSize(t.caption, nullptr, false, each).y);
  }
  caption_h += ImGui::GetStyle().ItemSpacing.y * 2;
  const float h = ImGui::GetContentRegionAvail().y - 4;
  const int hl = focus_row(m);
  bool first = true;
  for (int k = 0; k < n; ++k) {
    if (!w.show[k]) continue;
    if (!first) ImGui::SameLine(0, gap);
    first = false;
    residual_map(m, model, k, L, each, h, caption_h, hl);
  }
}

}  // namespace

// [SECTION] The tab -----------------------------------------------------------------------

void model_tab(AppModel& m) {
  const TrainedModel* model = m.engine.stack().model();
  if (!m.engine.has_result() || model == nullptr || model->checkpoints.empty()) {
    ImGui::TextDisabled("%s", tr("No trained model in this state."));
    return;
  }
  ModelWidgets& w = m.widgets.model;
  update(m, w, *model);
  const float plot_h = std::clamp(ImGui::GetContentRegionAvail().y * 0.27f, 130.0f, 230.0f);
  training(m, *model, plot_h);
  update(m, w, *model);  // a new step shows at once
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(w.summary.c_str());
  ImGui::PopTextWrapPos();
  item_register("Model summary");
  if (ImGui::BeginTabBar("model sections")) {
    // Tab items register by name here (the item hooks do not see them), as the main tabs do.
    const bool pred = ImGui::BeginTabItem(L("Predictions"));
    item_register("Predictions");
    if (pred) {
      predictions(m, w, *model);
      ImGui::EndTabItem();
    }
    const bool resid = ImGui::BeginTabItem(L("Residual stream"));
    item_register("Residual stream");
    if (resid) {
      residual_stream(m, w, *model);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
}

}  // namespace attnviz::ui
