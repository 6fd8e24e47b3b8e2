// test_values.cpp: the Edit values tab, driven like a person: clicks, Ctrl+A, typed
// characters and Enter through ImGui's IO.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "app/app.h"
#include "attnviz/materialize.h"
#include "attnviz/state.h"
#include "app/i18n.h"
#include "app/item_registry.h"
#include "headless.h"
#include "imgui.h"
#include "imgui_internal.h"

namespace {

using namespace attnviz::ui;
using attnviz::ui::testing::drawn_now;
using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;
using json = nlohmann::json;

void frames(Headless& h, App& app, int n = 3) {
  for (int i = 0; i < n; ++i) h.frame(app);
}

json state_of(const App& app) { return json::parse(app.state_json()); }

void press(Headless& h, App& app, ImGuiKey key, bool ctrl = false) {
  ImGuiIO& io = ImGui::GetIO();
  if (ctrl) io.AddKeyEvent(ImGuiMod_Ctrl, true);
  io.AddKeyEvent(key, true);
  frames(h, app, 1);
  io.AddKeyEvent(key, false);
  if (ctrl) io.AddKeyEvent(ImGuiMod_Ctrl, false);
  frames(h, app, 1);
}

// Click the cell, Ctrl+A, type, Enter: as a person replaces a number.
void type_cell(Headless& h, App& app, const char* label, const char* text) {
  ASSERT_TRUE(drawn_now(label)) << label;
  h.click(app, label);
  press(h, app, ImGuiKey_A, true);
  ImGui::GetIO().AddInputCharactersUTF8(text);
  frames(h, app, 1);
  press(h, app, ImGuiKey_Enter);
  frames(h, app, 2);
}

struct Values : ::testing::Test {
  void SetUp() override { set_language(Lang::en); }
  void TearDown() override { set_language(Lang::en); }
};

// A chip dragged onto another like a person: press, move past the drag threshold, release.
void drag(Headless& h, App& app, const char* from, const char* to) {
  float a[4], b[4];
  ASSERT_TRUE(app.item_rect(from, a) && app.item_rect(to, b));
  ImGuiIO& io = ImGui::GetIO();
  io.AddMousePosEvent(a[0] + a[2] * 0.5f, a[1] + a[3] * 0.5f);
  frames(h, app, 1);
  io.AddMouseButtonEvent(0, true);
  frames(h, app, 1);
  for (int k = 1; k <= 4; ++k) {
    const float ax = a[0] + a[2] * 0.5f, ay = a[1] + a[3] * 0.5f, bx = b[0] + b[2] * 0.5f, by = b[1] + b[3] * 0.5f;
    io.AddMousePosEvent(ax + (bx - ax) * k / 4, ay + (by - ay) * k / 4);
    frames(h, app, 1);
  }
  io.AddMouseButtonEvent(0, false);
  frames(h, app, 3);
}

std::vector<float> row_of(const json& values, int i) { return values[i].get<std::vector<float>>(); }

// Issue 31, item 3: a token added after the embedding became explicit gets a row.
TEST_F(Values, ATokenAddedToAnEditedEmbeddingGetsARowAndCanBeEdited) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  frames(h, app);
  h.click(app, "Edit values");
  frames(h, app);
  type_cell(h, app, "embedding[0][0]", "2.5");
  json s = state_of(app);
  ASSERT_EQ(s["embedding"]["values"][0][0], 2.5);
  const json before = s["embedding"]["values"];

  h.click(app, "add token");  // the chips' +: a chip opens for the new token's text
  press(h, app, ImGuiKey_A, true);
  ImGui::GetIO().AddInputCharactersUTF8("again");
  frames(h, app, 1);
  press(h, app, ImGuiKey_Enter);
  frames(h, app, 3);
  s = state_of(app);
  ASSERT_EQ(s["tokens"].size(), 6u) << s.dump();
  EXPECT_EQ(s["tokens"][5], "again");
  ASSERT_EQ(s["embedding"]["values"].size(), 6u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(s["embedding"]["values"][i], before[i]) << "row " << i << " stays";
  // The row the seeded embedding (seed 123) gives "again" as the sixth token.
  attnviz::State seeded;
  seeded.tokens = {"Once", "upon", "a", "time", "there", "again"};
  EXPECT_EQ(row_of(s["embedding"]["values"], 5),
            row_of(json::parse(attnviz::state_to_json(attnviz::materialize_embedding(seeded)).dump())["embedding"]
                       ["values"],
                   5));
  float r[4];
  EXPECT_FALSE(app.item_rect("error", r) && drawn_now("error")) << "no sentence: nothing was refused";
  ASSERT_TRUE(drawn_now("embedding[5][1]")) << "Edit values shows a row for \"again\"";
  EXPECT_TRUE(drawn_now("embedding rows of new tokens")) << "the tab says what a new token's row holds";

  type_cell(h, app, "embedding[5][1]", "1.5");
  s = state_of(app);
  ASSERT_EQ(s["tokens"].size(), 6u) << "the chip stays";
  EXPECT_EQ(s["embedding"]["values"][5][1], 1.5);
  EXPECT_EQ(s["embedding"]["values"][0][0], 2.5);
}

TEST_F(Values, RowsMoveWithTheirChipsAndGoWithThem) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  frames(h, app);
  h.click(app, "Edit values");
  frames(h, app);
  type_cell(h, app, "embedding[0][0]", "2.5");
  const json rows = state_of(app)["embedding"]["values"];

  drag(h, app, "token 0", "token 2");  // "Once" onto "a": Once goes to place 2
  json s = state_of(app);
  ASSERT_EQ(s["tokens"], json({"upon", "a", "Once", "time", "there"})) << s.dump();
  EXPECT_EQ(s["embedding"]["values"], json({rows[1], rows[2], rows[0], rows[3], rows[4]}));

  h.click(app, "token 2", 1);  // right-click "Once": Delete
  h.click(app, "Delete");
  s = state_of(app);
  ASSERT_EQ(s["tokens"], json({"upon", "a", "time", "there"})) << s.dump();
  EXPECT_EQ(s["embedding"]["values"], json({rows[1], rows[2], rows[3], rows[4]}));

  h.click(app, "token 1");  // rename "a" to "one": the row stays
  press(h, app, ImGuiKey_A, true);
  ImGui::GetIO().AddInputCharactersUTF8("one");
  frames(h, app, 1);
  press(h, app, ImGuiKey_Enter);
  frames(h, app, 3);
  s = state_of(app);
  ASSERT_EQ(s["tokens"], json({"upon", "one", "time", "there"})) << s.dump();
  EXPECT_EQ(s["embedding"]["values"], json({rows[1], rows[2], rows[3], rows[4]}));

  h.click(app, "token 2");  // "time" becomes "a time": "time" keeps its row, "a" gets one
  press(h, app, ImGuiKey_A, true);
  ImGui::GetIO().AddInputCharactersUTF8("a time");
  frames(h, app, 1);
  press(h, app, ImGuiKey_Enter);
  frames(h, app, 3);
  s = state_of(app);
  ASSERT_EQ(s["tokens"], json({"upon", "one", "a", "time", "there"})) << s.dump();
  ASSERT_EQ(s["embedding"]["values"].size(), 5u);
  EXPECT_EQ(s["embedding"]["values"][3], rows[3]);
}

}  // namespace
