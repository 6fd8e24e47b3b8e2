// test_variants.cpp: issue 23's options in the interface. The Parameters panel's
// Variants group changes the state (RoPE and its base and style, K/V heads, ALiBi,
// the sliding window); a refused value shows the engine's sentence under its control
// while the views keep the last valid result; a change of Heads keeps K/V heads
// valid; the Stages flow shows the cards of each option; the Inspector explains a
// rotated component, the ALiBi term, the K/V head a query head reads and a cell the
// window masked; share links and undo carry every new field, and an old link opens
// unchanged.
//
// Until the engine computes the variants (branch i23-variants), the tests that read
// their numbers (q_rot's pair and angle, the bias, the window's mask) fail: they are
// the ones named *Numbers* below.
#include <gtest/gtest.h>

#include <string>

#include "app/app.h"
#include "app/text/i18n.h"
#include "app/text/inspector_text.h"
#include "app/widgets/item_registry.h"
#include "headless.h"
#include "imgui.h"
#include "imgui_internal.h"

namespace {

using namespace attnviz::ui;
using attnviz::ui::testing::drawn_now;
using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;

using json = nlohmann::json;

constexpr const char* kVariants = "Variants (RoPE, GQA, ALiBi, window)";

void frames(Headless& h, App& app, int n = 3) {
  for (int i = 0; i < n; ++i) h.frame(app);
}

json state_of(const App& app) { return json::parse(app.state_json()); }

// Scrolls the Parameters window until `label` shows.
bool reveal(Headless& h, App& app, const char* label) {
  float r[4];
  if (app.item_rect(label, r) && drawn_now(label)) return true;
  ImGuiWindow* w = ImGui::FindWindowByName("###Parameters");
  if (!w) return false;
  ImGui::SetScrollY(w, 0.0f);
  frames(h, app, 2);
  for (int step = 0; step < 40 && !(app.item_rect(label, r) && drawn_now(label)); ++step) {
    ImGui::SetScrollY(w, w->Scroll.y + 60.0f);
    frames(h, app, 2);
  }
  return app.item_rect(label, r);
}

void click_param(Headless& h, App& app, const char* label) {
  ASSERT_TRUE(reveal(h, app, label)) << label;
  h.click(app, label);
}

void open_variants(Headless& h, App& app) {
  ImGuiWindow* w = ImGui::FindWindowByName("###Parameters");
  ASSERT_NE(w, nullptr);
  if (!w->StateStorage.GetInt(w->GetID(L(kVariants)), 0)) click_param(h, app, kVariants);
  frames(h, app, 2);
}

// Types `text` into the field `label`, revealing it first.
void type_into(Headless& h, App& app, const char* label, const char* text) {
  ASSERT_TRUE(reveal(h, app, label)) << label;
  h.type(app, label, text, 20.0f);  // the text part of an InputInt / InputDouble
}

struct Variants : ::testing::Test {
  void SetUp() override { set_language(Lang::en); }
  void TearDown() override { set_language(Lang::en); }
};

// [SECTION] the Parameters panel ---------------------------------------------------------

TEST_F(Variants, TheControlsChangeTheState) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  json s = state_of(app);
  s["d_out"] = 8;
  s["num_heads"] = 4;  // head_dim 2: RoPE has one pair per head
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false));
  frames(h, app);
  open_variants(h, app);

  click_param(h, app, "RoPE");
  s = state_of(app);
  EXPECT_EQ(s["positional"], "rope");
  ASSERT_TRUE(reveal(h, app, "RoPE base"));
  click_param(h, app, "RoPE style");
  h.click(app, "RoPE style: interleaved");
  s = state_of(app);
  EXPECT_EQ(s["rope"]["style"], "interleaved");
  type_into(h, app, "RoPE base", "500000");
  EXPECT_EQ(state_of(app)["rope"]["base"], 500000.0);

  click_param(h, app, "K/V heads");
  ASSERT_TRUE(reveal(h, app, "K/V heads: 2")) << "the divisors of 4: 4 (MHA), 2 (GQA), 1 (MQA)";
  EXPECT_TRUE(drawn_now("K/V heads: 4"));
  EXPECT_TRUE(drawn_now("K/V heads: 1"));
  EXPECT_FALSE(drawn_now("K/V heads: 3"));
  h.click(app, "K/V heads: 2");
  EXPECT_EQ(state_of(app)["num_kv_heads"], 2);

  click_param(h, app, "ALiBi");
  EXPECT_EQ(state_of(app)["alibi"], true);

  click_param(h, app, "Sliding window");
  EXPECT_EQ(state_of(app)["window"], 3);  // a window of 3 keys to start with
  type_into(h, app, "Window", "2");
  EXPECT_EQ(state_of(app)["window"], 2);
  type_into(h, app, "Window", "0");  // 0: off
  EXPECT_FALSE(state_of(app).contains("window"));

  // Back to MHA and no RoPE: the fields go (rope's base and style stay, as state.h keeps them).
  click_param(h, app, "K/V heads");
  h.click(app, "K/V heads: 4");
  EXPECT_FALSE(state_of(app).contains("num_kv_heads")) << "4 of 4 heads is MHA, written as the default";
  click_param(h, app, "RoPE");
  EXPECT_EQ(state_of(app)["positional"], "none");
}

