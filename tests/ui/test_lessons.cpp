// The lessons (docs/lessons.md, ui/app/lessons/): every lesson reads; every step, opened
// at 1280×720 in both languages, draws the map or control it is about and its task's
// target on screen; what each step prints is what PyTorch prints for the lesson's code
// (tests/fixtures/lessons.py ran it with Debian's python3-torch: byte for byte) and, for
// the tutorials' steps, the table the tutorial prints; each kind of task is recognised
// when done and not before; a share link and the saved progress carry the lesson.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/app.h"
#include "app/lessons/lesson_data.h"
#include "app/panels/layout.h"
#include "attnviz/state_json.h"
#include "headless.h"
#include "tutorial_tables.h"  // tests/engine: the tables the tutorials print

namespace attnviz::ui::testing {
namespace {

using nlohmann::json;

struct LangScope {  // the interface's language for one test, English again after it
  explicit LangScope(Lang l) { set_language(l); }
  ~LangScope() { set_language(Lang::en); }
};

// The fixture tests/fixtures/lessons.py wrote: each lesson's printing steps.
const json& torch_fixture() {
  static const json j = [] {
    std::ifstream f("tests/ui/data/lessons_torch.json");  // ctest runs from the repository root
    return f ? json::parse(f, nullptr, false) : json();
  }();
  return j;
}

void open_step(Headless& h, App& app, const Lesson& l, int k) {
  const json r = app.start_lesson(l.id, k);
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  for (int f = 0; f < 6; ++f) h.frame(app);  // the step's state, its view, the map scrolled in
}

bool on_screen(const char* label, ImVec2 display) {
  const ItemRect* r = item_registry().find(label);
  return r && r->frame == ImGui::GetFrameCount() && r->min.x >= 0 && r->min.y >= 0 && r->max.x <= display.x + 0.5f &&
         r->max.y <= display.y + 0.5f && r->max.x > r->min.x && r->max.y > r->min.y;
}

TEST(Lessons, EveryFileReads) {
  EXPECT_TRUE(lesson_errors().empty()) << (lesson_errors().empty() ? "" : lesson_errors()[0]);
  ASSERT_FALSE(lessons().empty());
  for (const Lesson& l : lessons()) {
    EXPECT_FALSE(l.next.empty()) << l.id << ": a finished lesson says what to try next";
    for (size_t k = 0; k < l.steps.size(); ++k) {
      const LessonStep& s = l.steps[k];
      EXPECT_FALSE(s.title.empty() || s.text.empty()) << l.id << " step " << k;
      EXPECT_FALSE(s.show.empty()) << l.id << " step " << k << " lights nothing";
      if (s.task.kind == TaskKind::set) {  // the state it asks for must be one the engine takes
        json st = lesson_step_state(l, static_cast<int>(k) + 1 < static_cast<int>(l.steps.size()) ? static_cast<int>(k) + 1 : static_cast<int>(k));
        State parsed;
        EXPECT_TRUE(parse_state(st, &parsed).ok) << l.id << " step " << k;
      }
    }
  }
}

// Every step of every lesson, opened at 1280×720 in each language: its map or control
// is drawn wholly on screen (scrolled into view), so is its task's target (a tab task's
// tab; a set task's control), and the Lesson window with its text, task and buttons.
void every_step_shows(Lang lang) {
  Headless h(ImVec2(1280, 720));
  FontSources fonts;
  ASSERT_TRUE(use_real_fonts(fonts));
  NullTextures tex;
  App app(&tex);
  LangScope scope(lang);
  const ImVec2 d(1280, 720);
  for (const Lesson& l : lessons()) {
    for (int k = 0; k < static_cast<int>(l.steps.size()); ++k) {
      open_step(h, app, l, k);
      const LessonStep& s = l.steps[k];
      EXPECT_TRUE(on_screen(s.show.c_str(), d)) << l.id << " step " << k << ": " << s.show << " is not wholly on screen";
      if (s.task.kind != TaskKind::hover && s.task.kind != TaskKind::pin)
        EXPECT_TRUE(on_screen(s.task.target.c_str(), d)) << l.id << " step " << k << ": task target " << s.task.target;
      else
        EXPECT_TRUE(item_registry().find(s.task.target)) << l.id << " step " << k << ": task map " << s.task.target;
      for (const char* part : {"Lesson window", "lesson text", "lesson task", "Skip", "Next"})
        EXPECT_TRUE(on_screen(part, d)) << l.id << " step " << k << ": " << part;
      EXPECT_TRUE(i18n_misses().empty()) << l.id << " step " << k << ": " << i18n_misses()[0];
      EXPECT_FALSE(drawn_now("lesson changed")) << l.id << " step " << k << ": its own state is taken for a changed one";
      const json now = app.lesson();
      EXPECT_EQ(now["id"], l.id);
      EXPECT_EQ(now["step"], k);
      EXPECT_FALSE(now["done"].get<bool>()) << l.id << " step " << k << ": done before the learner did anything";
    }
  }
}
TEST(Lessons, EveryStepShowsItsMapAndTaskEnglish) { every_step_shows(Lang::en); }
TEST(Lessons, EveryStepShowsItsMapAndTaskChinese) {
  i18n_clear_misses();
  every_step_shows(Lang::zh_CN);
}

// What each step prints equals PyTorch's repr of the lesson's variable, byte for byte.
TEST(Lessons, PrintsWhatPyTorchPrints) {
  const json& fx = torch_fixture();
  ASSERT_TRUE(fx.is_object()) << "tests/ui/data/lessons_torch.json is missing: run tests/fixtures/lessons.py";
  Headless h(ImVec2(1280, 720));
  NullTextures tex;
  App app(&tex);
  int checked = 0;
  for (const Lesson& l : lessons()) {
    ASSERT_TRUE(fx.contains(l.id)) << l.id << " has no fixture";
    for (const json& c : fx[l.id]) {
      const int k = c["step"].get<int>();
      ASSERT_LT(k, static_cast<int>(l.steps.size())) << l.id;
      ASSERT_TRUE(l.steps[k].print.valid) << l.id << " step " << k;
      open_step(h, app, l, k);
      const std::string printed = app.lesson()["print"].get<std::string>();
      EXPECT_EQ(printed, c["repr"].get<std::string>()) << l.id << " step " << k << " (" << l.steps[k].print.var << ")";
      ++checked;
    }
    int printing = 0;
    for (const LessonStep& s : l.steps) printing += s.print.valid;
    EXPECT_EQ(printing, static_cast<int>(fx[l.id].size())) << l.id << ": a printing step has no fixture";
  }
  EXPECT_GT(checked, 20);
}

// The numbers of a printed tensor or table, in order, with how many decimals each was
// printed with (PyTorch's "1.2000e-03" counts its mantissa's and exponent).
struct Printed {
  std::vector<double> values;
  std::vector<double> unit;  // one unit of the last printed digit
};
Printed numbers_in(const std::string& text) {
  Printed p;
  static const std::regex num(R"((-?)(\d+)\.(\d*)(e[-+]\d+)?)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), num); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    p.values.push_back(std::stod(m.str(0)));
    const double exp10 = m[4].matched ? std::pow(10.0, std::stod(m.str(4).substr(1))) : 1.0;
    p.unit.push_back(std::pow(10.0, -static_cast<double>(m.str(3).size())) * exp10);
  }
  return p;
}

// A tutorial's step prints the tutorial's table: every number within one unit of the
// last digit the tutorial printed. One unit, not half: the tutorials ran on other
// machines (another BLAS), and a handful of their printed cells sit one unit from what
// float32 gives here — tutorial 000's weights [3][0], 2.5676e-03 printed, 2.5677e-03 by
// this machine's PyTorch (tests/fixtures/lessons.py checks the fixture the same way).
TEST(Lessons, TutorialStepsPrintTheTutorialsTables) {
  Headless h(ImVec2(1280, 720));
  NullTextures tex;
  App app(&tex);
  int checked = 0;
  for (const Lesson& l : lessons()) {
    for (int k = 0; k < static_cast<int>(l.steps.size()); ++k) {
      if (l.steps[k].table.empty()) continue;
      const char* table = attnviz_test::tutorial_table(l.steps[k].table.c_str());
      ASSERT_NE(table, nullptr) << l.id << " step " << k << ": no table " << l.steps[k].table;
      open_step(h, app, l, k);
      const Printed got = numbers_in(app.lesson()["print"].get<std::string>());
      const Printed want = numbers_in(table);
      ASSERT_EQ(got.values.size(), want.values.size()) << l.id << " step " << k << " vs " << l.steps[k].table;
      for (size_t i = 0; i < want.values.size(); ++i)
        EXPECT_LE(std::abs(got.values[i] - want.values[i]), want.unit[i] * 1.0001)
            << l.id << " step " << k << " number " << i << ": " << got.values[i] << " printed, the tutorial "
            << want.values[i];
      ++checked;
    }
  }
  EXPECT_GE(checked, 10);
}

// A learner's actions, headless: hovering a map, clicking a control or a tab.
void hover(Headless& h, App& app, const char* label) {
  float r[4];
  ASSERT_TRUE(app.item_rect(label, r)) << label;
  ImGui::GetIO().AddMousePosEvent(r[0] + r[2] * 0.5f, r[1] + r[3] * 0.5f);
  h.frame(app);
  h.frame(app);
}

// Does the step's task, the way the browser test does it with the real mouse, and
// checks the app saw it done (and not before).
void do_task(Headless& h, App& app, const Lesson& l, int k) {
  const LessonTask& t = l.steps[k].task;
  ASSERT_FALSE(app.lesson()["done"].get<bool>()) << l.id << " step " << k;
  switch (t.kind) {
    case TaskKind::hover:
    case TaskKind::pin: {
      float r[4];
      ASSERT_TRUE(app.item_rect(t.target.c_str(), r)) << l.id << " step " << k << ": " << t.target;
      const json info = app.heatmap_info(t.target);
      ASSERT_TRUE(info.is_object()) << t.target;
      const int rows = info["rows"].get<int>(), cols = info["cols"].get<int>();
      const int i = t.row >= 0 ? t.row : 0, j = t.row >= 0 ? t.col : 0;
      (void)rows;
      (void)cols;  // the map may show part of them: the first shown is row0, col0
      const float x = info["x"].get<float>() + (j - info["col0"].get<float>() + 0.5f) * info["cell_w"].get<float>();
      const float y = info["y"].get<float>() + (i - info["row0"].get<float>() + 0.5f) * info["cell_h"].get<float>();
      ImGuiIO& io = ImGui::GetIO();
      io.AddMousePosEvent(x, y);
      h.frame(app);
      h.frame(app);
      if (t.kind == TaskKind::pin) {
        io.AddMouseButtonEvent(0, true);
        h.frame(app);
        io.AddMouseButtonEvent(0, false);
        h.frame(app);
        h.frame(app);
      }
      break;
    }
    case TaskKind::set:
    case TaskKind::click:
    case TaskKind::tab:
      h.click(app, t.target.c_str());
      break;
  }
}

// Every kind of task in the dev-free lessons: not done on opening, done once the learner
// acts, and then Next moves on (the printed step changes).
TEST(Lessons, TasksAreRecognised) {
  Headless h(ImVec2(1280, 720));
  NullTextures tex;
  App app(&tex);
  int kinds[5] = {};
  for (const Lesson& l : lessons()) {
    for (int k = 0; k < static_cast<int>(l.steps.size()); ++k) {
      const LessonTask& t = l.steps[k].task;
      // set tasks on a checkbox or a button are a click; others (a field to type in,
      // a chip's menu) are the browser test's
      if (t.kind == TaskKind::set && t.value.is_array()) continue;
      if (t.kind == TaskKind::set && !t.value.is_boolean()) continue;
      open_step(h, app, l, k);
      do_task(h, app, l, k);
      EXPECT_TRUE(app.lesson()["done"].get<bool>()) << l.id << " step " << k << " (" << task_kind_name(t.kind) << " "
                                                    << t.target << ") was done but not recognised";
      ++kinds[static_cast<int>(t.kind)];
      ASSERT_TRUE(drawn_now("Next")) << l.id << " step " << k << ": Next is not drawn after the task";
      h.click(app, "Next");
      EXPECT_EQ(app.lesson()["step"], k + 1) << l.id;
    }
  }
  for (int c = 0; c < 5; ++c) EXPECT_GT(kinds[c], 0) << task_kind_name(static_cast<TaskKind>(c)) << " is never asked";
}

// Next waits for the task; Skip never does; Back goes back; the closing page says what to
// try next and offers the next lesson.
TEST(Lessons, NextWaitsSkipDoesNot) {
  Headless h(ImVec2(1280, 720));
  NullTextures tex;
  App app(&tex);
  const Lesson& l = lessons().front();
  open_step(h, app, l, 0);
  h.click(app, "Next");
  EXPECT_EQ(app.lesson()["step"], 0) << "Next lit up before the task was done";
  h.click(app, "Skip");
  EXPECT_EQ(app.lesson()["step"], 1);
  h.click(app, "Back");
  EXPECT_EQ(app.lesson()["step"], 0);
  for (size_t k = 0; k < l.steps.size(); ++k) h.click(app, "Skip");
  EXPECT_EQ(app.lesson()["step"], static_cast<int>(l.steps.size()));
  EXPECT_TRUE(app.lesson()["done"].get<bool>());
  EXPECT_TRUE(drawn_now("lesson finished"));
  EXPECT_TRUE(drawn_now("lesson next text"));
  if (lessons().size() > 1) {
    h.click(app, "Next lesson");
    EXPECT_EQ(app.lesson()["id"], lessons()[1].id);
    EXPECT_EQ(app.lesson()["step"], 0);
  }
  open_step(h, app, l, static_cast<int>(l.steps.size()));  // its closing page again
  ASSERT_TRUE(drawn_now("Close lesson"));
  h.click(app, "Close lesson");
  EXPECT_TRUE(app.lesson()["id"].is_null());
  EXPECT_FALSE(drawn_now("Lesson window"));
}

// A share link carries the lesson and step; opening it opens them on the link's state
// (not the step's); progress is kept as text the page stores, and read back.
TEST(Lessons, LinksAndProgressCarryTheLesson) {
  Headless h(ImVec2(1280, 720));
  NullTextures tex;
  const Lesson& l = lessons().back();
  const int k = static_cast<int>(l.steps.size()) - 1;
  std::string link, progress;
  {
    App app(&tex);
    open_step(h, app, l, k);
    const json s = app.session_json();
    ASSERT_TRUE(s["view"].contains("lesson"));
    EXPECT_EQ(s["view"]["lesson"]["id"], l.id);
    EXPECT_EQ(s["view"]["lesson"]["step"], k);
    link = s.dump();
    progress = app.lesson_progress();
    EXPECT_EQ(json::parse(progress)[l.id]["step"], k);
  }
  App app(&tex);
  h.frame(app);
  app.load_lesson_progress(progress);
  app.load_lesson_progress("{not json");  // ignored
  EXPECT_EQ(json::parse(app.lesson_progress())[l.id]["step"], k);
  json other = json::parse(link);
  other["state"]["tokens"] = {"a", "b", "c"};
  ASSERT_TRUE(app.set_session_text(other.dump())["ok"].get<bool>());
  for (int f = 0; f < 3; ++f) h.frame(app);
  EXPECT_EQ(app.lesson()["id"], l.id);
  EXPECT_EQ(app.lesson()["step"], k);
  EXPECT_EQ(json::parse(app.state_json())["tokens"], json({"a", "b", "c"})) << "the step's state replaced the link's";
  json bad = json::parse(link);
  bad["view"]["lesson"] = 3;
  EXPECT_FALSE(app.set_session_text(bad.dump())["ok"].get<bool>());
  EXPECT_EQ(app.lesson()["id"], l.id) << "a refused link changed the lesson";
  EXPECT_FALSE(app.start_lesson("no-such-lesson", 0)["ok"].get<bool>());
}

// Code ↔ view: the pointer on a code line lights the map it makes; on a map, it marks
// the line that makes it. Every step's every line that names a map, both ways.
TEST(Lessons, CodeLinesAndMapsLightEachOther) {
  Headless h(ImVec2(1280, 720));
  NullTextures tex;
  App app(&tex);
  int pairs = 0;
  for (const Lesson& l : lessons()) {
    for (int k = 0; k < static_cast<int>(l.steps.size()); ++k) {
      open_step(h, app, l, k);
      const json code = app.lesson()["code"];  // kept: the loop outlives lesson()'s value
      for (const json& c : code) {
        const std::string map = c["map"].get<std::string>();
        if (map.empty() || !item_registry().find(map)) continue;  // a map another tab shows
        const std::string line = "lesson code " + std::to_string(c["line"].get<int>());
        float r[4];
        if (!app.item_rect(line.c_str(), r)) continue;  // scrolled out of the code block
        hover(h, app, line.c_str());
        EXPECT_EQ(app.lesson()["lit_map"], map) << l.id << " step " << k << ": " << c["py"];
        hover(h, app, map.c_str());
        const json marked = app.lesson()["marked_lines"];
        EXPECT_NE(std::find(marked.begin(), marked.end(), c["line"]), marked.end())
            << l.id << " step " << k << ": the pointer on " << map << " does not mark " << c["py"];
        ++pairs;
      }
    }
  }
  EXPECT_GE(pairs, 20);
}

// A change beyond the step's task is said, and one click puts the step's state back.
TEST(Lessons, AChangedStateIsSaidAndPutBack) {
  Headless h(ImVec2(1280, 720));
  NullTextures tex;
  App app(&tex);
  const Lesson& l = lessons().front();  // attention: no step asks for Causal mask
  open_step(h, app, l, 3);
  const std::string before = app.state_json();
  EXPECT_FALSE(drawn_now("lesson changed"));
  h.click(app, "Causal mask");
  ASSERT_NE(app.state_json(), before);
  EXPECT_TRUE(drawn_now("lesson changed"));
  h.click(app, "Back to this step's state");
  EXPECT_EQ(app.state_json(), before);
  EXPECT_FALSE(drawn_now("lesson changed"));
}

// The dimmed pieces cover the screen except the holes, without overlapping.
TEST(Lessons, DimRectsLeaveTheHolesBright) {
  const LayoutRect screen{0, 20, 1280, 700};
  const LayoutRect holes[] = {{100, 100, 200, 150}, {250, 200, 300, 100}, {1200, 600, 200, 300}};
  LayoutRect out[64];
  const int n = dim_rects(screen, holes, 3, out, 64);
  double area = 0;
  for (int i = 0; i < n; ++i) area += static_cast<double>(out[i].w) * out[i].h;
  // the holes' union inside the screen: 200·150 + 300·100 − overlap (50·50) + 80·120
  const double holes_area = 200.0 * 150 + 300.0 * 100 - 50.0 * 50 + 80.0 * 120;
  EXPECT_DOUBLE_EQ(area, 1280.0 * 700 - holes_area);
  for (int i = 0; i < n; ++i)
    for (const LayoutRect& hole : holes) {
      const bool apart = out[i].right() <= hole.x || hole.right() <= out[i].x || out[i].bottom() <= hole.y ||
                         hole.bottom() <= out[i].y;
      EXPECT_TRUE(apart) << "piece " << i << " dims a hole";
    }
  EXPECT_EQ(dim_rects(screen, nullptr, 0, out, 64), 1);
}

}  // namespace
}  // namespace attnviz::ui::testing
