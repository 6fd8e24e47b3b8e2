// panel_values.cpp: the "Edit values" tab: the embedding rows and every weight
// matrix, editable cell by cell. The first edit swaps the seeded spec for explicit
// values (engine: materialize_*), so no other number moves; "back to seeded" in
// the Parameters panel undoes the switch.
#include <cmath>
#include <cstdio>
#include <string>

#include "app/app_model.h"
#include "app/i18n.h"
#include "app/item_registry.h"
#include "app/panels.h"
#include "attnviz/materialize.h"
#include "imgui.h"

namespace attnviz::ui {

namespace {


// The embedding rows before positions: X itself unless positions are added, in
// which case the engine materialises them (cached per X version).
const Tensor& embedding_rows(AppModel& m) {
  static Tensor cache;  // (S × d_model)
  static uint64_t cached_version = 0;
  const Pipeline& p = m.engine.pipeline();
  uint64_t v = p.version(Stage::X);
  if (v != cached_version) {
    const State& s = p.state();
    cache = s.embedding.init == EmbeddingInit::values ? s.embedding.values
                                                     : materialize_embedding(s).embedding.values;
    cached_version = v;
  }
  return cache;
}

// A grid of float cells. Returns true with (*ei, *ej, *ev) when a cell was edited.
bool value_grid(const char* id, const Tensor& t, const std::vector<std::string>* row_labels, int* ei, int* ej,
                float* ev) {
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
        float v = t.at(i, j);
        char cid[48];
        std::snprintf(cid, sizeof cid, "##%s_%d_%d", id, i, j);
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 4.6f);
        if (ImGui::InputFloat(cid, &v, 0, 0, "%.4f", ImGuiInputTextFlags_EnterReturnsTrue)) {
          *ei = i;
          *ej = j;
          *ev = v;
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

}  // namespace

void values_tab(AppModel& m) {
  if (!m.engine.has_result()) return;
  const Pipeline& p = m.engine.pipeline();
  ImGui::TextWrapped("%s", tr("Type a number and press Enter. The first edit switches that input from its seed to "
                              "explicit values (exactly the numbers shown), so nothing else changes."));
  int i = 0, j = 0;
  float v = 0;
  // A typed NaN or ∞ never reaches the state: it gets a sentence and changes nothing.
  auto finite_or_say = [&](const char* what) {
    if (std::isfinite(v)) return true;
    m.error = tr_args("{0}[{1}][{2}] must be a finite number: NaN and ∞ can come out of attention, but cannot go in.",
                      {what, std::to_string(i), std::to_string(j)});
    m.error_field = what == std::string("embedding") ? "embedding" : "weights";
    return false;
  };

  if (ImGui::CollapsingHeader(L("Embedding (rows of X before positions)"), ImGuiTreeNodeFlags_DefaultOpen)) {
    // What a token added now gets (engine: retokenize), said where its row appears.
    if (p.state().embedding.init == EmbeddingInit::values) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::TextWrapped("%s", tr_args("A token added now gets the row embedding seed {0} gives it (a token already "
                                       "here: a copy of its row); a row moves and goes with its chip.",
                                       {std::to_string((long long)p.state().embedding.seed)})
                                   .c_str());
      ImGui::PopStyleColor();
      item_register("embedding rows of new tokens");
    }
    if (value_grid("embedding", embedding_rows(m), &m.engine.tokens(), &i, &j, &v) && finite_or_say("embedding")) {
      m.draft = materialize_embedding(p.state());
      m.draft.embedding.values.at(i, j) = v;
      m.apply_draft();
    }
  }
  struct W { const char* name; Stage stage; Tensor WeightSpec::*values; };
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
      if (value_grid(w.name, *t, nullptr, &i, &j, &v) && finite_or_say(w.name)) {
        m.draft = materialize_weights(p.state());
        (m.draft.weights.*w.values).at(i, j) = v;  // a bias is (1 × d_out): i is 0
        m.apply_draft();
      }
    }
  }
  if (!m.error.empty() && (m.error_field.rfind("embedding", 0) == 0 || m.error_field.rfind("weights", 0) == 0)) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 138, 122, 255));
    ImGui::TextWrapped("%s", m.error.c_str());
    ImGui::PopStyleColor();
    item_register("error");
  }
}

}  // namespace attnviz::ui
