// test_model_tab.cpp: the Model tab (ui/app/panels/panel_model.cpp) on preset 12, the
// trained induction-2l on its probe. The rows show top_predictions' likeliest token;
// the summary's counts are the ones worked out here from the tokens and the logits;
// the training step moves with its buttons, the arrow keys and the slider, as an
// undoable edit carried by the state; the residual stream's maps have the stack's
// shapes and stay inside the Views window at 1280×720 and 1920×1080, in both languages.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/app.h"
#include "app/panels/panel_model.h"
#include "app/text/i18n.h"
#include "app/widgets/item_registry.h"
#include "attnviz/model.h"
#include "attnviz/state_json.h"
#include "headless.h"
#include "imgui.h"

namespace {

using attnviz::LayerStack;
using attnviz::State;
using attnviz::ui::App;
using attnviz::ui::NextTokenTable;
using attnviz::ui::testing::drawn_now;
using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;
using nlohmann::json;

json preset_state() {
  for (const auto& p : attnviz::ui::presets())
    if (p.id == "12-induction-heads") return p.state;
  ADD_FAILURE() << "no preset 12-induction-heads";
  return json();
}

void stack_of(const json& j, LayerStack* stack) {
  State s;
  ASSERT_TRUE(attnviz::parse_state(j, &s).ok);
  ASSERT_TRUE(stack->set_state(std::move(s)).ok);
}

int step_of(const App& app) { return json::parse(app.state_json())["model"].value("step", -1); }

void key(Headless& h, App& app, ImGuiKey k) {
  ImGui::GetIO().AddKeyEvent(k, true);
  h.frame(app);
  ImGui::GetIO().AddKeyEvent(k, false);
  h.frame(app);
  h.frame(app);
}

// The app on the preset's state with the Model tab open.
void open_model_tab(Headless& h, App& app, const json& state) {
  for (int i = 0; i < 3; ++i) h.frame(app);
  ASSERT_TRUE(app.set_state_text(state.dump()).value("ok", false));
  for (int i = 0; i < 3; ++i) h.frame(app);  // the new tab settles into its place in the bar
  h.click(app, "Model");
  for (int i = 0; i < 2; ++i) h.frame(app);
}

// Rows whose likeliest token is drawn, each checked against top_predictions; how many.
int rows_matching(const LayerStack& stack, int* wrong) {
  const auto& vocab = stack.model()->vocabulary;
  int drawn = 0;
  for (int i = 0; i < static_cast<int>(stack.token_ids().size()); ++i) {
    const std::string want = vocab[static_cast<size_t>(attnviz::top_predictions(stack, i, 1)[0].id)];
    for (const std::string& v : vocab) {
      if (!drawn_now(("prediction " + std::to_string(i) + ": " + v).c_str())) continue;
      ++drawn;
      if (v != want) ++*wrong;
    }
  }
  return drawn;
}

TEST(ModelTab, RowsShowTheLikeliestTokenOfTopPredictions) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  const json state = preset_state();
  open_model_tab(h, app, state);
  LayerStack stack;
  stack_of(state, &stack);
  int wrong = 0;
  EXPECT_GE(rows_matching(stack, &wrong), 8) << "the first rows are in view";
  EXPECT_EQ(wrong, 0);
  // The repeated half: scroll the list to its end with the wheel.
  float r[4];
  ASSERT_TRUE(app.item_rect("Predictions list", r));
  ImGuiIO& io = ImGui::GetIO();
  io.AddMousePosEvent(r[0] + r[2] * 0.5f, r[1] + r[3] * 0.5f);
  h.frame(app);
  for (int k = 0; k < 20; ++k) {
    io.AddMouseWheelEvent(0, -5);
    h.frame(app);
  }
  h.frame(app);
  const int S = static_cast<int>(stack.token_ids().size());
  const std::string last_top = stack.model()->vocabulary[static_cast<size_t>(attnviz::top_predictions(stack, S - 2, 1)[0].id)];
  EXPECT_TRUE(drawn_now(("prediction " + std::to_string(S - 2) + ": " + last_top).c_str())) << "scrolled to the end";
  wrong = 0;
  EXPECT_GE(rows_matching(stack, &wrong), 8);
  EXPECT_EQ(wrong, 0);
}

// The counts recomputed here from the tokens and top_predictions, and what the probe shows:
// the repeat predicted (induction), the random half at chance.
TEST(ModelTab, SummaryCountsTheRepeatAndTheRest) {
  LayerStack stack;
  stack_of(preset_state(), &stack);
  NextTokenTable t;
  attnviz::ui::next_token_table(stack, &t);
  const std::vector<int>& ids = stack.token_ids();
  const int S = static_cast<int>(ids.size());
  ASSERT_EQ(static_cast<int>(t.rows.size()), S);
  int rep = 0, rep_right = 0, other = 0, other_right = 0;
  for (int i = 0; i + 1 < S; ++i) {
    bool repeat = false;
    for (int j = 0; j < i; ++j) repeat |= ids[j] == ids[i] && ids[j + 1] == ids[i + 1];
    const auto all = attnviz::top_predictions(stack, i, stack.model()->vocab_size());
    const bool right = all[0].id == ids[i + 1];
    (repeat ? rep : other) += 1;
    (repeat ? rep_right : other_right) += right;
    int rank = 0;
    while (all[static_cast<size_t>(rank)].id != ids[i + 1]) ++rank;
    EXPECT_EQ(t.rows[i].next_rank, rank + 1) << i;
    EXPECT_FLOAT_EQ(t.rows[i].next_p, all[static_cast<size_t>(rank)].probability) << i;
    for (int k = 0; k < 5; ++k) EXPECT_EQ(t.rows[i].top_id[k], all[static_cast<size_t>(k)].id) << i;
  }
  EXPECT_EQ(t.rows[S - 1].next_id, -1);
  EXPECT_EQ(t.repeat_total, rep);
  EXPECT_EQ(t.repeat_right, rep_right);
  EXPECT_EQ(t.other_total, other);
  EXPECT_EQ(t.other_right, other_right);
  const int n = stack.model()->probe_repeat;  // start + r + r: the repeat's positions n+1 … 2n-1 can be copied
  EXPECT_EQ(rep, n - 1);
  EXPECT_EQ(other, n + 1);
  EXPECT_GE(rep_right, n - 3) << "induction predicts the repeat";
  EXPECT_LE(other_right, 4) << "the random half is at chance";
}

