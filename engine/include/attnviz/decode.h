// attnviz/decode.h: generation with a KV cache, one token at a time.
//
// A decoder produces token t after tokens 0 … t−1. It keeps the keys and values
// of the tokens so far (the KV cache: PyTorch's `past_key_values` in HF
// transformers, one (K, V) pair per layer) and at step t
//   1. projects the new token: q_t, k_t, v_t (rotated by position t with RoPE:
//      the cache holds k_rot, rotated once, when it was appended);
//   2. appends k_t, v_t to the cache: keys and values 0 … t;
//   3. scores row (t+1 entries) = q_t · k_j, scaled (÷ divisor × temperature),
//      ALiBi's bias added, masked (padding; keys that left the sliding window);
//   4. weights row = softmax(scores row), dropout under training;
//   5. context row = weights row · V cache.
// decode_step() does exactly that from the pipeline's inputs (Q, K, V of the
// current result, read through the public API) with the pipeline's kernels, and
// its every number is bit for bit row t of the full causal result (the
// pipeline's q_rot / scores / masked / weights / dropped / context); decode.cpp
// explains why, the softmax's summation order in particular, and docs/engine.md
// ("KV cache and decoding") says it in words.
//
// Decoding is causal by nature: key j > t does not exist yet at step t. A state
// without the causal mask is still decoded (as if causal) and the step says the
// full result's row t differs (`full_row_differs`): the full result lets query
// t read later keys too. The Decode view shows that sentence instead of the
// equality.
#pragma once

#include <cstdint>
#include <vector>

#include "attnviz/pipeline.h"
#include "attnviz/state.h"
#include "attnviz/tensor.h"

namespace attnviz {

// Why the full result's row t is not this step (when it is not).
enum class DecodeDiffers : uint8_t {
  no,          // bit for bit row t of the full result
  not_causal,  // the state has no causal mask: the full row also weighs keys after t
  fill_leaks,  // a finite mask_fill whose exp is not 0 against the row's max: the full
               // row gives the masked future keys weight (try −inf or −1e9)
};

struct DecodeStep {
  int t = -1;             // the step (query position); -1: no step (no result, t or head out of range)
  int head = 0;           // query head h
  int kv_head = 0;        // the K/V head it reads, g = h / (H / G)
  int head_dim = 0;
  bool rope = false;      // the query and keys are rotated (q_rot, k_rot)
  float divisor = 1.0f;   // scores are divided by it (√head_dim × temperature, …)
  float slope = 0.0f;     // ALiBi's m_h (0: no bias)
  int window = 0;         // sliding window (0: none)
  int window_start = 0;   // the first key inside the window: max(0, t − window + 1)
  bool sink = false;      // gpt-oss's sink logit joins the softmax (sink_logit, its weight sink_weight)
  float sink_logit = 0.0f;
  float sink_weight = 0.0f;  // the sink's share of the row: 1 − Σ weights, as torch's dropped column holds it
  bool streaming = false; // StreamingLLM's cache: keys neither among the first cache_sinks nor the last
  int cache_sinks = 0;    //   cache_recent are evicted (key_evicted), masked in the row
  int cache_recent = 0;
  int cached = 0;         // keys in the cache at this step: t+1, or min(t+1, k + w) under StreamingLLM
  bool dropout = false;   // dropout active (training, p > 0)
  DecodeDiffers differs = DecodeDiffers::no;

  Tensor query;    // (1 × head_dim)      q_t (q_rot row t with RoPE, else Q_h row t)
  Tensor keys;     // ((t+1) × head_dim)  the K cache of head g after appending row t (k_rot with RoPE)
  Tensor values;   // ((t+1) × head_dim)  the V cache of head g after appending row t
  Tensor scores;   // (1 × (t+1))         q_t · k_j
  Tensor masked;   // (1 × (t+1))         scores / divisor (+ bias), masked keys = mask_fill
  Tensor weights;  // (1 × (t+1))         softmax of masked
  Tensor dropped;  // (1 × (t+1))         dropout(weights); equal to weights without dropout
  Tensor context;  // (1 × head_dim)      dropped · V cache
  std::vector<uint8_t> key_masked;  // (t+1) 1 = key j masked (padding, outside the window, or evicted)
  std::vector<uint8_t> key_evicted; // (t+1) 1 = key j evicted from StreamingLLM's cache (its K, V rows are
                                    //   no longer held: kept here, masked, so the row keeps the full row's columns)

  bool valid() const { return t >= 0; }
  bool full_row_differs() const { return differs != DecodeDiffers::no; }
};

// Step t of query head `head` from the pipeline's current result. Reuses out's
// buffers; a few small scratch vectors (the padding mask, RoPE's table of
// positions 0 … t, ALiBi's slopes) are made per call, so call it when the state,
// head or t changes, not per frame. Returns false (and out->t = -1) without a
// result or with head / t out of range.
// Reads Q, K, V (and the dropout keep mask); never q_rot, k_rot or the stages
// it reproduces, so a test can compare them honestly.
bool decode_step(const Pipeline& p, int head, int t, DecodeStep* out);
DecodeStep decode_step(const Pipeline& p, int head, int t);

// Whether every row of the step equals row t of the pipeline's stages bitwise
// (q_rot and k_rot rows 0 … t with RoPE, Q_h / K_g / V_g rows otherwise;
// scores, masked, weights, dropped and context: the first t+1 entries of row t
// (all of context's), and the rest of weights / dropped row t is +0).
// Reads those stages (in lazy mode that computes them). For the Decode view's
// "equals row t" line and the tests.
bool decode_matches_pipeline(const Pipeline& p, const DecodeStep& d);

// The KV cache of one layer in float32 (4 bytes a number), for S tokens:
//   bytes        = 2 · S · G · head_dim · 4   (K and V, G = num_kv_heads)
//   mha_bytes    = 2 · S · H · head_dim · 4   (what plain multi-head attention keeps)
//   window_bytes = 2 · min(S, window) · G · head_dim · 4  (a rolling cache, as Mistral's:
//                  only the last `window` keys can be read again); = bytes without a window
//   streaming_bytes = 2 · min(S, k + w) · G · head_dim · 4  (StreamingLLM's cache of the
//                  first k = sink_tokens and the last w = recent keys, kv_cache's numbers
//                  whatever its policy)
struct KvCacheBytes {
  int S = 0, H = 0, G = 0, head_dim = 0, window = 0;
  int sink_tokens = 0, recent = 0;  // the state's kv_cache numbers (k, w)
  uint64_t bytes = 0;
  uint64_t mha_bytes = 0;
  uint64_t window_bytes = 0;
  uint64_t streaming_bytes = 0;
  uint64_t per_token_bytes = 0;  // 2 · G · head_dim · 4: what one more token adds
};
KvCacheBytes kv_cache_bytes(const State& s);
// Keys StreamingLLM's cache holds at step t: |{j <= t : j < k or t − j < w}| = min(t + 1, k + w).
int streaming_kept(int t, int sink_tokens, int recent);
// The cache's bytes at step t (t + 1 tokens so far): full, or StreamingLLM's.
uint64_t kv_cache_bytes_at(const KvCacheBytes& b, int t, bool streaming);

}  // namespace attnviz
