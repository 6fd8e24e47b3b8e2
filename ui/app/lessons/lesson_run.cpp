// lesson_run.cpp: see lesson_run.h.
#include "app/lessons/lesson_run.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/model/app_model.h"
#include "app/widgets/item_registry.h"
#include "app/widgets/map_label.h"
#include "attnviz/state_json.h"
#include "attnviz/torch_print.h"
#include "imgui.h"
#include "imgui_internal.h"  // the window under the pointer: a click on the Lesson window is not the task's

namespace attnviz::ui {

using nlohmann::json;

namespace {

// The tabs by the names a lesson uses: its view's "tab" and a tab task's target.
struct TabName {
  const char* view;   // share links' name
  const char* label;  // the tab's label (item registry)
  MainTab tab;
};
const TabName kTabs[] = {{"stages", "Stages", MainTab::stages},        {"data", "Q K V & output", MainTab::data},
                         {"compare", "Compare heads", MainTab::compare}, {"lines", "Lines", MainTab::lines},
                         {"values", "Edit values", MainTab::values},     {"decode", "Decode", MainTab::decode},
                         {"model", "Model", MainTab::model}};

bool tab_of(std::string_view name, MainTab* out) {
  for (const TabName& t : kTabs)
    if (name == t.view || name == t.label) {
      *out = t.tab;
      return true;
    }
  return false;
}

// A step's view fields (docs/lessons.md): tab, head, head_b, layer, show_torch.
void apply_step_view(AppModel& m, const json& v) {
  if (!v.is_object()) return;
  MainTab tab;
  if (v.contains("tab") && v["tab"].is_string() && tab_of(v["tab"].get<std::string>(), &tab)) m.view.tab = tab;
  const int H = std::max(1, m.engine.num_heads());
  if (v.contains("head")) m.view.head = std::clamp(v["head"].get<int>(), 0, H - 1);
  if (v.contains("head_b")) m.view.head_b = std::clamp(v["head_b"].get<int>(), 0, H - 1);
  if (v.contains("layer")) {
    m.engine.set_layer(v["layer"].get<int>());
    m.view.layer = m.engine.layer();
  }
  if (v.contains("show_torch")) m.view.show_torch = v["show_torch"].get<bool>();
  m.lesson.open_sections.clear();
  if (v.contains("open"))
    for (const json& s : v["open"]) m.lesson.open_sections.push_back(s.get<std::string>());
  m.lesson.open_frames = m.lesson.open_sections.empty() ? 0 : 3;
  m.view_restoring = 2;  // the tab bars select view.tab instead of reporting theirs
}

// Enters step k of lesson l: its state (unchanged states cost nothing: AppModel::apply
// records no step for them), its view, and the watch on its task starts afresh.
void enter_step(AppModel& m, int l, int k) {
  const Lesson& lesson = lessons()[l];
  const LessonStep& step = lesson.steps[k];
  const json state = lesson_step_state(lesson, k);
  if (state.is_object() && m.apply(state, Change::replace))
    for (auto& [label, cache] : m.heatmaps) heatmap_reset_view(cache);  // the lesson's maps whole
  apply_step_view(m, step.view);
  if (step.task.kind == TaskKind::pin) m.view.pinned = CellRef{};  // the learner pins it
  if ((step.task.kind == TaskKind::hover || step.task.kind == TaskKind::pin) && step.task.row >= 0) {
    HeatmapCache& c = m.heatmap_cache(step.task.target);  // its cell in view, in a map that scrolls
    c.reveal_row = step.task.row;
    c.reveal_col = step.task.col;
  }
  m.lesson.entered_lesson = l;
  m.lesson.entered_step = k;
  m.lesson.task_done = false;
  m.lesson.reveal_frames = step.show.empty() ? 0 : 8;
  m.lesson.code_scroll_frames = 3;
}

void note_progress(AppModel& m, const Lesson& l, int k) {
  LessonProgress& p = m.lesson.progress[l.id];
  const LessonProgress before = p;
  p.step = std::max(p.step, std::min(k, static_cast<int>(l.steps.size()) - 1));
  if (k >= static_cast<int>(l.steps.size())) p.finished = true;
  if (p.step != before.step || p.finished != before.finished) ++m.lesson.progress_version;
}

// The pointer is on the task's cell of its map this frame or the last (the map's own
// rows and columns: "K kv0" counts its 4 columns from 0, whatever head reads it).
bool pointer_on_cell(const AppModel& m, const LessonTask& t) {
  auto it = m.heatmaps.find(t.target);
  if (it == m.heatmaps.end()) return false;
  const HeatmapDrawn& d = it->second.drawn;
  return d.frame >= ImGui::GetFrameCount() - 1 && d.hover_row == t.row && d.hover_col == t.col;
}

// A cell's map label, either way the views name it ("weights h0"; "Q h0" or "Q").
bool cell_is_on(const CellRef& c, const LessonTask& t) {
  if (!c.valid) return false;
  const bool map = t.target == map_label(c.stage, c.head).c_str() || t.target == map_label(c.stage).c_str();
  return map && (t.row < 0 || (c.row == t.row && c.col == t.col));
}

bool pointer_on(std::string_view label) {
  const ItemRect* r = item_registry().find(label);
  if (!r) return false;
  const ImVec2 p = ImGui::GetIO().MousePos;
  return p.x >= r->min.x && p.x < r->max.x && p.y >= r->min.y && p.y < r->max.y;
}

// The pointer is over the Lesson window (or a popup of it): its own clicks are no task's.
bool pointer_on_lesson_window() {
  const ImGuiWindow* w = GImGui->HoveredWindow;
  return w && w->RootWindow && std::strstr(w->RootWindow->Name, "###Lesson") != nullptr;
}

bool task_done_now(AppModel& m, const LessonTask& t) {
  switch (t.kind) {
    case TaskKind::click:
      return ImGui::IsMouseReleased(ImGuiMouseButton_Left) && pointer_on(t.target) && !pointer_on_lesson_window();
    case TaskKind::set:
      return lesson_field(lesson_state_json(m), t.field) == t.value;
    case TaskKind::hover:
      if (t.row >= 0) return pointer_on_cell(m, t) && !pointer_on_lesson_window();
      return pointer_on(t.target) && !pointer_on_lesson_window();
    case TaskKind::pin:  // pinned on its map (by its stage and head, or by the pointer on that cell)
      return cell_is_on(m.view.pinned, t) ||
             (m.view.pinned.valid && t.row >= 0 && m.view.pinned.row == t.row && pointer_on_cell(m, t));
    case TaskKind::tab: {
      MainTab tab;
      return tab_of(t.target, &tab) && m.view.tab == tab;
    }
  }
  return false;
}

// The numbers `p` prints and their shape (lesson_data.h, LessonPrint).
bool gather(const AppModel& m, const LessonPrint& p, std::vector<float>* data, std::vector<int>* shape) {
  const int H = p.all_heads ? m.engine.num_heads() : 1;
  for (int h = 0; h < H; ++h) {
    const MatrixView mv = m.engine.matrix(p.stage, p.all_heads ? h : p.head);
    if (!mv.data || (p.row >= mv.rows)) return false;
    const int r0 = p.row >= 0 ? p.row : 0, r1 = p.row >= 0 ? p.row + 1 : mv.rows;
    for (int r = r0; r < r1; ++r) data->insert(data->end(), mv.data + r * mv.row_stride(), mv.data + r * mv.row_stride() + mv.cols);
    if (h == 0) {
      if (p.row < 0) shape->push_back(mv.rows);
      shape->push_back(mv.cols);
    }
  }
  if (p.all_heads) shape->insert(shape->begin(), H);
  if (p.batch) shape->insert(shape->begin(), 1);
  return true;
}

}  // namespace

const Lesson* lesson_open(const AppModel& m) {
  const auto& all = lessons();
  return m.view.lesson >= 0 && m.view.lesson < static_cast<int>(all.size()) ? &all[m.view.lesson] : nullptr;
}

void lesson_start(AppModel& m, int index, int step) {
#ifdef ATTNVIZ_NO_LESSONS  // the compact embed build: no lessons, none of their code
  m.view.lesson = -1;
  (void)index;
  (void)step;
  return;
#endif
  if (index < 0 || index >= static_cast<int>(lessons().size())) {
    m.view.lesson = -1;
    m.view.lesson_step = 0;
    m.lesson.entered_lesson = -1;
    return;
  }
  m.view.lesson = index;
  lesson_goto(m, step);
}

void lesson_goto(AppModel& m, int k) {
#ifdef ATTNVIZ_NO_LESSONS  // the compact embed build: no lessons, none of their code
  (void)m;
  (void)k;
  return;
#endif
  const Lesson* l = lesson_open(m);
  if (!l) return;
  const int steps = static_cast<int>(l->steps.size());
  k = std::clamp(k, 0, steps);
  m.view.lesson_step = k;
  note_progress(m, *l, k);
  if (k < steps) {
    enter_step(m, m.view.lesson, k);
  } else {  // the closing page: nothing to do but read
    m.lesson.entered_lesson = m.view.lesson;
    m.lesson.entered_step = k;
    m.lesson.task_done = true;
    m.lesson.reveal_frames = 0;
  }
}

void lesson_watch(AppModel& m) {
#ifdef ATTNVIZ_NO_LESSONS  // the compact embed build: no lessons, none of their code
  m.view.lesson = -1;
  return;
#endif
  const Lesson* l = lesson_open(m);
  if (!l) {
    m.lesson.entered_lesson = -1;
    return;
  }
  const int steps = static_cast<int>(l->steps.size());
  if (m.view.lesson_step > steps) m.view.lesson_step = steps;
  const int k = m.view.lesson_step;
  if (m.lesson.entered_lesson != m.view.lesson || m.lesson.entered_step != k) {
    // Opened by a link, the saved session or the history: the state is the one it brought.
    m.lesson.entered_lesson = m.view.lesson;
    m.lesson.entered_step = k;
    m.lesson.task_done = k >= steps;
    m.lesson.reveal_frames = k < steps && !l->steps[k].show.empty() ? 8 : 0;
    m.lesson.code_scroll_frames = 3;
    note_progress(m, *l, k);
  }
  if (k < steps && !m.lesson.task_done) m.lesson.task_done = task_done_now(m, l->steps[k].task);
}

// A state as the engine writes it (defaults filled in), so two spellings of one state
// compare equal; null when the engine refuses it.
static json canonical(const json& state) {
  State parsed;
  return parse_state(state, &parsed).ok ? state_to_json(parsed) : json();
}

bool lesson_state_is_steps(AppModel& m) {
  LessonRun& r = m.lesson;
  const Lesson* l = lesson_open(m);
  const int k = m.view.lesson_step;
  if (!l || k >= static_cast<int>(l->steps.size())) return true;
  if (r.state_checked_serial == m.state_serial && r.state_checked_lesson == m.view.lesson && r.state_checked_step == k)
    return r.state_is_steps;
  r.state_checked_serial = m.state_serial;
  r.state_checked_lesson = m.view.lesson;
  r.state_checked_step = k;
  const json want = lesson_step_state(*l, k);
  if (!want.is_object()) return r.state_is_steps = true;  // the lesson keeps the learner's
  const json& now = lesson_state_json(m);
  json done = want;  // ... or with the step's own set task done
  const LessonTask& t = l->steps[k].task;
  if (t.kind == TaskKind::set) lesson_set_field(done, t.field, t.value);
  return r.state_is_steps = now == canonical(want) || now == canonical(done);
}

void lesson_restore_state(AppModel& m) {
  const Lesson* l = lesson_open(m);
  const int k = m.view.lesson_step;
  if (!l || k >= static_cast<int>(l->steps.size())) return;
  const json want = lesson_step_state(*l, k);
  if (want.is_object()) m.apply(want, Change::replace);
}

const json& lesson_state_json(AppModel& m) {
  LessonRun& r = m.lesson;
  if (!r.state_cache || r.state_cache_serial != m.state_serial) {
    r.state_cache = std::make_shared<json>(m.engine.state_json());
    r.state_cache_serial = m.state_serial;
  }
  return *r.state_cache;
}

const std::string& lesson_print_text(AppModel& m, const LessonPrint& p) {
  LessonRun& r = m.lesson;
#ifdef ATTNVIZ_NO_LESSONS
  (void)p;
  return r.print_text;  // empty
#endif
  if (r.print_serial == m.state_serial && r.print_lesson == m.view.lesson && r.print_step == m.view.lesson_step &&
      r.print_layer == m.engine.layer())
    return r.print_text;
  r.print_serial = m.state_serial;
  r.print_lesson = m.view.lesson;
  r.print_step = m.view.lesson_step;
  r.print_layer = m.engine.layer();
  std::vector<float> data;
  std::vector<int> shape;
  const int shown = m.engine.layer();  // a print of another layer reads it, then the view's again
  if (p.layer >= 0) m.engine.set_layer(p.layer);
  const bool ok = p.valid && gather(m, p, &data, &shape);
  m.engine.set_layer(shown);
  r.print_text = ok ? torch_repr(data.data(), shape, p.suffix) : std::string();
  return r.print_text;
}

json lessons_json() {
  json out = json::array();
  for (const Lesson& l : lessons())
    out.push_back({{"id", l.id}, {"title", tr(l.title.c_str())}, {"steps", static_cast<int>(l.steps.size())}});
  return out;
}

json lesson_json(AppModel& m) {
  const Lesson* l = lesson_open(m);
  if (!l) return {{"id", nullptr}, {"step", -1}, {"steps", 0}, {"task", nullptr}, {"done", false}};
  const int k = m.view.lesson_step, steps = static_cast<int>(l->steps.size());
  json j = {{"id", l->id}, {"step", k}, {"steps", steps}, {"task", nullptr}, {"done", k >= steps || m.lesson.task_done}};
  if (k < steps) {
    const LessonTask& t = l->steps[k].task;
    json value = t.value;
    if (t.kind == TaskKind::hover || t.kind == TaskKind::pin) value = t.row >= 0 ? json::array({t.row, t.col}) : json();
    j["task"] = {{"kind", task_kind_name(t.kind)}, {"target", t.target}, {"value", value}, {"text", tr(t.text.c_str())}};
    if (t.kind == TaskKind::set) j["task"]["field"] = t.field;
    j["print"] = lesson_print_text(m, l->steps[k].print);  // "" when the step prints nothing
    j["show"] = l->steps[k].show;
    json code = json::array();
    int n = 0;
    for (int s = 0; s < k; ++s) n += static_cast<int>(l->steps[s].code.size());
    for (const LessonCode& c : l->steps[k].code) code.push_back({{"line", n++}, {"py", c.py}, {"map", c.map}});
    j["code"] = std::move(code);
    j["lit_map"] = m.lesson.hovered_map;
    j["marked_lines"] = m.lesson.marked_lines;
  }
  return j;
}

std::string lesson_progress_text(const AppModel& m) {
  json j = json::object();
  for (const auto& [id, p] : m.lesson.progress) j[id] = {{"step", p.step}, {"finished", p.finished}};
  return j.dump();
}

void lesson_progress_load(AppModel& m, std::string_view text) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it->is_object() || lesson_index(it.key()) < 0) continue;  // a lesson this build lacks
    LessonProgress& p = m.lesson.progress[it.key()];
    const json& s = it->value("step", json());
    if (s.is_number_integer()) p.step = std::max(p.step, static_cast<int>(s.get<int>()));
    const json& f = it->value("finished", json());
    p.finished = p.finished || (f.is_boolean() && f.get<bool>());
  }
  ++m.lesson.progress_version;
}

}  // namespace attnviz::ui
