// Generation with a KV cache (attnviz/decode.h): one step from the cache, with
// the pipeline's kernels, bit for bit row t of the full causal result.
//
// Why each stage of the step has the full result's bits (kernels.h's contract):
//   * q_t, k_j: RoPE rotates each row by its own position (variants.h,
//     rope_rotate_row); the table of positions 0 … t is the first rows of the
//     table of 0 … S−1 (each entry depends on its position only).
//   * scores: each cell is a float32 dot product accumulated in order
//     k = 0 … head_dim−1 (contract 2), whichever rows or columns are computed
//     with it, so dot_cell(q_t, k_j) is cell (t, j) of Q_h·K_gᵀ.
//   * masked: elementwise (kernels::masked_row under the same MaskRule).
//   * softmax: the only place where the row's length matters. See softmax_step.
//   * dropout: elementwise, with row t of the head's keep mask.
//   * context: the full row sums S terms dropped[j]·V[j] in order j = 0 … S−1;
//     the terms j > t have dropped[j] = +0 (the softmax gave them 0), and an
//     exact zero term never changes the accumulator (contract 2), so the t+1
//     terms of the cache give the same bits (V finite: 0·inf would be NaN).
#include "attnviz/decode.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "attnviz/kernels.h"
#include "attnviz/variants.h"

