// Hostile input at the state decoder: text nobody would type by accident
// (100 000 levels of nesting, 10 MB strings, NaN, 1e400, 2^64, ill-formed
// UTF-8, duplicate fields, a future version) and every field given every
// wrong JSON type. Each must give a short sentence and the field, never an
// exception and never an abort, natively and in wasm (5 MiB stack).
// test_state.cpp has the ordinary bad inputs; this file adds the hostile ones.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "attnviz/pipeline.h"
#include "attnviz/state.h"
#include "attnviz/state_json.h"

namespace {

using attnviz::State;
using attnviz::Status;
using nlohmann::json;

// Parses text as a state; the status must be a failure with a short, non-empty
// sentence. The state passed in must not be touched.
Status refuse(const std::string& text) {
  State s;
  s.tokens = {"kept"};
  Status st;
  EXPECT_NO_THROW(st = attnviz::parse_state_text(text, &s));
  EXPECT_FALSE(st.ok);
  EXPECT_FALSE(st.error.empty());
  EXPECT_LT(st.error.size(), 400u) << st.error.substr(0, 400);
  EXPECT_LT(st.field.size(), 200u);
  EXPECT_EQ(s.tokens, std::vector<std::string>{"kept"}) << "the output state was changed on error";
  return st;
}

#define EXPECT_REFUSED(text, field_, words)                                   \
  do {                                                                        \
    const Status st_ = refuse(text);                                          \
    EXPECT_EQ(st_.field, field_) << st_.error;                                \
    EXPECT_NE(st_.error.find(words), std::string::npos) << st_.error;         \
  } while (0)

std::string nested(int depth, const std::string& open, const std::string& close,
                   const std::string& inner = "1") {
  std::string s;
  s.reserve(depth * (open.size() + close.size()) + inner.size());
  for (int i = 0; i < depth; ++i) s += open;
  s += inner;
  for (int i = 0; i < depth; ++i) s += close;
  return s;
}

TEST(Hostile, DeepNestingIsRefusedBeforeAnythingRecursive) {
  EXPECT_REFUSED(nested(100000, "[", "]"), "", "nested more than 32 levels deep");
  EXPECT_REFUSED(nested(100000, "{\"a\":", "}"), "a", "nested more than 32 levels deep");
  EXPECT_REFUSED("{\"tokens\": " + nested(100000, "[", "]") + "}", "tokens", "nested more than 32");
  // Unclosed: the refusal comes at the limit, not at the end of the text.
  EXPECT_REFUSED(std::string(100000, '['), "", "nested more than 32 levels deep");
  // 32 levels (the object and 31 lists) pass the parser, which leaves the
  // refusal to the field's own check; 33 do not.
  EXPECT_REFUSED("{\"tokens\": " + nested(31, "[", "]") + "}", "tokens[0]", "must be a string");
  EXPECT_REFUSED("{\"tokens\": " + nested(32, "[", "]") + "}", "tokens", "nested more than 32");
}

TEST(Hostile, DeepJsonValueBuiltElsewhereIsRefusedToo) {
  // A caller that parsed the text itself (nlohmann's parser is iterative and
  // its destructor too) hands parse_state a 100 000-deep value.
  const json deep = json::parse(nested(100000, "[", "]"));
  State s;
  Status st;
  EXPECT_NO_THROW(st = attnviz::parse_state(deep, &s));
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.error.find("nested more than 32"), std::string::npos) << st.error;
  json obj = json::object();
  obj["tokens"] = json::parse(nested(100000, "[", "]", "\"a\""));
  EXPECT_NO_THROW(st = attnviz::parse_state(obj, &s));
  EXPECT_FALSE(st.ok);
}

TEST(Hostile, DuplicateFieldsAreRefused) {
  EXPECT_REFUSED("{\"causal\": true, \"causal\": false}", "causal", "\"causal\" appears twice");
  EXPECT_REFUSED("{\"dropout\": {\"p\": 0.1, \"p\": 0.2}}", "dropout.p", "appears twice in dropout");
  // The same key spelled with an escape is the same key.
  EXPECT_REFUSED("{\"causal\": true, \"\\u0063ausal\": true}", "causal", "appears twice");
  // The same name in different objects is fine.
  State s;
  EXPECT_TRUE(attnviz::parse_state_text("{\"embedding\": {\"seed\": 1}, \"weights\": {\"seed\": 1}}", &s).ok);
}

