// The session state: defaults, round trips, and every kind of bad input
// giving a learner-readable sentence and the offending field.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attnviz/report.h"
#include "attnviz/state.h"
#include "attnviz/state_json.h"
#include "engine_test_util.h"

namespace {

using attnviz::State;
using attnviz::Status;
using nlohmann::json;

TEST(State, EmptyObjectIsTheDocumentedDefault) {
  State s;
  ASSERT_TRUE(attnviz::parse_state_text("{}", &s).ok);
  EXPECT_EQ(s.tokens, (std::vector<std::string>{"Once", "upon", "a", "time", "there"}));
  EXPECT_EQ(s.d_model, 4);
  EXPECT_EQ(s.d_out, 4);
  EXPECT_EQ(s.num_heads, 1);
  EXPECT_EQ(s.embedding.init, attnviz::EmbeddingInit::torch_randn);
  EXPECT_EQ(s.embedding.seed, 123u);
  EXPECT_EQ(s.weights.init, attnviz::WeightInit::torch_rand);
  EXPECT_EQ(s.weights.seed, 123u);
  EXPECT_EQ(s.scale, attnviz::ScaleMode::head_dim);
  EXPECT_EQ(s.temperature, 1.0);
  EXPECT_FALSE(s.causal);
  EXPECT_TRUE(s.key_padding.empty());
  EXPECT_TRUE(std::isinf(s.mask_fill) && s.mask_fill < 0);
  EXPECT_FALSE(s.safe_softmax);
  EXPECT_FALSE(s.qkv_bias);
  EXPECT_FALSE(s.out_proj);
  EXPECT_TRUE(s.out_bias);
  EXPECT_EQ(s.dropout.p, 0.0);
  EXPECT_FALSE(s.dropout.training);
}

// Issue 23's fields: read, kept, and written only when not their defaults.
TEST(State, VariantFieldsRoundTrip) {
  const char* text = R"({"tokens": ["a", "b", "c", "d"], "d_model": 8, "d_out": 8, "num_heads": 4,
    "positional": "rope", "rope": {"base": 500000, "style": "interleaved"}, "num_kv_heads": 2,
    "alibi": true, "window": 3, "causal": true})";
  State a, b;
  const Status st = attnviz::parse_state_text(text, &a);
  ASSERT_TRUE(st.ok) << st.error;
  EXPECT_EQ(a.positional, attnviz::Positional::rope);
  EXPECT_EQ(a.rope.base, 500000.0);
  EXPECT_EQ(a.rope.style, attnviz::RopeStyle::interleaved);
  EXPECT_EQ(a.num_kv_heads, 2);
  EXPECT_EQ(a.kv_dim(), 4);
  EXPECT_TRUE(a.alibi);
  EXPECT_EQ(a.window, 3);
  const json j = attnviz::state_to_json(a);
  EXPECT_EQ(j["rope"]["style"], "interleaved");
  EXPECT_EQ(j["num_kv_heads"], 2);
  ASSERT_TRUE(attnviz::parse_state(j, &b).ok);
  EXPECT_EQ(attnviz::state_to_json(b), j);
  // Defaults write nothing new: a state without the options reads and writes as before.
  State d;
  ASSERT_TRUE(attnviz::parse_state_text("{}", &d).ok);
  const json dj = attnviz::state_to_json(d);
  for (const char* k : {"rope", "num_kv_heads", "alibi", "window"}) EXPECT_EQ(dj.count(k), 0u) << k;
  EXPECT_EQ(d.kv_heads(), d.num_heads);
  // rope's settings are kept while RoPE is off (the UI switches back to them).
  State off;
  ASSERT_TRUE(attnviz::parse_state_text(R"({"rope": {"base": 10}})", &off).ok);
  EXPECT_EQ(attnviz::state_to_json(off)["rope"]["base"], 10.0);
}

