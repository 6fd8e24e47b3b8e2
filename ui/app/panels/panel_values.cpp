// panel_values.cpp: the "Edit values" tab: the embedding rows and every weight
// matrix, editable cell by cell. The first edit swaps the seeded spec for explicit
// values (engine: materialize_*), so no other number moves; "back to seeded" in
// the Parameters panel undoes the switch.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "app/model/app_model.h"
#include "app/text/i18n.h"
#include "app/widgets/item_registry.h"
#include "app/panels/panels.h"
#include "app/text/value_text.h"
#include "attnviz/materialize.h"
#include "imgui.h"
#include "imgui_internal.h"

namespace attnviz::ui {

namespace {


// The embedding rows before positions: X itself unless positions are added, in
// which case the engine materialises them (cached per X version in m.widgets.values).
const Tensor& embedding_rows(AppModel& m) {
  ValuesWidgets& c = m.widgets.values;
  const Pipeline& p = m.engine.pipeline();
  uint64_t v = p.version(Stage::X);
  if (v != c.x_version) {
    const State& s = p.state();
    c.embedding = s.embedding.init == EmbeddingInit::values ? s.embedding.values
                                                           : materialize_embedding(s).embedding.values;
    c.x_version = v;
  }
  return c.embedding;
}

// A cell's field: shows format_value_cell's text and, the moment it opens (a click,
// Enter, Tab), holds the exact value instead, selected (exact_value_text), so a
// large or long number is edited from what it is and Enter alone changes nothing.
struct CellOpen {
  bool opening = false;  // the field was not active before this frame's InputText
  float v = 0;
};
int fill_exact_value(ImGuiInputTextCallbackData* d) {
  auto* c = static_cast<CellOpen*>(d->UserData);
  if (!c->opening) return 0;
  c->opening = false;
  const std::string exact = exact_value_text(c->v);
  d->DeleteChars(0, d->BufTextLen);
  d->InsertChars(0, exact.c_str());
  d->SelectAll();
  return 0;
}

// One cell: true with the typed text in *typed when Enter was pressed on it.
bool value_cell(const char* cid, float v, std::string* typed) {
  char buf[64];
  format_value_cell(v, buf, sizeof buf);
  const ImGuiID id = ImGui::GetID(cid);
  CellOpen open{ImGui::GetActiveID() != id, v};
  // As wide as its text, at least 4.6 characters of the font: "1.0000e+10" is not cut to "1.0000e+".
  const float text_w = ImGui::CalcTextSize(buf).x + 2 * ImGui::GetStyle().FramePadding.x;
  ImGui::SetNextItemWidth(std::max(ImGui::GetFontSize() * 4.6f, text_w));
  if (!ImGui::InputText(cid, buf, sizeof buf, ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_CallbackAlways,
                        fill_exact_value, &open))
    return false;
  *typed = buf;
  return true;
}

// A grid of float cells. Returns true with (*ei, *ej) and the typed text when Enter
// was pressed in a cell.
bool value_grid(const char* id, const Tensor& t, const std::vector<std::string>* row_labels, int* ei, int* ej,
                std::string* typed) {
  bool edited = false;
  const int cols = t.cols;
  ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY |
                          ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg;
  float h = std::min(ImGui::GetFrameHeightWithSpacing() * (float)(t.rows + 1.5f), 320.0f);
  if (cols + 1 > 512) {
    ImGui::TextDisabled(tr("(too wide to edit here: %d columns)"), cols);
    return false;
  }
  if (!ImGui::BeginTable(id, cols + 1, flags, ImVec2(0, h))) return false;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn("");
  for (int j = 0; j < cols; ++j) {
    char name[16];
    std::snprintf(name, sizeof name, "%d", j);
    ImGui::TableSetupColumn(name);
  }
  ImGui::TableHeadersRow();
  ImGuiListClipper clip;
  clip.Begin(t.rows);
  while (clip.Step()) {
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (row_labels && i < (int)row_labels->size()) ImGui::TextUnformatted((*row_labels)[i].c_str());
      else ImGui::Text("%d", i);
      for (int j = 0; j < cols; ++j) {
        ImGui::TableNextColumn();
        char cid[48];
        std::snprintf(cid, sizeof cid, "##%s_%d_%d", id, i, j);
        if (value_cell(cid, t.at(i, j), typed)) {
          *ei = i;
          *ej = j;
          edited = true;
        }
        char reg[64];
        std::snprintf(reg, sizeof reg, "%s[%d][%d]", id, i, j);
        item_register(reg);
      }
    }
  }
  ImGui::EndTable();
  return edited;
}

// --- [SECTION] a typed value: read, checked, applied

float max_abs(const Tensor* t) {
  float a = 0;
  if (t)
    for (float x : t->data) a = std::max(a, std::fabs(x));
  return a;
}

// Whether no number of the computation can pass float32's range once a cell of
// `stage` holds v, by bounds on magnitudes (|Q| ≤ d_model·|X|·|W| + |b|, a row of
// weights sums to 1, ...). Cheap; false means "maybe": a trial computation decides.
bool surely_finite(const Pipeline& p, Stage stage, float v) {
  const State& s = p.state();
  const double big = std::fabs((double)v);
  auto with = [&](Stage st) { return std::max<double>(max_abs(p.matrix(st)), st == stage ? big : 0.0); };
  const double x = std::max<double>(max_abs(p.matrix(Stage::X)), stage == Stage::X ? big + 1 : 0.0);  // + a position
  double w = 0, b = 0;
  for (Stage st : {Stage::W_q, Stage::W_k, Stage::W_v}) w = std::max(w, with(st));
  for (Stage st : {Stage::b_q, Stage::b_k, Stage::b_v}) b = std::max(b, with(st));
  const double q = s.d_model * x * w + b;
  const double rq = s.positional == Positional::rope ? 2 * q : q;  // a rotated pair: at most twice
  const double scaled = p.head_dim() * rq * rq / std::min<double>(1.0, p.divisor()) + s.seq_len();  // + ALiBi
  const double keep = p.dropout_active() ? std::max<double>(1.0, p.dropout_scale()) : 1.0;
  const double out = s.d_out * q * keep * with(Stage::W_o) + with(Stage::b_o) + q * keep;
  const double limit = 1e37;  // well inside float32's 3.4e38
  return x < limit && q < limit && scaled < limit && out < limit;
}

// The first stage of p's result that passed float32's range: an ∞ (or a NaN, which no
// mask puts there) in X, Q, K, V, RoPE's rotations or a head's scores; an ∞ in a
// context, concat or the output (a fully masked row's NaN is no overflow). Reading
// the stages computes those that are stale.
const char* overflowed_stage(const Pipeline& p) {
  auto bad = [](const Tensor* t, bool nan_too) {
    if (t)
      for (float x : t->data)
        if (std::isinf(x) || (nan_too && std::isnan(x))) return true;
    return false;
  };
  for (Stage st : {Stage::X, Stage::Q, Stage::K, Stage::V})
    if (bad(p.matrix(st), true)) return stage_name(st);
  for (int h = 0; h < p.num_heads(); ++h) {
    for (Stage st : {Stage::q_rot, Stage::k_rot, Stage::scores, Stage::scaled})
      if (bad(p.matrix(st, h), true)) return stage_name(st);
    if (bad(p.matrix(Stage::context, h), false)) return stage_name(Stage::context);
  }
  for (Stage st : {Stage::concat, Stage::output})
    if (bad(p.matrix(st), false)) return stage_name(st);
  return nullptr;
}

// Reads what was typed into cell what[i][j]. True with *v when it is a new value that
// can go in; otherwise a sentence (or, for an empty field or the same value, nothing)
// and the state stays.
bool read_typed(AppModel& m, const char* what, int i, int j, const std::string& typed, float current, float* v) {
  const std::string cell = std::string(what) + "[" + std::to_string(i) + "][" + std::to_string(j) + "]";
  switch (parse_typed_value(typed.c_str(), v)) {
    case TypedValue::empty: return false;
    case TypedValue::ok: return std::memcmp(v, &current, sizeof current) != 0;  // the same bits: nothing to do
    case TypedValue::not_a_number:
      m.error = tr_args("{0}: \"{1}\" is not a number; type one such as 0.25, -3 or 1e-4.", {cell, typed});
      break;
    case TypedValue::not_finite:
      m.error = tr_args("{0}[{1}][{2}] must be a finite number: NaN and ∞ can come out of attention, but cannot go in.",
                        {what, std::to_string(i), std::to_string(j)});
      break;
    case TypedValue::beyond_float32:
      m.error = tr_args("{0}: {1} is beyond float32's range (about ±3.4e38), the numbers attnviz computes with; "
                        "the cell keeps its value.",
                        {cell, typed});
      break;
  }
  m.error_field = what == std::string("embedding") ? "embedding" : "weights";
  return false;
}

// Applies `next`, the state with cell what[i][j] = v, unless that makes a number of the
// computation overflow float32 where the current state has none: then a sentence
// names the stage, and the last valid state stays.
void apply_value(AppModel& m, State next, const char* what, Stage stage, int i, int j, float v) {
  const Pipeline& p = m.engine.pipeline();
  if (!surely_finite(p, stage, v)) {
    Pipeline trial;  // the edit's whole computation, on the side (captured layers: the shown one's)
    const char* over = trial.set_state(captured_layer_state(next, m.engine.layer())).ok ? overflowed_stage(trial) : nullptr;
    if (over && !overflowed_stage(p)) {
      m.error = tr_args("{0}[{1}][{2}] = {3} was not applied: with it, {4} would pass float32's largest number "
                        "(about 3.4e38) and become ∞ or NaN. The last values stay.",
                        {what, std::to_string(i), std::to_string(j), exact_value_text(v), over});
      m.error_field = what == std::string("embedding") ? "embedding" : "weights";
      return;
    }
  }
  m.draft = std::move(next);
  apply_edit(m);
}

// The state with cell (i, j) of the shown layer's input X set to v: of captured
// layers, that layer's own input; else the state's, from its seed the first time.
State with_embedding_cell(const AppModel& m, int i, int j, float v) {
  if (m.engine.is_captured()) {
    State next = m.engine.state();
    next.layers[(size_t)m.engine.layer()].embedding.values.mut().at(i, j) = v;
    return next;
  }
  State next = materialize_embedding(m.engine.pipeline().state());
  next.embedding.values.mut().at(i, j) = v;
  return next;
}

// The same for a weight matrix (a bias is (1 × d_out): i is 0).
State with_weight_cell(const AppModel& m, SharedTensor WeightSpec::*w, int i, int j, float v) {
  if (m.engine.is_captured()) {
    State next = m.engine.state();
    (next.layers[(size_t)m.engine.layer()].weights.*w).mut().at(i, j) = v;
    return next;
  }
  State next = materialize_weights(m.engine.pipeline().state());
  (next.weights.*w).mut().at(i, j) = v;
  return next;
}

}  // namespace

