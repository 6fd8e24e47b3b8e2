// test_share.cpp: undo history (bounded, one step per drag), the share payload
// (round trip, versions, hostile text) and Ctrl+Z / Ctrl+Shift+Z through ImGui's
// keyboard input, with no window.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "app/app.h"
#include "app/widgets/fonts.h"
#include "app/model/history.h"
#include "headless.h"
#include "imgui.h"

namespace {

using attnviz::ui::App;
using attnviz::ui::History;
using json = nlohmann::json;

using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;

json state_of(const App& app) { return json::parse(app.state_json()); }

// Steps told apart by their one token ("a", "p=0.1"): what undo gives back is read there.
attnviz::State st(const std::string& token) {
  attnviz::State s;
  s.tokens = {token};
  return s;
}
std::string token_of(const std::optional<attnviz::State>& s) { return s ? s->tokens.at(0) : "(none)"; }

TEST(History, UndoRedoAndRedoClearedByANewChange) {
  History h;
  h.record(st("a"), 0);
  h.record(st("b"), 0);
  ASSERT_EQ(h.undo_size(), 2u);
  EXPECT_EQ(token_of(h.undo(st("c"))), "b");
  EXPECT_EQ(token_of(h.redo(st("b"))), "c");
  EXPECT_EQ(token_of(h.undo(st("c"))), "b");
  h.record(st("b"), 0);  // a new change after undo
  EXPECT_FALSE(h.can_redo());
  EXPECT_EQ(h.undo_size(), 2u);
}

TEST(History, OneGroupIsOneStepUntilItsControlIsReleased) {
  History h;
  h.record(st("p=0.0"), 42);
  h.record(st("p=0.1"), 42);  // same slider, still held
  h.record(st("p=0.2"), 42);
  EXPECT_EQ(h.undo_size(), 1u);
  h.note_active(0);       // released
  h.record(st("p=0.3"), 42);  // a new drag of the same slider
  EXPECT_EQ(h.undo_size(), 2u);
  EXPECT_EQ(token_of(h.undo(st("p=0.5"))), "p=0.3");
  EXPECT_EQ(token_of(h.undo(st("p=0.3"))), "p=0.0");
}

// A state holding an explicit (rows × 4) embedding of its own.
attnviz::State with_rows(int rows, float v) {
  attnviz::State s;
  s.embedding.init = attnviz::EmbeddingInit::values;
  s.embedding.values = attnviz::Tensor(rows, 4, v);
  return s;
}

TEST(History, BoundedByEntriesAndBytes) {
  History h(History::Limits{5, size_t{1} << 20});
  for (int i = 0; i < 20; ++i) h.record(st("s" + std::to_string(i)), 0);
  EXPECT_EQ(h.undo_size(), 5u);
  EXPECT_EQ(token_of(h.undo(st("now"))), "s19");
  // Each step holds a 16 KB matrix of its own: bytes bound the steps kept.
  const size_t fields = attnviz::ui::state_fields_bytes(with_rows(1024, 0.0f));
  const size_t step = fields + 1024 * 4 * sizeof(float);
  History b(History::Limits{200, 3 * step + step / 2});
  for (int i = 0; i < 20; ++i) b.record(with_rows(1024, static_cast<float>(i)), 0);
  EXPECT_LE(b.bytes(), 3 * step + step / 2);
  EXPECT_EQ(b.undo_size(), 3u);
  EXPECT_EQ(b.bytes(), 3 * step);
}

// 100 steps that toggle a flag of a GPT-2-sized state (d_model 768, W_q, W_k, W_v,
// W_o: 9.4 MB) share its matrices: the history holds about one copy, and the
// matrices are back, the same ones, after undoing all of them.
TEST(History, StepsSharingTheWeightsCostAboutOneCopy) {
  attnviz::State s;
  s.d_model = s.d_out = 768;
  s.num_heads = 12;
  s.out_proj = true;
  s.out_bias = false;
  s.weights.init = attnviz::WeightInit::values;
  for (attnviz::SharedTensor* t : {&s.weights.W_q, &s.weights.W_k, &s.weights.W_v, &s.weights.W_o})
    t->reset(768, 768, 0.5f);
  const size_t copy = 4u * 768 * 768 * sizeof(float);
  History h;
  attnviz::State now = s;
  for (int i = 0; i < 100; ++i) {
    attnviz::State before = now;
    now.causal = !now.causal;
    h.record(std::move(before), 0);
  }
  EXPECT_EQ(h.undo_size(), 100u);
  EXPECT_GE(h.bytes(), copy);
  EXPECT_LT(h.bytes(), copy + copy / 50) << "100 steps hold one copy of the weights and their own fields";
  for (int i = 0; i < 100; ++i) now = *h.undo(now);
  EXPECT_FALSE(now.causal);
  EXPECT_TRUE(now.weights.W_q.same_as(s.weights.W_q));
  EXPECT_TRUE(now.weights.W_o.same_as(s.weights.W_o));
  // One edited value makes one more matrix, held once by the step that has it.
  attnviz::State edited = now;
  edited.weights.W_q.mut().at(0, 0) = 2.0f;
  History e;
  e.record(now, 0);
  e.record(edited, 0);
  EXPECT_GE(e.bytes(), copy + copy / 4);
  EXPECT_LT(e.bytes(), copy + copy / 4 + copy / 50);
}

TEST(Share, SessionRoundTripsThroughAFreshApp) {
  Headless h;
  NullTextures tex;
  App a(&tex);
  json s = state_of(a);
  s["d_out"] = 6;
  s["num_heads"] = 3;
  s["causal"] = true;
  ASSERT_TRUE(a.set_state_text(s.dump()).value("ok", false));
  json payload = a.session_json();
  payload["view"] = {{"tab", "compare"}, {"head", 2}, {"head_b", 0}, {"compare_stage", "scores"},
                     {"cmap", "cividis"}, {"decimals", 3}, {"torch", true}, {"split", "whitespace"}, {"lang", "en"},
                     {"pinned", {{"stage", "weights"}, {"head", 2}, {"row", 3}, {"col", 1}}}};
  App b(&tex);
  json r = b.set_session_text(payload.dump());
  ASSERT_TRUE(r.value("ok", false)) << r.dump();
  for (int i = 0; i < 4; ++i) h.frame(b);  // the tab bars take the restored selection
  EXPECT_EQ(b.session_json(), payload) << "state and every view field restored, and kept after frames";
}

// The Decode tab's step travels with the link: the receiving app shows step 3,
// not the last one; other tabs' links do not carry it.
TEST(Share, TheDecodeStepRoundTrips) {
  Headless h;
  NullTextures tex;
  App a(&tex);
  const json s = {{"tokens", {"w0", "w1", "w2", "w3", "w4", "w5", "w6", "w7"}}, {"d_model", 8}, {"d_out", 8},
                  {"num_heads", 2}, {"causal", true}};  // 8 steps: the last one is not step 3
  ASSERT_TRUE(a.set_state_text(s.dump()).value("ok", false));
  EXPECT_FALSE(a.session_json()["view"].contains("decode_t")) << "not on the Stages tab";
  json payload = a.session_json();
  payload["view"]["tab"] = "decode";
  payload["view"]["decode_t"] = 3;
  App b(&tex);
  ASSERT_TRUE(b.set_session_text(payload.dump()).value("ok", false));
  for (int i = 0; i < 4; ++i) h.frame(b);
  EXPECT_EQ(b.session_json()["view"].value("decode_t", -1), 3);
  nlohmann::json w = b.heatmap_info("decode weights");
  ASSERT_FALSE(w.is_null()) << "the Decode tab is shown";
  EXPECT_EQ(w.value("cols", -1), 4) << "step 3 weighs keys 0…3";
  json bad = payload;
  bad["view"]["decode_t"] = "last";
  json r = b.set_session_text(bad.dump());
  EXPECT_FALSE(r.value("ok", true));
  EXPECT_EQ(r.value("field", std::string()), "view.decode_t");
}

TEST(Share, VersionsAndHostileTextGetASentenceAndChangeNothing) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  const json before = app.session_json();
  auto refused = [&](const std::string& text, const std::string& needle) {
    json r = app.set_session_text(text);
    EXPECT_FALSE(r.value("ok", true)) << text.substr(0, 80);
    EXPECT_NE(r.value("error", std::string()).find(needle), std::string::npos) << r.dump();
    EXPECT_EQ(app.session_json(), before);
  };
  json newer = before;
  newer["v"] = 2;
  refused(newer.dump(), "newer attnviz (format 2)");
  json older = before;
  older["v"] = 0;
  refused(older.dump(), "format 0");
  json split = before;
  split["view"]["split"] = "chars";
  refused(split.dump(), "view.split must be");
  refused(std::string(100000, '[') + std::string(100000, ']'), "nested more than 64");
  refused("{\"v\": 1, \"state\": {}, \"view\": {\"tab\": 7}}", "view.tab");
  refused("{\"v\": 1, \"state\": {}, \"view\": {\"head\": -1}}", "view.head");
  refused("{\"v\": 1, \"state\": {\"num_heads\": 3}}", "");
  refused("{\"v\": 1, \"state\": {\"tokens\": [\"" + std::string(1 << 20, 'a') + "\"]}}", "");
  refused("{\"v\": \"1\", \"state\": {}}", "whole number");
  refused("[1, 2]", "not a JSON object");
  refused("{\"v\": 1", "not valid JSON");
  h.frame(app);
}

