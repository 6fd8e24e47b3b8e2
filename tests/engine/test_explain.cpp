// explain(stage, head, i, j): the ingredients reproduce the stored value
// exactly, so the UI's "how was this computed" shows the pipeline's numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "attnviz/kernels.h"
#include "attnviz/messages.h"
#include "attnviz/model.h"
#include "attnviz/pipeline.h"
#include "engine_test_util.h"

namespace {

using attnviz::Explanation;
using attnviz::MaskReason;
using attnviz::Pipeline;
using attnviz::Stage;
using attnviz_test::run;
using attnviz_test::state_from;

Pipeline* make() {
  static Pipeline p;
  static bool done = false;
  if (!done) {
    run(&p, state_from(R"({"tokens": ["a", "b", "c", "d", "e"], "d_model": 4, "d_out": 6,
      "num_heads": 2, "qkv_bias": true, "out_proj": true, "causal": true,
      "key_padding": [1, 1, 1, 0, 1], "temperature": 1.5,
      "weights": {"init": "torch_linear", "seed": 3},
      "dropout": {"p": 0.4, "training": true, "seed": 5}})"));
    done = true;
  }
  return &p;
}

void expect_dot_reproduces(const Explanation& e) {
  ASSERT_TRUE(e.ok);
  ASSERT_EQ(e.lhs.size(), e.rhs.size());
  ASSERT_EQ(e.lhs.size(), e.terms.size());
  float acc = 0.0f;
  for (size_t t = 0; t < e.terms.size(); ++t) {
    EXPECT_EQ(e.terms[t], e.lhs[t] * e.rhs[t]);
    acc = acc + e.lhs[t] * e.rhs[t];  // kernels.h contract 2: multiply, then add
  }
  EXPECT_EQ(acc, e.sum);
  EXPECT_EQ(e.has_bias ? e.sum + e.bias : e.sum, e.value);
}

TEST(Explain, DotProductStages) {
  Pipeline& p = *make();
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 6; ++j) {
      for (Stage s : {Stage::Q, Stage::K, Stage::V, Stage::output}) {
        const Explanation e = p.explain(s, 0, i, j);
        EXPECT_EQ(e.value, p.matrix(s)->at(i, j));
        expect_dot_reproduces(e);
        EXPECT_TRUE(e.has_bias);
      }
    }
  }
  for (int h = 0; h < 2; ++h) {
    for (int i = 0; i < 5; ++i) {
      for (int j = 0; j < 5; ++j) {
        const Explanation e = p.explain(Stage::scores, h, i, j);
        EXPECT_EQ(e.terms.size(), 3u);  // head_dim
        EXPECT_EQ(e.lhs[0], p.matrix(Stage::Q)->at(i, h * 3));
        EXPECT_EQ(e.rhs[2], p.matrix(Stage::K)->at(j, h * 3 + 2));
        expect_dot_reproduces(e);
      }
      for (int d = 0; d < 3; ++d) {
        const Explanation e = p.explain(Stage::context, h, i, d);
        EXPECT_EQ(e.terms.size(), 5u);  // one weighted value per key
        EXPECT_EQ(e.rhs[4], p.matrix(Stage::V)->at(4, h * 3 + d));
        expect_dot_reproduces(e);
      }
    }
  }
}