// Issue 36's fields: gpt-oss's sinks and StreamingLLM's cache, read, kept while
// off, and written only when not their defaults.
TEST(State, SinksAndKvCacheRoundTrip) {
  const char* text = R"({"tokens": ["a", "b", "c", "d"], "d_model": 4, "d_out": 4, "num_heads": 2,
    "sinks": {"enabled": true, "values": [0.1, -2.5]},
    "kv_cache": {"policy": "streaming_llm", "sink_tokens": 1, "recent": 2}, "causal": true})";
  State a, b;
  const Status st = attnviz::parse_state_text(text, &a);
  ASSERT_TRUE(st.ok) << st.error;
  EXPECT_TRUE(a.sinks.enabled);
  ASSERT_EQ(a.sinks.values.size(), 2u);
  EXPECT_EQ(a.sinks.values[0], 0.1f);
  EXPECT_EQ(a.sinks.logit(1), -2.5f);
  EXPECT_TRUE(a.kv_cache.streaming());
  EXPECT_EQ(a.kv_cache.sink_tokens, 1);
  EXPECT_EQ(a.kv_cache.recent, 2);
  const json j = attnviz::state_to_json(a);
  EXPECT_EQ(j["sinks"]["values"][0].dump(), "0.1");  // the shortest decimal that reads back as the float32
  EXPECT_EQ(j["kv_cache"]["policy"], "streaming_llm");
  ASSERT_TRUE(attnviz::parse_state(j, &b).ok);
  EXPECT_EQ(attnviz::state_to_json(b), j);
  EXPECT_TRUE(a == b);
  // Defaults write nothing; sinks on without values is 0 for every head.
  State d;
  ASSERT_TRUE(attnviz::parse_state_text("{}", &d).ok);
  for (const char* k : {"sinks", "kv_cache"}) EXPECT_EQ(attnviz::state_to_json(d).count(k), 0u) << k;
  State on;
  ASSERT_TRUE(attnviz::parse_state_text(R"({"sinks": {"enabled": true}})", &on).ok);
  EXPECT_TRUE(on.sinks.values.empty());
  EXPECT_EQ(on.sinks.logit(0), 0.0f);
  EXPECT_EQ(attnviz::state_to_json(on)["sinks"].dump(), R"({"enabled":true})");
  // Kept while off: the values and the cache's sizes survive a switch off and the JSON.
  State off;
  ASSERT_TRUE(attnviz::parse_state_text(
                  R"({"sinks": {"enabled": false, "values": [3]}, "kv_cache": {"sink_tokens": 2}})", &off).ok);
  const json oj = attnviz::state_to_json(off);
  EXPECT_EQ(oj["sinks"]["values"][0], 3.0);
  EXPECT_EQ(oj["kv_cache"]["policy"], "full");
  EXPECT_EQ(oj["kv_cache"]["sink_tokens"], 2);
}

// A State built in code (the UI's): one finite logit per head, or none.
TEST(State, SinkLogitsAreValidatedInCodeToo) {
  State s;
  s.num_heads = 2;
  s.sinks.values = {1.0f};
  Status st = attnviz::validate_state(s);
  EXPECT_EQ(st.field, "sinks.values");
  EXPECT_EQ(st.error, "sinks.values must have 2 numbers (num_heads), but it has 1");
  s.sinks.values = {1.0f, std::numeric_limits<float>::infinity()};
  st = attnviz::validate_state(s);
  EXPECT_EQ(st.field, "sinks.values[1]");
  EXPECT_EQ(st.error, "sinks.values[1] must contain finite numbers only");
  s.sinks.values = {1.0f, std::nanf("")};
  EXPECT_EQ(attnviz::validate_state(s).field, "sinks.values[1]");
  s.sinks.values = {1.0f, 2.0f};
  EXPECT_TRUE(attnviz::validate_state(s).ok);
  s.kv_cache.recent = 0;
  st = attnviz::validate_state(s);
  EXPECT_EQ(st.field, "kv_cache.recent");
  EXPECT_EQ(st.error, "kv_cache.recent must be a whole number from 1 to 1048576, not 0");
  s.kv_cache.recent = 1;
  s.kv_cache.sink_tokens = -1;
  EXPECT_EQ(attnviz::validate_state(s).field, "kv_cache.sink_tokens");
}

