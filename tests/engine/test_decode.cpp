// Decoding with a KV cache (attnviz/decode.h): every step t of every head equals
// row t of the pipeline's full causal result bit for bit (memcmp), for many
// set-ups; and the KV cache's byte counts.
//
// The variants of issue 23 (RoPE, GQA/MQA, ALiBi, the window) are checked only
// once the pipeline computes them: before the engine wiring is merged
// (i23-variants) the pipeline computes plain attention for them, which a
// genuine decode step cannot equal, so those tests skip and say why
// (variant_pending).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attnviz/decode.h"
#include "attnviz/explain.h"
#include "attnviz/kernels.h"
#include "attnviz/materialize.h"
#include "attnviz/pipeline.h"
#include "attnviz/variants.h"
#include "engine_test_util.h"

namespace {

using attnviz::DecodeDiffers;
using attnviz::DecodeStep;
using attnviz::Pipeline;
using attnviz::Stage;
using attnviz::State;
using attnviz::Tensor;
using attnviz_test::run;
using attnviz_test::state_from;
using attnviz_test::tokens_json;

// A state of S tokens with `extra` JSON fields ("d_model": 8, … , causal).
State make(int S, const std::string& extra) {
  return state_from("{\"tokens\": " + tokens_json(S) + ", \"causal\": true" + (extra.empty() ? "" : ", " + extra) +
                    "}");
}

// Every step of every head equals the full result's row, stage by stage; the
// step's own checks spelled out for the first failure.
void expect_every_step_matches(const State& s) {
  Pipeline p;
  run(&p, s);
  DecodeStep d;
  for (int h = 0; h < p.num_heads(); ++h) {
    for (int t = 0; t < p.seq_len(); ++t) {
      ASSERT_TRUE(attnviz::decode_step(p, h, t, &d));
      ASSERT_EQ(d.differs, DecodeDiffers::no) << "h" << h << " t" << t;
      const int live = t + 1;
      const Tensor* w = p.matrix(Stage::weights, h);
      ASSERT_EQ(std::memcmp(d.scores.row(0), p.matrix(Stage::scores, h)->row(t), 4u * live), 0)
          << "scores h" << h << " t" << t;
      ASSERT_EQ(std::memcmp(d.masked.row(0), p.matrix(Stage::masked, h)->row(t), 4u * live), 0)
          << "masked h" << h << " t" << t;
      ASSERT_EQ(std::memcmp(d.weights.row(0), w->row(t), 4u * live), 0) << "weights h" << h << " t" << t;
      ASSERT_EQ(std::memcmp(d.dropped.row(0), p.matrix(Stage::dropped, h)->row(t), 4u * live), 0)
          << "dropped h" << h << " t" << t;
      ASSERT_EQ(std::memcmp(d.context.row(0), p.matrix(Stage::context, h)->row(t), 4u * d.head_dim), 0)
          << "context h" << h << " t" << t;
      ASSERT_TRUE(attnviz::decode_matches_pipeline(p, d)) << "h" << h << " t" << t;
    }
  }
}
// Issue 23's variants: every step bit for bit the pipeline's row.
#define DECODE_VARIANT(state) expect_every_step_matches(state)

const char* kSmall = "\"d_model\": 8, \"d_out\": 8, \"num_heads\": 2";

TEST(Decode, TutorialDefaultCausal) { expect_every_step_matches(make(5, "")); }

TEST(Decode, ShortAndLongRows) {
  // S < 8 (the row summed in order), 8, 9 (one key past a lane block), and long
  // rows with many lane blocks, not multiples of 8.
  for (int S : {1, 2, 7, 8, 9, 15, 16, 17, 33, 70}) {
    SCOPED_TRACE(S);
    expect_every_step_matches(make(S, kSmall));
  }
}

// Every implementation of the kernels (portable loops, AVX2; SIMD128 in the wasm
// build) gives the same bits, so the step matches under each.
TEST(Decode, EveryKernelImplementation) {
  const attnviz::kernels::Isa was = attnviz::kernels::active_isa();
  for (auto isa : {attnviz::kernels::Isa::portable, attnviz::kernels::Isa::avx2, attnviz::kernels::Isa::wasm_simd128}) {
    if (!attnviz::kernels::set_isa(isa)) continue;
    SCOPED_TRACE(attnviz::kernels::isa_name(isa));
    State s = make(21, kSmall);
    s.dropout.p = 0.1;
    s.dropout.training = true;
    expect_every_step_matches(s);
    expect_every_step_matches(make(6, kSmall));
  }
  attnviz::kernels::set_isa(was);
}

TEST(Decode, ManyHeadsTorchLinear) {
  expect_every_step_matches(make(24, "\"d_model\": 16, \"d_out\": 16, \"num_heads\": 4, "
                                     "\"weights\": {\"init\": \"torch_linear\", \"seed\": 7}, \"qkv_bias\": true, "
                                     "\"out_proj\": true"));
}

TEST(Decode, PaddingMasksSomeKeys) {
  State s = make(20, kSmall);
  s.key_padding.assign(20, 1);
  for (int j : {1, 4, 5, 13, 19}) s.key_padding[j] = 0;
  expect_every_step_matches(s);
}

TEST(Decode, PaddingFirstKeysGivesNanOrSafeZeros) {
  // Rows 0 and 1 have every key masked: NaN, or zeros under safe softmax.
  for (bool safe : {false, true}) {
    for (int S : {5, 12}) {
      SCOPED_TRACE(S);
      State s = make(S, kSmall);
      s.key_padding.assign(S, 1);
      s.key_padding[0] = s.key_padding[1] = 0;
      s.safe_softmax = safe;
      expect_every_step_matches(s);
      Pipeline p;
      run(&p, s);
      const DecodeStep d = attnviz::decode_step(p, 0, 1);
      EXPECT_EQ(std::isnan(d.weights.data[0]), !safe);
    }
  }
}

TEST(Decode, FiniteFillFarBelowTheMax) {
  State s = make(12, kSmall);
  s.mask_fill = -1e9;  // HF's finfo.min style fill: its exp is exactly 0
  s.key_padding.assign(12, 1);
  s.key_padding[3] = 0;
  expect_every_step_matches(s);
}

TEST(Decode, FiniteFillThatLeaksIsReported) {
  State s = make(12, kSmall);
  s.mask_fill = 0.0;  // the masked future keys keep weight in the full result
  Pipeline p;
  run(&p, s);
  int leaked = 0;
  for (int t = 0; t < 12; ++t) {
    const DecodeStep d = attnviz::decode_step(p, 0, t);
    if (t == 11) {
      EXPECT_EQ(d.differs, DecodeDiffers::no);
    }
    if (d.differs == DecodeDiffers::fill_leaks) {
      ++leaked;
      EXPECT_FALSE(attnviz::decode_matches_pipeline(p, d)) << t;
    } else {
      EXPECT_TRUE(attnviz::decode_matches_pipeline(p, d)) << t;
    }
  }
  EXPECT_GT(leaked, 0);
}

TEST(Decode, DropoutWhileTraining) {
  State s = make(19, kSmall);
  s.dropout.p = 0.3;
  s.dropout.training = true;
  s.dropout.seed = 5;
  expect_every_step_matches(s);
}

TEST(Decode, TemperatureAndScale) {
  State s = make(13, kSmall);
  s.temperature = 0.37;
  s.scale = attnviz::ScaleMode::d_out;
  expect_every_step_matches(s);
  s.scale = attnviz::ScaleMode::none;
  s.temperature = 3.0;
  expect_every_step_matches(s);
}

TEST(Decode, ExplicitValues) {
  State s = attnviz::materialize_weights(attnviz::materialize_embedding(make(11, kSmall)));
  std::mt19937 rng(3);
  std::normal_distribution<float> n(0.0f, 2.0f);
  for (float& v : s.embedding.values.mut().data) v = n(rng);
  for (float& v : s.weights.W_q.mut().data) v = n(rng);
  expect_every_step_matches(s);
}

TEST(Decode, SinusoidalPositions) { expect_every_step_matches(make(10, std::string(kSmall) + ", \"positional\": \"sinusoidal\"")); }

TEST(Decode, NotCausalIsDecodedAsIfCausal) {
  State s = make(10, kSmall);
  s.causal = false;
  Pipeline p, pc;
  run(&p, s);
  s.causal = true;
  run(&pc, s);
  for (int t = 0; t < 10; ++t) {
    const DecodeStep d = attnviz::decode_step(p, 1, t), dc = attnviz::decode_step(pc, 1, t);
    EXPECT_EQ(d.differs, DecodeDiffers::not_causal);
    EXPECT_EQ(std::memcmp(d.weights.row(0), dc.weights.row(0), 4u * (t + 1)), 0);
    EXPECT_EQ(std::memcmp(d.context.row(0), dc.context.row(0), 4u * d.head_dim), 0);
    if (t < 9) {
      EXPECT_FALSE(attnviz::decode_matches_pipeline(p, d)) << t;
    }
  }
}

TEST(Decode, OutOfRangeGivesNoStep) {
  Pipeline p;
  DecodeStep d;
  EXPECT_FALSE(attnviz::decode_step(p, 0, 0, &d));
  run(&p, make(5, ""));
  EXPECT_FALSE(attnviz::decode_step(p, 0, 5, &d));
  EXPECT_FALSE(attnviz::decode_step(p, 1, 0, &d));
  EXPECT_FALSE(attnviz::decode_step(p, 0, -1, &d));
  EXPECT_FALSE(d.valid());
  EXPECT_TRUE(attnviz::decode_step(p, 0, 4, &d));
  EXPECT_EQ(d.keys.rows, 5);
  EXPECT_EQ(d.scores.cols, 5);
}

// The finding behind softmax_step: a short row (t+1 < 8) summed in order is not
// always the full row's bits when S >= 8 (the full row is summed in 8 lanes).
// Count how often the naive softmax over the t+1 entries differs.
TEST(Decode, NaiveShortSoftmaxDiffersSomewhere) {
  int differ = 0, rows = 0;
  for (int seed = 1; seed <= 40; ++seed) {
    State s = make(16, std::string(kSmall) + ", \"embedding\": {\"seed\": " + std::to_string(seed) + "}");
    Pipeline p;
    run(&p, s);
    for (int h = 0; h < 2; ++h)
      for (int t = 2; t < 7; ++t) {
        const DecodeStep d = attnviz::decode_step(p, h, t);
        float naive[8];
        attnviz::kernels::softmax_row(d.masked.row(0), naive, t + 1, false);
        ++rows;
        if (std::memcmp(naive, p.matrix(Stage::weights, h)->row(t), 4u * (t + 1)) != 0) ++differ;
      }
  }
  std::printf("naive short-row softmax differs from the full row in %d of %d rows\n", differ, rows);
  EXPECT_GT(differ, 0);
}

// ---- the variants (pending the engine merge: they skip until the pipeline computes them)

TEST(DecodeVariants, RopeHalf) { DECODE_VARIANT(make(12, std::string(kSmall) + ", \"positional\": \"rope\"")); }
TEST(DecodeVariants, RopeInterleaved) {
  DECODE_VARIANT(make(12, std::string(kSmall) + ", \"positional\": \"rope\", \"rope\": {\"style\": \"interleaved\", "
                                                "\"base\": 500}"));
}
TEST(DecodeVariants, Gqa) {
  DECODE_VARIANT(make(14, "\"d_model\": 16, \"d_out\": 16, \"num_heads\": 4, \"num_kv_heads\": 2"));
}
TEST(DecodeVariants, Mqa) {
  DECODE_VARIANT(make(14, "\"d_model\": 16, \"d_out\": 16, \"num_heads\": 4, \"num_kv_heads\": 1"));
}
TEST(DecodeVariants, Alibi) { DECODE_VARIANT(make(13, std::string(kSmall) + ", \"alibi\": true")); }
TEST(DecodeVariants, Window) {
  DECODE_VARIANT(make(20, std::string(kSmall) + ", \"window\": 3"));
  DECODE_VARIANT(make(20, std::string(kSmall) + ", \"window\": 8"));
}
TEST(DecodeVariants, Everything) {
  State s = make(23, "\"d_model\": 16, \"d_out\": 16, \"num_heads\": 4, \"num_kv_heads\": 2, \"positional\": \"rope\", "
                     "\"alibi\": true, \"window\": 5, \"qkv_bias\": true");
  s.dropout.p = 0.2;
  s.dropout.training = true;
  s.key_padding.assign(23, 1);
  s.key_padding[6] = 0;
  DECODE_VARIANT(s);
}
TEST(DecodeVariants, MqaRopeWindowNotCausalIsDecodedAsIfCausal) {
  State s = make(9, "\"d_model\": 8, \"d_out\": 8, \"num_heads\": 2, \"num_kv_heads\": 1, \"positional\": \"rope\", "
                    "\"window\": 4");
  s.causal = false;
  Pipeline p;
  run(&p, s);
  const DecodeStep d = attnviz::decode_step(p, 1, 6);
  ASSERT_TRUE(d.valid());
  EXPECT_EQ(d.kv_head, 0);
  EXPECT_EQ(d.window_start, 3);
  EXPECT_EQ(d.differs, DecodeDiffers::not_causal);
  for (int j = 0; j < 7; ++j) EXPECT_EQ(d.key_masked[j], j < 3 ? 1 : 0) << j;
}

// ---- the variants against a full result computed here, as the pipeline is being
// wired to compute it (S-long rows through the same kernels: RoPE over the whole
// table, scores over all S keys, masked under the MaskRule, the softmax over
// kernels::softmax_cut(t+1, S) entries as softmax_rows.cpp's compute_weights_row,
// context over all S terms). Runs now, before the merge, from the pipeline's Q, K, V.

struct FullRow {
  std::vector<float> q, scores, masked, weights, context;  // (head_dim) (S) (S) (S) (head_dim)
  std::vector<float> keys;                                 // (S × head_dim) k_rot or K_g
};

FullRow full_causal_row(const Pipeline& p, int h, int t) {
  const State& s = p.state();
  const int S = p.seq_len(), H = p.num_heads(), hd = p.head_dim();
  const int g = attnviz::kv_head_of(h, H, s.kv_heads());
  const Tensor& Q = *p.matrix(Stage::Q);
  const Tensor& K = *p.matrix(Stage::K);
  const Tensor& V = *p.matrix(Stage::V);
  FullRow r;
  r.q.assign(Q.row(t) + h * hd, Q.row(t) + (h + 1) * hd);
  r.keys.resize(static_cast<size_t>(S) * hd);
  for (int j = 0; j < S; ++j) std::memcpy(&r.keys[static_cast<size_t>(j) * hd], K.row(j) + g * hd, 4u * hd);
  if (s.positional == attnviz::Positional::rope) {
    attnviz::RopeTable tab;
    attnviz::rope_table(s.rope.base, hd, S, &tab);
    std::vector<float> x = r.q;
    attnviz::rope_rotate_row(s.rope.style, tab, t, x.data(), r.q.data(), hd);
    for (int j = 0; j < S; ++j) {
      x.assign(&r.keys[static_cast<size_t>(j) * hd], &r.keys[static_cast<size_t>(j + 1) * hd]);
      attnviz::rope_rotate_row(s.rope.style, tab, j, x.data(), &r.keys[static_cast<size_t>(j) * hd], hd);
    }
  }
  // scores row t = q · Kᵀ over all S keys, by matmul_rows with B = Kᵀ (head_dim × S).
  std::vector<float> kt(static_cast<size_t>(hd) * S);
  attnviz::kernels::transpose(r.keys.data(), hd, S, hd, kt.data(), S);
  r.scores.resize(S);
  const int row0 = 0;
  attnviz::kernels::matmul_rows(r.q.data(), hd, kt.data(), S, nullptr, r.scores.data(), S, hd, S, &row0, 1);
  std::vector<uint8_t> padded;
  if (!s.key_padding.empty())
    for (uint8_t k : s.key_padding) padded.push_back(k == 0);
  attnviz::kernels::MaskRule rule;
  rule.divisor = p.divisor();
  rule.causal = true;
  rule.key_padded = padded.empty() ? nullptr : padded.data();
  rule.fill = static_cast<float>(s.mask_fill);
  rule.window = s.window;
  rule.slope = s.alibi ? attnviz::alibi_slopes(H)[h] : 0.0f;
  if (s.kv_cache.streaming()) {
    rule.cache_sinks = s.kv_cache.sink_tokens;
    rule.cache_recent = s.kv_cache.recent;
  }
  const attnviz::kernels::Sink sink{s.sinks.logit(h), S};
  const attnviz::kernels::Sink* sk = s.sinks.enabled ? &sink : nullptr;
  r.masked.resize(S);
  attnviz::kernels::masked_row(r.scores.data(), r.masked.data(), S, t, rule);
  r.weights = r.masked;
  const int cut = std::isinf(rule.fill) ? attnviz::kernels::softmax_cut(t + 1, S) : S;
  attnviz::kernels::softmax_row(r.weights.data(), r.weights.data(), cut, false, sk);
  if (std::isnan(r.weights[0])) {
    r.weights = r.masked;
    attnviz::kernels::softmax_row(r.weights.data(), r.weights.data(), S, s.safe_softmax, sk);
  } else {
    std::fill(r.weights.begin() + cut, r.weights.end(), 0.0f);
  }
  if (p.dropout_active())
    attnviz::kernels::dropout_row(r.weights.data(), p.dropout_keep(h) + static_cast<size_t>(t) * S, r.weights.data(), S,
                                  p.dropout_scale());
  r.context.resize(hd);
  attnviz::kernels::matmul_rows(r.weights.data(), S, V.data.data() + g * hd, V.cols, nullptr, r.context.data(), hd, S,
                                hd, &row0, 1);
  return r;
}

// decode_step equals that full row for every t and head (dropped compared as the
// weights after dropout). States without GQA only: the pipeline cannot hold one yet.
void expect_decode_equals_reference(const State& s) {
  Pipeline p;
  run(&p, s);
  for (int h = 0; h < p.num_heads(); ++h)
    for (int t = 0; t < p.seq_len(); ++t) {
      const DecodeStep d = attnviz::decode_step(p, h, t);
      const FullRow r = full_causal_row(p, h, t);
      const int live = t + 1, hd = d.head_dim;
      ASSERT_EQ(std::memcmp(d.query.row(0), r.q.data(), 4u * hd), 0) << "q h" << h << " t" << t;
      ASSERT_EQ(std::memcmp(d.keys.row(0), r.keys.data(), 4u * hd * live), 0) << "keys h" << h << " t" << t;
      ASSERT_EQ(std::memcmp(d.scores.row(0), r.scores.data(), 4u * live), 0) << "scores h" << h << " t" << t;
      ASSERT_EQ(std::memcmp(d.masked.row(0), r.masked.data(), 4u * live), 0) << "masked h" << h << " t" << t;
      ASSERT_EQ(std::memcmp(d.dropped.row(0), r.weights.data(), 4u * live), 0) << "weights h" << h << " t" << t;
      ASSERT_EQ(std::memcmp(d.context.row(0), r.context.data(), 4u * hd), 0) << "context h" << h << " t" << t;
    }
}

TEST(DecodeReference, PlainStatesAgreeWithTheReferenceToo) {
  expect_decode_equals_reference(make(17, kSmall));
}
TEST(DecodeReference, RopeBothStyles) {
  expect_decode_equals_reference(make(19, std::string(kSmall) + ", \"positional\": \"rope\""));
  expect_decode_equals_reference(
      make(19, std::string(kSmall) + ", \"positional\": \"rope\", \"rope\": {\"style\": \"interleaved\"}"));
}
TEST(DecodeReference, AlibiAndWindow) {
  expect_decode_equals_reference(make(21, std::string(kSmall) + ", \"alibi\": true"));
  for (int w : {1, 3, 8, 9, 40}) {
    SCOPED_TRACE(w);
    expect_decode_equals_reference(make(21, std::string(kSmall) + ", \"window\": " + std::to_string(w)));
  }
}
TEST(DecodeReference, EverythingButGqa) {
  State s = make(26, std::string(kSmall) + ", \"positional\": \"rope\", \"alibi\": true, \"window\": 6");
  s.dropout.p = 0.25;
  s.dropout.training = true;
  s.key_padding.assign(26, 1);
  s.key_padding[2] = s.key_padding[11] = 0;
  s.temperature = 0.7;
  expect_decode_equals_reference(s);
  s.mask_fill = -1e9;
  expect_decode_equals_reference(s);
}

TEST(DecodeReference, SinksAndStreamingLlm) {
  State s = make(25, std::string(kSmall) + ", \"sinks\": {\"enabled\": true, \"values\": [0.75, -1.5]}");
  expect_decode_equals_reference(s);
  s.kv_cache.policy = attnviz::CachePolicy::streaming_llm;
  s.kv_cache.sink_tokens = 2;
  s.kv_cache.recent = 5;
  expect_decode_equals_reference(s);
  s.sinks.enabled = false;
  s.positional = attnviz::Positional::rope;
  s.alibi = true;
  s.dropout.p = 0.2;
  s.dropout.training = true;
  expect_decode_equals_reference(s);
}

// ---- gpt-oss's sinks (issue 36): the sink's exp joins the step's max and sum,
// in the lane of column S, so every step is still the full row bit for bit.

std::string sinks_json(std::initializer_list<float> v) {
  std::string out = "\"sinks\": {\"enabled\": true, \"values\": [";
  bool first = true;
  for (float x : v) {
    out += (first ? "" : ", ") + std::to_string(x);
    first = false;
  }
  return out + "]}";
}

TEST(DecodeSinks, ShortAndLongRows) {
  // S + 1 below 8, at 8 (S = 7: the row of 8 is summed in lanes), and past it.
  for (int S : {1, 2, 6, 7, 8, 9, 15, 16, 17, 33, 70}) {
    SCOPED_TRACE(S);
    expect_every_step_matches(make(S, std::string(kSmall) + ", " + sinks_json({0.5f, -0.25f})));
  }
}

TEST(DecodeSinks, EveryKernelImplementationAndLogit) {
  const attnviz::kernels::Isa was = attnviz::kernels::active_isa();
  for (auto isa : {attnviz::kernels::Isa::portable, attnviz::kernels::Isa::avx2, attnviz::kernels::Isa::wasm_simd128}) {
    if (!attnviz::kernels::set_isa(isa)) continue;
    SCOPED_TRACE(attnviz::kernels::isa_name(isa));
    for (float logit : {-30.0f, -1.0f, 0.0f, 2.0f, 40.0f}) {
      SCOPED_TRACE(logit);
      State s = make(19, std::string(kSmall) + ", " + sinks_json({logit, 0.125f}));
      expect_every_step_matches(s);
      s.dropout.p = 0.1;
      s.dropout.training = true;
      expect_every_step_matches(s);
    }
  }
  attnviz::kernels::set_isa(was);
}

TEST(DecodeSinks, WithTheVariantsPaddingAndAFiniteFill) {
  State s = make(23, "\"d_model\": 16, \"d_out\": 16, \"num_heads\": 4, \"num_kv_heads\": 2, "
                     "\"positional\": \"rope\", \"alibi\": true, \"window\": 5, \"qkv_bias\": true, " +
                         sinks_json({0.0f, 1.0f, -2.0f, 0.5f}));
  s.key_padding.assign(23, 1);
  s.key_padding[0] = s.key_padding[9] = 0;  // row 0 has no key left: zeros, the sink takes it all
  expect_every_step_matches(s);
  Pipeline p;
  run(&p, s);
  const DecodeStep d0 = attnviz::decode_step(p, 0, 0);
  EXPECT_EQ(d0.weights.data[0], 0.0f);
  EXPECT_EQ(d0.sink_weight, 1.0f);
  s.mask_fill = -1e9;
  expect_every_step_matches(s);
}

// The step's sink weight is what torch's dropped column holds: the full row's
// softmax over [masked row, s_h] at column S (the explanation computes it so).
TEST(DecodeSinks, SinkWeightIsTheDroppedColumn) {
  const State s = make(12, std::string(kSmall) + ", " + sinks_json({1.5f, -0.5f}));
  Pipeline p;
  run(&p, s);
  for (int h = 0; h < 2; ++h)
    for (int t = 0; t < 12; ++t) {
      const DecodeStep d = attnviz::decode_step(p, h, t);
      const attnviz::Explanation e = p.explain(Stage::weights, h, t, 0);
      ASSERT_TRUE(e.sink);
      EXPECT_EQ(std::memcmp(&d.sink_weight, &e.sink_share, 4), 0) << h << " " << t;
      EXPECT_GT(d.sink_weight, 0.0f);
      double sum = d.sink_weight;
      for (int j = 0; j <= t; ++j) sum += d.weights.data[j];
      EXPECT_NEAR(sum, 1.0, 1e-6);
    }
}

// Why the step puts the sink in column S's lane: a decoder that appends the sink
// right after its t+1 keys (as PyTorch's cached gpt-oss does) sums in another
// order and differs from the full row now and then.
TEST(DecodeSinks, SinkAfterTheCachedKeysDiffersSomewhere) {
  int differ = 0, rows = 0;
  for (int seed = 1; seed <= 30; ++seed) {
    State s = make(16, std::string(kSmall) + ", " + sinks_json({0.3f, -0.6f}) + ", \"embedding\": {\"seed\": " +
                           std::to_string(seed) + "}");
    Pipeline p;
    run(&p, s);
    for (int h = 0; h < 2; ++h)
      for (int t = 0; t < 16; ++t) {
        const DecodeStep d = attnviz::decode_step(p, h, t);
        std::vector<float> naive(static_cast<size_t>(t) + 1);
        const attnviz::kernels::Sink after{s.sinks.logit(h), t + 1};
        attnviz::kernels::softmax_row(d.masked.row(0), naive.data(), t + 1, after);
        ++rows;
        if (std::memcmp(naive.data(), p.matrix(Stage::weights, h)->row(t), 4u * (t + 1)) != 0) ++differ;
      }
  }
  std::printf("a sink appended after the cached keys differs from the full row in %d of %d rows\n", differ, rows);
  EXPECT_GT(differ, 0);
}

// ---- StreamingLLM's cache (issue 36): evicted keys are masked at their original
// positions, so every step is still the full row bit for bit.

State streaming(int S, int k, int w, const std::string& extra = kSmall) {
  State s = make(S, extra);
  s.kv_cache.policy = attnviz::CachePolicy::streaming_llm;
  s.kv_cache.sink_tokens = k;
  s.kv_cache.recent = w;
  return s;
}

TEST(DecodeStreaming, EveryStepMatchesTheMaskedFullRow) {
  for (int k : {0, 1, 4}) {
    for (int w : {1, 2, 4, 9}) {
      SCOPED_TRACE(std::to_string(k) + " " + std::to_string(w));
      expect_every_step_matches(streaming(20, k, w));
    }
  }
  State s = streaming(26, 2, 3, "\"d_model\": 16, \"d_out\": 16, \"num_heads\": 4, \"num_kv_heads\": 1, "
                                "\"positional\": \"rope\", \"alibi\": true, " +
                                    sinks_json({0.0f, 1.0f, -1.0f, 0.25f}));
  s.dropout.p = 0.3;
  s.dropout.training = true;
  s.key_padding.assign(26, 1);
  s.key_padding[1] = s.key_padding[20] = 0;
  expect_every_step_matches(s);
}

TEST(DecodeStreaming, TheCacheHoldsTheFirstKAndTheLastW) {
  const State s = streaming(12, 2, 3);
  Pipeline p;
  run(&p, s);
  for (int t = 0; t < 12; ++t) {
    const DecodeStep d = attnviz::decode_step(p, 1, t);
    ASSERT_TRUE(d.streaming);
    int kept = 0;
    for (int j = 0; j <= t; ++j) {
      const bool in = j < 2 || t - j < 3;
      kept += in;
      EXPECT_EQ(d.key_evicted[j], in ? 0 : 1) << t << " " << j;
      EXPECT_EQ(d.key_masked[j], in ? 0 : 1) << t << " " << j;
      if (!in) EXPECT_EQ(d.weights.data[j], 0.0f);
      attnviz::MaskReason why;
      EXPECT_EQ(p.cell_masked(t, j, &why), !in);
      if (!in) EXPECT_EQ(why, attnviz::MaskReason::evicted);
    }
    EXPECT_EQ(d.cached, kept) << t;
    EXPECT_EQ(kept, attnviz::streaming_kept(t, 2, 3)) << t;
  }
}

TEST(DecodeStreaming, WithoutTheCausalMaskLaterKeysStay) {
  State s = streaming(9, 1, 2);
  s.causal = false;
  Pipeline p;
  run(&p, s);
  const DecodeStep d = attnviz::decode_step(p, 0, 6);
  EXPECT_EQ(d.differs, DecodeDiffers::not_causal);
  for (int j = 0; j < 9; ++j) EXPECT_EQ(p.cell_masked(6, j), j >= 1 && j <= 4) << j;
}

// ---- cache sizes

TEST(KvCacheBytes, MhaGqaMqaAndWindow) {
  State s = make(100, "\"d_model\": 128, \"d_out\": 128, \"num_heads\": 8");
  attnviz::KvCacheBytes b = attnviz::kv_cache_bytes(s);
  EXPECT_EQ(b.bytes, 2u * 100 * 8 * 16 * 4);
  EXPECT_EQ(b.mha_bytes, b.bytes);
  EXPECT_EQ(b.window_bytes, b.bytes);
  EXPECT_EQ(b.per_token_bytes, 2u * 8 * 16 * 4);
  s.num_kv_heads = 2;  // GQA
  b = attnviz::kv_cache_bytes(s);
  EXPECT_EQ(b.bytes, 25600u);
  EXPECT_EQ(b.mha_bytes, 102400u);
  s.num_kv_heads = 1;  // MQA
  s.window = 32;
  b = attnviz::kv_cache_bytes(s);
  EXPECT_EQ(b.bytes, 12800u);
  EXPECT_EQ(b.window_bytes, 2u * 32 * 1 * 16 * 4);
  s.window = 1000;  // a window longer than the sequence keeps everything
  EXPECT_EQ(attnviz::kv_cache_bytes(s).window_bytes, 12800u);
  // Llama-2-7B's shape per layer at 4096 tokens: 2 · 4096 · 32 · 128 · 4 = 128 MiB in float32.
  State big;
  big.tokens.assign(2048, "x");
  big.d_out = 4096;
  big.num_heads = 32;
  EXPECT_EQ(attnviz::kv_cache_bytes(big).bytes, 2ull * 2048 * 32 * 128 * 4);
}

// StreamingLLM keeps min(t + 1, k + w) tokens: a cache that stops growing at k + w.
TEST(KvCacheBytes, StreamingLlmStopsGrowingAtKPlusW) {
  State s = make(100, "\"d_model\": 128, \"d_out\": 128, \"num_heads\": 8, \"num_kv_heads\": 2");
  s.kv_cache.sink_tokens = 4;
  s.kv_cache.recent = 12;
  const attnviz::KvCacheBytes b = attnviz::kv_cache_bytes(s);
  EXPECT_EQ(b.per_token_bytes, 2u * 2 * 16 * 4);
  EXPECT_EQ(b.streaming_bytes, 16u * b.per_token_bytes);  // the numbers count whatever the policy
  for (int t : {0, 5, 14, 15, 16, 99}) {
    EXPECT_EQ(attnviz::kv_cache_bytes_at(b, t, false), uint64_t(t + 1) * b.per_token_bytes) << t;
    EXPECT_EQ(attnviz::kv_cache_bytes_at(b, t, true), uint64_t(std::min(t + 1, 16)) * b.per_token_bytes) << t;
  }
  EXPECT_EQ(attnviz::streaming_kept(-1, 4, 12), 0);
  EXPECT_EQ(attnviz::streaming_kept(3, 0, 1), 1);
  EXPECT_EQ(attnviz::streaming_kept(1 << 20, 1 << 20, 1 << 20), (1 << 20) + 1);
}

}  // namespace
