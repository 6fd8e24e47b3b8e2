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

namespace {

using attnviz::Pipeline;
using attnviz::Stage;
using attnviz_test::expect_printed;
using attnviz_test::expect_printed_row;
using attnviz_test::run;
using attnviz_test::state_from;
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
  expect_printed_row(view(p, Stage::scores), 1, "[0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865]",
                     "attention_score_2");
  // line 81: attention_weight_2_torch = torch.softmax(attention_score_2, dim=0)
  expect_printed_row(view(p, Stage::weights), 1, "[0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]",
                     "attention_weight_2");
  // line 156: context_vector_2
  expect_printed_row(view(p, Stage::context), 1, "[0.4419, 0.6515, 0.5683]", "context_vector_2");
  // line 223: all_attention_scores_2 = inputs @ inputs.T
  expect_printed(view(p, Stage::scores), R"([[0.9995, 0.9544, 0.9422, 0.4753, 0.4576, 0.6310],
#         [0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865],
#         [0.9422, 1.4754, 1.4570, 0.8296, 0.7154, 1.0605],
#         [0.4753, 0.8434, 0.8296, 0.4937, 0.3474, 0.6565],
#         [0.4576, 0.7070, 0.7154, 0.3474, 0.6654, 0.2935],
#         [0.6310, 1.0865, 1.0605, 0.6565, 0.2935, 0.9450]])", "all_attention_scores");
  // line 233: all_attention_weights = torch.softmax(all_attention_scores_2, dim=-1)
  expect_printed(view(p, Stage::weights), R"([[0.2098, 0.2006, 0.1981, 0.1242, 0.1220, 0.1452],
#         [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581],
#         [0.1390, 0.2369, 0.2326, 0.1242, 0.1108, 0.1565],
#         [0.1435, 0.2074, 0.2046, 0.1462, 0.1263, 0.1720],
#         [0.1526, 0.1958, 0.1975, 0.1367, 0.1879, 0.1295],
#         [0.1385, 0.2184, 0.2128, 0.1420, 0.0988, 0.1896]])", "all_attention_weights");
}

TEST(Tutorial004, TorchRandWeightsSeed123) {
  Pipeline p;
  run(&p, state_from(kRand123));
  // lines 303-313: W_query, W_key, W_value
  expect_printed(view(p, Stage::W_q), "[[0.2961, 0.5166], [0.2517, 0.6886], [0.0740, 0.8665]]", "W_query");
  expect_printed(view(p, Stage::W_k), "[[0.1366, 0.1025], [0.1841, 0.7264], [0.3153, 0.6871]]", "W_key");
  expect_printed(view(p, Stage::W_v), "[[0.0756, 0.1966], [0.3164, 0.4017], [0.1186, 0.8274]]", "W_value");
  // lines 323-325: query_2, key_2, value_2
  expect_printed_row(view(p, Stage::Q), 1, "[0.4306, 1.4551]", "query_2");
  expect_printed_row(view(p, Stage::K), 1, "[0.4433, 1.1419]", "key_2");
  expect_printed_row(view(p, Stage::V), 1, "[0.3951, 1.0037]", "value_2");
  // lines 334-345: keys, values
  expect_printed(view(p, Stage::K), R"([[0.3669, 0.7646], [0.4433, 1.1419], [0.4361, 1.1156],
      [0.2408, 0.6706], [0.1827, 0.3292], [0.3275, 0.9642]])", "keys");
  expect_printed(view(p, Stage::V), R"([[0.1855, 0.8812], [0.3951, 1.0037], [0.3879, 0.9831],
      [0.2393, 0.5493], [0.1492, 0.3346], [0.3221, 0.7863]])", "values");
  // line 352: attention_score_22
  expect_printed(attnviz::TensorView{&p.matrix(Stage::scores)->data[1 * 6 + 1], 1, 1, 1}, "[1.8524]",
                 "attention_score_22");
  // line 357: attention_score_2 = query_2 @ keys.T
  expect_printed_row(view(p, Stage::scores), 1, "[1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440]",
                     "attention_score_2");
  // line 366: softmax(attention_score_2 / d_k ** 0.5)
  expect_printed_row(view(p, Stage::weights), 1, "[0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820]",
                     "attention_weights_2");
  // line 373: context_vector_2
  expect_printed_row(view(p, Stage::context), 1, "[0.3061, 0.8210]", "context_vector_2");
  // line 439: SelfAttention_v1 (nn.Parameter(torch.rand(d_in, d_out)) × 3, seed 123): all outputs
  expect_printed(view(p, Stage::output), R"([[0.2996, 0.8053],
#         [0.3061, 0.8210],
#         [0.3058, 0.8203],
#         [0.2948, 0.7939],
#         [0.2927, 0.7891],
#         [0.2990, 0.8040]])", "SelfAttention_v1");
}

TEST(Tutorial004, LinearWeightsSeed789) {
  Pipeline p;
  run(&p, state_from(kLinear789));
  // line 509: SelfAttention_v2(inputs)
  expect_printed(view(p, Stage::output), R"([[-0.0739,  0.0713],
#         [-0.0748,  0.0703],
#         [-0.0749,  0.0702],
#         [-0.0760,  0.0685],
#         [-0.0763,  0.0679],
#         [-0.0754,  0.0693]])", "SelfAttention_v2");
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
  expect_printed(view(p, Stage::weights), R"([[0.1754, 0.1661, 0.1663, 0.1626, 0.1687, 0.1610],
#         [0.1793, 0.1666, 0.1667, 0.1606, 0.1668, 0.1599],
#         [0.1791, 0.1666, 0.1667, 0.1607, 0.1668, 0.1600],
#         [0.1736, 0.1667, 0.1668, 0.1633, 0.1665, 0.1630],
#         [0.1723, 0.1668, 0.1668, 0.1639, 0.1664, 0.1638],
#         [0.1758, 0.1667, 0.1667, 0.1623, 0.1667, 0.1618]])", "step 1 weights");
  // Step 4 (line 612): multiply by tril and renormalise = softmax with a causal
  // -inf mask, mathematically; our causal weights at the same divisor.
  s.causal = true;
  run(&p, s);
  expect_printed(view(p, Stage::weights), R"([[1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
#         [0.5183, 0.4817, 0.0000, 0.0000, 0.0000, 0.0000],
#         [0.3495, 0.3251, 0.3254, 0.0000, 0.0000, 0.0000],
#         [0.2590, 0.2487, 0.2488, 0.2435, 0.0000, 0.0000],
#         [0.2061, 0.1994, 0.1995, 0.1960, 0.1990, 0.0000],
#         [0.1758, 0.1667, 0.1667, 0.1623, 0.1667, 0.1618]])", "step 4 renormalised weights");
  // Step 5 (line 626): masked = attention_scores.masked_fill(triu, -inf) on the
  // UNscaled scores: scale "none", temperature 1.
  s.temperature = 1.0;
  run(&p, s);
  expect_printed(view(p, Stage::masked), R"([[0.2899,   -inf,   -inf,   -inf,   -inf,   -inf],
#         [0.4656, 0.1723,   -inf,   -inf,   -inf,   -inf],
#         [0.4594, 0.1703, 0.1731,   -inf,   -inf,   -inf],
#         [0.2642, 0.1024, 0.1036, 0.0186,   -inf,   -inf],
#         [0.2183, 0.0874, 0.0882, 0.0177, 0.0786,   -inf],
#         [0.3408, 0.1270, 0.1290, 0.0198, 0.1290, 0.0078]])", "step 5 masked");
}

const char* kCausalWeights = R"([[1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
#         [0.5517, 0.4483, 0.0000, 0.0000, 0.0000, 0.0000],
#         [0.3800, 0.3097, 0.3103, 0.0000, 0.0000, 0.0000],
#         [0.2758, 0.2460, 0.2462, 0.2319, 0.0000, 0.0000],
#         [0.2175, 0.1983, 0.1984, 0.1888, 0.1971, 0.0000],
#         [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]])";

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
  expect_printed(view(p, Stage::dropped), R"([[2.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
#         [0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
#         [0.7599, 0.6194, 0.6206, 0.0000, 0.0000, 0.0000],
#         [0.0000, 0.4921, 0.4925, 0.0000, 0.0000, 0.0000],
#         [0.0000, 0.3966, 0.0000, 0.3775, 0.0000, 0.0000],
#         [0.0000, 0.3327, 0.3331, 0.3084, 0.3331, 0.0000]])", "step 8 dropout(weights)");
}

const char* kCausalAttentionPrinted = R"([[-0.5337, -0.1051],
#          [-0.5323, -0.1080],
#          [-0.5323, -0.1079],
#          [-0.5297, -0.1076],
#          [-0.5311, -0.1066],
#          [-0.5299, -0.1081]])";

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
  expect_printed(view(p, Stage::output), R"([[-0.5337, -0.1051,  0.5085,  0.3508],
#          [-0.5323, -0.1080,  0.5084,  0.3508],
#          [-0.5323, -0.1079,  0.5084,  0.3506],
#          [-0.5297, -0.1076,  0.5074,  0.3471],
#          [-0.5311, -0.1066,  0.5076,  0.3446],
#          [-0.5299, -0.1081,  0.5077,  0.3493]])", "MultiHeadAttentionWrapper");
}

}  // namespace
