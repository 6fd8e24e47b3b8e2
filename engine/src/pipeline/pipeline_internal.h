// Internal to the engine: the pipeline's description (Plan), its buffers, and
// the builders of its inputs. Public API: attnviz/pipeline.h.
#pragma once

#include <array>
#include <climits>
#include <cstdint>
#include <memory>
#include <vector>

#include "attnviz/kernels.h"
#include "attnviz/pipeline.h"
#include "attnviz/state.h"
#include "attnviz/torch_rng.h"
#include "attnviz/variants.h"

namespace attnviz {
namespace detail {

// Everything the kernels need, derived once from a validated State
// ("describe, then compute").
struct Plan {
  int S = 0, d_model = 0, d_out = 0, H = 0, head_dim = 0;
  bool qkv_bias = false, out_proj = false, out_bias = false;
  double divisor_base = 1.0;   // √head_dim, √d_out or 1
  double temperature = 1.0;
  float divisor = 1.0f;        // float32(divisor_base × temperature), the double product rounded once
  bool causal = false;
  std::vector<uint8_t> key_padded;  // (S), 1 = padded key; empty when there is no padding
  float fill = 0.0f;                // mask_fill as float32
  bool safe_softmax = false;
  bool dropout_active = false;      // training and p > 0
  double p = 0.0;
  uint64_t dropout_seed = 0;
  float dropout_scale = 1.0f;       // 1 / (1 − p) as float32; 0 when p = 1
  bool keep_exps = false;           // heads keep their softmax numerators (HeadBuffers::exps)
  // Issue 23's variants (attnviz/variants.h).
  int G = 0, kv_dim = 0;            // K/V heads (G = H: plain MHA) and the width of K and V (G · head_dim)
  bool rope = false;
  RopeStyle rope_style = RopeStyle::half;
  double rope_base = 10000.0;
  std::shared_ptr<const RopeTable> rope_tab;  // (S × head_dim/2) cos and sin, shared by copies of the plan
  int window = 0;                   // sliding window (0: none)
  std::vector<float> slopes;        // (H) ALiBi's m_h; empty without ALiBi
  // Issue 36: gpt-oss's sink logits and StreamingLLM's cache.
  std::vector<kernels::Sink> sinks;  // (H) each head's logit, at column S; empty without sinks
  int cache_sinks = 0, cache_recent = 0;  // StreamingLLM's k and w (cache_recent 0: a full cache)

