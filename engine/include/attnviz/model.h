// attnviz/model.h: a small trained transformer, layer after layer.
//
// A trained model (assets/models/<name>.json, its card, and the checkpoints in
// <name>-checkpoints.safetensors, made by scripts/train_induction.py) is token
// and learned position embeddings, L attention layers added to the residual
// stream, and an unembedding (docs/engine.md, "Trained models"):
//
//   x_0     = tok_emb[t] + pos_emb[0..S)                 (S × D)
//   x_{l+1} = x_l + out_proj_l(MHA_l(x_l))                (S × D), l = 0..L-1
//   logits  = x_L · W_U                                   (S × V)
//
// Each layer is today's Pipeline with explicit weights (the state's options,
// causal mask, temperature, window ... apply to every layer), so every stage,
// the Inspector and the exactness carry over. A state runs a model when its
// "model" names one; the models built into attnviz are found by name.
//
// LayerStack runs any state: without a model it is one layer, the state's own
// pipeline; with one, a pipeline per layer. An edit recomputes only what
// changed, layer after layer (each Pipeline compares its input row by row).
// A state of captured layers (State::layers, a learner's own model hooked) is a
// pipeline per layer too, each on its own explicit input and weights
// (captured_layer_state): no residual stream, no logits (attnviz cannot run the
// learner's norms and MLPs between them).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attnviz/pipeline.h"
#include "attnviz/state.h"
#include "attnviz/status.h"
#include "attnviz/tensor.h"

namespace attnviz {

// [SECTION] The model: card and checkpoints

struct HeadScores {
  double previous_token = 0;   // mean of A[i, i-1], i = 1..S-1
  double induction = 0;        // rows with an earlier copy of their token: Σ A[i, j+1] over copies j
  double first_token = 0;      // mean of A[i, 0]
  double duplicate_token = 0;  // rows with an earlier copy of their token: Σ A[i, j] over copies j
};
using LayerScores = std::vector<std::vector<HeadScores>>;  // [layer][head]

struct LayerWeights {  // one layer, in x·W orientation (nn.Linear's weight transposed)
  SharedTensor W_q, W_k, W_v, W_o;  // (D × D)
  SharedTensor b_o;                 // (1 × D)
};

struct Checkpoint {
  int step = 0;
  double loss = 0;             // training loss at that step (the card's)
  LayerScores card_scores;     // head scores on the probe, as the training script measured them
  Tensor tok_emb;              // (V × D)
  Tensor pos_emb;              // (C × D)
  std::vector<LayerWeights> layers;
  Tensor unembed;              // (D × V): logits = x · unembed
};

struct LossPoint {
  int step = 0;
  double loss = 0;
};

struct TrainedModel {
  std::string name;
  std::string summary;
  std::vector<std::string> vocabulary;  // id = index
  std::string start_token;
  int d_model = 0, num_heads = 0, num_layers = 0, context = 0;
  std::vector<std::string> probe;       // the standard probe: start + r + r
  int probe_repeat = 0;                 // n = |r|
  uint64_t probe_seed = 0;              // repeated_tokens(model, n, probe_seed) == probe
  std::vector<LossPoint> loss_curve;
  std::vector<Checkpoint> checkpoints;  // in training order; the last is the shipped model
  int vocab_size() const { return static_cast<int>(vocabulary.size()); }
  int token_id(std::string_view token) const;  // -1 when not in the vocabulary
};
using SharedModel = std::shared_ptr<const TrainedModel>;

// Reads a model from its card (JSON text) and its checkpoints file (.safetensors
// bytes). Checks that the card and the tensors agree (names, shapes, finite);
// a refusal names the field or tensor.
Status load_model(std::string_view card_json, std::string_view checkpoints_bytes, SharedModel* out);

// The models built into attnviz (assets/models, embedded at build time), by
// name; nullptr when there is none. Loaded on first use.
SharedModel find_model(std::string_view name);
std::vector<std::string> model_names();
// True for a built-in model this build knows by name only: the compact embeddable
// build (ATTNVIZ_EMBED) leaves the checkpoints out, and find_model finds nothing.
bool model_left_out(std::string_view name);

// The state that opens `model` on its standard probe at its last checkpoint.
State model_probe_state(const SharedModel& model);
// start + r + r with r = n symbols drawn by torch.manual_seed(seed);
// torch.randperm(V - 1)[:n] + 1 (distinct symbols, never the start token).
std::vector<std::string> repeated_tokens(const TrainedModel& model, int n, uint64_t seed);

// [SECTION] Running it

class LayerStack {
 public:
  LayerStack();
  ~LayerStack();
  LayerStack(const LayerStack&) = delete;
  LayerStack& operator=(const LayerStack&) = delete;

