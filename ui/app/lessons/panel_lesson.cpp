// panel_lesson.cpp: see panel_lesson.h. The window only reads the lesson and the
// engine's numbers; every change goes through lesson_run.h (lesson_start, lesson_goto).
//
// [SECTION] The Learn menu
// [SECTION] The Lesson window: header, text, code, print, task, buttons
// [SECTION] The light: the step's map and control lit, the rest dimmed
#include "app/lessons/panel_lesson.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/lessons/lesson_run.h"
#include "app/model/app_model.h"
#include "app/panels/layout.h"
#include "app/widgets/fonts.h"
#include "app/widgets/item_registry.h"
#include "imgui.h"
#include "imgui_internal.h"  // RenderCheckMark, the windows' rectangles (popups stay undimmed)

namespace attnviz::ui {

namespace {

const ImU32 kLight = IM_COL32(0xFF, 0xC8, 0x3C, 0xFF);        // the lit map's and control's outline
const ImU32 kLineNow = IM_COL32(0x3C, 0x5A, 0x8C, 0x90);      // the current step's code lines
const ImU32 kLineLinked = IM_COL32(0xB4, 0x8C, 0x1E, 0xA0);   // a line whose map the pointer is on
const ImU32 kDim = IM_COL32(0x00, 0x00, 0x00, 0x78);          // what the step is not about

bool rect_of(std::string_view label, LayoutRect* out) {
  const ItemRect* r = item_registry().find(label);
  if (!r) return false;
  *out = {r->min.x, r->min.y, r->max.x - r->min.x, r->max.y - r->min.y};
  return true;
}

}  // namespace

// [SECTION] The Learn menu ------------------------------------------------------------

void learn_menu(AppModel& m) {
#ifdef ATTNVIZ_NO_LESSONS  // the compact embed build: no lessons, none of their code
  (void)m;
  return;
#endif
  const auto& all = lessons();
  if (all.empty()) return;  // the compact embed build has none
  const bool open = ImGui::BeginMenu(L("Learn"));
  item_register("Learn");
  if (!open) return;
  char label[320], hint[32];
  for (size_t i = 0; i < all.size(); ++i) {
    const Lesson& l = all[i];
    std::snprintf(label, sizeof label, "%d  %s###Lesson: %s", static_cast<int>(i) + 1, tr(l.title.c_str()), l.id.c_str());
    hint[0] = '\0';
    auto p = m.lesson.progress.find(l.id);
    if (p != m.lesson.progress.end()) {
      if (p->second.finished) std::snprintf(hint, sizeof hint, "%s", tr("done"));
      else std::snprintf(hint, sizeof hint, "%d/%d", p->second.step + 1, static_cast<int>(l.steps.size()));
    }
    if (ImGui::MenuItem(label, hint, m.view.lesson == static_cast<int>(i))) {
      // Resumes where the learner left it; a finished lesson starts again.
      const bool resume = p != m.lesson.progress.end() && !p->second.finished;
      lesson_start(m, static_cast<int>(i), resume ? p->second.step : 0);
    }
  }
  ImGui::Separator();
  if (menu_item("Close lesson", false, m.view.lesson >= 0)) lesson_start(m, -1, 0);
  ImGui::EndMenu();
}

// [SECTION] The Lesson window ---------------------------------------------------------

namespace {

void wrapped(const char* text) {
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(text);
  ImGui::PopTextWrapPos();
}

// "Lesson 2 of 8 \xC2\xB7 tutorial 000", the lesson's title, "Step 3 of 7", a dot per step.
void header(const AppModel& m, const Lesson& l) {
  const int steps = static_cast<int>(l.steps.size()), k = m.view.lesson_step;
  ImGui::TextDisabled(tr("Lesson %d of %d"), m.view.lesson + 1, static_cast<int>(lessons().size()));
  if (!l.tutorial.empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled(tr("\xC2\xB7 after tutorial %s"), l.tutorial.c_str());
  }
  wrapped(tr(l.title.c_str()));
  item_register("lesson title");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float r = 4.0f;
  ImVec2 p = ImGui::GetCursorScreenPos();
  for (int s = 0; s < steps; ++s) {
    const ImVec2 c(p.x + r + s * (3 * r), p.y + r + 2);
    if (s < k || (s == k && m.lesson.task_done)) dl->AddCircleFilled(c, r, kLight);
    else dl->AddCircle(c, r, s == k ? kLight : IM_COL32(0x90, 0x90, 0x90, 0xFF));
  }
  ImGui::Dummy(ImVec2(steps * 3 * r, 2 * r + 4));
  item_register("lesson dots");
  ImGui::Separator();
  if (k < steps) {
    ImGui::TextDisabled(tr("Step %d of %d"), k + 1, steps);
    ImGui::SameLine();
    ImGui::TextUnformatted(tr(l.steps[k].title.c_str()));
    item_register("lesson step title");
  }
}

// The font scale that lets text `width` wide fit `room` (1 when it fits; never below
// `least`: past that the block scrolls sideways instead).
float fit_scale(float width, float room, float least) {
  return width <= room || width <= 0 ? 1.0f : std::max(least, room / width);
}

// One code line in the mono font, its note on a comment line above it (notes are
// sentences, in the interface's language: beside the code they made lines too long to
// read). Returns whether the pointer is on it.
bool code_line(AppModel& m, const LessonCode& c, bool now, int index) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float w = std::max(ImGui::CalcTextSize(c.py.c_str()).x, ImGui::GetContentRegionAvail().x);
  if (!c.note.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(0x6A, 0x99, 0x55, now ? 0xFF : 0x99));  // a comment's green
    ImGui::Text("# %s", tr(c.note.c_str()));
    ImGui::PopStyleColor();
  }
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight();
  LayoutRect map;
  const bool linked = !c.map.empty() && item_registry().find(c.map) &&
                      (m.lesson.hovered_map == c.map || (rect_of(c.map, &map) && ImGui::IsMouseHoveringRect(
                          ImVec2(map.x, map.y), ImVec2(map.right(), map.bottom()), false)));
  if (now) dl->AddRectFilled(p, ImVec2(p.x + w, p.y + h), kLineNow);
  if (linked) {
    dl->AddRectFilled(p, ImVec2(p.x + w, p.y + h), kLineLinked);
    m.lesson.marked_lines.push_back(index);
  }
  if (!now) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextUnformatted(c.py.c_str());
  if (!now) ImGui::PopStyleColor();
  char reg[40];
  std::snprintf(reg, sizeof reg, "lesson code %d", index);
  item_register(reg);
  const bool hovered = ImGui::IsItemHovered();
  if (hovered && !c.map.empty()) ImGui::SetTooltip(tr("This line makes the map %s: it is lit in the views."), c.map.c_str());
  return hovered;
}

