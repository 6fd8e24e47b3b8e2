// panel_decode.cpp: the Decode tab, generation with a KV cache. At step t the
// new token's query row, the K and V caches with its row appended, the scores,
// masked and weights rows and the context row; a line saying whether that is
// row t of the full causal result bit for bit; and the cache's size in bytes
// beside what plain multi-head attention would keep. The cache's policy is
// chosen here: full, or StreamingLLM's (the first k keys and the last w; the
// evicted ones are drawn as absent, their bytes counted), and with gpt-oss's
// sinks the row's sink share is said under the weights.
//
// The engine computes every number (attnviz/decode.h); this file keeps the step
// in a DecodeCache, recomputed when the state, the head or t changes (never per
// frame: FrameBudget wants no allocation in a steady frame), and draws it.
//
// [SECTION] index
//   DecodeCache     the step, the comparison, the cache sizes and their sentences
//   Controls        step slider with ◀ ▶ and ←/→, head, the cache's policy, the tokens so far
//   Maps            query, K cache, V cache, the rows
//   Cache size      bytes for this set-up, MHA's, the window's, as numbers and bars
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

#include "app/model/app_model.h"
#include "app/widgets/fonts.h"
#include "app/widgets/heatmap_layout.h"
#include "app/text/i18n.h"
#include "app/widgets/item_registry.h"
#include "app/panels/panels.h"
#include "attnviz/decode.h"
#include "imgui.h"
#include "imgui_internal.h"  // ImGui::SetKeyOwner: ← → belong to the step, not to navigation

namespace attnviz::ui {

// [SECTION] DecodeCache -----------------------------------------------------------------

struct DecodeCache {
  // What the step below was computed for.
  ResultKey result;
  int head = -1, t = -1, lang_gen = -1;
  int fonts_gen = -1;               // g_fonts.generation key_label_w was measured with (a CJK font
                                    // arriving after the step changes every width)
  bool computed = false;
  uint64_t serial = 0;              // changes with every recompute: the maps' version

