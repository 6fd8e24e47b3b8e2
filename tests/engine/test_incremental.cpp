// The staged pipeline recomputes only what lies downstream of a change, and a
// partial recompute is bitwise equal to computing from scratch.
//
// Each test checks both: the update records / versions (what was recomputed)
// and the results (every stage of every head against a fresh Pipeline,
// bitwise; the kernels are row-independent, kernels.h).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>

#include "attnviz/materialize.h"
#include "attnviz/pipeline.h"
#include "engine_test_util.h"

namespace {

using attnviz::Pipeline;
using attnviz::Stage;
using attnviz::StageUpdate;
using attnviz::UpdateKind;
using attnviz_test::expect_same_as_fresh;
using attnviz_test::kGlobal;
using attnviz_test::kPerHead;
using attnviz_test::run;
using attnviz_test::state_from;

// Six tokens with explicit embeddings, two heads, output projection.
attnviz::State base_state(bool causal) {
  auto s = state_from(R"({"tokens": ["Your", "journey", "starts", "with", "one", "step"],
    "d_model": 3, "d_out": 4, "num_heads": 2, "out_proj": true, "qkv_bias": true,
    "embedding": {"values": [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                             [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]},
    "weights": {"init": "torch_linear", "seed": 789}})");
  s.causal = causal;
  return s;
}

StageUpdate upd(const Pipeline& p, Stage s, int h = 0) { return p.last_update(s, h); }

// S tokens "t0" … with a seeded embedding made explicit (so an edit changes
// one row of X), d_model = d_out = 8, two heads, output projection.
attnviz::State seeded_tokens_explicit_x(int S) {
  std::string tokens;
  for (int i = 0; i < S; ++i) tokens += (i ? ",\"t" : "\"t") + std::to_string(i) + "\"";
  return attnviz::materialize_embedding(state_from(
      "{\"tokens\": [" + tokens + "], \"d_model\": 8, \"d_out\": 8, \"num_heads\": 2, \"out_proj\": true}"));
}


TEST(Incremental, FirstStateIsAFullBuild) {
  Pipeline p;
  run(&p, base_state(false));
  for (int h = 0; h < 2; ++h) {
    for (Stage s : kPerHead) {
      EXPECT_EQ(upd(p, s, h).kind, UpdateKind::full);
      EXPECT_NE(p.version(s, h), 0u);
    }
  }
  EXPECT_EQ(p.version(Stage::b_o), p.version(Stage::b_o));
  EXPECT_NE(p.version(Stage::b_o), 0u);
}

TEST(Incremental, TogglingDropoutRecomputesNeitherQkvNorScores) {
  Pipeline p;
  auto s = base_state(false);
  run(&p, s);
  const uint64_t vq = p.version(Stage::Q), vs = p.version(Stage::scores, 1),
                 vw = p.version(Stage::weights, 0), vd = p.version(Stage::dropped, 0);
  s.dropout = {0.3, true, 7};
  run(&p, s);
  for (Stage st : {Stage::X, Stage::Q, Stage::K, Stage::V}) EXPECT_EQ(upd(p, st).kind, UpdateKind::none);
  for (int h = 0; h < 2; ++h) {
    for (Stage st : {Stage::scores, Stage::scaled, Stage::masked, Stage::weights}) {
      EXPECT_EQ(upd(p, st, h).kind, UpdateKind::none) << attnviz::stage_name(st) << " head " << h;
    }
    EXPECT_EQ(upd(p, Stage::dropped, h).kind, UpdateKind::full);
    EXPECT_TRUE(upd(p, Stage::dropped, h).changed);
  }
  EXPECT_EQ(p.version(Stage::Q), vq);
  EXPECT_EQ(p.version(Stage::scores, 1), vs);
  EXPECT_EQ(p.version(Stage::weights, 0), vw);
  EXPECT_NE(p.version(Stage::dropped, 0), vd);
  expect_same_as_fresh(p, "dropout on");
  // and back off: dropped returns to the weights
  s.dropout.training = false;
  run(&p, s);
  EXPECT_EQ(upd(p, Stage::scores, 0).kind, UpdateKind::none);
  EXPECT_TRUE(attnviz::tensors_bitwise_equal(*p.matrix(Stage::dropped, 0), *p.matrix(Stage::weights, 0)));
  expect_same_as_fresh(p, "dropout off");
}

TEST(Incremental, EditingOneEmbeddingRowUnmasked) {
  Pipeline p;
  auto s = base_state(false);
  run(&p, s);
  s.embedding.values.mut().at(2, 1) = -0.4f;
  run(&p, s);
  for (Stage st : {Stage::Q, Stage::K, Stage::V}) {
    EXPECT_EQ(upd(p, st).kind, UpdateKind::partial);
    EXPECT_EQ(upd(p, st).rows, 1) << attnviz::stage_name(st);  // only token 2's row
  }
  for (int h = 0; h < 2; ++h) {
    // scores: row 2 and column 2 only
    EXPECT_EQ(upd(p, Stage::scores, h).kind, UpdateKind::partial);
    EXPECT_EQ(upd(p, Stage::scores, h).rows, 1);
    EXPECT_EQ(upd(p, Stage::scores, h).cols, 1);
    EXPECT_EQ(upd(p, Stage::scaled, h).rows, 1);
    EXPECT_EQ(upd(p, Stage::masked, h).cols, 1);
    // without a mask, column 2 feeds every row's softmax
    EXPECT_EQ(upd(p, Stage::weights, h).rows, 6);
  }
  EXPECT_EQ(upd(p, Stage::W_q).kind, UpdateKind::none);
  expect_same_as_fresh(p, "edited row 2");
}

TEST(Incremental, EditingOneEmbeddingRowCausal) {
  Pipeline p;
  auto s = base_state(true);
  run(&p, s);
  const uint64_t w0 = p.version(Stage::weights, 0);
  s.embedding.values.mut().at(3, 0) = 0.9f;
  run(&p, s);
  for (int h = 0; h < 2; ++h) {
    EXPECT_EQ(upd(p, Stage::scores, h).rows, 1);
    EXPECT_EQ(upd(p, Stage::scores, h).cols, 1);
    // rows 0-2 never see token 3: only rows 3, 4, 5 are re-normalised
    EXPECT_EQ(upd(p, Stage::weights, h).kind, UpdateKind::partial);
    EXPECT_EQ(upd(p, Stage::weights, h).rows, 3);
    EXPECT_EQ(upd(p, Stage::dropped, h).rows, 3);
    EXPECT_EQ(upd(p, Stage::context, h).rows, 3);
  }
  EXPECT_EQ(upd(p, Stage::concat).rows, 3);
  EXPECT_EQ(upd(p, Stage::output).rows, 3);
  EXPECT_NE(p.version(Stage::weights, 0), w0);
  expect_same_as_fresh(p, "edited row 3, causal");
}

// A one-token edit changes one score column in the rows the token does not
// own. Those rows keep their max unless the new cell passes it, and then only
// the changed cell's exp is redone before normalising again
// (StageUpdate::patched counts them). Edits that make a new max, that take the
// max away, under a causal mask, key padding and a finite fill all stay
// bitwise equal to a fresh pipeline.
TEST(Incremental, OneTokenEditsRedoOnlyTheChangedExpsAndMatchFresh) {
  std::mt19937 rng(2024);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int S = 40;
  auto s = seeded_tokens_explicit_x(S);
  Pipeline p;
  run(&p, s);
  int patched = 0, whole = 0, edits = 0, fell_back_steps = 0;
  for (int step = 0; step < 150; ++step) {
    if (step % 25 == 24) {
      switch ((step / 25) % 4) {
        case 0: s.causal = !s.causal; break;
        case 1: s.key_padding.assign(size_t(S), 1), s.key_padding[7] = 0, s.key_padding[30] = 0; break;
        case 2: s.mask_fill = -1e9; break;
        case 3: s.dropout = {0.25, true, 5}; break;
      }
      run(&p, s);
      expect_same_as_fresh(p, "toggle at step " + std::to_string(step));
      continue;
    }
    const int i = static_cast<int>(rng() % S);
    ++edits;
    // Mostly ordinary rows; every fifth one large, to make new maxes.
    const float scale = step % 5 == 0 ? 6.0f : 1.0f;
    for (int c = 0; c < 8; ++c) s.embedding.values.mut().at(i, c) = scale * normal(rng);
    run(&p, s);
    int step_patched = 0;
    for (int h = 0; h < 2; ++h) {
      const StageUpdate w = upd(p, Stage::weights, h);
      ASSERT_LE(w.patched, w.rows);
      EXPECT_EQ(upd(p, Stage::scores, h).rows, 1);
      step_patched += w.patched;
      whole += w.rows - w.patched;
    }
    patched += step_patched;
    if (step_patched < 2 * (S - 1) && !s.causal) ++fell_back_steps;
    expect_same_as_fresh(p, "edit of row " + std::to_string(i) + " at step " + std::to_string(step));
    if (HasFailure()) return;
  }
  // Most rows are patched; some fall back (a new max, or the max moved away).
  EXPECT_GT(patched, 5000);
  EXPECT_GT(whole - 2 * edits, 200);  // beyond the edited row itself
  EXPECT_GT(fell_back_steps, 5);
}

// Switching one key's padding changes one masked column, and switching the
// causal mask on or off masks or unmasks each row's later keys: rows whose
// max stays keep their exps (StageUpdate::patched), the others are
// recomputed whole. Every step is bitwise a fresh pipeline, with fills −inf,
// −1e9, 0 and 5 (a fill above a row's max moves the max; a fill that was the
// max, unmasked, leaves a lower one: with 5 most rows).
TEST(Incremental, MaskTogglesReuseTheKeptExpsAndMatchFresh) {
  std::mt19937 rng(77);
  const int S = 36;
  auto s = seeded_tokens_explicit_x(S);
  Pipeline p;
  int pad_patched = 0, causal_on_patched = 0, causal_off_patched = 0, causal_off_whole = 0;
  for (double fill : {-double(INFINITY), -1e9, 0.0, 5.0}) {
    s.mask_fill = fill;
    s.causal = false;
    s.key_padding.clear();
    run(&p, s);
    for (int step = 0; step < 30; ++step) {
      const bool pad_step = rng() % 3 != 0;
      if (pad_step) {
        if (s.key_padding.empty()) s.key_padding.assign(size_t(S), 1);
        uint8_t& k = s.key_padding[rng() % S];
        k = k ? 0 : 1;
      } else {
        s.causal = !s.causal;
      }
      run(&p, s);
      int patched = 0, whole = 0;
      for (int h = 0; h < 2; ++h) {
        EXPECT_EQ(upd(p, Stage::scores, h).kind, UpdateKind::none);
        patched += upd(p, Stage::weights, h).patched;
        whole += upd(p, Stage::weights, h).rows - upd(p, Stage::weights, h).patched;
      }
      (pad_step ? pad_patched : s.causal ? causal_on_patched : causal_off_patched) += patched;
      if (!pad_step && !s.causal) causal_off_whole += whole;
      expect_same_as_fresh(p, "fill " + std::to_string(fill) + " step " + std::to_string(step));
      if (HasFailure()) return;
    }
  }
  EXPECT_GT(pad_patched, 500);
  EXPECT_GT(causal_on_patched, 100);
  EXPECT_GT(causal_off_patched, 100);
  EXPECT_GT(causal_off_whole, 100);  // a later key above the max, or a fill that was the max
  // No padding and a fill above most scores: under the causal mask the fill
  // is the max of most rows; switched off, those maxes drop.
  s.mask_fill = 5.0;
  s.key_padding.clear();
  s.causal = true;
  run(&p, s);
  s.causal = false;
  run(&p, s);
  EXPECT_GT(upd(p, Stage::weights, 0).rows - upd(p, Stage::weights, 0).patched, 10);  // 23 of 35 here
  expect_same_as_fresh(p, "causal off, fill 5, no padding");
}

// A row recomputed to the same bits is not a change: with every key but
// the first padded, each weights row is one-hot whatever the temperature, so
// a temperature change recomputes every row and changes none; weights keeps
// its version and context is not touched.
TEST(Incremental, RowsRecomputedToTheSameBitsAreNoChange) {
  Pipeline p;
  auto s = base_state(false);
  s.key_padding = {1, 0, 0, 0, 0, 0};  // 1 = attend (state.h)
  run(&p, s);
  const uint64_t vw = p.version(Stage::weights, 0), vc = p.version(Stage::context, 0);
  s.temperature = 2.0;
  run(&p, s);
  EXPECT_TRUE(upd(p, Stage::scaled, 0).changed);
  EXPECT_EQ(upd(p, Stage::weights, 0).rows, 6);
  EXPECT_FALSE(upd(p, Stage::weights, 0).changed);
  EXPECT_EQ(p.version(Stage::weights, 0), vw);
  EXPECT_EQ(upd(p, Stage::context, 0).kind, UpdateKind::none);
  EXPECT_EQ(p.version(Stage::context, 0), vc);
  expect_same_as_fresh(p, "temperature under one visible key");
}

TEST(Incremental, ScaleMaskAndSoftmaxChangesStartWhereTheyBelong) {
  Pipeline p;
  auto s = base_state(false);
  run(&p, s);
  s.temperature = 2.0;
  run(&p, s);
  EXPECT_EQ(upd(p, Stage::Q).kind, UpdateKind::none);
  EXPECT_EQ(upd(p, Stage::scores, 0).kind, UpdateKind::none);
  EXPECT_EQ(upd(p, Stage::scaled, 0).kind, UpdateKind::full);
  expect_same_as_fresh(p, "temperature");

  s.causal = true;
  run(&p, s);
  EXPECT_EQ(upd(p, Stage::scaled, 0).kind, UpdateKind::none);
  EXPECT_EQ(upd(p, Stage::masked, 0).kind, UpdateKind::full);
  EXPECT_EQ(upd(p, Stage::weights, 0).rows, 5);  // the last row has nothing above the diagonal
  expect_same_as_fresh(p, "causal");

  s.key_padding = {1, 1, 1, 1, 0, 1};
  run(&p, s);
  EXPECT_EQ(upd(p, Stage::weights, 0).rows, 2);  // key 4 is visible to rows 4 and 5 only
  expect_same_as_fresh(p, "padding");

  s.key_padding = {0, 0, 0, 0, 0, 0};
  s.safe_softmax = true;
  run(&p, s);
  EXPECT_EQ(upd(p, Stage::weights, 0).kind, UpdateKind::full);
  expect_same_as_fresh(p, "everything padded, safe softmax");
}

TEST(Incremental, WeightChangesRecomputeProjections) {
  Pipeline p;
  auto s = base_state(false);
  run(&p, s);
  const uint64_t vx = p.version(Stage::X);
  s.weights.seed = 790;
  run(&p, s);
  EXPECT_EQ(upd(p, Stage::X).kind, UpdateKind::none);
  EXPECT_EQ(p.version(Stage::X), vx);
  EXPECT_TRUE(upd(p, Stage::W_q).changed);
  EXPECT_EQ(upd(p, Stage::Q).kind, UpdateKind::full);
  expect_same_as_fresh(p, "new weight seed");
}

TEST(Incremental, NothingChangedMeansNothingRecomputed) {
  Pipeline p;
  auto s = base_state(true);
  run(&p, s);
  uint64_t before[6];
  for (int k = 0; k < 6; ++k) before[k] = p.version(kPerHead[k], 1);
  s.tokens[0] = "My";  // explicit embeddings: a new label, the same numbers
  s.dropout = {0.5, false, 99};  // not training: still the identity
  run(&p, s);
  for (int k = 0; k < 6; ++k) {
    EXPECT_EQ(upd(p, kPerHead[k], 1).kind, UpdateKind::none);
    EXPECT_EQ(p.version(kPerHead[k], 1), before[k]);
  }
  EXPECT_EQ(p.state().tokens[0], "My");
}

TEST(Incremental, NewTokenRebuildsEverything) {
  Pipeline p;
  auto s = state_from(R"({"tokens": ["a", "b", "c"], "d_model": 4, "d_out": 4, "num_heads": 2})");
  run(&p, s);
  const uint64_t v = p.version(Stage::weights, 1);
  s.tokens.push_back("d");
  run(&p, s);
  EXPECT_EQ(p.seq_len(), 4);
  EXPECT_EQ(upd(p, Stage::Q).kind, UpdateKind::full);
  EXPECT_NE(p.version(Stage::weights, 1), v);
  expect_same_as_fresh(p, "appended a token");
}

TEST(Incremental, BadStateKeepsThePreviousResult) {
  Pipeline p;
  auto s = base_state(true);
  run(&p, s);
  const attnviz::Tensor before = *p.matrix(Stage::output);
  const uint64_t v = p.version(Stage::output);
  auto bad = s;
  bad.num_heads = 3;  // 4 is not divisible by 3
  const attnviz::Status st = p.set_state(bad);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.field, "num_heads");
  EXPECT_EQ(p.state().num_heads, 2);
  EXPECT_EQ(p.version(Stage::output), v);
  EXPECT_TRUE(attnviz::tensors_bitwise_equal(before, *p.matrix(Stage::output)));
}