// fit_to_heads: the fields sized by the heads follow an edit of num_heads.
TEST(State, FitToHeadsResizesTheSinksAndResetsKvHeads) {
  State s;
  s.d_out = 8;
  s.num_heads = 4;
  s.num_kv_heads = 2;
  s.sinks.values = {1, 2, 3, 4};
  s.num_heads = 2;
  attnviz::fit_to_heads(&s);
  EXPECT_EQ(s.sinks.values, (std::vector<float>{1, 2}));
  EXPECT_EQ(s.num_kv_heads, 0);  // 2 K/V heads of 2 heads: plain MHA, written as 0
  s.num_heads = 8;
  attnviz::fit_to_heads(&s);
  EXPECT_EQ(s.sinks.values, (std::vector<float>{1, 2, 0, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(attnviz::validate_state(s).ok);
  State none;
  none.num_heads = 3;
  attnviz::fit_to_heads(&none);
  EXPECT_TRUE(none.sinks.values.empty());  // no explicit values: 0 for every head, whatever their number
}

TEST(State, SerialisationRoundTrips) {
  const char* text = R"({"version": 1, "tokens": ["a", "b", "a"], "d_model": 2, "d_out": 4,
    "num_heads": 2, "embedding": {"values": [[0.1, -2.5], [3e-8, 1e30], [0, -0.0]]},
    "positional": "sinusoidal", "qkv_bias": true, "out_proj": true, "out_bias": false,
    "weights": {"W_q": [[1, 2, 3, 4], [5, 6, 7, 8]], "W_k": [[0.5, 0, 0, 0], [0, 0, 0, 1]],
                "W_v": [[1, 1, 1, 1], [2, 2, 2, 2]],
                "W_o": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.3333333]],
                "b_q": [0.1, 0.2, 0.3, 0.4], "b_k": [0, 0, 0, 0], "b_v": [1, 2, 3, 4]},
    "scale": "d_out", "temperature": 0.7, "causal": true, "key_padding": [1, 0, 1],
    "mask_fill": -1e20, "safe_softmax": true, "dropout": {"p": 0.25, "training": true, "seed": -3}})";
  State a, b;
  ASSERT_TRUE(attnviz::parse_state_text(text, &a).ok);
  const json j = attnviz::state_to_json(a);
  const Status st = attnviz::parse_state(j, &b);
  ASSERT_TRUE(st.ok) << st.error;
  EXPECT_EQ(attnviz::state_to_json(b), j);
  EXPECT_EQ(j["mask_fill"], -1e20);
  EXPECT_EQ(j["dropout"]["seed"], 18446744073709551613ull);  // torch.manual_seed(-3) = 2^64 − 3
  EXPECT_EQ(a.embedding.values.at(0, 0), 0.1f);               // exact float32 after the round trip
  EXPECT_EQ(b.embedding.values.at(0, 0), 0.1f);
  EXPECT_EQ(b.weights.W_o.at(3, 3), 0.3333333f);
  EXPECT_TRUE(std::signbit(b.embedding.values.at(2, 1)));
  EXPECT_EQ(j["weights"].count("b_o"), 0u);  // out_bias false: not written
  State d;
  ASSERT_TRUE(attnviz::parse_state_text("{}", &d).ok);
  EXPECT_EQ(attnviz::state_to_json(d)["mask_fill"], "-inf");
}

struct BadCase {
  const char* json_text;
  const char* field;
  const char* words;  // must appear in the error sentence
};

class BadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInput, GivesASentenceAndTheField) {
  const BadCase& c = GetParam();
  State s;
  const Status st = attnviz::parse_state_text(c.json_text, &s);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.field, c.field) << st.error;
  EXPECT_NE(st.error.find(c.words), std::string::npos) << st.error;
  // run_state_json says the same and leaves the report alone
  json report = "untouched";
  json parsed;
  bool is_json = true;
  try {
    parsed = json::parse(c.json_text);
  } catch (...) {
    is_json = false;
  }
  if (is_json) {
    const Status r = attnviz::run_state_json(parsed, &report);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.field, c.field);
    EXPECT_EQ(report, "untouched");
  }
}

