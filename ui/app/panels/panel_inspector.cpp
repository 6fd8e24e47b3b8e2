// panel_inspector.cpp: "how did this number come to be" for the focused cell.
// Everything shown comes from Pipeline::explain(): the UI formats, never computes.
//
// [SECTION] index
//   Text        drawing wrapped lines (the wrapping, numbers and the log: inspector_text.h)
//   Dot table   the terms of a dot product, one row per term
//   Stages      what each stage's cell is made of
//   Head scores what a head's score means and its terms (Compare heads' grid)
//   Panel       the header and the body
//
// Layout rules (issue 21): no number is ever split across lines (text wraps only at
// spaces and beside Chinese characters, and the formulas put spaces around their
// operators); nothing is
// clipped (a table wider than the panel scrolls sideways); a table has exactly as
// many rows as terms, up to 10 before it scrolls. Per-frame drawing formats into
// char buffers.
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "app/model/app_model.h"
#include "app/widgets/heatmap.h"
#include "app/text/i18n.h"
#include "app/text/inspector_text.h"
#include "app/widgets/item_registry.h"
#include "app/model/links.h"
#include "app/panels/panel_heads_grid.h"
#include "app/panels/panels.h"
#include "app/panels/stage_flow.h"
#include "attnviz/explain.h"
#include "attnviz/model.h"
#include "attnviz/pipeline.h"
#include "imgui.h"

