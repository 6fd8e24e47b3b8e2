// test_long_input.cpp: issue 36, "long input that a person can handle". The pure parts:
// a paste over the limit keeps its first tokens (keep_first_tokens), the chips' lines
// and Go to's search (chips_layout.h), the long preset's expander (expand_long_text),
// the Decode rows that shrink to fit (decode_key_cell_w). Then the app, driven by keys
// and clicks: a paste of more than Limits::kMaxTokens tokens keeps the first ones and
// says how many were left out (in both languages); the chips box draws only the chips in
// view and still edits; Go to token scrolls to a token and highlights it; the long preset
// loads with its sink, window and RoPE decay; the Decode tab's StreamingLLM rows fit at
// 1280×720. Written against the constant, so it holds at 2,048 and at 32,768.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/app.h"
#include "app/model/presets.h"
#include "app/model/tokenize.h"
#include "app/panels/chips_layout.h"
#include "app/panels/panel_decode.h"
#include "app/text/i18n.h"
#include "app/widgets/item_registry.h"
#include "attnviz/state.h"
#include "headless.h"
#include "imgui.h"
#include "imgui_internal.h"

namespace {

using namespace attnviz::ui;
using attnviz::Limits;
using attnviz::ui::testing::drawn_now;
using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;
using json = nlohmann::json;

// --- pure functions

TEST(LongInputPure, KeepFirstTokensKeepsTheFirstAndCountsTheRest) {
  std::vector<std::string> t = {"a", "b", "c", "d", "e"};
  EXPECT_EQ(keep_first_tokens(&t, 5), 0u);
  EXPECT_EQ(t.size(), 5u);
  EXPECT_EQ(keep_first_tokens(&t, 3), 2u);
  EXPECT_EQ(t, (std::vector<std::string>{"a", "b", "c"}));
  std::vector<std::string> many(static_cast<size_t>(Limits::kMaxTokens) + 952, "w");
  EXPECT_EQ(keep_first_tokens(&many, Limits::kMaxTokens), 952u);
  EXPECT_EQ(many.size(), static_cast<size_t>(Limits::kMaxTokens));
}

TEST(LongInputPure, ChipsBreakIntoLinesThatFit) {
  std::vector<int> starts;
  chips_lines({40, 30, 50, 20}, 100, 8, &starts);
  EXPECT_EQ(starts, (std::vector<int>{0, 2, 4}));  // 40+8+30 fits, +8+50 does not
  chips_lines({150, 10, 10}, 100, 8, &starts);
  EXPECT_EQ(starts, (std::vector<int>{0, 1, 3}));  // a chip wider than the box has a line of its own
  chips_lines({}, 100, 8, &starts);
  EXPECT_EQ(starts, (std::vector<int>{0}));
  // Thousands of chips: every line fits, every chip is on exactly one line.
  std::vector<float> w(Limits::kMaxTokens + 1);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 20.0f + static_cast<float>((i * 37) % 60);
  chips_lines(w, 300, 8, &starts);
  ASSERT_EQ(starts.back(), static_cast<int>(w.size()));
  for (size_t k = 0; k + 1 < starts.size(); ++k) {
    ASSERT_LT(starts[k], starts[k + 1]);
    float x = 0;
    for (int i = starts[k]; i < starts[k + 1]; ++i) x += w[i] + (i > starts[k] ? 8 : 0);
    EXPECT_LE(x, 300.0f) << "line " << k;
  }
  for (int i : {0, 1, 500, static_cast<int>(w.size()) - 1}) {
    const int line = chips_line_of(starts, i);
    EXPECT_LE(starts[line], i);
    EXPECT_GT(starts[line + 1], i);
  }
}

TEST(LongInputPure, ScrollCentresALineAndVisibleLinesCoverTheView) {
  EXPECT_EQ(chips_scroll_to(0, 100, 25, 400), 0.0f);              // the top stays the top
  EXPECT_EQ(chips_scroll_to(399, 100, 25, 400), 400 * 25 - 100.0f);  // the end, not past it
  EXPECT_FLOAT_EQ(chips_scroll_to(200, 100, 25, 400), 200 * 25 + 12.5f - 50);
  const LineRange r = chips_visible(5000, 100, 25, 400);
  EXPECT_LE(r.first, 200);
  EXPECT_GE(r.last, 204);
  EXPECT_LE(r.last - r.first, 8);  // a few lines, whatever the count
  EXPECT_EQ(chips_visible(0, 100, 25, 0).last, 0);
}

TEST(LongInputPure, GoToFindsAnIndexOrTheNextTokenWithThatText) {
  const std::vector<std::string> t = {"<s>", "The", "tide", "the", "boats", "theme"};
  EXPECT_EQ(chips_find(t, parse_go_to("4"), -1), 4);
  EXPECT_EQ(chips_find(t, parse_go_to(" #2 "), -1), 2);
  EXPECT_EQ(chips_find(t, parse_go_to("6"), -1), -1);  // past the end
  EXPECT_EQ(chips_find(t, parse_go_to("the"), -1), 1);  // equal, ignoring case, first
  EXPECT_EQ(chips_find(t, parse_go_to("the"), 1), 3);   // Enter again: the next
  EXPECT_EQ(chips_find(t, parse_go_to("the"), 3), 1);   // round again (equal before containing)
  EXPECT_EQ(chips_find(t, parse_go_to("oat"), -1), 4);  // else one that contains it
  EXPECT_EQ(chips_find(t, parse_go_to("whale"), -1), -1);
  EXPECT_EQ(chips_find(t, parse_go_to(""), -1), -1);
}

TEST(LongInputPure, TheLongTextExpanderRepeatsItsSentencesToTheCount) {
  std::vector<std::string> out;
  const json d = {{"first", {"<s>"}}, {"sentences", {"a b .", "c d"}}, {"count", 9}};
  ASSERT_TRUE(expand_long_text(d, &out));
  EXPECT_EQ(out, (std::vector<std::string>{"<s>", "a", "b", ".", "c", "d", "a", "b", "."}));
  ASSERT_TRUE(expand_long_text({{"sentences", {"x"}}, {"count", Limits::kMaxTokens}}, &out));
  EXPECT_EQ(out.size(), static_cast<size_t>(Limits::kMaxTokens));
  EXPECT_FALSE(expand_long_text({{"sentences", json::array()}, {"count", 3}}, &out));
  EXPECT_FALSE(expand_long_text({{"sentences", {"  "}}, {"count", 3}}, &out));
  EXPECT_FALSE(expand_long_text({{"sentences", {"a"}}, {"count", 0}}, &out));
  EXPECT_FALSE(expand_long_text(json("a b"), &out));
  EXPECT_TRUE(out.empty());
}

TEST(LongInputPure, DecodeRowsShrinkToFitUntilCellsWouldBeTooNarrow) {
  bool scroll = true;
  EXPECT_EQ(decode_key_cell_w(600, 40, 10, 50, &scroll), 50.0f);  // they fit as they are
  EXPECT_FALSE(scroll);
  EXPECT_FLOAT_EQ(decode_key_cell_w(560, 40, 19, 50, &scroll), 520.0f / 19);  // 1×19 at 1280×720: shrink
  EXPECT_FALSE(scroll);
  EXPECT_EQ(decode_key_cell_w(560, 40, 300, 50, &scroll), 50.0f);  // hundreds of keys: scroll
  EXPECT_TRUE(scroll);
  EXPECT_EQ(decode_key_cell_w(560, 40, 49, 50, &scroll), 50.0f);  // cells under 16 px: scroll
  EXPECT_TRUE(scroll);
}

// --- the app

void frames(Headless& h, App& app, int n = 3) {
  for (int i = 0; i < n; ++i) h.frame(app);
}

json state_of(const App& app) { return json::parse(app.state_json()); }

void type_into(Headless& h, App& app, const char* label, const std::string& text) { h.type(app, label, text); }

std::string words(int n, const char* stem = "w") {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? " " : "") + std::string(stem) + std::to_string(i);
  return s;
}