TEST(ModelTab, TrainingStepMovesWithButtonsKeysAndSliderAndUndoes) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  open_model_tab(h, app, preset_state());
  ASSERT_EQ(step_of(app), 1000);
  h.click(app, "Training step previous");
  EXPECT_EQ(step_of(app), 700);
  h.chord(app, ImGuiKey_Z);  // Ctrl+Z
  EXPECT_EQ(step_of(app), 1000);
  key(h, app, ImGuiKey_LeftArrow);
  key(h, app, ImGuiKey_LeftArrow);
  EXPECT_EQ(step_of(app), 500);
  key(h, app, ImGuiKey_RightArrow);
  EXPECT_EQ(step_of(app), 700);
  // The slider's left end: the first checkpoint, and rows that show its predictions.
  float r[4];
  ASSERT_TRUE(app.item_rect("Training step", r));
  ImGuiIO& io = ImGui::GetIO();
  io.AddMousePosEvent(r[0] + 4, r[1] + r[3] * 0.5f);
  h.frame(app);
  io.AddMouseButtonEvent(0, true);
  h.frame(app);
  io.AddMouseButtonEvent(0, false);
  h.frame(app);
  h.frame(app);
  EXPECT_EQ(step_of(app), 0);
  LayerStack stack;
  stack_of(json::parse(app.state_json()), &stack);
  int wrong = 0;
  EXPECT_GE(rows_matching(stack, &wrong), 8);
  EXPECT_EQ(wrong, 0) << "the rows show step 0's predictions";
  h.chord(app, ImGuiKey_Z);
  EXPECT_EQ(step_of(app), 700);
  h.click(app, "Training step next");
  h.click(app, "Training step next");
  EXPECT_EQ(step_of(app), 1000);
  h.click(app, "Training step next");  // the last checkpoint already
  EXPECT_EQ(step_of(app), 1000);
}

struct Rect {
  float x, y, w, h;
};
bool inside(const Rect& a, const Rect& b) {
  return a.x >= b.x - 0.5f && a.y >= b.y - 0.5f && a.x + a.w <= b.x + b.w + 0.5f && a.y + a.h <= b.y + b.h + 0.5f;
}
Rect rect_of(const json& j) { return {j.value("x", 0.f), j.value("y", 0.f), j.value("w", 0.f), j.value("h", 0.f)}; }

TEST(ModelTab, ResidualStreamMapsFitTheViewsWindowInBothLanguages) {
  for (const ImVec2 size : {ImVec2(1280, 720), ImVec2(1440, 900), ImVec2(1920, 1080)})
    for (const char* lang : {"en", "zh-CN"}) {
      SCOPED_TRACE(std::string(lang) + " at " + std::to_string(static_cast<int>(size.x)));
      Headless h(size);
      NullTextures tex;
      App app(&tex);
      app.set_language(lang);
      attnviz::ui::i18n_clear_misses();
      open_model_tab(h, app, preset_state());
      float v[4];
      ASSERT_TRUE(app.item_rect("Views window", v));
      const Rect views{v[0], v[1], v[2], v[3]};
      for (const char* item : {"Training step", "Loss curve", "Head scores curve", "Model summary", "Predictions list"}) {
        float r[4];
        ASSERT_TRUE(app.item_rect(item, r)) << item;
        EXPECT_TRUE(inside({r[0], r[1], r[2], r[3]}, views)) << item;
      }
      h.click(app, "Residual stream");
      h.frame(app);
      const int S = static_cast<int>(preset_state()["tokens"].size());
      std::vector<Rect> panels;
      for (int k = 2; k <= 5; ++k) {  // x₀, x₁, x₂, logits: shown at first
        const json info = app.heatmap_info("model map " + std::to_string(k));
        ASSERT_FALSE(info.is_null()) << k;
        EXPECT_EQ(info.value("rows", 0), S);
        EXPECT_EQ(info.value("cols", 0), k == 5 ? 65 : 64);
        const Rect p = rect_of(info["panel"]);
        EXPECT_TRUE(inside(p, views)) << "map " << k << " at " << p.x << "," << p.y << " " << p.w << "x" << p.h;
        for (const Rect& q : panels) EXPECT_TRUE(p.x >= q.x + q.w || q.x >= p.x + p.w) << "maps side by side, apart";
        panels.push_back(p);
      }
      EXPECT_EQ(app.heatmap_info("model map 5")["col_labels"].size(), 65u);
      EXPECT_TRUE(app.heatmap_info("model map 0").is_null()) << "the embeddings start hidden";
      h.click(app, "show map 0");
      const json tok = app.heatmap_info("model map 0");
      ASSERT_FALSE(tok.is_null()) << "ticked: the token embedding shows";
      EXPECT_TRUE(inside(rect_of(tok["panel"]), views));
      EXPECT_TRUE(attnviz::ui::i18n_misses().empty()) << attnviz::ui::i18n_misses().front();
      app.set_language("en");
    }
}

}  // namespace
