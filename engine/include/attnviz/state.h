// attnviz/state.h: the session state, one versioned schema for the CLI, the
// UI, URL sharing and file import/export ("version": 1).
//
// Every JSON field is optional; an empty object {} is tutorial 000's set-up
// ("Once upon a time there", nn.Embedding(5, 4) and torch.rand weights, both
// seed 123, one head, scaled by √head_dim). docs/engine.md lists every field,
// its default and the PyTorch code it stands for.
//
// The JSON side (parse_state, state_to_json) is attnviz/state_json.h: what reads
// or writes files, links and the CLI includes it; the app's edits never need it.
//
// parse_state() checks JSON types and names (unknown fields are errors, so a
// typo never goes unnoticed) and then calls validate_state(), which checks the
// meaning: shapes, divisibility, ranges and the limits below. A State built or
// edited in code (the UI does that) goes through validate_state() when it is
// handed to Pipeline::set_state().
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attnviz/status.h"
#include "attnviz/tensor.h"

namespace attnviz {

// Limits: a state beyond them is refused with a sentence, never allocated.
struct Limits {
  static constexpr int kStateVersion = 1;
  static constexpr int kMaxTokens = 32768;      // S (above kMaxFullTokens: long mode)
  // Above this many tokens a pipeline keeps no (S × S) buffer (Pipeline::long_mode).
  static constexpr int kMaxFullTokens = 2048;
  static constexpr int kMaxDModel = 4096;       // d_model
  static constexpr int kMaxDOut = 4096;         // d_out
  static constexpr int kMaxHeads = 64;          // num_heads
  static constexpr size_t kMaxTokenBytes = 256; // UTF-8 bytes per token
  // Everything the pipeline keeps for one state (inputs, parameters, every
  // stage of every head, the dropout mask, scratch) must fit in this many
  // bytes: e.g. S = 2048 with 12 heads fits, S = 2048 with 64 heads does not.
  static constexpr uint64_t kMaxPipelineBytes = uint64_t{1536} << 20;  // 1.5 GiB
  static constexpr double kMinTemperature = 1e-6;
  static constexpr double kMaxTemperature = 1e6;
  static constexpr int kMaxWindow = 1 << 20;    // window (a window ≥ S masks nothing)
  // JSON nesting (objects and lists inside each other). A state needs 6
  // (state → layers → layer → weights → W_q → row); deeper text is refused while it is parsed,
  // before anything recursive could exhaust the stack (5 MiB in wasm).
  static constexpr int kMaxJsonDepth = 32;
  // Captured layers (State::layers): how many, and a layer's name in UTF-8 bytes.
  // Every layer is a pipeline of its own, so kMaxPipelineBytes bounds them together.
  static constexpr int kMaxLayers = 64;
  static constexpr size_t kMaxLayerNameBytes = 256;
};

enum class EmbeddingInit { torch_randn, values };
enum class WeightInit { torch_linear, torch_rand, values };
enum class WeightLayout { fused, per_head };
enum class Positional { none, sinusoidal, rope };
enum class RopeStyle { half, interleaved };
enum class ScaleMode { head_dim, d_out, none };

struct EmbeddingSpec {
  EmbeddingInit init = EmbeddingInit::torch_randn;
  uint64_t seed = 123;  // torch.manual_seed(seed); negative seeds s are kept as 2^64 + s
  SharedTensor values;  // (S × d_model), used when init == values
};

struct WeightSpec {
  WeightInit init = WeightInit::torch_rand;
  uint64_t seed = 123;
  WeightLayout layout = WeightLayout::fused;  // only torch_linear uses it
  // Explicit values (init == values), in x·W orientation (nn.Linear's weight
  // transposed). Only the ones the flags need are read and validated.
  // Shared between the copies of a State (SharedTensor, attnviz/tensor.h).
  SharedTensor W_q, W_k, W_v;  // (d_model × d_out) each
  SharedTensor W_o;            // (d_out × d_out), when out_proj
  SharedTensor b_q, b_k, b_v;  // (1 × d_out) each, when qkv_bias
  SharedTensor b_o;            // (1 × d_out), when out_proj and out_bias
};

struct DropoutSpec {
  double p = 0.0;         // 0 <= p <= 1
  bool training = false;  // false: dropout is the identity, like module.eval()
  uint64_t seed = 123;    // torch.manual_seed(seed) right before the dropout call
};

// Rotary positions (positional == rope): inv_freq[k] = 1 / base^(2k / head_dim),
// angle = position · inv_freq[k]; `half` rotates the pairs (k, k + head_dim/2)
// (rotate_half: GPT-NeoX, Llama), `interleaved` the pairs (2k, 2k + 1) (GPT-J,
// RoFormer). Kept when positional is not rope, so switching back restores it.
struct RopeSpec {
  double base = 10000.0;  // θ, positive, within float32's range
  RopeStyle style = RopeStyle::half;
};

// gpt-oss's attention sinks: a learned logit s_h per head joins every row of
// head h's masked scores as one more column before the softmax, and that
// column is dropped after it, so each row of weights sums to less than 1
// (torch.softmax(torch.cat([masked, s_h], -1), -1)[..., :-1]; kernels.h, Sink).
// Kept when off, so switching back restores the values.
struct SinkSpec {
  bool enabled = false;
  std::vector<float> values;  // (num_heads) s_h, finite; empty: 0 for every head
  float logit(int h) const { return values.empty() ? 0.0f : values[static_cast<size_t>(h)]; }
};

// The KV cache a decoder keeps (the Decode tab; docs/engine.md "KV cache and
// decoding"). `full` keeps every key (what a state without this field does).
// `streaming_llm` is StreamingLLM's (Xiao et al. 2023, "Efficient Streaming
// Language Models with Attention Sinks"): the first sink_tokens keys stay, the
// middle is evicted, and the most recent `recent` keys (the query's own among
// them) roll. At original positions that is a mask: key j is masked for query
// i when j >= sink_tokens and i − j >= recent (kernels.h, MaskRule). The two
// numbers are kept while the policy is full.
enum class CachePolicy { full, streaming_llm };
struct KvCacheSpec {
  CachePolicy policy = CachePolicy::full;
  int sink_tokens = 4;  // k: the paper's 4 initial tokens ("attention sinks"); 0 … kMaxWindow
  int recent = 4;       // w: the rolling window of the latest keys; 1 … kMaxWindow
  bool streaming() const { return policy == CachePolicy::streaming_llm; }
};

// A trained model the state runs (attnviz/model.h): its token embeddings,
// learned positions and every layer's weights come from the model, the state's
// tokens are words of its vocabulary, and each layer is this pipeline with
// explicit weights, its input the residual stream. JSON: "model": {"name", "step"}.
struct TrainedModel;
struct ModelSpec {
  std::string name;     // empty: no model (a single attention layer, as always)
  int checkpoint = 0;   // index into the model's checkpoints (JSON gives its step)
  std::shared_ptr<const TrainedModel> model;  // found by name (model.h, find_model)
  bool active() const { return !name.empty(); }
};

// One attention layer captured from a learner's own model (JSON "layers": [...];
// docs/engine.md, "Captured layers"): the module's input hidden states, hooked,
// and its weights. Both are explicit values (embedding.init and weights.init are
// `values`); the sizes and every option are the state's, shared by all layers.
struct CapturedLayer {
  std::string name;         // the module's name ("transformer.h.0.attn"); may be empty
  EmbeddingSpec embedding;  // values: (S × d_model), the layer's input X
  WeightSpec weights;       // values: W_q, W_k, W_v (d_model × d_out) ..., x·W orientation
};

struct State {
  int version = Limits::kStateVersion;
  std::vector<std::string> tokens = {"Once", "upon", "a", "time", "there"};  // S of them
  int d_model = 4;
  int d_out = 4;
  int num_heads = 1;  // must divide d_out; head_dim = d_out / num_heads
  EmbeddingSpec embedding;
  Positional positional = Positional::none;
  RopeSpec rope;          // read when positional == rope
  int num_kv_heads = 0;   // K/V heads G (GQA; 1 = MQA); 0: num_heads of them (plain MHA)
  WeightSpec weights;
  bool qkv_bias = false;  // b_q, b_k, b_v
  bool out_proj = false;  // output = concat · W_o (+ b_o); else output = concat
  bool out_bias = true;   // b_o, when out_proj (nn.Linear's default bias=True)
  ScaleMode scale = ScaleMode::head_dim;
  double temperature = 1.0;  // scaled = scores / (divisor × temperature)
  bool causal = false;
  std::vector<uint8_t> key_padding;  // empty: no padding; else (S), 1 = real key, 0 = padded key
  double mask_fill = -std::numeric_limits<double>::infinity();  // "-inf" or a float32-range number
  bool safe_softmax = false;
  bool alibi = false;     // per-head linear bias −m_h·|i − j| added to scaled before the mask
  int window = 0;         // sliding window: key j masked for query i when i − j ≥ window
                          // (and j − i ≥ window without the causal mask); 0: no window
  SinkSpec sinks;         // gpt-oss's per-head sink logits (off by default)
  KvCacheSpec kv_cache;   // the decoder's KV cache: full, or StreamingLLM's (a mask at original positions)
  DropoutSpec dropout;
  ModelSpec model;        // a trained model (its sizes, weights, embeddings), or none
  // Captured layers: L ≥ 1 independent attention layers, each with its own input and
  // weights (then `embedding` and `weights` above are unused, and not written); empty:
  // one layer, from `embedding` and `weights`. Never together with a model.
  std::vector<CapturedLayer> layers;