TEST(Explain, ElementwiseStages) {
  Pipeline& p = *make();
  for (int h = 0; h < 2; ++h) {
    for (int i = 0; i < 5; ++i) {
      for (int j = 0; j < 5; ++j) {
        const Explanation sc = p.explain(Stage::scaled, h, i, j);
        EXPECT_EQ(sc.divisor, static_cast<float>(std::sqrt(3.0) * 1.5));
        EXPECT_EQ(sc.input / sc.divisor, sc.value);

        const Explanation mk = p.explain(Stage::masked, h, i, j);
        const bool causal = j > i, padded = j == 3;
        EXPECT_EQ(mk.masked, causal || padded);
        EXPECT_EQ(mk.reason, causal && padded ? MaskReason::causal_and_padding
                             : causal         ? MaskReason::causal
                             : padded         ? MaskReason::padding
                                              : MaskReason::none);
        EXPECT_EQ(mk.value, mk.masked ? -INFINITY : mk.input);

        const Explanation w = p.explain(Stage::weights, h, i, j);
        EXPECT_FALSE(w.safe_zeroed);
        EXPECT_EQ(w.exp_term, attnviz::kernels::exp_f32(w.input - w.row_max));
        EXPECT_EQ(w.exp_term * (1.0f / w.normaliser), w.value);

        const Explanation d = p.explain(Stage::dropped, h, i, j);
        EXPECT_TRUE(d.dropout_active);
        EXPECT_EQ(d.scale, 1.0f / 0.6f);
        EXPECT_EQ(d.value, d.input * (d.kept ? d.scale : 0.0f));
        EXPECT_FALSE(d.formula.empty());
      }
    }
  }
}

// The scaled stage names its divisor: which dimension it is the root of, that
// dimension, and the temperature when it is not 1 (the UI writes √head_dim = √3).
TEST(Explain, ScaledNamesItsDivisor) {
  Pipeline& p = *make();  // head_dim 3, temperature 1.5
  const Explanation e = p.explain(Stage::scaled, 1, 2, 0);
  EXPECT_EQ(e.scale_mode, attnviz::ScaleMode::head_dim);
  EXPECT_EQ(e.scale_dim, 3);
  EXPECT_EQ(e.divisor_base, std::sqrt(3.0));
  EXPECT_EQ(e.temperature, 1.5);
  EXPECT_EQ(e.formula, "scaled[2][0] = scores[2][0] / (√head_dim × temperature)");

  struct Case { const char* scale; double temperature; int dim; const char* formula; };
  const Case cases[] = {{"head_dim", 1.0, 2, "scaled[1][0] = scores[1][0] / √head_dim"},
                        {"d_out", 1.0, 4, "scaled[1][0] = scores[1][0] / √d_out"},
                        {"d_out", 2.0, 4, "scaled[1][0] = scores[1][0] / (√d_out × temperature)"},
                        {"none", 1.0, 0, "scaled[1][0] = scores[1][0] (no scaling)"},
                        {"none", 0.5, 0, "scaled[1][0] = scores[1][0] / temperature"}};
  for (const Case& c : cases) {
    Pipeline q;
    run(&q, state_from(std::string(R"({"tokens": ["a", "b"], "d_model": 4, "d_out": 4, "num_heads": 2,
      "scale": ")") + c.scale + R"(", "temperature": )" + std::to_string(c.temperature) + "}"));
    const Explanation s = q.explain(Stage::scaled, 0, 1, 0);
    EXPECT_EQ(s.scale_dim, c.dim) << c.scale;
    EXPECT_EQ(s.divisor_base, c.dim ? std::sqrt(double(c.dim)) : 1.0) << c.scale;
    EXPECT_EQ(s.formula, c.formula);
    EXPECT_EQ(s.input / s.divisor, s.value);
  }
}

