// States that share their explicit matrices (SharedTensor, attnviz/tensor.h) and
// State's equality (attnviz/state.h), which the app decides "changed" with on
// every edit instead of comparing JSON texts.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "attnviz/pipeline.h"
#include "attnviz/state.h"
#include "attnviz/state_json.h"

namespace {

using attnviz::SharedTensor;
using attnviz::State;
using attnviz::Tensor;

Tensor filled(int r, int c, float start) {
  Tensor t(r, c);
  for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = start + 0.125f * static_cast<float>(i);
  return t;
}

// A state with every explicit matrix the flags can use.
State explicit_state() {
  State s;
  s.d_model = 4;
  s.d_out = 4;
  s.num_heads = 2;
  s.qkv_bias = true;
  s.out_proj = true;
  s.embedding.init = attnviz::EmbeddingInit::values;
  s.embedding.values = filled(5, 4, -1.0f);
  s.weights.init = attnviz::WeightInit::values;
  s.weights.W_q = filled(4, 4, 0.1f);
  s.weights.W_k = filled(4, 4, 0.2f);
  s.weights.W_v = filled(4, 4, 0.3f);
  s.weights.W_o = filled(4, 4, 0.4f);
  s.weights.b_q = filled(1, 4, 0.5f);
  s.weights.b_k = filled(1, 4, 0.6f);
  s.weights.b_v = filled(1, 4, 0.7f);
  s.weights.b_o = filled(1, 4, 0.8f);
  return s;
}

TEST(SharedTensor, CopiesShareUntilOneWrites) {
  SharedTensor a = filled(3, 2, 1.0f);
  SharedTensor b = a;
  EXPECT_TRUE(a.same_as(b));
  EXPECT_EQ(a.identity(), b.identity());
  b.mut().at(1, 1) = 42.0f;  // b gets a Tensor of its own first
  EXPECT_FALSE(a.same_as(b));
  EXPECT_EQ(a.at(1, 1), 1.0f + 0.125f * 3);
  EXPECT_EQ(b.at(1, 1), 42.0f);
  EXPECT_EQ(b->rows, 3);
  EXPECT_EQ(b->cols, 2);
  const void* own = b.identity();
  b.mut().at(0, 0) = 7.0f;  // no longer shared: written in place
  EXPECT_EQ(b.identity(), own);
}

TEST(SharedTensor, EmptyByDefaultAndAfterAnEmptyTensor) {
  SharedTensor e;
  EXPECT_TRUE(e.empty());
  EXPECT_EQ(e->rows, 0);
  EXPECT_EQ(e.identity(), nullptr);
  EXPECT_EQ(e.bytes(), 0u);
  SharedTensor f = filled(2, 2, 0.0f);
  EXPECT_EQ(f.bytes(), 16u);
  f = Tensor();
  EXPECT_TRUE(f.empty());
  EXPECT_TRUE(e.same_as(f));
}

TEST(SharedTensor, FinitenessIsCheckedOncePerTensor) {
  SharedTensor a = filled(2, 2, 0.0f);
  int checks = 0;
  auto check = [&](const Tensor& t) {
    ++checks;
    for (float v : t.data)
      if (!std::isfinite(v)) return false;
    return true;
  };
  EXPECT_TRUE(a.all_finite(check));
  SharedTensor b = a;
  EXPECT_TRUE(b.all_finite(check));  // the copy shares the answer
  EXPECT_EQ(checks, 1);
  b.mut().at(0, 1) = NAN;  // its own Tensor now: checked again
  EXPECT_FALSE(b.all_finite(check));
  EXPECT_TRUE(a.all_finite(check));
  EXPECT_EQ(checks, 2);
}

TEST(SharedTensor, ValidationRefusesANaNWrittenIntoACheckedCopy) {
  State s = explicit_state();
  ASSERT_TRUE(attnviz::validate_state(s).ok);
  State t = s;  // shares every matrix, and their checked finiteness
  t.weights.W_v.mut().at(2, 3) = INFINITY;
  attnviz::Status st = attnviz::validate_state(t);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.field, "weights.W_v");
  EXPECT_TRUE(attnviz::validate_state(s).ok);  // the original is untouched
}

