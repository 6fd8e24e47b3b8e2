// Tutorial 004 ("Your journey starts with one step", ../shared/seeds/004_8a3d84759eb64b05.txt):
// every table it prints that this pipeline produces, typed in as printed
// (in 004 the outputs are the `# ...` comments under each print()).
//
// Tolerance: half a unit of the last printed digit of each number (see
// engine_test_util.h): PyTorch rounds to what it prints.
//
// The inputs are the explicit 6×3 `inputs` tensor of the tutorial, i.e.
// {"embedding": {"values": ...}}; d_in = 3, d_out = 2, one head.
#include <gtest/gtest.h>

#include <string>

#include "attnviz/pipeline.h"
#include "engine_test_util.h"
#include "tutorial_tables.h"

namespace {

using attnviz::Pipeline;
using attnviz::Stage;
using attnviz_test::expect_printed;
using attnviz_test::expect_printed_row;
using attnviz_test::run;
using attnviz_test::state_from;
using attnviz_test::tutorial_table;
using attnviz_test::view;

const std::string kInputs = R"("tokens": ["Your", "journey", "starts", "with", "one", "step"],
  "d_model": 3,
  "embedding": {"values": [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                           [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]})";

// §1.1: attention without trainable weights is W_q = W_k = W_v = I (d_out = 3)
// and no scaling: scores = inputs @ inputs.T, context = weights @ inputs.
const std::string kNoWeights = "{" + kInputs + R"(, "d_out": 3, "scale": "none",
  "weights": {"W_q": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
              "W_k": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
              "W_v": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}})";

// §2: torch.manual_seed(123); W_query, W_key, W_value = torch.rand(3, 2) each.
const std::string kRand123 = "{" + kInputs + R"(, "d_out": 2,
  "weights": {"init": "torch_rand", "seed": 123}})";

// §2.3 and §3: torch.manual_seed(789); SelfAttention_v2: nn.Linear(3, 2, bias=False) × 3.
const std::string kLinear789 = "{" + kInputs + R"(, "d_out": 2,
  "weights": {"init": "torch_linear", "seed": 789}})";

TEST(Tutorial004, AttentionWithoutWeights) {
  Pipeline p;
  run(&p, state_from(kNoWeights));
  // line 58: attention_score_2 (query x_2 = row 1)
  expect_printed_row(view(p, Stage::scores), 1, tutorial_table("004:noweights_attention_score_2"),
                     "attention_score_2");
  // line 81: attention_weight_2_torch = torch.softmax(attention_score_2, dim=0)
  expect_printed_row(view(p, Stage::weights), 1, tutorial_table("004:noweights_attention_weight_2"),
                     "attention_weight_2");
  // line 156: context_vector_2
  expect_printed_row(view(p, Stage::context), 1, tutorial_table("004:noweights_context_vector_2"), "context_vector_2");
  // line 223: all_attention_scores_2 = inputs @ inputs.T
  expect_printed(view(p, Stage::scores), tutorial_table("004:all_attention_scores"), "all_attention_scores");
  // line 233: all_attention_weights = torch.softmax(all_attention_scores_2, dim=-1)
  expect_printed(view(p, Stage::weights), tutorial_table("004:all_attention_weights"), "all_attention_weights");
}

TEST(Tutorial004, TorchRandWeightsSeed123) {
  Pipeline p;
  run(&p, state_from(kRand123));
  // lines 303-313: W_query, W_key, W_value
  expect_printed(view(p, Stage::W_q), tutorial_table("004:W_query"), "W_query");
  expect_printed(view(p, Stage::W_k), tutorial_table("004:W_key"), "W_key");
  expect_printed(view(p, Stage::W_v), tutorial_table("004:W_value"), "W_value");
  // lines 323-325: query_2, key_2, value_2
  expect_printed_row(view(p, Stage::Q), 1, tutorial_table("004:query_2"), "query_2");
  expect_printed_row(view(p, Stage::K), 1, tutorial_table("004:key_2"), "key_2");
  expect_printed_row(view(p, Stage::V), 1, tutorial_table("004:value_2"), "value_2");
  // lines 334-345: keys, values
  expect_printed(view(p, Stage::K), tutorial_table("004:keys"), "keys");
  expect_printed(view(p, Stage::V), tutorial_table("004:values"), "values");
  // line 352: attention_score_22
  expect_printed(attnviz::TensorView{&p.matrix(Stage::scores)->data[1 * 6 + 1], 1, 1, 1}, tutorial_table("004:attention_score_22"),
                 "attention_score_22");
  // line 357: attention_score_2 = query_2 @ keys.T
  expect_printed_row(view(p, Stage::scores), 1, tutorial_table("004:attention_score_2"),
                     "attention_score_2");
  // line 366: softmax(attention_score_2 / d_k ** 0.5)
  expect_printed_row(view(p, Stage::weights), 1, tutorial_table("004:attention_weights_2"),
                     "attention_weights_2");
  // line 373: context_vector_2
  expect_printed_row(view(p, Stage::context), 1, tutorial_table("004:context_vector_2"), "context_vector_2");
  // line 439: SelfAttention_v1 (nn.Parameter(torch.rand(d_in, d_out)) × 3, seed 123): all outputs
  expect_printed(view(p, Stage::output), tutorial_table("004:SelfAttention_v1"), "SelfAttention_v1");
}

