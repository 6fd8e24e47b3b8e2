// test_captured_layers.cpp: states of captured layers (State::layers, docs/engine.md
// "Captured layers"): L attention layers of a learner's own model, each with its
// hooked input and its weights. Round trips (JSON, .safetensors, copies), every
// refusal with its field, LayerStack's layers against one-layer states bit for bit,
// incremental edits against fresh runs, token edits across layers, head scores, the
// report, the PyTorch export, and PyTorch's own nn.MultiheadAttention layers
// (tests/fixtures/captured_layers.py).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnviz/materialize.h"
#include "attnviz/model.h"
#include "attnviz/pipeline.h"
#include "attnviz/report.h"
#include "attnviz/state_file.h"
#include "attnviz/state_json.h"
#include "attnviz/torch_script.h"

namespace {

using attnviz::CapturedLayer;
using attnviz::LayerStack;
using attnviz::Pipeline;
using attnviz::Stage;
using attnviz::State;
using attnviz::Status;
using attnviz::Tensor;
using nlohmann::json;

// Random float32s, with a few awkward bit patterns (−0, a subnormal, the largest
// float, tiny and huge magnitudes) so that round trips are tested on every kind.
Tensor random_matrix(int rows, int cols, std::mt19937* g) {
  static const float kOdd[] = {-0.0f, 1e-40f, 3.4028235e38f, -1.17549435e-38f, 1e-30f, 123456.789f};
  std::normal_distribution<float> n(0.0f, 1.0f);
  Tensor t(rows, cols);
  for (size_t e = 0; e < t.data.size(); ++e) t.data[e] = (*g)() % 41 == 0 ? kOdd[(*g)() % 6] : n(*g);
  return t;
}

// Small values only: what a forward pass can run without overflowing (the odd
// patterns above would make infinities in Q·Kᵀ).
Tensor tame_matrix(int rows, int cols, std::mt19937* g) {
  std::normal_distribution<float> n(0.0f, 0.5f);
  Tensor t(rows, cols);
  for (float& v : t.data) v = n(*g);
  return t;
}

struct Shape {
  int layers = 3, tokens = 5, d_model = 8, d_out = 8, heads = 2, kv_heads = 0;
  bool qkv_bias = true, out_proj = true, out_bias = true, odd_values = false;
};

State captured(const Shape& sh, unsigned seed = 7) {
  std::mt19937 g(seed);
  auto m = [&](int r, int c) { return sh.odd_values ? random_matrix(r, c, &g) : tame_matrix(r, c, &g); };
  State s;
  s.tokens.clear();
  for (int i = 0; i < sh.tokens; ++i) s.tokens.push_back("w" + std::to_string(i % 3));
  s.d_model = sh.d_model;
  s.d_out = sh.d_out;
  s.num_heads = sh.heads;
  s.num_kv_heads = sh.kv_heads;
  s.qkv_bias = sh.qkv_bias;
  s.out_proj = sh.out_proj;
  s.out_bias = sh.out_bias;
  const int kv = s.kv_dim();
  for (int l = 0; l < sh.layers; ++l) {
    CapturedLayer c;
    c.name = "transformer.h." + std::to_string(l) + ".attn";
    c.embedding.init = attnviz::EmbeddingInit::values;
    c.embedding.values = m(sh.tokens, sh.d_model);
    c.weights.init = attnviz::WeightInit::values;
    c.weights.W_q = m(sh.d_model, sh.d_out);
    c.weights.W_k = m(sh.d_model, kv);
    c.weights.W_v = m(sh.d_model, kv);
    if (sh.out_proj) c.weights.W_o = m(sh.d_out, sh.d_out);
    if (sh.qkv_bias) {
      c.weights.b_q = m(1, sh.d_out);
      c.weights.b_k = m(1, kv);
      c.weights.b_v = m(1, kv);
    }
    if (sh.out_proj && sh.out_bias) c.weights.b_o = m(1, sh.d_out);
    s.layers.push_back(std::move(c));
  }
  return s;
}

// Every matrix of two states' layers, bit for bit (names too).
void expect_same_layers(const State& a, const State& b) {
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (size_t l = 0; l < a.layers.size(); ++l) {
    const CapturedLayer& x = a.layers[l];
    const CapturedLayer& y = b.layers[l];
    EXPECT_EQ(x.name, y.name);
    EXPECT_TRUE(attnviz::tensors_bitwise_equal(x.embedding.values.get(), y.embedding.values.get())) << l;
    const attnviz::SharedTensor attnviz::WeightSpec::*ms[] = {
        &attnviz::WeightSpec::W_q, &attnviz::WeightSpec::W_k, &attnviz::WeightSpec::W_v, &attnviz::WeightSpec::W_o,
        &attnviz::WeightSpec::b_q, &attnviz::WeightSpec::b_k, &attnviz::WeightSpec::b_v, &attnviz::WeightSpec::b_o};
    for (auto mp : ms) EXPECT_TRUE(attnviz::tensors_bitwise_equal((x.weights.*mp).get(), (y.weights.*mp).get())) << l;
  }
}

Status parse(const json& j, State* s) { return attnviz::parse_state(j, s); }

// [SECTION] Round trips -------------------------------------------------------------

TEST(CapturedLayers, JsonRoundTripsBitForBit) {
  for (bool bias : {false, true})
    for (bool proj : {false, true})
      for (int kv : {0, 1}) {
        Shape sh;
        sh.qkv_bias = bias;
        sh.out_proj = proj;
        sh.kv_heads = kv;
        sh.odd_values = true;
        const State s = captured(sh);
        ASSERT_TRUE(attnviz::validate_state(s).ok) << attnviz::validate_state(s).error;
        const json j = attnviz::state_to_json(s);
        EXPECT_FALSE(j.contains("embedding"));
        EXPECT_FALSE(j.contains("weights"));
        ASSERT_EQ(j.at("layers").size(), 3u);
        EXPECT_EQ(j["layers"][1]["name"], "transformer.h.1.attn");
        State back;
        const Status st = parse(j, &back);
        ASSERT_TRUE(st.ok) << st.error;
        EXPECT_TRUE(back == s);
        expect_same_layers(back, s);
        EXPECT_EQ(attnviz::state_to_json(back).dump(), j.dump());
        State text_back;
        ASSERT_TRUE(attnviz::parse_state_text(j.dump(), &text_back).ok);
        EXPECT_TRUE(text_back == s);
      }
}

TEST(CapturedLayers, SafetensorsRoundTripsBitForBitWithLayerTensorNames) {
  Shape sh;
  sh.odd_values = true;
  const State s = captured(sh);
  const std::string file = attnviz::state_to_safetensors(s);
  // The header names each layer's tensors "layers.<l>.<group>.<key>".
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(file[static_cast<size_t>(i)]);
  const json header = json::parse(file.substr(8, n));
  for (const char* name : {"layers.0.embedding.values", "layers.2.weights.W_q", "layers.1.weights.b_k",
                           "layers.2.weights.W_o", "layers.0.weights.b_o"})
    EXPECT_TRUE(header.contains(name)) << name;
  EXPECT_FALSE(header.contains("embedding.values"));
  EXPECT_EQ(header["layers.1.weights.W_k"]["shape"], json::array({8, 8}));
  EXPECT_EQ(header["layers.1.weights.b_k"]["shape"], json::array({8}));
  const json meta = json::parse(header["__metadata__"]["attnviz_state"].get<std::string>());
  EXPECT_EQ(meta["layers"][2]["weights"]["W_v"], "layers.2.weights.W_v");
  EXPECT_EQ(meta["layers"][0]["embedding"]["values"], "layers.0.embedding.values");
  EXPECT_EQ(attnviz::state_explicit_values(s), uint64_t{3} * (5 * 8 + 4 * 64 + 4 * 8));
  State back;
  const Status st = attnviz::state_from_safetensors(file, &back);
  ASSERT_TRUE(st.ok) << st.error;
  EXPECT_TRUE(back == s);
  expect_same_layers(back, s);
  EXPECT_EQ(attnviz::state_to_safetensors(back), file);
}

TEST(CapturedLayers, CopiesShareTheirMatricesUntilOneWrites) {
  const State a = captured(Shape{});
  State b = a;
  EXPECT_EQ(a.layers[1].weights.W_q.identity(), b.layers[1].weights.W_q.identity());
  EXPECT_TRUE(a == b);
  b.layers[1].weights.W_q.mut().at(0, 0) += 1.0f;
  EXPECT_NE(a.layers[1].weights.W_q.identity(), b.layers[1].weights.W_q.identity());
  EXPECT_EQ(a.layers[0].weights.W_q.identity(), b.layers[0].weights.W_q.identity());
  EXPECT_FALSE(a == b);
  EXPECT_NE(attnviz::state_to_json(a), attnviz::state_to_json(b));
  State c = a;
  c.layers[2].name = "other";
  EXPECT_FALSE(a == c);
  State d = a;
  d.layers.pop_back();
  EXPECT_FALSE(a == d);
  // The unused top-level embedding and weights do not count (they are not written).
  State e = a;
  e.embedding.seed = 5;
  e.weights.seed = 9;
  EXPECT_TRUE(a == e);
  EXPECT_EQ(attnviz::state_to_json(a), attnviz::state_to_json(e));
}

// [SECTION] Refusals ------------------------------------------------------------------

struct Refusal {
  const char* code;
  const char* field;
};

void expect_refused(const json& j, const Refusal& want) {
  State s;
  const Status st = parse(j, &s);
  EXPECT_FALSE(st.ok) << j.dump().substr(0, 200);
  EXPECT_EQ(st.code, want.code) << st.error;
  EXPECT_EQ(st.field, want.field) << st.error;
  EXPECT_FALSE(st.error.empty());
}

TEST(CapturedLayers, JsonRefusalsNameTheirField) {
  const json good = attnviz::state_to_json(captured(Shape{}));
  {
    State s;
    ASSERT_TRUE(parse(good, &s).ok);
  }
  auto with = [&](auto&& edit) {
    json j = good;
    edit(j);
    return j;
  };
  expect_refused(with([](json& j) { j["layers"][2]["weights"]["W_k"].erase(0); }), {"rows_count", "layers[2].weights.W_k"});
  expect_refused(with([](json& j) { j["layers"][1]["weights"]["W_q"][3].push_back(1.0); }),
                 {"numbers_count", "layers[1].weights.W_q[3]"});
  expect_refused(with([](json& j) { j["layers"][0]["embedding"]["values"][1][2] = 1e39; }),
                 {"float32_range", "layers[0].embedding.values[1][2]"});
  expect_refused(with([](json& j) { j["layers"][1]["embedding"]["values"].push_back(j["layers"][1]["embedding"]["values"][0]); }),
                 {"rows_count", "layers[1].embedding.values"});
  expect_refused(with([](json& j) { j["layers"][1].erase("embedding"); }), {"layer_part_missing", "layers[1].embedding.values"});
  expect_refused(with([](json& j) { j["layers"][1]["embedding"].erase("values"); }),
                 {"layer_part_missing", "layers[1].embedding.values"});
  expect_refused(with([](json& j) { j["layers"][2].erase("weights"); }), {"layer_part_missing", "layers[2].weights"});
  expect_refused(with([](json& j) { j["layers"][2]["weights"].erase("b_v"); }), {"weight_missing", "layers[2].weights.b_v"});
  expect_refused(with([](json& j) { j["layers"][0]["weights"]["init"] = "torch_rand"; }),
                 {"unknown_field", "layers[0].weights.init"});
  expect_refused(with([](json& j) { j["layers"][0]["embedding"]["seed"] = 1; }), {"unknown_field", "layers[0].embedding.seed"});
  expect_refused(with([](json& j) { j["layers"][0]["colour"] = 1; }), {"unknown_field", "layers[0].colour"});
  expect_refused(with([](json& j) { j["layers"][1]["name"] = 3; }), {"token_not_string", "layers[1].name"});
  expect_refused(with([](json& j) { j["layers"][1]["name"] = std::string(300, 'x'); }),
                 {"layer_name_too_long", "layers[1].name"});
  expect_refused(with([](json& j) { j["layers"][1] = 5; }), {"must_be_object", "layers[1]"});
  expect_refused(with([](json& j) { j["layers"] = json::array(); }), {"layers_count", "layers"});
  expect_refused(with([](json& j) { j["layers"] = "all"; }), {"layers_not_list", "layers"});
  expect_refused(with([](json& j) {
                   json many = json::array();
                   for (int l = 0; l < attnviz::Limits::kMaxLayers + 1; ++l) many.push_back(j["layers"][0]);
                   j["layers"] = many;
                 }),
                 {"layers_count", "layers"});
  expect_refused(with([](json& j) { j["embedding"] = {{"init", "torch_randn"}, {"seed", 1}}; }),
                 {"layers_and_top_level", "embedding"});
  expect_refused(with([](json& j) { j["weights"] = {{"init", "torch_rand"}}; }), {"layers_and_top_level", "weights"});
  expect_refused(with([](json& j) {
                   j["model"] = {{"name", "induction-2l"}};
                   j.erase("d_model");
                   j.erase("d_out");
                   j.erase("num_heads");
                   j.erase("tokens");
                 }),
                 {"layers_with_model", "layers"});
  // The memory of every layer together: 64 layers of 2048 tokens, 16 heads.
  {
    json j = {{"tokens", json::array()}, {"num_heads", 16}, {"d_model", 16}, {"d_out", 16}, {"layers", json::array()}};
    for (int i = 0; i < 2048; ++i) j["tokens"].push_back("t");
    for (int l = 0; l < 64; ++l) j["layers"].push_back(json::object());
    expect_refused(j, {"layers_too_much_memory", "layers"});
  }
}

TEST(CapturedLayers, ValidationRefusesWhatCodeBuilds) {
  const State good = captured(Shape{});
  auto refused = [](const State& s, const char* code, const char* field) {
    const Status st = attnviz::validate_state(s);
    EXPECT_FALSE(st.ok);
    EXPECT_EQ(st.code, code) << st.error;
    EXPECT_EQ(st.field, field) << st.error;
    return st.error;
  };
  State s = good;
  s.layers[2].weights.W_k = Tensor(16, 8);
  EXPECT_EQ(refused(s, "matrix_shape", "layers[2].weights.W_k"),
            "layers[2].weights.W_k must be 8 × 8 (d_model × d_out), but it is 16 × 8");
  s = good;
  s.layers[1].embedding.values.mut().at(2, 3) = NAN;
  EXPECT_EQ(refused(s, "finite_only", "layers[1].embedding.values"),
            "layers[1].embedding.values must contain finite numbers only");
  s = good;
  s.layers[0].weights.b_o.mut().at(0, 1) = INFINITY;
  refused(s, "finite_only", "layers[0].weights.b_o");
  s = good;
  s.layers[1].embedding = attnviz::EmbeddingSpec{};
  refused(s, "layer_part_missing", "layers[1].embedding.values");
  s = good;
  s.layers[1].weights = attnviz::WeightSpec{};
  refused(s, "layer_part_missing", "layers[1].weights");
  s = good;
  s.layers[0].name = "\xff";
  refused(s, "token_not_utf8", "layers[0].name");
  s = good;
  s.tokens.push_back("more");  // every layer's input has one row too few
  refused(s, "matrix_shape", "layers[0].embedding.values");
  s = good;
  s.model.name = "induction-2l";
  s.model.model = attnviz::find_model("induction-2l");
  refused(s, "layers_with_model", "layers");
  s = good;
  s.layers.resize(attnviz::Limits::kMaxLayers + 1, good.layers[0]);
  refused(s, "layers_count", "layers");
  // A Pipeline runs one layer: a state of layers is the LayerStack's.
  Pipeline p;
  EXPECT_FALSE(p.set_state(good).ok);
}

// [SECTION] Running it -----------------------------------------------------------------

// Every stage of every head of two pipelines, bit for bit.
void expect_same_pipeline(const Pipeline& a, const Pipeline& b) {
  ASSERT_EQ(a.num_heads(), b.num_heads());
  for (int i = 0; i < attnviz::kStageCount; ++i) {
    const Stage st = attnviz::stage_table()[i].stage;
    const int heads = attnviz::stage_is_per_head(st) ? a.num_heads() : 1;
    for (int h = 0; h < heads; ++h) {
      const Tensor* x = a.matrix(st, h);
      const Tensor* y = b.matrix(st, h);
      ASSERT_EQ(x == nullptr, y == nullptr) << attnviz::stage_name(st);
      if (x) {
        EXPECT_TRUE(attnviz::tensors_bitwise_equal(*x, *y)) << attnviz::stage_name(st) << " head " << h;
      }
    }
  }
}

TEST(CapturedLayers, EachLayerIsItsOneLayerStateBitForBit) {
  Shape sh;
  sh.kv_heads = 1;
  State s = captured(sh);
  s.causal = true;
  s.positional = attnviz::Positional::rope;
  LayerStack stack;
  ASSERT_TRUE(stack.set_state(s).ok);
  EXPECT_TRUE(stack.is_captured());
  EXPECT_FALSE(stack.is_model());
  ASSERT_EQ(stack.num_layers(), 3);
  EXPECT_TRUE(stack.state() == s);
  for (int l = 0; l < 3; ++l) {
    EXPECT_EQ(stack.layer_name(l), "transformer.h." + std::to_string(l) + ".attn");
    // The one-layer state written out by hand in JSON: the options, layer l's input and weights.
    json one = attnviz::state_to_json(s);
    one.erase("layers");
    const json lj = attnviz::state_to_json(s)["layers"][static_cast<size_t>(l)];
    one["embedding"] = lj["embedding"];
    one["weights"] = lj["weights"];
    State single;
    ASSERT_TRUE(parse(one, &single).ok);
    EXPECT_TRUE(single == attnviz::captured_layer_state(s, l));
    Pipeline p;
    ASSERT_TRUE(p.set_state(single).ok);
    expect_same_pipeline(stack.layer(l), p);
  }
  // What a model has and captured layers do not.
  EXPECT_EQ(stack.residual(0), nullptr);
  EXPECT_EQ(stack.logits(), nullptr);
  EXPECT_EQ(stack.model(), nullptr);
  EXPECT_EQ(stack.token_embedding(), nullptr);
  EXPECT_EQ(stack.layer_name(3), "");
}

void expect_same_as_fresh(const LayerStack& a) {
  LayerStack fresh;
  ASSERT_TRUE(fresh.set_state(a.state()).ok);
  EXPECT_EQ(attnviz::report_text(a), attnviz::report_text(fresh));
  for (int l = 0; l < a.num_layers(); ++l) expect_same_pipeline(a.layer(l), fresh.layer(l));
}

TEST(CapturedLayers, EditsRecomputeOnlyWhatChangedWithTheBitsOfAFreshRun) {
  for (bool lazy : {false, true}) {
    SCOPED_TRACE(lazy ? "lazy" : "eager");
    State s = captured(Shape{});
    LayerStack stack;
    if (lazy) stack.track_demand();
    ASSERT_TRUE(stack.set_state(s).ok);
    // One cell of layer 1's input: layer 1 recomputes that row of Q; layers 0 and 2 nothing.
    const uint64_t v0 = stack.layer(0).version(Stage::Q), v2 = stack.layer(2).version(Stage::output);
    s.layers[1].embedding.values.mut().at(3, 2) += 0.25f;
    ASSERT_TRUE(stack.set_state(s).ok);
    if (lazy) stack.track_demand();
    EXPECT_EQ(stack.layer(1).last_update(Stage::Q).rows, 1);
    EXPECT_EQ(stack.layer(0).version(Stage::Q), v0);
    EXPECT_EQ(stack.layer(2).version(Stage::output), v2);
    expect_same_as_fresh(stack);
    std::vector<State> edits;
    State e = s;
    e.layers[2].weights.W_v.mut().at(1, 1) = -3.0f;
    edits.push_back(e);
    e.causal = true;
    edits.push_back(e);
    e.num_heads = 4;
    edits.push_back(e);
    e = attnviz::retokenize(e, {"w0", "w2", "new", "w1"}, {0, 2, -1, 4});
    edits.push_back(e);
    e.layers.pop_back();
    edits.push_back(e);
    e.layers.push_back(e.layers[0]);
    e.layers.push_back(e.layers[1]);
    edits.push_back(e);
    edits.push_back(attnviz::captured_layer_state(e, 1));  // back to one layer
    edits.push_back(e);
    for (const State& x : edits) {
      ASSERT_TRUE(stack.set_state(x).ok);
      if (lazy) stack.track_demand();
      EXPECT_EQ(stack.num_layers(), x.captured() ? static_cast<int>(x.layers.size()) : 1);
      expect_same_as_fresh(stack);
    }
  }
}

TEST(CapturedLayers, AStackMovesBetweenAModelCapturedLayersAndOneLayer) {
  LayerStack stack;
  const State c = captured(Shape{});
  json mj = {{"model", {{"name", "induction-2l"}}}};
  State model;
  ASSERT_TRUE(parse(mj, &model).ok);
  const std::vector<const State*> order = {&c, &model, &c, nullptr, &c};  // nullptr: the default one layer
  for (const State* s : order) {
    const State one;  // the default one-layer state
    ASSERT_TRUE(stack.set_state(s ? *s : one).ok);
    EXPECT_EQ(stack.is_captured(), s == &c);
    EXPECT_EQ(stack.is_model(), s == &model);
    expect_same_as_fresh(stack);
  }
}

// [SECTION] Tokens ---------------------------------------------------------------------

TEST(CapturedLayers, RetokenizeKeepsEveryLayersRowsWithTheirTokens) {
  const State s = captured(Shape{});  // tokens w0 w1 w2 w0 w1
  // Move w2 first, delete token 1, repeat w0 as a new token, add a new text.
  const State r = attnviz::retokenize(s, {"w2", "w0", "w0", "zz", "w1"}, {2, 0, -1, -1, 4});
  ASSERT_TRUE(attnviz::validate_state(r).ok) << attnviz::validate_state(r).error;
  ASSERT_EQ(r.layers.size(), 3u);
  State seeded = r;  // the row embedding seed 123 draws for "zz" among the new tokens
  seeded.layers.clear();
  seeded.embedding = attnviz::EmbeddingSpec{};
  seeded.d_model = 8;
  const Tensor drawn = attnviz::materialize_embedding(seeded).embedding.values.get();
  for (size_t l = 0; l < 3; ++l) {
    const Tensor& old = s.layers[l].embedding.values.get();
    const Tensor& now = r.layers[l].embedding.values.get();
    ASSERT_EQ(now.rows, 5);
    auto same_row = [&](const Tensor& a, int i, const Tensor& b, int k) {
      return std::memcmp(a.row(i), b.row(k), sizeof(float) * 8) == 0;
    };
    EXPECT_TRUE(same_row(now, 0, old, 2)) << l;  // moved
    EXPECT_TRUE(same_row(now, 1, old, 0)) << l;  // kept
    EXPECT_TRUE(same_row(now, 2, old, 0)) << l;  // a new w0: the row of the kept w0, in this layer
    EXPECT_TRUE(same_row(now, 3, drawn, 3)) << l;  // a new text: the seeded row
    EXPECT_TRUE(same_row(now, 4, old, 4)) << l;
    // The weights are untouched (shared).
    EXPECT_EQ(r.layers[l].weights.W_q.identity(), s.layers[l].weights.W_q.identity());
  }
  // Fewer tokens: every layer loses the same rows.
  const State fewer = attnviz::retokenize(s, {"w1"}, {1});
  for (const CapturedLayer& c : fewer.layers) EXPECT_EQ(c.embedding.values->rows, 1);
  EXPECT_TRUE(attnviz::validate_state(fewer).ok);
}

// [SECTION] Readouts -------------------------------------------------------------------

TEST(CapturedLayers, HeadScoresReportAndScriptAreEachLayers) {
  const State s = captured(Shape{});
  LayerStack stack;
  ASSERT_TRUE(stack.set_state(s).ok);
  const attnviz::LayerScores sc = attnviz::head_scores(stack);
  ASSERT_EQ(sc.size(), 3u);
  for (int l = 0; l < 3; ++l) {
    ASSERT_EQ(sc[static_cast<size_t>(l)].size(), 2u);
    for (int h = 0; h < 2; ++h) {
      const attnviz::HeadScores want = attnviz::score_head(*stack.layer(l).matrix(Stage::weights, h), s.tokens);
      EXPECT_EQ(sc[static_cast<size_t>(l)][static_cast<size_t>(h)].duplicate_token, want.duplicate_token);
      EXPECT_EQ(sc[static_cast<size_t>(l)][static_cast<size_t>(h)].previous_token, want.previous_token);
    }
  }
  const json hs = json::parse(attnviz::head_scores_report(stack));
  EXPECT_EQ(hs["layers"].size(), 3u);
  EXPECT_EQ(hs["names"][2], "transformer.h.2.attn");
  EXPECT_FALSE(hs.contains("probe"));
  // The report: each layer's own, with its name first.
  const json rep = json::parse(attnviz::report_text(stack));
  ASSERT_EQ(rep["layers"].size(), 3u);
  for (int l = 0; l < 3; ++l) {
    json layer = rep["layers"][static_cast<size_t>(l)];
    EXPECT_EQ(layer["name"], stack.layer_name(l));
    layer.erase("name");
    EXPECT_EQ(layer, attnviz::report_json(stack.layer(l)));
  }
  json via_json;
  ASSERT_TRUE(attnviz::run_state_json(attnviz::state_to_json(s), &via_json).ok);
  EXPECT_EQ(via_json, rep);
  // The PyTorch script: layer 1's attention alone, and a comment that says so.
  attnviz::TorchScriptOptions o;
  o.layer = 1;
  const std::string script = attnviz::torch_script(s, o);
  EXPECT_NE(script.find("3 attention layers captured"), std::string::npos);
  EXPECT_NE(script.find("layer 1 (transformer.h.1.attn)"), std::string::npos);
  const std::string alone = attnviz::torch_script(attnviz::captured_layer_state(s, 1));
  std::string without_comment = script;
  const size_t a = without_comment.find("# This state holds");
  const size_t b = without_comment.find("import json");
  ASSERT_TRUE(a != std::string::npos && b != std::string::npos && a < b);
  without_comment.erase(a, b - a);
  EXPECT_EQ(without_comment, alone);
  o.language = "zh-CN";
  EXPECT_NE(attnviz::torch_script(s, o).find("捕获"), std::string::npos);
}

// [SECTION] Against PyTorch ---------------------------------------------------------------

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Largest |engine − torch| over a matrix (the fixture's decimals give back its float32s).
double gap(const Tensor& t, const json& rows) {
  double g = 0;
  EXPECT_EQ(static_cast<size_t>(t.rows), rows.size());
  for (int i = 0; i < t.rows && i < static_cast<int>(rows.size()); ++i) {
    EXPECT_EQ(static_cast<size_t>(t.cols), rows[static_cast<size_t>(i)].size());
    for (int j = 0; j < t.cols && j < static_cast<int>(rows[static_cast<size_t>(i)].size()); ++j) {
      const double want = static_cast<float>(rows[static_cast<size_t>(i)][static_cast<size_t>(j)].get<double>());
      g = std::max(g, std::fabs(t.at(i, j) - want) / (1.0 + std::fabs(want)));
    }
  }
  return g;
}

// nn.MultiheadAttention layers of a toy model with a LayerNorm and an MLP between
// them, each captured with a forward pre-hook: attnviz computes each layer's
// per-head weights and output from the captured input and weights as the module did.
// Bound 1e-5·(1 + |value|): PyTorch divides q by √head_dim before q·kᵀ and its sgemm
// fuses multiply-adds, a few float32 roundings apart over 8-term sums (as
// test_weights_files.cpp); a wrong layer, third or transposition is off by 0.1 or more.
TEST(CapturedLayers, MatchPyTorchsOwnLayers) {
  const std::string dir = "tests/fixtures/data/captured/";
  const json index = json::parse(read_file(dir + "index.json"));
  ASSERT_GE(index.at("cases").size(), 2u);
  for (const json& entry : index.at("cases")) {
    const json c = json::parse(read_file(dir + entry.at("file").get<std::string>()));
    SCOPED_TRACE(c.at("name").get<std::string>());
    State s;
    const Status st = parse(c.at("state"), &s);
    ASSERT_TRUE(st.ok) << st.error;
    LayerStack stack;
    ASSERT_TRUE(stack.set_state(s).ok);
    const json& layers = c.at("expected").at("layers");
    ASSERT_EQ(static_cast<size_t>(stack.num_layers()), layers.size());
    for (int l = 0; l < stack.num_layers(); ++l) {
      EXPECT_EQ(stack.layer_name(l), "blocks." + std::to_string(l) + ".attn");
      const json& lj = layers[static_cast<size_t>(l)];
      for (int h = 0; h < s.num_heads; ++h)
        EXPECT_LE(gap(*stack.layer(l).matrix(Stage::weights, h), lj.at("weights")[static_cast<size_t>(h)]), 1e-5)
            << "layer " << l << " head " << h;
      const double g = gap(*stack.layer(l).matrix(Stage::output), lj.at("output"));
      EXPECT_LE(g, 1e-5) << "layer " << l;
      EXPECT_GT(gap(*stack.layer(1 - l).matrix(Stage::output), lj.at("output")), 0.01) << "the other layer is far off";
      if (std::getenv("ATTNVIZ_PRINT_GAPS")) std::printf("layer %d output: %.3g\n", l, g);
    }
    // The same through a .safetensors state file.
    State back;
    ASSERT_TRUE(attnviz::state_from_safetensors(attnviz::state_to_safetensors(s), &back).ok);
    EXPECT_TRUE(back == s);
  }
}

}  // namespace
