// stage_flow.h: the Stages tab as the computation, in order. One table of the steps
// (which stage, what produced it from the one before, the PyTorch line a tutorial
// writes for it, when it is the identity) and the pure layout that gives each map
// the largest cells its share of the window allows. No ImGui: tested natively
// (tests/ui/test_heatmap_layout.cpp); panel_stages.cpp draws it.
//
//   Q_h K_h V_h [─rotate→ q_rot k_rot] ─Q_h·K_hᵀ→ scores ─÷ √head_dim→ scaled
//     [─+ ALiBi→ bias] ─masked_fill→ masked ─softmax(dim=-1)→ weights ─dropout→ dropped
//     ─· V_h→ context (→ concat → output)
// The bracketed cards are there only with their option (RoPE, ALiBi): the cards
// depend on the state (flow_cards, flow_stage).
#pragma once
#include <cstddef>

#include "app/widgets/heatmap_layout.h"
#include "attnviz/stages.h"
#include "attnviz/state.h"

namespace attnviz::ui {

// Whether the state has that stage: q_rot and k_rot only with RoPE, bias only with
// ALiBi (the stage table's `when`), every other stage always. Pipeline::matrix gives
// nullptr for an absent one; lists of stages (Compare heads) leave it out.
bool stage_present(const State& s, Stage stage);

// The cards of the flow, in order. Card 0 holds the head's slices of Q, K and V;
// cards 1 ... are the per-head stages the state has, in the stage table's order
// (attnviz/stages.h), except k_rot, which shares q_rot's card (as K shares Q's).
// kFlowCardsMax is 1 + the number of per-head stages less k_rot (checked by
// tests/ui/test_heatmap_layout.cpp); plain attention has 7 cards.
constexpr int kFlowCardsMax = 9;
int flow_cards(const State& s);
// The stage card k shows: Stage::Q for card 0, else the k-th per-head stage of this
// state (Stage::q_rot for the RoPE card, which also shows k_rot).
Stage flow_stage(const State& s, int k);

// The ALiBi slope m_h of head h of H, as get_slopes(H) of the ALiBi paper gives it
// (the engine's alibi_slopes(H)[h], computed without allocating).
float flow_alibi_slope(int h, int H);

// The operation that made `stage` from the card before it, with this state's numbers:
// "Q_h·K_hᵀ", "÷ √head_dim = √4 = 2", "masked_fill(j > i, −inf)", "softmax(dim=-1)",
// "dropout p = 0.5 (train): kept × 1/(1−p) = 2", "dropped · V_h", and with the
// variants "rotate by position: θ = p · base^(−2k/head_dim) …", "Q_h · K_gᵀ, K/V head
// g = h / (H/G) = 0", "+ ALiBi bias −m_h·|i − j|, m_h = 0.25". `divisor` is the
// pipeline's float32 divisor (temperature included); `head` the head shown (GQA's
// K/V head and ALiBi's slope depend on it). Returns the length.
int flow_op(const State& s, float divisor, Stage stage, char* buf, size_t n, int head = 0);
// When the stage equals the one before it, why ("no mask: same as scaled",
// "eval mode: identity, same as weights"); else "".
const char* flow_identity(const State& s, Stage stage);
// The line a PyTorch tutorial writes for the step (for the tooltip / code toggle).
int flow_torch(const State& s, Stage stage, char* buf, size_t n);

// A stage's name as a map's title and the Inspector write it: the variable name in
// English ("weights h0", "Q"), the tutorials' term beside it in 简体中文
// ("注意力权重 weights，头 0", "查询 Q"). head >= 0: a per-head stage or a head's
// columns of Q, K or V; head < 0: a matrix the heads share. Returns the length.
int stage_term(Stage stage, int head, char* buf, size_t n);

struct FlowIn {
  float w = 0, h = 0;        // the tab's content area
  float gutter = 22.0f;      // between cards in a row (the arrow goes there)
  float vgap = 10.0f;        // between rows of cards
  float card_head_h = 40.0f; // operation line + title line above each map
  HeatmapLayoutIn square;    // an S×S map's layout input (avail_w/avail_h ignored)
  int head_dim = 0;          // the Q, K, V card holds three S × head_dim maps
  float qkv_gap = 10.0f;     // between them
  bool prefer_all_decimals = false;  // View → Decimals 2/3/4: room for that many
  int cards = 7;             // flow_cards(state)
  bool overview = false;     // the S×S maps are overviews (map_zoom.h, above 256 tokens): whole
                             // maps in view, never cells enlarged with the tab scrolling
};
struct FlowOut {
  int cols = 1;               // cards per row
  float box_w = 0, box_h = 0; // each card's box (box_h <= 0: as tall as it needs; the tab scrolls)
  int decimals = -1;          // what an S×S map prints in that box
};
// Picks the number of cards per row: the one whose S×S maps print values (with the
// most decimals when asked) while every card stays in view; failing that, values
// with the tab scrolling; failing that (long sequences), the largest cells in view (at
// least kMinSide px with the tab scrolling, unless the maps are overviews: then in view).
FlowOut flow_layout(const FlowIn& in);

}  // namespace attnviz::ui
