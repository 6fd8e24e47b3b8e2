// Tutorial 000 ("Once upon a time there", ../shared/seeds/000_19248112cfd369eb.txt):
// every table it prints that this pipeline produces, typed in as printed.
//
// Tolerance: half a unit of the last printed digit of each number (see
// engine_test_util.h): PyTorch rounds to what it prints, so the exact float32
// value lies within that distance of the printed number.
//
// How the tutorial's flow maps to one state: it calls torch.manual_seed(123)
// before nn.Embedding(5, 4) AND again before the three torch.rand(4, 4)
// (line 97), so the embedding and the weights are two independently seeded
// draws: {"embedding": {"init": "torch_randn", "seed": 123},
// "weights": {"init": "torch_rand", "seed": 123}}. That is also the default
// state ({}), checked below. Its scale is math.sqrt(embedding_dim) = √4 with
// one head, i.e. scale "head_dim".
#include <gtest/gtest.h>

#include <vector>

#include "attnviz/pipeline.h"
#include "attnviz/torch_rng.h"
#include "engine_test_util.h"

namespace {

using attnviz::Pipeline;
using attnviz::Stage;
using attnviz_test::expect_printed;
using attnviz_test::run;
using attnviz_test::state_from;
using attnviz_test::view;

const char* kTutorialState = R"({
  "version": 1, "tokens": ["Once", "upon", "a", "time", "there"],
  "d_model": 4, "d_out": 4, "num_heads": 1,
  "embedding": {"init": "torch_randn", "seed": 123},
  "weights": {"init": "torch_rand", "seed": 123},
  "scale": "head_dim"})";

TEST(Tutorial000, DefaultStateIsThisTutorial) {
  Pipeline a, b;
  run(&a, state_from("{}"));
  run(&b, state_from(kTutorialState));
  for (Stage s : {Stage::X, Stage::W_q, Stage::Q, Stage::weights, Stage::output}) {
    EXPECT_TRUE(attnviz_test::bitwise_equal(*a.matrix(s), *b.matrix(s))) << attnviz::stage_name(s);
  }
}

