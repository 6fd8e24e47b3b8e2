// panel_lesson.h: the Learn menu and the Lesson window (docs/lessons.md).
#pragma once

namespace attnviz::ui {

struct AppModel;

// The menu bar's Learn menu: each lesson (registered "Lesson: <id>") with the learner's
// progress, and Close lesson.
void learn_menu(AppModel& m);

// The Lesson window beside the views, after the other windows are drawn: the step's
// explanation, code, printed tensor and task, Back / Skip / Next; then the light on the
// step's map and control with the rest dimmed, and the code ↔ view link.
void lesson_window(AppModel& m);

}  // namespace attnviz::ui
