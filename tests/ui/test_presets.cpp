// test_presets.cpp: every preset's `about` (the Presets menu's tooltip) is true of
// what the preset shows (issue 21, item 7). The engine runs each preset; the
// weights the descriptions quote, to two decimals, must be the computed ones, and
// what they say about the mask must hold. Every preset has its title and about in
// 简体中文 too (issue 22, item 1), quoting the same numbers, and the menu shows them
// in the interface's language.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>
#include <set>
#include <string>

#include "app/text/i18n.h"
#include "attnviz/state_json.h"
#include "app/model/presets.h"
#include "attnviz/model.h"
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

// Preset 07 (issue 23, scripts/make_heads_preset.py): each head does the job its about
// names, and the weights the about quotes are the engine's ("or more": rounded down).
std::string two_down(float v) {
  char b[16];
  std::snprintf(b, sizeof b, "%.2f", std::floor((double)v * 100 + 1e-9) / 100);
  return b;
}

// The RoPE preset's promise: shift every word one place (another "the" in
// front) and the score between any two of the original words stays the same
// (RoPE scores see only the offset), to the 4 decimals the maps print.
TEST(PresetAbout, RopeScoresSeeOnlyTheOffset) {
  const auto& pre = preset("08-rope");
  ASSERT_EQ(pre.state["positional"], "rope");
  ASSERT_EQ(pre.state["tokens"][0], "the");
  Pipeline p, shifted;
  run(pre, &p);
  attnviz::ui::Preset moved = pre;
  moved.state["tokens"].insert(moved.state["tokens"].begin(), "the");
  run(moved, &shifted);
  const int n = static_cast<int>(pre.state["tokens"].size());
  for (int h = 0; h < p.num_heads(); ++h) {
    const attnviz::Tensor& a = *p.matrix(Stage::scores, h);
    const attnviz::Tensor& b = *shifted.matrix(Stage::scores, h);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        // float32: the angles (p + 1)·θ round differently from p·θ, a few ulps of the score
        EXPECT_NEAR(a.at(i, j), b.at(i + 1, j + 1), 1e-5f + 1e-5f * std::fabs(a.at(i, j)))
            << "head " << h << ", " << i << ", " << j;
      }
    }
  }
  // Without RoPE (no positions at all the scores would not move either): sinusoidal positions move them.
  attnviz::ui::Preset sin = pre, sin_moved = moved;
  sin.state["positional"] = "sinusoidal";
  sin_moved.state["positional"] = "sinusoidal";
  Pipeline ps, pm;
  run(sin, &ps);
  run(sin_moved, &pm);
  EXPECT_GT(std::fabs(ps.matrix(Stage::scores, 0)->at(2, 1) - pm.matrix(Stage::scores, 0)->at(3, 2)), 1e-3f);
}

// GQA and MQA: heads of a group read the same K/V head; ALiBi: the slopes the about quotes.
TEST(PresetAbout, GqaMqaAndAlibiAreWhatTheySay) {
  for (const char* id : {"09-gqa", "10-mqa"}) {
    const auto& pre = preset(id);
    Pipeline p;
    run(pre, &p);
    const int H = pre.state["num_heads"], G = pre.state["num_kv_heads"];
    EXPECT_EQ(p.matrix(Stage::K)->cols, G * p.head_dim()) << id;
    EXPECT_EQ(p.matrix(Stage::W_v)->cols, G * p.head_dim()) << id;
    for (int h = 0; h < H; ++h) {
      EXPECT_EQ(p.head_slice(Stage::K, h).data, p.head_slice(Stage::K, h / (H / G) * (H / G)).data) << id;
    }
  }
  const auto& alibi = preset("11-alibi");
  Pipeline p;
  run(alibi, &p);
  const float slopes[4] = {1.0f / 4, 1.0f / 16, 1.0f / 64, 1.0f / 256};
  for (int h = 0; h < 4; ++h) EXPECT_EQ(p.matrix(Stage::bias, h)->at(8, 0), -8.0f * slopes[h]) << h;
  EXPECT_NE(alibi.about.find("1/4, 1/16, 1/64 and 1/256"), std::string::npos);
  EXPECT_NE(alibi.about.find("loses 2 in head 0 and only 1/32 in head 3"), std::string::npos);
}