TEST(Tutorial000, UnmaskedTables) {
  Pipeline p;
  run(&p, state_from(kTutorialState));
  // line 77: X = embedding_layer(input_indices)
  expect_printed(view(p, Stage::X), R"([[ 0.3374, -0.1778, -0.3035, -0.5880],
        [ 1.5810,  1.3010,  1.2753, -0.2010],
        [-0.1606, -0.4015,  0.6957, -1.8061],
        [-1.1589,  0.3255, -0.6315, -2.8400],
        [-0.7849, -1.4096, -0.4076,  0.7953]])", "X");
  // line 128: W_Q
  expect_printed(view(p, Stage::W_q), R"([[0.2961, 0.5166, 0.2517, 0.6886],
        [0.0740, 0.8665, 0.1366, 0.1025],
        [0.1841, 0.7264, 0.3153, 0.6871],
        [0.0756, 0.1966, 0.3164, 0.4017]])", "W_Q");
  // line 138: Q = X @ W_Q
  expect_printed(view(p, Stage::Q), R"([[ -0.0136, -0.3159, -0.2211, -0.2307],
          [ 0.7839, 2.8310, 0.9140, 2.0175],
          [-0.0858, -0.2806, -0.4474, -0.3992],
          [-0.6501, -1.3338, -1.3449, -2.3394],
          [-0.3515, -1.7666, -0.2669, -0.6454]])", "Q");
  // line 168: scores = Q @ K.T
  expect_printed(view(p, Stage::scores), R"([[ 0.3101, -2.0474, 0.7024, 1.8280, 1.0647],
               [-2.5714, 17.4476, -5.5017, -14.6920, -9.3044],
               [ 0.6084, -2.9632, 1.4480, 3.1775, 1.4642],
               [ 2.8736, -14.6337, 6.4597, 14.7155, 7.4156],
               [ 0.9222, -8.1955, 1.8808, 5.9959, 4.5150]])", "scores");
  // line 200: attention_scores = scores / math.sqrt(embedding_dim)
  expect_printed(view(p, Stage::scaled), R"([[ 0.1551, -1.0237, 0.3512, 0.9140, 0.5323],
        [-1.2857, 8.7238, -2.7508, -7.3460, -4.6522],
        [ 0.3042, -1.4816, 0.7240, 1.5888, 0.7321],
        [ 1.4368, -7.3169, 3.2298, 7.3577, 3.7078],
        [ 0.4611, -4.0977, 0.9404, 2.9979, 2.2575]])", "scaled");
  // line 257: attention_weights = torch.softmax(attention_scores, dim=-1).
  // One exception, [3][1]: the tutorial printed 4.0538e-07, but PyTorch 1.13
  // on this project's machine computes 4.05385833e-07 (bitwise the engine's
  // value) and prints 4.0539e-07. The value sits 0.08 of a unit above the
  // rounding boundary 4.05385e-07, so the author's machine (another CPU and
  // BLAS) landed a few float32 ulps lower. That cell gets one whole unit.
  expect_printed(view(p, Stage::weights), R"([[1.6344e-01, 5.0283e-02, 1.9885e-01, 3.4910e-01, 2.3833e-01],
        [4.4966e-05, 9.9994e-01, 1.0389e-05, 1.0494e-07, 1.5519e-06],
        [1.2761e-01, 2.1395e-02, 1.9418e-01, 4.6106e-01, 1.9576e-01],
        [2.5676e-03, 4.0538e-07, 1.5426e-02, 9.5713e-01, 2.4878e-02],
        [4.6963e-02, 4.9191e-04, 7.5844e-02, 5.9361e-01, 2.8309e-01]])", "weights",
                 {{3, 1, 1e-11}, {3, 0, 1e-7}});
  // [3][0] likewise: PyTorch computes 0.0025676491 (fixture
  // tutorial000_rand_single_head), printed 2.5676e-03 as here. The engine sums
  // products without fused multiply-adds (kernels.h, contract 2, so native and
  // wasm SIMD agree), lands 6 float32 ulps higher at 0.0025676505, just past
  // the rounding boundary 0.00256765. One whole unit for that cell.
  // line 285: output = attention_weights @ V (no output projection: output = context)
  const char* output = R"([[-1.0221, -1.1318, -1.0966, -1.2475],
         [ 1.6613,  1.7716,  2.1347,  2.5049],
         [-1.3064, -1.3985, -1.3982, -1.5418],
         [-2.2928, -2.2490, -2.4211, -2.5138],
         [-1.6010, -1.6693, -1.7563, -1.9028]])";
  expect_printed(view(p, Stage::context), output, "context");
  expect_printed(view(p, Stage::output), output, "output");
}

