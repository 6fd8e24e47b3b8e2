// Trained models (attnviz/model.h): the built-in induction-2l against PyTorch
// (tests/fixtures/data/model, made by tests/fixtures/model_fixtures.py from the
// training script's own module), head scores against the model card, edits
// recomputing layer after layer with the bits of a fresh run, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnviz/model.h"
#include "attnviz/report.h"
#include "attnviz/state_json.h"
#include "attnviz/torch_rng.h"

namespace {

using attnviz::LayerStack;
using attnviz::Stage;
using attnviz::State;
using attnviz::Tensor;
using nlohmann::json;

const char* kModel = "induction-2l";
const std::string kFixtures = "tests/fixtures/data/model/";

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

State model_state(const std::vector<std::string>& tokens, int step = -1) {
  json j = {{"model", {{"name", kModel}}}, {"tokens", tokens}};
  if (step >= 0) j["model"]["step"] = step;
  State s;
  const attnviz::Status st = attnviz::parse_state(j, &s);
  EXPECT_TRUE(st.ok) << st.error;
  return s;
}

double num(const json& v) {
  if (v.is_string()) {
    const std::string t = v.get<std::string>();
    return t == "-inf" ? -INFINITY : t == "inf" ? INFINITY : NAN;
  }
  return v.get<double>();
}

// Largest |engine − torch| over a matrix, and the largest |torch| (for the bound).
struct Gap {
  double diff = 0, scale = 0;
};
Gap gap(const Tensor& t, const json& rows) {
  Gap g;
  EXPECT_EQ(static_cast<size_t>(t.rows), rows.size());
  for (int i = 0; i < t.rows && i < static_cast<int>(rows.size()); ++i) {
    EXPECT_EQ(static_cast<size_t>(t.cols), rows[static_cast<size_t>(i)].size());
    for (int j = 0; j < t.cols && j < static_cast<int>(rows[static_cast<size_t>(i)].size()); ++j) {
      // The fixture's decimals are the shortest that give back the float32: compare as float32.
      const double want = static_cast<float>(num(rows[static_cast<size_t>(i)][static_cast<size_t>(j)]));
      g.diff = std::max(g.diff, std::fabs(t.at(i, j) - want));
      g.scale = std::max(g.scale, std::fabs(want));
    }
  }
  return g;
}

std::vector<json> fixture_cases() {
  const json index = json::parse(read_file(kFixtures + "index.json"));
  std::vector<json> out;
  for (const json& c : index.at("cases")) out.push_back(json::parse(read_file(kFixtures + c.at("file").get<std::string>())));
  return out;
}

TEST(Model, BuiltInModelLoadsWithItsCard) {
  const attnviz::SharedModel m = attnviz::find_model(kModel);
  ASSERT_TRUE(m) << "every built-in model must load";
  EXPECT_EQ(m->vocab_size(), 65);
  EXPECT_EQ(m->d_model, 64);
  EXPECT_EQ(m->num_heads, 4);
  EXPECT_EQ(m->num_layers, 2);
  EXPECT_EQ(m->start_token, "<s>");
  EXPECT_GE(m->checkpoints.size(), 2u);
  EXPECT_EQ(m->checkpoints.front().step, 0);
  EXPECT_EQ(m->probe.size(), static_cast<size_t>(1 + 2 * m->probe_repeat));
  EXPECT_FALSE(attnviz::find_model("no-such-model"));
}

// The model against the training script's own module, layer by layer.
// Tolerances: torch and the engine both compute in float32 but sum the dot
// products (64 terms) in different orders (OpenBLAS's kernels, the engine's
// own). One product carries at most γ(64)·Σ|terms| ≈ 4e-6·Σ|terms|; through two
// layers, where each layer's input carries the last one's error, and the
// softmax (whose output moves by at most w·(e^{2δ} − 1) for input errors δ),
// the errors stay within 2e-5 of each matrix's largest entry; a wrong index,
// scale, mask or weight moves entries by O(|value|). The embeddings are one
// float32 add on both sides: exact.
TEST(Model, LayersMatchPyTorch) {
  const std::vector<json> cases = fixture_cases();
  ASSERT_GE(cases.size(), 5u);
  for (const json& c : cases) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    LayerStack stack;
    ASSERT_TRUE(stack.set_state(model_state(c.at("tokens").get<std::vector<std::string>>(), c.at("step"))).ok);
    ASSERT_EQ(stack.num_layers(), 2);
    EXPECT_EQ(gap(*stack.residual(0), c.at("residual")[0]).diff, 0.0) << "embeddings are exact";
    auto check = [](const char* what, Gap g) {
      EXPECT_LE(g.diff, 2e-5 * std::max(1.0, g.scale)) << what << ": largest entry " << g.scale;
      if (std::getenv("ATTNVIZ_PRINT_GAPS")) std::printf("%s: %.3g of %.3g\n", what, g.diff, g.scale);
    };
    for (int l = 0; l < 2; ++l) {
      const json& lj = c.at("layers")[static_cast<size_t>(l)];
      for (int h = 0; h < 4; ++h) {
        check("weights", gap(*stack.layer(l).matrix(Stage::weights, h), lj.at("weights")[static_cast<size_t>(h)]));
      }
      check("output", gap(*stack.layer(l).matrix(Stage::output), lj.at("output")));
      check("residual", gap(*stack.residual(l + 1), c.at("residual")[static_cast<size_t>(l + 1)]));
    }
    check("logits", gap(*stack.logits(), c.at("logits")));
    // Scores: sums of at most S weights, each within 2e-5.
    const attnviz::LayerScores sc = attnviz::head_scores(stack);
    for (int l = 0; l < 2; ++l) {
      for (int h = 0; h < 4; ++h) {
        const json& want = c.at("head_scores").at("layers")[static_cast<size_t>(l)].at("heads")[static_cast<size_t>(h)];
        const attnviz::HeadScores& got = sc[static_cast<size_t>(l)][static_cast<size_t>(h)];
        EXPECT_NEAR(got.previous_token, want.at("previous_token").get<double>(), 1e-4) << l << "." << h;
        EXPECT_NEAR(got.induction, want.at("induction").get<double>(), 1e-4) << l << "." << h;
        EXPECT_NEAR(got.first_token, want.at("first_token").get<double>(), 1e-4) << l << "." << h;
        EXPECT_NEAR(got.duplicate_token, want.at("duplicate_token").get<double>(), 1e-4) << l << "." << h;
      }
    }
  }
}

