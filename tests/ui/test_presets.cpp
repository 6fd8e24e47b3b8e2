// test_presets.cpp: every preset's `about` (the Presets menu's tooltip) is true of
// what the preset shows (issue 21, item 7). The engine runs each preset; the
// weights the descriptions quote, to two decimals, must be the computed ones, and
// what they say about the mask must hold. Every preset has its title and about in
// 简体中文 too (issue 22, item 1), quoting the same numbers, and the menu shows them
// in the interface's language.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <regex>
#include <set>
#include <string>

#include "app/i18n.h"
#include "app/presets.h"
#include "attnviz/pipeline.h"

namespace {

using attnviz::Pipeline;
using attnviz::Stage;

const attnviz::ui::Preset& preset(const char* id) {
  for (const auto& p : attnviz::ui::presets())
    if (p.id == id) return p;
  ADD_FAILURE() << "no preset " << id;
  return attnviz::ui::presets().front();
}

void run(const attnviz::ui::Preset& p, Pipeline* out) {
  attnviz::State s;
  ASSERT_TRUE(attnviz::parse_state(p.state, &s).ok) << p.id;
  ASSERT_TRUE(out->set_state(s).ok) << p.id;
}

std::string two(float v) {
  char b[16];
  std::snprintf(b, sizeof b, "%.2f", (double)v);
  return b;
}

float w(const Pipeline& p, int head, int i, int j) { return p.matrix(Stage::weights, head)->at(i, j); }

TEST(PresetAbout, TheCatSaysTheUntrainedHeadsDoNotLinkBlackToCat) {
  const auto& pre = preset("04-the-cat");
  Pipeline p;
  run(pre, &p);
  const int black = 7, cat = 1, dog = 4;
  ASSERT_EQ(pre.state["tokens"][black], "black");
  float lo = 1, hi = 0;
  for (int h = 0; h < 4; ++h)
    for (int j = 0; j < 8; ++j) {
      lo = std::min(lo, w(p, h, black, j));
      hi = std::max(hi, w(p, h, black, j));
    }
  EXPECT_NE(pre.about.find("(" + two(lo) + " to " + two(hi) + " on each)"), std::string::npos) << pre.about;
  EXPECT_GT(w(p, 0, black, dog), w(p, 0, black, cat));
  EXPECT_NE(pre.about.find("head 0 gives dog (" + two(w(p, 0, black, dog)) + ") more than cat (" +
                           two(w(p, 0, black, cat)) + ")"),
            std::string::npos)
      << pre.about;
  EXPECT_NE(pre.about.find("untrained"), std::string::npos);
}

TEST(PresetAbout, BankOfTheRiverQuotesBankToRiver) {
  const auto& pre = preset("05-bank-of-the-river");
  Pipeline p;
  run(pre, &p);
  const int bank = 4, river = 7;
  ASSERT_EQ(pre.state["tokens"][bank], "bank");
  ASSERT_EQ(pre.state["tokens"][river], "river");
  EXPECT_FALSE(pre.state["causal"].get<bool>()) << "no mask: bank sees river";
  EXPECT_GT(w(p, 0, bank, river), 0.0f);
  EXPECT_NE(pre.about.find("bank gives river " + two(w(p, 0, bank, river)) + " in head 0 and " +
                           two(w(p, 1, bank, river)) + " in head 1"),
            std::string::npos)
      << pre.about;
  // "about the 1/8 of an even spread"
  for (int h = 0; h < 2; ++h) EXPECT_NEAR(w(p, h, bank, river), 1.0 / 8, 0.04);
}

TEST(PresetAbout, ChineseIsCausal) {
  const auto& pre = preset("06-chinese");
  Pipeline p;
  run(pre, &p);
  EXPECT_NE(pre.about.find("causal mask"), std::string::npos);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j)
        if (j > i) {
          EXPECT_EQ(w(p, h, i, j), 0.0f) << "word " << i << " sees only itself and earlier words";
        }
}

// The numbers a text quotes ("0.17", "123", "6×3" → 6 and 3, "§2.3" → 2.3).
std::set<std::string> numbers(const std::string& text) {
  static const std::regex number(R"(\d+(\.\d+)?)");
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator(); ++it)
    out.insert(it->str());
  return out;
}

bool has_cjk(const std::string& text) {
  for (size_t i = 0; i + 2 < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0xE4 && c <= 0xE9) return true;  // lead byte of U+4E00 … U+9FFF (CJK ideographs)
  }
  return false;
}

TEST(PresetChinese, EveryPresetHasItsTitleAndAboutInChineseWithTheSameNumbers) {
  ASSERT_FALSE(attnviz::ui::presets().empty());
  for (const auto& p : attnviz::ui::presets()) {
    EXPECT_TRUE(has_cjk(p.title_zh)) << p.id << ": no \"zh-CN\": {\"title\"} in Chinese";
    EXPECT_TRUE(has_cjk(p.about_zh)) << p.id << ": no \"zh-CN\": {\"about\"} in Chinese";
    for (const std::string& n : numbers(p.title))
      EXPECT_TRUE(numbers(p.title_zh).count(n)) << p.id << ": the Chinese title lacks " << n << ": " << p.title_zh;
    for (const std::string& n : numbers(p.about))
      EXPECT_TRUE(numbers(p.about_zh).count(n)) << p.id << ": the Chinese about lacks " << n << ": " << p.about_zh;
  }
}

TEST(PresetChinese, TheMenuShowsThemInTheInterfacesLanguage) {
  using attnviz::ui::Lang;
  const auto& p = preset("06-chinese");
  attnviz::ui::set_language(Lang::zh_CN);
  EXPECT_EQ(attnviz::ui::preset_title(p), p.title_zh);
  EXPECT_EQ(attnviz::ui::preset_about(p), p.about_zh);
  EXPECT_NE(p.about_zh.find("因果掩码"), std::string::npos) << p.about_zh;
  attnviz::ui::set_language(Lang::en);
  EXPECT_EQ(attnviz::ui::preset_title(p), p.title);
  EXPECT_EQ(attnviz::ui::preset_about(p), p.about);
}

}  // namespace