TEST(Tutorial000, CausalMaskAndDropout) {
  // Lines 425-444: masked_scores = attention_scores + mask (additive 0/-inf);
  // equal to masked_fill(-inf) for finite scores. Lines 516-536: softmax, then
  // torch.manual_seed(123) and Dropout(0.2) on the [5, 5] weights (one head,
  // so the tutorial's tensor is exactly our [H, S, S] tensor).
  Pipeline p;
  auto s = state_from(kTutorialState);
  s.causal = true;
  s.dropout = {0.2, true, 123};
  run(&p, s);
  // line 444: masked scores
  expect_printed(view(p, Stage::masked), R"([[ 0.1551, -inf, -inf, -inf, -inf],
        [-1.2857, 8.7238, -inf, -inf, -inf],
        [ 0.3042, -1.4816, 0.7240, -inf, -inf],
        [ 1.4368, -7.3169, 3.2298, 7.3577, -inf],
        [ 0.4611, -4.0977, 0.9404, 2.9979, 2.2575]])", "masked");
  // line 525: weights after mask
  expect_printed(view(p, Stage::weights), R"([[1.0000e+00, 0.0000e+00, 0.0000e+00, 0.0000e+00, 0.0000e+00],
[4.4967e-05, 9.9996e-01, 0.0000e+00, 0.0000e+00, 0.0000e+00],
[3.7185e-01, 6.2345e-02, 5.6581e-01, 0.0000e+00, 0.0000e+00],
[2.6332e-03, 4.1573e-07, 1.5819e-02, 9.8155e-01, 0.0000e+00],
[4.6963e-02, 4.9191e-04, 7.5844e-02, 5.9361e-01, 2.8309e-01]])", "causal weights");
  // line 536: weights after Dropout
  expect_printed(view(p, Stage::dropped), R"([[[1.2500e+00, 0.0000e+00, 0.0000e+00, 0.0000e+00, 0.0000e+00],
         [5.6209e-05, 1.2499e+00, 0.0000e+00, 0.0000e+00, 0.0000e+00],
         [0.0000e+00, 7.7931e-02, 7.0726e-01, 0.0000e+00, 0.0000e+00],
         [3.2914e-03, 5.1966e-07, 1.9774e-02, 1.2269e+00, 0.0000e+00],
         [5.8704e-02, 6.1489e-04, 9.4804e-02, 7.4201e-01, 3.5387e-01]]])", "dropped",
                 {{4, 2, 1e-6}});
  // [4][2]: PyTorch computes 0.09480447 (fixture tutorial000_causal_dropout02);
  // the engine, without fused multiply-adds (kernels.h, contract 2), 0.094804503,
  // 4 ulps higher and just past the rounding boundary 0.0948045. One whole unit.
}

TEST(Tutorial000, SelfAttentionWithLinearLayers) {
  // Line 350: torch.manual_seed(123); SelfAttentionV2(4, 4)(X): nn.Linear Q, K, V
  // (no bias) from a fresh seed 123, scaled by K.shape[-1] ** 0.5 = √head_dim.
  Pipeline p;
  auto s = state_from(kTutorialState);
  s.weights.init = attnviz::WeightInit::torch_linear;
  s.weights.seed = 123;
  run(&p, s);
  expect_printed(view(p, Stage::output), R"([[ 0.1318, -0.1000, -0.4239, -0.0858],
        [-0.0532,  0.2164, -0.8386, -0.1107],
        [ 0.2318, -0.2270, -0.4083, -0.0919],
        [ 0.4762, -0.5514, -0.2901, -0.0859],
        [ 0.0700, -0.0399, -0.3281, -0.0728]])", "SelfAttentionV2 output");
}

// The batched modules (lines 600-869) draw torch.randn(2, 5, d) and then the
// modules' nn.Linear weights from ONE seeded stream. A state seeds embedding
// and weights separately, so the closest exact thing is explicit values: the
// same draws made with the engine's TorchGenerator, one state per batch item.
struct BatchedDraws {
  std::vector<float> batch;                 // (2 × 5 × d_in), torch.randn(2, 5, d_in)
  std::vector<std::vector<float>> linears;  // each (out × in), nn.Linear layout
  std::vector<std::vector<float>> biases;
};

attnviz::Tensor transpose_into(const std::vector<float>& w, int out, int in) {
  attnviz::Tensor t(in, out);  // x·W orientation
  for (int o = 0; o < out; ++o) {
    for (int k = 0; k < in; ++k) t.at(k, o) = w[static_cast<size_t>(o) * in + k];
  }
  return t;
}

attnviz::State batch_state(const std::vector<float>& batch, int item, int d_in) {
  attnviz::State s;
  s.tokens = {"t0", "t1", "t2", "t3", "t4"};
  s.d_model = d_in;
  s.embedding.init = attnviz::EmbeddingInit::values;
  s.embedding.values.reset(5, d_in);
  for (int i = 0; i < 5 * d_in; ++i) s.embedding.values.mut().data[i] = batch[static_cast<size_t>(item) * 5 * d_in + i];
  s.weights.init = attnviz::WeightInit::values;
  s.causal = true;
  return s;
}