// How many token chips were drawn in the last frame.
int chips_drawn(int n) {
  int drawn = 0;
  char label[32];
  for (int i = 0; i < n; ++i) {
    std::snprintf(label, sizeof label, "token %d", i);
    drawn += drawn_now(label);
  }
  return drawn;
}

TEST(LongInput, APasteOverTheLimitKeepsTheFirstTokensAndSaysHowManyWereLeftOut) {
  for (Lang lang : {Lang::en, Lang::zh_CN}) {
    Headless h(ImVec2(1280, 720));
    NullTextures tex;
    App app(&tex);
    app.set_language(lang == Lang::en ? "en" : "zh-CN");
    frames(h, app);
    h.click(app, "Decode");  // a tab that reads one row: the Stages tab's maps at 32,768 tokens cost seconds
    // One-letter words (typed one character at a time), then the last 57 that go.
    std::string text = "first";
    for (int i = 1; i < Limits::kMaxTokens; ++i) text += i % 2 ? " a" : " b";
    text += " " + words(57, "gone");
    type_into(h, app, "Tokens", text);
    const json s = state_of(app);
    ASSERT_EQ(s["tokens"].size(), static_cast<size_t>(Limits::kMaxTokens)) << "nothing refused: the first tokens stay";
    EXPECT_EQ(s["tokens"][0], "first");
    EXPECT_EQ(s["tokens"][Limits::kMaxTokens - 1], (Limits::kMaxTokens - 1) % 2 ? "a" : "b");
    EXPECT_TRUE(drawn_now("tokens left out"));
    const std::string said = app.notice().value("text", "");
    const std::string kept = std::to_string(Limits::kMaxTokens);
    const std::string kept_grouped = kept.size() > 3 ? kept.substr(0, kept.size() - 3) + "," + kept.substr(kept.size() - 3) : kept;
    EXPECT_NE(said.find(kept_grouped), std::string::npos) << said;
    EXPECT_NE(said.find(" 57 "), std::string::npos) << said;
    EXPECT_NE(said.find(lang == Lang::en ? "left out" : "没有载入"), std::string::npos) << said;
    // A short sentence afterwards applies as ever, and the line goes.
    type_into(h, app, "Tokens", "back to normal");
    EXPECT_EQ(state_of(app)["tokens"], json({"back", "to", "normal"}));
    EXPECT_FALSE(drawn_now("tokens left out"));
  }
  set_language(Lang::en);
}

