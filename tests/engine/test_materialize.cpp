// test_materialize.cpp: seeded inputs turned into explicit values give bit-for-bit
// the same pipeline, so the UI's switch to editable values changes no number.
#include <gtest/gtest.h>

#include "attnviz/materialize.h"
#include "attnviz/state_json.h"
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
    EXPECT_EQ(m.embedding.values->rows, 6);
    EXPECT_EQ(m.embedding.values->cols, 8);
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
      EXPECT_EQ(m.weights.W_o->rows, 8);
      EXPECT_EQ(m.weights.b_o->cols, 8);
      expect_same_output(s, m);
      // And the explicit state survives a JSON round trip unchanged.
      State back;
      ASSERT_TRUE(attnviz::parse_state(attnviz::state_to_json(m), &back).ok);
      expect_same_output(m, back);
    }
  }
}

// --- retokenize: the token chips' edits carry each token's row and padding flag.

// The embedding of s made explicit, with one cell edited (as Edit values does).
State edited_embedding(State s) {
  State m = attnviz::materialize_embedding(s);
  m.embedding.values.mut().at(1, 0) = 2.5f;
  return m;
}

std::vector<float> row_of(const attnviz::Tensor& t, int i) { return {t.row(i), t.row(i) + t.cols}; }

TEST(Retokenize, ANewTokenGetsTheRowTheSeedDrawsForItAndTheOthersKeepTheirs) {
  for (int dm : {4, 16, 7}) {  // 16: the table grows by whole blocks; 4, 7: torch redraws the last 16 values
    State s = seeded(attnviz::WeightInit::torch_rand, attnviz::WeightLayout::fused, false);
    s.d_model = dm;
    s.embedding.seed = 7;
    State m = edited_embedding(s);
    std::vector<std::string> toks = s.tokens;
    toks.push_back("again");
    State r = attnviz::retokenize(m, toks, {0, 1, 2, 3, 4, 5, -1});
    ASSERT_EQ(r.embedding.init, attnviz::EmbeddingInit::values);
    ASSERT_EQ(r.embedding.values->rows, 7);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(row_of(r.embedding.values, i), row_of(m.embedding.values, i)) << i;
    State fresh = s;  // what the seeded embedding gives the seven tokens
    fresh.tokens = toks;
    EXPECT_EQ(row_of(r.embedding.values, 6), row_of(attnviz::materialize_embedding(fresh).embedding.values, 6))
        << "d_model " << dm;
    Pipeline p;
    EXPECT_TRUE(p.set_state(r).ok) << "the grown state is valid";
  }
}

TEST(Retokenize, ANewTokenInTheMiddleIsDrawnAtItsPlaceInTheVocabulary) {
  State s = seeded(attnviz::WeightInit::torch_rand, attnviz::WeightLayout::fused, false);
  State m = edited_embedding(s);
  // the cat sat on the mat → the dog cat sat on the mat: "dog" is the vocabulary's second word.
  std::vector<std::string> toks = {"the", "dog", "cat", "sat", "on", "the", "mat"};
  State r = attnviz::retokenize(m, toks, {0, -1, 1, 2, 3, 4, 5});
  State fresh = s;
  fresh.tokens = toks;
  EXPECT_EQ(row_of(r.embedding.values, 1), row_of(attnviz::materialize_embedding(fresh).embedding.values, 1));
  EXPECT_EQ(row_of(r.embedding.values, 2), row_of(m.embedding.values, 1)) << "cat keeps its edited row";
}

TEST(Retokenize, ARepeatedTokenCopiesItsRowEditsIncluded) {
  State m = edited_embedding(seeded(attnviz::WeightInit::torch_rand, attnviz::WeightLayout::fused, false));
  std::vector<std::string> toks = m.tokens;
  toks.push_back("cat");  // token 1, whose row was edited
  State r = attnviz::retokenize(m, toks, {0, 1, 2, 3, 4, 5, -1});
  EXPECT_EQ(row_of(r.embedding.values, 6), row_of(m.embedding.values, 1));
  EXPECT_EQ(r.embedding.values.at(6, 0), 2.5f);
}

TEST(Retokenize, RowsAndPaddingFollowTheirTokensThroughDeleteMoveAndRename) {
  State m = edited_embedding(seeded(attnviz::WeightInit::torch_rand, attnviz::WeightLayout::fused, false));
  m.key_padding = {1, 1, 1, 1, 1, 0};
  // delete "sat" (2), move "mat" (5) to the front, rename "cat" to "dog"
  State r = attnviz::retokenize(m, {"mat", "the", "dog", "on", "the"}, {5, 0, 1, 3, 4});
  ASSERT_EQ(r.embedding.values->rows, 5);
  const int from[] = {5, 0, 1, 3, 4};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(row_of(r.embedding.values, i), row_of(m.embedding.values, from[i])) << i;
  EXPECT_EQ(r.key_padding, (std::vector<uint8_t>{0, 1, 1, 1, 1})) << "the padded key moved with its token";
  Pipeline p;
  EXPECT_TRUE(p.set_state(r).ok);
  // Deleting the only padded key leaves no padding at all; a new token is a real key.
  State g = attnviz::retokenize(m, {"the", "cat", "sat", "new", "on", "the"}, {0, 1, 2, -1, 3, 4});
  EXPECT_TRUE(g.key_padding.empty());
  m.key_padding = {0, 1, 1, 1, 1, 1};
  g = attnviz::retokenize(m, {"x", "the", "cat"}, {-1, 0, 1});
  EXPECT_EQ(g.key_padding, (std::vector<uint8_t>{1, 0, 1}));
}

TEST(Retokenize, ASeededEmbeddingStaysSeeded) {
  State s = seeded(attnviz::WeightInit::torch_rand, attnviz::WeightLayout::fused, false);
  State r = attnviz::retokenize(s, {"the", "cat"}, {0, 1});
  EXPECT_EQ(r.embedding.init, attnviz::EmbeddingInit::torch_randn);
  EXPECT_TRUE(r.embedding.values.empty());
  EXPECT_EQ(r.tokens, (std::vector<std::string>{"the", "cat"}));
}

}  // namespace
