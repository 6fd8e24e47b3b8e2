// test_item_hooks.cpp: labelled widgets register themselves through ImGui's item
// hooks (ui/app/widgets/item_registry.cpp) under their stable English name, in
// every language, so a panel needs no hand call for them; and the names a label
// gives (item_name).
#include <gtest/gtest.h>

#include "app/app.h"
#include "app/text/i18n.h"
#include "app/widgets/item_registry.h"
#include "headless.h"
#include "imgui.h"

namespace {

using attnviz::ui::App;
using attnviz::ui::item_name;
using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;

TEST(ItemHooks, ALabelGivesItsStableName) {
  EXPECT_EQ(item_name("撤销###Undo"), "Undo");          // L("Undo") in Chinese
  EXPECT_EQ(item_name("Undo###Undo"), "Undo");
  EXPECT_EQ(item_name("##path"), "path");               // a hidden label: its id
  EXPECT_EQ(item_name("Open##dialog"), "Open");          // shown text before "##"
  EXPECT_EQ(item_name("Causal mask"), "Causal mask");
  EXPECT_EQ(item_name(nullptr), "");
}

// The Edit menu has no item_register call left (menu_edit.cpp): its items are found,
// opened and clicked by their English names, in English and in Chinese.
TEST(ItemHooks, TheEditMenuIsFoundByItsEnglishNamesInBothLanguages) {
  for (const char* lang : {"en", "zh-CN"}) {
    Headless h;
    NullTextures tex;
    App app(&tex);
    ASSERT_TRUE(app.set_language(lang).value("ok", false)) << lang;
    h.frame(app);
    h.frame(app);
    const std::string before = app.state_json();
    h.click(app, "Causal mask");
    ASSERT_NE(app.state_json(), before) << lang;
    float r[4];
    ASSERT_TRUE(app.item_rect("Edit", r)) << lang;
    EXPECT_GT(r[2], 10.0f);
    EXPECT_FALSE(app.item_rect("Undo", r)) << "the menu is closed: its items are not drawn";
    h.click(app, "Edit");
    ASSERT_TRUE(app.item_rect("Undo", r)) << lang;
    ASSERT_TRUE(app.item_rect("Redo", r)) << lang;
    ASSERT_TRUE(app.item_rect("Copy share link", r)) << lang;
    h.click(app, "Undo");
    EXPECT_EQ(app.state_json(), before) << lang << ": Undo, clicked by its name, took the click back";
    h.frame(app);
    h.frame(app);
    EXPECT_FALSE(app.item_rect("Undo", r)) << lang << ": the menu closed";
  }
  attnviz::ui::set_language(attnviz::ui::Lang::en);
}

}  // namespace