  int seq_len() const { return static_cast<int>(tokens.size()); }
  int head_dim() const { return num_heads > 0 ? d_out / num_heads : 0; }
  int kv_heads() const { return num_kv_heads > 0 ? num_kv_heads : num_heads; }  // G
  int kv_dim() const { return kv_heads() * head_dim(); }  // width of K and V: G · head_dim
  bool captured() const { return !layers.empty(); }
};

// Layer l of a state of captured layers, as a one-layer state: s's options with
// layer l's input and weights as its explicit embedding and weights (shared, not
// copied) and no layers. What LayerStack runs for layer l. l is clamped to the layers.
State captured_layer_state(const State& s, int l);

// After an edit of num_heads (the Heads control, weights import): the fields
// sized by the heads follow, so the edit is never refused for their sake.
// num_kv_heads goes back to 0 (one K/V head per head) when it no longer
// divides num_heads; explicit sink logits are cut or padded with 0 to
// num_heads (left as they are while num_heads is out of range). Nothing else changes.
void fit_to_heads(State* s);

// The meaning checks parse_state() ends with; Pipeline::set_state() runs it too.
Status validate_state(const State& s);

// Same meaning: equal exactly when state_to_json(a) == state_to_json(b), found
// without building either. Explicit matrices count only where the flags use
// them (as in the JSON); one shared by both (SharedTensor) is equal unread,
// others are compared bit for bit. What the app decides "changed" with, on
// every edit, so it must never cost a state's text.
bool operator==(const State& a, const State& b);
inline bool operator!=(const State& a, const State& b) { return !(a == b); }

// Bytes the pipeline will hold for s (what kMaxPipelineBytes bounds).
uint64_t estimate_pipeline_bytes(const State& s);

// Names used in JSON, messages and docs.
const char* scale_mode_name(ScaleMode m);
const char* positional_name(Positional p);
const char* rope_style_name(RopeStyle r);
const char* weight_init_name(WeightInit w);
const char* weight_layout_name(WeightLayout l);
const char* cache_policy_name(CachePolicy c);  // "full", "streaming_llm"

}  // namespace attnviz