// Formulas are for reading: the summation index of a dot product is d (a
// dimension) or s (a key), never an unexplained k; operators stand between
// spaces, so a UI wraps there and never inside a number; a zero is "0", not "-0".
TEST(Explain, FormulasReadWell) {
  Pipeline& p = *make();
  for (Stage s : {Stage::Q, Stage::K, Stage::V, Stage::output}) {
    const std::string f = p.explain(s, 0, 1, 2).formula;
    EXPECT_NE(f.find("Σ_d "), std::string::npos) << f;
    EXPECT_EQ(f.find("[k]"), std::string::npos) << f;
  }
  EXPECT_EQ(p.explain(Stage::Q, 0, 1, 2).formula, "Q[1][2] = Σ_d X[1][d] · W_q[d][2] + b_q[2]");
  EXPECT_EQ(p.explain(Stage::scores, 1, 3, 2).formula, "scores[3][2] = q_3 · k_2 = Σ_d q_3[d] · k_2[d] (head 1)");
  EXPECT_EQ(p.explain(Stage::context, 0, 4, 1).formula, "context[4][1] = Σ_s dropped[4][s] · v_s[1] (head 0)");
  for (int s = 0; s < attnviz::kStageCount; ++s)
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j) {
        const Explanation e = p.explain(static_cast<Stage>(s), 0, i, j);
        if (!e.ok) continue;
        EXPECT_EQ(e.formula.find("]·"), std::string::npos) << e.formula;
        EXPECT_EQ(e.formula.find("·k"), std::string::npos) << e.formula;
      }

  // A mask fill of −0.0 is written "0".
  Pipeline z;
  run(&z, state_from(R"({"tokens": ["a", "b", "c"], "causal": true, "mask_fill": -0.0})"));
  const Explanation m = z.explain(Stage::masked, 0, 0, 2);
  ASSERT_TRUE(m.masked);
  EXPECT_TRUE(std::signbit(m.fill)) << "the engine keeps the fill as given";
  EXPECT_EQ(m.formula, "masked[0][2] = mask_fill 0 (causal)");
  EXPECT_EQ(z.explain(Stage::masked, 0, 2, 0).formula, "masked[2][0] = scaled[2][0] (not masked)");
}

TEST(Explain, OutOfRangeIsNotOk) {
  Pipeline& p = *make();
  EXPECT_FALSE(p.explain(Stage::scores, 2, 0, 0).ok);
  EXPECT_FALSE(p.explain(Stage::scores, 0, 5, 0).ok);
  EXPECT_FALSE(p.explain(Stage::Q, 1, 0, 0).ok);  // Q is not per head
  EXPECT_FALSE(p.explain(Stage::X, 0, -1, 0).ok);
  Pipeline empty;
  EXPECT_FALSE(empty.explain(Stage::X, 0, 0, 0).ok);
  EXPECT_EQ(empty.matrix(Stage::X), nullptr);
  EXPECT_EQ(empty.version(Stage::X), 0u);
  // moving hands the result over and leaves an empty pipeline behind
  Pipeline a;
  attnviz_test::run(&a, attnviz_test::state_from("{}"));
  const attnviz::Tensor* x = a.matrix(Stage::X);
  Pipeline b(std::move(a));
  EXPECT_EQ(b.matrix(Stage::X), x);
  EXPECT_FALSE(a.has_result());  // NOLINT(bugprone-use-after-move): documented state
  a = std::move(b);
  EXPECT_EQ(a.matrix(Stage::X), x);
  EXPECT_FALSE(b.has_result());  // NOLINT(bugprone-use-after-move)
}

TEST(Explain, MatricesByName) {
  Pipeline& p = *make();
  for (int s = 0; s < attnviz::kStageCount; ++s) {
    const Stage st = static_cast<Stage>(s);
    Stage back;
    ASSERT_TRUE(attnviz::stage_from_name(attnviz::stage_name(st), &back));
    EXPECT_EQ(back, st);
    EXPECT_EQ(p.matrix(attnviz::stage_name(st), 1), p.matrix(st, 1));
  }
  EXPECT_EQ(p.matrix("attention", 0), nullptr);
  const attnviz::TensorView k1 = p.head_slice(Stage::K, 1);
  EXPECT_EQ(k1.cols, 3);
  EXPECT_EQ(k1.at(2, 1), p.matrix(Stage::K)->at(2, 4));
  EXPECT_EQ(p.matrix(Stage::b_o)->cols, 6);
}