// The lesson's code up to this step, the step's own lines marked; hovering a line lights
// the map it makes (m.lesson.hovered_map, read by the light), hovering a map marks its line.
// Lines wider than the window shrink the font a little, then scroll sideways.
void code_block(AppModel& m, const Lesson& l, int k) {
  ImGui::PushFont(g_fonts.mono);
  int lines = 0;
  float widest = 0;
  for (int s = 0; s <= k; ++s)
    for (const LessonCode& c : l.steps[s].code) {
      lines += c.note.empty() ? 1 : 2;
      widest = std::max(widest, ImGui::CalcTextSize(c.py.c_str()).x);
    }
  const ImGuiStyle& st = ImGui::GetStyle();
  const float scale = fit_scale(widest, ImGui::GetContentRegionAvail().x - 2 * st.WindowPadding.x, 0.8f);
  const float line_h = ImGui::GetTextLineHeight() * scale;
  const float h = std::min(lines * line_h + 2 * st.WindowPadding.y + st.ScrollbarSize,
                           std::max(6 * line_h, ImGui::GetContentRegionAvail().y * 0.45f));
  ImGui::PushStyleColor(ImGuiCol_ChildBg, IM_COL32(0x10, 0x14, 0x1C, 0xFF));
  ImGui::BeginChild("lesson code", ImVec2(0, h), ImGuiChildFlags_Border, ImGuiWindowFlags_HorizontalScrollbar);
  ImGui::SetWindowFontScale(scale);
  std::string hovered;
  m.lesson.marked_lines.clear();
  int index = 0;
  for (int s = 0; s <= k; ++s) {
    if (s == k && m.lesson.code_scroll_frames > 0) {
      ImGui::SetScrollHereY(0.1f);
      --m.lesson.code_scroll_frames;
    }
    for (const LessonCode& c : l.steps[s].code)
      if (code_line(m, c, s == k, index++) && !c.map.empty()) hovered = c.map;
  }
  ImGui::EndChild();
  item_register("lesson code");
  ImGui::PopStyleColor();
  ImGui::PopFont();
  m.lesson.hovered_map = hovered;
}