TEST(Hostile, NanAndInfinityAreRefusedWithTheirField) {
  EXPECT_REFUSED("{\"temperature\": NaN}", "temperature", "temperature is NaN or Infinity, which JSON does not have");
  EXPECT_REFUSED("{\"temperature\": Infinity}", "temperature", "NaN or Infinity");
  EXPECT_REFUSED("{\"temperature\": -Infinity}", "temperature", "NaN or Infinity");
  EXPECT_REFUSED("{\"dropout\": {\"p\": nan}}", "dropout.p", "NaN or Infinity");
  EXPECT_REFUSED("{\"tokens\": [\"a\"], \"embedding\": {\"values\": [[1, NaN, 3, 4]]}}",
                 "embedding.values[0][1]", "embedding.values[0][1] is NaN or Infinity");
  EXPECT_REFUSED("{\"mask_fill\": -inf}", "mask_fill", "write \"-inf\" in quotes");
  // As strings: the field's type sentence, quoting the string.
  EXPECT_REFUSED("{\"temperature\": \"NaN\"}", "temperature", "must be a number, not a string (\"NaN\")");
  EXPECT_REFUSED("{\"tokens\": [\"a\"], \"embedding\": {\"values\": [[1, \"Infinity\", 3, 4]]}}",
                 "embedding.values[0][1]", "must be a number, not a string (\"Infinity\")");
  EXPECT_REFUSED("{\"d_model\": 1, \"d_out\": 1, \"weights\": {\"W_q\": [[\"nan\"]], \"W_k\": [[1]], "
                 "\"W_v\": [[1]]}}",
                 "weights.W_q[0][0]", "must be a number");
  EXPECT_REFUSED("{\"dropout\": {\"p\": \"inf\"}}", "dropout.p", "must be a number");
  EXPECT_REFUSED("{\"mask_fill\": \"inf\"}", "mask_fill", "\"-inf\" or a number");
}

TEST(Hostile, HugeNumbers) {
  EXPECT_REFUSED("{\"temperature\": 1e400}", "temperature", "temperature (1e400) is too large: numbers must be finite, within about ±1.8e308 (at line 1, column 21)");
  EXPECT_REFUSED("{\"temperature\": -1e400}", "temperature", "too large");
  EXPECT_REFUSED("{\"key_padding\": [1, 1, 1e999, 1, 1]}", "key_padding[2]", "too large");
  EXPECT_REFUSED("{\"d_model\": 1" + std::string(400, '0') + "}", "d_model", "is too large");
  EXPECT_REFUSED("{\"d_model\": 18446744073709551616}", "d_model", "from 1 to 4096, not 1.8446744073709552e+19");
  EXPECT_REFUSED("{\"d_model\": 18446744073709551615}", "d_model", "not 18446744073709551615");
  EXPECT_REFUSED("{\"num_heads\": -9223372036854775808}", "num_heads", "from 1 to 64");
  EXPECT_REFUSED("{\"embedding\": {\"seed\": 18446744073709551616}}", "embedding.seed", "whole number");
  EXPECT_REFUSED("{\"temperature\": 1e308}", "temperature", "from 1e-06 to 1e+06 (it divides the scores, so it must be greater than 0), not 1e+308");
  EXPECT_REFUSED("{\"temperature\": 1e-320}", "temperature", "greater than 0");
  EXPECT_REFUSED("{\"dropout\": {\"p\": 1e300}}", "dropout.p", "from 0 to 1, not 1e+300");
  EXPECT_REFUSED("{\"mask_fill\": 1e300}", "mask_fill", "float32's range");
  EXPECT_REFUSED("{\"tokens\": [\"a\"], \"embedding\": {\"values\": [[1, 2, 3, 3.5e38]]}}",
                 "embedding.values[0][3]", "outside float32's range");
  // 2^64 − 1 is a valid seed (torch.manual_seed takes it), and subnormal floats are numbers.
  State s;
  ASSERT_TRUE(attnviz::parse_state_text("{\"weights\": {\"seed\": 18446744073709551615}}", &s).ok);
  EXPECT_EQ(s.weights.seed, 18446744073709551615ull);
  ASSERT_TRUE(attnviz::parse_state_text(
                  "{\"tokens\": [\"a\"], \"embedding\": {\"values\": [[1e-45, -1e-50, 0, 1]]}}", &s)
                  .ok);
  EXPECT_EQ(s.embedding.values.at(0, 0), 1e-45f);
}

