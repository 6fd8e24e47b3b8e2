// test_tokenize.cpp: how the Tokens box's text is split (ui/app/model/tokenize.h).
#include <gtest/gtest.h>

#include "app/model/tokenize.h"

namespace attnviz::ui {
namespace {

using V = std::vector<std::string>;

V words(const char* s) { return split_text(s, SplitMode::words_and_chars); }

TEST(Tokenize, ChineseCharactersAreTokensLatinWordsStayWhole) {
  EXPECT_EQ(words("我爱自然语言处理, GPT-2 很好"),
            (V{"我", "爱", "自", "然", "语", "言", "处", "理", ",", "GPT-2", "很", "好"}));
}

TEST(Tokenize, KanaHangulAndFullwidthPunctuation) {
  EXPECT_EQ(words("ひらがなカタカナ"), (V{"ひ", "ら", "が", "な", "カ", "タ", "カ", "ナ"}));
  EXPECT_EQ(words("한국어"), (V{"한", "국", "어"}));
  EXPECT_EQ(words("你好，世界！"), (V{"你", "好", "，", "世", "界", "！"}));
  EXPECT_EQ(words("「注意力」。"), (V{"「", "注", "意", "力", "」", "。"}));
  EXPECT_EQ(words("我\u3000你"), (V{"我", "你"}));  // the ideographic space only separates
}

TEST(Tokenize, InnerHyphensApostrophesAndNumbers) {
  EXPECT_EQ(words("don't stop 3.14 e-mail!"), (V{"don't", "stop", "3.14", "e-mail", "!"}));
  EXPECT_EQ(words("l’été 1,000 students' end."), (V{"l’été", "1,000", "students", "'", "end", "."}));
  EXPECT_EQ(words("-x a- 2.b"), (V{"-", "x", "a", "-", "2", ".", "b"}));
  EXPECT_EQ(words("wait..."), (V{"wait", ".", ".", "."}));
  EXPECT_EQ(words("Once upon a time"), (V{"Once", "upon", "a", "time"}));
  EXPECT_EQ(words("GPT2模型"), (V{"GPT2", "模", "型"}));  // Latin next to Han: two kinds, two tokens
}

TEST(Tokenize, AccentsAndOtherScriptsAreWordCharacters) {
  EXPECT_EQ(words("café naïve über"), (V{"café", "naïve", "über"}));
  EXPECT_EQ(words("привет мир"), (V{"привет", "мир"}));
}

TEST(Tokenize, WhitespaceModeKeepsWhatSpacesSeparate) {
  EXPECT_EQ(split_text("我爱自然语言处理, GPT-2 很好", SplitMode::whitespace),
            (V{"我爱自然语言处理,", "GPT-2", "很好"}));
  EXPECT_EQ(split_text("  a\tb\n", SplitMode::whitespace), (V{"a", "b"}));
  EXPECT_EQ(split_text("", SplitMode::whitespace), V{});
  EXPECT_EQ(words(" \t "), V{});
}

TEST(Tokenize, IllFormedUtf8IsKeptNotDropped) {
  const std::string bad = std::string("a\xff") + "b 我";
  EXPECT_EQ(words(bad.c_str()), (V{"a\xff" "b", "我"}));
  const std::string cut = std::string("x \xe6\x88");  // a Han character cut short
  EXPECT_EQ(words(cut.c_str()), (V{"x", "\xe6\x88"}));
}

TEST(Tokenize, ModeNames) {
  SplitMode m = SplitMode::whitespace;
  EXPECT_TRUE(split_mode_from_name("words", &m));
  EXPECT_EQ(m, SplitMode::words_and_chars);
  EXPECT_TRUE(split_mode_from_name(split_mode_name(SplitMode::whitespace), &m));
  EXPECT_EQ(m, SplitMode::whitespace);
  EXPECT_FALSE(split_mode_from_name("chars", &m));
}

}  // namespace
}  // namespace attnviz::ui