// set_state(State&&) takes the state over: the same result and the same
// updates as the copying set_state, fresh and incremental, and a refused state
// comes back untouched.
TEST(Incremental, HandedOverStateGivesTheSameResultAsACopiedOne) {
  Pipeline copied, handed;
  auto s = attnviz::materialize_weights(base_state(true));  // explicit values: what a move saves
  ASSERT_TRUE(copied.set_state(s).ok);
  auto give = s;
  ASSERT_TRUE(handed.set_state(std::move(give)).ok);
  expect_same_as_fresh(handed, "handed over, fresh");
  EXPECT_TRUE(attnviz::tensors_bitwise_equal(handed.state().weights.W_q, s.weights.W_q));

  s.embedding.values.mut().at(2, 1) = -1.5f;  // one token edited
  s.temperature = 0.75;                 // and a toggle
  ASSERT_TRUE(copied.set_state(s).ok);
  give = s;
  ASSERT_TRUE(handed.set_state(std::move(give)).ok);
  for (Stage st : kGlobal) {
    EXPECT_EQ(upd(copied, st).rows, upd(handed, st).rows) << attnviz::stage_name(st);
    EXPECT_EQ(upd(copied, st).changed, upd(handed, st).changed) << attnviz::stage_name(st);
  }
  EXPECT_EQ(handed.state().temperature, 0.75);
  EXPECT_EQ(handed.state().embedding.values.at(2, 1), -1.5f);
  expect_same_as_fresh(handed, "handed over, after an edit");
  EXPECT_TRUE(attnviz::tensors_bitwise_equal(*copied.matrix(Stage::output), *handed.matrix(Stage::output)));

  auto bad = s;
  bad.num_heads = 3;  // 4 is not divisible by 3
  const auto kept = bad;
  EXPECT_FALSE(handed.set_state(std::move(bad)).ok);
  EXPECT_TRUE(attnviz::tensors_bitwise_equal(bad.weights.W_q, kept.weights.W_q));  // not taken
  EXPECT_EQ(bad.tokens, kept.tokens);
  EXPECT_EQ(handed.state().num_heads, 2);
}

