// test_i18n_params.cpp: the Parameters panel, Edit values, Compare heads, Lines and
// the presets in 简体中文 (issue 22, item 1). Their widths come from the translated
// text, so at 1280×720 nothing reaches past the Parameters window and the panel is no
// taller than in English; their combos keep the state's values while showing Chinese;
// every string they draw (tooltips, menus, sub-tabs, sentences) has a catalogue entry;
// and the CJK font has every character of the presets' Chinese titles and abouts.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "app/app.h"
#include "app/widgets/fonts.h"
#include "app/text/i18n.h"
#include "app/model/presets.h"
#include "headless.h"
#include "imgui.h"
#include "imgui_internal.h"

namespace {

using namespace attnviz::ui;
using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;
using json = nlohmann::json;

std::vector<uint8_t> read_file(const char* path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return {};
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

// The language is the process's: each test starts and ends in English.
struct I18nParams : ::testing::Test {
  void SetUp() override {
    set_language(Lang::en);
    i18n_clear_misses();
  }
  void TearDown() override { set_language(Lang::en); }
};

// How far the Parameters panel's widest line reaches past its window's content
// region (≤ 0: inside), and how tall its content is, as drawn in the last frame.
struct Extent {
  float overflow = 0, height = 0;
};
Extent parameters_extent() {
  const ImGuiWindow* w = ImGui::FindWindowByName("###Parameters");
  if (!w) return {1e9f, 0};
  return {w->DC.CursorMaxPos.x - w->WorkRect.Max.x, w->DC.CursorMaxPos.y - w->DC.CursorStartPos.y};
}

void frames(Headless& h, App& app, int n = 3) {
  for (int i = 0; i < n; ++i) h.frame(app);
}

// Scrolls the Parameters window until `label` shows (the rarer groups open below the
// window's first height): from the top down, unless it shows already.
bool reveal(Headless& h, App& app, const char* label) {
  float r[4];
  if (app.item_rect(label, r)) return true;
  ImGuiWindow* w = ImGui::FindWindowByName("###Parameters");
  if (!w) return false;
  ImGui::SetScrollY(w, 0.0f);
  frames(h, app, 2);
  for (int step = 0; step < 40 && !app.item_rect(label, r); ++step) {
    ImGui::SetScrollY(w, w->Scroll.y + 60.0f);
    frames(h, app, 2);
  }
  return app.item_rect(label, r);
}

void click_in_parameters(Headless& h, App& app, const char* label, int button = 0) {
  ASSERT_TRUE(reveal(h, app, label)) << label;
  h.click(app, label, button);
}

// Opens the collapsed groups of the Parameters panel. A header's open state is kept
// under its ID, the same in every language; Scaling and softmax starts open on a
// screen 820 px high or more (panel_params.cpp).
// With `variants`, the Variants group too (issue 23's controls).
void open_groups(Headless& h, App& app, bool variants = false) {
  ImGuiWindow* w = ImGui::FindWindowByName("###Parameters");
  ASSERT_NE(w, nullptr);
  for (const char* group : {"Scaling and softmax", "Embedding", "Weights", "Variants (RoPE, GQA, ALiBi, window)"}) {
    if (!variants && std::string(group).rfind("Variants", 0) == 0) continue;
    const bool by_default = std::string(group) == "Scaling and softmax" && ImGui::GetIO().DisplaySize.y >= 820.0f;
    if (w->StateStorage.GetInt(w->GetID(L(group)), by_default ? 1 : 0)) continue;
    ImGui::SetScrollY(w, 0.0f);
    frames(h, app, 2);
    click_in_parameters(h, app, group);
  }
  ImGui::SetScrollY(w, 0.0f);
  frames(h, app, 2);
}

TEST_F(I18nParams, ParametersFitAt1280x720InChineseAsInEnglish) {
  Headless h(ImVec2(1280, 720));
  FontSources src;  // outlives the atlas that points into it
  if (!attnviz::ui::testing::use_real_fonts(src)) GTEST_SKIP() << "fonts-dejavu or fonts-droid-fallback is not installed";
  NullTextures tex;
  App app(&tex);
  json s = json::parse(app.state_json());
  s["key_padding"] = {1, 1, 0, 1, 1};  // a chip reads "[pad] a"
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false));
  frames(h, app, 5);

