// lesson_run.h: running a lesson (docs/lessons.md) over the app: which step is open
// (View::lesson, View::lesson_step: a share link carries them), entering a step (its
// state, view and the map to bring into view), recognising the step's task, the tensor
// the step prints, and the learner's progress (kept by the platform: localStorage on the
// page). Platform-free and ImGui-free except where it reads the frame's input
// (lesson_watch); the Lesson window (panel_lesson.h) draws it.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "app/lessons/lesson_data.h"

namespace attnviz::ui {

struct AppModel;

// How far a learner got in one lesson: the furthest step reached, whether it was finished.
struct LessonProgress {
  int step = 0;
  bool finished = false;
};

// What the app keeps about lessons between frames (AppModel::lesson). The open lesson
// and step are in View (m.view.lesson, m.view.lesson_step; step == steps: the closing page).
struct LessonRun {
  int entered_lesson = -1, entered_step = -1;  // the step whose task is being watched
  bool task_done = false;                      // ... and whether it is done (until the step changes)
  std::map<std::string, LessonProgress> progress;  // by lesson id
  uint64_t progress_version = 0;               // changes with progress (the platform saves it)
  int reveal_frames = 0;                       // frames left to bring the step's `show` into view
  // the Lesson window's place: set on opening and when the screen changes size; the
  // Views window's width before it made room (restored on closing; 0: not narrowed)
  bool place_window = false;
  float display_w = 0, display_h = 0;
  float views_w_before = 0;
  int code_scroll_frames = 0;                  // frames left to scroll the code to the step's lines
  std::vector<std::string> open_sections;      // the step's view "open": Parameters' sections it opens
  int open_frames = 0;                         // ... for this many frames after the step opens
  // this frame's code ↔ view link: the code line the pointer is on, and the map it names
  std::string hovered_map;         // the map of the code line under the pointer ("" none)
  std::vector<int> marked_lines;   // the code lines whose map the pointer is on (lesson code <n>)
  // the printed tensor, kept while the result it was made from stands
  std::string print_text;
  uint64_t print_serial = ~0ull;
  int print_lesson = -1, print_step = -1, print_layer = -1;
  // whether the state is the step's (or the step's with its set task done): when the
  // learner changed something else the code no longer computes what the views show
  bool state_is_steps = true;
  uint64_t state_checked_serial = ~0ull;
  int state_checked_lesson = -1, state_checked_step = -1;
  // set tasks read the state as JSON: made once per state change
  std::shared_ptr<nlohmann::json> state_cache;
  uint64_t state_cache_serial = ~0ull;
};

// Whether the open step asks for the Parameters section `title` to open (its view's
// "open"): the section's header calls it (panel_params.cpp group_header).
inline bool lesson_opens(const LessonRun& r, std::string_view title) {
  if (r.open_frames <= 0) return false;
  for (const std::string& s : r.open_sections)
    if (s == title) return true;
  return false;
}

// The open lesson and step, or null / -1 when none is open.
const Lesson* lesson_open(const AppModel& m);

// Opens lesson `index` at `step` (clamped; steps = the closing page): applies the step's
// state and view. Closing: index -1.
void lesson_start(AppModel& m, int index, int step);
// Moves to step k of the open lesson (k == steps: the closing page, the lesson finished).
void lesson_goto(AppModel& m, int k);

// Once a frame, after the views are drawn and before the Lesson window: notices a step
// opened by a link or the history (then it is entered without changing the state) and
// whether the step's task is done (the frame's mouse, the state, the view).
void lesson_watch(AppModel& m);

// The tensor `p` as PyTorch prints it, from the engine's numbers for the current state
// ("" when the engine has no such matrix). Cached until the result or the step changes.
const std::string& lesson_print_text(AppModel& m, const LessonPrint& p);

// Whether the app's state is the one the open step's code computes: the step's, or the
// step's with its set task done (cached per state change and step).
bool lesson_state_is_steps(AppModel& m);
// Puts the step's state back (one undo step), the learner's other changes undone.
void lesson_restore_state(AppModel& m);

// The state a `set` task reads, as JSON (cached per state change).
const nlohmann::json& lesson_state_json(AppModel& m);

// --- The test API (docs/test-api.md)
nlohmann::json lessons_json();                 // [{id, title, steps}] in the interface's language
// {id, step, steps, task: {kind, target, value, text (, field)}, done, print, show, code, lit_map,
// marked_lines}: print is the text the step prints ("" when none), show the label of what the
// step lights, code the step's lines [{line, py, map}] (line: n of "lesson code <n>"), lit_map
// the map the code line under the pointer lights, marked_lines the lines whose map it is on
nlohmann::json lesson_json(AppModel& m);

// --- Progress, as the platform stores it: {"<id>": {"step": k, "finished": bool}, ...}
std::string lesson_progress_text(const AppModel& m);
void lesson_progress_load(AppModel& m, std::string_view text);  // bad text: ignored

}  // namespace attnviz::ui