// Random edits, each checked against a fresh pipeline: the incremental paths
// must never diverge from a full computation.
TEST(Incremental, RandomEditSequencesMatchFreshPipelines) {
  std::mt19937 rng(12345);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  Pipeline p;
  auto s = base_state(false);
  run(&p, s);
  for (int step = 0; step < 120; ++step) {
    switch (pick(9)) {
      case 0: s.embedding.values.mut().at(pick(6), pick(3)) = static_cast<float>(pick(200) - 100) / 50.0f; break;
      case 1: s.causal = !s.causal; break;
      case 2: s.temperature = 0.5 + pick(4) * 0.5; break;
      case 3: s.dropout = {pick(5) * 0.25, pick(2) == 1, static_cast<uint64_t>(pick(3))}; break;
      case 4: s.key_padding = pick(3) == 0 ? std::vector<uint8_t>{} : std::vector<uint8_t>{1, 1, 0, 1, 1, static_cast<uint8_t>(pick(2))}; break;
      case 5: s.safe_softmax = !s.safe_softmax; break;
      case 6: s.weights.seed = 780 + pick(3); break;
      case 7: s.mask_fill = pick(2) ? -1e9 : -INFINITY; break;
      case 8: s.scale = static_cast<attnviz::ScaleMode>(pick(3)); break;
    }
    run(&p, s);
    expect_same_as_fresh(p, "step " + std::to_string(step));
    if (HasFailure()) return;
  }
}

