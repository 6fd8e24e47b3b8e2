// panels.cpp: window layout, the parameters panel and the stage views.
#include "app/panels.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "app/app.h"
#include "app/app_model.h"
#include "app/item_registry.h"
#include "imgui.h"
#include "imgui_stdlib.h"

namespace attnviz::ui {

nlohmann::json default_state() {
  return nlohmann::json::parse(R"({
    "version": 1,
    "tokens": ["Once", "upon", "a", "time", "there"],
    "d_model": 4, "d_out": 4, "num_heads": 1,
    "embedding": {"init": "torch_randn", "seed": 123},
    "positional": "none",
    "weights": {"init": "torch_rand", "seed": 123, "layout": "fused"},
    "qkv_bias": false, "out_proj": false, "out_bias": false,
    "scale": "head_dim", "temperature": 1.0,
    "causal": false, "mask_fill": "-inf", "safe_softmax": false,
    "dropout": {"p": 0.0, "training": false, "seed": 123}
  })");
}

static std::vector<std::string> split_tokens(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

// Edits one field of the state and applies it; on failure the field's error shows.
template <typename F>
static void edit(AppModel& m, F&& change) {
  nlohmann::json s = m.engine.state();
  change(s);
  m.apply(s);
}

static void error_line(const AppModel& m, const char* field) {
  if (m.error.empty() || m.error_field.rfind(field, 0) != 0) return;
  ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 138, 122, 255));
  ImGui::TextWrapped("%s", m.error.c_str());
  ImGui::PopStyleColor();
}

static void parameters_panel(AppModel& m) {
  const nlohmann::json& s = m.engine.state();

  ImGui::SetNextItemWidth(-1);
  bool done = ImGui::InputTextWithHint("##Tokens", "Type a sentence, press Enter", &m.tokens_text,
                                       ImGuiInputTextFlags_EnterReturnsTrue);
  item_register("Tokens");
  if (done || ImGui::IsItemDeactivatedAfterEdit()) {
    auto toks = split_tokens(m.tokens_text);
    edit(m, [&](nlohmann::json& st) { st["tokens"] = toks; });
  }
  error_line(m, "tokens");

  int heads = s.value("num_heads", 1);
  ImGui::SetNextItemWidth(120);
  if (ImGui::InputInt("Heads", &heads)) edit(m, [&](nlohmann::json& st) { st["num_heads"] = heads; });
  item_register("Heads");
  ImGui::SameLine();
  int d_out = s.value("d_out", 0);
  ImGui::TextDisabled("head_dim = %s", heads > 0 && d_out % heads == 0 ? std::to_string(d_out / heads).c_str() : "?");
  error_line(m, "num_heads");

  bool causal = s.value("causal", false);
  if (ImGui::Checkbox("Causal mask", &causal)) edit(m, [&](nlohmann::json& st) { st["causal"] = causal; });
  item_register("Causal mask");

  float p = s.contains("dropout") ? s["dropout"].value("p", 0.0f) : 0.0f;
  ImGui::SetNextItemWidth(160);
  if (ImGui::SliderFloat("Dropout p", &p, 0.0f, 1.0f, "%.2f"))
    edit(m, [&](nlohmann::json& st) { st["dropout"]["p"] = p; });
  item_register("Dropout p");
  bool training = s.contains("dropout") ? s["dropout"].value("training", false) : false;
  if (ImGui::Checkbox("Training", &training))
    edit(m, [&](nlohmann::json& st) { st["dropout"]["training"] = training; });
  item_register("Training");
  error_line(m, "dropout");
  if (!m.error.empty() && m.error_field.empty()) error_line(m, "");
}

static std::string shape_title(const char* name, const MatrixView& v, const char* extra = "") {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%s%s  (%d×%d)", name, extra, v.rows, v.cols);
  return buf;
}

static void stage_view(AppModel& m, const char* stage, int head, Colormap cmap, bool fixed01, bool diverging) {
  char label[64];
  std::snprintf(label, sizeof label, "%s h%d", stage, head);
  MatrixView v = m.engine.matrix(stage, head);
  HeatmapSpec spec;
  spec.label = label;
  spec.title = shape_title(label, v);
  spec.row_labels = &m.engine.tokens();
  spec.col_labels = &m.engine.tokens();
  spec.cmap = cmap;
  spec.fixed_range = fixed01;
  spec.diverging = diverging;
  spec.max_cell = 56.0f;
  heatmap(spec, v, m.engine.version(stage, head), m.heatmaps[label], *m.textures);
}

void draw_panels(AppModel& m) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  float side = std::min(340.0f, vp->WorkSize.x * 0.3f);

  ImGui::SetNextWindowPos(vp->WorkPos, ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(side, vp->WorkSize.y), ImGuiCond_FirstUseEver);
  if (ImGui::Begin("Parameters")) parameters_panel(m);
  ImGui::End();

  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + side, vp->WorkPos.y), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x - side, vp->WorkSize.y), ImGuiCond_FirstUseEver);
  if (ImGui::Begin("Stages")) {
    // Pipeline order, left to right then top to bottom, so every stage of the
    // selected head is visible at once.
    struct Stage { const char* name; bool weights_like; };
    const Stage stages[] = {{"scores", false}, {"scaled", false}, {"masked", false},
                            {"weights", true}, {"dropped", true}, {"context", false}};
    int cols = ImGui::GetContentRegionAvail().x > 900 ? 3 : 2;
    if (ImGui::BeginTable("stage grid", cols, ImGuiTableFlags_SizingStretchSame)) {
      for (const Stage& st : stages) {
        ImGui::TableNextColumn();
        if (st.weights_like)
          stage_view(m, st.name, m.head, m.weights_cmap, std::string(st.name) == "weights", false);
        else
          stage_view(m, st.name, m.head, Colormap::rdbu, false, true);
      }
      ImGui::EndTable();
    }
  }
  ImGui::End();
}

}  // namespace attnviz::ui
