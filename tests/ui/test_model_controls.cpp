// test_model_controls.cpp: the Parameters panel on a trained model's state
// (model_controls.cpp, issue 33): the layer bar, Repeat random tokens, the
// vocabulary chips, typed text split into the model's symbols, a word it does
// not know refused with the last state kept, and the controls the model fixes
// not offered. Real clicks and keys through the headless app.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/model/tokenize.h"
#include "attnviz/model.h"
#include "attnviz/state_json.h"
#include "headless.h"

namespace attnviz::ui {
namespace {

using nlohmann::json;
using testing::Headless;
using testing::NullTextures;
using testing::drawn_now;

json state_of(const App& app) { return json::parse(app.state_json()); }

void frames(Headless& h, App& app, int n) {
  for (int i = 0; i < n; ++i) h.frame(app);
}

void press(Headless& h, App& app, ImGuiKey key, bool ctrl = false) {
  ImGuiIO& io = ImGui::GetIO();
  if (ctrl) io.AddKeyEvent(ImGuiMod_Ctrl, true);
  io.AddKeyEvent(key, true);
  frames(h, app, 1);
  io.AddKeyEvent(key, false);
  if (ctrl) io.AddKeyEvent(ImGuiMod_Ctrl, false);
  frames(h, app, 1);
}

// The Tokens box: click, select all, type, Enter.
void type_tokens(Headless& h, App& app, const char* text) {
  h.click(app, "Tokens");
  press(h, app, ImGuiKey_A, true);
  ImGui::GetIO().AddInputCharactersUTF8(text);
  frames(h, app, 1);
  press(h, app, ImGuiKey_Enter);
  frames(h, app, 2);
}

void open_model(Headless& h, App& app, const std::vector<std::string>& tokens) {
  const json s = {{"model", {{"name", "induction-2l"}}}, {"tokens", tokens}};
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false));
  frames(h, app, 3);
}

TEST(ModelControls, TheModelsGroupReplacesTheControlsItFixes) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  frames(h, app, 2);
  EXPECT_TRUE(drawn_now("Heads")) << "a plain state offers its shapes";
  EXPECT_FALSE(drawn_now("Repeat random tokens"));
  EXPECT_FALSE(drawn_now("Layer 1"));
  open_model(h, app, {"<s>", "A", "B"});
  EXPECT_TRUE(drawn_now("Repeat random tokens"));
  EXPECT_TRUE(drawn_now("model name"));
  EXPECT_FALSE(drawn_now("Heads")) << "the model fixes its heads";
  EXPECT_FALSE(drawn_now("d_model"));
  EXPECT_TRUE(drawn_now("Causal mask")) << "options still apply to every layer";
  EXPECT_TRUE(drawn_now("Layer 0"));
  EXPECT_TRUE(drawn_now("Layer 1"));
}

TEST(ModelControls, RepeatRandomTokensMakesStartPlusRPlusR) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  frames(h, app, 2);
  open_model(h, app, {"<s>", "A"});
  h.click(app, "Repeat random tokens");
  const std::vector<std::string> a = state_of(app).at("tokens");
  ASSERT_EQ(a.size(), 49u) << "24 symbols twice, after the start token";
  EXPECT_EQ(a[0], "<s>");
  for (size_t i = 1; i <= 24; ++i) EXPECT_EQ(a[i], a[i + 24]);
  const SharedModel m = find_model("induction-2l");
  EXPECT_EQ(a, repeated_tokens(*m, 24, 1001)) << "the first press draws with seed 1001";
  frames(h, app, 3);  // the token box grows to its 4 rows over a frame or two, moving the button down
  h.click(app, "Repeat random tokens");
  const std::vector<std::string> b = state_of(app).at("tokens");
  EXPECT_NE(a, b) << "each press draws anew";
  press(h, app, ImGuiKey_Z, true);  // undo brings the last draw back
  frames(h, app, 2);
  EXPECT_EQ(state_of(app).at("tokens").get<std::vector<std::string>>(), a);
}

TEST(ModelControls, VocabularyChipsAddWordsAndTypedTextSplitsIntoSymbols) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  frames(h, app, 2);
  open_model(h, app, {"<s>", "A"});
  h.click(app, "Vocabulary");
  frames(h, app, 2);
  ASSERT_TRUE(drawn_now("word #"));
  h.click(app, "word #");
  EXPECT_EQ(state_of(app).at("tokens"), json({"<s>", "A", "#"}));
  type_tokens(h, app, "<s> abcabc");
  EXPECT_EQ(state_of(app).at("tokens"), json({"<s>", "a", "b", "c", "a", "b", "c"}));
  EXPECT_EQ(split_for_vocabulary("<s> x7 dog", find_model("induction-2l")->vocabulary),
            (std::vector<std::string>{"<s>", "x", "7", "d", "o", "g"}));
}