TEST(Tutorial000, BatchedCausalAttention) {
  // Lines 612-636: torch.manual_seed(123); batch = torch.randn(2, 5, 4);
  // CausalAttention(4, 4, 5, dropout=0.0): W_Q, W_K, W_V = nn.Linear(4, 4, bias=False).
  attnviz::TorchGenerator g(123);
  std::vector<float> batch(40), wq(16), wk(16), wv(16);
  g.normal(batch.data(), batch.size());
  g.linear_init(wq.data(), nullptr, 4, 4);
  g.linear_init(wk.data(), nullptr, 4, 4);
  g.linear_init(wv.data(), nullptr, 4, 4);
  const char* printed[2] = {R"([[-0.0487, -0.0112, 0.0449, 0.3506],
[ 0.0439, 0.1278, 0.1848, 0.1733],
[-0.2467, -0.1078, 0.2722, 0.5128],
[-0.1638, 0.0053, 0.3753, 0.3111],
[ 0.0264, 0.1455, 0.3622, 0.0182]])",
                            R"([[ 0.0960, 0.4257, 1.7419, 0.2045],
[-0.0967, 0.2774, 1.1946, 0.5023],
[ 0.1017, 0.2037, 0.4849, 0.1862],
[-0.0775, 0.1062, 0.3737, 0.3387],
[-0.1181, -0.0113, 0.1070, 0.2743]])"};
  for (int b = 0; b < 2; ++b) {
    attnviz::State s = batch_state(batch, b, 4);
    s.weights.W_q = transpose_into(wq, 4, 4);
    s.weights.W_k = transpose_into(wk, 4, 4);
    s.weights.W_v = transpose_into(wv, 4, 4);
    Pipeline p;
    run(&p, s);
    expect_printed(view(p, Stage::output), printed[b], "CausalAttention batch " + std::to_string(b));
  }
}

TEST(Tutorial000, MultiHeadAttentionWrapperIsPerHeadLayout) {
  // Lines 705-735: torch.manual_seed(123); batch = torch.randn(2, 5, 6);
  // MultiHeadAttentionWrapper(6, 6, 5, 0.0, num_heads=2): two CausalAttention(6, 3),
  // each drawing W_Q, W_K, W_V = nn.Linear(6, 3, bias=False) — the per_head layout.
  // A quirk the printed numbers prove: CausalAttention.forward divides by
  // `d_out ** 0.5` where d_out is not an attribute but the script's global
  // (line 5 of the calling code: d_out = 6), so each 3-wide head is scaled by
  // √6, i.e. scale "d_out". With √3 ("head_dim") rows 1-4 differ by up to 0.03.
  attnviz::TorchGenerator g(123);
  std::vector<float> batch(60);
  g.normal(batch.data(), batch.size());
  attnviz::Tensor W[3] = {attnviz::Tensor(6, 6), attnviz::Tensor(6, 6), attnviz::Tensor(6, 6)};
  for (int h = 0; h < 2; ++h) {
    for (int m = 0; m < 3; ++m) {
      std::vector<float> w(18);
      g.linear_init(w.data(), nullptr, 6, 3);
      const attnviz::Tensor t = transpose_into(w, 3, 6);
      for (int k = 0; k < 6; ++k) {
        for (int o = 0; o < 3; ++o) W[m].at(k, h * 3 + o) = t.at(k, o);
      }
    }
  }
  const char* printed[2] = {R"([[-0.0067, -0.0370, 0.2712, -0.5243, -0.0242, -0.0438],
          [-0.1782, 0.0173, -0.0166, -0.2391, -0.0284, 0.2177],
          [-0.1541, 0.2878, -0.2018, 0.2535, 0.0242, 0.3002],
          [-0.2817, 0.5219, -0.0699, 0.5508, -0.2767, 0.3709],
          [-0.0355, -0.1721, 0.0981, 0.2389, -0.1460, 0.1938]])",
                            R"([[ 0.7943, -1.9382, 0.2171, -1.6710, 0.7970, -1.3094],
          [ 0.2519, -1.1446, 0.2991, -1.5203, 0.3135, -0.9541],
          [ 0.1920, -0.8646, 0.3794, -0.9135, 0.0203, -0.5454],
          [ 0.2565, -0.8320, 0.1292, -0.9259, 0.2156, -0.4762],
          [ 0.1519, -0.5043, 0.1079, -0.3281, 0.1523, -0.1446]])"};
  for (int b = 0; b < 2; ++b) {
    attnviz::State s = batch_state(batch, b, 6);
    s.d_out = 6;
    s.num_heads = 2;
    s.scale = attnviz::ScaleMode::d_out;
    s.weights.W_q = W[0];
    s.weights.W_k = W[1];
    s.weights.W_v = W[2];
    Pipeline p;
    run(&p, s);
    expect_printed(view(p, Stage::output), printed[b], "wrapper batch " + std::to_string(b));
  }
}