const BadCase kBadCases[] = {
    {"[1, 2]", "", "must be a JSON object"},
    {"{\"tokens\": [\"a\",", "", "not valid JSON (problem at line 1"},
    {"{\"version\": 2}", "version", "version must be 1"},
    {"{\"tokens\": \"Once upon\"}", "tokens", "list of strings"},
    {"{\"tokens\": []}", "tokens", "at least one token"},
    {"{\"tokens\": [\"a\", 7]}", "tokens[1]", "must be a string"},
    {"{\"d_model\": 0}", "d_model", "from 1 to 4096"},
    {"{\"d_model\": 4097}", "d_model", "from 1 to 4096"},
    {"{\"d_model\": 2.5}", "d_model", "whole number"},
    {"{\"d_model\": \"4\"}", "d_model", "not a string"},
    {"{\"d_out\": 5000}", "d_out", "from 1 to 4096"},
    {"{\"num_heads\": 65}", "num_heads", "from 1 to 64"},
    {"{\"d_out\": 6, \"num_heads\": 4}", "num_heads", "d_out (6) must be divisible by num_heads (4)"},
    {"{\"causl\": true}", "causl", "unknown field \"causl\""},
    {"{\"dropout\": {\"rate\": 0.1}}", "dropout.rate", "unknown field \"rate\""},
    {"{\"causal\": \"yes\"}", "causal", "true or false"},
    {"{\"embedding\": {\"init\": \"xavier\"}}", "embedding.init", "\"torch_randn\""},
    {"{\"embedding\": {\"values\": [[1, 2, 3, 4]]}}", "embedding.values", "5 rows"},
    {"{\"tokens\": [\"a\", \"b\"], \"embedding\": {\"values\": [[1, 2, 3, 4], [1, 2, 3]]}}",
     "embedding.values[1]", "4 numbers (d_model)"},
    {"{\"tokens\": [\"a\"], \"embedding\": {\"values\": [[1, 2, \"x\", 4]]}}", "embedding.values[0][2]",
     "must be a number"},
    {"{\"tokens\": [\"a\"], \"embedding\": {\"values\": [[1e39, 2, 3, 4]]}}", "embedding.values[0][0]",
     "outside float32's range"},
    {"{\"embedding\": {\"seed\": 1, \"values\": []}}", "embedding", "either"},
    {"{\"embedding\": {\"seed\": 1.5}}", "embedding.seed", "whole number"},
    {"{\"weights\": {\"init\": \"xavier\"}}", "weights.init", "\"torch_linear\", \"torch_rand\""},
    {"{\"weights\": {\"layout\": \"split\"}}", "weights.layout", "\"fused\", \"per_head\""},
    {"{\"weights\": {\"init\": \"torch_rand\", \"W_q\": []}}", "weights.W_q", "either"},
    {"{\"d_model\": 1, \"d_out\": 1, \"weights\": {\"W_q\": [[1]], \"W_v\": [[1]]}}", "weights.W_k",
     "weights.W_k is missing"},
    {"{\"d_model\": 1, \"d_out\": 1, \"out_proj\": true, \"weights\": {\"W_q\": [[1]], \"W_k\": [[1]], "
     "\"W_v\": [[1]]}}",
     "weights.W_o", "missing"},
    {"{\"d_model\": 1, \"d_out\": 1, \"weights\": {\"W_q\": [[1, 2]], \"W_k\": [[1]], \"W_v\": [[1]]}}",
     "weights.W_q[0]", "1 numbers (d_out)"},
    {"{\"scale\": \"sqrt\"}", "scale", "\"head_dim\", \"d_out\", \"none\""},
    {"{\"temperature\": 0}", "temperature", "greater than 0"},
    {"{\"temperature\": -1}", "temperature", "greater than 0"},
    {"{\"key_padding\": [1, 1]}", "key_padding", "2 entries but there are 5 tokens"},
    {"{\"key_padding\": [1, 1, 2, 1, 1]}", "key_padding[2]", "1 (a real token) or 0 (padding)"},
    {"{\"mask_fill\": \"-1e9\"}", "mask_fill", "\"-inf\" or a number"},
    {"{\"mask_fill\": -1e40}", "mask_fill", "float32's range"},
    {"{\"dropout\": {\"p\": 1.5}}", "dropout.p", "from 0 to 1"},
    {"{\"dropout\": {\"p\": -0.1}}", "dropout.p", "from 0 to 1"},
    {"{\"dropout\": {\"training\": 1}}", "dropout.training", "true or false"},
    {"{\"dropout\": 0.1}", "dropout", "must be an object"},
    // issue 23's options
    {"{\"positional\": \"rotary\"}", "positional", "\"none\", \"sinusoidal\", \"rope\""},
    {"{\"positional\": \"rope\", \"d_out\": 6, \"num_heads\": 2}", "positional", "head_dim (d_out / num_heads) must be even, not 3"},
    {"{\"positional\": \"rope\", \"rope\": {\"base\": 0}}", "rope.base", "positive number"},
    {"{\"positional\": \"rope\", \"rope\": {\"base\": -10000}}", "rope.base", "positive number"},
    {"{\"rope\": {\"base\": 1e39}}", "rope.base", "float32's range"},
    {"{\"rope\": {\"base\": \"10000\"}}", "rope.base", "must be a number"},
    {"{\"rope\": {\"style\": \"neox\"}}", "rope.style", "\"half\", \"interleaved\""},
    {"{\"rope\": {\"theta\": 500000}}", "rope.theta", "unknown field \"theta\""},
    {"{\"rope\": 10000}", "rope", "must be an object"},
    {"{\"num_kv_heads\": 0}", "num_kv_heads", "from 1 to 64"},
    {"{\"num_kv_heads\": 1.5}", "num_kv_heads", "whole number"},
    {"{\"d_out\": 8, \"num_heads\": 4, \"num_kv_heads\": 3}", "num_kv_heads",
     "num_heads (4) must be divisible by num_kv_heads (3)"},
    {"{\"d_out\": 8, \"num_heads\": 4, \"num_kv_heads\": 2, \"weights\": {\"init\": \"torch_linear\", \"layout\": \"per_head\"}}",
     "num_kv_heads", "num_kv_heads must be num_heads (4), not 2"},
    {"{\"d_model\": 1, \"d_out\": 2, \"num_heads\": 2, \"num_kv_heads\": 1, \"weights\": {\"W_q\": [[1, 2]], \"W_k\": [[1, 2]], \"W_v\": [[1]]}}",
     "weights.W_k[0]", "1 numbers (num_kv_heads × head_dim)"},
    {"{\"alibi\": 1}", "alibi", "true or false"},
    {"{\"window\": 0}", "window", "whole number from 1"},
    {"{\"window\": -2}", "window", "whole number from 1"},
    {"{\"window\": 2.5}", "window", "whole number"},
    {"{\"window\": \"3\"}", "window", "whole number"},
    // issue 36's
    {"{\"sinks\": true}", "sinks", "must be an object"},
    {"{\"sinks\": {\"enabled\": 1}}", "sinks.enabled", "true or false"},
    {"{\"sinks\": {\"on\": true}}", "sinks.on", "unknown field \"on\""},
    {"{\"num_heads\": 2, \"sinks\": {\"values\": [1]}}", "sinks.values", "must have 2 numbers (num_heads), but it has 1"},
    {"{\"sinks\": {\"values\": 0.5}}", "sinks.values", "must be a list of numbers"},
    {"{\"sinks\": {\"values\": [\"0.5\"]}}", "sinks.values[0]", "must be a number"},
    {"{\"sinks\": {\"values\": [1e39]}}", "sinks.values[0]", "float32"},
    {"{\"kv_cache\": {\"policy\": \"sink\"}}", "kv_cache.policy", "\"full\", \"streaming_llm\""},
    {"{\"kv_cache\": {\"recent\": 0}}", "kv_cache.recent", "whole number from 1"},
    {"{\"kv_cache\": {\"sink_tokens\": -1}}", "kv_cache.sink_tokens", "whole number from 0"},
    {"{\"kv_cache\": {\"sink_tokens\": 1.5}}", "kv_cache.sink_tokens", "whole number"},
    {"{\"kv_cache\": {\"window\": 4}}", "kv_cache.window", "unknown field \"window\""},
    {"{\"kv_cache\": \"streaming_llm\"}", "kv_cache", "must be an object"},
};