// `print(var)` and the tensor as PyTorch prints it, from the engine's numbers, in the
// cells' mono font; PyTorch's 80 columns shrink to fit the window down to 70%, then scroll.
void print_block(AppModel& m, const LessonPrint& p) {
  const std::string& text = lesson_print_text(m, p);
  if (text.empty()) return;
  ImGui::PushFont(g_fonts.mono);
  ImGui::TextDisabled(NO_TR(">>> print(%s)"), p.var.c_str());
  ImGui::PopFont();
  ImGui::PushFont(g_fonts.cells);
  int lines = 1;
  for (char c : text) lines += c == '\n';
  const ImGuiStyle& st = ImGui::GetStyle();
  const float scale = fit_scale(ImGui::CalcTextSize(text.c_str()).x, ImGui::GetContentRegionAvail().x - 2 * st.WindowPadding.x, 0.7f);
  const float h = std::min(lines, 14) * ImGui::GetTextLineHeight() * scale + 2 * st.WindowPadding.y + st.ScrollbarSize;
  ImGui::PushStyleColor(ImGuiCol_ChildBg, IM_COL32(0x10, 0x14, 0x1C, 0xFF));
  ImGui::BeginChild("lesson print", ImVec2(0, h), ImGuiChildFlags_Border, ImGuiWindowFlags_HorizontalScrollbar);
  ImGui::SetWindowFontScale(scale);
  ImGui::TextUnformatted(text.c_str());
  ImGui::EndChild();
  item_register("lesson print");
  ImGui::PopStyleColor();
  ImGui::PopFont();
}

// The task: a box that fills with a check mark once done.
void task_line(const AppModel& m, const LessonTask& t) {
  const float s = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRect(p, ImVec2(p.x + s, p.y + s), kLight, 2.0f, 0, 1.5f);
  if (m.lesson.task_done) ImGui::RenderCheckMark(dl, ImVec2(p.x + 2, p.y + 2), kLight, s - 4);
  ImGui::Dummy(ImVec2(s, s));
  ImGui::SameLine();
  ImGui::BeginGroup();
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kLight), "%s", m.lesson.task_done ? tr("Done:") : tr("Your turn:"));
  ImGui::SameLine();
  wrapped(tr(t.text.c_str()));
  ImGui::EndGroup();
  item_register("lesson task");
}

// Ctrl+→ is Next (once the task is done) and Ctrl+← Back, wherever the focus is, except
// in a text field (where they move by words).
void step_keys(AppModel& m, int k) {
  const ImGuiID id = ImGui::GetActiveID();
  if (id != 0 && ImGui::GetInputTextState(id) != nullptr) return;
  const ImGuiInputFlags f = ImGuiInputFlags_RouteGlobalLow;
  if (ImGui::Shortcut(ImGuiMod_Ctrl | ImGuiKey_RightArrow, 0, f) && m.lesson.task_done) lesson_goto(m, k + 1);
  else if (ImGui::Shortcut(ImGuiMod_Ctrl | ImGuiKey_LeftArrow, 0, f) && k > 0) lesson_goto(m, k - 1);
}

// Back, Skip and Next (Next only once the task is done; Skip always).
void step_buttons(AppModel& m, int k) {
  ImGui::BeginDisabled(k == 0);
  if (ImGui::Button(L("Back"))) lesson_goto(m, k - 1);
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button(L("Skip"))) lesson_goto(m, k + 1);
  ImGui::SameLine();
  const bool done = m.lesson.task_done;  // as drawn: Next enters the next step, whose task is not done
  ImGui::BeginDisabled(!done);
  if (done) ImGui::PushStyleColor(ImGuiCol_Button, IM_COL32(0x2E, 0x7D, 0x32, 0xFF));
  const bool next = ImGui::Button(L("Next"));
  if (done) ImGui::PopStyleColor();
  ImGui::EndDisabled();
  if (next) lesson_goto(m, k + 1);
}

// The closing page: what the lesson covered and what to try alone, and the next lesson.
void closing_page(AppModel& m, const Lesson& l) {
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kLight), "%s", tr("Lesson finished."));
  item_register("lesson finished");
  ImGui::Spacing();
  ImGui::TextDisabled("%s", tr("Try on your own:"));
  wrapped(tr(l.next.c_str()));
  item_register("lesson next text");
  ImGui::Spacing();
  if (ImGui::Button(L("Back"))) lesson_goto(m, static_cast<int>(l.steps.size()) - 1);
  step_keys(m, static_cast<int>(l.steps.size()));
  ImGui::SameLine();
  const int n = static_cast<int>(lessons().size());
  if (m.view.lesson + 1 < n) {
    if (ImGui::Button(L("Next lesson"))) lesson_start(m, m.view.lesson + 1, 0);
    ImGui::SameLine();
  }
  if (ImGui::Button(L("Close lesson"))) lesson_start(m, -1, 0);
}

