// test_ui_smoke.cpp: the app runs hundreds of frames with no backend, registers its
// labelled items, uploads a heatmap texture only when its stage changed, keeps
// its last valid state when given a bad one, and ends a chip's edit when a new
// state takes its token away.
#include <gtest/gtest.h>

#include "app/app.h"
#include "app/widgets/fonts.h"
#include "app/model/presets.h"
#include "headless.h"
#include "imgui.h"

namespace {

using attnviz::ui::App;

using attnviz::ui::testing::drawn_now;
using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;

TEST(UiSmoke, RunsHundredsOfFramesAndRegistersItems) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 300; ++i) {
    ImGui::GetIO().AddMousePosEvent(100.0f + (float)(i % 700), 50.0f + (float)(i % 500));
    h.frame(app);
  }
  float r[4];
  ASSERT_TRUE(app.item_rect("weights h0", r));
  EXPECT_GT(r[2], 10.0f);
  EXPECT_GT(r[3], 10.0f);
  ASSERT_TRUE(app.item_rect("Causal mask", r));
  EXPECT_FALSE(app.item_rect("no such item", r));
  EXPECT_GT(ImGui::GetDrawData()->TotalVtxCount, 100);
}

TEST(UiSmoke, UploadsTexturesOnlyWhenAStageChanges) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 5; ++i) h.frame(app);
  uint64_t settled = tex.uploads;
  ASSERT_GT(settled, 0u);
  for (int i = 0; i < 100; ++i) h.frame(app);
  EXPECT_EQ(tex.uploads, settled) << "nothing changed, so nothing may be re-uploaded";

  nlohmann::json s = nlohmann::json::parse(app.state_json());
  s["causal"] = true;
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false));
  for (int i = 0; i < 3; ++i) h.frame(app);
  EXPECT_GT(tex.uploads, settled) << "the causal mask changes masked/weights: they re-upload";
}

TEST(UiSmoke, BadStateKeepsTheLastValidOne) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  std::string before = app.state_json();
  nlohmann::json r = app.set_state_text("{not json");
  EXPECT_FALSE(r.value("ok", true));
  EXPECT_FALSE(r.value("error", std::string()).empty());
  nlohmann::json s = nlohmann::json::parse(before);
  s["tokens"] = nlohmann::json::array();
  r = app.set_state_text(s.dump());
  EXPECT_FALSE(r.value("ok", true));
  EXPECT_EQ(r.value("field", std::string()), "tokens");
  EXPECT_EQ(app.state_json(), before);
  h.frame(app);
  EXPECT_NE(app.matrix("weights", 0).data, nullptr);
}

}  // namespace

namespace {

TEST(UiPresets, EveryPresetLoadsAndTheFirstIsTheDefault) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  const auto& list = attnviz::ui::presets();
  ASSERT_GE(list.size(), 5u);
  for (const auto& p : list) {
    nlohmann::json r = app.set_state_text(p.state.dump());
    EXPECT_TRUE(r.value("ok", false)) << p.id << ": " << r.dump();
    EXPECT_FALSE(p.title.empty()) << p.id;
    h.frame(app);
  }
  App fresh(&tex);
  ASSERT_TRUE(app.set_state_text(list.front().state.dump()).value("ok", false));
  EXPECT_EQ(fresh.state_json(), app.state_json());
}

// A token chip's field belongs to the token it was opened on. A new state (a preset,
// a link, a file, setState) that takes that token away ends the edit: the field does
// not reopen when the tokens grow back past its index, nor move onto another token.
TEST(UiSmoke, AChipEditEndsWhenANewStateTakesItsToken) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  auto tokens = [&](const char* list) {
    ASSERT_TRUE(app.set_state_text(std::string("{\"tokens\": [") + list + "]}").value("ok", false));
    h.frame(app);
    h.frame(app);
  };
  tokens("\"a\", \"b\", \"c\", \"d\", \"e\"");
  h.click(app, "token 4");
  EXPECT_FALSE(drawn_now("token 4")) << "the chip's field is open in its place";
  tokens("\"x\", \"y\", \"z\"");  // index 4 is past the end
  EXPECT_TRUE(drawn_now("token 2"));
  tokens("\"p\", \"q\", \"r\", \"s\", \"t\", \"u\"");
  EXPECT_TRUE(drawn_now("token 4")) << "no field reopens on a token it was not opened on";
  EXPECT_TRUE(drawn_now("token 5"));

  h.click(app, "token 1");
  EXPECT_FALSE(drawn_now("token 1"));
  tokens("\"k\", \"l\", \"m\", \"n\", \"o\", \"v\"");  // as many tokens, others
  EXPECT_TRUE(drawn_now("token 1")) << "the field closed with its token";
  EXPECT_TRUE(drawn_now("token 5"));
}

}  // namespace
