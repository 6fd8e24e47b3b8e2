// app_model.cpp: see app_model.h. The one way the state changes (apply), the
// refusal it shows when the engine says no, and the interface's language.
#include "app/model/app_model.h"

#include <string>
#include <utility>

#include "app/text/status_text.h"
#include "app/widgets/fonts.h"
#include "attnviz/state_json.h"

namespace attnviz::ui {

bool AppModel::apply(const nlohmann::json& state, Change how, uint64_t group) {
  State s;
  Status st = parse_state(state, &s);
  if (!st.ok) {
    refused(st);
    return false;
  }
  return apply(std::move(s), how, group);
}

bool AppModel::apply(State state, Change how, uint64_t group) {
  // The state this change replaces, typed: a copy that shares the explicit weights
  // (SharedTensor), so it costs a few pointers whatever their size.
  const bool had = engine.has_result();
  State before = had && how != Change::history ? engine.state() : State();
  Status st = engine.set_state(std::move(state));
  if (!st.ok) {
    refused(st);
    return false;
  }
  error.clear();
  error_field.clear();
  draft = engine.state();
  // Changed: told by State's ==, which compares fields first and shared matrices by
  // pointer (no JSON, no copy of a weight).
  const bool changed = !had || how == Change::history || before != engine.state();
  if (changed) ++state_serial;
  if (had && how != Change::history && changed)  // undo history (history.h)
    history.record(std::move(before), how == Change::edit ? group : 0);
  if (view.head >= engine.num_heads()) view.head = 0;
  if (view.head_b >= engine.num_heads()) view.head_b = engine.num_heads() > 1 ? 1 : 0;
  int pr = 0, pc = 0;  // a pinned cell stays while its stage does (long mode: read by rows)
  if (view.pinned.valid && !engine.shape(view.pinned.stage, view.pinned.head, &pr, &pc)) view.pinned = CellRef{};
  std::string joined;
  for (const auto& t : engine.tokens()) joined += (joined.empty() ? "" : " ") + t;
  // The Tokens box keeps what was typed while it still gives these tokens
  // ("我爱自然, GPT-2"); otherwise (a preset, a chip edit) it shows them spaced.
  if (split_tokens(tokens_text) != engine.tokens()) tokens_text = joined;
  tokens_edited = false;
  if (fonts_collect_glyphs(joined.c_str(), glyphs)) ++glyphs_version;
  return true;
}

std::vector<std::string> AppModel::split_tokens(std::string_view text) const {
  if (const TrainedModel* model = engine.stack().model()) return split_for_vocabulary(text, model->vocabulary);
  return split_text(text, view.split);
}

void AppModel::refused(const Status& st) {
  error = word_status(st);  // in the interface's language (status_text.h)
  error_field = st.field;
  error_status = st;
  error_worded = error;
}

void change_language(AppModel& m, Lang l) {
  set_language(l);
  m.view.lang = l;
  // The engine's last refusal, still shown, is worded again in the new language.
  if (!m.error.empty() && m.error == m.error_worded) m.error = m.error_worded = word_status(m.error_status);
  if (m.language_seen == language_generation()) return;
  m.language_seen = language_generation();
  const Catalogue c = catalogue(l);  // every character the interface can show in it
  bool added = false;
  for (int k = 0; k < c.count; ++k) added |= fonts_collect_glyphs(c.entries[k].text, m.glyphs);
  if (added) ++m.glyphs_version;
}

}  // namespace attnviz::ui