  DecodeStep step;                  // decode.h
  bool matches = false;             // decode_matches_pipeline: every row is row t of the full result
  KvCacheBytes bytes;
  std::vector<std::string> keys;    // (t+1) tokens 0 … t: the caches' rows, the rows' columns
  std::vector<std::string> query;   // (1) token t: the one-row maps' row label
  float key_label_w = 0;            // the widest of keys, as drawn (the one-row maps' label band)
  float panel_h = 0;                // the cache size panel's height last frame
  float key_u0 = 0;                 // where the rows over the keys are scrolled to (they scroll together)
  // Sentences in the interface's language, made with the step (tr_args allocates).
  std::string equality;             // "= row t of the full causal result …" or why not
  std::string appended;             // "Row t (token) is appended to both caches …"
  std::string bytes_line, mha_line, saving_line, window_line;
  std::string cache_line;           // StreamingLLM: which keys the cache holds at this step
  std::string streaming_line;       // StreamingLLM: its bytes at this step against the full cache's
  std::string sink_line;            // gpt-oss's sink: its share of the row
  char bar_this[64] = "", bar_mha[64] = "", bar_window[64] = "", bar_streaming[64] = "";
  std::vector<uint8_t> cache_absent;  // ((t+1) × head_dim) 1 on the rows of evicted keys (the K and V caches)
  std::vector<uint8_t> row_absent;    // (1 × (t+1)) 1 on the evicted keys' columns (the rows over the keys)
};

namespace {

// "160 B", "2.5 KiB", "128 MiB", "1.5 GiB".
void format_bytes(uint64_t b, char* out, size_t n) {
  if (b < 1024) {
    std::snprintf(out, n, "%" PRIu64 " B", b);
    return;
  }
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b) / 1024.0;
  int u = 0;
  while (v >= 1024.0 && u < 3) {
    v /= 1024.0;
    ++u;
  }
  std::snprintf(out, n, v < 10 ? "%.2f %s" : (v < 100 ? "%.1f %s" : "%.0f %s"), v, units[u]);
}

std::string bytes_text(uint64_t b) {
  char buf[32];
  format_bytes(b, buf, sizeof buf);
  return buf;
}

// The sentences of the step and of the cache sizes (on a change only).
void word(DecodeCache& c, const State& s) {
  const DecodeStep& d = c.step;
  const std::string t = std::to_string(d.t);
  if (d.differs == DecodeDiffers::not_causal) {
    c.equality = tr_args("Decoding is causal: at step {0} the keys after {0} do not exist yet. This state has no "
                         "causal mask, so row {0} of the full result also weighs later keys and differs from this "
                         "step. Turn on Causal mask to compare.",
                         {t});
  } else if (d.differs == DecodeDiffers::fill_leaks) {
    char fill[32];
    std::snprintf(fill, sizeof fill, "%g", s.mask_fill);
    c.equality = tr_args("mask_fill = {0} is not far enough below this row's largest score: its exp is not 0, so "
                         "the full result gives the masked later keys some weight and its row {1} differs from "
                         "this step. Use -inf (or -1e9).",
                         {fill, t});
  } else if (c.matches) {
    c.equality = tr_args("= row {0} of the full causal result, bit for bit: the query, the caches and the scores, "
                         "masked, weights and context rows equal the Stages tab's (compared with memcmp).",
                         {t});
  } else {
    c.equality = tr_args("This step does not equal row {0} of the full result bit for bit: the full pipeline "
                         "computes something else for this set-up.",
                         {t});
  }
  const std::string tok = c.query.empty() ? std::string() : c.query[0];
  c.appended = d.t == 0 ? tr_args("Step 0: row 0 ({0}) starts both caches.", {tok})
                        : tr_args("Row {0} ({1}) is appended to both caches; rows 0–{2} were cached at earlier steps "
                                  "and are not computed again.",
                                  {t, tok, std::to_string(d.t - 1)});
  const KvCacheBytes& b = c.bytes;
  const std::string S = std::to_string(b.S), G = std::to_string(b.G), H = std::to_string(b.H),
                    hd = std::to_string(b.head_dim);
  c.bytes_line = tr_args("KV cache per layer: 2 × S × G × head_dim × 4 bytes = 2 × {0} × {1} × {2} × 4 = {3}",
                         {S, G, hd, bytes_text(b.bytes)});
  c.mha_line = tr_args("MHA (a K/V head per query head, G = H = {0}): 2 × {1} × {0} × {2} × 4 = {3}",
                       {H, S, hd, bytes_text(b.mha_bytes)});
  if (b.G == b.H) {
    c.saving_line = tr("Plain multi-head attention: G = H, nothing saved. Set K/V heads below Heads (GQA) or to 1 "
                       "(MQA) to shrink the cache.");
  } else {
    char pct[16];
    std::snprintf(pct, sizeof pct, "%.1f%%", 100.0 * (1.0 - static_cast<double>(b.bytes) / b.mha_bytes));
    c.saving_line = b.G == 1 ? tr_args("MQA (one K/V head for all {0} query heads) saves {1} of the cache.", {H, pct})
                             : tr_args("GQA ({0} query heads share {2} K/V heads) saves {1} of the cache.", {H, pct, G});
  }
  c.cache_line.clear();
  c.streaming_line.clear();
  if (d.streaming) {
    const std::string k = std::to_string(d.cache_sinks), w = std::to_string(d.cache_recent);
    const std::string kept = std::to_string(d.cached), all = std::to_string(d.t + 1);
    c.cache_line = d.cached == d.t + 1
                       ? tr_args("StreamingLLM keeps the first {0} keys and the last {1}: at step {2} all {3} are "
                                 "still cached.",
                                 {k, w, t, all})
                       : tr_args("StreamingLLM keeps the first {0} keys and the last {1}: {3} of the {4} at step {2}; "
                                 "the evicted ones are drawn empty and weigh 0 (original positions).",
                                 {k, w, t, kept, all});
    c.streaming_line = tr_args("Step {0}: the full cache holds {1} tokens = {2}; StreamingLLM's {3} = {4}, never "
                               "more than k + w = {5}.",
                               {t, all, bytes_text(kv_cache_bytes_at(b, d.t, false)), kept,
                                bytes_text(kv_cache_bytes_at(b, d.t, true)),
                                std::to_string(static_cast<long long>(d.cache_sinks) + d.cache_recent)});
  }
  c.sink_line.clear();
  if (d.sink) {
    char logit[32], share[32], rest[32];
    std::snprintf(logit, sizeof logit, "%.4g", d.sink_logit);
    std::snprintf(share, sizeof share, "%.4f", d.sink_weight);
    std::snprintf(rest, sizeof rest, "%.4f", 1.0 - static_cast<double>(d.sink_weight));
    c.sink_line = tr_args("gpt-oss's sink s_{0} = {1} joins the softmax as one more column and is dropped: it takes "
                          "{2} of row {3}, so the weights above sum to {4}.",
                          {std::to_string(d.head), logit, share, t, rest});
  }
  c.window_line.clear();
  if (b.window > 0)
    c.window_line = tr_args("Sliding window of {0}: a rolling cache keeps only the last {1} keys (Mistral): "
                            "2 × {1} × {2} × {3} × 4 = {4}",
                            {std::to_string(b.window), std::to_string(std::min(b.S, b.window)), G, hd,
                             bytes_text(b.window_bytes)});
  char n[32];
  format_bytes(b.bytes, n, sizeof n);
  std::snprintf(c.bar_this, sizeof c.bar_this, "%s  %s", tr("this set-up"), n);
  format_bytes(b.mha_bytes, n, sizeof n);
  std::snprintf(c.bar_mha, sizeof c.bar_mha, "MHA  %s", n);
  format_bytes(b.window_bytes, n, sizeof n);
  std::snprintf(c.bar_window, sizeof c.bar_window, "%s  %s", tr("window"), n);
  format_bytes(kv_cache_bytes_at(b, d.t, true), n, sizeof n);
  std::snprintf(c.bar_streaming, sizeof c.bar_streaming, "StreamingLLM  %s", n);
}

// The evicted keys as absent cells: rows of the K and V caches, columns of the rows.
void mark_absent(DecodeCache& c) {
  const DecodeStep& d = c.step;
  const int live = d.t + 1, hd = d.head_dim;
  c.cache_absent.clear();
  c.row_absent.clear();
  if (!d.streaming || d.cached == live) return;
  c.cache_absent.assign(static_cast<size_t>(live) * static_cast<size_t>(hd), 0);
  c.row_absent.assign(static_cast<size_t>(live), 0);
  for (int j = 0; j < live; ++j) {
    if (!d.key_evicted[static_cast<size_t>(j)]) continue;
    c.row_absent[static_cast<size_t>(j)] = 1;
    std::fill_n(c.cache_absent.begin() + static_cast<ptrdiff_t>(j) * hd, hd, uint8_t{1});
  }
}

DecodeCache& cache_of(AppModel& m) {
  if (!m.decode_cache) m.decode_cache = std::make_shared<DecodeCache>();
  return *m.decode_cache;
}

// Brings the step up to date with the state, the head and t (cheap checks per frame).
void update(AppModel& m, DecodeCache& c, int head, int t) {
  const ResultKey key = m.result_key();
  if (c.computed && c.result == key && c.head == head && c.t == t && c.lang_gen == language_generation() &&
      c.fonts_gen == g_fonts.generation)
    return;
  const Pipeline& p = m.engine.pipeline();
  decode_step(p, head, t, &c.step);
  c.matches = c.step.valid() && decode_matches_pipeline(p, c.step);
  c.bytes = kv_cache_bytes(p.state());
  const auto& toks = m.engine.tokens();
  c.keys.assign(toks.begin(), toks.begin() + std::min<size_t>(toks.size(), static_cast<size_t>(t) + 1));
  c.query.assign(1, t < static_cast<int>(toks.size()) ? toks[static_cast<size_t>(t)] : std::string());
  c.key_label_w = 0;
  for (const std::string& k : c.keys) c.key_label_w = std::max(c.key_label_w, ImGui::CalcTextSize(k.c_str()).x);
  word(c, p.state());
  mark_absent(c);
  c.result = key;
  c.head = head;
  c.t = t;
  c.lang_gen = language_generation();
  c.fonts_gen = g_fonts.generation;
  c.computed = true;
  ++c.serial;
}

// [SECTION] Controls --------------------------------------------------------------------

// ◀ [step slider] ▶, and ←/→ while the Views window has the focus (Shift+arrows stay the
// cell cursor's, help.cpp). Returns the step.
int step_controls(AppModel& m, int S) {
  const bool was_last = m.decode_len > 0 && m.view.decode_t == m.decode_len - 1;  // a token added: follow it
  int t = m.view.decode_t < 0 || m.view.decode_t >= S || was_last ? S - 1 : m.view.decode_t;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr("Step t"));
  ImGui::SameLine();
  if (ImGui::ArrowButton("##decode prev", ImGuiDir_Left)) t = std::max(0, t - 1);
  item_register("Decode previous");
  ImGui::SameLine(0, 4);
  ImGui::SetNextItemWidth(std::clamp(ImGui::GetContentRegionAvail().x * 0.3f, 120.0f, 360.0f));
  ImGui::SliderInt("##decode step", &t, 0, S - 1, "t = %d");
  item_register("Decode step");
  ImGui::SameLine(0, 4);
  if (ImGui::ArrowButton("##decode next", ImGuiDir_Right)) t = std::min(S - 1, t + 1);
  item_register("Decode next");
  const ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) && !io.WantTextInput && !io.KeyCtrl &&
      !io.KeyShift && !io.KeyAlt && !ImGui::IsAnyItemActive()) {
    // The step owns ← and → here: keyboard navigation reads only keys nobody owns, so
    // the arrows no longer also walk the navigation cursor along the tab bar (where a
    // Space then switched tabs). Ownership set now holds from the next frame on.
    const ImGuiID owner = ImGui::GetID("decode arrows");
    ImGui::SetKeyOwner(ImGuiKey_LeftArrow, owner);
    ImGui::SetKeyOwner(ImGuiKey_RightArrow, owner);
    if (ImGui::IsKeyPressed(ImGuiKey_LeftArrow)) t = std::max(0, t - 1);
    if (ImGui::IsKeyPressed(ImGuiKey_RightArrow)) t = std::min(S - 1, t + 1);
  }
  m.view.decode_t = t;
  m.decode_len = S;
  return t;
}