TEST(Share, CtrlZUndoesAndCtrlShiftZRedoesEveryStateChange) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  json s0 = state_of(app);
  json s1 = s0;
  s1["causal"] = true;
  ASSERT_TRUE(app.set_state_text(s1.dump()).value("ok", false));
  json s2 = s1;
  s2["tokens"] = {"a", "b"};
  ASSERT_TRUE(app.set_session_text(s2.dump()).value("ok", false));  // a pasted bare state
  EXPECT_EQ(app.history_info()["undo"], 2);
  h.chord(app, ImGuiKey_Z);
  EXPECT_EQ(state_of(app), s1);
  h.chord(app, ImGuiKey_Z);
  EXPECT_EQ(state_of(app), s0);
  h.chord(app, ImGuiKey_Z);  // nothing more to undo
  EXPECT_EQ(state_of(app), s0);
  h.chord(app, ImGuiKey_Z, true);
  EXPECT_EQ(state_of(app), s1);
  h.chord(app, ImGuiKey_Y);
  EXPECT_EQ(state_of(app), s2);
  EXPECT_EQ(app.history_info()["redo"], 0);
}

}  // namespace

namespace {

TEST(Share, ASliderDragIsOneUndoStep) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  ImGuiIO& io = ImGui::GetIO();
  for (int i = 0; i < 3; ++i) h.frame(app);
  float r[4];
  // Dropout p sits at the bottom of Parameters: scroll there first.
  ASSERT_TRUE(app.item_rect("Parameters window", r));
  io.AddMousePosEvent(r[0] + r[2] / 2, r[1] + r[3] / 2);
  h.frame(app);
  io.AddMouseWheelEvent(0, -40);
  for (int i = 0; i < 4; ++i) h.frame(app);
  ASSERT_TRUE(app.item_rect("Dropout p", r));
  const size_t before = app.history_info()["undo"];
  const double p0 = state_of(app)["dropout"]["p"].get<double>();  // the default preset's 0.2
  io.AddMousePosEvent(r[0] + 4, r[1] + r[3] / 2);
  h.frame(app);
  io.AddMouseButtonEvent(0, true);
  h.frame(app);
  for (int k = 1; k <= 12; ++k) {
    io.AddMousePosEvent(r[0] + 4 + k * 8, r[1] + r[3] / 2);
    h.frame(app);
  }
  io.AddMouseButtonEvent(0, false);
  h.frame(app);
  h.frame(app);
  EXPECT_GT(state_of(app)["dropout"]["p"].get<double>(), p0 + 0.3) << "the drag moved p right";
  EXPECT_EQ(app.history_info()["undo"].get<size_t>(), before + 1) << "one step for the whole drag";
  h.chord(app, ImGuiKey_Z);
  EXPECT_EQ(state_of(app)["dropout"]["p"].get<double>(), p0) << "one Ctrl+Z undoes the whole drag";
}

}  // namespace