INSTANTIATE_TEST_SUITE_P(State, BadInput, ::testing::ValuesIn(kBadCases));

TEST(State, LimitsOnTokens) {
  std::string many = "{\"tokens\": [";
  for (int i = 0; i < attnviz::Limits::kMaxTokens + 1; ++i) many += std::string(i ? "," : "") + "\"t\"";
  many += "]}";
  State s;
  Status st = attnviz::parse_state_text(many, &s);
  EXPECT_EQ(st.field, "tokens");
  EXPECT_NE(st.error.find("the limit is 32768 tokens"), std::string::npos) << st.error;

  const std::string long_token(257, 'x');
  st = attnviz::parse_state_text("{\"tokens\": [\"ok\", \"" + long_token + "\"]}", &s);
  EXPECT_EQ(st.field, "tokens[1]");
  EXPECT_NE(st.error.find("at most 256 bytes"), std::string::npos) << st.error;
  EXPECT_TRUE(attnviz::parse_state_text("{\"tokens\": [\"" + std::string(256, 'x') + "\"]}", &s).ok);

  // A State built in code is validated too: invalid UTF-8 in a token
  State bad;
  bad.tokens[2] = std::string("\xE4\xBD", 2);  // a cut-off character
  st = attnviz::validate_state(bad);
  EXPECT_EQ(st.field, "tokens[2]");
}

