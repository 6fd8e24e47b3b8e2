// explain(stage, head, i, j): the ingredients reproduce the stored value
// exactly, so the UI's "how was this computed" shows the pipeline's numbers.
#include <gtest/gtest.h>

#include <cmath>

#include "attnviz/kernels.h"
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

}  // namespace
