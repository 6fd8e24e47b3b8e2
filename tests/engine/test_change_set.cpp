// describe_change (engine/src/pipeline/change_set.h) called directly on small
// hand-made states, plans and inputs: no pipeline, no kernels beyond the
// bitwise comparisons it makes.
#include <gtest/gtest.h>

#include <vector>

#include "attnviz/state.h"
#include "pipeline/change_set.h"

namespace attnviz {
namespace {

using detail::ChangeSet;
using detail::NewInputs;
using detail::Params;
using detail::Plan;

// The old result's plan and inputs, and the change to next, as apply
// describes it.
struct Before {
  State state;
  Plan plan;
  Tensor x;
  Params params;
  explicit Before(const State& s) : state(s), plan(detail::make_plan(s)) {
    detail::build_x(s, &x);
    detail::build_params(s, &params);
  }
  ChangeSet to(const State& next) const {
    const NewInputs in = detail::build_inputs(state, next, nullptr);
    return detail::describe_change(plan, x, params, detail::make_plan(next), in);
  }
};

State base() {
  State s;  // tutorial 000: 5 tokens, d_model = d_out = 4, one head
  s.num_heads = 2;
  s.qkv_bias = true;
  s.out_proj = true;
  return s;
}

// The change from base() to base() edited by edit(State&).
template <class F>
ChangeSet after(F edit) {
  const State s = base();
  State next = s;
  edit(next);
  return Before(s).to(next);
}

// Every parameter bit set in cs.
std::vector<Stage> changed_params(const ChangeSet& cs) {
  std::vector<Stage> out;
  for (Stage s : detail::kParamStages) {
    if (cs.param_changed(s)) out.push_back(s);
  }
  return out;
}

TEST(ChangeSet, NothingChangedIsEmpty) {
  const State s = base();
  const ChangeSet cs = Before(s).to(s);
  EXPECT_TRUE(cs.empty());
  EXPECT_FALSE(cs.x_compared);
  EXPECT_FALSE(cs.params_compared);
  EXPECT_TRUE(cs.x_rows.empty());
  EXPECT_EQ(cs.params, 0u);
  EXPECT_TRUE(cs.rows_in(Stage::Q).empty());
  EXPECT_TRUE(cs.rows_in(Stage::K).empty());
  EXPECT_TRUE(cs.rows_in(Stage::V).empty());
  EXPECT_FALSE(cs.divisor_changed || cs.mask_changed || cs.safe_changed || cs.dropout_changed || cs.out_changed);
}

TEST(ChangeSet, AnEditedTokenChangesItsXRowOnly) {
  // d_model 16: torch's normal_ draws a table of whole 16-float blocks, so
  // the table for fewer distinct tokens is the first rows of this one (with
  // d_model 4 the 4-row table is drawn differently and every row moves).
  State s = base();
  s.d_model = 16;
  State next = s;
  next.tokens[4] = "Once";  // "there" becomes a token seen before: row 4 takes row 0's embedding
  const ChangeSet cs = Before(s).to(next);
  EXPECT_TRUE(cs.x_compared);
  EXPECT_EQ(cs.x_rows, std::vector<int>({4}));
  EXPECT_FALSE(cs.params_compared);
  EXPECT_EQ(cs.rows_in(Stage::Q), std::vector<int>({4}));
  EXPECT_EQ(cs.rows_in(Stage::K), std::vector<int>({4}));
  EXPECT_EQ(cs.rows_in(Stage::V), std::vector<int>({4}));
  EXPECT_FALSE(cs.empty());
}

TEST(ChangeSet, ARenamedTokenWithTheSameIdChangesNoRow) {
  const State s = base();
  State next = s;
  next.tokens[2] = "the";  // still the third distinct token: the same embedding row
  const ChangeSet cs = Before(s).to(next);
  EXPECT_TRUE(cs.x_compared);  // the spec changed, so X was built and compared
  EXPECT_TRUE(cs.x_rows.empty());
  EXPECT_TRUE(cs.empty());
}

TEST(ChangeSet, ExplicitEmbeddingValuesChangeTheirRows) {
  State s = base();
  s.embedding.init = EmbeddingInit::values;
  s.embedding.values.reset(5, 4);
  for (int r = 0; r < 5; ++r) {
    for (int c = 0; c < 4; ++c) s.embedding.values.mut().row(r)[c] = static_cast<float>(r * 4 + c);
  }
  State next = s;
  next.embedding.values.mut().row(1)[2] = -1.0f;
  next.embedding.values.mut().row(4)[0] = -2.0f;
  const ChangeSet cs = Before(s).to(next);
  EXPECT_EQ(cs.x_rows, std::vector<int>({1, 4}));
}

TEST(ChangeSet, AnotherWeightSeedChangesEveryParameterAndEveryProjectionRow) {
  const ChangeSet cs = after([](State& n) { n.weights.seed = 7; });
  EXPECT_TRUE(cs.params_compared);
  EXPECT_FALSE(cs.x_compared);
  for (Stage p : {Stage::W_q, Stage::W_k, Stage::W_v, Stage::W_o, Stage::b_q, Stage::b_k, Stage::b_v, Stage::b_o}) {
    EXPECT_TRUE(cs.param_changed(p)) << stage_name(p);
  }
  const std::vector<int> all = {0, 1, 2, 3, 4};
  EXPECT_EQ(cs.rows_in(Stage::Q), all);
  EXPECT_EQ(cs.rows_in(Stage::K), all);
  EXPECT_EQ(cs.rows_in(Stage::V), all);
  EXPECT_TRUE(cs.out_changed);
  EXPECT_FALSE(cs.divisor_changed || cs.mask_changed || cs.dropout_changed);
}

TEST(ChangeSet, OneExplicitWeightChangesItsProjectionOnly) {
  State s = base();
  s.out_proj = false;
  s.weights.init = WeightInit::values;
  for (SharedTensor* t : {&s.weights.W_q, &s.weights.W_k, &s.weights.W_v}) {
    t->reset(4, 4);
    for (int i = 0; i < 16; ++i) t->mut().data[static_cast<size_t>(i)] = 0.25f * static_cast<float>(i);
  }
  for (SharedTensor* t : {&s.weights.b_q, &s.weights.b_k, &s.weights.b_v}) t->reset(1, 4);
  State next = s;
  next.weights.W_k.mut().row(2)[1] = 9.0f;
  const ChangeSet cs = Before(s).to(next);
  EXPECT_EQ(changed_params(cs), std::vector<Stage>({Stage::W_k}));
  EXPECT_TRUE(cs.rows_in(Stage::Q).empty());
  EXPECT_EQ(cs.rows_in(Stage::K), std::vector<int>({0, 1, 2, 3, 4}));
  EXPECT_TRUE(cs.rows_in(Stage::V).empty());
  EXPECT_FALSE(cs.out_changed);  // no output projection
}

TEST(ChangeSet, TemperatureChangesTheDivisorOnly) {
  const ChangeSet cs = after([](State& n) { n.temperature = 2.0; });
  EXPECT_TRUE(cs.divisor_changed);
  EXPECT_FALSE(cs.mask_changed || cs.causal_switched || cs.fill_changed || cs.safe_changed || cs.dropout_changed);
  EXPECT_FALSE(cs.x_compared || cs.params_compared);
  EXPECT_TRUE(cs.x_rows.empty());
  EXPECT_EQ(cs.params, 0u);
  EXPECT_FALSE(cs.empty());
}

TEST(ChangeSet, CausalOnSwitchesTheCausalMask) {
  const State s = base();
  State next = s;
  next.causal = true;
  const ChangeSet cs = Before(s).to(next);
  EXPECT_TRUE(cs.mask_changed);
  EXPECT_TRUE(cs.causal_switched);
  EXPECT_TRUE(cs.pad_switched.empty());
  EXPECT_FALSE(cs.fill_changed || cs.divisor_changed);
  // and back off
  const ChangeSet back = Before(next).to(s);
  EXPECT_TRUE(back.mask_changed && back.causal_switched);
}

TEST(ChangeSet, PaddingOneKeyNamesThatKey) {
  const State s = base();
  State next = s;
  next.key_padding = {1, 1, 1, 0, 1};
  const ChangeSet cs = Before(s).to(next);
  EXPECT_TRUE(cs.mask_changed);
  EXPECT_FALSE(cs.causal_switched);
  EXPECT_EQ(cs.pad_switched, std::vector<int>({3}));
  // Padding another key as well: only the key that switched.
  State more = next;
  more.key_padding = {0, 1, 1, 0, 1};
  EXPECT_EQ(Before(next).to(more).pad_switched, std::vector<int>({0}));
  // All real keys written out is the same mask as no padding.
  State none = s;
  none.key_padding = {1, 1, 1, 1, 1};
  const ChangeSet same = Before(s).to(none);
  EXPECT_FALSE(same.mask_changed);
  EXPECT_TRUE(same.pad_switched.empty());
}

TEST(ChangeSet, AnotherFillChangesTheMask) {
  const ChangeSet cs = after([](State& n) { n.mask_fill = -1e9; });
  EXPECT_TRUE(cs.mask_changed);
  EXPECT_TRUE(cs.fill_changed);
  EXPECT_FALSE(cs.causal_switched);
}

TEST(ChangeSet, SafeSoftmaxSwitches) {
  const ChangeSet cs = after([](State& n) { n.safe_softmax = true; });
  EXPECT_TRUE(cs.safe_changed);
  EXPECT_FALSE(cs.mask_changed || cs.divisor_changed || cs.dropout_changed);
  EXPECT_FALSE(cs.empty());
}

TEST(ChangeSet, DropoutOnAnotherPAndOff) {
  const State s = base();
  State on = s;
  on.dropout.training = true;
  on.dropout.p = 0.5;
  const ChangeSet c_on = Before(s).to(on);
  EXPECT_TRUE(c_on.dropout_changed && c_on.dropout_on);
  EXPECT_FALSE(c_on.dropout_off);
  State other = on;
  other.dropout.p = 0.25;
  const ChangeSet c_p = Before(on).to(other);
  EXPECT_TRUE(c_p.dropout_changed);
  EXPECT_FALSE(c_p.dropout_on || c_p.dropout_off);
  const ChangeSet c_off = Before(on).to(s);
  EXPECT_TRUE(c_off.dropout_changed && c_off.dropout_off);
  EXPECT_FALSE(c_off.dropout_on);
  // p without training is the identity: nothing changes.
  State eval = s;
  eval.dropout.p = 0.5;
  EXPECT_TRUE(Before(s).to(eval).empty());
}

}  // namespace
}  // namespace attnviz
