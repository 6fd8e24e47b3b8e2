// test_long_context.cpp: issue 36's two options in the interface, driven by clicks and
// keys like a learner's. gpt-oss's sink logits: the Variants group's checkbox and one
// field per head change the state, a head change keeps them valid, the flow's softmax
// card names the sink and the Inspector the row's sink share. StreamingLLM's cache: the
// Decode tab's policy combo and its two sizes change the state, the evicted keys are
// drawn absent in the caches and the rows, the bytes at the step are said and drawn,
// and the step is still row t of the full result. Share links and undo carry both, an
// old link opens unchanged, every new text has its Chinese entry, and the Decode tab
// with both on fits the Views window at 1280×720 and 1920×1080.
#include <gtest/gtest.h>

#include <string>

#include "app/app.h"
#include "app/panels/stage_flow.h"
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
  return app.item_rect(label, r) && drawn_now(label);
}

void open_variants(Headless& h, App& app) {
  ImGuiWindow* w = ImGui::FindWindowByName("###Parameters");
  ASSERT_NE(w, nullptr);
  if (!w->StateStorage.GetInt(w->GetID(L(kVariants)), 0)) {
    ASSERT_TRUE(reveal(h, app, kVariants));
    h.click(app, kVariants);
  }
  frames(h, app, 2);
}

void type_into(Headless& h, App& app, const char* label, const char* text) { h.type(app, label, text); }

std::string tokens(int S) {
  std::string t;
  for (int i = 0; i < S; ++i) t += (i ? ",\"w" : "\"w") + std::to_string(i) + "\"";
  return "[" + t + "]";
}

// S tokens, causal, H heads of head_dim 4, and `extra` fields.
std::string state(int S, const std::string& extra = "", int H = 2) {
  return "{\"tokens\": " + tokens(S) + ", \"d_model\": 8, \"d_out\": " + std::to_string(4 * H) +
         ", \"num_heads\": " + std::to_string(H) + ", \"causal\": true" + extra + "}";
}

// Moves the pointer over cell (i, j) of `label` (rows × cols) and returns the Inspector's text, one line.
std::string hover(Headless& h, App& app, const char* label, int rows, int cols, int i, int j) {
  float r[4];
  EXPECT_TRUE(app.item_rect(label, r)) << label;
  ImGui::GetIO().AddMousePosEvent(r[0] + (j + 0.5f) * r[2] / cols, r[1] + (i + 0.5f) * r[3] / rows);
  frames(h, app, 3);
  std::string out;
  for (char c : inspector_log().text) out += c == '\n' ? ' ' : c;
  return out;
}

struct LongContext : ::testing::Test {
  void SetUp() override { set_language(Lang::en); }
  void TearDown() override { set_language(Lang::en); }
};

// [SECTION] gpt-oss's sinks in the Parameters panel --------------------------------------

TEST_F(LongContext, TheSinkControlsChangeTheState) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  frames(h, app);
  ASSERT_TRUE(app.set_state_text(state(6, "", 3)).value("ok", false));
  frames(h, app);
  open_variants(h, app);
  ASSERT_TRUE(reveal(h, app, "Sink logits"));
  EXPECT_FALSE(drawn_now("Sink h0")) << "the fields show while the sinks are on";
  h.click(app, "Sink logits");
  json s = state_of(app);
  EXPECT_EQ(s["sinks"], json::parse(R"({"enabled": true})")) << "0 for every head until one is set";
  ASSERT_TRUE(reveal(h, app, "Sink h2"));
  EXPECT_TRUE(drawn_now("Sink h0") && drawn_now("Sink h1"));
  EXPECT_FALSE(drawn_now("Sink h3"));
  type_into(h, app, "Sink h1", "1.5");
  s = state_of(app);
  EXPECT_EQ(s["sinks"]["values"], json::parse("[0, 1.5, 0]"));
  type_into(h, app, "Sink h2", "-2");
  EXPECT_EQ(state_of(app)["sinks"]["values"], json::parse("[0, 1.5, -2]"));
  // Off keeps the values (as RoPE's base is kept), and on again restores them.
  ASSERT_TRUE(reveal(h, app, "Sink logits"));
  h.click(app, "Sink logits");
  s = state_of(app);
  EXPECT_EQ(s["sinks"]["enabled"], false);
  EXPECT_EQ(s["sinks"]["values"], json::parse("[0, 1.5, -2]"));
  EXPECT_FALSE(drawn_now("Sink h0"));
  h.click(app, "Sink logits");
  EXPECT_EQ(state_of(app)["sinks"]["enabled"], true);
}

