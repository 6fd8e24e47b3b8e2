// model_controls.cpp: the Parameters panel's group for a trained model (model_controls.h).
#include "app/panels/model_controls.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "app/model/app_model.h"
#include "app/panels/panels.h"
#include "app/text/i18n.h"
#include "app/widgets/item_registry.h"
#include "attnviz/model.h"
#include "imgui.h"

namespace attnviz::ui {

namespace {

// The model, its sizes and its training step, in a line each.
void model_summary(const AppModel& m, const TrainedModel& model) {
  ImGui::SeparatorText(tr("Model"));
  ImGui::TextUnformatted(model.name.c_str());
  item_register("model name");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("A 2-layer attention-only transformer trained on random symbols "
                                                         "that repeat (scripts/train_induction.py)."));
  ImGui::SameLine();
  const Checkpoint* k = m.engine.stack().checkpoint();
  ImGui::TextDisabled(tr("training step %d of %d"), k ? k->step : 0, model.checkpoints.back().step);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  char sizes[160];
  std::snprintf(sizes, sizeof sizes, tr("%d layers · %d heads · d_model %d · %d words · context %d"), model.num_layers,
                model.num_heads, model.d_model, model.vocab_size(), model.context);
  ImGui::TextWrapped("%s", sizes);  // a narrow panel wraps it rather than cutting it
  ImGui::PopStyleColor();
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("%s", tr("The model fixes its sizes, embeddings and weights. The mask, temperature, "
                               "window and dropout below apply to every layer."));
  }
}

// Repeat random tokens: start + r + r with r drawn anew (torch.randperm), so the
// second half can only be predicted by copying from the first: an induction head's job.
void repeat_control(AppModel& m, const TrainedModel& model) {
  RepeatState& r = m.widgets.params.repeat;
  const int max_n = std::min(model.vocab_size() - 1, (model.context - 1) / 2);
  r.n = std::clamp(r.n, 1, max_n);
  if (ImGui::Button(L("Repeat random tokens"))) {
    ++r.draws;
    m.draft.tokens = repeated_tokens(model, r.n, 1000 + r.draws);
    m.draft.key_padding.clear();
    apply_edit(m);
  }
  item_register("Repeat random tokens");
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(tr("The start token, %d random symbols, then the same %d again: the second half can only be "
                         "predicted by finding the earlier copy, which is what an induction head does."), r.n, r.n);
  }
  // The count beside the button when the two fit, else under it; its label in full either way.
  const ImGuiStyle& st = ImGui::GetStyle();
  const float label_w = ImGui::CalcTextSize(tr("symbols")).x + st.ItemInnerSpacing.x;
  const float slider_w = ImGui::GetFontSize() * 5;
  if (ImGui::GetContentRegionAvail().x - ImGui::GetItemRectSize().x - st.ItemSpacing.x >= slider_w + label_w) {
    ImGui::SameLine();
  }
  ImGui::SetNextItemWidth(slider_w);
  ImGui::SliderInt(L("symbols"), &r.n, 1, max_n);
  item_register("repeat symbols");
}

// The vocabulary as small chips: a click adds that word at the end.
void vocabulary_chips(AppModel& m, const TrainedModel& model) {
  if (!ImGui::TreeNode(L("Vocabulary"))) return;
  item_register("Vocabulary");
  const float avail = ImGui::GetContentRegionAvail().x;
  float x = 0;
  for (size_t v = 0; v < model.vocabulary.size(); ++v) {
    const std::string& word = model.vocabulary[v];
    const float w = ImGui::CalcTextSize(word.c_str()).x + ImGui::GetStyle().FramePadding.x * 2;
    if (v > 0 && x + w < avail) ImGui::SameLine(0, 2);
    else x = 0;
    x += w + 2;
    ImGui::PushID(static_cast<int>(v));
    if (ImGui::SmallButton(word.c_str()) && m.draft.seq_len() < model.context) {
      m.draft.tokens.push_back(word);
      if (!m.draft.key_padding.empty()) m.draft.key_padding.push_back(1);
      apply_edit(m);
    }
    char reg[48];
    std::snprintf(reg, sizeof reg, "word %s", word.c_str());
    item_register(reg);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip(tr("\"%s\" (id %d): click to add it at the end"), word.c_str(), (int)v);
    ImGui::PopID();
  }
  ImGui::TreePop();
}

}  // namespace

void model_group(AppModel& m) {
  const TrainedModel* model = m.engine.stack().model();
  if (model == nullptr) return;
  model_summary(m, *model);
  repeat_control(m, *model);
  vocabulary_chips(m, *model);
}

}  // namespace attnviz::ui