TEST_F(Variants, AHeadChangeKeepsKvHeadsValid) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  json s = state_of(app);
  s["d_out"] = 12;
  s["num_heads"] = 4;
  s["num_kv_heads"] = 2;
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false));
  frames(h, app);
  type_into(h, app, "Heads", "6");  // 2 still divides 6: kept
  s = state_of(app);
  EXPECT_EQ(s["num_heads"], 6);
  EXPECT_EQ(s["num_kv_heads"], 2);
  type_into(h, app, "Heads", "3");  // 2 does not divide 3: back to MHA, not refused
  s = state_of(app);
  EXPECT_EQ(s["num_heads"], 3);
  EXPECT_FALSE(s.contains("num_kv_heads"));
}

TEST_F(Variants, RefusalsKeepTheLastResultAndSayWhy) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  json s = state_of(app);
  s["d_out"] = 3;  // head_dim 3: RoPE cannot pair it
  s["d_model"] = 3;
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false));
  frames(h, app);
  const std::string before = app.state_json();
  open_variants(h, app);
  click_param(h, app, "RoPE");
  EXPECT_EQ(app.state_json(), before) << "the last valid state stays";
  ASSERT_TRUE(reveal(h, app, "error"));
  EXPECT_TRUE(drawn_now("error")) << "the sentence shows under the control";
  json bad = json::parse(before);
  bad["positional"] = "rope";
  EXPECT_NE(app.set_state_text(bad.dump()).value("error", std::string()).find("head_dim"), std::string::npos);
  EXPECT_EQ(app.state_json(), before);
  EXPECT_TRUE(app.matrix("weights", 0).data != nullptr) << "the views keep the last result";

  // K/V heads that do not fit: the per_head layout draws a K and V per head.
  s = json::parse(before);
  s["d_out"] = 4;
  s["d_model"] = 4;
  s["num_heads"] = 2;
  s["weights"] = {{"init", "torch_linear"}, {"seed", 123}, {"layout", "per_head"}};
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false)) << app.set_state_text(s.dump()).dump();
  frames(h, app);
  const std::string valid = app.state_json();
  click_param(h, app, "K/V heads");
  h.click(app, "K/V heads: 1");
  EXPECT_EQ(app.state_json(), valid);
  ASSERT_TRUE(reveal(h, app, "error"));
  EXPECT_TRUE(drawn_now("error"));
  // G not dividing H, from a link: refused with the engine's sentence.
  s = json::parse(valid);
  s["weights"]["layout"] = "fused";
  s["num_heads"] = 4;
  s["num_kv_heads"] = 3;
  json r = app.set_state_text(s.dump());
  EXPECT_FALSE(r.value("ok", true));
  EXPECT_NE(r.value("error", std::string()).find("divisible by num_kv_heads"), std::string::npos) << r.dump();
  EXPECT_EQ(app.state_json(), valid);
}

// [SECTION] share links and undo -------------------------------------------------------

