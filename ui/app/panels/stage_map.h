// stage_map.h: a head's (S × S) stage as the overview maps read it (heatmap.h MapSource):
// the engine's pooled maps of the layer shown, through EngineSession's pass-throughs. Every
// panel that draws a square per-head stage above kOverviewAbove tokens (map_zoom.h) draws
// it with heatmap_overview over one of these: the Stages flow, A/B, Compare heads' grid.
#pragma once
#include <cstdint>

#include "app/widgets/heatmap.h"
#include "attnviz/pipeline.h"
#include "attnviz/stages.h"
#include "attnviz/tensor.h"

namespace attnviz::ui {

class EngineSession;
struct AppModel;

class StageMap final : public MapSource {
 public:
  StageMap(const EngineSession& e, Stage stage, int head, bool mean);
  int size() const override;
  uint64_t version() const override;
  bool mean() const override { return pool_ == Pipeline::Pool::mean; }
  int pending(int block, int I0, int nI) const override;
  int prepare(int block, int I0, int nI, double budget_ms) const override;
  bool fetch(int block, int I0, int nI, int J0, int nJ, float* out) const override;

 private:
  const EngineSession& e_;
  Stage stage_;
  int head_;
  Pipeline::Pool pool_;
  mutable Tensor scratch_;  // map()'s answer before it is copied out
};

// Whether `stage` is drawn as an overview in the current state: a square per-head stage
// (scores … dropped) of more than kOverviewAbove tokens.
bool stage_overview(const AppModel& m, Stage stage);

// Why a view is not drawn at this length, as a wrapped sentence (registered as "long
// input sentence"): `what` says what the view needs (translated), the rest that no head
// is held whole above Limits::kMaxFullTokens tokens and where to read the maps instead.
void long_input_sentence(AppModel& m, const char* what);

// Per-frame budget, in milliseconds, the overviews of a frame share for computing rows:
// kMapFrameBudgetMs while the learner moves, drags, scrolls or types (the frame stays
// near 30 per second, so a pan or a hover follows the hand), kMapStillBudgetMs while the
// input is still (a frame of 100 ms is not felt when nothing moves, and a map that is
// filling in is done sooner: at 8,192 tokens the frame's own drawing took most of each
// 25 ms frame's time in a software-rendered page).
constexpr double kMapFrameBudgetMs = 25.0;
constexpr double kMapStillBudgetMs = 100.0;
inline double map_frame_budget_ms(bool input_still) { return input_still ? kMapStillBudgetMs : kMapFrameBudgetMs; }

}  // namespace attnviz::ui