TEST_F(LongContext, AHeadChangeKeepsTheSinkLogitsValid) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  frames(h, app);
  ASSERT_TRUE(app.set_state_text(state(6, ", \"sinks\": {\"enabled\": true, \"values\": [1, 2, 3]}", 3))
                  .value("ok", false));
  frames(h, app);
  ASSERT_TRUE(reveal(h, app, "Heads"));
  type_into(h, app, "Heads", "2");
  json s = state_of(app);
  EXPECT_EQ(s["num_heads"], 2);
  EXPECT_EQ(s["sinks"]["values"], json::parse("[1, 2]"));
  type_into(h, app, "Heads", "4");
  s = state_of(app);
  EXPECT_EQ(s["num_heads"], 4);
  EXPECT_EQ(s["sinks"]["values"], json::parse("[1, 2, 0, 0]")) << "a new head's sink starts at 0";
}

// A share link from another app or a hand-written state file can be wrong: the engine's
// sentence, under the control, and the last valid result stays.
TEST_F(LongContext, ARefusedSinkStateKeepsTheLastResultAndSaysWhy) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  frames(h, app);
  ASSERT_TRUE(app.set_state_text(state(6)).value("ok", false));
  const std::string before = app.state_json();
  json r = app.set_state_text(state(6, ", \"sinks\": {\"enabled\": true, \"values\": [1, 2, 3]}"));
  EXPECT_FALSE(r.value("ok", true));
  EXPECT_EQ(r.value("field", ""), "sinks.values");
  EXPECT_NE(r.value("error", "").find("must have 2 numbers (num_heads), but it has 3"), std::string::npos) << r.dump();
  EXPECT_EQ(app.state_json(), before);
  r = app.set_state_text(state(6, ", \"kv_cache\": {\"policy\": \"streaming_llm\", \"recent\": 0}"));
  EXPECT_EQ(r.value("field", ""), "kv_cache.recent");
  EXPECT_EQ(app.state_json(), before);
}

// [SECTION] the flow and the Inspector ----------------------------------------------------

