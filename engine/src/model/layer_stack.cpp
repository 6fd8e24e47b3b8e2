// LayerStack: a state's attention layer, a trained model's layers one after the
// other with the residual stream between them, or a state's captured layers side by
// side, each on its own input (attnviz/model.h).
#include "attnviz/model.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <atomic>
#include <cstring>
#include <numeric>
#include <utility>

#include "attnviz/kernels.h"

namespace attnviz {

namespace {

std::atomic<uint64_t> g_stamp{1};
uint64_t next_stamp() { return g_stamp.fetch_add(1, std::memory_order_relaxed); }

// dst = src (a buffer the stack keeps), with a new version when its bits change.
void keep(Tensor&& src, Tensor* dst, uint64_t* version) {
  const bool same = dst->rows == src.rows && dst->cols == src.cols &&
                    kernels::same_bytes(dst->data.data(), src.data.data(), src.size() * sizeof(float));
  *dst = std::move(src);
  if (!same) *version = next_stamp();
}

}  // namespace

struct LayerStack::Impl {
  // The state as given. Without a model the only layer's pipeline holds it
  // (explicit matrices can be megabytes: no second copy); `top` is used with one.
  State top;
  bool model_on = false;
  bool captured_on = false;             // top.layers: a pipeline a captured layer
  std::vector<Pipeline> layers;         // one per layer
  std::vector<int> ids;                 // (S)
  Tensor tok, pos;                      // (S × D) each
  std::vector<Tensor> residual;         // L + 1 of (S × D)
  std::vector<uint64_t> residual_ver;   // L + 1
  Tensor logits;                        // (S × V)
  uint64_t logits_ver = 0;
  bool lazy = false;