// The query head (the Stages tab's, m.view.head) and the K/V head it reads.
void head_controls(AppModel& m, const DecodeStep& d) {
  const int H = m.engine.num_heads();
  if (H > 1) {
    ImGui::SameLine(0, 20);
    char preview[32], widest[32];
    std::snprintf(preview, sizeof preview, tr("head %d"), m.view.head);
    std::snprintf(widest, sizeof widest, tr("head %d"), 88);
    ImGui::SetNextItemWidth(ImGui::CalcTextSize(widest).x + ImGui::GetFrameHeight() * 2);
    if (ImGui::BeginCombo(L("Head"), preview)) {
      for (int h = 0; h < H; ++h) {
        char name[32];
        std::snprintf(name, sizeof name, tr("head %d"), h);
        if (ImGui::Selectable(name, m.view.head == h)) m.view.head = h;
      }
      ImGui::EndCombo();
    }
    item_register("Decode head");
  }
  if (d.valid() && d.kv_head != d.head) {
    ImGui::SameLine(0, 12);
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled(tr("reads K/V head %d"), d.kv_head);
  }
}

// The cache's policy: full, or StreamingLLM's first k and last w keys (state.kv_cache; an
// edit of the state like any other, so it is undone, shared and exported with it).
void cache_controls(AppModel& m) {
  State& d = m.draft;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr("KV cache"));
  ImGui::SameLine();
  const char* names[] = {tr("full"), tr("StreamingLLM")};
  int policy = d.kv_cache.streaming() ? 1 : 0;
  ImGui::SetNextItemWidth(std::max(ImGui::CalcTextSize(names[0]).x, ImGui::CalcTextSize(names[1]).x) +
                          ImGui::GetFrameHeight() * 2);
  if (ImGui::BeginCombo("##kv cache policy", names[policy])) {
    for (int k = 0; k < 2; ++k) {
      if (ImGui::Selectable(names[k], k == policy) && k != policy) {
        d.kv_cache.policy = k == 1 ? CachePolicy::streaming_llm : CachePolicy::full;
        // The first time on a short sentence the paper's 4 + 4 keep every key: take
        // sizes that evict something at the last step, as the window's control does.
        const int S = d.seq_len();
        if (k == 1 && d.kv_cache.sink_tokens == KvCacheSpec{}.sink_tokens && d.kv_cache.recent == KvCacheSpec{}.recent &&
            S <= d.kv_cache.sink_tokens + d.kv_cache.recent) {
          d.kv_cache.sink_tokens = 1;
          d.kv_cache.recent = std::max(1, std::min(4, (S - 1) / 2));
        }
        apply_edit(m);
      }
      item_register(k == 1 ? "KV cache: StreamingLLM" : "KV cache: full");
    }
    ImGui::EndCombo();
  }
  item_register("KV cache policy");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", tr("full: every key stays cached. StreamingLLM (Xiao et al. 2023): the first k keys (the "
                               "attention sinks) and the most recent w stay, the middle is evicted; here every key "
                               "keeps its original position, so the cache is a mask on the full scores."));
  if (!d.kv_cache.streaming()) return;
  const struct {
    const char* label;
    const char* id;
    int* value;
  } fields[] = {{N_("sink tokens k"), "Decode sink tokens", &d.kv_cache.sink_tokens},
                {N_("recent w"), "Decode recent", &d.kv_cache.recent}};
  for (const auto& f : fields) {
    ImGui::SameLine(0, 16);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    if (ImGui::InputInt(L(f.label), f.value, 1, 4)) apply_edit(m);
    item_register(f.id);
  }
}