// Issue 23's options in the random walk: RoPE (style, base), K/V heads,
// ALiBi and the window switched and combined with the other edits.
TEST(Incremental, RandomEditsWithTheVariantsMatchFreshPipelines) {
  std::mt19937 rng(2323);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  auto s = state_from(R"({"tokens": ["the", "cat", "sat", "on", "the", "mat", "and", "ran"],
    "d_model": 6, "d_out": 8, "num_heads": 4, "qkv_bias": true, "out_proj": true,
    "weights": {"init": "torch_linear", "seed": 5}})");
  s = attnviz::materialize_embedding(s);  // an edit changes one X row
  Pipeline p;
  run(&p, s);
  for (int step = 0; step < 160; ++step) {
    switch (pick(12)) {
      case 0: s.embedding.values.mut().at(pick(8), pick(6)) = static_cast<float>(pick(200) - 100) / 50.0f; break;
      case 1: s.causal = !s.causal; break;
      case 2: s.temperature = 0.5 + pick(4) * 0.5; break;
      case 3: s.dropout = {pick(3) * 0.25, pick(2) == 1, static_cast<uint64_t>(pick(3))}; break;
      case 4: s.key_padding = pick(2) ? std::vector<uint8_t>{} : std::vector<uint8_t>{1, 1, 1, 0, 1, 1, 1, 1}; break;
      case 5: s.positional = static_cast<attnviz::Positional>(pick(3)); break;
      case 6: s.rope.style = pick(2) ? attnviz::RopeStyle::half : attnviz::RopeStyle::interleaved; break;
      case 7: s.rope.base = pick(2) ? 10000.0 : 10.0; break;
      case 8: s.num_kv_heads = pick(4) == 3 ? 0 : 1 << pick(3); break;  // 4, 2, 1 or unset
      case 9: s.alibi = !s.alibi; break;
      case 10: s.window = pick(5); break;  // 0: none
      case 11: s.mask_fill = pick(2) ? -1e9 : -INFINITY; break;
    }
    run(&p, s);
    expect_same_as_fresh(p, "step " + std::to_string(step));
    if (HasFailure()) return;
  }
}