TEST_F(Variants, ALinkWithEveryNewFieldRoundTrips) {
  Headless h;
  NullTextures tex;
  App a(&tex);
  json s = state_of(a);
  s["d_out"] = 8;
  s["num_heads"] = 4;
  s["positional"] = "rope";
  s["rope"] = {{"base", 500000.0}, {"style", "interleaved"}};
  s["num_kv_heads"] = 2;
  s["alibi"] = true;
  s["window"] = 3;
  s["causal"] = true;
  ASSERT_TRUE(a.set_state_text(s.dump()).value("ok", false)) << a.set_state_text(s.dump()).dump();
  json payload = a.session_json();
  EXPECT_EQ(payload["state"]["rope"]["style"], "interleaved");
  EXPECT_EQ(payload["state"]["num_kv_heads"], 2);
  EXPECT_EQ(payload["state"]["alibi"], true);
  EXPECT_EQ(payload["state"]["window"], 3);
  payload["view"]["compare_stage"] = "q_rot";
  payload["view"]["tab"] = "compare";
  payload["view"]["head_b"] = 1;  // a second head to compare (a was made with one head)
  App b(&tex);
  json r = b.set_session_text(payload.dump());
  ASSERT_TRUE(r.value("ok", false)) << r.dump();
  frames(h, b, 4);
  EXPECT_EQ(b.session_json(), payload) << "state and view restored";
}

TEST_F(Variants, AnOldLinkOpensUnchanged) {
  Headless h;
  NullTextures tex;
  App a(&tex);
  // A link from before issue 23: none of its fields, and no view field for them.
  const json old = json::parse(R"({"v": 1, "state": {"version": 1, "tokens": ["Once", "upon", "a", "time", "there"],
    "d_model": 4, "d_out": 4, "num_heads": 2, "causal": true, "positional": "sinusoidal"},
    "view": {"tab": "stages", "head": 1, "compare_stage": "weights"}})");
  json r = a.set_session_text(old.dump());
  ASSERT_TRUE(r.value("ok", false)) << r.dump();
  frames(h, a, 3);
  json s = state_of(a);
  for (const char* k : {"rope", "num_kv_heads", "alibi", "window"}) EXPECT_FALSE(s.contains(k)) << k;
  EXPECT_EQ(s["positional"], "sinusoidal");
  EXPECT_EQ(s["num_heads"], 2);
  // Its state, written again, reads as before: what a link made now from it carries.
  json again = a.session_json();
  for (const char* k : {"rope", "num_kv_heads", "alibi", "window"}) EXPECT_FALSE(again["state"].contains(k)) << k;
  App b(&tex);
  ASSERT_TRUE(b.set_session_text(again.dump()).value("ok", false));
  EXPECT_EQ(b.state_json(), a.state_json());
}

TEST_F(Variants, UndoCarriesEveryNewField) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  json s = state_of(app);
  s["d_out"] = 8;
  s["num_heads"] = 4;
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false));
  frames(h, app);
  const std::string plain = app.state_json();
  s = json::parse(plain);
  s["positional"] = "rope";
  s["rope"] = {{"base", 1000.0}, {"style", "half"}};
  s["num_kv_heads"] = 1;
  s["alibi"] = true;
  s["window"] = 2;
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false));
  frames(h, app);
  const std::string variants = app.state_json();
  h.chord(app, ImGuiKey_Z);
  EXPECT_EQ(app.state_json(), plain);
  h.chord(app, ImGuiKey_Z, true);
  EXPECT_EQ(app.state_json(), variants);
  json back = json::parse(variants);
  EXPECT_EQ(back["num_kv_heads"], 1);
  EXPECT_EQ(back["rope"]["base"], 1000.0);
  EXPECT_EQ(back["window"], 2);
}

// [SECTION] the Stages flow and the Inspector ------------------------------------------

// Moves the pointer over cell (i, j) of `label` (rows × cols) and returns the Inspector's text.
std::string hover(Headless& h, App& app, const char* label, int rows, int cols, int i, int j) {
  float r[4];
  EXPECT_TRUE(app.item_rect(label, r)) << label;
  ImGui::GetIO().AddMousePosEvent(r[0] + (j + 0.5f) * r[2] / cols, r[1] + (i + 0.5f) * r[3] / rows);
  frames(h, app, 3);
  return inspector_log().text;
}

// The Inspector's lines joined by spaces.
std::string flat(const std::string& t) {
  std::string out;
  for (char c : t) out += c == '\n' ? ' ' : c;
  return out;
}

std::string variant_state(const char* extra) {
  return std::string(R"({"tokens": ["a", "b", "c", "d", "e", "f"], "d_model": 4, "d_out": 8, "num_heads": 4)") + extra +
         "}";
}

