// test_i18n.cpp: the interface's language (ui/app/text/i18n.h). Codes and preferences;
// labels whose IDs do not change with the language; switching keeps windows, items
// and tabs; an unknown code is refused with a sentence; every view drawn in Chinese
// asks the catalogue for nothing it lacks; every character of the catalogue is in
// the CJK font the app ships with.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "app/app.h"
#include "app/widgets/fonts.h"
#include "app/text/i18n.h"
#include "headless.h"
#include "imgui.h"
#include "imgui_internal.h"

namespace {

using namespace attnviz::ui;
using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;

// The language is the process's: each test starts and ends in English.
struct I18n : ::testing::Test {
  void SetUp() override {
    set_language(Lang::en);
    i18n_clear_misses();
  }
  void TearDown() override { set_language(Lang::en); }
};

TEST_F(I18n, CodesAndBrowserPreferences) {
  Lang l = Lang::en;
  for (const char* zh : {"zh-CN", "zh", "zh-Hans", "ZH_cn", "zh-SG", "zh-Hans-CN"}) {
    ASSERT_TRUE(lang_from_code(zh, &l)) << zh;
    EXPECT_EQ(l, Lang::zh_CN) << zh;
  }
  for (const char* en : {"en", "en-GB", "EN-us"}) {
    ASSERT_TRUE(lang_from_code(en, &l)) << en;
    EXPECT_EQ(l, Lang::en) << en;
  }
  for (const char* other : {"fr", "", "zhx", "eng", "de-DE", "z"}) EXPECT_FALSE(lang_from_code(other, &l)) << other;
  EXPECT_EQ(lang_from_preferences({"fr-FR", "zh-TW", "en"}), Lang::zh_CN);
  EXPECT_EQ(lang_from_preferences({"de", "en-US", "zh-CN"}), Lang::en);
  EXPECT_EQ(lang_from_preferences({"fr", "ja"}), Lang::en);
  EXPECT_STREQ(lang_code(Lang::zh_CN), "zh-CN");
  EXPECT_STREQ(lang_code(Lang::en), "en");
}

TEST_F(I18n, LabelsKeepTheirIdInEveryLanguage) {
  const char* en = L("Parameters");
  const ImGuiID id_en = ImHashStr(en);
  EXPECT_STREQ(en, "Parameters###Parameters");
  set_language(Lang::zh_CN);
  const char* zh = L("Parameters");
  EXPECT_STREQ(zh, "参数###Parameters");
  EXPECT_EQ(ImHashStr(zh), id_en);
  EXPECT_STREQ(tr("Parameters"), "参数");
  // The shown part ends at "##"; the key keeps its own suffix in the ID.
  EXPECT_STREQ(L("Decimals##menu"), "小数位数###Decimals##menu");
  EXPECT_EQ(L("Parameters"), zh) << "built once, then looked up";
  EXPECT_TRUE(i18n_misses().empty());
}

TEST_F(I18n, PositionalValuesAndMisses) {
  EXPECT_EQ(tr_args("{1} before {0}, {1} again", {"a", "b"}), "b before a, b again");
  EXPECT_EQ(tr_args("no {7} value", {"a"}), "no {7} value") << "a missing value leaves the braces";
  set_language(Lang::zh_CN);
  EXPECT_STREQ(tr("a key nobody translated"), "a key nobody translated") << "falls back to English";
  ASSERT_EQ(i18n_misses().size(), 1u);
  EXPECT_EQ(i18n_misses()[0], "a key nobody translated");
  EXPECT_STREQ(tr("12.5"), "12.5");
  EXPECT_EQ(i18n_misses().size(), 1u) << "numbers are not misses";
}

TEST_F(I18n, SwitchingKeepsWindowsItemsAndTheTab) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 4; ++i) h.frame(app);
  h.click(app, "Compare heads");
  float params[4], mask[4], after[4];
  ASSERT_TRUE(app.item_rect("Parameters window", params));
  ASSERT_TRUE(app.item_rect("Causal mask", mask));
  const uint64_t glyphs = app.glyphs_version();
  ASSERT_TRUE(app.set_language("zh-CN").value("ok", false));
  for (int i = 0; i < 3; ++i) h.frame(app);
  EXPECT_EQ(app.language(), "zh-CN");
  EXPECT_GT(app.glyphs_version(), glyphs) << "the catalogue's characters join the atlas";
  ASSERT_TRUE(app.item_rect("Parameters window", after)) << "items keep their English names";
  EXPECT_EQ(after[0], params[0]);
  EXPECT_EQ(after[1], params[1]);
  ASSERT_TRUE(app.item_rect("Causal mask", after));
  EXPECT_TRUE(app.item_rect("Compare heads", after));
  EXPECT_EQ(app.session_json()["view"]["tab"], "compare") << "the selected tab stays selected";
  EXPECT_EQ(app.session_json()["view"]["lang"], "zh-CN") << "share links carry the language";
  // View → Language → English, with the mouse.
  h.click(app, "View");
  h.click(app, "Language");
  h.click(app, "Language: en");
  EXPECT_EQ(app.language(), "en");
}