void values_tab(AppModel& m) {
  if (!m.engine.has_result()) return;
  const Pipeline& p = m.engine.pipeline();
  // A trained model's inputs and weights are its checkpoint's: shown, not edited (an
  // edit would turn the model's layer into a state of its own and drop the model).
  const bool model = m.engine.is_model();
  if (model) {
    ImGui::TextWrapped(tr("A trained model's values are its own: layer %d's input (the residual stream) and weights "
                          "are shown here, read-only. Change the tokens, the training step or the options instead."),
                       m.engine.layer());
    item_register("values read-only");
    ImGui::BeginDisabled();
  } else {
    ImGui::TextWrapped("%s", tr("Type a number and press Enter. The first edit switches that input from its seed to "
                                "explicit values (exactly the numbers shown), so nothing else changes."));
  }
  int i = 0, j = 0;
  float v = 0;
  std::string typed;
  if (ImGui::CollapsingHeader(L("Embedding (rows of X before positions)"), ImGuiTreeNodeFlags_DefaultOpen)) {
    // What a token added now gets (engine: retokenize), said where its row appears.
    if (p.state().embedding.init == EmbeddingInit::values && !model) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::TextWrapped("%s", tr_args("A token added now gets the row embedding seed {0} gives it (a token already "
                                       "here: a copy of its row); a row moves and goes with its chip.",
                                       {std::to_string((long long)p.state().embedding.seed)})
                                   .c_str());
      ImGui::PopStyleColor();
      item_register("embedding rows of new tokens");
    }
    const Tensor& rows = embedding_rows(m);
    if (value_grid("embedding", rows, &m.engine.tokens(), &i, &j, &typed) && !model &&
        read_typed(m, "embedding", i, j, typed, rows.at(i, j), &v)) {
      apply_value(m, with_embedding_cell(m, i, j, v), "embedding", Stage::X, i, j, v);
    }
  }
  struct W { const char* name; Stage stage; SharedTensor WeightSpec::*values; };
  const W ws[] = {{"W_q", Stage::W_q, &WeightSpec::W_q}, {"W_k", Stage::W_k, &WeightSpec::W_k},
                  {"W_v", Stage::W_v, &WeightSpec::W_v}, {"W_o", Stage::W_o, &WeightSpec::W_o},
                  {"b_q", Stage::b_q, &WeightSpec::b_q}, {"b_k", Stage::b_k, &WeightSpec::b_k},
                  {"b_v", Stage::b_v, &WeightSpec::b_v}, {"b_o", Stage::b_o, &WeightSpec::b_o}};
  for (const W& w : ws) {
    const Tensor* t = p.matrix(w.stage);
    if (!t) continue;
    char header[64];
    std::snprintf(header, sizeof header, "%s  (%d×%d)", w.name, t->rows, t->cols);
    if (ImGui::CollapsingHeader(header)) {
      if (value_grid(w.name, *t, nullptr, &i, &j, &typed) && !model &&
          read_typed(m, w.name, i, j, typed, t->at(i, j), &v)) {
        apply_value(m, with_weight_cell(m, w.values, i, j, v), w.name, w.stage, i, j, v);
      }
    }
  }
  if (model) ImGui::EndDisabled();
  if (!m.error.empty() && (m.error_field.rfind("embedding", 0) == 0 || m.error_field.rfind("weights", 0) == 0 ||
                           m.error_field.rfind("layers", 0) == 0)) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 138, 122, 255));
    ImGui::TextWrapped("%s", m.error.c_str());
    ImGui::PopStyleColor();
    item_register("error");
  }
}

}  // namespace attnviz::ui