TEST_F(Variants, TheFlowShowsTheCardsOfEachOption) {
  Headless h(ImVec2(1920, 1080));
  NullTextures tex;
  App app(&tex);
  ASSERT_TRUE(app.set_state_text(variant_state("")).value("ok", false));
  frames(h, app);
  EXPECT_FALSE(drawn_now("q_rot h0"));
  EXPECT_FALSE(drawn_now("bias h0"));
  EXPECT_TRUE(drawn_now("K h0"));
  ASSERT_TRUE(app.set_state_text(variant_state(R"(, "positional": "rope")")).value("ok", false));
  frames(h, app);
  EXPECT_TRUE(drawn_now("q_rot h0"));
  EXPECT_TRUE(drawn_now("k_rot h0"));
  EXPECT_TRUE(drawn_now("op q_rot"));
  EXPECT_FALSE(drawn_now("bias h0"));
  ASSERT_TRUE(app.set_state_text(variant_state(R"(, "alibi": true, "num_kv_heads": 2)"))
                  .value("ok", false));
  frames(h, app);
  EXPECT_FALSE(drawn_now("q_rot h0"));
  EXPECT_TRUE(drawn_now("op bias"));
  EXPECT_TRUE(drawn_now("bias h0")) << "the bias map (once the engine computes it)";
  EXPECT_TRUE(drawn_now("K kv0")) << "under GQA the K card shows the K/V head's columns";
  EXPECT_FALSE(drawn_now("K h0"));
  // The other tabs with the options on: the Compare heads combo lists the stages there are.
  h.click(app, "Compare heads");
  frames(h, app);
  h.click(app, "All heads");
  frames(h, app);
  h.click(app, "Stage");
  EXPECT_TRUE(drawn_now("Stage: bias"));
  EXPECT_FALSE(drawn_now("Stage: q_rot"));
  h.click(app, "Stage: bias");
  frames(h, app);
  EXPECT_TRUE(drawn_now("bias h3"));
}

TEST_F(Variants, TheInspectorNamesTheKvHeadAQueryHeadReads) {
  Headless h(ImVec2(1920, 1080));
  NullTextures tex;
  App app(&tex);
  ASSERT_TRUE(app.set_state_text(variant_state(R"(, "num_kv_heads": 2)")).value("ok", false));
  frames(h, app);
  h.click(app, "head 3");
  frames(h, app);
  std::string t = flat(hover(h, app, "scores h3", 6, 6, 1, 2));
  EXPECT_NE(t.find("scores[1][2] = q_1 · k_2 = Σ_d q_1[d] · k_2[d] (head 3, K/V head 1)"), std::string::npos) << t;
  EXPECT_NE(t.find("Reads K/V head 1 = 3 / (4/2), which query heads 2–3 share."), std::string::npos) << t;
  t = flat(hover(h, app, "context h3", 6, 2, 1, 1));
  EXPECT_NE(t.find("(head 3, K/V head 1)"), std::string::npos) << t;
}

// Needs the engine's RoPE (q_rot, k_rot and their explanation).
TEST_F(Variants, TheInspectorExplainsARotatedComponentNumbers) {
  Headless h(ImVec2(1920, 1080));
  NullTextures tex;
  App app(&tex);
  ASSERT_TRUE(app.set_state_text(variant_state(R"(, "positional": "rope")")).value("ok", false));
  frames(h, app);
  std::string t = flat(hover(h, app, "q_rot h0", 6, 2, 3, 1));
  // head_dim 2: one pair (0, 1), k = 0, inv_freq[0] = 1, θ = 3.
  EXPECT_NE(t.find("q_rot[3][1] = Q[3][1] · cos θ + Q[3][0] · sin θ, θ = 3 · inv_freq[0] (head 0)"), std::string::npos)
      << t;
  EXPECT_NE(t.find("Columns 0 and 1 turn together as a pair (frequency k = 0)."), std::string::npos) << t;
  EXPECT_NE(t.find("θ = 3 · inv_freq[0] = 3 · 1.000000 = 3.000000"), std::string::npos) << t;
  EXPECT_NE(t.find("cos θ = -0.989992, sin θ = 0.141120"), std::string::npos) << t;
}