TEST_F(LongContext, TheFlowAndTheInspectorNameTheSinkAndTheEviction) {
  Headless h(ImVec2(1920, 1080));
  NullTextures tex;
  App app(&tex);
  frames(h, app);
  ASSERT_TRUE(app.set_state_text(state(6, ", \"sinks\": {\"enabled\": true, \"values\": [0.5, -1]}, "
                                          "\"kv_cache\": {\"policy\": \"streaming_llm\", \"sink_tokens\": 1, \"recent\": 2}"))
                  .value("ok", false));
  frames(h, app);
  std::string t = hover(h, app, "weights h0", 6, 6, 4, 0);
  EXPECT_NE(t.find("weights[4][0] = exp(masked[4][0] − row max) / (exp(sink_0 − row max) + Σ_s exp(masked[4][s] − "
                   "row max))"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("sink logit s_0 = 0.5"), std::string::npos) << t;
  EXPECT_NE(t.find("The sink takes "), std::string::npos) << t;
  EXPECT_NE(t.find("so this row's weights sum to 1 − "), std::string::npos) << t;
  t = hover(h, app, "masked h0", 6, 6, 4, 1);
  EXPECT_NE(t.find("masked[4][1] = mask_fill -inf (evicted from the KV cache)"), std::string::npos) << t;
  EXPECT_NE(t.find("it is not among the first 1 keys and i − j = 3 ≥ 2"), std::string::npos) << t;
  t = hover(h, app, "masked h0", 6, 6, 4, 0);
  EXPECT_NE(t.find("(not masked)"), std::string::npos) << "key 0 is one of the first keys: kept\n" << t;
  EXPECT_TRUE(drawn_now("op weights")) << "the softmax's card, whose words flow_op gives (below)";
}

// The Stages flow's words where the softmax and the mask are: the head's sink, the evictions.
TEST_F(LongContext, TheFlowsSoftmaxCardNamesTheHeadsSink) {
  attnviz::State s;
  s.num_heads = 2;
  s.sinks.enabled = true;
  s.sinks.values = {0.5f, -1.0f};
  s.causal = true;
  s.kv_cache.policy = attnviz::CachePolicy::streaming_llm;
  s.kv_cache.sink_tokens = 1;
  s.kv_cache.recent = 2;
  char b[300];
  flow_op(s, 2.0f, attnviz::Stage::weights, b, sizeof b, 1);
  EXPECT_STREQ(b, "softmax over the row and the sink s_1 = -1, the sink's column dropped");
  flow_op(s, 2.0f, attnviz::Stage::masked, b, sizeof b);
  EXPECT_STREQ(b, "masked_fill(j > i or evicted: j \xE2\x89\xA5 1 and i \xE2\x88\x92 j \xE2\x89\xA5 2, \xE2\x88\x92inf)");
  flow_torch(s, attnviz::Stage::weights, b, sizeof b);
  EXPECT_NE(std::string(b).find("probs = torch.softmax(torch.cat([attn_scores, sink], dim=-1), dim=-1)"),
            std::string::npos) << b;
  flow_torch(s, attnviz::Stage::masked, b, sizeof b);
  EXPECT_NE(std::string(b).find("evicted = (j >= sink_tokens) & (i - j >= recent)  # sink_tokens = 1, recent = 2"),
            std::string::npos) << b;
  s.causal = false;
  s.sinks.enabled = false;
  s.kv_cache.policy = attnviz::CachePolicy::full;
  EXPECT_STREQ(flow_identity(s, attnviz::Stage::masked), "no mask: same as scaled");
  flow_op(s, 2.0f, attnviz::Stage::weights, b, sizeof b);
  EXPECT_STREQ(b, "softmax(dim=-1)");
}

// [SECTION] the Decode tab: StreamingLLM's cache ------------------------------------------

TEST_F(LongContext, TheDecodeTabsPolicyEvictsAndCountsTheBytes) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  frames(h, app);
  ASSERT_TRUE(app.set_state_text(state(12)).value("ok", false));
  frames(h, app);
  h.click(app, "Decode");
  frames(h, app);
  EXPECT_FALSE(drawn_now("Decode sink tokens")) << "the sizes show with StreamingLLM only";
  EXPECT_FALSE(drawn_now("kv cache bar StreamingLLM"));
  h.click(app, "KV cache policy");
  h.click(app, "KV cache: StreamingLLM");
  json s = state_of(app);
  EXPECT_EQ(s["kv_cache"], json::parse(R"({"policy": "streaming_llm", "sink_tokens": 4, "recent": 4})"))
      << "12 tokens: the paper's 4 + 4 evict something at the last step";
  frames(h, app);
  // Step 11: keys 0-3 and 8-11 stay, 4-7 are evicted: absent in both caches and in every row.
  json k = app.heatmap_info("decode K cache");
  ASSERT_FALSE(k.is_null());
  EXPECT_EQ(k.value("rows", -1), 12);
  json absent = json::array();
  for (int j = 4; j < 8; ++j)
    for (int d = 0; d < 4; ++d) absent.push_back({j, d});
  EXPECT_EQ(k["absent"], absent);
  EXPECT_EQ(app.heatmap_info("decode V cache")["absent"], absent);
  const json row_absent = json::parse("[[0,4],[0,5],[0,6],[0,7]]");
  EXPECT_EQ(app.heatmap_info("decode weights")["absent"], row_absent);
  EXPECT_EQ(app.heatmap_info("decode scores")["absent"], row_absent);
  EXPECT_EQ(app.heatmap_info("decode weights")["cells"][0][5], "") << "an absent cell prints no value";
  EXPECT_NE(k.value("title", "").find("8 of 12"), std::string::npos) << k.value("title", "");
  EXPECT_TRUE(drawn_now("kv cache bar StreamingLLM"));
  EXPECT_TRUE(drawn_now("Decode cache line"));
  EXPECT_TRUE(drawn_now("legend evicted")) << "the legend names the empty cells";
  float r[4];
  ASSERT_TRUE(app.item_rect("Decode equality", r));
  // The sizes: k 1, w 2 keep keys 0, 10 and 11 at step 11.
  type_into(h, app, "Decode sink tokens", "1");
  type_into(h, app, "Decode recent", "2");
  s = state_of(app);
  EXPECT_EQ(s["kv_cache"]["sink_tokens"], 1);
  EXPECT_EQ(s["kv_cache"]["recent"], 2);
  frames(h, app);
  EXPECT_EQ(app.heatmap_info("decode weights")["absent"].size(), 9u);
  // Back to the full cache: nothing absent, the sizes kept.
  h.click(app, "KV cache policy");
  h.click(app, "KV cache: full");
  frames(h, app);
  s = state_of(app);
  EXPECT_EQ(s["kv_cache"]["policy"], "full");
  EXPECT_EQ(s["kv_cache"]["recent"], 2);
  EXPECT_TRUE(app.heatmap_info("decode K cache")["absent"].empty());
  EXPECT_FALSE(drawn_now("legend evicted"));
}