  // As Pipeline::set_state: validates, applies, recomputes what changed; on
  // error keeps the previous result and state.
  Status set_state(State state);
  void track_demand();          // every layer's pipeline (Pipeline::track_demand)
  bool has_result() const;
  const State& state() const;   // the state as given (the model's, for a model)
  bool is_model() const;
  bool is_captured() const;     // a state of captured layers (State::layers)
  int num_layers() const;       // 1 without a model or captured layers
  // A captured layer's name as the state gives it ("transformer.h.0.attn"); empty
  // otherwise (a model's layers, one layer, a captured layer without a name).
  const std::string& layer_name(int l) const;
  const Pipeline& layer(int l) const;  // l clamped to [0, num_layers)

  // Model states only (nullptr otherwise; captured layers have none of these):
  const TrainedModel* model() const;
  const Checkpoint* checkpoint() const;
  const std::vector<int>& token_ids() const;  // (S)
  const Tensor* token_embedding() const;     // (S × D): tok_emb rows of the tokens
  const Tensor* position_embedding() const;  // (S × D): pos_emb rows 0..S-1
  const Tensor* residual(int l) const;       // (S × D): l = 0..L, x_l (x_L after the last layer)
  const Tensor* logits() const;              // (S × V)
  // Cell (i, j) of a stage of layer l (Pipeline::explain); for a model, the
  // layer's input X is explained as the residual stream x_l: x0 = token +
  // position embeddings, x_l = x_{l-1} + layer l − 1's output.
  Explanation explain(int l, Stage stage, int head, int i, int j) const;
  // Changes exactly when residual(l) / logits() change (0 when absent).
  uint64_t residual_version(int l) const;
  uint64_t logits_version() const;

  struct Impl;
 private:
  std::unique_ptr<Impl> impl_;
};

// [SECTION] Reading it

// Head scores of one attention matrix A (S × S, rows are queries) on tokens.
HeadScores score_head(const Tensor& A, const std::vector<std::string>& tokens);
// Every layer's every head, on the stack's current tokens (the weights stage).
LayerScores head_scores(const LayerStack& stack);
// The same on the model's standard probe, with the state's options (a model
// state only; empty otherwise).
LayerScores probe_head_scores(const State& state);

// One of the four scores, by kind (HeadScores' fields, in this order).
enum class HeadScoreKind : int { previous_token = 0, induction, first_token, duplicate_token };
constexpr int kHeadScoreKinds = 4;
double head_score(const HeadScores& s, HeadScoreKind kind);

// The terms behind one score of one head, for explaining it (the Inspector): the
// query rows the score averages over, for each the keys whose weights it adds and
// their sum. value = sum / rows.size(), score_head's value to the last bit (the
// same sums in the same order). Row t's keys are keys[key_begin[t] .. key_begin[t+1]).
//   previous_token  rows 1..S-1, key i-1        first_token      rows 0..S-1, key 0
//   duplicate_token rows whose token appeared before, keys j: its earlier copies
//   induction       the same rows, keys j + 1: what followed each earlier copy
struct HeadScoreTerms {
  HeadScoreKind kind = HeadScoreKind::previous_token;
  int seq_len = 0;                // S
  std::vector<int> rows;          // (n) the query rows i averaged over, ascending
  std::vector<int> key_begin;     // (n + 1) offsets into keys
  std::vector<int> keys;          // the key columns each row adds
  std::vector<double> terms;      // (n) Σ A[i, k] over row i's keys
  double sum = 0;                 // Σ terms
  double value = 0;               // sum / n (0 when n = 0)
};
HeadScoreTerms head_score_terms(const Tensor& A, const std::vector<std::string>& tokens, HeadScoreKind kind);
// The same on the model's standard probe for head `head` of layer `layer`, with the
// state's options (what probe_head_scores averages; a model state only, else empty).
HeadScoreTerms probe_head_score_terms(const State& state, int layer, int head, HeadScoreKind kind);

// The scores of uniform attention on these tokens (each query spreading its weight
// evenly over the keys it may see: 0..i under the causal mask, all S without): the
// chance level a head's score is read against.
HeadScores uniform_head_scores(const std::vector<std::string>& tokens, bool causal);

struct Prediction {
  int id = 0;
  float probability = 0;  // softmax of the logits row, float32
};
// The k likeliest next tokens after position i (a model state only).
std::vector<Prediction> top_predictions(const LayerStack& stack, int i, int k);

// {"layers": [{"heads": [{"previous_token", "induction", "first_token", "duplicate_token"}]}]}
std::string head_scores_text(const LayerScores& scores);
// What `attnviz-cli head-scores` and window.attnviz.headScores() give: the
// scores on the stack's tokens, and for a model state "probe": the same on its probe;
// for captured layers "names": each layer's name (LayerStack::layer_name).
std::string head_scores_report(const LayerStack& stack);

}  // namespace attnviz