  // As the panel opens: the frequent controls, the rarer groups closed (720 px high).
  Extent opening[2];
  for (const char* lang : {"en", "zh-CN"}) {
    ASSERT_TRUE(app.set_language(lang).value("ok", false));
    frames(h, app);
    const bool zh = std::string(lang) == "zh-CN";
    opening[zh] = parameters_extent();
    for (const char* item : {"Tokens", "Split", "token chips", "d_model", "d_out", "Heads", "Causal mask",
                             "Dropout p", "Dropout p value", "Training", "Dropout seed"}) {
      float r[4];
      EXPECT_TRUE(app.item_rect(item, r)) << lang << ": " << item << " is not on screen";
    }
  }
  EXPECT_LE(opening[1].overflow, 0.5f) << "a line of the Chinese panel reaches past the window";
  EXPECT_LE(opening[0].overflow, 0.5f) << "a line of the English panel reaches past the window";
  EXPECT_LE(opening[1].height, opening[0].height + 0.5f) << "the Chinese panel is taller: a line wrapped";

  // Every group open (their IDs are the same in both languages, so they stay open).
  open_groups(h, app, true);
  s = json::parse(app.state_json());
  s["mask_fill"] = -1e9;  // the fill's number field beside its combo: the widest row
  s["d_out"] = 8;
  s["num_heads"] = 4;        // K/V heads offers 4 (MHA), 2 (GQA), 1 (MQA): its widest option
  s["positional"] = "rope";  // RoPE's base and style combo, the window's field beside its checkbox
  s["window"] = 3;
  s["alibi"] = true;
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false));
  for (const char* lang : {"en", "zh-CN"}) {
    ASSERT_TRUE(app.set_language(lang).value("ok", false));
    frames(h, app);
    EXPECT_LE(parameters_extent().overflow, 0.5f) << lang << ": a line reaches past the window, every group open";
  }
}

// Chooses `option` ("Scale: d_out") in the combo `combo` of the Parameters panel.
void choose(Headless& h, App& app, const char* combo, const char* option) {
  click_in_parameters(h, app, combo);
  h.click(app, option);
}

TEST_F(I18nParams, CombosShowChineseAndKeepTheStatesValues) {
  Headless h;  // 1440×900: Scaling and softmax starts open
  NullTextures tex;
  App app(&tex);
  ASSERT_TRUE(app.set_language("zh-CN").value("ok", false));
  frames(h, app);
  open_groups(h, app);
  choose(h, app, "Scale", "Scale: d_out");
  choose(h, app, "Positional", "Positional: sinusoidal");
  choose(h, app, "Init", "Init: torch_linear");
  choose(h, app, "Layout", "Layout: per_head");
  choose(h, app, "Split", "whitespace only");
  json s = json::parse(app.state_json());
  EXPECT_EQ(s["scale"], "d_out");
  EXPECT_EQ(s["positional"], "sinusoidal");
  EXPECT_EQ(s["weights"]["init"], "torch_linear");
  EXPECT_EQ(s["weights"]["layout"], "per_head");
  // A chip's menu, in Chinese, still marks a key as padding.
  click_in_parameters(h, app, "token 1", 1);
  h.click(app, "Mark as padding");
  s = json::parse(app.state_json());
  ASSERT_TRUE(s.contains("key_padding"));
  EXPECT_EQ(s["key_padding"][1], 0);
  frames(h, app);
  std::string missing;
  for (const std::string& k : i18n_misses()) missing += "\n  " + k;
  EXPECT_TRUE(i18n_misses().empty()) << "shown in Chinese without an entry:" << missing;
}

// Hovers each labelled item of the Parameters panel for a few frames (its tooltip,
// if any, is drawn), scrolling down to it.
void hover(Headless& h, App& app, std::initializer_list<const char*> items) {
  for (const char* item : items) {
    float r[4];
    if (!reveal(h, app, item) || !app.item_rect(item, r)) {
      ADD_FAILURE() << item << " is not drawn";
      continue;
    }
    ImGui::GetIO().AddMousePosEvent(r[0] + r[2] * 0.5f, r[1] + r[3] * 0.5f);
    frames(h, app, 4);  // tooltips wait a moment before they show
  }
}