  const Checkpoint& ckpt() const {
    return top.model.model->checkpoints[static_cast<size_t>(top.model.checkpoint)];
  }
  Status run_model();
  Status run_captured();
  State layer_state(int l) const;
  void resize_layers(int L);
};

// L pipelines (lazy mode carried); the ones kept keep their results, so an edit of
// one captured layer recomputes that layer only.
void LayerStack::Impl::resize_layers(int L) {
  if (static_cast<int>(layers.size()) == L) return;
  layers.resize(static_cast<size_t>(L));
  if (lazy) {
    for (Pipeline& p : layers) p.track_demand();
  }
}

// Every captured layer's pipeline on its own state (captured_layer_state): each
// compares its input and weights with what it ran before and recomputes only that.
Status LayerStack::Impl::run_captured() {
  resize_layers(static_cast<int>(top.layers.size()));
  for (size_t l = 0; l < layers.size(); ++l) {
    const Status st = layers[l].set_state(captured_layer_state(top, static_cast<int>(l)));
    if (!st.ok) return st;
  }
  return Status::success();
}

// Layer l's own state: the model state's options, the residual stream x_l as
// its explicit input, the checkpoint's weights (shared, not copied).
State LayerStack::Impl::layer_state(int l) const {
  State s = top;
  s.model = ModelSpec{};
  s.embedding.init = EmbeddingInit::values;
  s.embedding.values = residual[static_cast<size_t>(l)];
  const LayerWeights& w = ckpt().layers[static_cast<size_t>(l)];
  s.weights.init = WeightInit::values;
  s.weights.W_q = w.W_q;
  s.weights.W_k = w.W_k;
  s.weights.W_v = w.W_v;
  s.weights.W_o = w.W_o;
  s.weights.b_o = w.b_o;
  return s;
}

Status LayerStack::Impl::run_model() {
  const TrainedModel& m = *top.model.model;
  const Checkpoint& k = ckpt();
  const int S = top.seq_len(), D = m.d_model, V = m.vocab_size(), L = m.num_layers;
  ids.resize(static_cast<size_t>(S));
  for (int i = 0; i < S; ++i) ids[static_cast<size_t>(i)] = m.token_id(top.tokens[static_cast<size_t>(i)]);
  tok.reset_for_overwrite(S, D);
  pos.reset_for_overwrite(S, D);
  Tensor x0(S, D);
  for (int i = 0; i < S; ++i) {
    std::memcpy(tok.row(i), k.tok_emb.row(ids[static_cast<size_t>(i)]), sizeof(float) * static_cast<size_t>(D));
    std::memcpy(pos.row(i), k.pos_emb.row(i), sizeof(float) * static_cast<size_t>(D));
    for (int c = 0; c < D; ++c) x0.at(i, c) = tok.at(i, c) + pos.at(i, c);  // tok_emb(ids) + pos_emb(arange(S))
  }
  residual.resize(static_cast<size_t>(L + 1));
  residual_ver.resize(static_cast<size_t>(L + 1), 0);
  keep(std::move(x0), &residual[0], &residual_ver[0]);
  if (static_cast<int>(layers.size()) != L) {
    layers = std::vector<Pipeline>(static_cast<size_t>(L));
    if (lazy) {
      for (Pipeline& p : layers) p.track_demand();
    }
  }
  for (int l = 0; l < L; ++l) {
    const Status st = layers[static_cast<size_t>(l)].set_state(layer_state(l));
    if (!st.ok) return st;
    const Tensor* out = layers[static_cast<size_t>(l)].matrix(Stage::output);  // (S × D)
    const Tensor& x = residual[static_cast<size_t>(l)];
    Tensor next(S, D);
    for (size_t e = 0; e < next.data.size(); ++e) next.data[e] = x.data[e] + out->data[e];  // x + attn(x)
    keep(std::move(next), &residual[static_cast<size_t>(l + 1)], &residual_ver[static_cast<size_t>(l + 1)]);
  }
  // logits = x_L · W_U (nn.Linear(D, V, bias=False)), every row.
  Tensor lg(S, V);
  std::vector<int> rows(static_cast<size_t>(S));
  std::iota(rows.begin(), rows.end(), 0);
  const Tensor& xl = residual[static_cast<size_t>(L)];
  kernels::matmul_rows(xl.data.data(), D, k.unembed.data.data(), V, nullptr, lg.data.data(), V, D, V, rows.data(), S);
  keep(std::move(lg), &logits, &logits_ver);
  return Status::success();
}

LayerStack::LayerStack() : impl_(std::make_unique<Impl>()) { impl_->layers.resize(1); }
LayerStack::~LayerStack() = default;

Status LayerStack::set_state(State state) {
  Impl& I = *impl_;
  if (!state.model.active() && !state.captured()) {
    if (I.model_on || I.captured_on || I.layers.size() != 1) {
      // From a model back to one layer: a fresh pipeline (its lazy mode carried).
      std::vector<Pipeline> one(1);
      if (I.lazy) one[0].track_demand();
      const Status st = one[0].set_state(std::move(state));
      if (!st.ok) return st;
      I.layers = std::move(one);
      I.model_on = false;
      I.captured_on = false;
      I.top = State{};
      return st;
    }
    return I.layers[0].set_state(std::move(state));
  }
  const Status st = validate_state(state);
  if (!st.ok) return st;
  if (state.captured()) {
    if (I.model_on) I.layers.clear();  // a model's pipelines ran other weights: start afresh
    I.top = std::move(state);
    I.model_on = false;
    I.captured_on = true;
    return I.run_captured();
  }
  if (I.captured_on) I.layers.clear();
  I.top = std::move(state);
  I.model_on = true;
  I.captured_on = false;
  return I.run_model();
}

void LayerStack::track_demand() {
  impl_->lazy = true;
  for (Pipeline& p : impl_->layers) p.track_demand();
}

bool LayerStack::has_result() const { return impl_->model_on || impl_->layers[0].has_result(); }
const State& LayerStack::state() const {
  return impl_->model_on || impl_->captured_on ? impl_->top : impl_->layers[0].state();
}
bool LayerStack::is_model() const { return impl_->model_on; }
bool LayerStack::is_captured() const { return impl_->captured_on; }
const std::string& LayerStack::layer_name(int l) const {
  static const std::string kNone;
  const State& s = impl_->top;
  if (!impl_->captured_on || l < 0 || l >= static_cast<int>(s.layers.size())) return kNone;
  return s.layers[static_cast<size_t>(l)].name;
}
int LayerStack::num_layers() const { return static_cast<int>(impl_->layers.size()); }
const Pipeline& LayerStack::layer(int l) const {
  const int n = num_layers();
  return impl_->layers[static_cast<size_t>(std::max(0, std::min(l, n - 1)))];
}

const TrainedModel* LayerStack::model() const { return impl_->model_on ? impl_->top.model.model.get() : nullptr; }
const Checkpoint* LayerStack::checkpoint() const { return impl_->model_on ? &impl_->ckpt() : nullptr; }
const std::vector<int>& LayerStack::token_ids() const { return impl_->ids; }
const Tensor* LayerStack::token_embedding() const { return impl_->model_on ? &impl_->tok : nullptr; }
const Tensor* LayerStack::position_embedding() const { return impl_->model_on ? &impl_->pos : nullptr; }
const Tensor* LayerStack::residual(int l) const {
  if (!impl_->model_on || l < 0 || l >= static_cast<int>(impl_->residual.size())) return nullptr;
  return &impl_->residual[static_cast<size_t>(l)];
}
const Tensor* LayerStack::logits() const { return impl_->model_on ? &impl_->logits : nullptr; }
uint64_t LayerStack::residual_version(int l) const {
  if (!impl_->model_on || l < 0 || l >= static_cast<int>(impl_->residual.size())) return 0;
  return impl_->residual_ver[static_cast<size_t>(l)];
}
namespace {
std::string cell_text(float v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6f", static_cast<double>(v));
  return b;
}
}  // namespace

Explanation LayerStack::explain(int l, Stage stage, int head, int i, int j) const {
  Explanation e = layer(l).explain(stage, head, i, j);
  if (!is_model() || stage != Stage::X || !e.ok) return e;
  l = std::max(0, std::min(l, num_layers() - 1));
  const std::string I = std::to_string(i), J = std::to_string(j);
  if (l == 0) {
    e.formula_id = Formula::x_model_embedding;
    e.formula_args = {I, J, impl_->top.tokens[static_cast<size_t>(i)], cell_text(impl_->tok.at(i, j)),
                      cell_text(impl_->pos.at(i, j))};
  } else {
    const Tensor* out = layer(l - 1).matrix(Stage::output);
    e.formula_id = Formula::x_residual;
    e.formula_args = {I, J, std::to_string(l), std::to_string(l - 1), cell_text(impl_->residual[static_cast<size_t>(l - 1)].at(i, j)),
                      cell_text(out->at(i, j))};
  }
  e.formula = msg_format(formula_template(e.formula_id), e.formula_args);
  return e;
}

uint64_t LayerStack::logits_version() const { return impl_->model_on ? impl_->logits_ver : 0; }

}  // namespace attnviz