TEST(Hostile, HugeStringsGiveShortSentences) {
  const std::string ten_mb(10u << 20, 'x');
  EXPECT_REFUSED("{\"tokens\": [\"" + ten_mb + "\"]}", "tokens[0]",
                 "tokens[0] is 10485760 bytes long; a token may be at most 256 bytes");
  EXPECT_REFUSED("{\"tokens\": [\"a\", \"" + std::string(1u << 20, 'y') + "\"]}", "tokens[1]",
                 "is 1048576 bytes long");
  EXPECT_REFUSED("{\"scale\": \"" + ten_mb + "\"}", "scale", "(10485760 bytes)");
  EXPECT_REFUSED("{\"mask_fill\": \"" + ten_mb + "\"}", "mask_fill", "\"-inf\" or a number");
  EXPECT_REFUSED("{\"version\": \"" + ten_mb + "\"}", "version", "version must be 1");
  EXPECT_REFUSED("{\"d_model\": \"" + ten_mb + "\"}", "d_model", "not a string (\"xxx");
  const Status st = refuse("{\"" + ten_mb + "\": 1}");
  EXPECT_NE(st.error.find("unknown field \"xxxx"), std::string::npos) << st.error;
  EXPECT_EQ(st.field, std::string(40, 'x') + "…");
  // Multi-byte characters are cut whole: the sentence stays valid UTF-8.
  std::string cjk;
  for (int i = 0; i < 100000; ++i) cjk += "\xE6\xB3\xA8";  // 注
  const Status c = refuse("{\"positional\": \"" + cjk + "\"}");
  EXPECT_EQ(c.field, "positional");
  EXPECT_NO_THROW((void)json(c.error).dump());  // strict UTF-8 check
}

TEST(Hostile, InvalidUtf8) {
  EXPECT_REFUSED("{\"tokens\": [\"ok\", \"\xFF\"]}", "tokens[1]", "tokens[1] is not valid UTF-8 text (at line 1, column 20)");
  EXPECT_REFUSED("{\"tokens\": [\"\xC0\x80\"]}", "tokens[0]", "not valid UTF-8");       // overlong NUL
  EXPECT_REFUSED("{\"tokens\": [\"\xED\xA0\x80\"]}", "tokens[0]", "not valid UTF-8");   // surrogate
  EXPECT_REFUSED("{\"tokens\": [\"\xE4\xBD\"]}", "tokens[0]", "not valid UTF-8");       // cut off
  EXPECT_REFUSED("{\"caus\xE9l\": true}", "", "not valid UTF-8");                           // Latin-1 key
  // A lone surrogate escape is not a character either.
  const Status st = refuse("{\"tokens\": [\"\\ud800\"]}");
  EXPECT_NE(st.error.find("not valid JSON"), std::string::npos) << st.error;
  // Built in code (the UI's path): validate_state and parse_state catch it.
  json j = {{"tokens", {"a", std::string("\xFF\xFE")}}};
  State s;
  Status r;
  EXPECT_NO_THROW(r = attnviz::parse_state(j, &s));
  EXPECT_EQ(r.field, "tokens[1]");
  json k = {{std::string("sc\xFF" "ale"), "none"}};
  EXPECT_NO_THROW(r = attnviz::parse_state(k, &s));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("unknown field"), std::string::npos) << r.error;
  EXPECT_NO_THROW((void)json(r.error).dump());  // the sentence itself is valid UTF-8
}

TEST(Hostile, FutureVersion) {
  EXPECT_REFUSED("{\"version\": 2, \"heads_layout\": \"grid\"}", "version",
                 "this state is version 2, written by a newer attnviz");
  EXPECT_REFUSED("{\"version\": 18446744073709551615}", "version", "newer attnviz");
  EXPECT_REFUSED("{\"version\": 0}", "version", "version must be 1");
  EXPECT_REFUSED("{\"version\": -1}", "version", "not -1");
  EXPECT_REFUSED("{\"version\": 1.5}", "version", "not 1.5");
  EXPECT_REFUSED("{\"version\": \"1\"}", "version", "not \"1\"");
}