// The tokens so far, the new one (t) highlighted; a few of the ones still to come, dimmed.
void tokens_so_far(AppModel& m, int t) {
  const auto& toks = m.engine.tokens();
  const int S = static_cast<int>(toks.size());
  constexpr int kShown = 32;  // at most this many before t, then "…"
  const int first = std::max(0, t + 1 - kShown), last = std::min(S - 1, t + 4);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr("Tokens so far:"));
  if (first > 0) {
    ImGui::SameLine();
    ImGui::TextDisabled(tr("… %d earlier"), first);
  }
  for (int i = first; i <= last; ++i) {
    const char* s = toks[static_cast<size_t>(i)].c_str();
    const ImVec2 sz = ImGui::CalcTextSize(s);
    ImGui::SameLine(0, 6);
    if (ImGui::GetCursorScreenPos().x + sz.x + 8 > right) ImGui::NewLine();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    if (i == t)
      dl->AddRectFilled(ImVec2(p.x - 3, p.y - 1), ImVec2(p.x + sz.x + 3, p.y + sz.y + 1),
                        ImGui::GetColorU32(ImGuiCol_PlotHistogram), 3.0f);
    if (i > t) ImGui::TextDisabled("%s", s);
    else if (i == t) ImGui::TextColored(ImVec4(0.05f, 0.05f, 0.05f, 1.0f), "%s", s);
    else ImGui::TextUnformatted(s);
    if (i == t) item_register("Decode new token");
  }
}

