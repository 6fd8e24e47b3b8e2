// test_i18n_menus.cpp: the menus, dialogs, notices and help in 简体中文 (i18n.h).
// The File, Edit and Help menus, the keyboard shortcuts window, the desktop's Open
// state dialog and the trained-weights dialog drawn in Chinese ask the catalogue for
// nothing it lacks; refusals (a share link's view, a state file, every weights
// problem) and the screen readers' sentence are worded in Chinese, with the values
// where the Chinese sentence puts them; the English wording is unchanged.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "temp_dir.h"
#include "../engine/weights_test_util.h"
#include "app/app.h"
#include "app/text/i18n.h"
#include "app/panels/weights_import.h"
#include "app/text/weights_text.h"
#include "headless.h"
#include "imgui.h"
#include "imgui_internal.h"

namespace {

using namespace attnviz;
using namespace attnviz::ui;
using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;
namespace fs = std::filesystem;

// The language is the process's: each test starts and ends in English.
struct I18nMenus : ::testing::Test {
  void SetUp() override {
    set_language(Lang::en);
    i18n_clear_misses();
  }
  void TearDown() override { set_language(Lang::en); }
};

std::set<std::string> misses() {
  const auto& m = i18n_misses();
  return {m.begin(), m.end()};
}

// Keys missed while `open` drew something that the frames before did not: the other
// panels' misses (their sections are translated elsewhere) are left out.
template <class F>
std::string new_misses(Headless& h, App& app, F open) {
  for (int i = 0; i < 2; ++i) h.frame(app);
  i18n_clear_misses();
  h.frame(app);
  const std::set<std::string> before = misses();
  open();
  std::string out;
  for (const std::string& k : misses())
    if (!before.count(k)) out += "\n  " + k;
  return out;
}

void press(Headless& h, App& app, ImGuiKey key) {
  ImGui::GetIO().AddKeyEvent(key, true);
  h.frame(app);
  ImGui::GetIO().AddKeyEvent(key, false);
  h.frame(app);
}

// The title a window is drawn with, found by its language-independent ID ("###help").
std::string window_title(const char* id) {
  const ImGuiWindow* w = ImGui::FindWindowByName(id);
  return w ? std::string(w->Name) : std::string();
}

TEST_F(I18nMenus, MenusAndTheShortcutsWindowInChinese) {
  Headless h(ImVec2(1600, 1000));
  NullTextures tex;
  App app(&tex);
  ASSERT_TRUE(app.set_language("zh-CN").value("ok", false));
  const std::string missed = new_misses(h, app, [&] {
    for (const char* menu : {"File", "Edit", "Help"}) {
      h.click(app, menu);
      h.frame(app);
      press(h, app, ImGuiKey_Escape);
    }
    press(h, app, ImGuiKey_F1);  // the keyboard shortcuts window
    h.frame(app);
  });
  EXPECT_TRUE(missed.empty()) << "shown in Chinese without an entry:" << missed;
  EXPECT_EQ(window_title("###help"), "键盘快捷键###help");
  float r[4];
  EXPECT_TRUE(app.item_rect("Keyboard shortcuts window", r)) << "registered under its English name";
  press(h, app, ImGuiKey_Escape);
}

TEST_F(I18nMenus, OpenStateDialogInChinese) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  ASSERT_TRUE(app.set_language("zh-CN").value("ok", false));
  const std::string missed = new_misses(h, app, [&] {
    h.click(app, "File");
    h.click(app, "Open state…");  // no file picker in the tests: the path dialog
    h.frame(app);
  });
  EXPECT_TRUE(missed.empty()) << "shown in Chinese without an entry:" << missed;
  float r[4];
  EXPECT_TRUE(app.item_rect("Open state path", r));
  EXPECT_EQ(window_title("###Open state").rfind("打开状态###", 0), 0u) << window_title("###Open state");
  h.click(app, "Cancel");
}

