// The Pipeline API facade over Pipeline::Impl. Where the work is done:
//   pipeline_forward.cpp  stage computations, heads' work spaces, compute_everything
//   change_set.cpp        describe_change: what one set_state changes
//   pipeline_apply.cpp    Impl::apply: carries a ChangeSet out
//   pipeline_update.cpp   Updater, update_head, update_tail, Impl::read (lazy mode)
//   rebuild.cpp           Impl::rebuild / reshape / restore (with carry.cpp)
//
// [SECTION] stage levels (the stage table: stages.cpp)
// [SECTION] Pipeline API
#include "attnviz/pipeline.h"

#include <exception>
#include <new>
#include <string>
#include <utility>

#include "attnviz/kernels.h"
#include "pipeline/pipeline_compute.h"
#include "pipeline/pipeline_internal.h"

namespace attnviz {

// ---- [SECTION] stage levels -----------------------------------------------------------

static_assert(static_cast<int>(StageLevel::scores) == detail::kScores &&
                  static_cast<int>(StageLevel::weights) == detail::kWeights &&
                  static_cast<int>(StageLevel::context) == detail::kContext &&
                  static_cast<int>(StageLevel::tail) == detail::kTail,
              "the stage table's levels are the pipeline's");

int detail::stage_level(Stage s) { return static_cast<int>(stage_info(s).level); }

// ---- [SECTION] Pipeline API ---------------------------------------------------------

Pipeline::Pipeline() : impl_(new Impl) {}
Pipeline::~Pipeline() = default;
Pipeline::Pipeline(Pipeline&& other) : impl_(new Impl) { impl_.swap(other.impl_); }
Pipeline& Pipeline::operator=(Pipeline&& other) {
  if (this != &other) {
    std::unique_ptr<Impl> empty(new Impl);
    impl_.swap(other.impl_);
    other.impl_.swap(empty);
  }
  return *this;
}

namespace {

// Runs f (an apply), turning what it throws into a sentence: set_state never throws.
template <class F>
Status guarded_apply(F&& f) {
  try {
    f();
  } catch (const std::bad_alloc&) {
    return Status::refusal(Msg::no_memory_for_state, "tokens");
  } catch (const std::exception& e) {
    return Status::refusal(Msg::could_not_apply, "", {e.what()});
  }
  return Status::success();
}

}  // namespace

// A trained model's state, or one of captured layers, has a pipeline per layer:
// LayerStack (attnviz/model.h) runs it. One pipeline would compute the state's unused
// seeded weights instead.
static Status model_refusal(const State& state) {
  if (state.captured())
    return Status::refusal(Msg::could_not_apply, "layers",
                           {"a state of captured layers runs in a LayerStack (attnviz/model.h), a pipeline per layer"});
  return Status::refusal(Msg::could_not_apply, "model",
                         {"a trained model's state runs in a LayerStack (attnviz/model.h), a pipeline per layer"});
}

Status Pipeline::set_state(const State& state) {
  Status st = validate_state(state);
  if (!st.ok) return st;
  if (state.model.active() || state.captured()) return model_refusal(state);
  return guarded_apply([&] { impl_->apply(State(state)); });  // the copy may run out of memory too
}

Status Pipeline::set_state(State&& state) {
  Status st = validate_state(state);
  if (!st.ok) return st;
  if (state.model.active() || state.captured()) return model_refusal(state);
  return guarded_apply([&] { impl_->apply(std::move(state)); });
}

void Pipeline::track_demand() {
  Impl& im = *impl_;
  im.lazy = true;
  im.read_before.swap(im.read_now);
  im.read_now.assign(im.read_before.size(), 0);
  im.tail_read_before = im.tail_read_now;
  im.tail_read_now = false;
}

bool Pipeline::has_result() const { return impl_->has_result; }
const State& Pipeline::state() const { return impl_->state; }
int Pipeline::seq_len() const { return impl_->has_result ? impl_->plan.S : 0; }
int Pipeline::d_model() const { return impl_->has_result ? impl_->plan.d_model : 0; }
int Pipeline::d_out() const { return impl_->has_result ? impl_->plan.d_out : 0; }
int Pipeline::num_heads() const { return impl_->has_result ? impl_->plan.H : 0; }
int Pipeline::head_dim() const { return impl_->has_result ? impl_->plan.head_dim : 0; }

// scaled and masked of one head, materialised from scores when first asked
// for after they changed (the version they hold is remembered), so the UI's
// pointer stays valid until the next set_state(). dropped without dropout is
// the weights buffer.
const Tensor* Pipeline::matrix(Stage stage, int head) const {
  if (!impl_->has_result) return nullptr;
  const Tensor* t = detail::stage_tensor(impl_->buf, stage, head);
  if (t == nullptr) return nullptr;
  impl_->read(stage, head);
  if (!stage_is_per_head(stage)) return t;
  const detail::Plan& p = impl_->plan;
  detail::HeadBuffers& hb = impl_->buf.heads[static_cast<size_t>(head)];
  const uint64_t v = impl_->versions[static_cast<int>(stage)][head];
  if (stage == Stage::scaled) {
    if (hb.scaled_at != v || hb.scaled.empty()) {
      hb.scaled.reset(p.S, p.S);
      for (int r = 0; r < p.S; ++r) kernels::div_scalar(hb.scores.row(r), 1, hb.scaled.row(r), 1, p.S, p.divisor);
      hb.scaled_at = v;
    }
    return &hb.scaled;
  }
  if (stage == Stage::masked) {
    if (hb.masked_at != v || hb.masked.empty()) {
      hb.masked.reset(p.S, p.S);
      const kernels::MaskRule rule = p.mask(head);
      for (int r = 0; r < p.S; ++r) kernels::masked_row(hb.scores.row(r), hb.masked.row(r), p.S, r, rule);
      hb.masked_at = v;
    }
    return &hb.masked;
  }
  if (stage == Stage::bias) {  // ALiBi: −(m_h · |i − j|), depends on S and the slope only
    if (hb.bias_at != v || hb.bias.empty()) {
      hb.bias.reset(p.S, p.S);
      const float m = p.slopes[static_cast<size_t>(head)];
      for (int i = 0; i < p.S; ++i) {
        for (int j = 0; j < p.S; ++j) hb.bias.at(i, j) = kernels::alibi_bias(m, i, j);
      }
      hb.bias_at = v;
    }
    return &hb.bias;
  }
  if (stage == Stage::dropped) return &detail::dropped_of(p, hb);
  return t;
}

const Tensor* Pipeline::matrix(std::string_view name, int head) const {
  Stage s;
  if (!stage_from_name(name, &s)) return nullptr;
  return matrix(s, head);
}

TensorView Pipeline::head_slice(Stage qkv, int head) const {
  if (!impl_->has_result || head < 0 || head >= impl_->plan.H) return {};
  if (qkv != Stage::Q && qkv != Stage::K && qkv != Stage::V) return {};
  const Tensor& t = qkv == Stage::Q ? impl_->buf.Q : (qkv == Stage::K ? impl_->buf.K : impl_->buf.V);
  const int g = qkv == Stage::Q ? head : impl_->plan.kv_head(head);  // K, V: the K/V head query head h reads
  return t.column_slice(g * impl_->plan.head_dim, impl_->plan.head_dim);
}

uint64_t Pipeline::version(Stage stage, int head) const {
  // stage_tensor, not matrix(): asking for a version must not materialise
  // scaled / masked; a stale stage (lazy mode) is brought up to date, so its
  // version is that of its current contents.
  if (!impl_->has_result || detail::stage_tensor(impl_->buf, stage, head) == nullptr) return 0;
  impl_->read(stage, head);
  return impl_->versions[static_cast<int>(stage)][head];
}

StageUpdate Pipeline::last_update(Stage stage, int head) const {
  if (!impl_->has_result || detail::stage_tensor(impl_->buf, stage, head) == nullptr) return {};
  impl_->read(stage, head);
  return impl_->updates[static_cast<int>(stage)][head];
}

bool Pipeline::current(Stage stage, int head) const {
  const Impl& im = *impl_;
  if (!im.has_result || detail::stage_tensor(im.buf, stage, head) == nullptr) return false;
  const int level = detail::stage_level(stage);
  if (level <= detail::kScores) return true;
  return level == detail::kTail ? im.tail_valid : im.valid[static_cast<size_t>(head)] >= level;
}

bool Pipeline::holds(Stage stage, int head) const {
  if (!impl_->has_result) return false;
  const Tensor* t = detail::stage_tensor(impl_->buf, stage, head);
  return t != nullptr && !t->empty();
}

uint64_t Pipeline::bytes_held() const {
  auto f = [](const Tensor& t) { return static_cast<uint64_t>(t.data.capacity()) * sizeof(float); };
  const detail::Buffers& b = impl_->buf;
  const detail::Params& w = b.params;
  uint64_t n = f(b.X) + f(w.W_q) + f(w.W_k) + f(w.W_v) + f(w.W_o) + f(w.b_q) + f(w.b_k) + f(w.b_v) + f(w.b_o) +
               f(b.Q) + f(b.K) + f(b.V) + f(b.QT) + f(b.KT) + f(b.concat) + f(b.output) + b.keep.capacity() +
               impl_->keep_cache.capacity() + impl_->embedding.table.capacity() * sizeof(float);
  for (const detail::HeadBuffers& hb : b.heads) {
    n += f(hb.q_rot) + f(hb.k_rot) + f(hb.scores) + f(hb.scaled) + f(hb.masked) + f(hb.bias) + f(hb.weights) +
         f(hb.exps) + hb.row_max.capacity() * sizeof(float) + f(hb.dropped) + f(hb.context);
  }
  return n;
}

float Pipeline::divisor() const { return impl_->plan.divisor; }

bool Pipeline::cell_masked(int i, int j, MaskReason* reason) const {
  const detail::Plan& p = impl_->plan;
  const bool causal = p.causal && j > i;
  const bool padded = p.padded() != nullptr && j >= 0 && j < p.S && p.key_padded[j] != 0;
  const bool window = kernels::outside_window(i, j, p.window, p.causal);
  const bool evicted = kernels::evicted(i, j, p.cache_sinks, p.cache_recent);  // never with causal (j < i)
  if (reason != nullptr) {
    *reason = causal && padded    ? MaskReason::causal_and_padding
              : causal            ? MaskReason::causal
              : window && padded  ? MaskReason::window_and_padding
              : evicted && padded ? MaskReason::evicted_and_padding
              : padded            ? MaskReason::padding
              : window            ? MaskReason::window
              : evicted           ? MaskReason::evicted
                                  : MaskReason::none;
  }
  return causal || padded || window || evicted;
}

bool Pipeline::dropout_active() const { return impl_->plan.dropout_active; }
float Pipeline::dropout_scale() const { return impl_->plan.dropout_scale; }

const uint8_t* Pipeline::dropout_keep(int head) const {
  const detail::Plan& p = impl_->plan;
  if (!impl_->has_result || !p.dropout_active || head < 0 || head >= p.H) return nullptr;
  return impl_->buf.keep.data() + static_cast<size_t>(head) * p.S * p.S;
}

}  // namespace attnviz
