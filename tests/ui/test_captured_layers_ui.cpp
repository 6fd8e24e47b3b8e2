// test_captured_layers_ui.cpp: a state of captured layers (State::layers: a learner's
// own model hooked, docs/engine.md "Captured layers") in the app, driven headless:
// the layer bar and Compare heads' layers × heads grid appear with the layers' names
// (ellipsised when long) in both languages, a click on the grid selects that layer and
// head, the Parameters panel offers no seed for captured inputs and weights, and a
// share link brings the state and the layer back.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "app/app.h"
#include "app/panels/panel_heads_grid.h"
#include "app/text/i18n.h"
#include "attnviz/state.h"
#include "attnviz/state_json.h"
#include "headless.h"
#include "imgui.h"

namespace {

using attnviz::ui::App;
using attnviz::ui::heads_grid_drawn;
using attnviz::ui::heads_grid_row_labels;
using attnviz::ui::testing::drawn_now;
using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;
using nlohmann::json;

const char* const kLong = "model.encoder.layers.2.self_attention_block.multi_head_attention_with_a_long_name";

// L captured layers of 6 tokens, d_model 8, 2 heads, biases and an output projection.
json captured_state(int L) {
  std::mt19937 g(11);
  std::normal_distribution<float> n(0.0f, 0.5f);
  auto matrix = [&](int r, int c) {
    json m = json::array();
    for (int i = 0; i < r; ++i) {
      json row = json::array();
      for (int j = 0; j < c; ++j) row.push_back(n(g));
      m.push_back(row);
    }
    return m;
  };
  auto vec = [&](int c) { return matrix(1, c)[0]; };
  json layers = json::array();
  for (int l = 0; l < L; ++l) {
    const std::string name = l == 2 ? kLong : "transformer.h." + std::to_string(l) + ".attn";
    layers.push_back({{"name", name},
                      {"embedding", {{"values", matrix(6, 8)}}},
                      {"weights",
                       {{"W_q", matrix(8, 8)}, {"W_k", matrix(8, 8)}, {"W_v", matrix(8, 8)}, {"W_o", matrix(8, 8)},
                        {"b_q", vec(8)}, {"b_k", vec(8)}, {"b_v", vec(8)}, {"b_o", vec(8)}}}});
  }
  return {{"tokens", {"the", "cat", "sat", "on", "the", "mat"}}, {"d_model", 8}, {"d_out", 8}, {"num_heads", 2},
          {"qkv_bias", true}, {"out_proj", true}, {"causal", true}, {"layers", layers}};
}

void open(Headless& h, App& app, const json& state, const json& view = {{"tab", "compare"}}) {
  const json r = app.set_session_text(json{{"v", 1}, {"state", state}, {"view", view}}.dump());
  ASSERT_TRUE(r.at("ok").get<bool>()) << r.dump();
  for (int k = 0; k < 4; ++k) h.frame(app);
}

TEST(CapturedLayersUi, GridAndLayerBarShowEveryLayerWithItsName) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  open(h, app, captured_state(3));
  for (const char* id : {"Layer 0", "Layer 1", "Layer 2", "layer name", "heads grid L2 H1", "L2 weights h1"})
    EXPECT_TRUE(drawn_now(id)) << id;
  EXPECT_FALSE(drawn_now("on the probe")) << "the probe is a trained model's";
  EXPECT_EQ(heads_grid_drawn().size(), 6u) << "3 layers × 2 heads";
  const std::vector<std::string>& labels = heads_grid_row_labels();
  ASSERT_EQ(labels.size(), 3u);
  EXPECT_EQ(labels[0], "transformer.h.0.attn");
  EXPECT_EQ(labels[1], "transformer.h.1.attn");
  EXPECT_LT(labels[2].size(), std::string(kLong).size());
  EXPECT_EQ(labels[2].substr(labels[2].size() - 3), "\xE2\x80\xA6") << "a long name is ellipsised: " << labels[2];
  EXPECT_EQ(labels[2].compare(0, 10, kLong, 10), 0);
  for (int l = 0; l < 3; ++l) EXPECT_TRUE(drawn_now(("heads grid layer name L" + std::to_string(l)).c_str()));
  // The scores drawn are the engine's, layer by layer.
  const json report = json::parse(app.head_scores());
  EXPECT_EQ(report.at("layers").size(), 3u);
  EXPECT_EQ(report.at("names")[1], "transformer.h.1.attn");
  // In Chinese: the same rows and names, the interface's words translated.
  app.set_language("zh-CN");
  for (int k = 0; k < 3; ++k) h.frame(app);
  EXPECT_EQ(heads_grid_row_labels().size(), 3u);
  EXPECT_EQ(heads_grid_row_labels()[1], "transformer.h.1.attn");
  EXPECT_STREQ(attnviz::ui::tr("Layer %d: %s"), "第 %d 层：%s");
  EXPECT_STRNE(attnviz::ui::tr("each layer's own, captured from your model"), "each layer's own, captured from your model");
  app.set_language("en");
}

TEST(CapturedLayersUi, AClickOnTheGridSelectsThatLayerAndHead) {
  Headless h(ImVec2(1280, 720));
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  open(h, app, captured_state(3));
  h.click(app, "L2 weights h1");
  json view = app.session_json().at("view");
  EXPECT_EQ(view.value("layer", 0), 2);
  EXPECT_EQ(view.value("head", 0), 1);
  EXPECT_EQ(view.at("pinned").at("head"), 1) << "the cell clicked is pinned";
  h.frame(app);
  for (const auto& d : heads_grid_drawn()) EXPECT_EQ(d.selected, d.layer == 2 && d.head == 1);
  h.click(app, "heads grid L1 H0");
  view = app.session_json().at("view");
  EXPECT_EQ(view.value("layer", 0), 1);
  EXPECT_EQ(view.value("head", 0), 0);
  // The layer bar too.
  h.click(app, "Layer 0");
  EXPECT_EQ(app.session_json().at("view").value("layer", 0), 0);
  // A link brings back the state and the layer shown.
  h.click(app, "Layer 2");
  const std::string link = app.session_json().dump();
  App other(&tex);
  h.frame(other);
  const json r = other.set_session_text(link);
  ASSERT_TRUE(r.at("ok").get<bool>()) << r.dump();
  h.frame(other);
  EXPECT_EQ(other.session_json(), app.session_json());
  EXPECT_EQ(json::parse(other.state_json()).at("layers")[2].at("name"), kLong);
}

TEST(CapturedLayersUi, ParametersOfferNoSeedForCapturedInputsAndWeights) {
  Headless h(ImVec2(1920, 1400));
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  open(h, app, captured_state(2));
  h.click(app, "Weights");  // one group open at a time: the panel has room for it
  EXPECT_TRUE(drawn_now("captured weights"));
  for (const char* id : {"Weight seed", "Init", "Layout", "back to seeded##w"}) EXPECT_FALSE(drawn_now(id)) << id;
  h.click(app, "Weights");
  h.click(app, "Embedding");
  EXPECT_TRUE(drawn_now("captured inputs"));
  for (const char* id : {"Embedding seed", "back to seeded"}) EXPECT_FALSE(drawn_now(id)) << id;
}

TEST(CapturedLayersUi, OneCapturedLayerIsAOneLayerView) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  open(h, app, captured_state(1));
  EXPECT_FALSE(drawn_now("Layer 0")) << "no layer to choose";
  EXPECT_TRUE(heads_grid_row_labels().empty());
  EXPECT_EQ(heads_grid_drawn().size(), 2u) << "the one-layer view's two heads";
}

}  // namespace