// The engine's scores on the probe, at every checkpoint, are the card's (the
// card rounds to 4 decimals: 5e-5, plus the weights' float32 differences).
TEST(Model, ProbeScoresAreTheCardsAtEveryCheckpoint) {
  const attnviz::SharedModel m = attnviz::find_model(kModel);
  ASSERT_TRUE(m);
  for (const attnviz::Checkpoint& k : m->checkpoints) {
    SCOPED_TRACE("step " + std::to_string(k.step));
    const attnviz::LayerScores got = attnviz::probe_head_scores(model_state(m->probe, k.step));
    ASSERT_EQ(got.size(), k.card_scores.size());
    for (size_t l = 0; l < got.size(); ++l) {
      for (size_t h = 0; h < got[l].size(); ++h) {
        EXPECT_NEAR(got[l][h].previous_token, k.card_scores[l][h].previous_token, 2e-4);
        EXPECT_NEAR(got[l][h].induction, k.card_scores[l][h].induction, 2e-4);
        EXPECT_NEAR(got[l][h].first_token, k.card_scores[l][h].first_token, 2e-4);
        EXPECT_NEAR(got[l][h].duplicate_token, k.card_scores[l][h].duplicate_token, 2e-4);
      }
    }
  }
  // The bar: the shipped model has learned both jobs.
  const attnviz::LayerScores last = attnviz::probe_head_scores(model_state(m->probe));
  double prev0 = 0, ind1 = 0;
  for (const attnviz::HeadScores& h : last[0]) prev0 = std::max(prev0, h.previous_token);
  for (const attnviz::HeadScores& h : last[1]) ind1 = std::max(ind1, h.induction);
  EXPECT_GE(prev0, 0.4);
  EXPECT_GE(ind1, 0.4);
}

// Every buffer of a stack, bit for bit, against a fresh stack on the same state.
void expect_same_as_fresh(const LayerStack& a) {
  LayerStack fresh;
  ASSERT_TRUE(fresh.set_state(a.state()).ok);
  EXPECT_EQ(attnviz::report_text(a), attnviz::report_text(fresh));
}