// Issue 36's options in the random walk: gpt-oss's sinks switched, one head's
// logit changed, StreamingLLM's cache switched and resized, with the other edits
// (padding, the causal mask, dropout, the window), against fresh pipelines.
TEST(Incremental, RandomEditsWithSinksAndStreamingMatchFreshPipelines) {
  std::mt19937 rng(3636);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  auto s = state_from(R"({"tokens": ["the", "cat", "sat", "on", "the", "mat", "and", "ran", "to", "it"],
    "d_model": 6, "d_out": 8, "num_heads": 4, "causal": true, "out_proj": true,
    "weights": {"init": "torch_linear", "seed": 36}})");
  s = attnviz::materialize_embedding(s);
  Pipeline p;
  run(&p, s);
  int patched = 0;
  for (int step = 0; step < 200; ++step) {
    switch (pick(10)) {
      case 0: s.embedding.values.mut().at(pick(10), pick(6)) = static_cast<float>(pick(200) - 100) / 50.0f; break;
      case 1: s.sinks.enabled = !s.sinks.enabled; break;
      case 2:
        if (s.sinks.values.empty()) s.sinks.values.assign(4, 0.0f);
        s.sinks.values[static_cast<size_t>(pick(4))] = static_cast<float>(pick(9) - 4) * 0.75f;
        break;
      case 3:
        s.kv_cache.policy = pick(2) ? attnviz::CachePolicy::full : attnviz::CachePolicy::streaming_llm;
        break;
      case 4:
        s.kv_cache.sink_tokens = pick(4);
        s.kv_cache.recent = 1 + pick(5);
        break;
      case 5: s.causal = !s.causal; break;
      case 6: s.key_padding = pick(2) ? std::vector<uint8_t>{} : std::vector<uint8_t>{1, 0, 1, 1, 1, 1, 0, 1, 1, 1}; break;
      case 7: s.dropout = {pick(3) * 0.25, pick(2) == 1, static_cast<uint64_t>(pick(3))}; break;
      case 8: s.window = pick(4); break;
      case 9: s.safe_softmax = !s.safe_softmax; break;
    }
    run(&p, s);
    for (int h = 0; h < 4; ++h) patched += upd(p, Stage::weights, h).patched;
    expect_same_as_fresh(p, "step " + std::to_string(step));
    if (HasFailure()) return;
  }
  EXPECT_GT(patched, 0) << "edits under sinks patch rows from the kept numerators too";
}

