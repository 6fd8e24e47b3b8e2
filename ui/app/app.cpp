// app.cpp: the App facade and the frame's window layout.
#include "app/app.h"

#include <cstdio>

#include "app/model/app_model.h"
#include "attnviz/state.h"
#include "attnviz/state_json.h"
#include "app/panels/export.h"
#include "app/panels/help.h"
#include "app/text/inspector_text.h"
#include "app/panels/panels.h"
#include "app/panels/stage_map.h"
#include "app/widgets/item_registry.h"
#include "app/model/presets.h"
#include "app/text/status_text.h"
#include "imgui_internal.h"  // ImGui::GetActiveID: the control whose edits merge into one undo step

namespace attnviz::ui {

App::App(TextureHost* textures) : model_(std::make_unique<AppModel>()) {
  model_->textures = textures;
  model_->apply(default_state());
  if (!presets().empty()) model_->view.decimals = presets().front().decimals;  // tutorial 000: PyTorch's 4
}

App::~App() {
  for (auto& [label, cache] : model_->heatmaps)
    if (cache.tex) model_->textures->destroy(cache.tex);
}

// The frame's bookkeeping, before any panel draws: what the panels read afterwards
// is settled here, not in whichever panel happens to draw first.
static void begin_frame(AppModel& m) {
  if (m.language_seen != language_generation()) change_language(m, language());
  m.view.lang = language();    // i18n.h owns the language; the view mirrors it
  m.engine.set_layer(m.view.layer);  // the layer every tab reads (a trained model's; else 0)
  m.view.layer = m.engine.layer();
  if (m.view.tab == MainTab::model && !m.engine.is_model()) m.view.tab = MainTab::stages;
  m.engine.new_frame();        // the engine computes what the panels read (lazy pipeline)
  m.hover = m.hover_next;      // hovered during the last frame: what views highlight now
  m.hover_next = CellRef{};
  if (m.view_restoring > 0) --m.view_restoring;  // a restored view's tab bars (share.h)
  m.history.note_active(ImGui::GetActiveID());   // a released control closes its undo step
  item_hooks_enable();                           // labelled widgets register themselves
}

// Whether the learner's input is still this frame: no pointer motion, button, wheel,
// typing or active control (the overviews may then take longer to compute rows).
static bool input_still() {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.MouseDelta.x != 0.0f || io.MouseDelta.y != 0.0f || io.MouseWheel != 0.0f || io.MouseWheelH != 0.0f)
    return false;
  for (bool down : io.MouseDown)
    if (down) return false;
  if (io.InputQueueCharacters.Size != 0 || ImGui::IsAnyItemActive()) return false;
  for (int k = ImGuiKey_NamedKey_BEGIN; k < ImGuiKey_NamedKey_END; ++k)  // a held arrow key moves a pinned cell
    if (ImGui::IsKeyDown(static_cast<ImGuiKey>(k))) return false;
  return true;
}

void App::frame() {
  heatmap_frame_begin(map_frame_budget_ms(input_still()));  // the overviews' time for computing rows this frame
  begin_frame(*model_);
  draw_panels(*model_);
  export_overlay(*model_);  // export/import notice; the desktop's Open state dialog
}

nlohmann::json App::import_state(std::string_view name, std::string_view text) {
  return import_state_text(*model_, name, text);
}
nlohmann::json App::import_state_too_large(std::string_view name, double size) {
  return ui::import_state_too_large(*model_, name, size);
}
nlohmann::json App::import_state_file(const std::string& path) { return import_state_path(*model_, path); }
nlohmann::json App::import_files(const std::vector<std::string>& paths) { return import_paths(*model_, paths); }

std::string App::state_json() const { return model_->engine.state_json().dump(); }

nlohmann::json App::set_state_text(std::string_view text) {
  nlohmann::json parsed;
  Status st = parse_json_text(text, &parsed);  // never throws; says what is wrong and where
  if (!st.ok) return {{"ok", false}, {"error", word_status(st)}, {"field", st.field}};
  if (!model_->apply(parsed))
    return {{"ok", false}, {"error", model_->error}, {"field", model_->error_field}};
  return {{"ok", true}, {"error", ""}, {"field", ""}};
}