TEST(Model, EditsRecomputeLayerAfterLayerWithTheBitsOfAFreshRun) {
  const attnviz::SharedModel m = attnviz::find_model(kModel);
  ASSERT_TRUE(m);
  LayerStack stack;
  State s = model_state(m->probe);
  ASSERT_TRUE(stack.set_state(s).ok);
  const int S = s.seq_len();
  // One token changed at position i: layer 0 recomputes Q for that row only;
  // the causal mask carries the change to rows i.. in layer 1.
  const int i = S - 10;
  s.tokens[static_cast<size_t>(i)] = s.tokens[static_cast<size_t>(i)] == "A" ? "B" : "A";
  ASSERT_TRUE(stack.set_state(s).ok);
  EXPECT_EQ(stack.layer(0).last_update(Stage::Q).rows, 1);
  EXPECT_LE(stack.layer(1).last_update(Stage::Q).rows, S - i);
  EXPECT_GE(stack.layer(1).last_update(Stage::Q).rows, 1);
  expect_same_as_fresh(stack);
  // Other edits: the checkpoint, options of every layer, fewer and more tokens.
  std::vector<State> edits;
  State e = s;
  e.model.checkpoint = 0;
  edits.push_back(e);
  e.model.checkpoint = static_cast<int>(m->checkpoints.size()) - 1;
  e.causal = false;
  edits.push_back(e);
  e.causal = true;
  e.temperature = 0.5;
  edits.push_back(e);
  e.tokens.resize(7);
  edits.push_back(e);
  e.tokens = attnviz::repeated_tokens(*m, 20, 7);
  edits.push_back(e);
  e.window = 3;
  edits.push_back(e);
  for (const State& x : edits) {
    ASSERT_TRUE(stack.set_state(x).ok);
    expect_same_as_fresh(stack);
  }
  // Lazy, as the app runs it: the same bits.
  LayerStack lazy;
  lazy.track_demand();
  for (const State& x : edits) {
    ASSERT_TRUE(lazy.set_state(x).ok);
    lazy.track_demand();
    expect_same_as_fresh(lazy);
  }
}

TEST(Model, AStackWithoutAModelIsItsOneLayer) {
  LayerStack stack;
  ASSERT_TRUE(stack.set_state(State{}).ok);
  EXPECT_FALSE(stack.is_model());
  EXPECT_EQ(stack.num_layers(), 1);
  EXPECT_EQ(stack.logits(), nullptr);
  attnviz::Pipeline p;
  ASSERT_TRUE(p.set_state(State{}).ok);
  EXPECT_EQ(attnviz::report_text(stack), attnviz::report_text(p));
  // From a model and back.
  const attnviz::SharedModel m = attnviz::find_model(kModel);
  ASSERT_TRUE(stack.set_state(attnviz::model_probe_state(m)).ok);
  EXPECT_EQ(stack.num_layers(), 2);
  ASSERT_TRUE(stack.set_state(State{}).ok);
  EXPECT_EQ(attnviz::report_text(stack), attnviz::report_text(p));
  // From a model to one of its layers' own states (explicit input and weights), lazily as the app runs.
  LayerStack lazy;
  lazy.track_demand();
  ASSERT_TRUE(lazy.set_state(attnviz::model_probe_state(m)).ok);
  lazy.track_demand();
  const State layer1 = lazy.layer(1).state();
  ASSERT_TRUE(lazy.set_state(layer1).ok);
  lazy.track_demand();
  EXPECT_EQ(lazy.num_layers(), 1);
  attnviz::Pipeline q;
  ASSERT_TRUE(q.set_state(layer1).ok);
  EXPECT_EQ(attnviz::report_text(lazy), attnviz::report_text(q));
}