TEST(State, MemoryLimitRefusesBeforeAllocating) {
  // 2048 tokens × 64 heads would need ~5 GiB of S×S stages.
  State s;
  s.tokens.assign(2048, "t");
  s.d_out = 64;
  s.num_heads = 64;
  Status st = attnviz::validate_state(s);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.field, "tokens");
  EXPECT_NE(st.error.find("GiB"), std::string::npos) << st.error;
  // The largest sizes are fine on their own.
  s.num_heads = 1;
  s.d_model = 4096;
  s.d_out = 4096;
  st = attnviz::validate_state(s);
  EXPECT_TRUE(st.ok) << st.error;
  EXPECT_LE(attnviz::estimate_pipeline_bytes(s), attnviz::Limits::kMaxPipelineBytes);
}

TEST(State, ValidateCatchesProgrammaticShapeErrors) {
  State s;
  s.embedding.init = attnviz::EmbeddingInit::values;
  s.embedding.values.reset(5, 3);
  Status st = attnviz::validate_state(s);
  EXPECT_EQ(st.field, "embedding.values");
  EXPECT_NE(st.error.find("5 × 4"), std::string::npos) << st.error;
  s.embedding.values.reset(5, 4, NAN);
  EXPECT_EQ(attnviz::validate_state(s).field, "embedding.values");
}

TEST(State, RunStateJsonReturnsTheReport) {
  json report;
  const Status st = attnviz::run_state_json(json::parse(R"({"causal": true})"), &report);
  ASSERT_TRUE(st.ok) << st.error;
  EXPECT_EQ(report["heads"].size(), 1u);
  EXPECT_EQ(report["heads"][0]["masked"][0][1], "-inf");
  EXPECT_EQ(report.count("W_o"), 0u);
  EXPECT_EQ(report.count("b_q"), 0u);
}

}  // namespace