TEST_F(I18nMenus, WeightsDialogInChinese) {
  const fs::path dir = attnviz::ui::testing::test_temp_dir("attnviz-test-i18n-weights");
  fs::create_directories(dir);
  std::vector<attnviz::testing::StTensor> ts;
  for (int l = 0; l < 2; ++l) {  // two layers: the Layer combo shows too
    const std::string p = "transformer.h." + std::to_string(l) + ".attn.";
    ts.push_back({p + "c_attn.weight", {6, 18}, std::vector<float>(108, 0.25f)});
    ts.push_back({p + "c_proj.weight", {6, 6}, std::vector<float>(36, 0.5f)});
  }
  std::ofstream(dir / "gpt2.safetensors", std::ios::binary) << attnviz::testing::safetensors_f32(ts);

  Headless h(ImVec2(1600, 1000));
  NullTextures tex;
  App app(&tex);
  ASSERT_TRUE(app.set_language("zh-CN").value("ok", false));
  std::string missed = new_misses(h, app, [&] {
    auto r = app.import_state_file((dir / "gpt2.safetensors").string());
    EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
    for (int i = 0; i < 3; ++i) h.frame(app);
  });
  EXPECT_TRUE(weights_dialog_info()["open"].get<bool>());
  EXPECT_TRUE(missed.empty()) << "shown in Chinese without an entry:" << missed;
  EXPECT_EQ(window_title("###Open weights").rfind("打开训练好的权重###", 0), 0u) << window_title("###Open weights");

  // Apply: the notice says what was loaded, in Chinese.
  h.click(app, "Apply weights");
  h.frame(app);
  const std::string notice = app.notice().value("text", std::string());
  EXPECT_EQ(notice.rfind("已载入来自“gpt2.safetensors”（层 transformer.h.0.attn.）的权重：d_model 6，d_out 6，1 个头。", 0),
            0u)
      << notice;
  // A file cut short: refused in Chinese, the engine's value in its place.
  const std::string whole = attnviz::testing::safetensors_f32(ts);
  std::ofstream(dir / "cut.safetensors", std::ios::binary) << whole.substr(0, 100);
  auto r = app.import_state_file((dir / "cut.safetensors").string());
  const std::string e = r.value("error", std::string());
  EXPECT_EQ(e.rfind("未打开“cut.safetensors”：文件不完整：读取 ", 0), 0u) << e;
  EXPECT_NE(e.find("状态保持不变。"), std::string::npos) << e;
  fs::remove_all(dir);
}

// Every weights problem has its Chinese sentence, with every value in it, in the
// order the Chinese sentence needs.
TEST_F(I18nMenus, EveryWeightsProblemInChinese) {
  using weights::Problem;
  set_language(Lang::zh_CN);
  for (int c = static_cast<int>(Problem::file_empty); c <= static_cast<int>(Problem::state_refused); ++c) {
    const weights::Error e = weights::Error::make(static_cast<Problem>(c), {"A0", "B1", "C2", "D3", "E4", "F5"});
    set_language(Lang::en);
    const std::string en = weights_sentence(e);
    set_language(Lang::zh_CN);
    const std::string zh = weights_sentence(e);
    EXPECT_NE(zh, en) << weights::problem_name(e.code);
    EXPECT_EQ(zh.find('{'), std::string::npos) << zh;
    for (const char* v : {"A0", "B1", "C2", "D3", "E4", "F5"})  // each value the English shows, the Chinese shows
      EXPECT_EQ(en.find(v) == std::string::npos, zh.find(v) == std::string::npos) << v << ": " << en << " / " << zh;
  }
  EXPECT_TRUE(i18n_misses().empty()) << i18n_misses().size() << " keys missing, e.g. " << i18n_misses()[0];
  const std::string s =
      weights_sentence(weights::Error::make(Problem::role_split_uneven, {"W_q", "c_attn.weight", "(6, 17)"}));
  EXPECT_EQ(s, "“c_attn.weight”（文件中为 (6, 17)）无法沿输出轴为 W_q 等分成三份。");
  set_language(Lang::en);
  EXPECT_EQ(weights_sentence(weights::Error::make(Problem::role_split_uneven, {"W_q", "c_attn.weight", "(6, 17)"})),
            "“c_attn.weight” ((6, 17) in the file) cannot be cut into three equal parts along its output axis for W_q.");
}