  const uint8_t* padded() const { return key_padded.empty() ? nullptr : key_padded.data(); }
  // Long mode (Pipeline::long_mode): no head keeps an (S × S) buffer.
  int long_from = Limits::kMaxFullTokens;  // Pipeline::set_long_from
  bool long_mode() const { return S > long_from; }
  int kv_head(int h) const { return h / (H / G); }  // the K/V head query head h reads
  // Head h's rule from scores to masked (kernels.h).
  kernels::MaskRule mask(int h) const {
    kernels::MaskRule m;
    m.divisor = divisor;
    m.causal = causal;
    m.key_padded = padded();
    m.fill = fill;
    m.window = window;
    m.slope = slopes.empty() ? 0.0f : slopes[static_cast<size_t>(h)];
    m.cache_sinks = cache_sinks;
    m.cache_recent = cache_recent;
    return m;
  }
  // Head h's sink (the softmax's extra column), or null without sinks.
  const kernels::Sink* sink(int h) const { return sinks.empty() ? nullptr : &sinks[static_cast<size_t>(h)]; }
};

// Heads keep their softmax numerators while all of them fit in this many
// bytes (S = 512 with 12 heads takes 12 MiB; S = 1024 would take 48 MiB of a
// 256 MiB budget, and is left to recompute).
constexpr uint64_t kKeepExpsMaxBytes = 32ull << 20;

// prev (may be null): a plan whose RoPE table is reused when it fits.
Plan make_plan(const State& s, const Plan* prev = nullptr);
// Same S, d_model, d_out, H and the same set of biases / projections.
bool same_shapes(const Plan& a, const Plan& b);
// The same, S aside (the parameters' shapes do not depend on S).
bool same_shapes_but_s(const Plan& a, const Plan& b);
bool same_mask(const Plan& a, const Plan& b);
bool same_dropout(const Plan& a, const Plan& b);

// Parameters in x·W orientation; absent ones are empty (0 × 0).
// Explicit weights (WeightInit::values) are the State's own tensors, shared
// read-only (SharedTensor), not copied: at d_model 768 a copy was 9 MB and about
// 1 ms of every fresh build (issue 37). Seeded ones are drawn into tensors of
// the pipeline's own.
struct Params {
  SharedTensor W_q;            // (d_model × d_out)
  SharedTensor W_k, W_v;       // (d_model × kv_dim)
  SharedTensor W_o;            // (d_out × d_out) or empty
  SharedTensor b_q;            // (1 × d_out) or empty
  SharedTensor b_k, b_v;       // (1 × kv_dim) or empty
  SharedTensor b_o;            // (1 × d_out) or empty
};

// The seeded embedding table the last build_x drew, kept by the pipeline so
// that a new token does not draw the whole table again. Only for d_model a
// multiple of 16: torch's normal_ then fills every size by whole blocks of
// 16 from uniforms drawn in order, so the table for more rows is this one
// followed by what the same generator draws next.
struct EmbeddingCache {
  uint64_t seed = 0;
  int d_model = 0;                    // 0: nothing drawn yet
  std::vector<float> table;           // (rows × d_model): torch.randn(rows, d_model) after manual_seed(seed)
  TorchGenerator after{0};            // that generator once it drew table
};

// X (S × d_model) for s: embedding (torch_randn table or values) + positions.
// cache (may be null) keeps the table between calls.
void build_x(const State& s, Tensor* x, EmbeddingCache* cache = nullptr);
// The parameters for s (torch_linear fused/per_head, torch_rand, or values).
void build_params(const State& s, Params* params);
// Whether two states give the same X / the same parameters (compares specs,
// not results).
bool same_x_inputs(const State& a, const State& b);
bool same_param_inputs(const State& a, const State& b);
// The dropout keep mask (H × S × S), 1 = kept, drawn like PyTorch.
void build_keep_mask(const Plan& plan, std::vector<uint8_t>* keep);

struct HeadBuffers {
  Tensor q_rot;    // (S × head_dim) with RoPE: Q_h rotated by position, else empty
  Tensor k_rot;    // (S × head_dim) with RoPE: K_{kv_head(h)} rotated, else empty
  Tensor scores;   // (S × S)
  Tensor scaled;   // (S × S) materialised by Pipeline::matrix on request, else empty (0 × 0)
  Tensor masked;   // (S × S) likewise
  Tensor bias;     // (S × S) with ALiBi, materialised on request, else empty
  uint64_t scaled_at = 0, masked_at = 0, bias_at = 0;  // the stage version scaled / masked / bias hold
  Tensor weights;  // (S × S)
  // When plan.keep_exps: exps row r = softmax_exps(masked row r), taken
  // against row_max[r] (NaN where the row has no usable exps: a non-finite
  // max, or a row softmax_row computed whole), so an edit that changes a few
  // cells of a row below its max redoes only their exps (patch_weights_row).
  Tensor exps;                 // (S × S) or empty
  std::vector<float> row_max;  // (S) or empty
  Tensor dropped;  // (S × S) while dropout is active, else empty (dropped = weights)
  Tensor context;  // (S × head_dim)
};

struct Buffers {
  Tensor X;                        // (S × d_model)
  Params params;
  Tensor Q;                        // (S × d_out)
  Tensor K, V;                     // (S × kv_dim)
  Tensor QT;                       // (d_out × S): Qᵀ (q_rotᵀ of every head with RoPE), A operand rows of the score products
  Tensor KT;                       // (kv_dim × S): Kᵀ (k_rotᵀ with RoPE), B operands
  std::vector<HeadBuffers> heads;  // (H)
  Tensor concat;                   // (S × d_out)
  Tensor output;                   // (S × d_out)
  std::vector<uint8_t> keep;       // (H × S × S), 1 = kept; empty when dropout is inactive
  bool alibi = false;              // the heads have a bias stage (materialised on request)
  bool long_mode = false;          // Plan::long_mode: the heads hold no (S × S) buffer (stage_tensor: nullptr)
};

// Working memory of the kernels' callers; grows to the largest need and is
// reused, so incremental updates do not allocate once warmed up.
struct Scratch {
  FloatBuffer cols;  // (ncols × (head_dim + S)): gathered K rows and their score columns
  std::vector<int> idx;     // (ncols): 0, 1, ...
  std::vector<int> k_end;   // (S): per row, 1 + the last key with a non-zero dropped weight
  std::vector<int> row_slot, col_slot;  // (S): where a recomputed score row / column's old values are, or −1
  std::vector<uint8_t> row_flag;        // (S)
  std::vector<uint8_t> cells_only;      // (S) 1: masked row changed only in the changed score columns (derive_stages)
  std::vector<float> old_row, tmp_old, tmp_new;  // (S) each: an old scores row, old / new masked rows
  std::vector<float> new_row;                    // (S) a row computed before it is compared with the stored one
};

// The working memory of one thread updating heads: apply and
// compute_everything hand the heads to up to threads() groups (detail::
// run_parts), each with a space of its own; spaces[0] also serves the
// stages computed on the calling thread alone (Q, K, V, the tail, read()).
struct WorkSpace {
  FloatBuffer cells;  // (S × S): snapshot of the score cells being recomputed
  FloatBuffer rows;   // (rows × row width) ≤ (S × max(S, d_out)): snapshot of the rows being recomputed
  Scratch sc;
};

// Head groups get spaces of their own (≈ 3·S² floats each: 12 MiB at S = 1024)
// while the extra ones fit in this many bytes; past it, fewer groups.
constexpr uint64_t kMaxExtraSpaceBytes = 64ull << 20;

// Lazy mode (Pipeline::track_demand): how far one head's stages are current.
// Scores are always current (scaled and masked derive from them); weights and
// dropped need kWeights, context kContext. Concat and output (the "tail")
// need every head at kContext.
enum Level : uint8_t { kScores = 1, kWeights = 2, kContext = 3 };
// The level a stage belongs to: kScores ... kContext for per-head stages,
// kTail for concat and output, 0 for X, parameters, Q, K and V (always current).
constexpr int kTail = 4;
int stage_level(Stage s);

// ---- one head's softmax rows (softmax_rows.cpp) ----
// Each writes weights row r into w (S), which is not read: the caller passes
// the weights row itself or a scratch row to compare it with.
//
// w = softmax(masked row r). The masked row is built in w, or in the exps
// row when the head keeps its numerators (then row_max[r] records the max,
// or NaN); there entries built_from … S − 1 may already hold it (a refused
// causal_off_weights_row leaves them so).
void compute_weights_row(const Plan& p, HeadBuffers& hb, int h, int r, float* w, int built_from = INT_MAX);
// Weights row r of head h from its scores row s (S) into w (S), without the kept
// numerators: the masked row's softmax, over the causal cut first (kernels::softmax_cut)
// and whole when that gives NaN. compute_weights_row's bits; s and w may not alias.
// Pipeline::row and overview (pipeline_rows.cpp) compute their rows with it.
void weights_row_from_scores(const Plan& p, int h, int r, const float* s, float* w);
// Where weights row r's tail of exact +0s begins at the latest, from the row w
// (S) any writer above left: under a causal −inf mask every writer stores +0
// from the cut (kernels::softmax_cut) on unless the row came out NaN (an all-−inf
// or NaN row, whose w[0] is then NaN too); otherwise S. Dropout keeps those
// zeros (0 · scale). compute_context's k_end scans back from here, not from S:
// the S − cut zeros it skips were half of what it read (issue 37).
int weights_zero_from(const Plan& p, int r, const float* w);
// The patches give compute_weights_row's bits from the kept numerators when
// they may, and otherwise return false having changed nothing that
// compute_weights_row would not rewrite, except the masked values a refused
// causal_off_weights_row leaves for it (*built_from). They refuse without usable exps
// (a NaN row_max) and whenever the row's max could move.
//
// Only the cells (r, c), c in cols, of masked changed (a score edit, or a
// key's padding switched): redoes their exps. Refuses a new value above the
// max (or NaN / inf), or a cell that held the max (exp 1) and now holds less.
bool patch_weights_row(const Plan& p, HeadBuffers& hb, int h, int r, const std::vector<int>& cols, float* w);
// The causal mask was switched on (p: the new plan; same divisor, fill and
// padding): keys after r now hold the fill. When none of them held the max
// and the fill is at most the max, the exps of keys 0 … r stand; the rest
// become exp(fill − max) (0 for −inf).
bool causal_on_weights_row(const Plan& p, HeadBuffers& hb, int h, int r, float* w);
// The causal mask was switched off (same divisor, fill and padding): keys
// after r now hold their scaled scores. When none of them exceeds the max
// (and none held it as the fill), the exps of keys 0 … r stand and only
// the keys after r get theirs. Refusing once it has built those keys'
// masked values in the exps row, it sets *built_from to r + 1.
bool causal_off_weights_row(const Plan& p, HeadBuffers& hb, int h, int r, float* w, int* built_from);

// ---- rows on demand (pipeline_rows.cpp) ----
// scores, scaled, bias, masked, weights, dropped: the per-head (S × S) stages.
bool square_stage(Stage st);
// Rows i0 … i0 + n − 1 of a per-head (S × S) stage or of context, head h, into out
// (n × S, or n × head_dim for context), bit for bit the full path's; scratch grows to
// n × S floats. Reads only Q, K (KT), V, q_rot / k_rot and the keep mask: threads may
// run it at once on different rows. v_finite (context): whether V_g is all finite, if
// known (−1: checked here).
void stage_rows(const Plan& p, const Buffers& b, Stage stage, int h, int i0, int n, std::vector<float>* out,
                std::vector<float>* scratch, int v_finite = -1);
// Rows i0 … i0 + n − 1 of several (S × S) stages of head h at once, from one product of
// scores rows: `want` has bit int(stage) for each asked of scores, scaled, masked,
// weights and dropped, and outs[int(stage)] receives its rows (n × S), each bit for bit
// stage_rows's. The scores are computed past the causal cut only when scores or scaled
// is asked for. The Stages tab shows five of these maps of a head: one product serves all.
void square_rows(const Plan& p, const Buffers& b, int h, int i0, int n, uint32_t want,
                 std::vector<float>* const* outs, std::vector<float>* scratch);
// scores or scaled cells rows i0 … i0 + n − 1 × keys j0 … j0 + m − 1 of head h into out
// (n × m), the same bits as those cells of stage_rows (kernels.h contract 1).
void stage_cells(const Plan& p, const Buffers& b, Stage stage, int h, int i0, int n, int j0, int m,
                 std::vector<float>* out);

// ---- maps of long inputs (pipeline_map.cpp) ----
// Pooled rows of the maps views asked for (Pipeline::map), kept between frames and
// dropped when a set_state changes what they are made of (invalidate_maps).
struct PooledMap {
  Stage stage = Stage::weights;
  int head = 0, block = 1;
  Pipeline::Pool pool = Pipeline::Pool::max;
  int n = 0;                             // ⌈S / block⌉: rows and columns
  std::vector<std::vector<float>> rows;  // (n) each (n) when computed, else empty
  std::vector<uint64_t> used;            // (n) the clock when the row was last read or computed
  // scores and scaled see every key: a changed key changes one column of every row. Its
  // column blocks are redone in the kept rows (patch) instead of the rows whole.
  std::vector<uint8_t> col_stale;        // (n) 1: column block J changed in the rows marked in patch
  std::vector<uint8_t> patch;            // (n) 1: kept row I still has the col_stale blocks to redo
  bool needs(int I) const { return rows[static_cast<size_t>(I)].empty() || patch[static_cast<size_t>(I)]; }
};
struct MapCache {
  std::vector<PooledMap> maps;
  uint64_t clock = 0;
  uint64_t bytes = 0;  // floats held in rows × 4
};
// The pooled row of rows (h_rows × S) over b × b blocks (⌈S/b⌉), as Pipeline::overview says.
void pool_rows(const float* rows, int h_rows, int S, int block, Pipeline::Pool pool, float* out);
// Drops every kept row (another shape, plan or parameters).
void clear_maps(MapCache* mc);
// The rows of a head's stage (its (S × S) stages, or context) whose values may differ
// after its query rows q_rows and key rows k_rows (ascending, either may be empty)
// changed: the changed query rows, and for a key change every row that can see the key
// (under the causal mask the rows from the first changed key on; otherwise all; scores
// and scaled see every key, masked or not). Marks them 1 in rows (S).
void rows_touched(const Plan& p, Stage stage, const std::vector<int>& q_rows, const std::vector<int>& k_rows,
                  std::vector<uint8_t>* rows);
// Drops head h's kept map rows that rows_touched names, or all of them (every_row), or
// only those of the stages in `stages` when it is not 0 (bit int(stage)).
void invalidate_maps(const Plan& p, MapCache* mc, int head, const std::vector<int>& q_rows,
                     const std::vector<int>& k_rows, bool every_row, uint32_t stages = 0);

// ---- long mode (pipeline_long.cpp) ----
// After an incremental change in long mode: head h's context rows that rows_touched
// names for its changed query rows and key / value rows (or every row), and with them
// the concat rows and (out_changed: every) output row, are marked stale.
void mark_long_rows(Pipeline::Impl& im, int h, const std::vector<int>& q_rows, const std::vector<int>& kv_rows,
                    bool every_row, bool out_changed);

// ---- a rebuild for another S (carry.cpp) ----
// What a rebuild for another number of tokens takes from the result it
// replaces, when d_model, d_out, H, the projections and the parameters are
// the same: a new row r whose X row is bitwise old row src[r] gets that
// row's Q, K and V rows, and the score cell (r, c) of two such rows is the
// old cell (src[r], src[c]). kernels.h's contract makes a cell's bits the
// same wherever it sits in a product, so this is the fresh result.
struct Carry {
  struct Run {
    int dst, src, n;  // new rows dst … dst + n − 1 are old rows src … src + n − 1
  };
  const Buffers* old = nullptr;  // the result replaced (its X, Q, K and V)
  std::vector<int> src;          // (S) the old row new row r is, or −1
  std::vector<Run> runs;         // the carried rows, as runs in both orders
  std::vector<int> fresh;        // the new rows with src −1, ascending
};
// Matches the new X (S × d_model) against ob.X; false when no row carries.
// keep_positions (RoPE: a row's rotation depends on its position): only rows
// at the same index carry.
bool find_carry(const Buffers& ob, const Tensor& X, Carry* c, bool keep_positions = false);
// Copies the carried rows of Q, K and V into b.
void carry_projection_rows(const Carry& c, Buffers& b);
// Copies head h's score cells between carried rows (from c.old) into scores (S × S).
void carry_scores(const Carry& c, int h, Tensor* scores);

// Sizes every buffer of b for plan (contents unspecified; row_max NaN). A
// buffer already of its size keeps its contents (reshape's carried scores).
void allocate_buffers(const Plan& plan, Buffers* b);

// The tensor of a stage inside b (nullptr when absent / out of range).
const Tensor* stage_tensor(const Buffers& b, Stage stage, int head);

}  // namespace detail

struct Pipeline::Impl {
  bool has_result = false;
  State state;
  detail::Plan plan;
  detail::Buffers buf;
  std::array<std::vector<uint64_t>, kStageCount> versions;   // [stage][head]
  std::array<std::vector<StageUpdate>, kStageCount> updates;  // [stage][head]
  uint64_t stamp = 0;                                         // last version handed out

