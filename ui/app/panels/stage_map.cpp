// stage_map.cpp: see stage_map.h.
#include "app/panels/stage_map.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "app/model/app_model.h"
#include "app/panels/panel_stages.h"
#include "app/text/i18n.h"
#include "app/widgets/item_registry.h"
#include "app/widgets/map_zoom.h"
#include "attnviz/state.h"
#include "imgui.h"

namespace attnviz::ui {

StageMap::StageMap(const EngineSession& e, Stage stage, int head, bool mean)
    : e_(e), stage_(stage), head_(head), pool_(mean ? Pipeline::Pool::mean : Pipeline::Pool::max) {}

int StageMap::size() const { return e_.has_result() ? e_.pipeline().seq_len() : 0; }

// The engine drops a kept pooled row when a state changes what it is made of; every state
// applied (embedding_version), a layer switch or a new version of the stage may have, so
// the window is fetched again then (kept rows: a copy, no computing).
uint64_t StageMap::version() const {
  uint64_t v = e_.embedding_version() * 0x9E3779B97F4A7C15ull;
  v ^= (uint64_t)(e_.layer() + 1) * 0xBF58476D1CE4E5B9ull;
  v ^= e_.has_result() ? e_.version(stage_, head_) * 0x94D049BB133111EBull : 0;
  return v ? v : 1;
}

int StageMap::pending(int block, int I0, int nI) const { return e_.map_pending(stage_, head_, block, pool_, I0, nI); }

int StageMap::prepare(int block, int I0, int nI, double budget_ms) const {
  return e_.map_prepare(stage_, head_, block, pool_, I0, nI, budget_ms);
}

bool StageMap::fetch(int block, int I0, int nI, int J0, int nJ, float* out) const {
  if (!e_.map(stage_, head_, block, pool_, I0, nI, J0, nJ, &scratch_)) return false;
  if (scratch_.rows != nI || scratch_.cols != nJ) return false;
  std::memcpy(out, scratch_.data.data(), sizeof(float) * (size_t)nI * nJ);
  return true;
}

bool stage_overview(const AppModel& m, Stage stage) {
  return m.engine.has_result() && stage_is_per_head(stage) && stage_is_square(stage) &&
         overview_wanted(m.engine.pipeline().seq_len());
}

void long_input_sentence(AppModel& m, const char* what) {
  char s[768];
  std::snprintf(s, sizeof s,
                tr("%s: at %d tokens no head's (S \xC3\x97 S) maps are held whole (above %d tokens the engine "
                   "computes only the rows a view shows), so this view is not drawn at this length. Every head's "
                   "whole map is on the Stages tab and in Compare heads \xE2\x86\x92 All heads; the wheel zooms "
                   "to its cells."),
                what, m.engine.pipeline().seq_len(), Limits::kMaxFullTokens);
  ImGui::BeginGroup();
  wrapped_text(s, std::max(200.0f, ImGui::GetContentRegionAvail().x));
  ImGui::EndGroup();
  item_register("long input sentence");
}

}  // namespace attnviz::ui