TEST(Model, BadInputNamesTheFieldAndKeepsTheLastState) {
  const attnviz::SharedModel m = attnviz::find_model(kModel);
  ASSERT_TRUE(m);
  struct Case {
    json state;
    const char* field;
    const char* code;
  } cases[] = {
      {{{"model", {{"name", kModel}}}, {"tokens", {"<s>", "A", "dog"}}}, "tokens[2]", "model_token_unknown"},
      {{{"model", {{"name", "gpt-5"}}}}, "model.name", "model_unknown"},
      {{{"model", {{"name", kModel}, {"step", 12345}}}}, "model.step", "model_step_unknown"},
      {{{"model", {{"name", kModel}}}, {"d_model", 8}}, "d_model", "model_fixed_field"},
      {{{"model", {{"name", kModel}}}, {"num_heads", 2}}, "num_heads", "model_fixed_field"},
      {{{"model", {{"name", kModel}}}, {"positional", "rope"}}, "positional", "model_fixed_field"},
      {{{"model", {{"name", kModel}}}, {"embedding", {{"seed", 1}}}}, "embedding", "model_sets_it"},
      {{{"model", {{"name", kModel}, {"layer", 1}}}}, "model.layer", "unknown_field"},
      {{{"model", "induction-2l"}}, "model", "must_be_object"},
  };
  for (const Case& c : cases) {
    State s;
    const attnviz::Status st = attnviz::parse_state(c.state, &s);
    EXPECT_FALSE(st.ok) << c.state.dump();
    EXPECT_EQ(st.field, c.field) << st.error;
    EXPECT_EQ(st.code, c.code) << st.error;
  }
  // Too long for the context.
  json j = {{"model", {{"name", kModel}}}, {"tokens", std::vector<std::string>(static_cast<size_t>(m->context + 1), "A")}};
  State s;
  attnviz::Status st = attnviz::parse_state(j, &s);
  EXPECT_EQ(st.code, "model_too_long");
  EXPECT_EQ(st.field, "tokens");
  // A state built in code with a word outside the vocabulary: refused, the stack keeps its result.
  LayerStack stack;
  ASSERT_TRUE(stack.set_state(attnviz::model_probe_state(m)).ok);
  const std::string before = attnviz::report_text(stack);
  State bad = attnviz::model_probe_state(m);
  bad.tokens[3] = "zebra";
  st = stack.set_state(bad);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.field, "tokens[3]");
  EXPECT_EQ(attnviz::report_text(stack), before);
}

// What the app does when a paste or Repeat makes the input longer than the model
// reads: the stack is asked for it directly, without parse_state's check first. One
// token past the context is refused with the field, and the stack keeps its last
// state and every number; the context itself still runs.
TEST(Model, InputLongerThanTheContextIsRefusedAndTheStackKeepsItsState) {
  const attnviz::SharedModel m = attnviz::find_model(kModel);
  ASSERT_TRUE(m);
  LayerStack stack;
  const State probe = attnviz::model_probe_state(m);
  ASSERT_TRUE(stack.set_state(probe).ok);
  const std::string before = attnviz::report_text(stack);
  State longer = probe;
  while (longer.seq_len() <= m->context) longer.tokens.push_back(m->vocabulary[1]);
  const attnviz::Status st = stack.set_state(longer);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.code, "model_too_long");
  EXPECT_EQ(st.field, "tokens");
  EXPECT_NE(st.error.find(std::to_string(m->context)), std::string::npos) << "it gives the context: " << st.error;
  EXPECT_TRUE(stack.state() == probe);
  EXPECT_EQ(attnviz::report_text(stack), before);
  // Lazily, as the app runs it: the same.
  LayerStack lazy;
  lazy.track_demand();
  ASSERT_TRUE(lazy.set_state(probe).ok);
  lazy.track_demand();
  const std::string lazy_before = attnviz::report_text(lazy);
  EXPECT_FALSE(lazy.set_state(longer).ok);
  EXPECT_TRUE(lazy.state() == probe);
  EXPECT_EQ(attnviz::report_text(lazy), lazy_before);
  // Exactly the context is not too long.
  longer.tokens.resize(static_cast<size_t>(m->context));
  EXPECT_TRUE(stack.set_state(longer).ok);
  EXPECT_EQ(stack.state().seq_len(), m->context);
}

TEST(Model, CardAndTensorsThatDisagreeAreRefused) {
  const std::string card = read_file("assets/models/induction-2l.json");
  const std::string ckpt = read_file("assets/models/induction-2l-checkpoints.safetensors");
  attnviz::SharedModel m;
  ASSERT_TRUE(attnviz::load_model(card, ckpt, &m).ok);
  json j = json::parse(card);
  j["d_model"] = 32;  // the card's sizes against the tensors' shapes
  attnviz::Status st = attnviz::load_model(j.dump(), ckpt, &m);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.code, "model_card_bad") << st.error;
  // A checkpoint whose prefix names no tensor of the file: that checkpoint's prefix is to blame.
  j = json::parse(card);
  ASSERT_GE(j["checkpoints"].size(), 3u);
  j["checkpoints"][2]["prefix"] = "step_9999.";
  st = attnviz::load_model(j.dump(), ckpt, &m);
  EXPECT_EQ(st.code, "model_tensor_missing") << st.error;
  EXPECT_EQ(st.field, "checkpoints[2].prefix") << st.error;
  EXPECT_NE(st.error.find("step_9999.tok_emb.weight"), std::string::npos) << st.error;
  j = json::parse(card);
  j["vocabulary"].push_back("extra");
  st = attnviz::load_model(j.dump(), ckpt, &m);
  EXPECT_FALSE(st.ok) << "a vocabulary one longer than the embedding";
  // A card consistent in itself (a shorter context, and the position table it lists
  // with it) whose file holds another shape: the card's entry for that tensor is to blame.
  j = json::parse(card);
  size_t pos = 0;
  while (pos < j["tensors"].size() && j["tensors"][pos]["name"] != "pos_emb.weight") ++pos;
  ASSERT_LT(pos, j["tensors"].size());
  const int context = j["context"].get<int>() - 4;
  j["context"] = context;
  j["tensors"][pos]["shape"] = {context, j["d_model"].get<int>()};
  st = attnviz::load_model(j.dump(), ckpt, &m);
  EXPECT_EQ(st.code, "model_tensor_shape") << st.error;
  EXPECT_EQ(st.field, "tensors[" + std::to_string(pos) + "].shape") << st.error;
  st = attnviz::load_model(card, ckpt.substr(0, ckpt.size() / 2), &m);
  EXPECT_EQ(st.code, "model_tensors_unreadable") << st.error;
}