namespace attnviz::ui {

// [SECTION] Text ------------------------------------------------------------------------

// Registers the item just drawn as "inspector line N" (N counts from 0 each frame), with
// its whole rectangle, not clipped: browser tests check that every line lies inside the
// window. Table rows are not lines; a table is "inspector terms".
static void register_line() {
  char label[32];
  std::snprintf(label, sizeof label, "inspector line %d", inspector_log_item());
  item_registry().add(label, ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
}

// Draws `text` wrapped to the panel's width, breaking only at spaces ('\n' forces a break).
static void flow_text(const char* text, bool dim = false) {
  const float width = std::max(ImGui::GetContentRegionAvail().x, 40.0f);
  inspector_log_room(width);
  if (dim) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
  const char* p = text;
  const char* const end = text + std::strlen(text);
  while (p < end) {
    const char* para = p;
    while (para < end && *para != '\n') ++para;  // [p, para) is one paragraph
    while (p < para) {
      const char* le = inspector_wrap(p, para, width);
      ImGui::TextUnformatted(p, le);
      register_line();
      inspector_log_line(p, le, ImGui::CalcTextSize(p, le).x);
      p = le;
      while (p < para && *p == ' ') ++p;
    }
    p = para + 1;
  }
  if (dim) ImGui::PopStyleColor();
}

// printf-style flow_text.
static void flow(const char* fmt, ...) IM_FMTARGS(1);
static void flow(const char* fmt, ...) {
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  flow_text(buf);
}

// Numbers for one line of text: up to six at once, each in its own buffer.
struct Nums {
  char b[6][32];
  int k = 0;
  const char* operator()(float v, int digits = 6) { return inspector_number(v, digits, b[k++ % 6], 32); }
};

// [SECTION] Dot table -------------------------------------------------------------------

struct DotNames {
  const char* index;  // "d" (a dimension) or "s" (a key)
  char lhs[32], rhs[32];  // "q_1[d]", "W_q[d][2]", ...
};

// The terms of a dot product, one row per term: index, left, right, their product.
static void dot_table(const Explanation& e, const DotNames& nm) {
  const int n = (int)e.terms.size();
  const int shown = std::min(n, 64);
  // Columns as wide as their widest text; if they do not fit, the table scrolls sideways.
  char buf[3][32];
  const char* product = tr("product");
  float w[4] = {ImGui::CalcTextSize(nm.index).x, ImGui::CalcTextSize(nm.lhs).x, ImGui::CalcTextSize(nm.rhs).x,
                ImGui::CalcTextSize(product).x};
  char idx[16];
  for (int t = 0; t < shown; ++t) {
    std::snprintf(idx, sizeof idx, "%d", t);
    w[0] = std::max(w[0], ImGui::CalcTextSize(idx).x);
    w[1] = std::max(w[1], ImGui::CalcTextSize(inspector_number(e.lhs[t], 4, buf[0], 32)).x);
    w[2] = std::max(w[2], ImGui::CalcTextSize(inspector_number(e.rhs[t], 4, buf[1], 32)).x);
    w[3] = std::max(w[3], ImGui::CalcTextSize(inspector_number(e.terms[t], 4, buf[2], 32)).x);
  }
  const ImGuiStyle& st = ImGui::GetStyle();
  const float need = w[0] + w[1] + w[2] + w[3] + 8 * st.CellPadding.x + 5.0f;  // + the 5 vertical borders
  const float avail = ImGui::GetContentRegionAvail().x;
  inspector_log_table(need, avail);
  // Up to 10 rows, fewer when the panel is short: the sum and the value below the
  // table (three lines) stay in view, and the table scrolls instead.
  const float row_h = ImGui::GetTextLineHeight() + 2 * st.CellPadding.y + 1.0f;
  const float below = 3 * ImGui::GetTextLineHeightWithSpacing() + 2 * st.ItemSpacing.y;
  const int visible_rows = std::clamp((int)((ImGui::GetContentRegionAvail().y - below) / row_h) - 2, 3, 10);
  ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  ImVec2 size(0, 0);  // fits its rows exactly: no empty rows below the last term
  if (shown > visible_rows) {
    flags |= ImGuiTableFlags_ScrollY;
    size.y = row_h * (visible_rows + 1.5f);  // header, the rows and half of the next: it scrolls
  }
  if (need > avail) {
    flags |= ImGuiTableFlags_ScrollX;
    if (size.y == 0) size.y = row_h * (shown + 1) + st.ScrollbarSize + 2.0f;
  }
  if (ImGui::BeginTable("terms", 4, flags, size)) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn(nm.index, ImGuiTableColumnFlags_WidthFixed, w[0]);
    ImGui::TableSetupColumn(nm.lhs, ImGuiTableColumnFlags_WidthFixed, w[1]);
    ImGui::TableSetupColumn(nm.rhs, ImGuiTableColumnFlags_WidthFixed, w[2]);
    ImGui::TableSetupColumn(product, ImGuiTableColumnFlags_WidthFixed, w[3]);
    ImGui::TableHeadersRow();
    char row[160];
    std::snprintf(row, sizeof row, "%s | %s | %s | %s", nm.index, nm.lhs, nm.rhs, product);
    inspector_log_line(row, row + std::strlen(row), 0);
    for (int t = 0; t < shown; ++t) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d", t);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(inspector_number(e.lhs[t], 4, buf[0], 32));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(inspector_number(e.rhs[t], 4, buf[1], 32));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(inspector_number(e.terms[t], 4, buf[2], 32));
      std::snprintf(row, sizeof row, "%d | %s | %s | %s", t, buf[0], buf[1], buf[2]);
      inspector_log_line(row, row + std::strlen(row), 0);
    }
    ImGui::EndTable();
    item_registry().add("inspector terms", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  }
  if (shown < n) flow_text(tr("(the first 64 terms)"), true);
  Nums f;
  if (e.has_bias) flow(tr("sum = %s, + bias %s = %s"), f(e.sum), f(e.bias), f(e.value));
  else flow(tr("sum = %s"), f(e.sum));
}

// [SECTION] Stages ----------------------------------------------------------------------

static const char* token_at(const AppModel& m, int i) {
  const auto& t = m.engine.tokens();
  return i >= 0 && i < (int)t.size() ? t[i].c_str() : "?";
}

// scaled = scores / divisor: the divisor written as √head_dim = √2 = 1.4142, then
// the temperature when it is not 1.
static void scaled_body(const Explanation& e) {
  Nums f;
  const char* dim = e.scale_mode == ScaleMode::d_out ? "d_out" : "head_dim";
  const bool temp = e.temperature != 1.0;
  if (e.scale_dim > 0) flow(NO_TR("\xE2\x88\x9A%s = \xE2\x88\x9A%d = %s"), dim, e.scale_dim, f((float)e.divisor_base, 4));
  else flow_text(tr("Scale is none: no \xE2\x88\x9A divisor."));
  if (temp && e.scale_dim > 0)
    flow(tr("divisor = \xE2\x88\x9A%s \xC3\x97 temperature = %s \xC3\x97 %s = %s"), dim, f((float)e.divisor_base, 4),
         f((float)e.temperature, 4), f(e.divisor, 4));
  else if (temp)
    flow(tr("divisor = temperature = %s"), f(e.divisor, 4));
  flow(NO_TR("scaled = %s / %s = %s"), f(e.input), f(e.divisor, 4), f(e.value));
}

static void weights_body(const Explanation& e) {
  Nums f;
  if (e.safe_zeroed) {
    flow_text(tr("Every key of this row is masked and safe softmax is on: the row is zeros."));
    return;
  }
  flow(tr("exp(%s \xE2\x88\x92 row max %s) = %s"), f(e.input), f(e.row_max), f(e.exp_term));
  if (e.sink) {  // gpt-oss: the sink's logit joins the row's max and its denominator
    flow(tr("sink logit s_%d = %s: exp(%s \xE2\x88\x92 row max) = %s"), e.head, f(e.sink_logit), f(e.sink_logit),
         f(e.sink_exp));
    flow(tr("normaliser exp(s_%d \xE2\x88\x92 row max) + \xCE\xA3_s exp(masked[s] \xE2\x88\x92 row max) = %s"), e.head,
         f(e.normaliser));
  } else {
    flow(tr("normaliser \xCE\xA3_s exp(masked[s] \xE2\x88\x92 row max) = %s"), f(e.normaliser));
  }
  flow(tr("weight = %s / %s = %s"), f(e.exp_term), f(e.normaliser), f(e.value));
  if (e.sink)
    flow(tr("The sink takes %s of row %d (its column is dropped after the softmax), so this row's weights sum to "
            "1 \xE2\x88\x92 %s."),
         f(e.sink_share), e.i, f(e.sink_share));
  if (std::isnan(e.value))
    flow_text(tr("NaN: every key of this row is masked with \xE2\x88\x92inf, so softmax divides 0 by 0 (torch.softmax "
                 "does the same). Safe softmax gives zeros instead."));
}

// The window's test for this cell, with its numbers: "i − j = 5 ≥ 3" (a key too far
// back) or "j − i = 4 ≥ 3" (too far ahead, without the causal mask).
static void window_words(const Explanation& e, char* buf, size_t n) {
  if (e.i >= e.j) std::snprintf(buf, n, NO_TR("i \xE2\x88\x92 j = %d \xE2\x88\x92 %d = %d \xE2\x89\xA5 %d"), e.i, e.j, e.i - e.j, e.window);
  else std::snprintf(buf, n, NO_TR("j \xE2\x88\x92 i = %d \xE2\x88\x92 %d = %d \xE2\x89\xA5 %d"), e.j, e.i, e.j - e.i, e.window);
}

static void masked_body(const Explanation& e, const CellRef& c) {
  Nums f;
  char w[96];
  switch (e.masked ? e.reason : MaskReason::none) {
    case MaskReason::none:
      if (e.alibi) {  // masked = scaled + bias when the cell is kept
        flow(tr("Not masked: scaled %s + ALiBi bias %s = %s."), f(e.input), f(e.alibi_bias), f(e.value));
        if (e.window > 0) flow(tr("Inside the sliding window of %d keys."), e.window);
        break;
      }
      flow(tr("Not masked: the scaled value %s passes through."), f(e.input));
      if (e.window > 0) flow(tr("Inside the sliding window of %d keys."), e.window);
      break;
    case MaskReason::padding:
      flow(tr("Masked (padding): key %d is padding, so the value %s is replaced by the fill %s."), c.col, f(e.input),
           f(e.fill));
      break;
    case MaskReason::causal:
      flow(tr("Masked (causal): key %d comes after the query, so the value %s is replaced by the fill %s."), c.col,
           f(e.input), f(e.fill));
      break;
    case MaskReason::causal_and_padding:
      flow(tr("Masked (causal and padding): key %d comes after the query, so the value %s is replaced by the fill "
              "%s."),
           c.col, f(e.input), f(e.fill));
      break;
    case MaskReason::window:
    case MaskReason::window_and_padding:
      window_words(e, w, sizeof w);
      flow(tr("Masked: key %d is outside the sliding window: %s, so the value %s is replaced by the fill %s."), c.col, w,
           f(e.input), f(e.fill));
      if (e.reason == MaskReason::window_and_padding) flow(tr("Key %d is padding as well."), c.col);
      break;
    case MaskReason::evicted:
    case MaskReason::evicted_and_padding:
      flow(tr("Masked: StreamingLLM's KV cache has evicted key %d: it is not among the first %d keys and i "
              "\xE2\x88\x92 j = %d \xE2\x89\xA5 %d (the recent keys kept), so the value %s is replaced by the fill %s."),
           c.col, e.cache_sinks, e.i - e.j, e.cache_recent, f(e.input), f(e.fill));
      if (e.reason == MaskReason::evicted_and_padding) flow(tr("Key %d is padding as well."), c.col);
      break;
  }
}

// q_rot / k_rot: the pair the component turns with, its angle and the sum.
static void rotation_body(const Explanation& e) {
  Nums f;
  const char src = e.stage == Stage::q_rot ? 'Q' : 'K';
  const bool first = e.j < e.rope_partner;
  flow(tr("Columns %d and %d turn together as a pair (frequency k = %d)."), std::min(e.j, e.rope_partner),
       std::max(e.j, e.rope_partner), e.rope_k);
  flow(NO_TR("\xCE\xB8 = %d \xC2\xB7 inv_freq[%d] = %d \xC2\xB7 %s = %s"), e.i, e.rope_k, e.i, f(e.inv_freq), f(e.angle));
  flow(NO_TR("cos \xCE\xB8 = %s, sin \xCE\xB8 = %s"), f(e.cos), f(e.sin));
  flow(NO_TR("%c[%d][%d] = %s, %c[%d][%d] = %s"), src, e.i, e.j, f(e.x_self), src, e.i, e.rope_partner, f(e.x_partner));
  flow(NO_TR("%s \xC2\xB7 %s %s %s \xC2\xB7 %s = %s"), f(e.x_self), f(e.cos), first ? "\xE2\x88\x92" : "+", f(e.x_partner),
       f(e.sin), f(e.value));
}

// bias: ALiBi's −m_h·|i − j| with this head's slope.
static void bias_body(const Explanation& e, int H) {
  Nums f;
  flow(tr("ALiBi slope of head %d: m_%d = %s (get_slopes(%d)[%d])"), e.head, e.head, f(e.slope), H, e.head);
  flow(NO_TR("\xE2\x88\x92m_%d \xC2\xB7 |%d \xE2\x88\x92 %d| = \xE2\x88\x92%s \xC2\xB7 %d = %s"), e.head, e.i, e.j, f(e.slope),
       e.distance, f(e.value));
  flow_text(tr("The farther the key, the lower its score: masked = scaled + bias."), true);
}

// Under GQA / MQA: which K/V head this query head reads, and who shares it.
static void kv_line(const AppModel& m, const Explanation& e) {
  const State& s = m.engine.pipeline().state();
  const int H = s.num_heads, G = s.kv_heads();
  if (G == H || G <= 0 || H % G != 0) return;
  const int per = H / G, first = e.kv_head * per;
  flow(tr("Reads K/V head %d = %d / (%d/%d), which query heads %d\xE2\x80\x93%d share."), e.kv_head, e.head, H, G, first,
       first + per - 1);
}

static void explain_body(const AppModel& m, const Explanation& e, const CellRef& c) {
  char formula[512];
  inspector_formula(m.engine.pipeline(), e, formula, sizeof formula);
  flow_text(formula);
  ImGui::Separator();
  Nums f;
  DotNames nm{"d", {}, {}};
  switch (e.stage) {
    case Stage::Q: case Stage::K: case Stage::V:
      std::snprintf(nm.lhs, sizeof nm.lhs, "X[%d][d]", c.row);
      std::snprintf(nm.rhs, sizeof nm.rhs, "W_%c[d][%d]", e.stage == Stage::Q ? 'q' : e.stage == Stage::K ? 'k' : 'v',
                    c.col);
      dot_table(e, nm);
      break;
    case Stage::output:
      std::snprintf(nm.lhs, sizeof nm.lhs, "concat[%d][d]", c.row);
      std::snprintf(nm.rhs, sizeof nm.rhs, "W_o[d][%d]", c.col);
      dot_table(e, nm);
      break;
    case Stage::scores: {
      flow(tr("query \"%s\" (row %d) \xC2\xB7 key \"%s\" (row %d), head %d, over d = 0 \xE2\x80\xA6 %d"),
           token_at(m, c.row), c.row, token_at(m, c.col), c.col, c.head, (int)e.terms.size() - 1);
      kv_line(m, e);
      const bool rot = m.engine.pipeline().state().positional == Positional::rope;
      std::snprintf(nm.lhs, sizeof nm.lhs, rot ? "q_rot_%d[d]" : "q_%d[d]", c.row);
      std::snprintf(nm.rhs, sizeof nm.rhs, rot ? "k_rot_%d[d]" : "k_%d[d]", c.col);
      dot_table(e, nm);
      break;
    }
    case Stage::q_rot:
      rotation_body(e);
      break;
    case Stage::k_rot:  // the K/V head's K, rotated: which one, under GQA / MQA
      rotation_body(e);
      kv_line(m, e);
      break;
    case Stage::bias:
      bias_body(e, m.engine.num_heads());
      break;
    case Stage::scaled:
      scaled_body(e);
      break;
    case Stage::masked:
      masked_body(e, c);
      break;
    case Stage::weights:
      weights_body(e);
      break;
    case Stage::dropped:
      if (!e.dropout_active)
        flow(tr("Dropout is off (not training, or p = 0): the weight %s passes through."), f(e.input));
      else if (e.kept)
        flow(tr("kept: %s \xC3\x97 1/(1 \xE2\x88\x92 p) = %s \xC3\x97 %s = %s"), f(e.input), f(e.input), f(e.scale),
             f(e.value));
      else
        flow(tr("dropped: %s \xC3\x97 0 = 0"), f(e.input));
      break;
    case Stage::context:
      flow(tr("weight \xC3\x97 value over the keys s = 0 \xE2\x80\xA6 %d (head %d, value column %d)"),
           (int)e.terms.size() - 1, c.head, c.col);
      kv_line(m, e);
      nm.index = "s";
      std::snprintf(nm.lhs, sizeof nm.lhs, "dropped[%d][s]", c.row);
      std::snprintf(nm.rhs, sizeof nm.rhs, "v_s[%d]", c.col);
      dot_table(e, nm);
      break;
    default:
      break;
  }
  ImGui::Separator();
  flow(tr("value = %s"), f(e.value, 8));
}

// [SECTION] Head scores -----------------------------------------------------------------

// Row t's keys as text: "2" or "2, 9" (at most a few; "…" after).
static const char* keys_text(const HeadScoreTerms& t, size_t row, char* buf, size_t n) {
  int len = 0;
  buf[0] = '\0';
  for (int k = t.key_begin[row], e = t.key_begin[row + 1]; k < e && len + 12 < (int)n; ++k) {
    if (k - t.key_begin[row] == 4) {
      std::snprintf(buf + len, n - (size_t)len, ", \xE2\x80\xA6");
      break;
    }
    len += std::snprintf(buf + len, n - (size_t)len, k > t.key_begin[row] ? ", %d" : "%d", t.keys[(size_t)k]);
  }
  return buf;
}

// The score's terms, one row per query row: i, its token, the keys it adds, their sum.
static void score_table(const HeadScoreTerms& t, const std::vector<std::string>& tokens) {
  const int n = (int)t.rows.size(), shown = std::min(n, 64);
  if (n == 0) return;
  const char* head[4] = {"i", tr("token"), tr("keys k"), NO_TR("\xCE\xA3 A[i, k]")};
  float w[4];
  for (int c = 0; c < 4; ++c) w[c] = ImGui::CalcTextSize(head[c]).x;
  char cell[4][48];
  auto fill = [&](int r) {
    const int i = t.rows[(size_t)r];
    std::snprintf(cell[0], sizeof cell[0], "%d", i);
    std::snprintf(cell[1], sizeof cell[1], "%s", i < (int)tokens.size() ? tokens[(size_t)i].c_str() : "?");
    keys_text(t, (size_t)r, cell[2], sizeof cell[2]);
    std::snprintf(cell[3], sizeof cell[3], "%.4f", t.terms[(size_t)r]);
  };
  for (int r = 0; r < shown; ++r) {
    fill(r);
    for (int c = 0; c < 4; ++c) w[c] = std::max(w[c], ImGui::CalcTextSize(cell[c]).x);
  }
  const ImGuiStyle& st = ImGui::GetStyle();
  const float need = w[0] + w[1] + w[2] + w[3] + 8 * st.CellPadding.x + 5.0f;
  const float avail = ImGui::GetContentRegionAvail().x;
  inspector_log_table(need, avail);
  const float row_h = ImGui::GetTextLineHeight() + 2 * st.CellPadding.y + 1.0f;
  const float below = ImGui::GetTextLineHeightWithSpacing();  // the table is the last thing drawn
  const int visible = std::clamp((int)((ImGui::GetContentRegionAvail().y - below) / row_h) - 2, 3, 10);
  ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  ImVec2 size(0, 0);
  if (shown > visible) {
    flags |= ImGuiTableFlags_ScrollY;
    size.y = row_h * (visible + 1.5f);
  }
  if (need > avail) {
    flags |= ImGuiTableFlags_ScrollX;
    if (size.y == 0) size.y = row_h * (shown + 1) + st.ScrollbarSize + 2.0f;
  }
  if (!ImGui::BeginTable("score terms", 4, flags, size)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (int c = 0; c < 4; ++c) ImGui::TableSetupColumn(head[c], ImGuiTableColumnFlags_WidthFixed, w[c]);
  ImGui::TableHeadersRow();
  char line[200];
  std::snprintf(line, sizeof line, "%s | %s | %s | %s", head[0], head[1], head[2], head[3]);
  inspector_log_line(line, line + std::strlen(line), 0);
  for (int r = 0; r < shown; ++r) {
    fill(r);
    ImGui::TableNextRow();
    for (int c = 0; c < 4; ++c) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(cell[c]);
    }
    std::snprintf(line, sizeof line, "%s | %s | %s | %s", cell[0], cell[1], cell[2], cell[3]);
    inspector_log_line(line, line + std::strlen(line), 0);
  }
  ImGui::EndTable();
  item_registry().add("inspector terms", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  if (shown < n) flow_text(tr("(the first 64 rows)"), true);
}

// Whether the score is above chance, and the job the head is named for.
static void score_verdict(AppModel& m, const ScoreRef& r, double value) {
  const double chance = score_chance(m, r);
  const int job = score_head_job(m, r);
  const HeadScoreKind k = static_cast<HeadScoreKind>(r.kind);
  if (job == r.kind)
    flow(tr("Chance (uniform attention over the keys each query sees) is %.3f; %.3f is this head's largest score "
            "\xE2\x89\xA5 %.2f and \xE2\x89\xA5 %.0f \xC3\x97 chance: %s."),
         chance, value, kJobMin, kJobOverChance, head_job_name(k));
  else if (job >= 0)
    flow(tr("Chance (uniform attention over the keys each query sees) is %.3f. This head is named for another of "
            "its scores: %s."),
         chance, head_job_name(static_cast<HeadScoreKind>(job)));
  else
    flow(tr("Chance (uniform attention over the keys each query sees) is %.3f. No score of this head is "
            "\xE2\x89\xA5 %.2f and \xE2\x89\xA5 %.0f \xC3\x97 chance: no job is named."),
         chance, kJobMin, kJobOverChance);
}

// A head's score (hovered or pinned in Compare heads): what it means, its definition
// with this head's numbers, the rows that make it, and how it compares with chance.
static void score_panel(AppModel& m, const ScoreRef& r) {
  HeadsGridWidgets& w = m.widgets.heads_grid;
  if (w.pinned == r) {
    if (ImGui::SmallButton(L("Unpin score"))) w.pinned = ScoreRef{};
    ImGui::SameLine();
    ImGui::TextDisabled("%s", tr("pinned"));
  }
  const HeadScoreKind k = static_cast<HeadScoreKind>(r.kind);
  const HeadScoreTerms& t = score_terms(m, r);
  // The numbers first, what the score means after, the rows last (they scroll, and
  // the Inspector with them): a short Inspector (1280×720) still shows the value and the verdict.
  flow(r.probe ? tr("Layer %d, head %d: its %s score on the probe") : tr("Layer %d, head %d: its %s score on this input"),
       r.layer, r.head, head_score_name(k));
  char formula[512];
  head_score_formula(t, formula, sizeof formula);
  flow_text(formula);
  score_verdict(m, r, t.value);
  ImGui::Separator();
  flow_text(head_score_meaning(k), true);
  const TrainedModel* model = m.engine.stack().model();
  score_table(t, r.probe && model ? model->probe : m.engine.tokens());
}

// [SECTION] Panel -----------------------------------------------------------------------

// The focused cell's header: its stage as a learner reads it ("weights h0" /
// "注意力权重 weights，头 0"), where it is, and which tokens it relates.
static void header(const AppModel& m, const CellRef& c) {
  char term[96];
  if (stage_is_square(c.stage)) {
    stage_term(c.stage, c.head, term, sizeof term);
    flow(tr("%s [%d][%d]: query \"%s\" \xE2\x86\x92 key \"%s\""), term, c.row, c.col, token_at(m, c.row),
         token_at(m, c.col));
  } else if (!stage_rows_are_tokens(c.stage)) {  // parameters
    flow(NO_TR("%s [%d][%d]"), stage_name(c.stage), c.row, c.col);
  } else {
    stage_term(c.stage, stage_is_per_head(c.stage) ? c.head : -1, term, sizeof term);
    flow(tr("%s [%d][%d] (token \"%s\")"), term, c.row, c.col, token_at(m, c.row));
  }
}

// The focused cell's Explanation, asked of the engine when the cell or the result
// changes, not every frame (explain() builds strings and vectors: allocations).
struct ExplainCache {
  CellRef cell;
  ResultKey result;
  uint64_t version = 0;  // the cell's stage's
  bool computed = false;
  Explanation e;
};

namespace {
const Explanation& explanation_of(AppModel& m, const CellRef& c) {
  if (!m.explain_cache) m.explain_cache = std::make_shared<ExplainCache>();
  ExplainCache& x = *m.explain_cache;
  const ResultKey key = m.result_key();
  const uint64_t v = m.engine.version(c.stage, c.head);
  if (x.computed && x.cell == c && x.result == key && x.version == v)
    return x.e;
  x.e = m.engine.explain(c.stage, c.head, c.row, c.col);  // a model layer's X: its residual stream
  x.cell = c;
  x.result = key;
  x.version = v;
  x.computed = true;
  return x.e;
}
}  // namespace

void inspector_panel(AppModel& m) {
  inspector_log_begin();
  ScoreRef score;
  if (score_focus(m, &score)) {  // a head's score, hovered or pinned in Compare heads
    score_panel(m, score);
    return;
  }
  const CellRef& c = m.focus();
  if (!c.valid || !m.engine.has_result()) {
    flow_text(tr("Hover over any cell of any heatmap to see how its number was computed. Click to pin it; click the "
                 "pinned cell again (or Unpin) to release."));
    return;
  }
  const Explanation& e = explanation_of(m, c);
  if (!e.ok) {
    flow_text(tr("(that cell no longer exists)"), true);
    return;
  }
  if (m.view.pinned.valid) {
    if (ImGui::SmallButton(L("Unpin"))) m.view.pinned = CellRef{};
    ImGui::SameLine();
    ImGui::TextDisabled("%s", tr("pinned"));
  }
  header(m, c);
  explain_body(m, e, c);
}

}  // namespace attnviz::ui
