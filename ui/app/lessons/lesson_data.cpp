// lesson_data.cpp: see lesson_data.h.
#include "app/lessons/lesson_data.h"

#include "app/model/presets.h"

namespace attnviz::ui {

using nlohmann::json;

const char* task_kind_name(TaskKind k) {
  static const char* const kNames[] = {"click", "set", "hover", "pin", "tab"};
  return kNames[static_cast<int>(k)];
}

namespace {

// "dropout.training" → "/dropout/training".
json::json_pointer pointer_of(std::string_view field) {
  std::string p = "/";
  for (char c : field) p += c == '.' ? '/' : c;
  return json::json_pointer(p);
}

std::string text_of(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Reads `print` (docs/lessons.md); false with `why` when it names no stage.
bool read_print(const json& j, LessonPrint* p, std::string* why) {
  if (j.is_null()) return true;
  p->var = text_of(j, "var");
  if (!stage_from_name(text_of(j, "stage"), &p->stage)) {
    *why = "print.stage \"" + text_of(j, "stage") + "\" is no stage";
    return false;
  }
  p->head = j.value("head", 0);
  p->all_heads = text_of(j, "heads") == "all";
  p->batch = j.value("batch", false);
  p->row = j.value("row", -1);
  p->layer = j.value("layer", -1);
  if (j.contains("suffix") && j["suffix"].is_array())
    for (const json& s : j["suffix"]) p->suffix.push_back(s.get<std::string>());
  p->valid = true;
  return true;
}

bool read_task(const json& j, LessonTask* t, std::string* why) {
  static const char* const kKinds[] = {"click", "set", "hover", "pin", "tab"};
  const std::string kind = text_of(j, "kind");
  int k = 0;
  while (k < 5 && kind != kKinds[k]) ++k;
  if (k == 5) {
    *why = "task.kind \"" + kind + "\" is none of click, set, hover, pin, tab";
    return false;
  }
  t->kind = static_cast<TaskKind>(k);
  t->target = text_of(j, "target");
  t->field = text_of(j, "field");
  t->value = j.value("value", json());
  t->text = text_of(j, "text");
  if (j.contains("cell") && j["cell"].is_array() && j["cell"].size() == 2) {
    t->row = j["cell"][0].get<int>();
    t->col = j["cell"][1].get<int>();
  }
  if (t->target.empty() || t->text.empty() || (t->kind == TaskKind::set && t->field.empty())) {
    *why = "a task needs a target and a text (and a set task its field)";
    return false;
  }
  return true;
}

bool read_step(const json& j, LessonStep* s, std::string* why) {
  s->title = text_of(j, "title");
  s->text = text_of(j, "text");
  s->show = text_of(j, "show");
  s->table = text_of(j, "table");
  s->state = j.value("state", json());
  s->view = j.value("view", json());
  if (j.contains("code") && j["code"].is_array())
    for (const json& c : j["code"]) s->code.push_back({text_of(c, "py"), text_of(c, "note"), text_of(c, "map")});
  return read_print(j.value("print", json()), &s->print, why) && read_task(j.value("task", json::object()), &s->task, why);
}

// One file's lesson; false with `why` when it does not read.
bool read_lesson(const LessonSource& src, Lesson* l, std::string* why) {
  const json j = json::parse(src.text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    *why = "not a JSON object";
    return false;
  }
  l->id = text_of(j, "id");
  l->title = text_of(j, "title");
  l->tutorial = text_of(j, "tutorial");
  l->next = text_of(j, "next");
  if (l->id.empty() || l->title.empty() || !j.contains("steps") || !j["steps"].is_array() || j["steps"].empty()) {
    *why = "needs an id, a title and steps";
    return false;
  }
  for (const json& step : j["steps"]) {
    LessonStep s;
    if (!read_step(step, &s, why)) {
      *why = "step " + std::to_string(l->steps.size() + 1) + ": " + *why;
      return false;
    }
    l->steps.push_back(std::move(s));
  }
  return true;
}

struct Loaded {
  std::vector<Lesson> lessons;
  std::vector<std::string> errors;
};

const Loaded& loaded() {
  static const Loaded all = [] {
    Loaded out;
    for (const LessonSource& src : lesson_sources()) {
      Lesson l;
      std::string why;
      if (read_lesson(src, &l, &why)) out.lessons.push_back(std::move(l));
      else out.errors.push_back(std::string(src.id) + ": " + why);
    }
    return out;
  }();
  return all;
}

// A step's own state: its preset's or its explicit one, with `set` merged over it.
json own_state(const json& spec) {
  json state;
  if (spec.contains("preset")) {
    for (const Preset& p : presets())
      if (p.id == spec["preset"]) state = p.state;
  } else {
    state = spec.value("state", json::object());
  }
  if (spec.contains("set")) state.merge_patch(spec["set"]);
  return state;
}

}  // namespace

const std::vector<Lesson>& lessons() { return loaded().lessons; }
const std::vector<std::string>& lesson_errors() { return loaded().errors; }

int lesson_index(std::string_view id) {
  const auto& all = lessons();
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].id == id) return static_cast<int>(i);
  return -1;
}

json lesson_field(const json& state, std::string_view field) {
  const json::json_pointer p = pointer_of(field);
  return state.contains(p) ? state.at(p) : json();
}

void lesson_set_field(json& state, std::string_view field, const json& value) { state[pointer_of(field)] = value; }

json lesson_step_state(const Lesson& l, int k) {
  int base = k;
  while (base >= 0 && !l.steps[base].state.is_object()) --base;
  if (base < 0) return json();
  json state = own_state(l.steps[base].state);
  for (int i = base; i < k; ++i) {
    const LessonTask& t = l.steps[i].task;
    if (t.kind == TaskKind::set) lesson_set_field(state, t.field, t.value);
  }
  return state;
}

}  // namespace attnviz::ui
