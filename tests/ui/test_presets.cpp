// test_presets.cpp: every preset's `about` (the Presets menu's tooltip) is true of
// what the preset shows (issue 21, item 7). The engine runs each preset; the
// weights the descriptions quote, to two decimals, must be the computed ones, and
// what they say about the mask must hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

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

}  // namespace