namespace attnviz {
namespace {

// Rows first … first+n of columns col0 … col0+w of m, into out (n × w).
void copy_block(const Tensor& m, int first, int n, int col0, int w, Tensor* out) {
  out->reset_for_overwrite(n, w);
  for (int r = 0; r < n; ++r)
    std::memcpy(out->row(r), m.row(first + r) + col0, sizeof(float) * static_cast<size_t>(w));
}

// The softmax of the step's row x (live = t+1 entries) into y, with the bits
// of the full causal row t (S entries), which the pipeline computes as
// torch.softmax does (kernels::softmax_row: max, exps, sum_f32_torch, × 1/sum).
//
// The max and the exps are per entry: the masked tail of the full row (keys
// t+1 … S−1, −inf) does not change the max, and its exps are exactly +0. The
// sum is where the length shows: sum_f32_torch adds a row of n >= 8 entries in
// 8 lanes (entry j goes to lane j mod 8, lanes combined (0+4, 1+5, 2+6, 3+7),
// then pairs), but a row of n < 8 entries in order, x0 + x1 + … . So:
//   * t+1 >= 8: the step's own row is summed in lanes, each entry in the lane
//     it has in the full row; the full row's tail only adds +0 to lanes (an
//     exp is >= +0, a lane never −0), which changes nothing: same bits.
//   * S < 8: both rows are summed in order; the tail adds +0 at the end.
//   * t+1 < 8 <= S: the full row is summed in lanes, the short row would be
//     summed in order, and the two orders round differently (e.g. t+1 = 3:
//     (e0 + e2) + e1 against (e0 + e1) + e2). The step pads its exps with +0
//     to 8 entries, which puts each in the lane the full row gives it.
// This is the one thing a decoder must know besides its cache: that the full
// sequence it is compared with has at least 8 keys. (PyTorch decoding with a
// cache sums a short row in order, so its first 7 steps can differ from the
// full forward pass in the last bit.)
//
// A finite mask_fill is a number like any other: the full row's masked tail
// holds it, and its exp is +0 only when it lies far enough below the max (e.g.
// −1e9); *leaks says when it does not, and then the full row differs.
// A row whose max is not finite (every key masked with −inf: NaN, or zeros
// under safe softmax; a NaN or +inf score) is done whole by softmax_row, as
// the pipeline does.
//
// With gpt-oss's sink (kernels.h, Sink) the full row is [x_0 … x_{S−1}, s_h]:
// the sink sits in column S, so in lane S mod 8, not in lane t+1 mod 8 where a
// decoder appending it after its t+1 keys would put it. Sink{s_h, S} sums the
// step's row as the full one, the zeros between standing for the masked tail;
// the sink's exp joins the max, whatever t is. (So here too PyTorch's cached
// decoding of gpt-oss, which concatenates the sink after the t+1 cached keys,
// can differ from its full forward pass in the last bit.) Returns the sink's
// weight (NaN without a sink).
float softmax_step(const float* x, float* y, int live, int S, bool safe, float fill, const kernels::Sink* sink,
                   bool* leaks, float* pad /* (8) */) {
  *leaks = false;
  const int n = (S >= 8 && live < 8 && sink == nullptr) ? 8 : live;  // the entries summed
  float* e = n > live ? pad : y;                                      // (n) the exps
  const float mx = kernels::softmax_exps(x, e, live, sink);
  if (mx - mx != 0.0f) {  // −inf, +inf or NaN
    return kernels::softmax_row(x, y, live, safe, sink);
  }
  if (live < S && std::isfinite(fill))
    *leaks = !(fill < mx) || kernels::exp_f32(fill - mx) != 0.0f;
  std::fill(e + live, e + n, 0.0f);
  const float share = kernels::softmax_normalize(e, e, n, mx, sink);
  if (e != y) std::memcpy(y, e, sizeof(float) * static_cast<size_t>(live));
  return share;
}

}  // namespace

bool decode_step(const Pipeline& p, int head, int t, DecodeStep* out) {
  out->t = -1;
  if (!p.has_result() || head < 0 || head >= p.num_heads() || t < 0 || t >= p.seq_len()) return false;
  const State& s = p.state();
  const int S = p.seq_len(), H = p.num_heads(), hd = p.head_dim();
  const int G = s.kv_heads();
  const int g = kv_head_of(head, H, G);
  const Tensor* Q = p.matrix(Stage::Q);
  const Tensor* K = p.matrix(Stage::K);
  const Tensor* V = p.matrix(Stage::V);
  if (Q == nullptr || K == nullptr || V == nullptr || (g + 1) * hd > K->cols || (g + 1) * hd > V->cols) return false;
  const int live = t + 1;

  DecodeStep& d = *out;
  d.head = head;
  d.kv_head = g;
  d.head_dim = hd;
  d.rope = s.positional == Positional::rope;
  d.divisor = p.divisor();
  d.slope = s.alibi ? alibi_slopes(H)[static_cast<size_t>(head)] : 0.0f;
  d.window = s.window;
  d.window_start = s.window > 0 ? std::max(0, t - s.window + 1) : 0;
  d.sink = s.sinks.enabled;
  d.sink_logit = s.sinks.enabled ? s.sinks.logit(head) : 0.0f;
  d.streaming = s.kv_cache.streaming();
  d.cache_sinks = d.streaming ? s.kv_cache.sink_tokens : 0;
  d.cache_recent = d.streaming ? s.kv_cache.recent : 0;
  d.dropout = p.dropout_active();
  d.differs = s.causal ? DecodeDiffers::no : DecodeDiffers::not_causal;

  // 1–2. The new query and the cache with the new key and value appended. K's
  // and V's row stride is their width (G · head_dim); K/V head g owns columns
  // g·head_dim …. With RoPE every cached key was rotated by its own position
  // when it was appended (the cache holds k_rot), the query by t.
  copy_block(*Q, t, 1, head * hd, hd, &d.query);
  copy_block(*K, 0, live, g * hd, hd, &d.keys);
  copy_block(*V, 0, live, g * hd, hd, &d.values);
  if (d.rope) {
    RopeTable tab;
    rope_table(s.rope.base, hd, live, &tab);
    Tensor raw = d.query;
    rope_rotate_row(s.rope.style, tab, t, raw.row(0), d.query.row(0), hd);
    std::vector<float> k(static_cast<size_t>(hd));
    for (int j = 0; j < live; ++j) {
      std::memcpy(k.data(), d.keys.row(j), sizeof(float) * static_cast<size_t>(hd));
      rope_rotate_row(s.rope.style, tab, j, k.data(), d.keys.row(j), hd);
    }
  }

  // 3. scores (t+1) = q_t · k_j, then scaled, biased and masked under the
  // head's rule, causal whatever the state says (key j > t does not exist).
  d.scores.reset_for_overwrite(1, live);
  for (int j = 0; j < live; ++j) d.scores.data[j] = kernels::dot_cell(d.query.row(0), 1, d.keys.row(j), 1, hd, nullptr);
  std::vector<uint8_t> padded;  // (S) 1 = padded key (the state says 1 = real)
  if (!s.key_padding.empty()) {
    padded.resize(static_cast<size_t>(S));
    for (int j = 0; j < S; ++j) padded[static_cast<size_t>(j)] = s.key_padding[static_cast<size_t>(j)] == 0;
  }
  kernels::MaskRule rule;
  rule.divisor = d.divisor;
  rule.causal = true;
  rule.key_padded = padded.empty() ? nullptr : padded.data();
  rule.fill = static_cast<float>(s.mask_fill);
  rule.window = s.window;
  rule.slope = d.slope;
  rule.cache_sinks = d.cache_sinks;
  rule.cache_recent = d.cache_recent;
  d.masked.reset_for_overwrite(1, live);
  kernels::masked_row(d.scores.row(0), d.masked.row(0), live, t, rule);
  d.key_masked.resize(static_cast<size_t>(live));
  d.key_evicted.resize(static_cast<size_t>(live));
  d.cached = 0;
  for (int j = 0; j < live; ++j) {
    const bool gone = kernels::evicted(t, j, d.cache_sinks, d.cache_recent);
    d.key_evicted[static_cast<size_t>(j)] = gone ? 1 : 0;
    d.key_masked[static_cast<size_t>(j)] = kernels::is_masked(t, j, rule) ? 1 : 0;
    d.cached += gone ? 0 : 1;
  }

  // 4. softmax (see softmax_step), dropout with row t of the head's keep mask.
  d.weights.reset_for_overwrite(1, live);
  float pad[8];
  bool leaks = false;
  const kernels::Sink sink{d.sink_logit, S};
  d.sink_weight = softmax_step(d.masked.row(0), d.weights.row(0), live, S, s.safe_softmax, rule.fill,
                               d.sink ? &sink : nullptr, &leaks, pad);
  if (leaks && d.differs == DecodeDiffers::no) d.differs = DecodeDiffers::fill_leaks;
  d.dropped.reset_for_overwrite(1, live);
  if (d.dropout) {
    const uint8_t* keep = p.dropout_keep(head) + static_cast<size_t>(t) * static_cast<size_t>(S);
    kernels::dropout_row(d.weights.row(0), keep, d.dropped.row(0), live, p.dropout_scale());
  } else {
    d.dropped.data = d.weights.data;
  }

  // 5. context = dropped (1 × (t+1)) · V cache ((t+1) × head_dim).
  d.context.reset_for_overwrite(1, hd);
  const int row0 = 0;
  kernels::matmul_rows(d.dropped.row(0), live, d.values.row(0), hd, nullptr, d.context.row(0), hd, live, hd, &row0, 1);
  d.t = t;
  return true;
}

DecodeStep decode_step(const Pipeline& p, int head, int t) {
  DecodeStep d;
  decode_step(p, head, t, &d);
  return d;
}

namespace {

bool same(const float* a, const float* b, int n) {
  return std::memcmp(a, b, sizeof(float) * static_cast<size_t>(n)) == 0;
}

// Row i of matrix m, columns col0 … col0+n, equals v.
bool row_is(const Tensor* m, int i, int col0, const float* v, int n) {
  return m != nullptr && i < m->rows && col0 + n <= m->cols && same(m->row(i) + col0, v, n);
}

// Entries from … end of row r are +0: the full row's weight on keys the step has not
// seen. A NaN row (every key masked with −inf, no safe softmax; or a NaN / +inf score)
// is NaN there too.
bool tail_zero(const std::vector<float>& r, int from, bool nan_row) {
  for (size_t j = static_cast<size_t>(from); j < r.size(); ++j) {
    const float v = r[j];
    uint32_t u;
    std::memcpy(&u, &v, sizeof u);
    if (u != 0 && !(nan_row && std::isnan(v))) return false;
  }
  return true;
}

// Row t of head h's stage (Pipeline::row: the stored row's bits, and in long mode, where
// no (S × S) matrix is kept, the same row computed) begins with the n values v.
bool stage_row_is(const Pipeline& p, Stage st, int h, int t, const float* v, int n, std::vector<float>* buf) {
  return p.row(st, h, t, buf) && static_cast<int>(buf->size()) >= n && same(buf->data(), v, n);
}

}  // namespace

bool decode_matches_pipeline(const Pipeline& p, const DecodeStep& d) {
  if (!d.valid() || !p.has_result() || d.t >= p.seq_len() || d.head >= p.num_heads()) return false;
  const int t = d.t, h = d.head, hd = d.head_dim, live = t + 1;
  if (d.rope) {
    const Tensor* qr = p.matrix(Stage::q_rot, h);
    const Tensor* kr = p.matrix(Stage::k_rot, h);
    if (!row_is(qr, t, 0, d.query.row(0), hd)) return false;
    for (int j = 0; j < live; ++j)
      if (!row_is(kr, j, 0, d.keys.row(j), hd)) return false;
  } else {
    if (!row_is(p.matrix(Stage::Q), t, h * hd, d.query.row(0), hd)) return false;
    for (int j = 0; j < live; ++j)
      if (!row_is(p.matrix(Stage::K), j, d.kv_head * hd, d.keys.row(j), hd)) return false;
  }
  for (int j = 0; j < live; ++j)
    if (!row_is(p.matrix(Stage::V), j, d.kv_head * hd, d.values.row(j), hd)) return false;
  std::vector<float> r;
  if (!stage_row_is(p, Stage::scores, h, t, d.scores.row(0), live, &r)) return false;
  if (!stage_row_is(p, Stage::masked, h, t, d.masked.row(0), live, &r)) return false;
  if (!stage_row_is(p, Stage::weights, h, t, d.weights.row(0), live, &r) ||
      !tail_zero(r, live, std::isnan(d.weights.data[0])))
    return false;
  if (!stage_row_is(p, Stage::dropped, h, t, d.dropped.row(0), live, &r) ||
      !tail_zero(r, live, std::isnan(d.dropped.data[0])))
    return false;
  return stage_row_is(p, Stage::context, h, t, d.context.row(0), hd, &r);
}

KvCacheBytes kv_cache_bytes(const State& s) {
  KvCacheBytes b;
  b.S = s.seq_len();
  b.H = s.num_heads;
  b.G = s.kv_heads();
  b.head_dim = s.head_dim();
  b.window = s.window;
  const uint64_t kFloat = 4;  // float32
  b.per_token_bytes = 2 * static_cast<uint64_t>(b.G) * static_cast<uint64_t>(b.head_dim) * kFloat;
  b.bytes = static_cast<uint64_t>(b.S) * b.per_token_bytes;
  b.mha_bytes = 2 * static_cast<uint64_t>(b.S) * static_cast<uint64_t>(b.H) * static_cast<uint64_t>(b.head_dim) * kFloat;
  const uint64_t kept = b.window > 0 ? static_cast<uint64_t>(std::min(b.S, b.window)) : static_cast<uint64_t>(b.S);
  b.window_bytes = kept * b.per_token_bytes;
  b.sink_tokens = s.kv_cache.sink_tokens;
  b.recent = s.kv_cache.recent;
  b.streaming_bytes = static_cast<uint64_t>(streaming_kept(b.S - 1, b.sink_tokens, b.recent)) * b.per_token_bytes;
  return b;
}

int streaming_kept(int t, int sink_tokens, int recent) {
  if (t < 0) return 0;
  // j < k and t − j < w: disjoint once t + 1 > k + w (then t − w + 1 > k − 1), else every key.
  const long long all = static_cast<long long>(t) + 1;
  return static_cast<int>(std::min<long long>(all, static_cast<long long>(sink_tokens) + recent));
}

uint64_t kv_cache_bytes_at(const KvCacheBytes& b, int t, bool streaming) {
  const int keys = streaming ? streaming_kept(t, b.sink_tokens, b.recent) : t + 1;
  return static_cast<uint64_t>(std::max(0, keys)) * b.per_token_bytes;
}

}  // namespace attnviz