// On the 5 tokens the app opens with, the paper's 4 + 4 would keep every key: the first
// switch picks sizes that evict something at the last step.
TEST_F(LongContext, OnAShortSentenceTheFirstSwitchEvictsSomething) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  frames(h, app);
  ASSERT_TRUE(app.set_state_text(state(5)).value("ok", false));
  frames(h, app);
  h.click(app, "Decode");
  frames(h, app);
  h.click(app, "KV cache policy");
  h.click(app, "KV cache: StreamingLLM");
  frames(h, app);
  EXPECT_EQ(state_of(app)["kv_cache"], json::parse(R"({"policy": "streaming_llm", "sink_tokens": 1, "recent": 2})"));
  EXPECT_EQ(app.heatmap_info("decode weights")["absent"], json::parse("[[0,1],[0,2]]"));
}

TEST_F(LongContext, TheDecodeTabSaysTheSinksShare) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  frames(h, app);
  ASSERT_TRUE(app.set_state_text(state(9, ", \"sinks\": {\"enabled\": true, \"values\": [2, 0]}")).value("ok", false));
  frames(h, app);
  h.click(app, "Decode");
  frames(h, app);
  EXPECT_TRUE(drawn_now("Decode sink share"));
  EXPECT_NE(app.heatmap_info("decode weights").value("title", "").find("with the sink s_0"), std::string::npos);
}

// [SECTION] links, undo, Chinese, fit ------------------------------------------------------

TEST_F(LongContext, LinksAndUndoCarryBothAndAnOldLinkOpensUnchanged) {
  Headless h;
  NullTextures tex;
  App a(&tex);
  frames(h, a);
  ASSERT_TRUE(a.set_state_text(state(6)).value("ok", false));
  frames(h, a);
  const std::string plain = a.state_json();
  ASSERT_TRUE(a.set_state_text(state(6, ", \"sinks\": {\"enabled\": true, \"values\": [0.25, -0.125]}, "
                                        "\"kv_cache\": {\"policy\": \"streaming_llm\", \"sink_tokens\": 2, \"recent\": 3}"))
                  .value("ok", false));
  frames(h, a);
  const std::string both = a.state_json();
  json payload = a.session_json();
  payload["view"]["tab"] = "decode";
  payload["view"]["decode_t"] = 4;
  App b(&tex);
  json r = b.set_session_text(payload.dump());
  ASSERT_TRUE(r.value("ok", false)) << r.dump();
  frames(h, b, 4);
  EXPECT_EQ(b.session_json(), payload) << "state and view restored";
  EXPECT_EQ(b.state_json(), both);
  h.chord(a, ImGuiKey_Z);
  EXPECT_EQ(a.state_json(), plain);
  h.chord(a, ImGuiKey_Z, true);
  EXPECT_EQ(a.state_json(), both);
  // A link from before issue 36 reads and writes without the new fields.
  App c(&tex);
  ASSERT_TRUE(c.set_session_text(R"({"v": 1, "state": {"version": 1, "tokens": ["a", "b"], "causal": true}})")
                  .value("ok", false));
  frames(h, c);
  for (const char* f : {"sinks", "kv_cache"}) EXPECT_FALSE(c.session_json()["state"].contains(f)) << f;
}