// [SECTION] Maps ------------------------------------------------------------------------

// One map of the step. `signed_values`: diverging around 0; else the weights' [0, hi].
void step_map(AppModel& m, DecodeCache& c, const char* label, const char* title, const Tensor& v,
              const std::vector<std::string>* rows, const std::vector<std::string>* cols, int hl_row, int hl_col,
              bool signed_values, float hi, float width, float height, float max_cell, CellRef link_of_cell,
              bool link_rows, float min_cell_w = 0, const uint8_t* keep = nullptr,
              const std::vector<uint8_t>* absent = nullptr, bool scroll_x = true, bool shrunk = false) {
  HeatmapSpec spec;
  spec.keep = keep;  // (v.rows × v.cols) dropout's keep mask: dropped cells get the ×
  // (v.rows × v.cols) the evicted keys' cells, drawn empty (StreamingLLM)
  spec.absent = absent != nullptr && !absent->empty() ? absent->data() : nullptr;
  spec.label = label;
  spec.title = title;
  spec.exports = &m.exports;
  spec.row_labels = rows;
  spec.col_labels = cols;
  if (signed_values) {
    spec.cmap = Colormap::rdbu;
    spec.diverging = true;
  } else {
    spec.cmap = m.view.weights_cmap;
    spec.fixed_range = true;
    spec.fixed_lo = 0.0f;
    spec.fixed_hi = hi;
  }
  spec.highlight_row = hl_row;
  spec.highlight_col = hl_col;
  spec.max_width = width;
  spec.max_height = height;
  spec.max_cell = max_cell;
  spec.min_cell_w = min_cell_w;
  // One-row maps keep their values' width and scroll sideways when hundreds of keys
  // (or a head_dim of 64) do not fit; the rows over the keys (those that highlight
  // key t) scroll together, and a new step brings its own key into view.
  spec.scroll_x = min_cell_w > 0 && scroll_x;
  const bool keys_row = spec.scroll_x && hl_col >= 0;
  spec.follow_col = keys_row ? hl_col : -1;
  HeatmapCache& hc = m.heatmap_cache(label);
  if (keys_row && hc.view_cols == v.cols) hc.u0 = c.key_u0;
  if (height == 0 && v.rows == 1) {
    // A one-row map: cells a line of digits tall but as wide as the values want
    // (the layout widens a cell for its value when it is at least a line tall),
    // so the rows stack in little height. The height is the title, the column
    // labels' band as drawn last frame (it depends on the cells' width) and the cells.
    // A map whose cells came out squashed (a band measured for other widths) gets
    // the widest band column labels can take, rotated, for a frame.
    const bool squashed = hc.drawn.frame >= 0 && hc.drawn.cell_h < max_cell * 0.5f;
    const float band = squashed || hc.drawn.frame < 0 ? std::min(c.key_label_w, 110.0f) + 6.0f : hc.drawn.lay.header_h;
    spec.max_cell = 56.0f * max_cell / 24.0f;  // as wide as 4 decimals want at 24 px, wider with taller cells
    spec.max_height = ImGui::GetTextLineHeightWithSpacing() + band + max_cell;
  }
  // Shrunk to fit (decode_key_cell_w): every row over the keys gets exactly that width, not
  // its own values' wish, so their columns still line up.
  if (shrunk) spec.max_cell = std::min(spec.max_cell, min_cell_w);
  spec.decimals_max = m.view.decimals > 0 ? m.view.decimals : 4;
  spec.show_colour_bar = false;
  HeatmapHover hv =
      heatmap(spec, MatrixView{v.rows, v.cols, v.data.data()}, c.serial, hc, *m.textures);
  if (keys_row) c.key_u0 = hc.u0;
  if (!hv.hovered || !link_of_cell.valid) return;
  // The Inspector explains the full result's cell this one equals.
  CellRef r = link_of_cell;
  if (link_rows) r.row = hv.row;
  r.col += hv.col;
  m.hover_next = r;
}