TEST_F(I18nMenus, RefusalsAndNoticesInChinese) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  ASSERT_TRUE(app.set_language("zh-CN").value("ok", false));
  nlohmann::json link = app.session_json();
  link["view"]["cmap"] = "magma";
  nlohmann::json r = app.set_session_text(link.dump());
  EXPECT_EQ(r.value("error", std::string()), "链接中的 view.cmap 必须是 viridis 或 cividis。");
  EXPECT_EQ(r.value("field", std::string()), "view.cmap");
  link = app.session_json();
  link["view"]["head_b"] = -1;
  r = app.set_session_text(link.dump());
  EXPECT_EQ(r.value("error", std::string()), "链接中的 view.head_b 必须是头的编号（0、1、…）。");
  link["v"] = 7;
  r = app.set_session_text(link.dump());
  EXPECT_EQ(r.value("error", std::string()), "它由更新版本的 attnviz 生成（格式 7）；此版本读取格式 1。请用新版本打开。");

  // State files: not JSON at all, and JSON the engine refuses.
  r = app.import_state("notes.json", "these are my notes");
  EXPECT_EQ(r.value("error", std::string()).rfind("“notes.json”不是 JSON 文件：", 0), 0u) << r.dump();
  EXPECT_NE(r.value("error", std::string()).find("；未打开，状态保持不变。"), std::string::npos) << r.dump();
  r = app.import_state("big.json", "{\"temperature\": 1e400}");
  EXPECT_EQ(r.value("error", std::string()).rfind("无法读取“big.json”：", 0), 0u) << r.dump();
  r = app.import_state("ok.json", app.state_json());
  h.frame(app);  // the import's sentence reaches the notice line in the frame
  ASSERT_TRUE(app.notice().is_object());
  EXPECT_EQ(app.notice().value("text", std::string()), "已打开“ok.json”。");

  // The same refusals in English, worded as before.
  set_language(Lang::en);
  r = app.import_state("notes.json", "these are my notes");
  EXPECT_EQ(r.value("error", std::string()).rfind("“notes.json” is not a JSON file: ", 0), 0u) << r.dump();
  r = app.import_state("big.json", "{\"temperature\": 1e400}");
  EXPECT_EQ(r.value("error", std::string()).rfind("“big.json” cannot be read: ", 0), 0u) << r.dump();
  link["v"] = 1;
  link["view"]["head_b"] = -1;
  r = app.set_session_text(link.dump());
  EXPECT_EQ(r.value("error", std::string()), "The link's view.head_b must be a head number (0, 1, …).");
}

// The screen readers' sentence follows the language, and is the same in English.
TEST_F(I18nMenus, LiveTextInChinese) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  nlohmann::json link = app.session_json();
  link["view"]["pinned"] = {{"stage", "weights"}, {"head", 0}, {"row", 2}, {"col", 1}};
  ASSERT_TRUE(app.set_session_text(link.dump()).value("ok", false));
  for (int i = 0; i < 3; ++i) h.frame(app);
  const auto tokens = nlohmann::json::parse(app.state_json()).value("tokens", std::vector<std::string>());
  ASSERT_GT(tokens.size(), 2u);
  std::string en, zh;
  ASSERT_TRUE(app.live_text(en));
  EXPECT_EQ(en.rfind("weights, head 0, query 2 “" + tokens[2] + "”, key 1 “" + tokens[1] + "”: ", 0), 0u) << en;
  EXPECT_EQ(en.substr(en.size() - 8), ", pinned") << en;
  set_language(Lang::zh_CN);
  ASSERT_TRUE(app.live_text(zh));
  EXPECT_EQ(zh.rfind("weights，头 0，查询 2 “" + tokens[2] + "”，键 1 “" + tokens[1] + "”：", 0), 0u) << zh;
  EXPECT_EQ(zh.substr(zh.size() - 12), "，已固定") << zh;
  EXPECT_EQ(en.substr(en.find(": ") + 2, 6), zh.substr(zh.find("：") + 3, 6)) << "the same value";
  EXPECT_TRUE(i18n_misses().empty());
}

}  // namespace
