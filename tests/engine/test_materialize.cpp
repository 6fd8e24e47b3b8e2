// test_materialize.cpp: seeded inputs turned into explicit values give bit-for-bit
// the same pipeline, so the UI's switch to editable values changes no number.
#include <gtest/gtest.h>

#include "attnviz/materialize.h"
#include "attnviz/pipeline.h"

namespace {

using attnviz::Pipeline;
using attnviz::Stage;
using attnviz::State;

State seeded(attnviz::WeightInit init, attnviz::WeightLayout layout, bool sinusoidal) {
  State s;
  s.tokens = {"the", "cat", "sat", "on", "the", "mat"};
  s.d_model = 8;
  s.d_out = 8;
  s.num_heads = 2;
  s.qkv_bias = true;
  s.out_proj = true;
  s.out_bias = true;
  s.weights.init = init;
  s.weights.layout = layout;
  s.positional = sinusoidal ? attnviz::Positional::sinusoidal : attnviz::Positional::none;
  return s;
}

void expect_same_output(const State& a, const State& b) {
  Pipeline pa, pb;
  ASSERT_TRUE(pa.set_state(a).ok);
  ASSERT_TRUE(pb.set_state(b).ok);
  for (Stage st : {Stage::X, Stage::Q, Stage::K, Stage::V, Stage::concat, Stage::output}) {
    EXPECT_TRUE(attnviz::tensors_bitwise_equal(*pa.matrix(st), *pb.matrix(st))) << attnviz::stage_name(st);
  }
  EXPECT_TRUE(attnviz::tensors_bitwise_equal(*pa.matrix(Stage::weights, 1), *pb.matrix(Stage::weights, 1)));
}

TEST(Materialize, EmbeddingValuesReproduceTheSeededEmbeddingWithPositionsStillAdded) {
  for (bool sin : {false, true}) {
    State s = seeded(attnviz::WeightInit::torch_linear, attnviz::WeightLayout::fused, sin);
    State m = attnviz::materialize_embedding(s);
    EXPECT_EQ(m.embedding.init, attnviz::EmbeddingInit::values);
    EXPECT_EQ(m.embedding.values.rows, 6);
    EXPECT_EQ(m.embedding.values.cols, 8);
    EXPECT_EQ(m.positional, s.positional);
    expect_same_output(s, m);
  }
}

TEST(Materialize, WeightValuesReproduceEverySeededScheme) {
  for (auto init : {attnviz::WeightInit::torch_linear, attnviz::WeightInit::torch_rand}) {
    for (auto layout : {attnviz::WeightLayout::fused, attnviz::WeightLayout::per_head}) {
      State s = seeded(init, layout, false);
      State m = attnviz::materialize_weights(s);
      EXPECT_EQ(m.weights.init, attnviz::WeightInit::values);
      EXPECT_EQ(m.weights.W_o.rows, 8);
      EXPECT_EQ(m.weights.b_o.cols, 8);
      expect_same_output(s, m);
      // And the explicit state survives a JSON round trip unchanged.
      State back;
      ASSERT_TRUE(attnviz::parse_state(attnviz::state_to_json(m), &back).ok);
      expect_same_output(m, back);
    }
  }
}

}  // namespace
