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
#include "attnviz/state_json.h"
#include "app/text/i18n.h"
#include "app/text/value_text.h"
#include "app/widgets/item_registry.h"
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

// The characters drawn inside item `label` in the last frame, left to right, read
// back from the glyph quads of the draw data: what a person sees in a cell (a text
// cut by its field shows cut).
std::string drawn_text(const App& app, const char* label) {
  float r[4];
  if (!app.item_rect(label, r)) return "?";
  std::map<std::pair<float, float>, const ImFontGlyph*> by_uv;
  for (ImFont* f : ImGui::GetIO().Fonts->Fonts)
    for (const ImFontGlyph& g : f->Glyphs) by_uv[{g.U0, g.V0}] = &g;
  std::vector<std::pair<float, char>> found;
  const ImDrawData* dd = ImGui::GetDrawData();
  for (int l = 0; l < dd->CmdListsCount; ++l) {
    const ImVector<ImDrawVert>& v = dd->CmdLists[l]->VtxBuffer;
    for (int k = 0; k + 2 < v.Size; ++k) {
      auto it = by_uv.find({v[k].uv.x, v[k].uv.y});
      if (it == by_uv.end() || v[k + 2].uv.x != it->second->U1 || v[k + 2].uv.y != it->second->V1) continue;
      const ImVec2 c((v[k].pos.x + v[k + 2].pos.x) / 2, (v[k].pos.y + v[k + 2].pos.y) / 2);
      if (c.x >= r[0] && c.x <= r[0] + r[2] && c.y >= r[1] && c.y <= r[1] + r[3] && it->second->Codepoint < 128)
        found.push_back({c.x, (char)it->second->Codepoint});
    }
  }
  std::sort(found.begin(), found.end());
  std::string out;
  for (auto& f : found) out += f.second;
  return out;
}

// What the Views window's error line says, or "".
std::string sentence(App& app) {
  std::string said;
  return app.live_text(said) ? said : "";
}

float cell00(const App& app) { return state_of(app)["embedding"]["values"][0][0].get<float>(); }

TEST(ValueText, ShownReadablyAndTypedExactly) {
  char buf[64];
  auto shown = [&](float v) { format_value_cell(v, buf, sizeof buf); return std::string(buf); };
  EXPECT_EQ(shown(0.1754f), "0.1754");
  EXPECT_EQ(shown(-14.69f), "-14.6900");
  EXPECT_EQ(shown(1e10f), "1.0000e+10");
  EXPECT_EQ(shown(1e30f), "1.0000e+30");
  EXPECT_EQ(shown(1e15f), "1.0000e+15");
  EXPECT_EQ(shown(-0.0f), "0.0000") << "like the maps";
  EXPECT_EQ(shown(-3e-5f), "-3.0000e-05") << "not zero, so not shown as one";
  EXPECT_EQ(exact_value_text(0.1f), "0.1");
  EXPECT_EQ(exact_value_text(1e10f), "1e+10");
  EXPECT_EQ(std::strtof(exact_value_text(-0.17777722f).c_str(), nullptr), -0.17777722f);
  EXPECT_EQ(std::strtof(exact_value_text(3.4028235e38f).c_str(), nullptr), 3.4028235e38f);
  float v = 0;
  EXPECT_EQ(parse_typed_value(" 2.5 ", &v), TypedValue::ok);
  EXPECT_EQ(v, 2.5f);
  EXPECT_EQ(parse_typed_value("1e30", &v), TypedValue::ok);
  EXPECT_EQ(parse_typed_value("1e39", &v), TypedValue::beyond_float32);
  EXPECT_EQ(parse_typed_value("-1e39", &v), TypedValue::beyond_float32);
  EXPECT_EQ(parse_typed_value("1e999", &v), TypedValue::not_finite);
  EXPECT_EQ(parse_typed_value("nan", &v), TypedValue::not_finite);
  EXPECT_EQ(parse_typed_value("-inf", &v), TypedValue::not_finite);
  EXPECT_EQ(parse_typed_value("2.5x", &v), TypedValue::not_a_number);
  EXPECT_EQ(parse_typed_value("", &v), TypedValue::empty);
}

// Issue 31, item 9: a large number shows as what it is and can be edited again.
TEST_F(Values, LargeNumbersShowReadablyAndCanBeEditedAgain) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  frames(h, app);
  h.click(app, "Edit values");
  frames(h, app);
  for (const char* big : {"1e10", "1e9", "1e10", "1e15", "-1e17", "1e-30"}) {
    type_cell(h, app, "embedding[0][0]", big);
    EXPECT_EQ(cell00(app), std::strtof(big, nullptr)) << big;
    type_cell(h, app, "embedding[0][0]", "2");
    EXPECT_EQ(cell00(app), 2.0f) << "after " << big;
  }
  type_cell(h, app, "embedding[0][0]", "1e10");
  frames(h, app);
  EXPECT_EQ(drawn_text(app, "embedding[0][0]"), "1.0000e+10") << "never a string the field cuts short";
  // Opened, the field holds the exact value: Enter alone changes nothing.
  const std::string before = app.state_json();
  h.click(app, "embedding[0][1]");
  press(h, app, ImGuiKey_Enter);
  frames(h, app);
  EXPECT_EQ(app.state_json(), before);
}

TEST_F(Values, ZeroShowsAsTheMapsShowIt) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  frames(h, app);
  h.click(app, "Edit values");
  frames(h, app);
  type_cell(h, app, "embedding[0][0]", "-0");
  frames(h, app);
  EXPECT_EQ(drawn_text(app, "embedding[0][0]"), "0.0000");
}

TEST_F(Values, NumbersBeyondFloat32OrThatOverflowGetASentenceAndChangeNothing) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  frames(h, app);
  h.click(app, "Edit values");
  frames(h, app);
  type_cell(h, app, "embedding[0][0]", "1.5");
  const std::string before = app.state_json();
  float r[4];
  type_cell(h, app, "embedding[0][0]", "1e39");
  EXPECT_EQ(app.state_json(), before);
  EXPECT_TRUE(app.item_rect("error", r) && drawn_now("error"));
  EXPECT_NE(sentence(app).find("float32's range"), std::string::npos) << sentence(app);
  // 1e20 fits float32, but its scores (about 1e40) do not.
  type_cell(h, app, "embedding[0][0]", "1e20");
  EXPECT_EQ(app.state_json(), before);
  EXPECT_NE(sentence(app).find("would pass float32's largest number"), std::string::npos) << sentence(app);
  EXPECT_NE(sentence(app).find("scores"), std::string::npos) << sentence(app);
  type_cell(h, app, "embedding[0][0]", "1e15");  // scores about 1e30: fine
  EXPECT_EQ(cell00(app), 1e15f);
  EXPECT_FALSE(drawn_now("error"));
  type_cell(h, app, "embedding[0][0]", "abc");
  EXPECT_NE(sentence(app).find("is not a number"), std::string::npos) << sentence(app);
  EXPECT_EQ(cell00(app), 1e15f);
}

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
