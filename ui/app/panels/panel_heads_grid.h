// panel_heads_grid.h: Compare heads → All heads for a trained model or captured layers
// (their names beside the rows): every layer's
// every head (rows = layers, columns = heads) as small maps, each with its four head
// scores (attnviz/model.h) and the job they name; and the head scores beside each map
// of a one-layer state. The sizes come from heads_grid_layout.h (pure); the numbers
// from the engine (head_scores, probe_head_scores, head_score_terms), cached per
// state; the Inspector explains the hovered or pinned score (panel_inspector.cpp).
#pragma once
#include <string>
#include <vector>

#include "app/model/widgets_state.h"
#include "app/widgets/colormap.h"
#include "attnviz/model.h"
#include "attnviz/stages.h"

namespace attnviz::ui {

struct AppModel;

// A head's job is named when one of its scores is clearly above chance: the largest
// of its scores that is at least kJobMin and kJobOverChance × what uniform attention
// scores on the same tokens (uniform_head_scores). Returns the HeadScoreKind as an
// int, or -1: no job is named.
constexpr double kJobMin = 0.3;
constexpr double kJobOverChance = 3.0;
int head_job(const HeadScores& s, const HeadScores& chance);

// The scores the grid shows, [layer][head], and their chance level: on the current
// input, or (probe, a model state only) on the model's standard probe. Computed by the
// engine when the state changes (m.state_serial), not every frame.
struct GridScores {
  const LayerScores* scores = nullptr;
  const HeadScores* chance = nullptr;
  bool probe = false;  // what they are on
};
GridScores grid_scores(AppModel& m, bool probe);

// One colour scale for every map of the grid (panel_compare.cpp finds it).
struct GridScale {
  Stage stage = Stage::weights;
  float lo = 0.0f, hi = 1.0f;
  Colormap cmap = Colormap::viridis;
};

// The "Head scores: on this input / on the probe" choice (a model state only).
void head_scores_toggle(AppModel& m);
// The layers × heads grid, filling the room left.
void heads_grid(AppModel& m, const GridScale& scale);
// A one-layer state's grid: head h's scores and job above its map, `width` wide.
// head_scores_prepare formats and measures every head's scores, once a frame, before
// the others; head_scores_lines says how many lines the block takes at that width.
void head_scores_prepare(AppModel& m);
int head_scores_lines(AppModel& m, float width);
void head_scores_block(AppModel& m, int head, float width);

// What the grid (either) drew in its last frame, for tests, as inspector_log() is
// the Inspector's: each head's score texts, the job named (-1: none) and whether it is
// the selected head.
struct HeadsGridDrawnCell {
  int layer = 0, head = 0;
  char scores[4][40] = {};  // HeadScoreKind order, as drawn ("prev 0.70")
  int job = -1;
  bool selected = false;
};
const std::vector<HeadsGridDrawnCell>& heads_grid_drawn();
// The rows' labels the grid drew in its last frame (captured layers' names, ellipsised
// as drawn), one a layer; empty when it drew none (a trained model, one layer).
const std::vector<std::string>& heads_grid_row_labels();

// The Inspector's side: the score to explain (hovered in the last frame, else the
// pinned one while no cell was pinned after it), and its terms (cached).
bool score_focus(AppModel& m, ScoreRef* out);
const HeadScoreTerms& score_terms(AppModel& m, const ScoreRef& r);
// The chance level of a score (what uniform attention gets on the same tokens).
double score_chance(AppModel& m, const ScoreRef& r);
// The job the head of `r` is named for (-1: none), on the same tokens as r.
int score_head_job(AppModel& m, const ScoreRef& r);

}  // namespace attnviz::ui