TEST(Hostile, TextThatIsNotAState) {
  EXPECT_REFUSED("", "", "not valid JSON (problem at line 1, column 1)");
  EXPECT_REFUSED("   \n\n  ", "", "not valid JSON (problem at line 3");
  EXPECT_REFUSED("{} {}", "", "not valid JSON");
  EXPECT_REFUSED(std::string("{\"causal\": tr\0ue}", 17), "", "not valid JSON");
  EXPECT_REFUSED("null", "", "must be a JSON object, not null");
  EXPECT_REFUSED("\"{}\"", "", "must be a JSON object, not a string (\"{}\")");
  EXPECT_REFUSED("{\"causal\": true,}", "", "not valid JSON");
  EXPECT_REFUSED("// comment\n{}", "", "not valid JSON");
  // Every byte value alone.
  for (int b = 0; b < 256; ++b) {
    const std::string text(1, static_cast<char>(b));
    State s;
    Status st;
    EXPECT_NO_THROW(st = attnviz::parse_state_text(text, &s));
    EXPECT_FALSE(st.ok) << b;
  }
}

// Every field with every JSON type it does not take: a refusal naming that
// field (or a part of it), never an exception.
TEST(Hostile, WrongTypesEverywhere) {
  struct Field {
    std::string path;  // "a" or "a.b"
    std::string takes; // of "b" (bool), "n" (number), "s" (string), "l" (list), "o" (object)
  };
  const Field fields[] = {
      {"version", "n"},         {"tokens", "l"},           {"d_model", "n"},
      {"d_out", "n"},           {"num_heads", "n"},        {"embedding", "o"},
      {"embedding.init", "s"},  {"embedding.seed", "n"},   {"embedding.values", "l"},
      {"positional", "s"},      {"weights", "o"},          {"weights.init", "s"},
      {"weights.seed", "n"},    {"weights.layout", "s"},   {"weights.W_q", "l"},
      {"weights.b_o", "l"},     {"qkv_bias", "b"},         {"out_proj", "b"},
      {"out_bias", "b"},        {"scale", "s"},            {"temperature", "n"},
      {"causal", "b"},          {"key_padding", "l"},      {"mask_fill", "ns"},
      {"safe_softmax", "b"},    {"dropout", "o"},          {"dropout.p", "n"},
      {"dropout.training", "b"}, {"dropout.seed", "n"},
  };
  const struct {
    char kind;
    json value;
  } values[] = {{'b', true}, {'n', 2.5}, {'s', "text"}, {'l', json::array({1, "a"})},
                {'o', json::object({{"x", 1}})}};
  int refused = 0;
  for (const Field& f : fields) {
    for (const auto& v : values) {
      if (f.takes.find(v.kind) != std::string::npos) continue;
      json j = json::object();
      const size_t dot = f.path.find('.');
      if (dot == std::string::npos) {
        j[f.path] = v.value;
      } else {
        j[f.path.substr(0, dot)][f.path.substr(dot + 1)] = v.value;
      }
      if (f.path == "weights.b_o") {  // read only when out_proj and out_bias
        j["out_proj"] = true;
        j["weights"]["W_q"] = j["weights"]["W_k"] = j["weights"]["W_v"] = j["weights"]["W_o"] =
            json::parse("[[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]");
      }
      State s;
      Status st;
      EXPECT_NO_THROW(st = attnviz::parse_state(j, &s)) << j.dump();
      EXPECT_FALSE(st.ok) << j.dump();
      EXPECT_EQ(st.field.rfind(f.path, 0), 0u) << j.dump() << " -> field " << st.field << ": " << st.error;
      EXPECT_FALSE(st.error.empty());
      // The text path says the same.
      State t;
      const Status st_text = attnviz::parse_state_text(j.dump(), &t);
      EXPECT_EQ(st_text.field, st.field);
      EXPECT_EQ(st_text.error, st.error);
      ++refused;
    }
  }
  EXPECT_GT(refused, 100);
}

