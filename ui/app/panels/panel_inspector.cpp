// panel_inspector.cpp: "how did this number come to be" for the focused cell.
// Everything shown comes from Pipeline::explain(): the UI formats, never computes.
//
// [SECTION] index
//   Text        numbers without −0, lines wrapped at spaces only, the per-frame log
//   Dot table   the terms of a dot product, one row per term
//   Formula     the cell's formula, worded in the interface's language from the
//               Explanation's fields (the engine's English formula is not shown)
//   Stages      what each stage's cell is made of
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
#include "app/panels/panels.h"
#include "app/panels/stage_flow.h"
#include "attnviz/explain.h"
#include "attnviz/pipeline.h"
#include "imgui.h"

namespace attnviz::ui {

// [SECTION] Text ------------------------------------------------------------------------

static InspectorLog g_log;
const InspectorLog& inspector_log() { return g_log; }

static void log_append(const char* b, const char* e) {
  const int n = (int)(e - b);
  if (g_log.len + n + 1 >= (int)sizeof g_log.text) {
    g_log.truncated = true;
    return;
  }
  std::memcpy(g_log.text + g_log.len, b, (size_t)n);
  g_log.len += n;
  g_log.text[g_log.len] = '\0';
}

static void log_line(const char* b, const char* e, float width) {
  log_append(b, e);
  static const char nl[] = "\n";
  log_append(nl, nl + 1);
  ++g_log.lines;
  g_log.widest = std::max(g_log.widest, width);
}

const char* inspector_number(float v, int digits, char* buf, size_t n) {
  if (std::isnan(v)) return std::snprintf(buf, n, "nan"), buf;
  if (std::isinf(v)) return std::snprintf(buf, n, v < 0 ? "-inf" : "inf"), buf;
  const double x = v == 0.0f ? 0.0 : (double)v;  // −0 → 0
  const double a = std::fabs(x);
  if (a != 0.0 && (a >= 1e5 || a < 1e-3)) std::snprintf(buf, n, "%.*e", std::max(digits - 3, 1), x);
  else std::snprintf(buf, n, "%.*f", digits, x);
  return buf;
}

// Length in bytes of the UTF-8 character starting at p (1 for a broken byte).
static int utf8_len(const char* p) {
  const unsigned char c = (unsigned char)*p;
  return c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

// The code point starting at p (never reads past end; a broken byte reads as itself).
static unsigned code_point(const char* p, const char* end, int* len) {
  const unsigned char c = (unsigned char)*p;
  int n = utf8_len(p);
  if (p + n > end) n = 1;
  *len = n;
  if (n == 1) return c;
  unsigned cp = c & (0x7Fu >> n);
  for (int k = 1; k < n; ++k) cp = (cp << 6) | ((unsigned char)p[k] & 0x3Fu);
  return cp;
}

// Chinese characters and full-width punctuation: a line may break beside them
// (Chinese puts no spaces between words).
static bool wide(unsigned c) {
  return (c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7AF) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFFEF);
}
// Punctuation a line must not start with (closing) or end with (opening).
static bool closing(unsigned c) {
  switch (c) {
    case 0xFF0C: case 0x3002: case 0x3001: case 0xFF1B: case 0xFF1A: case 0xFF01: case 0xFF1F:  // ，。、；：！？
    case 0xFF09: case 0x300D: case 0x300F: case 0x3011: case 0x300B: case 0x3009: case 0x201D: case 0x2019:  // ）」』】》〉”’
    case ')': case ']': case ',': case '.': case ';': case ':': case '!': case '?':
      return true;
    default: return false;
  }
}
static bool opening(unsigned c) {
  switch (c) {
    case 0xFF08: case 0x300C: case 0x300E: case 0x3010: case 0x300A: case 0x3008: case 0x201C: case 0x2018:  // （「『【《〈“‘
    case '(': case '[':
      return true;
    default: return false;
  }
}

// The end of the unit of text that starts at p: the next space, or the first place
// between two characters where a line may break in Chinese text (beside a Chinese
// character, not before closing punctuation nor after opening). A run of Latin
// letters, digits and ASCII signs is one unit: a number or a name never splits.
static const char* unit_end(const char* p, const char* end) {
  if (p >= end || *p == ' ') return p;
  int la = 0, lb = 0;
  unsigned a = code_point(p, end, &la);
  const char* q = p + la;
  while (q < end && *q != ' ') {
    const unsigned b = code_point(q, end, &lb);
    if ((wide(a) || wide(b)) && !closing(b) && !opening(a)) return q;
    a = b;
    q += lb;
  }
  return q;
}

const char* inspector_wrap(const char* begin, const char* end, float width) {
  const char* fits = nullptr;  // end of the last unit that fits
  for (const char* p = begin; p < end;) {
    const char* q = unit_end(p, end);  // [p, q) is a word, or a piece of Chinese text
    if (ImGui::CalcTextSize(begin, q).x > width) {
      if (fits) return fits;
      // The first unit alone is wider than the line: cut it at the last character that fits.
      const char* cut = begin + utf8_len(begin);
      while (cut < q) {
        const char* next = cut + utf8_len(cut);
        if (next > q || ImGui::CalcTextSize(begin, next).x > width) break;
        cut = next;
      }
      return std::min(cut, end);
    }
    fits = q;
    p = q < end && *q == ' ' ? q + 1 : q;
  }
  return end;
}

// Registers the item just drawn as "inspector line N" (N counts from 0 each frame), with
// its whole rectangle, not clipped: browser tests check that every line lies inside the
// window. Table rows are not lines; a table is "inspector terms".
static int g_line_items = 0;
static void register_line() {
  char label[32];
  std::snprintf(label, sizeof label, "inspector line %d", g_line_items++);
  item_registry().add(label, ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
}

// Draws `text` wrapped to the panel's width, breaking only at spaces ('\n' forces a break).
static void flow_text(const char* text, bool dim = false) {
  const float width = std::max(ImGui::GetContentRegionAvail().x, 40.0f);
  g_log.avail = std::max(g_log.avail, width);
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
      log_line(p, le, ImGui::CalcTextSize(p, le).x);
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
  g_log.avail = std::max(g_log.avail, avail);
  g_log.widest = std::max(g_log.widest, std::min(need, avail));  // wider: it scrolls, counted below
  if (need > avail) ++g_log.tables_scrolling;
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
    log_line(row, row + std::strlen(row), 0);
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
      log_line(row, row + std::strlen(row), 0);
    }
    ImGui::EndTable();
    item_registry().add("inspector terms", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  }
  if (shown < n) flow_text(tr("(the first 64 terms)"), true);
  Nums f;
  if (e.has_bias) flow(tr("sum = %s, + bias %s = %s"), f(e.sum), f(e.bias), f(e.value));
  else flow(tr("sum = %s"), f(e.sum));
}

// [SECTION] Formula ---------------------------------------------------------------------

// Six significant digits and no "-0", as explain() writes the fill.
static const char* num6(float v, char* buf, size_t n) {
  std::snprintf(buf, n, "%.6g", v == 0.0f ? 0.0 : (double)v);
  return buf;
}

static int scaled_formula(const Explanation& e, char* buf, size_t n) {
  const int i = e.i, j = e.j;
  const bool temp = e.temperature != 1.0;
  switch (e.scale_mode) {
    case ScaleMode::none:
      return temp ? std::snprintf(buf, n, tr("scaled[%d][%d] = scores[%d][%d] / temperature"), i, j, i, j)
                  : std::snprintf(buf, n, tr("scaled[%d][%d] = scores[%d][%d] (no scaling)"), i, j, i, j);
    case ScaleMode::d_out:
      return temp ? std::snprintf(buf, n, tr("scaled[%d][%d] = scores[%d][%d] / (\xE2\x88\x9A" "d_out \xC3\x97 temperature)"),
                                  i, j, i, j)
                  : std::snprintf(buf, n, NO_TR("scaled[%d][%d] = scores[%d][%d] / \xE2\x88\x9A" "d_out"), i, j, i, j);
    default:
      return temp ? std::snprintf(buf, n, tr("scaled[%d][%d] = scores[%d][%d] / (\xE2\x88\x9Ahead_dim \xC3\x97 temperature)"),
                                  i, j, i, j)
                  : std::snprintf(buf, n, NO_TR("scaled[%d][%d] = scores[%d][%d] / \xE2\x88\x9Ahead_dim"), i, j, i, j);
  }
}

static int masked_formula(const Explanation& e, char* buf, size_t n) {
  const int i = e.i, j = e.j;
  if (!e.masked && e.alibi)
    return std::snprintf(buf, n, tr("masked[%d][%d] = scaled[%d][%d] + bias[%d][%d] (not masked)"), i, j, i, j, i, j);
  if (!e.masked) return std::snprintf(buf, n, tr("masked[%d][%d] = scaled[%d][%d] (not masked)"), i, j, i, j);
  char fill[32];
  num6(e.fill, fill, sizeof fill);
  switch (e.reason) {  // the reason in words of this language (the engine's mask_reason_name is English)
    case MaskReason::causal: return std::snprintf(buf, n, tr("masked[%d][%d] = mask_fill %s (causal)"), i, j, fill);
    case MaskReason::padding: return std::snprintf(buf, n, tr("masked[%d][%d] = mask_fill %s (padding)"), i, j, fill);
    case MaskReason::causal_and_padding:
      return std::snprintf(buf, n, tr("masked[%d][%d] = mask_fill %s (causal and padding)"), i, j, fill);
    case MaskReason::window: return std::snprintf(buf, n, tr("masked[%d][%d] = mask_fill %s (window)"), i, j, fill);
    case MaskReason::window_and_padding:
      return std::snprintf(buf, n, tr("masked[%d][%d] = mask_fill %s (window and padding)"), i, j, fill);
    default: return std::snprintf(buf, n, NO_TR("masked[%d][%d] = mask_fill %s"), i, j, fill);
  }
}

static int dot_formula(const Pipeline& p, const Explanation& e, char* buf, size_t n) {
  const int i = e.i, j = e.j;
  const char* name = stage_name(e.stage);
  int len = 0;
  if (e.stage == Stage::output) {
    if (!p.state().out_proj) return std::snprintf(buf, n, tr("output[%d][%d] = concat (no output projection)"), i, j);
    len = std::snprintf(buf, n, NO_TR("output[%d][%d] = \xCE\xA3_d concat[%d][d] \xC2\xB7 W_o[d][%d]"), i, j, i, j);
    if (e.has_bias && len > 0 && (size_t)len < n) len += std::snprintf(buf + len, n - (size_t)len, " + b_o[%d]", j);
    return len;
  }
  const char w = e.stage == Stage::Q ? 'q' : e.stage == Stage::K ? 'k' : 'v';
  len = std::snprintf(buf, n, NO_TR("%s[%d][%d] = \xCE\xA3_d X[%d][d] \xC2\xB7 W_%c[d][%d]"), name, i, j, i, w, j);
  if (e.has_bias && len > 0 && (size_t)len < n) len += std::snprintf(buf + len, n - (size_t)len, " + b_%c[%d]", w, j);
  return len;
}

int inspector_formula(const Pipeline& p, const Explanation& e, char* buf, size_t n) {
  const int i = e.i, j = e.j, h = e.head;
  const State& s = p.state();
  const bool kv = s.kv_heads() != s.num_heads;  // GQA / MQA: name the K/V head a query head reads
  switch (e.stage) {
    case Stage::X:
      return std::snprintf(buf, n, tr("X[%d][%d] = embedding of \"%s\", column %d%s"), i, j,
                           i < (int)s.tokens.size() ? s.tokens[i].c_str() : "?", j,
                           s.positional == Positional::sinusoidal ? tr(" + sinusoidal position") : "");
    case Stage::Q: case Stage::K: case Stage::V: case Stage::output:
      return dot_formula(p, e, buf, n);
    case Stage::q_rot:
    case Stage::k_rot: {
      const char src = e.stage == Stage::q_rot ? 'Q' : 'K';
      const bool first = j < e.rope_partner;  // the pair's first: x·cos − partner·sin; second: + partner·sin
      int len = std::snprintf(buf, n,
                              NO_TR("%s[%d][%d] = %c[%d][%d] \xC2\xB7 cos \xCE\xB8 %s %c[%d][%d] \xC2\xB7 sin \xCE\xB8, \xCE\xB8 = %d "
                                    "\xC2\xB7 inv_freq[%d]"),
                              stage_name(e.stage), i, j, src, i, j, first ? "\xE2\x88\x92" : "+", src, i, e.rope_partner, i,
                              e.rope_k);
      if (len < 0 || (size_t)len >= n) return len;
      if (e.stage == Stage::k_rot && kv)
        return len + std::snprintf(buf + len, n - (size_t)len, tr(" (head %d, K/V head %d)"), h, e.kv_head);
      return len + std::snprintf(buf + len, n - (size_t)len, tr(" (head %d)"), h);
    }
    case Stage::bias: {
      char m[32];
      num6(e.slope, m, sizeof m);
      return std::snprintf(buf, n, NO_TR("bias[%d][%d] = \xE2\x88\x92m_%d \xC2\xB7 |%d \xE2\x88\x92 %d| = \xE2\x88\x92%s \xC2\xB7 %d (ALiBi)"),
                           i, j, h, i, j, m, e.distance);
    }
    case Stage::scores: {
      const char* q = s.positional == Positional::rope ? "q_rot_" : "q_";
      const char* k = s.positional == Positional::rope ? "k_rot_" : "k_";
      if (kv)
        return std::snprintf(buf, n,
                             tr("scores[%d][%d] = %s%d \xC2\xB7 %s%d = \xCE\xA3_d %s%d[d] \xC2\xB7 %s%d[d] (head %d, K/V head %d)"),
                             i, j, q, i, k, j, q, i, k, j, h, e.kv_head);
      if (s.positional == Positional::rope)
        return std::snprintf(buf, n, tr("scores[%d][%d] = %s%d \xC2\xB7 %s%d = \xCE\xA3_d %s%d[d] \xC2\xB7 %s%d[d] (head %d)"),
                             i, j, q, i, k, j, q, i, k, j, h);
      return std::snprintf(buf, n, tr("scores[%d][%d] = q_%d \xC2\xB7 k_%d = \xCE\xA3_d q_%d[d] \xC2\xB7 k_%d[d] (head %d)"),
                           i, j, i, j, i, j, h);
    }
    case Stage::scaled: return scaled_formula(e, buf, n);
    case Stage::masked: return masked_formula(e, buf, n);
    case Stage::weights:
      if (e.safe_zeroed)
        return std::snprintf(buf, n, tr("weights[%d][%d] = 0 (the whole row is \xE2\x88\x92inf and safe_softmax is on)"), i, j);
      return std::snprintf(buf, n,
                           tr("weights[%d][%d] = exp(masked[%d][%d] \xE2\x88\x92 row max) / \xCE\xA3_s exp(masked[%d][s] "
                              "\xE2\x88\x92 row max)"),
                           i, j, i, j, i);
    case Stage::dropped:
      if (!e.dropout_active) return std::snprintf(buf, n, tr("dropped[%d][%d] = weights (dropout is off)"), i, j);
      return e.kept ? std::snprintf(buf, n, tr("dropped[%d][%d] = weights[%d][%d] \xC3\x97 1/(1 \xE2\x88\x92 p) (kept)"),
                                    i, j, i, j)
                    : std::snprintf(buf, n, tr("dropped[%d][%d] = weights[%d][%d] \xC3\x97 0 (dropped)"), i, j, i, j);
    case Stage::context:
      if (kv)
        return std::snprintf(buf, n, tr("context[%d][%d] = \xCE\xA3_s dropped[%d][s] \xC2\xB7 v_s[%d] (head %d, K/V head %d)"),
                             i, j, i, j, h, e.kv_head);
      return std::snprintf(buf, n, tr("context[%d][%d] = \xCE\xA3_s dropped[%d][s] \xC2\xB7 v_s[%d] (head %d)"), i, j, i, j, h);
    case Stage::concat: {
      const int hd = std::max(p.head_dim(), 1);
      return std::snprintf(buf, n, tr("concat[%d][%d] = context of head %d, context[%d][%d]"), i, j, j / hd, i, j % hd);
    }
    default:  // parameters
      return std::snprintf(buf, n, tr("%s[%d][%d] is a parameter (x\xC2\xB7W orientation)"), stage_name(e.stage), i, j);
  }
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
  flow(tr("normaliser \xCE\xA3_s exp(masked[s] \xE2\x88\x92 row max) = %s"), f(e.normaliser));
  flow(tr("weight = %s / %s = %s"), f(e.exp_term), f(e.normaliser), f(e.value));
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
  x.e = m.engine.pipeline().explain(c.stage, c.head, c.row, c.col);
  x.cell = c;
  x.result = key;
  x.version = v;
  x.computed = true;
  return x.e;
}
}  // namespace

void inspector_panel(AppModel& m) {
  g_log.len = 0;
  g_log.text[0] = '\0';
  g_log.lines = 0;
  g_log.widest = g_log.avail = 0;
  g_log.truncated = false;
  g_log.tables_scrolling = 0;
  g_line_items = 0;
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
    item_register("Unpin");
    ImGui::SameLine();
    ImGui::TextDisabled("%s", tr("pinned"));
  }
  header(m, c);
  explain_body(m, e, c);
}

}  // namespace attnviz::ui