TEST(Tutorial004, LinearWeightsSeed789) {
  Pipeline p;
  run(&p, state_from(kLinear789));
  // line 509: SelfAttention_v2(inputs)
  expect_printed(view(p, Stage::output), tutorial_table("004:SelfAttention_v2"), "SelfAttention_v2");
}

TEST(Tutorial004, CausalMaskSteps) {
  // Step 1 (line 574) divides by `keys.shape[-1] * 0.5`, i.e. (scores / 2) * 0.5
  // = scores / 4 (README quirk: `* 0.5` instead of `** 0.5`): scale "none",
  // temperature 4. Both are exact power-of-two scalings, so bitwise the same.
  auto s = state_from(kLinear789);
  s.scale = attnviz::ScaleMode::none;
  s.temperature = 4.0;
  Pipeline p;
  run(&p, s);
  expect_printed(view(p, Stage::weights), tutorial_table("004:causal_step1_weights"), "step 1 weights");
  // Step 4 (line 612): multiply by tril and renormalise = softmax with a causal
  // -inf mask, mathematically; our causal weights at the same divisor.
  s.causal = true;
  run(&p, s);
  expect_printed(view(p, Stage::weights), tutorial_table("004:causal_step4_weights"), "step 4 renormalised weights");
  // Step 5 (line 626): masked = attention_scores.masked_fill(triu, -inf) on the
  // UNscaled scores: scale "none", temperature 1.
  s.temperature = 1.0;
  run(&p, s);
  expect_printed(view(p, Stage::masked), tutorial_table("004:causal_step5_masked"), "step 5 masked");
}

const char* kCausalWeights = tutorial_table("004:causal_weights");

TEST(Tutorial004, CausalWeightsAndDropout) {
  // Step 6 (line 638): torch.softmax(masked / keys.shape[-1] ** 0.5): causal,
  // scale "head_dim" (√2). Step 8 (line 667): torch.manual_seed(123) and
  // nn.Dropout(0.5) on those weights: dropout {p 0.5, training, seed 123}.
  auto s = state_from(kLinear789);
  s.causal = true;
  s.dropout = {0.5, true, 123};
  Pipeline p;
  run(&p, s);
  expect_printed(view(p, Stage::weights), kCausalWeights, "step 6 causal weights");
  expect_printed(view(p, Stage::dropped), tutorial_table("004:dropped"), "step 8 dropout(weights)");
}

const char* kCausalAttentionPrinted = tutorial_table("004:CausalAttention");

TEST(Tutorial004, CausalAttentionModuleIsUnmasked) {
  // Line 836: torch.manual_seed(123); CausalAttention(3, 2, 6, 0.0) on two copies
  // of inputs. Its forward calls attention_scores.masked_fill(...) (not
  // masked_fill_) and drops the result (../shared/seeds/README.md), so what it
  // printed is the UNmasked attention: causal false, scale √2 (keys.shape[-1]).
  auto s = state_from(kLinear789);
  s.weights.seed = 123;
  Pipeline p;
  run(&p, s);
  expect_printed(view(p, Stage::output), kCausalAttentionPrinted, "CausalAttention (as printed)");
  // With the mask really applied, row 0 attends only to itself: context_0 = v_0,
  // which is not what the tutorial printed.
  s.causal = true;
  run(&p, s);
  const attnviz::Tensor& out = *p.matrix(Stage::output);
  const attnviz::Tensor& v = *p.matrix(Stage::V);
  EXPECT_EQ(out.at(0, 0), v.at(0, 0));
  EXPECT_GT(std::fabs(out.at(0, 0) - (-0.5337f)), 0.01f);
}

TEST(Tutorial004, MultiHeadAttentionWrapper) {
  // Line 966: torch.manual_seed(123); MultiHeadAttentionWrapper(3, 2, 6, 0.0,
  // num_heads=2): two CausalAttention(3, 2) modules (each W_query, W_key,
  // W_value in turn): layout "per_head", head_dim 2, d_out 4, unmasked like
  // the module above.
  auto s = state_from("{" + kInputs + R"(, "d_out": 4, "num_heads": 2,
    "weights": {"init": "torch_linear", "seed": 123, "layout": "per_head"}})");
  Pipeline p;
  run(&p, s);
  expect_printed(view(p, Stage::output), tutorial_table("004:MultiHeadAttentionWrapper"), "MultiHeadAttentionWrapper");
}

}  // namespace
