// lang_zh_cn_lessons.cpp: the 简体中文 of the lessons (assets/lessons/*.json, docs/lessons.md)
// and of the Lesson window. Keys are the lesson files' English: each lesson's title and
// next, each step's title, text and task text, each code line's note
// (tests/i18n/check_catalogue.py reads them from the files). Terms follow the glossary in
// docs/i18n.md; code, numbers and PyTorch names stay as they are.
#include "app/text/i18n.h"

namespace attnviz::ui {

static const CatalogueEntry kZhCNLessons[] = {
    // [SECTION] The Learn menu and the Lesson window (ui/app/lessons/panel_lesson.cpp)
    {"Learn", "学习"},

};

Catalogue catalogue_zh_cn_lessons() {
  return {kZhCNLessons, static_cast<int>(sizeof kZhCNLessons / sizeof kZhCNLessons[0])};
}

}  // namespace attnviz::ui