void cache_size(const DecodeCache& c);

}  // namespace

float decode_key_cell_w(float avail_w, float label_w, int keys, float value_w, bool* scroll) {
  *scroll = false;
  if (keys <= 0) return value_w;
  const float fit = (avail_w - label_w) / static_cast<float>(keys);
  if (fit >= value_w) return value_w;
  if (fit >= kDecodeMinFitCell) return fit;
  *scroll = true;
  return value_w;
}

namespace {

// Width for a 1 × head_dim map (the query, the context): what its cells want, but
// never narrower than its title (in Chinese a head_dim of 2 made it "上下文向量：权重 · V 缓存（1…").
float head_dim_row_w(float avail, int hd, const char* title) {
  return std::min(avail, std::max(80.0f + static_cast<float>(hd) * 48.0f, ImGui::CalcTextSize(title).x + 8.0f));
}

// One cell width for one-row maps read together (the rows over the keys 0 … t: scores, masked, weights, dropped):
// the widest row's value at the decimals shown plus a gap, so their columns line up
// and a row of 0.0000s does not run together. O(t) per frame, no allocation.
float row_cell_w(const AppModel& m, std::initializer_list<const Tensor*> rows) {
  HeatmapLayoutIn metrics;
  heatmap_text_metrics(metrics);
  const int dmax = m.view.decimals > 0 ? m.view.decimals : 4;
  int chars = 0;
  for (const Tensor* t : rows) {
    if (t->rows != 1 || t->cols <= 0) continue;
    const ValueStats st = value_stats(t->data.data(), 1, t->cols, t->cols);
    chars = std::max(chars, value_chars(st, std::max(dmax, min_decimals(st))));
  }
  return static_cast<float>(chars) * metrics.value_char_w + metrics.value_pad + 6.0f;
}

// Left: the new query over the K and V caches (side by side, as tall as the tab
// allows: a long cache scrolls), and the cache's size. Right: the step's rows,
// scores → masked → weights (→ dropped) → context, one under the other with the
// same columns (the keys 0 … t).
void maps(AppModel& m, DecodeCache& c) {
  const DecodeStep& d = c.step;
  const int hd = d.head_dim, t = d.t, h = d.head;
  char title[128];
  const Stage qs = d.rope ? Stage::q_rot : Stage::Q, ks = d.rope ? Stage::k_rot : Stage::K;
  // One-row maps: cells this tall (values widen them), taller where the tab is tall
  // (24 px at 720 px of screen, 36 px at 1080), so a large window is not left empty.
  const float row_cell = std::clamp(ImGui::GetContentRegionAvail().y / 22.0f, 24.0f, 36.0f);
  if (!ImGui::BeginTable("decode maps", 2, ImGuiTableFlags_SizingStretchProp)) return;
  ImGui::TableSetupColumn("caches", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("rows", ImGuiTableColumnFlags_WidthStretch, 1.4f);
  ImGui::TableNextColumn();
  {
    const float w = ImGui::GetContentRegionAvail().x;
    std::snprintf(title, sizeof title, tr("new query q_%d (1×%d)"), t, hd);
    step_map(m, c, "decode query", title, d.query, &c.query, nullptr, -1, -1, true, 1.0f, head_dim_row_w(w, hd, title),
             0, row_cell, CellRef{true, qs, d.rope ? h : 0, t, d.rope ? 0 : h * hd}, false, row_cell_w(m, {&d.query}));
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    wrapped_text(c.appended.c_str(), w);
    ImGui::PopStyleColor();
    item_register("Decode appended");
    // The caches take what is left above the size panel (its lines and bars).
    // The size panel's height as drawn last frame (its sentences wrap), or a guess.
    const float line = ImGui::GetFrameHeightWithSpacing();
    const float panel_h =
        c.panel_h > 0 ? c.panel_h + 4.0f : line * (4.0f + (c.bytes.window > 0) + (d.streaming ? 2.0f : 0.0f));
    const float hmax = std::max(100.0f, ImGui::GetContentRegionAvail().y - panel_h);
    const float half = w * 0.5f - 6.0f;
    ImGui::BeginGroup();
    const bool evicts = !c.cache_absent.empty();
    if (evicts) std::snprintf(title, sizeof title, tr("K cache (%d of %d×%d)"), d.cached, t + 1, hd);
    else std::snprintf(title, sizeof title, tr("K cache (%d×%d)"), t + 1, hd);
    step_map(m, c, "decode K cache", title, d.keys, &c.keys, nullptr, t, -1, true, 1.0f, half, hmax, 56.0f,
             CellRef{true, ks, d.rope ? h : 0, 0, d.rope ? 0 : d.kv_head * hd}, true, 0, nullptr, &c.cache_absent);
    ImGui::EndGroup();
    ImGui::SameLine(0, 12);
    ImGui::BeginGroup();
    if (evicts) std::snprintf(title, sizeof title, tr("V cache (%d of %d×%d)"), d.cached, t + 1, hd);
    else std::snprintf(title, sizeof title, tr("V cache (%d×%d)"), t + 1, hd);
    step_map(m, c, "decode V cache", title, d.values, &c.keys, nullptr, t, -1, true, 1.0f, half, hmax, 56.0f,
             CellRef{true, Stage::V, 0, 0, d.kv_head * hd}, true, 0, nullptr, &c.cache_absent);
    ImGui::EndGroup();
    const float y0 = ImGui::GetCursorScreenPos().y;
    cache_size(c);
    c.panel_h = ImGui::GetCursorScreenPos().y - y0;
  }
  ImGui::TableNextColumn();
  {
    const float w = ImGui::GetContentRegionAvail().x;
    // The rows over the keys shrink to the column's width when the keys are a few dozen
    // (the kept first keys of StreamingLLM stay in view), and scroll only when hundreds.
    const float label_w = std::min(c.key_label_w, 110.0f) + 6.0f;
    bool scroll = false;
    const float value_w = row_cell_w(m, {&d.scores, &d.masked, &d.weights, &d.dropped});
    const float key_w = decode_key_cell_w(w, label_w, t + 1, value_w, &scroll);
    const bool shrunk = key_w < value_w;
    std::snprintf(title, sizeof title, tr("scores: q_%d · k_j (1×%d)"), t, t + 1);
    step_map(m, c, "decode scores", title, d.scores, &c.query, &c.keys, -1, t, true, 1.0f, w, 0, row_cell,
             CellRef{true, Stage::scores, h, t, 0}, false, key_w, nullptr, &c.row_absent, scroll, shrunk);
    std::snprintf(title, sizeof title, tr("masked: scores ÷ divisor (+ bias), masked (1×%d)"), t + 1);
    step_map(m, c, "decode masked", title, d.masked, &c.query, &c.keys, -1, t, true, 1.0f, w, 0, row_cell,
             CellRef{true, Stage::masked, h, t, 0}, false, key_w, nullptr, &c.row_absent, scroll, shrunk);
    if (d.sink) std::snprintf(title, sizeof title, tr("weights: softmax with the sink s_%d (1×%d)"), h, t + 1);
    else std::snprintf(title, sizeof title, tr("weights: softmax (1×%d)"), t + 1);
    step_map(m, c, "decode weights", title, d.weights, &c.query, &c.keys, -1, t, false, 1.0f, w, 0, row_cell,
             CellRef{true, Stage::weights, h, t, 0}, false, key_w, nullptr, &c.row_absent, scroll, shrunk);
    if (!c.sink_line.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::BeginGroup();
      wrapped_text(c.sink_line.c_str(), w);
      ImGui::EndGroup();
      ImGui::PopStyleColor();
      item_register("Decode sink share");
    }
    if (d.dropout) {
      std::snprintf(title, sizeof title, tr("dropped: dropout (1×%d)"), t + 1);
      const float hi = m.engine.pipeline().dropout_scale() > 0 ? m.engine.pipeline().dropout_scale() : 1.0f;
      // The step's row is row t of the full result, so its keep mask is row t of head h's.
      const uint8_t* keep = dropout_marks(m, Stage::dropped, h);
      if (keep) keep += static_cast<size_t>(t) * static_cast<size_t>(m.engine.pipeline().seq_len());
      step_map(m, c, "decode dropped", title, d.dropped, &c.query, &c.keys, -1, t, false, hi, w, 0, row_cell,
               CellRef{true, Stage::dropped, h, t, 0}, false, key_w, keep, &c.row_absent, scroll, shrunk);
    }
    std::snprintf(title, sizeof title, tr("context: weights · V cache (1×%d)"), hd);
    step_map(m, c, "decode context", title, d.context, &c.query, nullptr, -1, -1, true, 1.0f,
             head_dim_row_w(w, hd, title), 0, row_cell, CellRef{true, Stage::context, h, t, 0}, false,
             row_cell_w(m, {&d.context}));
  }
  ImGui::EndTable();
}

// [SECTION] Cache size ------------------------------------------------------------------

void cache_size(const DecodeCache& c) {
  const KvCacheBytes& b = c.bytes;
  wrapped_block(c.bytes_line.c_str());
  item_register("kv cache bytes");
  // As wide as a third of the column allows, and never narrower than the widest label on a bar.
  float label_w = 0;
  for (const char* t : {c.bar_this, c.bar_mha, c.bar_window, c.bar_streaming})
    label_w = std::max(label_w, ImGui::CalcTextSize(t).x + ImGui::GetStyle().FramePadding.x * 2 + 4.0f);
  const float w = std::max(std::clamp(ImGui::GetContentRegionAvail().x * 0.35f, 110.0f, 260.0f), label_w);
  const float fh = ImGui::GetTextLineHeight() + 4.0f;
  const double mha = b.mha_bytes > 0 ? static_cast<double>(b.mha_bytes) : 1.0;
  // One bar a line, the sentence beside it (wrapped within the column).
  // A light track, a mid-blue fill and dark text: the label reads the same over
  // the filled and the empty part (white on the default orange did not).
  auto bar = [&](float frac, const char* overlay, const char* label, const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_FrameBg, IM_COL32(214, 218, 224, 255));
    ImGui::PushStyleColor(ImGuiCol_PlotHistogram, IM_COL32(120, 170, 235, 255));
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(16, 20, 28, 255));
    ImGui::ProgressBar(frac, ImVec2(w, fh), overlay);
    ImGui::PopStyleColor(3);
    item_register(label);
    ImGui::SameLine(0, 8);
    wrapped_block(text.c_str());
  };
  bar(static_cast<float>(b.bytes / mha), c.bar_this, "kv cache bar", c.saving_line);
  bar(1.0f, c.bar_mha, "kv cache bar MHA", c.mha_line);
  if (b.window > 0) bar(static_cast<float>(b.window_bytes / mha), c.bar_window, "kv cache bar window", c.window_line);
  if (c.step.streaming)
    bar(static_cast<float>(static_cast<double>(kv_cache_bytes_at(b, c.step.t, true)) / mha), c.bar_streaming,
        "kv cache bar StreamingLLM", c.streaming_line);
}

}  // namespace