// Everything these panels draw in Chinese, tooltips and the rarer sentences included,
// has an entry: the Parameters panel with every group open, Edit values, each view of
// Compare heads (one head; a divergence too large to compute at once), Lines.
TEST_F(I18nParams, EveryPanelOfThisPartFindsItsText) {
  Headless h(ImVec2(1920, 1080));
  NullTextures tex;
  App app(&tex);
  ASSERT_TRUE(app.set_language("zh-CN").value("ok", false));
  json s = json::parse(app.state_json());
  s["key_padding"] = {1, 0, 1, 1, 1};
  s["mask_fill"] = -1e9;
  s["weights"] = {{"init", "torch_linear"}, {"seed", 123}, {"layout", "fused"}};  // Layout shows
  s["out_proj"] = true;  // and its bias
  s["d_out"] = 4;
  s["num_heads"] = 2;        // head_dim 2: RoPE pairs it
  s["positional"] = "rope";  // issue 23's controls, each with its tooltip
  s["alibi"] = true;
  s["window"] = 2;
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false)) << app.set_state_text(s.dump()).dump();
  frames(h, app);
  open_groups(h, app, true);
  hover(h, app, {"Split", "token 0", "token 1", "add token", "Heads", "Causal mask", "Dropout p", "Dropout p value",
                 "Training", "Scale", "Temperature", "Mask fill", "Safe softmax", "RoPE", "RoPE base", "RoPE style",
                 "K/V heads", "ALiBi", "Sliding window", "Window", "Positional", "Init", "Layout", "QKV bias",
                 "Output projection", "bias##out"});
  for (const char* tab : {"Edit values", "Lines", "Compare heads"}) {
    h.click(app, tab);
    frames(h, app);
  }
  for (const char* sub : {"A/B", "Row statistics", "All heads"}) {
    h.click(app, sub);
    frames(h, app);
  }
  // One head: the tab says how to compare heads.
  s = json::parse(app.state_json());
  s["num_heads"] = 1;
  s["positional"] = "none";  // 8 heads of d_out 8 below: head_dim 1, which RoPE refuses
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false));
  frames(h, app);
  // 8 heads over 560 tokens: the divergence waits for its button (28 pairs × 560²).
  s["d_model"] = 8;
  s["d_out"] = 8;
  s["num_heads"] = 8;
  s["embedding"] = {{"init", "torch_randn"}, {"seed", 1}};
  s["tokens"] = json::array();
  s.erase("key_padding");
  for (int i = 0; i < 560; ++i) s["tokens"].push_back("t" + std::to_string(i));
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false)) << app.set_state_text(s.dump()).dump();
  h.click(app, "A/B");  // under the maps: its sentence and its button (maybe scrolled out of view)
  frames(h, app);
  std::string missing;
  for (const std::string& k : i18n_misses()) missing += "\n  " + k;
  EXPECT_TRUE(i18n_misses().empty()) << "shown in Chinese without an entry:" << missing;
}

// Every character of the presets' Chinese titles and abouts has a glyph in Droid Sans
// Fallback, so the Presets menu and its tooltips draw no '?'.
TEST_F(I18nParams, TheCjkFontHasEveryCharacterOfThePresets) {
  FontSources src;
  src.cjk = read_file("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf");
  if (src.cjk.empty()) GTEST_SKIP() << "fonts-droid-fallback is not installed";
  for (const Preset& p : presets()) {
    fonts_collect_glyphs(p.title_zh.c_str(), src.glyphs);
    fonts_collect_glyphs(p.about_zh.c_str(), src.glyphs);
  }
  ASSERT_FALSE(src.glyphs.empty());
  ImGui::CreateContext();
  fonts_build(ImGui::GetIO(), src, 1.0f);
  std::string lacking;
  for (ImWchar ch : src.glyphs)
    if (!g_fonts.regular->FindGlyphNoFallback(ch)) lacking += " U+" + std::to_string(ch);
  ImGui::DestroyContext();
  EXPECT_TRUE(lacking.empty()) << "no glyph for" << lacking;
}

}  // namespace