TEST_F(I18n, AnUnknownCodeIsRefusedWithASentence) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  nlohmann::json r = app.set_language("fr");
  EXPECT_FALSE(r.value("ok", true));
  const std::string e = r.value("error", std::string());
  EXPECT_NE(e.find("\"fr\""), std::string::npos) << e;
  EXPECT_NE(e.find("zh-CN"), std::string::npos) << e;
  EXPECT_EQ(app.language(), "en");
  EXPECT_EQ(app.notice().value("text", std::string()), e) << "the app shows the sentence too";
  // A link's view.lang is checked like the rest of the view.
  nlohmann::json link = app.session_json();
  link["view"]["lang"] = "klingon";
  r = app.set_session_text(link.dump());
  EXPECT_FALSE(r.value("ok", true));
  EXPECT_EQ(r.value("field", std::string()), "view.lang");
  link["view"]["lang"] = "zh-CN";
  ASSERT_TRUE(app.set_session_text(link.dump()).value("ok", false));
  EXPECT_EQ(app.language(), "zh-CN");
}

// A refusal still shown when the language changes is worded again in the new one.
TEST_F(I18n, AShownRefusalFollowsTheLanguage) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  nlohmann::json s = nlohmann::json::parse(app.state_json());
  s["d_out"] = 6;
  s["num_heads"] = 4;
  const std::string en = app.set_state_text(s.dump()).value("error", std::string());
  ASSERT_NE(en.find("divisible"), std::string::npos) << en;
  std::string said;
  ASSERT_TRUE(app.live_text(said));
  EXPECT_NE(said.find(en), std::string::npos) << said;
  ASSERT_TRUE(app.set_language("zh-CN").value("ok", false));
  h.frame(app);
  ASSERT_TRUE(app.live_text(said));
  EXPECT_EQ(said.find(en), std::string::npos) << "still English: " << said;
  EXPECT_NE(said.find("整除"), std::string::npos) << said;
}

// Draws every tab, the menus and the Inspector of a pinned cell in Chinese, with the
// options that bring their own sentences (mask, padding, dropout in training): none
// asks for a key the catalogue lacks.
TEST_F(I18n, EveryViewInChineseFindsItsText) {
  Headless h(ImVec2(1920, 1080));
  NullTextures tex;
  App app(&tex);
  ASSERT_TRUE(app.set_language("zh-CN").value("ok", false));
  nlohmann::json s = nlohmann::json::parse(app.state_json());
  s["causal"] = true;
  s["key_padding"] = {1, 1, 1, 1, 0};
  s["dropout"] = {{"p", 0.5}, {"training", true}, {"seed", 7}};
  // Issue 23's options: the RoPE and ALiBi cards, GQA's K/V heads, the window's mask.
  s["d_out"] = 8;
  s["num_heads"] = 2;
  s["num_kv_heads"] = 1;
  s["positional"] = "rope";
  s["alibi"] = true;
  s["window"] = 2;
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false)) << app.set_state_text(s.dump()).dump();
  for (int i = 0; i < 3; ++i) h.frame(app);
  for (const char* tab : {"Stages", "Q K V & output", "Compare heads", "Lines", "Edit values", "Decode", "Stages"}) {
    h.click(app, tab);
    for (int i = 0; i < 3; ++i) h.frame(app);
  }
  for (const char* stage : {"weights h0", "masked h0", "dropped h0", "scores h0", "context h0", "q_rot h0", "k_rot h0",
                            "bias h0"}) {
    float r[4];
    if (!app.item_rect(stage, r)) continue;
    h.click(app, stage);  // pins its centre cell: the Inspector explains it
    for (int i = 0; i < 2; ++i) h.frame(app);
  }
  for (const char* menu : {"File", "Edit", "Presets", "View", "Help"}) {
    h.click(app, menu);
    h.frame(app);
    ImGui::GetIO().AddKeyEvent(ImGuiKey_Escape, true);
    h.frame(app);
    ImGui::GetIO().AddKeyEvent(ImGuiKey_Escape, false);
    h.frame(app);
  }
  std::string missing;
  for (const std::string& k : i18n_misses()) missing += "\n  " + k;
  EXPECT_TRUE(i18n_misses().empty()) << "shown in Chinese without an entry:" << missing;
}

// Every character the Chinese catalogue uses has a glyph in Droid Sans Fallback (the
// font the app loads for it), so nothing is drawn as '?'.
TEST_F(I18n, TheCjkFontHasEveryCharacterOfTheCatalogue) {
  std::ifstream f("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", std::ios::binary);
  if (!f) GTEST_SKIP() << "fonts-droid-fallback is not installed";
  FontSources src;
  src.cjk.assign(std::istreambuf_iterator<char>(f), {});
  const Catalogue c = catalogue(Lang::zh_CN);
  ASSERT_GT(c.count, 0);
  for (int k = 0; k < c.count; ++k) fonts_collect_glyphs(c.entries[k].text, src.glyphs);
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  fonts_build(io, src, 1.0f);
  std::string lacking;
  for (ImWchar ch : src.glyphs)
    if (!g_fonts.regular->FindGlyphNoFallback(ch)) lacking += " U+" + std::to_string(ch);
  ImGui::DestroyContext();
  EXPECT_TRUE(lacking.empty()) << "no glyph for" << lacking;
}

}  // namespace
