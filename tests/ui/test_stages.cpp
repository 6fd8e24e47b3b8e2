// test_stages.cpp: the UI names stages by attnviz::Stage (attnviz/stages.h). Linked
// inspection maps a focused cell onto the other stages; names appear only at the
// edges: the test API (App::matrix) and the share link's view, which keeps its strings.
#include <gtest/gtest.h>

#include <string>

#include "app/app.h"
#include "app/model/links.h"
#include "headless.h"

namespace {

using attnviz::Stage;
using attnviz::ui::App;
using attnviz::ui::CellRef;
using attnviz::ui::Highlight;
using attnviz::ui::linked_highlight;
using json = nlohmann::json;

using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;

void expect_highlight(const CellRef& f, Stage v, int head, int row, int col) {
  const Highlight h = linked_highlight(f, v, head, 3);  // head_dim 3
  EXPECT_EQ(h.row, row) << attnviz::stage_name(v) << " h" << head;
  EXPECT_EQ(h.col, col) << attnviz::stage_name(v) << " h" << head;
}

TEST(Stages, AFocusedWeightsCellHighlightsItsQueryAndKeyElsewhere) {
  const CellRef f{true, Stage::weights, 1, 4, 2};  // head 1, query 4, key 2
  expect_highlight(f, Stage::scores, 1, 4, 2);
  expect_highlight(f, Stage::scores, 0, -1, -1);   // another head's S × S stage
  expect_highlight(f, Stage::context, 1, 4, -1);
  expect_highlight(f, Stage::Q, 0, 4, -1);
  expect_highlight(f, Stage::K, 0, 2, -1);
  expect_highlight(f, Stage::V, 0, 2, -1);
  expect_highlight(f, Stage::W_q, 0, -1, -1);      // parameters: rows are not tokens
  const CellRef ctx{true, Stage::context, 1, 4, 2};  // column 2 of head 1 = column 5 of V and concat
  expect_highlight(ctx, Stage::V, 0, -1, 5);
  expect_highlight(ctx, Stage::concat, 0, 4, 5);
  const CellRef w{true, Stage::W_q, 0, 1, 1};
  expect_highlight(w, Stage::W_q, 0, -1, -1);
}

// Issue 23's stages: bias is a query × key stage like scores; q_rot rows are queries,
// k_rot rows keys, and their columns the head's columns of Q.
TEST(Stages, LinkedHighlightingCoversQRotKRotAndBias) {
  const CellRef f{true, Stage::weights, 1, 4, 2};  // head 1, query 4, key 2
  expect_highlight(f, Stage::bias, 1, 4, 2);
  expect_highlight(f, Stage::q_rot, 1, 4, -1);
  expect_highlight(f, Stage::k_rot, 1, 2, -1);
  expect_highlight(f, Stage::k_rot, 0, -1, -1);  // another head's
  const CellRef b{true, Stage::bias, 0, 3, 1};
  expect_highlight(b, Stage::masked, 0, 3, 1);
  expect_highlight(b, Stage::q_rot, 0, 3, -1);
  expect_highlight(b, Stage::K, 0, 1, -1);
  const CellRef q{true, Stage::q_rot, 1, 4, 2};  // query 4, column 2 of head 1 = column 5 of Q
  expect_highlight(q, Stage::q_rot, 1, 4, 2);
  expect_highlight(q, Stage::Q, 0, 4, 5);
  expect_highlight(q, Stage::scores, 1, 4, -1);
  expect_highlight(q, Stage::k_rot, 1, -1, -1);
  expect_highlight(q, Stage::context, 1, 4, -1);
  const CellRef k{true, Stage::k_rot, 1, 3, 0};  // key 3
  expect_highlight(k, Stage::weights, 1, -1, 3);
  expect_highlight(k, Stage::K, 0, 3, -1);
  expect_highlight(k, Stage::V, 0, 3, -1);
  expect_highlight(k, Stage::Q, 0, -1, -1);
  const CellRef kk{true, Stage::K, 0, 2, 1};  // K's row 2 is key 2 of k_rot too
  expect_highlight(kk, Stage::k_rot, 0, 2, -1);
  expect_highlight(kk, Stage::q_rot, 0, -1, -1);
  const CellRef qq{true, Stage::Q, 0, 2, 1};
  expect_highlight(qq, Stage::q_rot, 1, 2, -1);
  expect_highlight(qq, Stage::k_rot, 1, -1, -1);
}

TEST(Stages, OnlyTheParametersHaveRowsThatAreNotTokens) {
  for (int k = 0; k < attnviz::kStageCount; ++k) {
    const Stage s = static_cast<Stage>(k);
    const std::string name = attnviz::stage_name(s);
    const bool parameter = name.rfind("W_", 0) == 0 || name.rfind("b_", 0) == 0;
    EXPECT_EQ(attnviz::ui::stage_rows_are_tokens(s), !parameter) << name;
  }
}

TEST(Stages, TheTestApiTakesNamesAndRefusesUnknownOnes) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  EXPECT_NE(app.matrix("weights", 0).data, nullptr);
  EXPECT_EQ(app.matrix("attention", 0).data, nullptr);
  EXPECT_EQ(app.matrix("X", 1).data, nullptr);  // X has no head 1
  EXPECT_TRUE(app.stage_current("weights", 0));
  EXPECT_FALSE(app.stage_current("attention", 0));
}

TEST(Stages, ALinkNamesItsStagesAndRefusesACompareStageThatIsNotPerHead) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  json link = app.session_json();
  EXPECT_EQ(link["view"]["compare_stage"], "weights");
  link["view"]["compare_stage"] = "Q";
  json r = app.set_session_text(link.dump());
  EXPECT_FALSE(r.value("ok", true));
  EXPECT_EQ(r.value("error", std::string()),
            "The link's view.compare_stage must be one of q_rot, k_rot, scores, scaled, bias, masked, weights, dropped, context.");
  EXPECT_EQ(r.value("field", std::string()), "view.compare_stage");

  link["view"]["compare_stage"] = "context";
  link["view"]["pinned"] = {{"stage", "Q"}, {"head", 0}, {"row", 1}, {"col", 2}};
  ASSERT_TRUE(app.set_session_text(link.dump()).value("ok", false));
  h.frame(app);
  EXPECT_EQ(app.session_json()["view"]["compare_stage"], "context");
  EXPECT_EQ(app.session_json()["view"]["pinned"], link["view"]["pinned"]);

  // A stage name this build does not know (a newer build's?) is not pinned, as a cell
  // outside its matrix is not.
  link["view"]["pinned"] = {{"stage", "attention"}, {"head", 0}, {"row", 1}, {"col", 2}};
  ASSERT_TRUE(app.set_session_text(link.dump()).value("ok", false));
  EXPECT_TRUE(app.session_json()["view"]["pinned"].is_null());
}

}  // namespace
