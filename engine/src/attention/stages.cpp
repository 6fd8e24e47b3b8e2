// The stage table (attnviz/stages.h) and the functions that read it.
#include "attnviz/stages.h"

namespace attnviz {

namespace {

using D = StageDim;
using A = StageAxis;
using L = StageLevel;
using St = StageStorage;
using W = StageWhen;

// One row per Stage, in Stage order (checked by the static_asserts below and
// by tests/engine/test_stages.cpp).
constexpr StageInfo kStageTable[kStageCount] = {
    // stage          name       per_head level       rows         cols         storage     when         row axis    col axis
    {Stage::X,       "X",       false, L::inputs,  D::S,       D::d_model, St::stored,  W::always,   A::token,   A::feature},
    {Stage::W_q,     "W_q",     false, L::inputs,  D::d_model, D::d_out,   St::stored,  W::always,   A::feature, A::feature},
    {Stage::W_k,     "W_k",     false, L::inputs,  D::d_model, D::kv_dim,  St::stored,  W::always,   A::feature, A::feature},
    {Stage::W_v,     "W_v",     false, L::inputs,  D::d_model, D::kv_dim,  St::stored,  W::always,   A::feature, A::feature},
    {Stage::W_o,     "W_o",     false, L::inputs,  D::d_out,   D::d_out,   St::stored,  W::out_proj, A::feature, A::feature},
    {Stage::b_q,     "b_q",     false, L::inputs,  D::one,     D::d_out,   St::stored,  W::qkv_bias, A::none,    A::feature},
    {Stage::b_k,     "b_k",     false, L::inputs,  D::one,     D::kv_dim,  St::stored,  W::qkv_bias, A::none,    A::feature},
    {Stage::b_v,     "b_v",     false, L::inputs,  D::one,     D::kv_dim,  St::stored,  W::qkv_bias, A::none,    A::feature},
    {Stage::b_o,     "b_o",     false, L::inputs,  D::one,     D::d_out,   St::stored,  W::out_bias, A::none,    A::feature},
    {Stage::Q,       "Q",       false, L::inputs,  D::S,       D::d_out,   St::stored,  W::always,   A::query,   A::feature},
    {Stage::K,       "K",       false, L::inputs,  D::S,       D::kv_dim,  St::stored,  W::always,   A::key,     A::feature},
    {Stage::V,       "V",       false, L::inputs,  D::S,       D::kv_dim,  St::stored,  W::always,   A::key,     A::feature},
    {Stage::q_rot,   "q_rot",   true,  L::scores,  D::S,       D::head_dim, St::stored, W::rope,     A::query,   A::feature},
    {Stage::k_rot,   "k_rot",   true,  L::scores,  D::S,       D::head_dim, St::stored, W::rope,     A::key,     A::feature},
    {Stage::scores,  "scores",  true,  L::scores,  D::S,       D::S,       St::stored,  W::always,   A::query,   A::key},
    {Stage::scaled,  "scaled",  true,  L::scores,  D::S,       D::S,       St::derived, W::always,   A::query,   A::key},
    {Stage::bias,    "bias",    true,  L::scores,  D::S,       D::S,       St::derived, W::alibi,    A::query,   A::key},
    {Stage::masked,  "masked",  true,  L::scores,  D::S,       D::S,       St::derived, W::always,   A::query,   A::key},
    {Stage::weights, "weights", true,  L::weights, D::S,       D::S,       St::stored,  W::always,   A::query,   A::key},
    {Stage::dropped, "dropped", true,  L::weights, D::S,       D::S,       St::stored,  W::dropout,  A::query,   A::key},
    {Stage::context, "context", true,  L::context, D::S,       D::head_dim, St::stored, W::always,   A::query,   A::feature},
    {Stage::concat,  "concat",  false, L::tail,    D::S,       D::d_out,   St::stored,  W::always,   A::query,   A::feature},
    {Stage::output,  "output",  false, L::tail,    D::S,       D::d_out,   St::stored,  W::always,   A::query,   A::feature},
};

constexpr bool rows_in_order() {
  for (int i = 0; i < kStageCount; ++i) {
    if (static_cast<int>(kStageTable[i].stage) != i) return false;
  }
  return true;
}
static_assert(rows_in_order(), "kStageTable: one row per Stage, in Stage order");

uint64_t dim_size64(StageDim d, uint64_t S, uint64_t d_model, uint64_t d_out, uint64_t num_heads, uint64_t kv) {
  switch (d) {
    case StageDim::one: return 1;
    case StageDim::S: return S;
    case StageDim::d_model: return d_model;
    case StageDim::d_out: return d_out;
    case StageDim::head_dim: return num_heads > 0 ? d_out / num_heads : 0;
    case StageDim::kv_dim: return num_heads > 0 ? (kv > 0 ? kv : num_heads) * (d_out / num_heads) : 0;
  }
  return 0;
}

}  // namespace

bool stage_valid(Stage s) {
  const int i = static_cast<int>(s);
  return i >= 0 && i < kStageCount;
}

const StageInfo& stage_info(Stage s) { return kStageTable[stage_valid(s) ? static_cast<int>(s) : 0]; }

const StageInfo* stage_table() { return kStageTable; }

int dim_size(StageDim d, int S, int d_model, int d_out, int num_heads, int num_kv_heads) {
  auto u = [](int v) { return static_cast<uint64_t>(v > 0 ? v : 0); };
  return static_cast<int>(dim_size64(d, u(S), u(d_model), u(d_out), u(num_heads), u(num_kv_heads)));
}

uint64_t stage_floats(Stage s, uint64_t S, uint64_t d_model, uint64_t d_out, uint64_t num_heads, uint64_t num_kv_heads) {
  const StageInfo& i = stage_info(s);
  const uint64_t one = dim_size64(i.rows, S, d_model, d_out, num_heads, num_kv_heads) *
                       dim_size64(i.cols, S, d_model, d_out, num_heads, num_kv_heads);
  return i.per_head ? num_heads * one : one;
}

const char* stage_name(Stage s) { return stage_valid(s) ? stage_info(s).name : ""; }

bool stage_from_name(std::string_view name, Stage* out) {
  for (const StageInfo& i : kStageTable) {
    if (name == i.name) {
      *out = i.stage;
      return true;
    }
  }
  return false;
}

bool stage_is_per_head(Stage s) { return stage_valid(s) && stage_info(s).per_head; }

bool stage_is_square(Stage s) {
  return stage_valid(s) && stage_info(s).row_axis == StageAxis::query && stage_info(s).col_axis == StageAxis::key;
}

bool stage_rows_are_positions(Stage s) {
  if (!stage_valid(s)) return false;
  const StageAxis a = stage_info(s).row_axis;
  return a == StageAxis::token || a == StageAxis::query || a == StageAxis::key;
}

}  // namespace attnviz