// The learner changed the state beyond the step's task: the code no longer computes what
// the views show (the print does follow the views). One click puts the step's state back.
void changed_note(AppModel& m) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(kLight));
  wrapped(tr("You changed the state: the code below no longer computes what the views show, though the print "
             "follows them."));
  ImGui::PopStyleColor();
  item_register("lesson changed");
  if (ImGui::SmallButton(L("Back to this step's state"))) lesson_restore_state(m);
  ImGui::Spacing();
}

// The height the task and the buttons under it take at the window's width: they stay
// at the bottom of the window whatever the step's text, code and print need above.
float footer_height(const LessonTask& t) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float box = ImGui::GetTextLineHeight();
  const float label = std::max(ImGui::CalcTextSize(tr("Done:")).x, ImGui::CalcTextSize(tr("Your turn:")).x);
  const float wrap = std::max(40.0f, ImGui::GetContentRegionAvail().x - box - label - 2 * st.ItemSpacing.x);
  const float text_h = ImGui::CalcTextSize(tr(t.text.c_str()), nullptr, false, wrap).y;
  return std::max(box, text_h) + ImGui::GetFrameHeight() + 3 * st.ItemSpacing.y + 2.0f;
}

void window_body(AppModel& m, const Lesson& l) {
  header(m, l);
  const int k = m.view.lesson_step;
  if (k >= static_cast<int>(l.steps.size())) {
    closing_page(m, l);
    return;
  }
  const LessonStep& step = l.steps[k];
  // Text, code and print scroll in the body when the window is short; the task and the
  // buttons are always in view below it.
  ImGui::BeginChild("lesson body", ImVec2(0, -footer_height(step.task)));
  wrapped(tr(step.text.c_str()));
  item_register("lesson text");
  ImGui::Spacing();
  if (!lesson_state_is_steps(m)) changed_note(m);
  if (!step.code.empty() || k > 0) code_block(m, l, k);
  if (step.print.valid) print_block(m, step.print);
  ImGui::EndChild();
  item_register("lesson body");
  task_line(m, step.task);
  ImGui::Spacing();
  step_buttons(m, k);
  step_keys(m, k);
}

// Where the window goes: the right-hand column when the lesson opens or the screen
// changes size, the Views window narrowed to make room (and given it back on closing).
void place(AppModel& m) {
  LessonRun& r = m.lesson;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float menu_h = ImGui::GetFrameHeight();
  const LayoutRect work{vp->Pos.x, vp->Pos.y + menu_h, vp->Size.x, vp->Size.y - menu_h};
  if (vp->Size.x != r.display_w || vp->Size.y != r.display_h) r.place_window = true;
  if (!r.place_window) return;
  r.place_window = false;
  r.display_w = vp->Size.x;
  r.display_h = vp->Size.y;
  const LayoutRect at = lesson_place(work);
  ImGui::SetNextWindowPos(ImVec2(at.x, at.y), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(at.w, at.h), ImGuiCond_Always);
  ImGui::SetNextWindowCollapsed(false, ImGuiCond_Always);
  if (ImGuiWindow* views = ImGui::FindWindowByName("###Views")) {
    const float room = at.x - 2 - views->Pos.x;
    if (views->Pos.x + views->SizeFull.x > at.x && room > 200) {
      if (r.views_w_before == 0) r.views_w_before = views->SizeFull.x;
      ImGui::SetWindowSize("###Views", ImVec2(room, views->SizeFull.y));
    }
  }
}

void give_views_back(AppModel& m) {
  LessonRun& r = m.lesson;
  r.place_window = true;  // the next lesson opens in its column
  r.display_w = r.display_h = 0;
  if (r.views_w_before == 0) return;
  if (ImGuiWindow* views = ImGui::FindWindowByName("###Views"))
    ImGui::SetWindowSize("###Views", ImVec2(r.views_w_before, views->SizeFull.y));
  r.views_w_before = 0;
}

}  // namespace

// [SECTION] The light -----------------------------------------------------------------