// stage_is_square: exactly the query × key stages, which are per-head; here no
// other matrix is 5 × 5 (S = 5, d_model = 4, d_out = 6, head_dim = 3).
TEST(Explain, SquareStagesAreTheQueryByKeyOnes) {
  Pipeline& p = *make();
  for (int s = 0; s < attnviz::kStageCount; ++s) {
    const Stage st = static_cast<Stage>(s);
    const attnviz::Tensor* t = p.matrix(st, attnviz::stage_is_per_head(st) ? 1 : 0);
    const attnviz::StageWhen when = attnviz::stage_info(st).when;
    if (when == attnviz::StageWhen::rope || when == attnviz::StageWhen::alibi) {
      EXPECT_EQ(t, nullptr) << attnviz::stage_name(st);  // RoPE / ALiBi are off here
      continue;
    }
    ASSERT_NE(t, nullptr) << attnviz::stage_name(st);
    EXPECT_EQ(attnviz::stage_is_square(st), t->rows == 5 && t->cols == 5) << attnviz::stage_name(st);
    if (attnviz::stage_is_square(st)) {
      EXPECT_TRUE(attnviz::stage_is_per_head(st)) << attnviz::stage_name(st);
    }
  }
  EXPECT_FALSE(attnviz::stage_is_square(Stage::context));
}

}  // namespace

namespace {

// Every formula comes from the one table (analysis/formulas.cpp): its id and values
// rebuild the English text, every placeholder is filled, and across these states
// every line of the table but `none` is met at least once.
// gpt-oss's sink (issue 36): the row's max and normaliser are those of [masked row, s_h],
// each weight is exp_term · (1 / normaliser) bit for bit, and the sink's share is the
// dropped column: the weights and it sum to 1.
TEST(Explain, WeightsWithASinkNameItsShare) {
  auto s = state_from(R"({"tokens": ["a", "b", "c", "d", "e", "f", "g", "h", "i"], "d_model": 4, "d_out": 4,
    "num_heads": 2, "causal": true, "sinks": {"enabled": true, "values": [2.5, -0.75]}})");
  Pipeline p;
  run(&p, s);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 9; ++i) {
      double sum = 0.0;
      float share = 0.0f;
      for (int j = 0; j < 9; ++j) {
        const Explanation w = p.explain(Stage::weights, h, i, j);
        ASSERT_TRUE(w.sink);
        EXPECT_EQ(w.formula_id, attnviz::Formula::weights_softmax_sink);
        EXPECT_EQ(w.sink_logit, h == 0 ? 2.5f : -0.75f);
        EXPECT_GE(w.row_max, w.sink_logit);
        EXPECT_EQ(w.sink_exp, attnviz::kernels::exp_f32(w.sink_logit - w.row_max));
        EXPECT_EQ(w.exp_term * (1.0f / w.normaliser), w.value);
        sum += w.value;
        share = w.sink_share;
      }
      EXPECT_GT(share, 0.0f);
      EXPECT_NEAR(sum + share, 1.0, 1e-6) << h << " " << i;
    }
}

TEST(Explain, EvictedKeysNameStreamingLlm) {
  auto s = state_from(R"({"tokens": ["a", "b", "c", "d", "e", "f"], "d_model": 4, "d_out": 4, "causal": true,
    "key_padding": [1, 1, 1, 0, 1, 1], "kv_cache": {"policy": "streaming_llm", "sink_tokens": 2, "recent": 2}})");
  Pipeline p;
  run(&p, s);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      const Explanation e = p.explain(Stage::masked, 0, i, j);
      const bool evicted = j >= 2 && i - j >= 2, padded = j == 3;
      EXPECT_EQ(e.masked, j > i || evicted || padded) << i << " " << j;
      if (j <= i) {
        EXPECT_EQ(e.reason, evicted && padded ? MaskReason::evicted_and_padding
                            : padded          ? MaskReason::padding
                            : evicted         ? MaskReason::evicted
                                              : MaskReason::none) << i << " " << j;
      }
      EXPECT_EQ(e.cache_sinks, 2);
      EXPECT_EQ(e.cache_recent, 2);
    }
  EXPECT_EQ(p.explain(Stage::masked, 0, 4, 2).formula, "masked[4][2] = mask_fill -inf (evicted from the KV cache)");
}

