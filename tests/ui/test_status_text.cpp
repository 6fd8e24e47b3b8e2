// test_status_text.cpp: engine refusals worded in the interface's language
// (ui/app/text/status_text.h). In English the sentence is exactly the engine's; in Chinese
// it is the translated template with the values filled in and every value that is
// words (a type, "one per token") translated too; the app shows and returns it.
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include "app/app.h"
#include "app/text/i18n.h"
#include "app/text/status_text.h"
#include "attnviz/messages.h"
#include "attnviz/state.h"
#include "attnviz/state_json.h"
#include "headless.h"

namespace {

using namespace attnviz::ui;
using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;

struct StatusText : ::testing::Test {
  void SetUp() override {
    set_language(Lang::en);
    i18n_clear_misses();
  }
  void TearDown() override { set_language(Lang::en); }
};

attnviz::Status refusal_of(const std::string& text) {
  attnviz::State s;
  return attnviz::parse_state_text(text, &s);
}

// Real refusals: bad d_out, unknown field, bad JSON, too many tokens, bad types.
std::vector<std::string> samples() {
  std::string many;
  for (int i = 0; i <= attnviz::Limits::kMaxTokens; ++i) many += i ? ",\"w\"" : "\"w\"";
  return {
      R"({"d_out": 6, "num_heads": 4})",
      R"({"d_out": 0})",
      R"({"d_out": "six"})",
      R"({"d_out": [1, 2]})",
      R"({"d_out": {"a": 1}})",
      R"({"causal": "yes"})",
      R"({"causal": 1})",
      R"({"temperature": true})",
      R"({"tokens": [1]})",
      "{\"scale\": \"" + std::string(80, 'x') + "\"}",
      R"({"unknown": 1})",
      R"({"dropout": {"q": 1}})",
      R"({"tokens": ["a"], "tokens": ["b"]})",
      "{\"d_out\": 4,",
      "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
      "{\"tokens\": [" + many + "]}",
      R"({"embedding": {"values": [[1, 2, 3, 4]]}})",
      R"({"key_padding": [1, 1, 1, 1, [0]]})",
      R"({"version": 7})",
      R"({"temperature": NaN})",
      "[1,2]",
  };
}

bool has_placeholder(const std::string& s) {
  for (size_t i = 0; i + 2 < s.size(); ++i)
    if (s[i] == '{' && std::isdigit(static_cast<unsigned char>(s[i + 1])) && s[i + 2] == '}') return true;
  return false;
}

TEST_F(StatusText, EnglishIsTheEnginesSentence) {
  for (const std::string& text : samples()) {
    const attnviz::Status st = refusal_of(text);
    ASSERT_FALSE(st.ok) << text;
    EXPECT_EQ(word_status(st), st.error) << text;
  }
  EXPECT_EQ(word_status(attnviz::Status::success()), "");
}

TEST_F(StatusText, ChineseFillsTheTranslatedTemplateAndItsPhrases) {
  set_language(Lang::zh_CN);
  for (const std::string& text : samples()) {
    const attnviz::Status st = refusal_of(text);
    ASSERT_FALSE(st.ok) << text;
    const std::string zh = word_status(st);
    EXPECT_NE(zh, st.error) << text;
    EXPECT_FALSE(has_placeholder(zh)) << text << " → " << zh;
    for (const char* english : {"a list", "an object", "a string", "a number", "true/false", "must be", ", not ",
                                "one per token", "bytes", "appears twice", "is not valid", "unknown field"})
      EXPECT_EQ(zh.find(english), std::string::npos) << text << " → " << zh << " (has \"" << english << "\")";
  }
  EXPECT_TRUE(i18n_misses().empty()) << "a template or phrase the catalogue lacks: " << i18n_misses()[0];
  // The values stay as the engine gave them.
  EXPECT_EQ(word_status(refusal_of(R"({"d_out": 6, "num_heads": 4})")), "d_out（6）必须能被 num_heads（4）整除");
  EXPECT_EQ(word_status(refusal_of(R"({"d_out": "six"})")), "d_out 必须是 1 到 4096 之间的整数，而不是 字符串（\"six\"）");
  EXPECT_EQ(word_status(refusal_of(R"({"embedding": {"values": [[1, 2, 3, 4]]}})")),
            "embedding.values 必须有 5 行（每个词元一行），但它有 1 行");
}

TEST_F(StatusText, EveryMessageHasAChineseTemplateWithTheSamePlaceholders) {
  set_language(Lang::zh_CN);
  for (int i = 0; i < attnviz::kMsgCount; ++i) {
    const char* en = attnviz::msg_template(static_cast<attnviz::Msg>(i));
    const std::string zh = tr(en);
    EXPECT_NE(zh, en) << attnviz::msg_code(static_cast<attnviz::Msg>(i));
    for (int k = 0; k < 10; ++k) {
      const std::string p = "{" + std::to_string(k) + "}";
      EXPECT_EQ(std::string(en).find(p) == std::string::npos, zh.find(p) == std::string::npos) << en << " / " << zh;
    }
  }
  EXPECT_TRUE(i18n_misses().empty());
}

TEST_F(StatusText, TheAppShowsAndReturnsTheRefusalInItsLanguage) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  nlohmann::json r = app.set_state_text(R"({"d_out": 6, "num_heads": 4})");
  EXPECT_EQ(r["error"], "d_out (6) must be divisible by num_heads (4)");
  EXPECT_EQ(r["field"], "num_heads");
  set_language(Lang::zh_CN);
  r = app.set_state_text(R"({"d_out": 6, "num_heads": 4})");
  EXPECT_EQ(r["error"], "d_out（6）必须能被 num_heads（4）整除");
  r = app.set_state_text("{\"d_out\": ");
  EXPECT_EQ(r["error"], "这不是有效的 JSON（问题位于第 1 行第 11 列）");
  EXPECT_EQ(r["field"], "");
}

}  // namespace