namespace {

void outline(ImDrawList* dl, const LayoutRect& r, ImU32 col, float pad, float thick) {
  dl->AddRect(ImVec2(r.x - pad, r.y - pad), ImVec2(r.right() + pad, r.bottom() + pad), col, 4.0f, 0, thick);
}

// A map's whole panel (title to colour bar) when it has one, else the item itself.
bool lit_rect(std::string_view label, LayoutRect* out) {
  char panel[96];
  std::snprintf(panel, sizeof panel, "%.*s panel", static_cast<int>(label.size()), label.data());
  return rect_of(panel, out) || rect_of(label, out);
}

// Brings the step's map or control into view for a few frames after the step opens
// (the item registry scrolls the window holding it: item_registry.h reveal).
void reveal(AppModel& m, const LessonStep& step) {
  if (m.lesson.reveal_frames <= 0) {
    item_registry().reveal({});
    return;
  }
  --m.lesson.reveal_frames;
  item_registry().reveal(step.show);
}

void light(AppModel& m, const Lesson& l) {
  const int k = m.view.lesson_step;
  if (k >= static_cast<int>(l.steps.size())) return;
  const LessonStep& step = l.steps[k];
  reveal(m, step);
  ImDrawList* dl = ImGui::GetForegroundDrawList();
  LayoutRect holes[16];
  int n = 0;
  LayoutRect r;
  const float t = static_cast<float>(ImGui::GetTime());
  const ImU32 pulse = IM_COL32(0xFF, 0xC8, 0x3C, static_cast<int>(160 + 95 * std::sin(t * 4.0f)));
  if (!step.show.empty() && lit_rect(step.show, &r)) {
    holes[n++] = {r.x - 6, r.y - 6, r.w + 12, r.h + 12};
    outline(dl, r, kLight, 4, 2.5f);
  }
  if (step.task.kind != TaskKind::set || !step.task.target.empty())
    if (step.task.target != step.show && rect_of(step.task.target, &r)) {
      holes[n++] = {r.x - 6, r.y - 6, r.w + 12, r.h + 12};
      if (!m.lesson.task_done) outline(dl, r, pulse, 4, 2.5f);
    }
  if (!m.lesson.hovered_map.empty() && lit_rect(m.lesson.hovered_map, &r)) {
    holes[n++] = {r.x - 6, r.y - 6, r.w + 12, r.h + 12};
    outline(dl, r, IM_COL32(0xB4, 0x8C, 0x1E, 0xFF), 6, 3.0f);
  }
  if (m.lesson.task_done) return;  // the step is done: the whole app is the learner's again
  // Undimmed besides: the Lesson window, and popups and tooltips (a chip's menu, a hint).
  for (ImGuiWindow* w : GImGui->Windows) {
    if (n >= 15 || !w->WasActive || w->Hidden) continue;
    const bool lesson = std::strstr(w->Name, "###Lesson") != nullptr && !(w->Flags & ImGuiWindowFlags_ChildWindow);
    if (lesson || (w->Flags & (ImGuiWindowFlags_Popup | ImGuiWindowFlags_Tooltip)))
      holes[n++] = {w->Pos.x, w->Pos.y, w->Size.x, w->Size.y};
  }
  const ImVec2 d = ImGui::GetIO().DisplaySize;
  const float menu_h = ImGui::GetFrameHeight();  // the menu bar stays bright: Learn is there
  LayoutRect pieces[64];
  const int count = dim_rects({0, menu_h, d.x, d.y - menu_h}, holes, n, pieces, 64);
  for (int i = 0; i < count; ++i)
    dl->AddRectFilled(ImVec2(pieces[i].x, pieces[i].y), ImVec2(pieces[i].right(), pieces[i].bottom()), kDim);
}

}  // namespace

void lesson_window(AppModel& m) {
#ifdef ATTNVIZ_NO_LESSONS
  (void)m;
  return;
#endif
  if (m.lesson.open_frames > 0) --m.lesson.open_frames;
  lesson_watch(m);
  const Lesson* l = lesson_open(m);
  if (!l) {
    if (m.lesson.views_w_before != 0 || !m.lesson.place_window) give_views_back(m);
    item_registry().reveal({});
    return;
  }
  place(m);
  bool open = true;
  if (ImGui::Begin(L("Lesson"), &open)) window_body(m, *l);
  const ImVec2 p = ImGui::GetWindowPos(), s = ImGui::GetWindowSize();
  item_registry().add("Lesson window", p, ImVec2(p.x + s.x, p.y + s.y));
  ImGui::End();
  if (!open) {
    lesson_start(m, -1, 0);
    return;
  }
  light(m, *l);
}

}  // namespace attnviz::ui