// Needs the engine's ALiBi bias stage and its explanation.
TEST_F(Variants, TheInspectorExplainsTheAlibiTermNumbers) {
  Headless h(ImVec2(1920, 1080));
  NullTextures tex;
  App app(&tex);
  ASSERT_TRUE(app.set_state_text(variant_state(R"(, "alibi": true)")).value("ok", false));
  frames(h, app);
  std::string t = flat(hover(h, app, "bias h0", 6, 6, 4, 1));
  EXPECT_NE(t.find("bias[4][1] = −m_0 · |4 − 1| = −0.25 · 3 (ALiBi)"), std::string::npos) << t;
  EXPECT_NE(t.find("ALiBi slope of head 0: m_0 = 0.250000 (get_slopes(4)[0])"), std::string::npos) << t;
  EXPECT_NE(t.find("−m_0 · |4 − 1| = −0.250000 · 3 = -0.750000"), std::string::npos) << t;
  t = flat(hover(h, app, "masked h0", 6, 6, 4, 1));
  EXPECT_NE(t.find("masked[4][1] = scaled[4][1] + bias[4][1] (not masked)"), std::string::npos) << t;
  EXPECT_NE(t.find("+ ALiBi bias -0.750000 = "), std::string::npos) << t;
}

// Needs the engine's window in the mask.
TEST_F(Variants, TheInspectorSaysWhyTheWindowMaskedACellNumbers) {
  Headless h(ImVec2(1920, 1080));
  NullTextures tex;
  App app(&tex);
  ASSERT_TRUE(app.set_state_text(variant_state(R"(, "causal": true, "window": 3)")).value("ok", false));
  frames(h, app);
  std::string t = flat(hover(h, app, "masked h0", 6, 6, 5, 0));
  EXPECT_NE(t.find("masked[5][0] = mask_fill -inf (window)"), std::string::npos) << t;
  EXPECT_NE(t.find("outside the sliding window: i − j = 5 − 0 = 5 ≥ 3"), std::string::npos) << t;
  t = flat(hover(h, app, "masked h0", 6, 6, 5, 4));
  EXPECT_NE(t.find("Inside the sliding window of 3 keys."), std::string::npos) << t;
}

// Every new string is drawn in Chinese from the catalogue: the Variants group with its
// tooltips, and the cards and the Inspector of each option.
TEST_F(Variants, EveryNewTextHasItsChineseEntry) {
  Headless h(ImVec2(1920, 1080));
  NullTextures tex;
  App app(&tex);
  i18n_clear_misses();
  ASSERT_TRUE(app.set_language("zh-CN").value("ok", false));
  ASSERT_TRUE(app.set_state_text(variant_state(R"(, "positional": "rope", "alibi": true, "num_kv_heads": 2,
                                                        "causal": true, "window": 3)"))
                  .value("ok", false));
  frames(h, app);
  open_variants(h, app);
  for (const char* item : {"RoPE", "RoPE base", "RoPE style", "K/V heads", "ALiBi", "Sliding window", "Window",
                           "Positional"}) {
    float r[4];
    if (!reveal(h, app, item) || !app.item_rect(item, r)) continue;  // Positional: under Embedding, closed
    ImGui::GetIO().AddMousePosEvent(r[0] + r[2] * 0.5f, r[1] + r[3] * 0.5f);
    frames(h, app, 4);  // the tooltip shows
  }
  click_param(h, app, "K/V heads");
  frames(h, app);
  ImGui::GetIO().AddKeyEvent(ImGuiKey_Escape, true);
  frames(h, app, 1);
  ImGui::GetIO().AddKeyEvent(ImGuiKey_Escape, false);
  frames(h, app);
  h.click(app, "head 1");
  for (const char* stage : {"q_rot h1", "k_rot h1", "bias h1", "masked h1", "scores h1", "context h1"}) {
    float r[4];
    if (!app.item_rect(stage, r)) continue;
    h.click(app, stage);  // pins its centre cell
    frames(h, app, 2);
    h.click(app, stage);  // and lets it go
  }
  h.click(app, "PyTorch code");
  frames(h, app);
  h.click(app, "Compare heads");
  frames(h, app);
  std::string missing;
  for (const std::string& k : i18n_misses()) missing += "\n  " + k;
  EXPECT_TRUE(i18n_misses().empty()) << "shown in Chinese without an entry:" << missing;
}

}  // namespace
