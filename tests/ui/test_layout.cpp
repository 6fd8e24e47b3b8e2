// test_layout.cpp: where the windows go (ui/app/panels/layout.h) and what the app does
// with it: the default arrangement tiles the screen with Parameters tall enough for
// its controls, a saved arrangement from a larger screen is fitted onto a smaller
// one, windows dropped off the screen come back, View > Reset layout restores the
// default, and the Parameters controls stay in reach with 120 tokens.
#include <gtest/gtest.h>

#include <string>

#include "app/app.h"
#include "app/widgets/item_registry.h"
#include "app/panels/layout.h"
#include "headless.h"
#include "imgui.h"

namespace {

using attnviz::ui::App;
using attnviz::ui::LayoutRect;
using attnviz::ui::testing::drawn_now;
using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;
namespace L = attnviz::ui;

bool inside(const LayoutRect& r, const LayoutRect& work) {
  return r.x >= work.x && r.y >= work.y && r.right() <= work.right() && r.bottom() <= work.bottom();
}
bool overlap(const LayoutRect& a, const LayoutRect& b) {
  return a.x < b.right() && b.x < a.right() && a.y < b.bottom() && b.y < a.bottom();
}
::testing::AssertionResult all_inside(const LayoutRect* r, int n, const LayoutRect& work) {
  for (int i = 0; i < n; ++i)
    if (!inside(r[i], work))
      return ::testing::AssertionFailure() << "window " << i << " at " << r[i].x << "," << r[i].y << " size "
                                           << r[i].w << "x" << r[i].h << " is not inside " << work.w << "x" << work.h;
  return ::testing::AssertionSuccess();
}

TEST(Layout, DefaultTilesTheWorkAreaWithParametersAsTallAsAsked) {
  for (LayoutRect work : {LayoutRect{0, 19, 1280, 701}, LayoutRect{0, 19, 1440, 881}, LayoutRect{0, 19, 1920, 1061}}) {
    LayoutRect r[L::kLayoutCount];
    L::layout_default(work, 480, 150, r);
    EXPECT_TRUE(all_inside(r, L::kLayoutCount, work));
    EXPECT_EQ(r[L::kLayoutParams].h, 480) << work.w;
    EXPECT_EQ(r[L::kLayoutInspector].y, r[L::kLayoutParams].bottom()) << "the Inspector right under Parameters";
    EXPECT_EQ(r[L::kLayoutInspector].bottom(), work.bottom());
    EXPECT_EQ(r[L::kLayoutViews].x, r[L::kLayoutParams].right());
    EXPECT_EQ(r[L::kLayoutViews].right(), work.right());
    EXPECT_GE(r[L::kLayoutParams].w, 280);
    EXPECT_LE(r[L::kLayoutParams].w, 360);
    for (int i = 0; i < L::kLayoutCount; ++i)
      for (int j = i + 1; j < L::kLayoutCount; ++j) EXPECT_FALSE(overlap(r[i], r[j])) << i << " " << j;
  }
}

TEST(Layout, DefaultKeepsRoomForTheInspectorOnShortScreens) {
  LayoutRect work{0, 19, 1024, 581}, r[L::kLayoutCount];
  L::layout_default(work, 480, 150, r);
  EXPECT_EQ(r[L::kLayoutInspector].h, 150);
  EXPECT_EQ(r[L::kLayoutParams].h, 431);
  // Too short for both: they share it rather than the Inspector taking Parameters' place.
  L::layout_default(LayoutRect{0, 19, 800, 200}, 480, 150, r);
  EXPECT_EQ(r[L::kLayoutParams].h, 100);
  EXPECT_EQ(r[L::kLayoutInspector].h, 100);
}

TEST(Layout, ClampMovesAWindowBackWithoutShrinkingIt) {
  const LayoutRect work{0, 19, 1024, 681};
  LayoutRect off_right{900, 100, 300, 400};
  LayoutRect c = L::layout_clamp(off_right, work);
  EXPECT_EQ(c, (LayoutRect{724, 100, 300, 400}));
  LayoutRect off_top_left{-50, -30, 300, 400};
  EXPECT_EQ(L::layout_clamp(off_top_left, work), (LayoutRect{0, 19, 300, 400}));
  LayoutRect too_big{100, 100, 2000, 900};
  EXPECT_EQ(L::layout_clamp(too_big, work), (LayoutRect{0, 19, 1024, 681}));
  LayoutRect fine{10, 40, 200, 200};
  EXPECT_EQ(L::layout_clamp(fine, work), fine);
}

TEST(Layout, FitScalesASavedArrangementOntoASmallerScreen) {
  LayoutRect big[L::kLayoutCount];
  L::layout_default(LayoutRect{0, 19, 1600, 981}, 480, 150, big);
  LayoutRect r[L::kLayoutCount] = {big[0], big[1], big[2]};
  const LayoutRect small{0, 19, 1024, 681};
  EXPECT_TRUE(L::layout_fit(r, L::kLayoutCount, small));
  EXPECT_TRUE(all_inside(r, L::kLayoutCount, small));
  for (int i = 0; i < L::kLayoutCount; ++i)
    for (int j = i + 1; j < L::kLayoutCount; ++j) EXPECT_FALSE(overlap(r[i], r[j])) << i << " " << j;
  // The arrangement keeps its proportions, except that the left column keeps the width
  // a fresh load gives it on this screen (scaled, 1440×900's 345 px became 245 px and
  // the Split combo covered "Tokens"); Views from its right edge to the screen's.
  LayoutRect fresh[L::kLayoutCount];
  L::layout_default(small, 480, 150, fresh);
  EXPECT_EQ(r[L::kLayoutParams].w, fresh[L::kLayoutParams].w);
  EXPECT_EQ(r[L::kLayoutInspector].w, fresh[L::kLayoutInspector].w);
  EXPECT_GE(r[L::kLayoutViews].x, r[L::kLayoutParams].right() - 0.5f);
  EXPECT_LE(small.right() - r[L::kLayoutViews].right(), 1.0f);
  EXPECT_LE(small.bottom() - r[L::kLayoutInspector].bottom(), 1.0f);
  // Fitting what fits changes nothing.
  LayoutRect again[L::kLayoutCount] = {r[0], r[1], r[2]};
  EXPECT_FALSE(L::layout_fit(again, L::kLayoutCount, small));
  for (int i = 0; i < L::kLayoutCount; ++i) EXPECT_EQ(again[i], r[i]);
}

TEST(Layout, FitMovesAStrayWindowInAndKeepsAUsableSize) {
  // One window dragged far off the bottom-right corner on a big screen.
  LayoutRect r[2] = {{0, 19, 300, 500}, {3000, 2000, 400, 300}};
  const LayoutRect work{0, 19, 1024, 681};
  L::layout_fit(r, 2, work);
  EXPECT_TRUE(all_inside(r, 2, work));
  EXPECT_GE(r[1].w, L::kLayoutMinW);
  EXPECT_GE(r[1].h, L::kLayoutMinH);
}

// --- The app, headless: the Parameters controls and the windows on real frames.

const char* const kControls[] = {"Tokens", "Heads", "Causal mask", "Dropout p", "Training"};
const char* const kWindows[] = {"Parameters window", "Inspector window", "Views window"};

LayoutRect rect_of(const App& app, const char* label) {
  EXPECT_TRUE(drawn_now(label)) << label << " was not drawn in the last frame";
  float r[4] = {0, 0, 0, 0};
  EXPECT_TRUE(app.item_rect(label, r)) << label << " was not drawn (or is scrolled out of view)";
  return {r[0], r[1], r[2], r[3]};
}

void expect_controls_in_reach(const App& app, ImVec2 screen) {
  const LayoutRect params = rect_of(app, "Parameters window");
  for (const char* c : kControls) {
    LayoutRect r = rect_of(app, c);
    EXPECT_TRUE(inside(r, params)) << c << " inside the Parameters window at " << screen.x << "x" << screen.y;
    EXPECT_TRUE(inside(r, LayoutRect{0, 0, screen.x, screen.y})) << c << " on screen";
  }
}

TEST(LayoutApp, ControlsAreInReachOnFirstOpen) {
  for (ImVec2 screen : {ImVec2(1280, 720), ImVec2(1440, 900), ImVec2(1920, 1080)}) {
    Headless h(screen);
    NullTextures tex;
    App app(&tex);
    for (int k = 0; k < 6; ++k) h.frame(app);
    expect_controls_in_reach(app, screen);
    for (const char* w : kWindows)
      EXPECT_TRUE(inside(rect_of(app, w), LayoutRect{0, 0, screen.x, screen.y})) << w;
    // Parameters is as tall as its rows, no more: the last header (Weights) ends
    // within two rows of its bottom edge, and nothing scrolls.
    const LayoutRect params = rect_of(app, "Parameters window"), last = rect_of(app, "Weights");
    EXPECT_LE(last.bottom(), params.bottom()) << screen.y;
    EXPECT_LT(params.bottom() - last.bottom(), 2 * ImGui::GetFrameHeightWithSpacing()) << screen.y;
    // The Inspector under it keeps room for its explanation (at least ten lines).
    EXPECT_GE(rect_of(app, "Inspector window").h, 10 * ImGui::GetTextLineHeightWithSpacing()) << screen.y;
    // Temperature's group starts open where there is room for it, closed at 720 px.
    EXPECT_EQ(drawn_now("Temperature"), screen.y >= 820) << screen.y;
  }
}

TEST(LayoutApp, AHundredAndTwentyTokensScrollInTheirOwnBox) {
  Headless h(ImVec2(1280, 720));
  NullTextures tex;
  App app(&tex);
  for (int k = 0; k < 4; ++k) h.frame(app);
  const LayoutRect causal_before = rect_of(app, "Causal mask");
  std::string tokens;
  for (int i = 0; i < 120; ++i) tokens += "\"word" + std::to_string(i) + "\",";
  tokens.pop_back();
  ASSERT_TRUE(app.set_state_text("{\"tokens\": [" + tokens + "]}").value("ok", false));
  for (int k = 0; k < 4; ++k) h.frame(app);
  expect_controls_in_reach(app, ImVec2(1280, 720));
  const LayoutRect chips = rect_of(app, "token chips");
  EXPECT_LT(chips.h, 6 * ImGui::GetFrameHeightWithSpacing()) << "the chip box is bounded";
  // The controls moved down by at most the box's growth from one row to its cap.
  EXPECT_LT(rect_of(app, "Causal mask").y - causal_before.y, 4 * ImGui::GetFrameHeightWithSpacing());
  EXPECT_TRUE(drawn_now("token 0"));
  EXPECT_FALSE(drawn_now("token 119")) << "the last chip is scrolled out of its box, not drawn below it";
}

// A layout saved on a 1600×1000 screen, opened on 1024×700: every window inside.
TEST(LayoutApp, ASavedLayoutFromABiggerScreenIsFitted) {
  std::string ini;
  {
    Headless h(ImVec2(1600, 1000));
    NullTextures tex;
    App app(&tex);
    for (int k = 0; k < 6; ++k) h.frame(app);
    ImGui::SetWindowPos("###Inspector", ImVec2(1100, 400));  // as a drag would leave it (on screen)
    h.frame(app);
    ini = ImGui::SaveIniSettingsToMemory();
  }
  ASSERT_NE(ini.find("Pos=1100,400"), std::string::npos) << ini;
  Headless h(ImVec2(1024, 700));
  ImGui::LoadIniSettingsFromMemory(ini.c_str());
  NullTextures tex;
  App app(&tex);
  for (int k = 0; k < 8; ++k) h.frame(app);
  for (const char* w : kWindows)
    EXPECT_TRUE(inside(rect_of(app, w), LayoutRect{0, 0, 1024, 700})) << w;
  // Scaled, not reset: the Inspector is still over on the right. (Not exactly at
  // 1100 × 1024/1600: ImGui itself first pulls a window that starts off the screen
  // back until its edge shows, and the fit scales from there.)
  EXPECT_GT(rect_of(app, "Inspector window").x, 500);
  // A window dropped partly off the screen comes back once the mouse is released.
  ImGui::SetWindowPos("###Views", ImVec2(900, 300));
  ImGui::GetIO().AddMouseButtonEvent(0, true);
  h.frame(app);
  h.frame(app);
  EXPECT_FALSE(inside(rect_of(app, "Views window"), LayoutRect{0, 0, 1024, 700})) << "left alone while dragging";
  ImGui::GetIO().AddMouseButtonEvent(0, false);
  h.frame(app);
  h.frame(app);
  EXPECT_TRUE(inside(rect_of(app, "Views window"), LayoutRect{0, 0, 1024, 700}));
}

TEST(LayoutApp, ResetLayoutRestoresTheDefaultArrangement) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  for (int k = 0; k < 6; ++k) h.frame(app);
  const LayoutRect params = rect_of(app, "Parameters window"), views = rect_of(app, "Views window");
  ImGui::SetWindowPos("###Parameters", ImVec2(500, 300));
  ImGui::SetWindowSize("###Views", ImVec2(400, 300));
  h.frame(app);
  h.frame(app);
  ASSERT_NE(rect_of(app, "Parameters window").x, params.x);
  h.click(app, "View");
  h.click(app, "Reset layout");
  EXPECT_EQ(rect_of(app, "Parameters window"), params);
  EXPECT_EQ(rect_of(app, "Views window"), views);
}

}  // namespace
