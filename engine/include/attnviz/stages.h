// attnviz/stages.h: the pipeline's matrices, described by one table.
//
// Every matrix the pipeline has, in pipeline order. Per-head stages
// (scores ... context) exist once per head; the others once.
//
//   X        (S × d_model)       token embeddings (+ positions)
//   W_q      (d_model × d_out)   projections in x·W orientation
//   W_k/v    (d_model × kv_dim)  kv_dim = num_kv_heads · head_dim (d_out unless GQA/MQA)
//   W_o      (d_out × d_out)     output projection (when out_proj)
//   b_q      (1 × d_out)         projection biases (when qkv_bias)
//   b_k/v    (1 × kv_dim)
//   b_o      (1 × d_out)         output bias (when out_proj and out_bias)
//   Q        (S × d_out)         head h owns columns h·head_dim ... (h+1)·head_dim − 1
//   K, V     (S × kv_dim)        K/V head g likewise; query head h reads g = h / (H / G)
//   q_rot    (S × head_dim) per head   Q_h rotated by position (RoPE only)
//   k_rot    (S × head_dim) per head   K_g rotated by position (RoPE only)
//   scores   (S × S) per head    Q_h · K_gᵀ (q_rot · k_rotᵀ with RoPE)
//   scaled   (S × S) per head    scores / (divisor × temperature)      derived on request
//   bias     (S × S) per head    ALiBi's −m_h·|i − j| (alibi only)     derived on request
//   masked   (S × S) per head    scaled (+ bias) with masked cells set to mask_fill   derived on request
//   weights  (S × S) per head    row softmax of masked
//   dropped  (S × S) per head    dropout(weights) (its own buffer only while dropout is active)
//   context  (S × head_dim) per head   dropped · V_h
//   concat   (S × d_out)         [context_0 ... context_{H−1}]
//   output   (S × d_out)         concat · W_o (+ b_o), or concat
//
// All of the above is kStageTable (stages.cpp): one row per Stage. To add a
// stage, add it to the enum and its row to the table; what reads the table
// (names, per-head, level, shapes, the memory estimate, the report's order,
// the UI's stage lists) follows. See docs/engine.md, "The stage table".
#pragma once

#include <cstdint>
#include <string_view>

namespace attnviz {

enum class Stage : int {
  X, W_q, W_k, W_v, W_o, b_q, b_k, b_v, b_o,
  Q, K, V,
  q_rot, k_rot, scores, scaled, bias, masked, weights, dropped, context,
  concat, output,
};
constexpr int kStageCount = static_cast<int>(Stage::output) + 1;

// A size a stage's rows or columns have.
enum class StageDim : uint8_t { one, S, d_model, d_out, head_dim, kv_dim };

// What a stage's rows or columns index: a token (X: both the query and the key
// of that position), a query position, a key position, a feature (an
// embedding / projection / head column), or nothing (the one row of a bias).
enum class StageAxis : uint8_t { none, token, query, key, feature };

// How far a stage is from the inputs, for dependency order and lazy
// computation (pipeline_internal.h's Level): inputs (X, the parameters, Q, K,
// V: always current), then per head scores (scores, scaled, masked), weights
// (weights, dropped), context, then the tail (concat, output: every head).
enum class StageLevel : uint8_t { inputs = 0, scores = 1, weights = 2, context = 3, tail = 4 };

// Whether the pipeline keeps a buffer for the stage (stored) or derives it
// from another on request (derived: Pipeline::matrix materialises scaled and
// masked of a head from its scores when asked for them).
enum class StageStorage : uint8_t { stored, derived };

// When a stored stage has its own buffer: always, or only with an option of
// the state (otherwise a parameter is absent, and dropped is weights itself).
enum class StageWhen : uint8_t { always, qkv_bias, out_proj, out_bias, dropout, rope, alibi };

struct StageInfo {
  Stage stage;
  const char* name;  // stage_name
  bool per_head;
  StageLevel level;
  StageDim rows, cols;       // the shape rule: (rows × cols)
  StageStorage storage;
  StageWhen when;
  StageAxis row_axis, col_axis;
};

// The row of a stage (the table's row for out-of-range values is X's; check
// with stage_valid first when the value is not known to be a Stage).
const StageInfo& stage_info(Stage s);
bool stage_valid(Stage s);
// The whole table, kStageCount rows in Stage order.
const StageInfo* stage_table();

// The size of a StageDim for these sizes (head_dim = d_out / num_heads,
// kv_dim = num_kv_heads · head_dim; num_kv_heads 0 means num_heads).
int dim_size(StageDim d, int S, int d_model, int d_out, int num_heads, int num_kv_heads = 0);
// Floats one stage takes for these sizes, every head together (64-bit:
// size_t is 32 bits in the WebAssembly build).
uint64_t stage_floats(Stage s, uint64_t S, uint64_t d_model, uint64_t d_out, uint64_t num_heads,
                      uint64_t num_kv_heads = 0);

// "X", "W_q", ..., "output": the names used by the report, the UI and docs.
const char* stage_name(Stage s);
// Parses a name as above; false if unknown.
bool stage_from_name(std::string_view name, Stage* out);
// True for q_rot, k_rot, scores, scaled, bias, masked, weights, dropped, context.
bool stage_is_per_head(Stage s);
// True for the query × key (S × S) stages: scores, scaled, bias, masked, weights, dropped.
bool stage_is_square(Stage s);
// True for the stages whose rows are token positions (not the parameters).
bool stage_rows_are_positions(Stage s);

}  // namespace attnviz