// [SECTION] the tab ---------------------------------------------------------------------

void decode_tab(AppModel& m) {
  const int H = m.engine.num_heads(), S = m.engine.has_result() ? m.engine.pipeline().seq_len() : 0;
  if (!m.engine.has_result() || H == 0 || S == 0) {
    ImGui::TextDisabled("%s", tr("No result yet."));
    return;
  }
  DecodeCache& c = cache_of(m);
  m.view.head = std::clamp(m.view.head, 0, H - 1);
  const int t = step_controls(m, S);
  update(m, c, m.view.head, t);  // the head from the last frame's combo; a change shows next frame
  head_controls(m, c.step);
  update(m, c, m.view.head, t);
  cache_controls(m);
  error_line(m, "kv_cache");
  tokens_so_far(m, t);
  if (!c.cache_line.empty()) {
    wrapped_block(c.cache_line.c_str());
    item_register("Decode cache line");
  }
  const bool ok = c.matches && c.step.differs == DecodeDiffers::no;
  ImGui::PushStyleColor(ImGuiCol_Text, ok ? IM_COL32(120, 210, 140, 255) : IM_COL32(240, 170, 90, 255));
  wrapped_block(c.equality.c_str());
  ImGui::PopStyleColor();
  item_register("Decode equality");
  if (c.step.differs == DecodeDiffers::not_causal) {
    if (ImGui::Button(L("Turn on Causal mask"))) {
      m.draft = m.engine.state();
      m.draft.causal = true;
      apply_edit(m);
    }
    item_register("Turn on Causal mask");
  }
  ImGui::Separator();
  if (c.step.valid()) maps(m, c);
}

}  // namespace attnviz::ui
