// The engine's refusals as codes and values (attnviz/messages.h, status.h): the table
// is complete and its codes unique; every refusal of a bad state carries a code whose
// template, filled with the refusal's values, is exactly its English sentence, and each
// value that is words is a phrase of the same table. An interface words refusals from
// these alone (ui/app/text/status_text.h), so this is what lets it.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "attnviz/messages.h"
#include "attnviz/pipeline.h"
#include "attnviz/state.h"
#include "attnviz/state_json.h"
#include "attnviz/status.h"

namespace {

using attnviz::Msg;
using attnviz::msg_code;
using attnviz::msg_format;
using attnviz::msg_template;
using attnviz::Status;

std::set<int> placeholders(const std::string& t) {
  std::set<int> out;
  for (size_t i = 0; i + 2 < t.size(); ++i) {
    if (t[i] == '{' && std::isdigit(static_cast<unsigned char>(t[i + 1])) && t[i + 2] == '}') out.insert(t[i + 1] - '0');
  }
  return out;
}

TEST(Messages, EveryMessageHasATemplateAndAUniqueCode) {
  std::set<std::string> codes, templates;
  for (int i = 0; i < attnviz::kMsgCount; ++i) {
    const Msg m = static_cast<Msg>(i);
    const std::string code = msg_code(m), text = msg_template(m);
    EXPECT_FALSE(text.empty()) << code;
    ASSERT_FALSE(code.empty()) << i;
    for (char c : code) EXPECT_TRUE(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_') << code;
    EXPECT_TRUE(codes.insert(code).second) << code << " twice";
    EXPECT_TRUE(templates.insert(text).second) << "two messages with the template " << text;
    Msg back;
    ASSERT_TRUE(attnviz::msg_from_code(code, &back)) << code;
    EXPECT_EQ(back, m);
    // {0} ... {n-1}, none skipped: the values are given in order.
    const std::set<int> p = placeholders(text);
    if (!p.empty()) {
      EXPECT_EQ(*p.rbegin() + 1, static_cast<int>(p.size())) << text;
    }
  }
  Msg unused;
  EXPECT_FALSE(attnviz::msg_from_code("", &unused));
  EXPECT_FALSE(attnviz::msg_from_code("no_such_message", &unused));
}

TEST(Messages, FormattingFillsTheValues) {
  EXPECT_EQ(msg_format(msg_template(Msg::d_out_not_divisible), {"6", "4"}), "d_out (6) must be divisible by num_heads (4)");
  EXPECT_EQ(msg_format("{1} before {0}, {1} again", {"a", "b"}), "b before a, b again");
  EXPECT_EQ(msg_format("no {2} value", {"a"}), "no {2} value") << "a missing value leaves the braces";
  EXPECT_EQ(msg_format("{0} and {1}", {"{1}", "x"}), "{1} and x") << "a value is not filled again";
  EXPECT_EQ(msg_format(msg_template(Msg::embedding_values_and_seed), {}),
            "embedding has values and also init/seed; give either {\"init\", \"seed\"} or {\"values\"}")
      << "JSON braces are not placeholders";
}

TEST(Messages, ARefusalKeepsItsCodeValuesAndPhrases) {
  const Status plain = Status::refusal(Msg::d_out_not_divisible, "num_heads", {"6", "4"});
  EXPECT_FALSE(plain.ok);
  EXPECT_EQ(plain.error, "d_out (6) must be divisible by num_heads (4)");
  EXPECT_EQ(plain.field, "num_heads");
  EXPECT_EQ(plain.code, "d_out_not_divisible");
  EXPECT_EQ(plain.args, (std::vector<std::string>{"6", "4"}));
  EXPECT_TRUE(plain.phrases.empty()) << "no value is words";

  const Status typed = Status::refusal(Msg::must_be_number, "temperature",
                                       {"temperature", attnviz::MsgArg(Msg::type_string, {"\"hot\""})});
  EXPECT_EQ(typed.error, "temperature must be a number, not a string (\"hot\")");
  EXPECT_EQ(typed.args, (std::vector<std::string>{"temperature", "a string (\"hot\")"}));
  ASSERT_EQ(typed.phrases.size(), 2u);
  EXPECT_EQ(typed.phrases[0].code, "");
  EXPECT_EQ(typed.phrases[1].code, "type_string");
  EXPECT_EQ(typed.phrases[1].args, (std::vector<std::string>{"\"hot\""}));
  EXPECT_TRUE(Status::success().code.empty());
}

// The English sentence of a refusal is its template filled with its values, and each
// phrase's text is the phrase's template filled with the phrase's values.
void expect_worded_from_code(const Status& st, const std::string& what) {
  ASSERT_FALSE(st.ok) << what;
  Msg m;
  ASSERT_TRUE(attnviz::msg_from_code(st.code, &m)) << what << ": code \"" << st.code << "\" for: " << st.error;
  EXPECT_EQ(msg_format(msg_template(m), st.args), st.error) << what;
  EXPECT_EQ(placeholders(msg_template(m)).size(), st.args.size()) << what << ": " << st.error;
  if (st.phrases.empty()) return;
  ASSERT_EQ(st.phrases.size(), st.args.size()) << what;
  for (size_t i = 0; i < st.args.size(); ++i) {
    if (st.phrases[i].code.empty()) continue;
    Msg p;
    ASSERT_TRUE(attnviz::msg_from_code(st.phrases[i].code, &p)) << what;
    EXPECT_EQ(msg_format(msg_template(p), st.phrases[i].args), st.args[i]) << what;
  }
}

TEST(Messages, EveryRefusalOfABadStateIsACodeAndItsValues) {
  const std::string m4 = "[[1,2,3,4],[1,2,3,4],[1,2,3,4],[1,2,3,4]]";
  const std::vector<std::string> bad = {
      "{", "", "[1,2]", "\"x\"", "{\"a\": }", std::string(40, '[') + std::string(40, ']'),
      R"({"tokens": "abc"})", R"({"tokens": [1]})", R"({"tokens": []})", R"({"tokens": ["a", null]})",
      R"({"tokens": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["a"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]})",
      "{\"tokens\": [\"" + std::string(300, 'y') + "\"]}", "{\"tokens\": [\"a\", \"\xff\"]}",
      R"({"d_out": 6, "num_heads": 4})", R"({"d_out": "six"})", "{\"d_out\": \"" + std::string(100, 'x') + "\"}",
      R"({"d_out": [1]})", R"({"d_out": {}})", R"({"d_out": true})", R"({"d_out": 2.5})", R"({"d_out": 99999})",
      R"({"d_model": 18446744073709551615})", R"({"foo": 1})", "{\"" + std::string(60, 'k') + "\": 1}",
      R"({"embedding": {"bar": 1}})", R"({"embedding": 3})", R"({"embedding": {"values": [[1]], "seed": 1}})",
      R"({"embedding": {"values": 5}})", R"({"embedding": {"values": [[1,2,3,4]]}})",
      R"({"embedding": {"values": [1,2,3,4,5]}})",
      R"({"embedding": {"values": [[1,2,3],[1,2,3,4],[1,2,3,4],[1,2,3,4],[1,2,3,4]]}})",
      R"({"embedding": {"values": [[1,2,"x",4],[1,2,3,4],[1,2,3,4],[1,2,3,4],[1,2,3,4]]}})",
      R"({"embedding": {"values": [[1,2,1e39,4],[1,2,3,4],[1,2,3,4],[1,2,3,4],[1,2,3,4]]}})",
      R"({"embedding": {"values": [[1,2,1e400,4]]}})", R"({"embedding": {"init": "nope"}})",
      R"({"embedding": {"seed": "s"}})", R"({"embedding": {"seed": 1.5}})", R"({"weights": {"W_q": [[1]], "seed": 1}})",
      "{\"weights\": {\"W_q\": " + m4 + "}}",
      "{\"weights\": {\"W_q\": " + m4 + ", \"W_k\": " + m4 + ", \"W_v\": " + m4 + ", \"b_q\": [1]}, \"qkv_bias\": true}",
      "{\"weights\": {\"W_q\": " + m4 + ", \"W_k\": " + m4 + ", \"W_v\": " + m4 + ", \"b_q\": \"x\"}, \"qkv_bias\": true}",
      R"({"weights": []})", R"({"weights": {"layout": "x"}})", R"({"weights": {"W_q": 1}})", R"({"causal": 1})",
      R"({"causal": "yes"})", R"({"key_padding": 3})", R"({"key_padding": [1,1]})", R"({"key_padding": [1,1,1,1,2]})",
      R"({"key_padding": [1,1,1,1,[1]]})", R"({"mask_fill": "inf"})", R"({"mask_fill": []})",
      R"({"mask_fill": 1e39})", R"({"mask_fill": NaN})", R"({"temperature": NaN})", R"({"temperature": -1})",
      R"({"temperature": "hot"})", R"({"temperature": 1e400})", "[1e400]", "[NaN]", R"({"dropout": 1})",
      R"({"dropout": {"p": 2}})", R"({"dropout": {"q": 2}})", R"({"dropout": {"training": "no"}})", R"({"version": 2})",
      R"({"version": 0})", R"({"version": [2]})", R"({"version": "1"})", R"({"scale": 3})",
      "{\"positional\": \"" + std::string(60, 'p') + "\"}", R"({"tokens": ["a"], "tokens": ["b"]})",
      R"({"dropout": {"p": 0.1, "p": 0.2}})",
      R"({"d_model": 1024, "d_out": 1024, "num_heads": 64, "tokens": [)" + [] {
        std::string t;
        for (int i = 0; i < 2000; ++i) t += i ? ",\"w\"" : "\"w\"";
        return t;
      }() + "]}",
  };
  for (const std::string& text : bad) {
    attnviz::State s;
    expect_worded_from_code(attnviz::parse_state_text(text, &s), text.substr(0, 80));
  }
}

TEST(Messages, ValidationAndThePipelineRefuseWithCodesToo) {
  attnviz::State s;
  s.temperature = 0;
  expect_worded_from_code(attnviz::validate_state(s), "temperature 0");
  EXPECT_EQ(attnviz::validate_state(s).code, "temperature_range");
  s = attnviz::State{};
  s.embedding.init = attnviz::EmbeddingInit::values;
  s.embedding.values.reset(2, 2);
  const Status shape = attnviz::validate_state(s);
  expect_worded_from_code(shape, "embedding 2 × 2");
  EXPECT_EQ(shape.code, "matrix_shape");
  s.embedding.values.reset(s.seq_len(), s.d_model);
  s.embedding.values.mut().data[0] = NAN;
  expect_worded_from_code(attnviz::validate_state(s), "NaN in the embedding");
  s = attnviz::State{};
  s.key_padding = {1, 2, 1, 1, 1};
  expect_worded_from_code(attnviz::validate_state(s), "key_padding 2");
  s = attnviz::State{};
  s.mask_fill = 1e300;
  expect_worded_from_code(attnviz::validate_state(s), "mask_fill 1e300");
  s = attnviz::State{};
  s.dropout.p = 1.5;
  expect_worded_from_code(attnviz::validate_state(s), "p 1.5");
  s = attnviz::State{};
  s.version = 3;
  expect_worded_from_code(attnviz::validate_state(s), "version 3");
  s = attnviz::State{};
  s.tokens = {"a", "\xC0\xAF"};
  expect_worded_from_code(attnviz::validate_state(s), "overlong UTF-8");
  attnviz::Pipeline p;
  s = attnviz::State{};
  s.num_heads = 3;
  const Status refused = p.set_state(s);
  expect_worded_from_code(refused, "pipeline: d_out 4, 3 heads");
  EXPECT_EQ(refused.code, "d_out_not_divisible");
  EXPECT_EQ(refused.args, (std::vector<std::string>{"4", "3"}));
}

}  // namespace