// One head's sink logit changes that head's weights (every row), and no other head's.
TEST(Incremental, OneSinkLogitRecomputesOneHead) {
  auto s = state_from(R"({"tokens": ["a", "b", "c", "d", "e", "f"], "d_model": 4, "d_out": 8, "num_heads": 4,
    "causal": true, "sinks": {"enabled": true, "values": [0, 0, 0, 0]}})");
  Pipeline p;
  run(&p, s);
  s.sinks.values[2] = 1.5f;
  run(&p, s);
  for (int h = 0; h < 4; ++h) {
    EXPECT_EQ(upd(p, Stage::scores, h).kind, UpdateKind::none) << h;
    EXPECT_EQ(upd(p, Stage::masked, h).kind, UpdateKind::none) << h;
    EXPECT_EQ(upd(p, Stage::weights, h).changed, h == 2) << h;
  }
  expect_same_as_fresh(p, "one logit");
  s.kv_cache.policy = attnviz::CachePolicy::streaming_llm;  // a mask change: masked and weights, not scores
  s.kv_cache.sink_tokens = 1;
  s.kv_cache.recent = 2;
  run(&p, s);
  EXPECT_EQ(upd(p, Stage::scores, 0).kind, UpdateKind::none);
  EXPECT_TRUE(upd(p, Stage::masked, 0).changed);
  expect_same_as_fresh(p, "streaming");
}