  detail::MapCache maps;                  // Pipeline::map's kept rows
  int long_from = Limits::kMaxFullTokens;  // long mode above this many tokens (set_long_from)
  // Long mode: which rows of each head's context, and of concat and output, are stale
  // (computed when read: long_read, pipeline_long.cpp).
  std::vector<std::vector<uint8_t>> ctx_stale;  // (H) × (S), 1 = recompute
  std::vector<uint8_t> concat_stale;            // (S)
  bool output_stale_all = false;                // W_o / b_o changed: every output row
  void long_read(Stage s, int head);
  std::vector<detail::WorkSpace> spaces;  // (≥ 1 once there is a result) see WorkSpace
  detail::EmbeddingCache embedding;       // the seeded table X was built from (build_x)
  // The dropout keep mask of the last time dropout was switched off, with its
  // p and seed (same shapes), so switching it back on does not redraw it.
  std::vector<uint8_t> keep_cache;  // (H × S × S) or empty
  double keep_cache_p = 0.0;
  uint64_t keep_cache_seed = 0;
  bool keep_cache_valid = false;

  // Lazy mode. Eager (the default) keeps every head at kContext and the tail
  // valid after each set_state. Lazy, set_state brings only the levels read
  // since the last-but-one track_demand() up to date and marks the rest
  // stale; reading a stale stage brings it up to date first (read()).
  bool lazy = false;
  std::vector<uint8_t> valid;                  // (H) detail::Level each head is current through
  bool tail_valid = true;                      // concat and output are current
  std::vector<uint8_t> read_now, read_before;  // (H) the deepest level read since / before the last track_demand()
  bool tail_read_now = false, tail_read_before = false;

  int wanted(int head) const;  // the level set_state brings head to
  bool tail_wanted() const;
  // A reader asks for a stage: counts it as demand and, when it is stale,
  // brings it up to date first.
  void read(Stage s, int head);

  void apply(State&& next);   // may throw std::bad_alloc: before it mutates anything (or moves next), or
                              // in reshape, which has put the old result back
  // Another shape (or the first state): the old result is released as the
  // new one is built, so a shape change never holds two results; if that
  // fails, restore() computes the old one again and the failure is rethrown.
  void reshape(State&& next, const detail::Plan& plan);
  // The result for state / plan / valid, computed again from the state (the
  // same bits as before); has_result becomes false if even that fails.
  void restore() noexcept;
  // Computes the result for next into fresh, with what carry (may be null)
  // takes from the old one, and commits it only once all is done;
  // params_kept: the parameters are the old ones (their versions stay).
  void rebuild(State&& next, const detail::Plan& plan, detail::Buffers& fresh, const detail::Carry* carry,
               bool params_kept);
  void bump(Stage s, int head) { versions[static_cast<int>(s)][head] = ++stamp; }
};

}  // namespace attnviz