TEST(LongInput, TheChipsBoxDrawsOnlyTheChipsInViewAndStillEdits) {
  Headless h(ImVec2(1280, 720));
  NullTextures tex;
  App app(&tex);
  frames(h, app);
  const int n = std::min(Limits::kMaxTokens, 2048);
  ASSERT_TRUE(app.set_state_text("{\"tokens\": " + json(std::vector<std::string>(n, "w")).dump() + "}").value("ok", false));
  frames(h, app);
  EXPECT_TRUE(drawn_now("token 0"));
  EXPECT_LT(chips_drawn(n), 80) << "only the lines in view are submitted";
  EXPECT_TRUE(drawn_now("Go to token")) << "a box that scrolls offers Go to token";
  // Go to token 1500: the box scrolls there, that chip is drawn (highlighted), the first is not.
  type_into(h, app, "Go to token", "1500");
  frames(h, app);
  EXPECT_TRUE(drawn_now("token 1500"));
  EXPECT_FALSE(drawn_now("token 0"));
  EXPECT_LT(chips_drawn(n), 80);
  // The maps that show part of their rows bring row 1500 into view (the maps' own reveal).
  for (const char* map : {"Q h0", "K h0", "V h0"}) {
    const json q = app.heatmap_info(map);
    ASSERT_FALSE(q.is_null()) << map;
    const float row0 = q.value("row0", -1.0f), shown = q.value("h", 0.0f) / q.value("cell_h", 1.0f);
    EXPECT_LE(row0, 1500.0f) << map;
    EXPECT_GE(row0 + shown, 1501.0f) << map << " shows rows " << row0 << " + " << shown;
  }
  // Click that chip, type a word over it: the rename applies to token 1500 only.
  h.click(app, "token 1500");
  ImGuiIO& io = ImGui::GetIO();
  io.AddKeyEvent(ImGuiMod_Ctrl, true);
  io.AddKeyEvent(ImGuiKey_A, true);
  frames(h, app, 1);
  io.AddKeyEvent(ImGuiKey_A, false);
  io.AddKeyEvent(ImGuiMod_Ctrl, false);
  io.AddInputCharactersUTF8("harbour");
  frames(h, app, 1);
  io.AddKeyEvent(ImGuiKey_Enter, true);
  frames(h, app, 1);
  io.AddKeyEvent(ImGuiKey_Enter, false);
  frames(h, app);
  const json s = state_of(app);
  ASSERT_EQ(s["tokens"].size(), static_cast<size_t>(n));
  EXPECT_EQ(s["tokens"][1500], "harbour");
  EXPECT_EQ(s["tokens"][1499], "w");
  // Text: Go to "harbour" finds it again from the top.
  type_into(h, app, "Go to token", "0");
  type_into(h, app, "Go to token", "harbour");
  frames(h, app);
  EXPECT_TRUE(drawn_now("token 1500"));
}