// What the UI hands to Pipeline::set_state after a cell edit: NaN or ∞ typed
// into a cell, temperature and p out of range. Refused, and the pipeline keeps
// its last valid result.
TEST(Hostile, ValuesTypedIntoAStateBuiltInCode) {
  State good;
  ASSERT_TRUE(attnviz::parse_state_text(
                  "{\"tokens\": [\"a\", \"b\"], \"d_model\": 2, \"d_out\": 2, "
                  "\"embedding\": {\"values\": [[1, 2], [3, 4]]}, "
                  "\"weights\": {\"W_q\": [[1, 0], [0, 1]], \"W_k\": [[1, 0], [0, 1]], \"W_v\": [[1, 0], [0, 1]]}}",
                  &good)
                  .ok);
  attnviz::Pipeline p;
  ASSERT_TRUE(p.set_state(good).ok);
  const auto weights_before = p.matrix(attnviz::Stage::weights, 0)->data;

  struct Edit {
    const char* field;
    void (*apply)(State*);
  };
  const Edit edits[] = {
      {"embedding.values", [](State* s) { s->embedding.values.mut().at(1, 0) = NAN; }},
      {"embedding.values", [](State* s) { s->embedding.values.mut().at(0, 1) = INFINITY; }},
      {"weights.W_q", [](State* s) { s->weights.W_q.mut().at(0, 0) = -INFINITY; }},
      {"weights.W_v", [](State* s) { s->weights.W_v.mut().at(1, 1) = NAN; }},
      {"temperature", [](State* s) { s->temperature = NAN; }},
      {"temperature", [](State* s) { s->temperature = 0.0; }},
      {"temperature", [](State* s) { s->temperature = -0.0; }},
      {"temperature", [](State* s) { s->temperature = INFINITY; }},
      {"dropout.p", [](State* s) { s->dropout.p = NAN; }},
      {"dropout.p", [](State* s) { s->dropout.p = 1.0000001; }},
      {"mask_fill", [](State* s) { s->mask_fill = INFINITY; }},
      {"mask_fill", [](State* s) { s->mask_fill = NAN; }},
      {"mask_fill", [](State* s) { s->mask_fill = 1e39; }},
      {"tokens", [](State* s) { s->tokens.clear(); }},
      {"tokens", [](State* s) { s->tokens.assign(attnviz::Limits::kMaxTokens + 1, "w"); }},
      {"tokens[1]", [](State* s) { s->tokens[1] = std::string(1u << 20, 't'); }},
      {"num_heads", [](State* s) { s->num_heads = 0; }},
      {"num_heads", [](State* s) { s->d_out = 3; s->num_heads = 2; }},
      {"version", [](State* s) { s->version = 2; }},
  };
  for (const Edit& e : edits) {
    State s = good;
    e.apply(&s);
    Status st;
    EXPECT_NO_THROW(st = p.set_state(s));
    EXPECT_FALSE(st.ok) << e.field;
    EXPECT_EQ(st.field, e.field) << st.error;
    EXPECT_FALSE(st.error.empty());
    ASSERT_TRUE(p.has_result());
    EXPECT_EQ(p.matrix(attnviz::Stage::weights, 0)->data, weights_before) << "lost the last result";
  }
  // The sentence quotes what was typed.
  State s = good;
  s.temperature = NAN;
  EXPECT_NE(p.set_state(s).error.find("greater than 0), not NaN"), std::string::npos);
  s = good;
  s.dropout.p = -INFINITY;
  EXPECT_NE(p.set_state(s).error.find("from 0 to 1, not -Infinity"), std::string::npos);
  s = good;
  s.embedding.values.mut().at(1, 0) = NAN;
  EXPECT_EQ(p.set_state(s).error, "embedding.values must contain finite numbers only");
}

}  // namespace

// Found by the fuzzer: 25 levels of 40-byte keys made a 1 KB field path. The path
// is cut (head kept, so callers matching "embedding…" still match) at 120 bytes + "…".
TEST(Hostile, FieldPathsStayShortHoweverDeepTheLongKeys) {
  const std::string key(60, 'k');
  std::string text = "{\"embedding\": ";
  for (int i = 0; i < 25; ++i) text += "{\"" + key + "\": ";
  text += "NaN";
  for (int i = 0; i < 25; ++i) text += "}";
  text += "}";
  nlohmann::json out;
  attnviz::Status st = attnviz::parse_json_text(text, &out);
  ASSERT_FALSE(st.ok);
  EXPECT_LE(st.field.size(), 120u + std::string("…").size()) << st.field;
  EXPECT_EQ(st.field.rfind("embedding.kkkk", 0), 0u) << st.field;
  EXPECT_LT(st.error.size(), 400u) << st.error;
}
