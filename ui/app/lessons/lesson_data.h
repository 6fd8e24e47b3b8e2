// lesson_data.h: the lessons in assets/lessons/*.json (docs/lessons.md), compiled into
// the app like the presets and read once. Text is English here: the Lesson window shows
// each field through tr() (the Chinese is in lang_zh_cn_lessons.cpp).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnviz/stages.h"

namespace attnviz::ui {

struct LessonSource {
  const char* id;    // file name without extension, e.g. "01-attention"
  const char* text;  // the file's JSON text
};
// Generated at build time (cmake/embed_presets.cmake with FUNC lesson_sources).
const std::vector<LessonSource>& lesson_sources();

// One line of a step's PyTorch code: the line, its comment (translated) and the label
// of the map it produces (empty: none).
struct LessonCode {
  std::string py, note, map;
};

// What a step prints (docs/lessons.md, "print"): the variable and where the engine
// keeps its numbers. Shapes: a stage's matrix [rows, cols]; heads "all" [H, rows, cols];
// batch adds a leading 1; row r leaves the 1-D row [cols].
struct LessonPrint {
  bool valid = false;
  std::string var;
  Stage stage = Stage::X;
  int head = 0;
  bool all_heads = false;
  bool batch = false;
  int row = -1;    // < 0: the whole matrix
  int layer = -1;  // < 0: the layer the view shows
  std::vector<std::string> suffix;  // what PyTorch adds after the numbers: "grad_fn=<MmBackward0>"
};

enum class TaskKind : int { click = 0, set, hover, pin, tab };
const char* task_kind_name(TaskKind k);  // "click", "set", "hover", "pin", "tab"

struct LessonTask {
  TaskKind kind = TaskKind::click;
  std::string target;      // an item / heatmap label, or a tab's name
  std::string field;       // set: the state field, "dropout.training"
  nlohmann::json value;    // set: the value it must hold
  int row = -1, col = -1;  // hover / pin: the cell (row < 0: any cell of the map)
  std::string text;        // what to do, in a sentence (English key)
};

struct LessonStep {
  std::string title, text, show, table;
  nlohmann::json state;  // {"preset" | "state", "set"} or null: the previous step's (docs/lessons.md)
  nlohmann::json view;   // a share link's view fields, or null
  std::vector<LessonCode> code;
  LessonPrint print;
  LessonTask task;
};

struct Lesson {
  std::string id, title, tutorial, next;
  std::vector<LessonStep> steps;
};

// Every lesson, in file-name order. A file that does not read is left out and named in
// lesson_errors() (tests/ui/test_lessons.cpp requires none).
const std::vector<Lesson>& lessons();
const std::vector<std::string>& lesson_errors();
int lesson_index(std::string_view id);  // -1 when no lesson has that id

// The session state step k of lesson l runs on (docs/lessons.md, "state"): the nearest
// step at or before k that gives one, with the `set` tasks of the steps between applied.
// Null when no step up to k gives a state (the lesson keeps the learner's).
nlohmann::json lesson_step_state(const Lesson& l, int k);

// The value at a task's field ("dropout.training") of a state, or null when absent; and
// setting it.
nlohmann::json lesson_field(const nlohmann::json& state, std::string_view field);
void lesson_set_field(nlohmann::json& state, std::string_view field, const nlohmann::json& value);

}  // namespace attnviz::ui