TEST(LongInput, TheLongPresetExpandsAndShowsASinkAWindowAndRopeDecay) {
  const Preset* p = nullptr;
  for (const Preset& q : presets())
    if (q.id == "13-long-context") p = &q;
  ASSERT_NE(p, nullptr);
  Headless h(ImVec2(1280, 720));
  NullTextures tex;
  App app(&tex);
  frames(h, app);
  ASSERT_TRUE(app.set_state_text(p->state.dump()).value("ok", false));
  frames(h, app);
  const json s = state_of(app);
  const int S = static_cast<int>(s["tokens"].size());
  EXPECT_EQ(S, p->state["tokens"].size());
  EXPECT_GE(S, 2048);
  EXPECT_EQ(s["tokens"][0], "<s>");
  const int R = s["kv_cache"]["recent"];
  std::vector<float> w, sc;
  ASSERT_TRUE(app.row("weights", 0, S - 1, &w));
  ASSERT_TRUE(app.row("scores", 0, S - 1, &sc));
  EXPECT_GT(w[0], 0.3f) << "a sink on the first token";
  EXPECT_EQ(w[S / 2], 0.0f) << "outside the window: evicted";
  EXPECT_GT(w[S - 1], w[S - R / 2]) << "inside the window, near keys weigh more";
  EXPECT_GT(w[S - R / 2], 0.0f);
  // RoPE's decay: the scores fall with the offset (the last row; the map is Toeplitz).
  EXPECT_GT(sc[S - 1], sc[S - 17]);
  EXPECT_GT(sc[S - 17], sc[S - 257]);
  EXPECT_GT(sc[S - 257], sc[1]);
}

TEST(LongInput, DecodeStreamingRowsShowTheirFirstKeysAt1280x720) {
  Headless h(ImVec2(1280, 720));
  NullTextures tex;
  App app(&tex);
  frames(h, app);
  std::string toks;
  for (int i = 0; i < 20; ++i) toks += (i ? ",\"w" : "\"w") + std::to_string(i) + "\"";
  ASSERT_TRUE(app.set_state_text("{\"tokens\": [" + toks +
                                 "], \"d_model\": 8, \"d_out\": 8, \"num_heads\": 2, \"causal\": true, "
                                 "\"sinks\": {\"enabled\": true, \"values\": [1.5, -0.5]}, "
                                 "\"dropout\": {\"p\": 0.2, \"training\": true, \"seed\": 1}, "
                                 "\"kv_cache\": {\"policy\": \"streaming_llm\", \"sink_tokens\": 4, \"recent\": 4}}")
                  .value("ok", false));
  frames(h, app);
  h.click(app, "Decode");
  h.click(app, "Decode previous");
  frames(h, app);
  const float cell_w = app.heatmap_info("decode scores").value("cell_w", 0.0f);
  for (const char* map : {"decode scores", "decode masked", "decode weights", "decode dropped"}) {
    const json j = app.heatmap_info(map);
    EXPECT_EQ(j.value("cell_w", 0.0f), cell_w) << map << ": the rows' columns line up";
    ASSERT_FALSE(j.is_null()) << map;
    EXPECT_EQ(j.value("cols", 0), 19) << map;
    EXPECT_EQ(j.value("col0", -1.0f), 0.0f) << map << ": the kept first keys w0–w3 in view";
    EXPECT_GE(j.value("w", 0.0f) + 0.5f, 19 * j.value("cell_w", 0.0f)) << map << ": the whole row shows";
  }
}

}  // namespace