TEST(PresetAbout, FourHeadsDoTheirFourJobs) {
  const auto& pre = preset("07-heads-worth-comparing");
  Pipeline p;
  run(pre, &p);
  const auto& tok = pre.state["tokens"];
  const int n = static_cast<int>(tok.size());
  ASSERT_GE(n, 8);
  ASSERT_EQ(pre.state["num_heads"], 4);
  EXPECT_TRUE(pre.state["causal"].get<bool>());
  float prev = 1, first = 1, window = 1, same = 1, window_each = 1;
  for (int i = 0; i < n; ++i) {
    float same_mass = 0;
    for (int j = 0; j <= i; ++j) {
      if (tok[j] == tok[i]) same_mass += w(p, 1, i, j);
      if (j != i - 1 && i >= 1) {
        EXPECT_LT(w(p, 0, i, j), w(p, 0, i, i - 1)) << "head 0, row " << i;
      }
      if (j != 0) {
        EXPECT_LT(w(p, 2, i, j), w(p, 2, i, 0)) << "head 2, row " << i;
      }
    }
    same = std::min(same, same_mass);
    first = std::min(first, w(p, 2, i, 0));
    if (i >= 1) prev = std::min(prev, w(p, 0, i, i - 1));
    if (i >= 2) {
      window = std::min(window, w(p, 3, i, i - 2) + w(p, 3, i, i - 1) + w(p, 3, i, i));
      for (int j = i - 2; j <= i; ++j) window_each = std::min(window_each, w(p, 3, i, j));
    }
  }
  EXPECT_GE(prev, 0.8f) << "head 0: the previous token";
  EXPECT_GE(same, 0.9f) << "head 1: the same word";
  EXPECT_GE(first, 0.8f) << "head 2: the first token";
  EXPECT_GE(window, 0.9f) << "head 3: itself and the two before it";
  EXPECT_GE(window_each, 0.2f) << "head 3 spreads its weight over the window, not onto one key";
  EXPECT_NE(pre.about.find("puts " + two_down(prev) + " or more on the word before it"), std::string::npos)
      << pre.about;
  EXPECT_NE(pre.about.find("puts " + two_down(first) + " or more on the first word"), std::string::npos)
      << pre.about;
  EXPECT_NE(pre.about.find("(the last word: " + two(w(p, 3, n - 1, n - 3)) + ", " + two(w(p, 3, n - 1, n - 2)) +
                           ", " + two(w(p, 3, n - 1, n - 1)) + ")"),
            std::string::npos)
      << pre.about;
  ASSERT_EQ(tok[n - 2], "the");
  EXPECT_NE(pre.about.find("(the last \"the\": " + two(w(p, 1, n - 2, n - 2)) + " on each of the 4)"),
            std::string::npos)
      << pre.about;
  EXPECT_NE(pre.about.find("Compare heads"), std::string::npos);
  EXPECT_NE(pre.about_zh.find("比较各头"), std::string::npos);
}

// The trained model's preset: the heads the about names are the ones that do
// those jobs on its input (the best of their layer, and clearly so), the input is
// the probe it describes, and it opens on the induction head.
TEST(PresetAbout, TheTrainedModelsHeadsAreTheOnesNamed) {
  const auto& pre = preset("12-induction-heads");
  attnviz::State s;
  ASSERT_TRUE(attnviz::parse_state(pre.state, &s).ok);
  ASSERT_TRUE(s.model.active());
  attnviz::LayerStack stack;
  ASSERT_TRUE(stack.set_state(s).ok);
  const attnviz::LayerScores sc = attnviz::head_scores(stack);
  ASSERT_EQ(sc.size(), 2u);
  int prev_head = 0, ind_head = 0;
  for (int h = 1; h < 4; ++h) {
    if (sc[0][h].previous_token > sc[0][prev_head].previous_token) prev_head = h;
    if (sc[1][h].induction > sc[1][ind_head].induction) ind_head = h;
  }
  EXPECT_GE(sc[0][prev_head].previous_token, 0.4);
  EXPECT_GE(sc[1][ind_head].induction, 0.4);
  const std::string prev = "In layer 0, head " + std::to_string(prev_head) + " looks at the previous token";
  int inducting = 0;  // layer 1's heads that do induction clearly (the about counts them)
  for (int h = 0; h < 4; ++h) inducting += sc[1][h].induction >= 0.5;
  const std::string ind = "in layer 1, head " + std::to_string(ind_head) + " is the strongest of " +
                          std::to_string(inducting) + " induction heads";
  EXPECT_NE(pre.about.find(prev), std::string::npos) << pre.about;
  EXPECT_NE(pre.about.find(ind), std::string::npos) << pre.about;
  EXPECT_NE(pre.about_zh.find("第 0 层的第 " + std::to_string(prev_head) + " 个头看前一个词元"), std::string::npos);
  EXPECT_NE(pre.about_zh.find("第 1 层的 " + std::to_string(inducting) + " 个头都是归纳头，其中第 " +
                              std::to_string(ind_head) + " 个头最强"),
            std::string::npos);
  // start + 24 symbols + the same 24
  const int n = static_cast<int>(s.tokens.size()) / 2;
  ASSERT_EQ(s.seq_len(), 1 + 2 * 24);
  EXPECT_EQ(s.tokens[0], stack.model()->start_token);
  for (int i = 1; i <= n; ++i) EXPECT_EQ(s.tokens[static_cast<size_t>(i)], s.tokens[static_cast<size_t>(i + n)]);
  EXPECT_NE(pre.about.find("24 random symbols, then the same 24 again"), std::string::npos);
  // It opens on that head, at the last checkpoint, a cell of the repeat pinned on the token after the earlier copy.
  EXPECT_EQ(pre.view.at("layer"), 1);
  EXPECT_EQ(pre.view.at("head"), ind_head);
  EXPECT_EQ(s.model.checkpoint + 1, static_cast<int>(stack.model()->checkpoints.size()));
  const int row = pre.view.at("pinned").at("row"), col = pre.view.at("pinned").at("col");
  EXPECT_EQ(s.tokens[static_cast<size_t>(row)], s.tokens[static_cast<size_t>(col - 1)]);
  EXPECT_EQ(col - 1, row - n);
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