TEST(ModelControls, AWordOutsideTheVocabularyIsRefusedAndTheStateKept) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  frames(h, app, 2);
  open_model(h, app, {"<s>", "A", "B"});
  const json before = state_of(app);
  type_tokens(h, app, "<s> A é");
  EXPECT_EQ(state_of(app), before) << "the last valid state stays";
  EXPECT_TRUE(drawn_now("error"));
  const json s = {{"model", {{"name", "induction-2l"}}}, {"tokens", json::array({"<s>"})}, {"d_model", 8}};
  const json r = app.set_state_text(s.dump());
  EXPECT_FALSE(r.value("ok", true));
  EXPECT_EQ(r.value("field", ""), "d_model");
  EXPECT_NE(r.value("error", "").find("fixed by model induction-2l"), std::string::npos) << r.dump();
}

TEST(ModelControls, TheLayerBarChoosesTheLayerEveryTabReads) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  frames(h, app, 2);
  open_model(h, app, {"<s>", "a", "b", "a", "b"});
  const MatrixView w0 = app.matrix("weights", 0);
  ASSERT_TRUE(w0.data);
  const float first = w0.data[5 * 4 + 1];
  h.click(app, "Layer 1");
  const MatrixView w1 = app.matrix("weights", 0);
  ASSERT_TRUE(w1.data);
  EXPECT_NE(w1.data[5 * 4 + 1], first) << "another layer's weights";
  LayerStack stack;
  State s;
  ASSERT_TRUE(parse_state(state_of(app), &s).ok);
  ASSERT_TRUE(stack.set_state(s).ok);
  EXPECT_EQ(w1.data[5 * 4 + 1], stack.layer(1).matrix(Stage::weights, 0)->at(4, 1));
  // Back to a plain state: one layer, the bar gone.
  ASSERT_TRUE(app.set_state_text("{}").value("ok", false));
  frames(h, app, 3);
  EXPECT_FALSE(drawn_now("Layer 1"));
  EXPECT_TRUE(app.matrix("weights", 0).data);
}

}  // namespace
}  // namespace attnviz::ui

namespace attnviz::ui {
namespace {

// Edit values on a trained model: its values are shown read-only; a click and typing
// in a cell leave the state what it was (an edit would have turned the layer into a
// state of its own and dropped the model).
TEST(ModelControls, EditValuesShowsAModelsValuesReadOnly) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  frames(h, app, 2);
  open_model(h, app, {"<s>", "a", "b"});
  const json before = state_of(app);
  h.click(app, "Edit values");
  frames(h, app, 2);
  ASSERT_TRUE(drawn_now("values read-only"));
  ASSERT_TRUE(drawn_now("embedding[0][0]"));
  h.click(app, "embedding[0][0]");
  press(h, app, ImGuiKey_A, true);
  ImGui::GetIO().AddInputCharactersUTF8("5");
  frames(h, app, 1);
  press(h, app, ImGuiKey_Enter);
  frames(h, app, 2);
  EXPECT_EQ(state_of(app), before);
}

}  // namespace
}  // namespace attnviz::ui

namespace attnviz::ui {
namespace {

// A link to a layer the state does not have: a sentence naming view.layer, nothing
// applied. A link to a layer it has: every tab reads that layer.
TEST(ModelControls, ALinkToALayerOutOfRangeIsRefusedWholly) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  frames(h, app, 2);
  const json before = app.session_json();
  const json model = {{"model", {{"name", "induction-2l"}}}, {"tokens", {"<s>", "a", "b"}}};
  json r = app.set_session_text(json({{"v", 1}, {"state", model}, {"view", {{"layer", 2}}}}).dump());
  EXPECT_FALSE(r.value("ok", true));
  EXPECT_EQ(r.value("field", ""), "view.layer");
  EXPECT_NE(r.value("error", "").find("has 2 layer(s)"), std::string::npos) << r.dump();
  EXPECT_EQ(app.session_json(), before) << "nothing applied";
  r = app.set_session_text(json({{"v", 1}, {"state", {{"tokens", {"a", "b"}}}}, {"view", {{"layer", 1}}}}).dump());
  EXPECT_EQ(r.value("field", ""), "view.layer") << "a plain state has one layer";
  r = app.set_session_text(json({{"v", 1}, {"state", model}, {"view", {{"layer", 1}}}}).dump());
  EXPECT_TRUE(r.value("ok", false)) << r.dump();
  frames(h, app, 2);
  EXPECT_EQ(app.session_json().at("view").at("layer"), 1);
}

}  // namespace
}  // namespace attnviz::ui