TEST(Model, StateJsonRoundTripsWithoutTheWeights) {
  const attnviz::SharedModel m = attnviz::find_model(kModel);
  const State s = attnviz::model_probe_state(m);
  const json j = attnviz::state_to_json(s);
  EXPECT_FALSE(j.contains("embedding"));
  EXPECT_FALSE(j.contains("weights"));
  EXPECT_EQ(j.at("model").at("step"), m->checkpoints.back().step);
  State back;
  ASSERT_TRUE(attnviz::parse_state(j, &back).ok);
  EXPECT_TRUE(back == s);
  State other = s;
  other.model.checkpoint = 0;
  EXPECT_FALSE(other == s);
}

TEST(Model, RepeatedTokensAreTorchRandperm) {
  // torch.manual_seed(5); torch.randperm(64)[:10] (python3-torch 1.13)
  attnviz::TorchGenerator g(5);
  const std::vector<int64_t> p = g.randperm(64);
  const std::vector<int64_t> want = {35, 13, 53, 17, 30, 26, 24, 51, 48, 2};
  EXPECT_EQ(std::vector<int64_t>(p.begin(), p.begin() + 10), want);
  const attnviz::SharedModel m = attnviz::find_model(kModel);
  const std::vector<std::string> r = attnviz::repeated_tokens(*m, 10, 5);
  ASSERT_EQ(r.size(), 21u);
  EXPECT_EQ(r[0], "<s>");
  EXPECT_EQ(r[1], m->vocabulary[36]);
  for (int i = 1; i <= 10; ++i) EXPECT_EQ(r[static_cast<size_t>(i)], r[static_cast<size_t>(i + 10)]);
  // The card's probe is the script's torch.randperm draw: the engine makes the same one.
  EXPECT_EQ(attnviz::repeated_tokens(*m, m->probe_repeat, m->probe_seed), m->probe);
}

}  // namespace

namespace {

// The Inspector's X of a model's layer: the residual stream, with the numbers that add up to it.
TEST(Model, ALayersInputIsExplainedAsTheResidualStream) {
  const attnviz::SharedModel m = attnviz::find_model(kModel);
  LayerStack stack;
  ASSERT_TRUE(stack.set_state(model_state({"<s>", "q", "q"})).ok);
  attnviz::Explanation e = stack.explain(0, Stage::X, 0, 1, 5);
  ASSERT_TRUE(e.ok);
  EXPECT_EQ(e.formula_id, attnviz::Formula::x_model_embedding);
  EXPECT_EQ(e.value, stack.token_embedding()->at(1, 5) + stack.position_embedding()->at(1, 5));
  EXPECT_NE(e.formula.find("embedding of \"q\"[5]"), std::string::npos) << e.formula;
  e = stack.explain(1, Stage::X, 0, 2, 7);
  EXPECT_EQ(e.formula_id, attnviz::Formula::x_residual);
  EXPECT_EQ(e.value, stack.residual(0)->at(2, 7) + stack.layer(0).matrix(Stage::output)->at(2, 7));
  EXPECT_EQ(e.formula_args[2], "1");
  EXPECT_EQ(stack.explain(1, Stage::Q, 0, 2, 7).formula_id, attnviz::Formula::projection) << "other stages as a pipeline's";
}

}  // namespace
