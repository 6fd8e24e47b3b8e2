// test_decode.cpp: the Decode tab (panel_decode.cpp). It opens on the last step,
// the ◀ ▶ buttons and ←/→ move the step, the maps have the step's shapes, the
// equality line is there, and at 1280×720 every row of the step fits the Views
// window.
#include <gtest/gtest.h>

#include <string>

#include "app/app.h"
#include "app/widgets/item_registry.h"
#include "headless.h"
#include "imgui.h"

namespace {

using attnviz::ui::App;
using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;

std::string state(int S, const std::string& extra = "") {
  std::string t;
  for (int i = 0; i < S; ++i) t += (i ? ",\"w" : "\"w") + std::to_string(i) + "\"";
  return "{\"tokens\": [" + t + "], \"d_model\": 8, \"d_out\": 8, \"num_heads\": 2, \"causal\": true" + extra + "}";
}

int cols_of(const App& app, const char* map) {
  nlohmann::json j = app.heatmap_info(map);
  return j.is_null() ? -1 : j.value("cols", -1);
}

void key(Headless& h, App& app, ImGuiKey k) {
  ImGui::GetIO().AddKeyEvent(k, true);
  h.frame(app);
  ImGui::GetIO().AddKeyEvent(k, false);
  h.frame(app);
  h.frame(app);
}

struct Rect {
  float x, y, w, h;
};
Rect rect(const App& app, const char* label) {
  float r[4] = {0, 0, 0, 0};
  EXPECT_TRUE(app.item_rect(label, r)) << label;
  return {r[0], r[1], r[2], r[3]};
}
bool inside(const Rect& a, const Rect& b) {
  return a.x >= b.x - 0.5f && a.y >= b.y - 0.5f && a.x + a.w <= b.x + b.w + 0.5f && a.y + a.h <= b.y + b.h + 0.5f;
}

TEST(DecodeTab, OpensOnTheLastStepAndMovesWithButtonsAndArrowKeys) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 3; ++i) h.frame(app);
  ASSERT_TRUE(app.set_state_text(state(12)).value("ok", false));
  h.frame(app);
  h.click(app, "Decode");
  for (int i = 0; i < 2; ++i) h.frame(app);
  EXPECT_EQ(cols_of(app, "decode weights"), 12);
  nlohmann::json k = app.heatmap_info("decode K cache");
  ASSERT_FALSE(k.is_null());
  EXPECT_EQ(k.value("rows", -1), 12);
  EXPECT_EQ(k.value("cols", -1), 4);
  h.click(app, "Decode previous");
  EXPECT_EQ(cols_of(app, "decode weights"), 11);
  key(h, app, ImGuiKey_LeftArrow);
  EXPECT_EQ(cols_of(app, "decode weights"), 10);
  EXPECT_EQ(app.heatmap_info("decode V cache").value("rows", -1), 10);
  key(h, app, ImGuiKey_RightArrow);
  EXPECT_EQ(cols_of(app, "decode scores"), 11);
  h.click(app, "Decode next");
  EXPECT_EQ(cols_of(app, "decode masked"), 12);
  h.click(app, "Decode next");  // already the last step
  EXPECT_EQ(cols_of(app, "decode weights"), 12);
  EXPECT_EQ(cols_of(app, "decode context"), 4);
  float r[4];
  EXPECT_TRUE(app.item_rect("Decode equality", r));
  EXPECT_TRUE(app.item_rect("Decode new token", r));
  EXPECT_TRUE(app.item_rect("kv cache bar", r));
  EXPECT_FALSE(attnviz::ui::testing::drawn_now("kv cache bar window")) << "no window set";
  EXPECT_FALSE(app.item_rect("Turn on Causal mask", r)) << "the state is causal";
}

TEST(DecodeTab, NotCausalOffersTheCausalMaskAndTurnsItOn) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 3; ++i) h.frame(app);
  std::string s = state(6);
  s.replace(s.find("\"causal\": true"), 14, "\"causal\": false");
  ASSERT_TRUE(app.set_state_text(s).value("ok", false));
  h.frame(app);
  h.click(app, "Decode");
  h.frame(app);
  h.click(app, "Turn on Causal mask");
  EXPECT_TRUE(nlohmann::json::parse(app.state_json()).value("causal", false));
}

TEST(DecodeTab, TheStepFitsTheViewsWindowAt1280x720And1920x1080) {
  for (const ImVec2 size : {ImVec2(1280, 720), ImVec2(1920, 1080)})
  for (const char* extra : {"", ", \"dropout\": {\"p\": 0.2, \"training\": true}, \"window\": 4"}) {
    for (int S : {5, 24, 120}) {
      SCOPED_TRACE(std::to_string(S) + extra + " at " + std::to_string((int)size.x));
      Headless h(size);
      NullTextures tex;
      App app(&tex);
      for (int i = 0; i < 3; ++i) h.frame(app);
      ASSERT_TRUE(app.set_state_text(state(S, extra)).value("ok", false));
      h.frame(app);
      h.click(app, "Decode");
      for (int i = 0; i < 3; ++i) h.frame(app);
      const Rect views = rect(app, "Views window");
      const Rect screen{0, 0, size.x, size.y};
      ASSERT_TRUE(inside(views, screen));
      for (const char* item : {"Decode step", "Decode previous", "Decode next", "Decode equality", "Decode appended", "kv cache bytes",
                               "kv cache bar", "kv cache bar MHA", "decode query", "decode scores", "decode masked", "decode weights",
                               "decode context", "decode K cache", "decode V cache"}) {
        const Rect r = rect(app, item);
        EXPECT_TRUE(inside(r, views)) << item << " at " << r.x << "," << r.y << " " << r.w << "x" << r.h;
      }
      // The rows' maps are drawn whole (not cut off at the window's bottom edge).
      for (const char* map : {"decode scores", "decode weights", "decode context"}) {
        nlohmann::json j = app.heatmap_info(map);
        ASSERT_FALSE(j.is_null()) << map;
        EXPECT_LE(j.value("y", 0.0f) + j.value("h", 0.0f), views.y + views.h) << map;
        EXPECT_GT(j.value("cell_w", 0.0f), 0.5f) << map;
      }
    }
  }
}

}  // namespace

namespace {

// ← / → step the Decode tab and nothing else: the keyboard's navigation cursor stays
// where it was, so a Space afterwards does not press a tab it walked to (issue 31).
TEST(DecodeTab, ArrowKeysStepWithoutWalkingTheNavigationCursor) {
  Headless h(ImVec2(1440, 900));
  ImGui::GetIO().ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;  // as the runner sets it
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 3; ++i) h.frame(app);
  ASSERT_TRUE(app.set_state_text(state(12)).value("ok", false));
  h.frame(app);
  h.click(app, "Decode");
  for (int i = 0; i < 2; ++i) h.frame(app);
  for (int k = 0; k < 3; ++k) key(h, app, ImGuiKey_LeftArrow);
  EXPECT_EQ(cols_of(app, "decode weights"), 9);
  key(h, app, ImGuiKey_Space);
  for (int i = 0; i < 2; ++i) h.frame(app);
  EXPECT_EQ(cols_of(app, "decode weights"), 9) << "still on the Decode tab, at the same step";
  for (int k = 0; k < 2; ++k) key(h, app, ImGuiKey_RightArrow);
  key(h, app, ImGuiKey_Space);
  for (int i = 0; i < 2; ++i) h.frame(app);
  EXPECT_EQ(cols_of(app, "decode weights"), 11) << "still on the Decode tab, two steps on";
}

}  // namespace