// The test API names stages ("weights", "Q", ...); an unknown name has no matrix.
MatrixView App::matrix(std::string_view name, int head) const {
  Stage stage;
  return stage_from_name(name, &stage) ? model_->engine.matrix(stage, head) : MatrixView{};
}
bool App::row(std::string_view name, int head, int i, std::vector<float>* out) const {
  Stage stage;
  out->clear();
  return stage_from_name(name, &stage) && model_->engine.row(stage, head, i, out);
}
uint64_t App::pipeline_bytes() const { return model_->engine.pipeline_bytes(); }
bool App::stage_current(std::string_view name, int head) const {
  Stage stage;
  return stage_from_name(name, &stage) && model_->engine.current(stage, head);
}

ExportQueue& App::exports() { return model_->exports; }

nlohmann::json App::heatmap_info(std::string_view label) const {
  auto it = model_->heatmaps.find(std::string(label));
  if (it == model_->heatmaps.end() || it->second.drawn.frame < 0) return nullptr;
  if (ImGui::GetCurrentContext() && it->second.drawn.frame < ImGui::GetFrameCount() - 1) return nullptr;
  return ui::heatmap_info(it->second);
}

std::vector<std::string> App::heatmaps_drawn() const {
  std::vector<std::string> out;
  const int now = ImGui::GetCurrentContext() ? ImGui::GetFrameCount() : 0;
  for (const auto& [label, c] : model_->heatmaps)
    if (c.drawn.frame >= 0 && c.drawn.frame >= now - 1) out.push_back(label);
  return out;
}

std::string App::inspector_text() const { return inspector_log().text; }

nlohmann::json App::lessons() const { return lessons_json(); }
nlohmann::json App::lesson() const { return lesson_json(*model_); }
nlohmann::json App::start_lesson(std::string_view id, int step) {
  if (id.empty()) {
    lesson_start(*model_, -1, 0);
    return {{"ok", true}, {"error", ""}};
  }
  const int i = lesson_index(id);
  if (i < 0) {
    std::string ids;
    for (const Lesson& l : attnviz::ui::lessons()) ids += (ids.empty() ? "" : ", ") + l.id;
    return {{"ok", false}, {"error", tr_args("There is no lesson \"{0}\"; the lessons are {1}.", {id, ids})}};
  }
  lesson_start(*model_, i, step);
  return {{"ok", true}, {"error", ""}};
}
std::string App::lesson_progress() const { return lesson_progress_text(*model_); }
uint64_t App::lesson_progress_version() const { return model_->lesson.progress_version; }
void App::load_lesson_progress(std::string_view text) { lesson_progress_load(*model_, text); }

std::string App::head_scores() const { return head_scores_report(model_->engine.stack()); }

bool App::item_rect(std::string_view label, float out[4]) const {
  const ItemRect* r = item_registry().find(label);
  if (!r) return false;
  out[0] = r->min.x;
  out[1] = r->min.y;
  out[2] = r->max.x - r->min.x;
  out[3] = r->max.y - r->min.y;
  return true;
}

std::string App::language() const { return lang_code(ui::language()); }

nlohmann::json App::set_language(std::string_view code) {
  Lang l;
  if (!lang_from_code(code, &l)) {
    std::string sentence = tr_args("attnviz has no interface in \"{0}\": it speaks en (English) and zh-CN (简体中文).",
                                   {code.substr(0, 40)});
    ui::notify(*model_, sentence, true);
    return {{"ok", false}, {"error", sentence}};
  }
  change_language(*model_, l);
  return {{"ok", true}, {"error", ""}};
}

const std::vector<ImWchar>& App::glyphs() const { return model_->glyphs; }
uint64_t App::glyphs_version() const { return model_->glyphs_version; }

bool App::live_text(std::string& out) const { return ui::live_text(*model_, out); }

double App::engine_ms_last() const { return model_->engine.engine_ms_last(); }

double App::next_frame_in() const {
  const ExportQueue& q = model_->exports;
  if (q.notice_seq != q.notice_shown) return 0.0;  // export_overlay passes it on in a frame
  if (heatmap_rows_pending()) return 0.0;  // an overview still computing rows: the next frame goes on
  return notice_ends_in(*model_);
}

}  // namespace attnviz::ui