TEST(Explain, EveryFormulaIsTheTablesLineFilled) {
  const char* states[] = {
      R"({"tokens": ["a", "b", "c", "d", "e"], "d_model": 4, "d_out": 6, "num_heads": 2, "qkv_bias": true,
          "out_proj": true, "causal": true, "key_padding": [1, 1, 1, 0, 1], "temperature": 1.5,
          "positional": "sinusoidal", "dropout": {"p": 0.4, "training": true, "seed": 5}})",
      R"({"tokens": ["a", "b", "c", "d"], "d_model": 8, "d_out": 8, "num_heads": 4, "num_kv_heads": 2,
          "positional": "rope", "window": 2, "key_padding": [1, 1, 0, 1], "out_proj": true, "out_bias": false,
          "scale": "d_out", "safe_softmax": true})",
      R"({"tokens": ["a", "b", "c"], "d_model": 4, "d_out": 4, "num_heads": 2, "alibi": true, "scale": "none",
          "causal": true, "window": 1})",
      R"({"tokens": ["a", "b", "c"], "d_model": 4, "d_out": 4, "num_heads": 1, "temperature": 2,
          "scale": "d_out", "key_padding": [0, 0, 0], "safe_softmax": true, "out_proj": true, "qkv_bias": true})",
      R"({"tokens": ["a", "b", "c"], "d_model": 4, "d_out": 4, "num_heads": 1, "scale": "none", "temperature": 2,
          "dropout": {"p": 0.5, "training": false}, "positional": "rope", "num_kv_heads": 1})",
      R"({"tokens": ["a", "b"], "d_model": 4, "d_out": 4, "num_heads": 2, "num_kv_heads": 1, "positional": "rope"})",
      R"({"tokens": ["a", "b", "c", "d", "e"], "d_model": 4, "d_out": 4, "num_heads": 2, "causal": true,
          "key_padding": [1, 1, 0, 1, 1], "sinks": {"enabled": true, "values": [0.5, -1]},
          "kv_cache": {"policy": "streaming_llm", "sink_tokens": 1, "recent": 1}})",
  };
  bool met[attnviz::kFormulaCount] = {};
  std::vector<attnviz::State> all;
  for (const char* text : states) all.push_back(state_from(text));
  // A trained model's layers (LayerStack::explain): X is the residual stream.
  all.push_back(state_from(R"({"model": {"name": "induction-2l"}, "tokens": ["<s>", "a", "b", "a"]})"));
  for (const attnviz::State& st : all) {
    attnviz::LayerStack stack;
    ASSERT_TRUE(stack.set_state(st).ok);
    for (int l = 0; l < stack.num_layers(); ++l)
    for (int k = 0; k < attnviz::kStageCount; ++k) {
      const Stage stage = static_cast<Stage>(k);
      const std::string text = attnviz::state_to_json(st).dump().substr(0, 200);
      for (int h = 0; h < (attnviz::stage_is_per_head(stage) ? stack.layer(l).num_heads() : 1); ++h)
        for (int i = 0; i < 5; ++i)
          for (int j = 0; j < 8; ++j) {
            const Explanation e = stack.explain(l, stage, h, i, j);
            if (!e.ok) continue;
            ASSERT_NE(e.formula_id, attnviz::Formula::none) << text;
            met[static_cast<int>(e.formula_id)] = true;
            EXPECT_EQ(e.formula, attnviz::msg_format(attnviz::formula_template(e.formula_id), e.formula_args));
            EXPECT_EQ(e.formula.find('{'), std::string::npos) << e.formula;
          }
    }
  }
  for (int f = 1; f < attnviz::kFormulaCount; ++f) {
    // masked_fill is the masked cell with no reason, which the pipeline never makes.
    if (static_cast<attnviz::Formula>(f) == attnviz::Formula::masked_fill) continue;
    EXPECT_TRUE(met[f]) << "no cell explained with " << attnviz::formula_template(static_cast<attnviz::Formula>(f));
  }
}

}  // namespace