TEST_F(LongContext, EveryNewTextHasItsChineseEntry) {
  Headless h(ImVec2(1920, 1080));
  NullTextures tex;
  App app(&tex);
  frames(h, app);
  i18n_clear_misses();
  ASSERT_TRUE(app.set_language("zh-CN").value("ok", false));
  ASSERT_TRUE(app.set_state_text(state(10, ", \"sinks\": {\"enabled\": true, \"values\": [0.5, -1]}, "
                                           "\"kv_cache\": {\"policy\": \"streaming_llm\", \"sink_tokens\": 1, \"recent\": 2}"))
                  .value("ok", false));
  frames(h, app);
  open_variants(h, app);
  for (const char* item : {"Sink logits", "Sink h0"}) {
    float r[4];
    ASSERT_TRUE(reveal(h, app, item)) << item;
    ASSERT_TRUE(app.item_rect(item, r));
    ImGui::GetIO().AddMousePosEvent(r[0] + r[2] * 0.5f, r[1] + r[3] * 0.5f);
    frames(h, app, 4);  // the tooltip shows
  }
  hover(h, app, "weights h0", 10, 10, 7, 0);
  hover(h, app, "masked h0", 10, 10, 7, 3);
  h.click(app, "PyTorch code");
  frames(h, app);
  h.click(app, "Decode");
  frames(h, app);
  h.click(app, "KV cache policy");
  frames(h, app);
  ImGui::GetIO().AddKeyEvent(ImGuiKey_Escape, true);
  frames(h, app, 1);
  ImGui::GetIO().AddKeyEvent(ImGuiKey_Escape, false);
  frames(h, app);
  float r[4];
  for (const char* item : {"KV cache policy", "legend evicted"}) {  // their tooltips
    ASSERT_TRUE(app.item_rect(item, r)) << item;
    ImGui::GetIO().AddMousePosEvent(r[0] + r[2] * 0.5f, r[1] + r[3] * 0.5f);
    frames(h, app, 4);
  }
  h.click(app, "Decode previous");  // a step with every key still cached: the other sentence
  for (int i = 0; i < 7; ++i) h.click(app, "Decode previous");
  std::string missing;
  for (const std::string& k : i18n_misses()) missing += "\n  " + k;
  EXPECT_TRUE(i18n_misses().empty()) << "shown in Chinese without an entry:" << missing;
}

struct Rect {
  float x, y, w, h;
};
Rect rect(const App& app, const char* label) {
  float r[4] = {0, 0, 0, 0};
  EXPECT_TRUE(app.item_rect(label, r)) << label;
  return {r[0], r[1], r[2], r[3]};
}
bool inside(const Rect& a, const Rect& b) {
  return a.x >= b.x - 0.5f && a.y >= b.y - 0.5f && a.x + a.w <= b.x + b.w + 0.5f && a.y + a.h <= b.y + b.h + 0.5f;
}

TEST_F(LongContext, TheDecodeTabWithBothFitsTheViewsWindow) {
  for (const ImVec2 size : {ImVec2(1280, 720), ImVec2(1920, 1080)})
    for (Lang lang : {Lang::en, Lang::zh_CN})
      for (int S : {6, 40}) {
        SCOPED_TRACE(std::to_string(S) + " at " + std::to_string((int)size.x) + (lang == Lang::en ? " en" : " zh"));
        Headless h(size);
        NullTextures tex;
        App app(&tex);
        frames(h, app);
        if (lang == Lang::zh_CN) ASSERT_TRUE(app.set_language("zh-CN").value("ok", false));
        ASSERT_TRUE(app.set_state_text(state(S, ", \"sinks\": {\"enabled\": true, \"values\": [0.5, -1]}, "
                                                "\"kv_cache\": {\"policy\": \"streaming_llm\", \"sink_tokens\": 1, "
                                                "\"recent\": 2}, \"dropout\": {\"p\": 0.2, \"training\": true}"))
                        .value("ok", false));
        frames(h, app);
        h.click(app, "Decode");
        frames(h, app, 4);
        const Rect views = rect(app, "Views window");
        for (const char* item : {"KV cache policy", "Decode sink tokens", "Decode recent", "Decode cache line",
                                 "Decode equality", "kv cache bytes", "kv cache bar", "kv cache bar StreamingLLM",
                                 "decode K cache", "decode V cache", "decode scores", "decode weights",
                                 "Decode sink share", "decode dropped", "decode context"}) {
          const Rect r = rect(app, item);
          EXPECT_TRUE(inside(r, views)) << item << " at " << r.x << "," << r.y << " " << r.w << "x" << r.h;
        }
        for (const char* map : {"decode weights", "decode context"}) {
          json j = app.heatmap_info(map);
          ASSERT_FALSE(j.is_null()) << map;
          EXPECT_LE(j.value("y", 0.0f) + j.value("h", 0.0f), views.y + views.h) << map;
        }
      }
}

}  // namespace
