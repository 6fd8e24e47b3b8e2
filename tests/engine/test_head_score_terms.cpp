// The terms behind a head score (attnviz/model.h, head_score_terms): the rows and
// keys each score averages, summing to score_head's value bit for bit, on the
// built-in model's probe and on a hand-made matrix; and the chance level
// (uniform_head_scores) against its closed form.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "attnviz/model.h"
#include "attnviz/state_json.h"

namespace {

using attnviz::HeadScoreKind;
using attnviz::HeadScoreTerms;
using attnviz::Tensor;

const HeadScoreKind kKinds[] = {HeadScoreKind::previous_token, HeadScoreKind::induction, HeadScoreKind::first_token,
                                HeadScoreKind::duplicate_token};

// A 5×5 causal matrix with distinct weights, on tokens "a b a c b": rows 2 and 4 repeat.
Tensor hand_matrix() {
  Tensor A(5, 5);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j <= i; ++j) A.at(i, j) = 0.01f * static_cast<float>(10 * i + j + 1);
  return A;
}

TEST(HeadScoreTerms, RowsAndKeysFollowTheDefinitions) {
  const Tensor A = hand_matrix();
  const std::vector<std::string> tok = {"a", "b", "a", "c", "b"};
  const HeadScoreTerms prev = attnviz::head_score_terms(A, tok, HeadScoreKind::previous_token);
  EXPECT_EQ(prev.rows, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(prev.keys, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(prev.seq_len, 5);
  const HeadScoreTerms first = attnviz::head_score_terms(A, tok, HeadScoreKind::first_token);
  EXPECT_EQ(first.rows, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(first.keys, (std::vector<int>(5, 0)));
  // Row 2 ("a") copies row 0, row 4 ("b") copies row 1.
  const HeadScoreTerms dup = attnviz::head_score_terms(A, tok, HeadScoreKind::duplicate_token);
  EXPECT_EQ(dup.rows, (std::vector<int>{2, 4}));
  EXPECT_EQ(dup.keys, (std::vector<int>{0, 1}));
  EXPECT_EQ(dup.key_begin, (std::vector<int>{0, 1, 2}));
  const HeadScoreTerms ind = attnviz::head_score_terms(A, tok, HeadScoreKind::induction);
  EXPECT_EQ(ind.rows, (std::vector<int>{2, 4}));
  EXPECT_EQ(ind.keys, (std::vector<int>{1, 2}));  // what followed each copy
  EXPECT_DOUBLE_EQ(ind.terms[0], static_cast<double>(A.at(2, 1)));
  EXPECT_DOUBLE_EQ(ind.value, (static_cast<double>(A.at(2, 1)) + A.at(4, 2)) / 2);
}

TEST(HeadScoreTerms, AFirstOccurrenceOnlyCountsNothing) {
  const Tensor A = hand_matrix();
  const std::vector<std::string> tok = {"a", "b", "c", "d", "e"};
  const HeadScoreTerms ind = attnviz::head_score_terms(A, tok, HeadScoreKind::induction);
  EXPECT_TRUE(ind.rows.empty());
  EXPECT_EQ(ind.value, 0.0);
  EXPECT_EQ(attnviz::score_head(A, tok).induction, 0.0);
}

// On the probe of the shipped model, every layer and head: the terms' value is the
// score probe_head_scores reports, exactly (the same sums in the same order).
TEST(HeadScoreTerms, SumToTheProbeScoresExactly) {
  const attnviz::SharedModel m = attnviz::find_model("induction-2l");
  ASSERT_TRUE(m);
  const attnviz::State s = attnviz::model_probe_state(m);
  const attnviz::LayerScores want = attnviz::probe_head_scores(s);
  ASSERT_EQ(want.size(), 2u);
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 4; ++h)
      for (HeadScoreKind k : kKinds) {
        const HeadScoreTerms t = attnviz::probe_head_score_terms(s, l, h, k);
        EXPECT_EQ(t.value, attnviz::head_score(want[l][h], k)) << "L" << l << " H" << h << " kind " << int(k);
        EXPECT_EQ(t.rows.size() + 1, t.key_begin.size());
      }
  // The probe is start + r + r: the repeated half is rows n+1 .. 2n, one copy each.
  const int n = m->probe_repeat;
  const HeadScoreTerms ind = attnviz::probe_head_score_terms(s, 1, 2, HeadScoreKind::induction);
  ASSERT_EQ(static_cast<int>(ind.rows.size()), n);
  EXPECT_EQ(ind.rows.front(), n + 1);
  EXPECT_EQ(ind.keys.front(), 2);  // the token after the earlier copy at 1: offset 1 − n
  EXPECT_TRUE(attnviz::probe_head_score_terms(s, 2, 0, HeadScoreKind::induction).rows.empty()) << "no layer 2";
}

TEST(HeadScoreTerms, UniformAttentionIsTheChanceLevel) {
  const std::vector<std::string> tok = {"<s>", "x", "y", "x", "y"};
  const attnviz::HeadScores c = attnviz::uniform_head_scores(tok, true);
  // previous: mean of 1/(i+1), i = 1..4; first: mean of 1/(i+1), i = 0..4.
  EXPECT_NEAR(c.previous_token, (1 / 2.0 + 1 / 3.0 + 1 / 4.0 + 1 / 5.0) / 4, 1e-7);
  EXPECT_NEAR(c.first_token, (1 + 1 / 2.0 + 1 / 3.0 + 1 / 4.0 + 1 / 5.0) / 5, 1e-7);
  EXPECT_NEAR(c.induction, (1 / 4.0 + 1 / 5.0) / 2, 1e-7);  // rows 3, 4: one key of i+1
  const attnviz::HeadScores u = attnviz::uniform_head_scores(tok, false);
  EXPECT_NEAR(u.first_token, 0.2, 1e-7);
  EXPECT_NEAR(u.duplicate_token, 0.2, 1e-7);
}

}  // namespace
