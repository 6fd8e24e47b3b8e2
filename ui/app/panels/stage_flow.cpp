// stage_flow.cpp: see stage_flow.h. Pure: no ImGui, no allocation. The words are
// translated (i18n.h tr), the formulas and PyTorch calls stay as written.
#include "app/panels/stage_flow.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/text/i18n.h"

namespace attnviz::ui {

static bool padding_in_force(const State& s) {
  for (uint8_t k : s.key_padding)
    if (k == 0) return true;
  return false;
}

static void fill_text(const State& s, char* buf, size_t n) {
  if (std::isinf(s.mask_fill)) std::snprintf(buf, n, "\xE2\x88\x92inf");  // −inf
  else std::snprintf(buf, n, "%g", s.mask_fill);
}

// "4" for 4, "1.4142" for √2: the shortest of %g that is still exact enough to read.
static void num(double v, char* buf, size_t n) {
  std::snprintf(buf, n, "%.5g", v);
}

static int scaled_op(const State& s, float divisor, char* buf, size_t n) {
  char root[24], div[24], t[24];
  num(divisor, div, sizeof div);
  num(s.temperature, t, sizeof t);
  const bool temp = s.temperature != 1.0;
  if (s.scale == ScaleMode::none)
    return temp ? std::snprintf(buf, n, tr("\xC3\xB7 temperature %s (no \xE2\x88\x9A scaling)"), t)
                : std::snprintf(buf, n, "%s", tr("\xC3\xB7 1: no scaling (same as scores)"));
  const bool hd = s.scale == ScaleMode::head_dim;
  const int d = hd ? s.head_dim() : s.d_out;
  num(std::sqrt((double)d), root, sizeof root);
  if (temp)
    return std::snprintf(buf, n, tr("\xC3\xB7 (\xE2\x88\x9A%s \xC3\x97 temperature) = \xE2\x88\x9A%d \xC3\x97 %s = %s"),
                         hd ? "head_dim" : "d_out", d, t, div);
  return std::snprintf(buf, n, NO_TR("\xC3\xB7 \xE2\x88\x9A%s = \xE2\x88\x9A%d = %s"), hd ? "head_dim" : "d_out", d, root);
}

// The window's rule in the mask's words: "i − j ≥ 3" (causal: the keys before are
// the only ones left) or "|i − j| ≥ 3" (both sides without the causal mask).
static void window_rule(const State& s, char* buf, size_t n) {
  if (s.causal) std::snprintf(buf, n, "i \xE2\x88\x92 j \xE2\x89\xA5 %d", s.window);
  else std::snprintf(buf, n, "|i \xE2\x88\x92 j| \xE2\x89\xA5 %d", s.window);
}

// StreamingLLM's eviction in the mask's words: "j ≥ 4 and i − j ≥ 8" (neither one of
// the first 4 keys nor one of the last 8).
static void evicted_rule(const State& s, char* buf, size_t n) {
  std::snprintf(buf, n, tr("evicted: j \xE2\x89\xA5 %d and i \xE2\x88\x92 j \xE2\x89\xA5 %d"), s.kv_cache.sink_tokens,
                s.kv_cache.recent);
}

// `where` or'ed with one more rule (nothing before: the rule alone).
static void or_rule(char* where, size_t n, const char* rule) {
  char before[200];
  std::snprintf(before, sizeof before, "%s", where);
  if (*before) std::snprintf(where, n, tr("%s or %s"), before, rule);
  else std::snprintf(where, n, "%s", rule);
}

static int masked_op(const State& s, char* buf, size_t n) {
  const bool pad = padding_in_force(s);
  const bool win = s.window > 0;
  const bool evict = s.kv_cache.streaming();
  const char* plus = s.alibi ? "+ bias, " : "";  // ALiBi's bias joins scaled before the mask
  if (!s.causal && !pad && !win && !evict)
    return s.alibi ? std::snprintf(buf, n, "%s", NO_TR("scaled + bias")) : std::snprintf(buf, n, "%s", tr("no mask"));
  char f[24], rule[80], where[200];
  fill_text(s, f, sizeof f);
  const char* base = s.causal && pad ? tr("j > i or key j padded") : s.causal ? NO_TR("j > i") : pad ? tr("key j padded") : "";
  std::snprintf(where, sizeof where, "%s", base);
  if (win) {
    window_rule(s, rule, sizeof rule);
    or_rule(where, sizeof where, rule);
  }
  if (evict) {
    evicted_rule(s, rule, sizeof rule);
    or_rule(where, sizeof where, rule);
  }
  return std::snprintf(buf, n, NO_TR("%smasked_fill(%s, %s)"), plus, where, f);
}

// The softmax, with gpt-oss's sink of `head` when sinks are on.
static int weights_op(const State& s, char* buf, size_t n, int head) {
  if (s.sinks.enabled && head >= 0 && head < s.num_heads) {
    char v[24];
    num(s.sinks.logit(head), v, sizeof v);
    return std::snprintf(buf, n, tr("softmax over the row and the sink s_%d = %s, the sink's column dropped"), head, v);
  }
  return std::snprintf(buf, n, "%s",
                       s.safe_softmax ? tr("softmax(dim=-1), all-masked rows \xE2\x86\x92 0") : NO_TR("softmax(dim=-1)"));
}

static int dropped_op(const State& s, char* buf, size_t n) {
  char p[24], k[24];
  num(s.dropout.p, p, sizeof p);
  if (!s.dropout.training) return std::snprintf(buf, n, tr("dropout p = %s, eval mode"), p);
  if (s.dropout.p <= 0.0) return std::snprintf(buf, n, "%s", tr("dropout p = 0 (train)"));
  if (s.dropout.p >= 1.0) return std::snprintf(buf, n, "%s", tr("dropout p = 1 (train): every weight dropped"));
  num(1.0 / (double)(float)(1.0 - s.dropout.p), k, sizeof k);
  return std::snprintf(buf, n, tr("dropout p = %s (train): kept \xC3\x97 1/(1\xE2\x88\x92p) = %s"), p, k);
}

bool stage_present(const State& s, Stage stage) {
  switch (stage_info(stage).when) {
    case StageWhen::rope: return s.positional == Positional::rope;
    case StageWhen::alibi: return s.alibi;
    default: return true;
  }
}

int flow_cards(const State& s) {
  int k = 1;
  for (int i = 0; i < kStageCount; ++i) {
    const StageInfo& info = stage_table()[i];
    if (info.per_head && info.stage != Stage::k_rot && stage_present(s, info.stage)) ++k;
  }
  return k;
}

Stage flow_stage(const State& s, int k) {
  if (k <= 0) return Stage::Q;
  for (int i = 0, seen = 0; i < kStageCount; ++i) {
    const StageInfo& info = stage_table()[i];
    if (!info.per_head || info.stage == Stage::k_rot || !stage_present(s, info.stage)) continue;
    if (++seen == k) return info.stage;
  }
  return Stage::Q;
}

// get_slopes(n) of ofirpress/attention_with_linear_biases: for a power of two n,
// start = 2^(−2^−(log2 n − 3)) and m_h = start^(h+1); otherwise the slopes of the
// power of two c below n, then every other slope of 2c.
static double slopes_power_of_2(int n, int h) {
  const double start = std::pow(2.0, -std::pow(2.0, -(std::log2((double)n) - 3.0)));
  return start * std::pow(start, (double)h);
}
float flow_alibi_slope(int h, int H) {
  if (H <= 0 || h < 0 || h >= H) return 0.0f;
  int c = 1;
  while (c * 2 <= H) c *= 2;
  return (float)(h < c ? slopes_power_of_2(c, h) : slopes_power_of_2(2 * c, 2 * (h - c)));
}

static int kv_head_shown(const State& s, int head) {
  const int H = std::max(s.num_heads, 1), G = std::max(s.kv_heads(), 1);
  return H % G == 0 ? head / (H / G) : 0;
}

static int rope_op(const State& s, char* buf, size_t n) {
  char b[32];
  std::snprintf(b, sizeof b, "%.10g", s.rope.base);  // 500000 as Llama 3's rope_theta, not 5e+05
  return std::snprintf(buf, n,
                       s.rope.style == RopeStyle::half
                           ? tr("rotate by position: \xCE\xB8 = p \xC2\xB7 %s^(\xE2\x88\x92" "2k/head_dim), pairs (k, k + head_dim/2) (rotate_half)")
                           : tr("rotate by position: \xCE\xB8 = p \xC2\xB7 %s^(\xE2\x88\x92" "2k/head_dim), pairs (2k, 2k + 1) (interleaved)"),
                       b);
}

static int scores_op(const State& s, char* buf, size_t n, int head) {
  const char* qk = s.positional == Positional::rope ? NO_TR("q_rot \xC2\xB7 k_rot\xE1\xB5\x80")
                                                    : s.kv_heads() != s.num_heads ? NO_TR("Q_h \xC2\xB7 K_g\xE1\xB5\x80")
                                                                                  : NO_TR("Q_h \xC2\xB7 K_h\xE1\xB5\x80");
  if (s.kv_heads() == s.num_heads) return std::snprintf(buf, n, "%s", qk);
  return std::snprintf(buf, n, tr("%s, K/V head g = h / (H/G) = %d / (%d/%d) = %d"), qk, head, s.num_heads, s.kv_heads(),
                       kv_head_shown(s, head));
}

int flow_op(const State& s, float divisor, Stage stage, char* buf, size_t n, int head) {
  switch (stage) {
    case Stage::Q:
      if (s.kv_heads() != s.num_heads)
        return std::snprintf(buf, n, tr("X \xC2\xB7 W_q, W_k, W_v%s: this head's columns of Q, K/V head %d's of K and V"),
                             s.qkv_bias ? " (+ b)" : "", kv_head_shown(s, head));
      return std::snprintf(buf, n, tr("X \xC2\xB7 W_q, W_k, W_v%s: this head's columns"), s.qkv_bias ? " (+ b)" : "");
    case Stage::q_rot:
    case Stage::k_rot: return rope_op(s, buf, n);
    case Stage::scores: return scores_op(s, buf, n, head);
    case Stage::bias: {
      char m[24];
      num(flow_alibi_slope(head, s.num_heads), m, sizeof m);
      return std::snprintf(buf, n, tr("+ ALiBi bias \xE2\x88\x92m_h\xC2\xB7|i \xE2\x88\x92 j|, m_h = %s"), m);
    }
    case Stage::scaled: return scaled_op(s, divisor, buf, n);
    case Stage::masked: return masked_op(s, buf, n);
    case Stage::weights: return weights_op(s, buf, n, head);
    case Stage::dropped: return dropped_op(s, buf, n);
    case Stage::context:  // V_g under GQA / MQA: the K/V head's values
      return std::snprintf(buf, n, s.kv_heads() != s.num_heads ? NO_TR("%s \xC2\xB7 V_g") : NO_TR("%s \xC2\xB7 V_h"),
                           stage_name(s.dropout.training && s.dropout.p > 0 ? Stage::dropped : Stage::weights));
    default: return std::snprintf(buf, n, "%s", stage_name(stage));
  }
}

const char* flow_identity(const State& s, Stage stage) {
  switch (stage) {
    case Stage::scaled:
      return s.scale == ScaleMode::none && s.temperature == 1.0 ? tr("no scaling: same as scores") : "";
    case Stage::masked:
      return !s.causal && !padding_in_force(s) && s.window <= 0 && !s.alibi && !s.kv_cache.streaming()
                 ? tr("no mask: same as scaled")
                 : "";
    case Stage::dropped:
      if (!s.dropout.training) return tr("eval mode: identity, same as weights");
      return s.dropout.p <= 0.0 ? tr("p = 0: identity, same as weights") : "";
    default: return "";
  }
}

int flow_torch(const State& s, Stage stage, char* buf, size_t n) {
  switch (stage) {
    case Stage::Q:
    {  // The code as written, its comments in the interface's language (a line each).
      const int k = std::snprintf(buf, n, tr("queries = x @ W_query%s   # likewise keys, values"),
                                  s.qkv_bias ? " + b_query" : "");
      if (k < 0 || (size_t)k >= n) return k;
      return k + std::snprintf(buf + k, n - (size_t)k, "\n%s",
                               tr("queries = queries.view(S, num_heads, head_dim).transpose(0, 1)  # head h: queries[h]"));
    }
    case Stage::q_rot:
    case Stage::k_rot:
      return std::snprintf(buf, n, "%s",
                           s.rope.style == RopeStyle::half
                               ? "queries = queries * cos + rotate_half(queries) * sin  # likewise keys\n"
                                 "# rotate_half(x) = torch.cat((-x[..., d//2:], x[..., :d//2]), dim=-1)"
                               : "queries = queries * cos + rotate_every_two(queries) * sin  # likewise keys\n"
                                 "# rotate_every_two(x): (x0, x1) -> (-x1, x0) for each pair");
    case Stage::scores:
      if (s.kv_heads() != s.num_heads)
        return std::snprintf(buf, n,
                             "keys = keys.repeat_interleave(num_heads // num_kv_heads, dim=0)  # likewise values (Llama's repeat_kv)\n"
                             "attn_scores = queries @ keys.transpose(-2, -1)");
      return std::snprintf(buf, n, "attn_scores = queries @ keys.transpose(-2, -1)");
    case Stage::bias:
      return std::snprintf(buf, n,
                           "slopes = torch.tensor(get_slopes(num_heads))\n"
                           "attn_scores = attn_scores + slopes[h] * -(i - j).abs()  # i, j: query, key positions");
    case Stage::scaled:
      if (s.scale == ScaleMode::none) return std::snprintf(buf, n, "attn_scores = attn_scores / temperature");
      return std::snprintf(buf, n, "attn_scores = attn_scores / %s ** 0.5%s",
                           s.scale == ScaleMode::head_dim ? "keys.shape[-1]" : "d_out",
                           s.temperature != 1.0 ? " / temperature" : "");
    case Stage::masked:
      if (s.kv_cache.streaming())  // StreamingLLM's cache at original positions (issue 36)
        return std::snprintf(buf, n,
                             "i, j = torch.arange(S)[:, None], torch.arange(S)[None, :]\n"
                             "evicted = (j >= sink_tokens) & (i - j >= recent)  # sink_tokens = %d, recent = %d\n"
                             "attn_scores = attn_scores.masked_fill(%sevicted, -torch.inf)",
                             s.kv_cache.sink_tokens, s.kv_cache.recent, s.causal ? "(j > i) | " : "");
      if (s.window > 0)
        return std::snprintf(buf, n,
                             "i, j = torch.arange(S)[:, None], torch.arange(S)[None, :]\n"
                             "mask = %s(i - j >= sliding_window)%s  # sliding_window = %d\n"
                             "attn_scores = attn_scores.masked_fill(mask, -torch.inf)",
                             s.causal ? "(j > i) | " : "", s.causal ? "" : " | (j - i >= sliding_window)", s.window);
      return std::snprintf(buf, n,
                           "mask = torch.triu(torch.ones(S, S), diagonal=1).bool()\n"
                           "attn_scores = attn_scores.masked_fill(mask, -torch.inf)");
    case Stage::weights:
      if (s.sinks.enabled)  // gpt-oss: the sink joins each row as one more column, dropped after
        return std::snprintf(buf, n,
                             "sink = sinks[h].expand(S, 1)  # gpt-oss: one learned logit per head\n"
                             "probs = torch.softmax(torch.cat([attn_scores, sink], dim=-1), dim=-1)\n"
                             "attn_weights = probs[..., :-1]  # the sink's column dropped");
      return std::snprintf(buf, n, "attn_weights = torch.softmax(attn_scores, dim=-1)");
    case Stage::dropped:
      return std::snprintf(buf, n, "dropout = nn.Dropout(%g); dropout.%s()\nattn_weights = dropout(attn_weights)",
                           s.dropout.p, s.dropout.training ? "train" : "eval");
    case Stage::context: return std::snprintf(buf, n, "context_vec = attn_weights @ values");
    default: return std::snprintf(buf, n, "%s", stage_name(stage));
  }
}

// Each key is the English text; the catalogue adds the tutorials' term (i18n.h).
static const char* per_head_term(Stage stage) {
  switch (stage) {
    case Stage::Q: return tr("Q h%d");
    case Stage::K: return tr("K h%d");
    case Stage::V: return tr("V h%d");
    case Stage::q_rot: return tr("q_rot h%d");
    case Stage::k_rot: return tr("k_rot h%d");
    case Stage::scores: return tr("scores h%d");
    case Stage::bias: return tr("bias h%d");
    case Stage::scaled: return tr("scaled h%d");
    case Stage::masked: return tr("masked h%d");
    case Stage::weights: return tr("weights h%d");
    case Stage::dropped: return tr("dropped h%d");
    case Stage::context: return tr("context h%d");
    default: return nullptr;
  }
}

static const char* shared_term(Stage stage) {
  switch (stage) {
    case Stage::X: return tr("X");
    case Stage::Q: return tr("Q");
    case Stage::K: return tr("K");
    case Stage::V: return tr("V");
    case Stage::concat: return tr("concat");
    case Stage::output: return tr("output");
    default: return stage_name(stage);  // parameters: W_q, b_o, ... read the same everywhere
  }
}

int stage_term(Stage stage, int head, char* buf, size_t n) {
  const char* f = head >= 0 ? per_head_term(stage) : nullptr;
  return f ? std::snprintf(buf, n, f, head) : std::snprintf(buf, n, "%s", shared_term(stage));
}

// What an S×S map shows in a box: decimals printed and cell area.
struct Fit {
  int decimals = -1;
  float cell = 0;
  bool scroll = false;
  float header_h = 0;
};
static Fit fit_square(const FlowIn& in, float box_w, float box_h) {
  HeatmapLayoutIn sq = in.square;
  sq.avail_w = box_w;
  sq.avail_h = box_h > 0 ? box_h - in.card_head_h : 0.0f;
  HeatmapLayout lay = heatmap_layout(sq);
  HeatmapDetail d = heatmap_detail(sq, lay, lay.cell_w, lay.cell_h);
  return Fit{d.decimals, lay.cell_w * lay.cell_h, lay.scroll, lay.header_h};
}

// Whether the Q, K, V card's three S × head_dim maps print values in a box this wide
// (row labels on the first only; values like "-2.1"). Only asked for heads of up to
// 16 dimensions: wider heads' columns are drawn as a picture, as any large matrix.
static bool qkv_values_fit(const FlowIn& in, float box_w) {
  if (in.head_dim <= 0 || in.head_dim > 16) return true;
  const HeatmapLayoutIn& sq = in.square;
  const float col = 4.0f * sq.value_char_w + sq.value_pad;
  const float labels = std::min(sq.row_label_w, sq.label_cap) + 6.0f;
  return labels + 2.0f * in.qkv_gap + 3.0f * (float)in.head_dim * col <= box_w;
}

constexpr float kMinSide = 4.0f;  // px: below this a map with no values still scrolls

FlowOut flow_layout(const FlowIn& in) {
  FlowOut best;
  best.box_w = in.w;
  // Ranks: 3 = values with every card in view, 2 = values with the tab scrolling,
  // 1 = cells in view without values (long sequences). Compared: decimals first
  // when View → Decimals asks for a number, then rank, then decimals, then larger
  // cells (ranks 3 and 1) or more cards per row, so less scrolling (rank 2).
  double best_key = -1;
  const int cards = std::clamp(in.cards, 1, kFlowCardsMax);
  for (int cols = 1; cols <= cards; ++cols) {
    const int rows = (cards + cols - 1) / cols;
    const float box_w = (in.w - in.gutter * (float)(cols - 1)) / (float)cols;
    const float box_h = (in.h - in.vgap * (float)(rows - 1)) / (float)rows;
    if (box_w < 60.0f && cols > 1) break;
    Fit inview = fit_square(in, box_w, box_h), free = fit_square(in, box_w, 0);
    if (!qkv_values_fit(in, box_w)) inview.decimals = free.decimals = -1;
    int rank;
    Fit f;
    if (inview.decimals >= 0 && !inview.scroll) rank = 3, f = inview;
    else if (free.decimals >= 0) rank = 2, f = free;
    else rank = 1, f = inview;
    float used_h = box_h;
    if (rank == 1 && f.cell < kMinSide * kMinSide && !in.overview) {
      // Long sequences: cells of at least kMinSide px, the tab scrolling, rather than
      // every map in view as a speck.
      const float want_h = in.card_head_h + f.header_h + in.square.bar_h + kMinSide * (float)in.square.rows;
      Fit g = fit_square(in, box_w, want_h);
      if (g.cell > f.cell) f = g, used_h = want_h;
    }
    double tie = rank == 2 ? (double)cols : std::min((double)std::round(std::sqrt(f.cell) * 4) / 4 * 1e3 + cols, 1e5);
    double key = (double)rank * 1e8 + (double)(f.decimals + 1) * 1e6 + tie;
    if (in.prefer_all_decimals) key += 1e9 * (double)(f.decimals + 1);
    if (key > best_key) {
      best_key = key;
      best.cols = cols;
      best.box_w = box_w;
      // Scrolling anyway: rows a line of digits tall, not square, so less scrolls.
      const float line = std::max(in.square.line_h + 4.0f, in.square.value_h + 8.0f);
      best.box_h = rank == 2 ? in.card_head_h + f.header_h + in.square.bar_h + line * (float)in.square.rows : used_h;
      best.decimals = f.decimals;
    }
  }
  return best;
}

}  // namespace attnviz::ui