// Equality must agree with the canonical JSON's, over every field and matrix.
TEST(StateEquality, AgreesWithTheCanonicalJsonForEveryEdit) {
  const State base = explicit_state();
  const std::vector<std::pair<const char*, std::function<void(State&)>>> edits = {
      {"tokens", [](State& s) { s.tokens[2] = "b"; }},
      {"causal", [](State& s) { s.causal = true; }},
      {"temperature", [](State& s) { s.temperature = 0.5; }},
      {"scale", [](State& s) { s.scale = attnviz::ScaleMode::none; }},
      {"key_padding", [](State& s) { s.key_padding = {1, 1, 1, 0, 1}; }},
      {"mask_fill", [](State& s) { s.mask_fill = -1e9; }},
      {"safe_softmax", [](State& s) { s.safe_softmax = true; }},
      {"alibi", [](State& s) { s.alibi = true; }},
      {"window", [](State& s) { s.window = 2; }},
      {"sinks on", [](State& s) { s.sinks.enabled = true; }},
      {"sink values", [](State& s) { s.sinks.values = {0.5f, -1.0f}; }},
      {"sink value -0", [](State& s) { s.sinks.values = {-0.0f, 0.0f}; }},
      {"kv_cache policy", [](State& s) { s.kv_cache.policy = attnviz::CachePolicy::streaming_llm; }},
      {"kv_cache sizes while full", [](State& s) { s.kv_cache.recent = 2; }},
      {"rope", [](State& s) { s.positional = attnviz::Positional::rope; }},
      {"rope base while off", [](State& s) { s.rope.base = 500.0; }},
      {"num_kv_heads", [](State& s) { s.num_kv_heads = 2; }},
      {"dropout p", [](State& s) { s.dropout.p = 0.25; }},
      {"dropout training", [](State& s) { s.dropout.training = true; }},
      {"dropout seed", [](State& s) { s.dropout.seed = 7; }},
      {"out_bias", [](State& s) { s.out_bias = false; }},
      {"embedding value", [](State& s) { s.embedding.values.mut().at(4, 3) = 9.0f; }},
      {"embedding seed, unused", [](State& s) { s.embedding.seed = 9; }},
      {"W_q value", [](State& s) { s.weights.W_q.mut().at(0, 0) = -3.0f; }},
      {"W_o value", [](State& s) { s.weights.W_o.mut().at(3, 3) = -3.0f; }},
      {"W_o value, out_proj off", [](State& s) { s.out_proj = false; s.weights.W_o.mut().at(3, 3) = -3.0f; }},
      {"b_k value", [](State& s) { s.weights.b_k.mut().at(0, 1) = -3.0f; }},
      {"b_k value, no bias", [](State& s) { s.qkv_bias = false; s.weights.b_k.mut().at(0, 1) = -3.0f; }},
      {"weights seed, unused", [](State& s) { s.weights.seed = 5; }},
      {"weights seeded", [](State& s) { s.weights.init = attnviz::WeightInit::torch_rand; }},
      {"same bits, another copy", [](State& s) { s.weights.W_k = Tensor(s.weights.W_k.get()); }},
      {"nothing", [](State&) {}},
  };
  const nlohmann::json base_json = attnviz::state_to_json(base);
  for (const auto& [name, edit] : edits) {
    State s = base;
    edit(s);
    const bool json_equal = attnviz::state_to_json(s) == base_json;
    EXPECT_EQ(s == base, json_equal) << name;
    EXPECT_EQ(base == s, json_equal) << name;
  }
}

TEST(StateEquality, SeededStatesCompareSeedsAndLayout) {
  State a, b;
  EXPECT_TRUE(a == b);
  b.weights.layout = attnviz::WeightLayout::per_head;
  EXPECT_FALSE(a == b);
  b = a;
  b.weights.seed = 124;
  EXPECT_FALSE(a == b);
  b = a;
  b.embedding.seed = 1;
  EXPECT_FALSE(a == b);
}

// A pipeline given a copy that shares the explicit weights of its last state
// reads none of them again and gives the same bits.
TEST(StateEquality, APipelineTakesASharedCopyAsUnchangedWeights) {
  State s = explicit_state();
  attnviz::Pipeline p;
  ASSERT_TRUE(p.set_state(s).ok);
  const attnviz::Tensor* first = p.matrix(attnviz::Stage::output, 0);
  ASSERT_NE(first, nullptr);
  const std::vector<float> out0(first->data.begin(), first->data.end());
  State t = p.state();
  EXPECT_TRUE(t.weights.W_q.same_as(p.state().weights.W_q));
  t.causal = true;
  ASSERT_TRUE(p.set_state(t).ok);
  t.causal = false;
  ASSERT_TRUE(p.set_state(std::move(t)).ok);
  const attnviz::Tensor* out = p.matrix(attnviz::Stage::output, 0);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(std::vector<float>(out->data.begin(), out->data.end()), out0);
}

}  // namespace