// RoPE: an edited token redoes only its rows of q_rot and k_rot (rotation is
// row by row), and a new base rotates every row again.
TEST(Incremental, RopeRotatesOnlyTheChangedRows) {
  auto s = seeded_tokens_explicit_x(12);
  s.positional = attnviz::Positional::rope;
  Pipeline p;
  run(&p, s);
  s.embedding.values.mut().at(5, 2) += 1.0f;
  run(&p, s);
  EXPECT_EQ(upd(p, Stage::q_rot, 1).kind, UpdateKind::partial);
  EXPECT_EQ(upd(p, Stage::q_rot, 1).rows, 1);
  EXPECT_EQ(upd(p, Stage::k_rot, 0).rows, 1);
  expect_same_as_fresh(p, "one row");
  s.rope.base = 500000.0;
  run(&p, s);
  EXPECT_EQ(upd(p, Stage::q_rot, 0).kind, UpdateKind::full);
  expect_same_as_fresh(p, "another base");
  s.window = 3;  // a window on the RoPE state: masked and weights only
  run(&p, s);
  EXPECT_EQ(upd(p, Stage::q_rot, 0).kind, UpdateKind::none);
  EXPECT_EQ(upd(p, Stage::scores, 0).kind, UpdateKind::none);
  EXPECT_TRUE(upd(p, Stage::weights, 0).changed);
  expect_same_as_fresh(p, "window");
}

TEST(Incremental, RenamingTokensWithRandomEmbeddingsMatchesFresh) {
  // torch_randn: X rows follow the vocabulary (distinct tokens in order of
  // first appearance), so renaming a token can move several rows at once.
  std::mt19937 rng(99);
  const char* words[] = {"the", "cat", "sat", "on", "a", "mat"};
  auto s = state_from(R"({"tokens": ["the", "cat", "sat", "on", "the", "mat", "a"],
    "d_model": 5, "d_out": 6, "num_heads": 3, "causal": true, "out_proj": true})");
  Pipeline p;
  run(&p, s);
  for (int step = 0; step < 40; ++step) {
    s.tokens[rng() % s.tokens.size()] = words[rng() % 6];
    run(&p, s);
    expect_same_as_fresh(p, "rename step " + std::to_string(step));
    if (HasFailure()) return;
  }
}

}  // namespace