TEST(Tutorial000, WeightSplitMultiHeadAttentionScalesBySqrtDOut) {
  // Lines 825-855: torch.manual_seed(123); batch = torch.randn(2, 5, 6);
  // MultiHeadAttention(6, 6, 5, 0.0, num_heads=2): W_Q, W_K, W_V = nn.Linear(6, 6,
  // bias=False), W_O = nn.Linear(6, 6) (with bias); scores / d_out ** 0.5 — the
  // README's quirk, scale "d_out" (√6, not √head_dim = √3).
  attnviz::TorchGenerator g(123);
  std::vector<float> batch(60), wq(36), wk(36), wv(36), wo(36), bo(6);
  g.normal(batch.data(), batch.size());
  g.linear_init(wq.data(), nullptr, 6, 6);
  g.linear_init(wk.data(), nullptr, 6, 6);
  g.linear_init(wv.data(), nullptr, 6, 6);
  g.linear_init(wo.data(), bo.data(), 6, 6);
  const char* printed[2] = {R"([[-0.5829, -0.5644, 0.1930, -0.1541, 0.2518, -0.2252],
          [-0.2962, -0.2681, 0.1179, 0.1136, 0.0953, -0.4015],
          [-0.2039, -0.0745, 0.1557, -0.0494, 0.1125, -0.5282],
          [-0.2540, 0.1181, 0.2729, -0.1182, 0.0321, -0.5292],
          [-0.2007, 0.0280, 0.1645, -0.0798, 0.1264, -0.5020]])",
                            R"([[-0.2307, -1.7354, -0.4065, 0.3778, 0.9090, -0.1498],
          [-0.5355, -1.2480, -0.0049, 0.1522, 0.5635, -0.0269],
          [-0.4674, -0.8466, 0.0176, 0.1337, 0.4053, -0.2230],
          [-0.3683, -0.6768, 0.0088, 0.0933, 0.3034, -0.3600],
          [-0.2545, -0.5944, -0.0236, 0.0762, 0.3629, -0.3780]])"};
  for (int b = 0; b < 2; ++b) {
    attnviz::State s = batch_state(batch, b, 6);
    s.d_out = 6;
    s.num_heads = 2;
    s.scale = attnviz::ScaleMode::d_out;
    s.out_proj = true;
    s.out_bias = true;
    s.weights.W_q = transpose_into(wq, 6, 6);
    s.weights.W_k = transpose_into(wk, 6, 6);
    s.weights.W_v = transpose_into(wv, 6, 6);
    s.weights.W_o = transpose_into(wo, 6, 6);
    s.weights.b_o.reset(1, 6);
    for (int j = 0; j < 6; ++j) s.weights.b_o.mut().data[j] = bo[j];
    Pipeline p;
    run(&p, s);
    expect_printed(view(p, Stage::output), printed[b], "MultiHeadAttention batch " + std::to_string(b));
  }
}

}  // namespace
