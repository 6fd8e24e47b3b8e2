// inspector_text.cpp: see inspector_text.h. How the Inspector writes text: numbers,
// where lines wrap, the cell's formula in the interface's language, and the log of
// what the last frame drew. The drawing is panel_inspector.cpp's.
#include "app/text/inspector_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "app/text/i18n.h"
#include "attnviz/explain.h"
#include "attnviz/model.h"
#include "imgui.h"

namespace attnviz::ui {

// [SECTION] Log and numbers -------------------------------------------------------------

// What the Inspector drew in the last frame (tests read it; the panel writes it).
static InspectorLog g_log;
const InspectorLog& inspector_log() { return g_log; }

void inspector_log_begin() {
  g_log.len = 0;
  g_log.text[0] = '\0';
  g_log.lines = g_log.line_items = g_log.tables_scrolling = 0;
  g_log.widest = g_log.avail = 0;
  g_log.truncated = false;
}
void inspector_log_room(float width) { g_log.avail = std::max(g_log.avail, width); }
void inspector_log_table(float need, float avail) {
  inspector_log_room(avail);
  g_log.widest = std::max(g_log.widest, std::min(need, avail));  // wider: it scrolls, counted here
  if (need > avail) ++g_log.tables_scrolling;
}
int inspector_log_item() { return g_log.line_items++; }

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

void inspector_log_line(const char* b, const char* e, float width) {
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

// [SECTION] Formula ---------------------------------------------------------------------

// msg_format (attnviz/messages.h) into a buffer: {0}..{9} become args[k]. Allocates
// nothing, as the Inspector draws every frame. Returns the full length, like snprintf.
static int fill_template(const char* tmpl, const std::vector<std::string>& args, char* buf, size_t n) {
  size_t len = 0;
  auto put = [&](const char* s, size_t k) {
    if (len + 1 < n) std::memcpy(buf + len, s, std::min(k, n - 1 - len));  // room for the '\0'
    len += k;
  };
  for (const char* p = tmpl; *p;) {
    if (p[0] == '{' && p[1] >= '0' && p[1] <= '9' && p[2] == '}' && (size_t)(p[1] - '0') < args.size()) {
      const std::string& v = args[(size_t)(p[1] - '0')];
      put(v.data(), v.size());
      p += 3;
    } else {
      put(p, 1);
      ++p;
    }
  }
  if (n > 0) buf[std::min(len, n - 1)] = '\0';
  return (int)len;
}

int inspector_formula(const Pipeline&, const Explanation& e, char* buf, size_t n) {
  // One source: the engine's table (analysis/formulas.cpp) and its values. A template
  // with words is looked up in the catalogue by its English text; maths is the same in
  // every language.
  const char* tmpl = formula_template(e.formula_id);
  return fill_template(formula_has_words(e.formula_id) ? tr(tmpl) : tmpl, e.formula_args, buf, n);
}

// [SECTION] Head scores -----------------------------------------------------------------

static int kind_index(HeadScoreKind k) { return std::clamp(static_cast<int>(k), 0, kHeadScoreKinds - 1); }

const char* head_score_name(HeadScoreKind k) {
  static const char* const names[] = {N_("previous-token"), N_("induction"), N_("first-token"), N_("duplicate-token")};
  return tr(names[kind_index(k)]);
}

const char* head_score_short(HeadScoreKind k) {
  static const char* const names[] = {N_("prev"), N_("ind"), N_("first"), N_("dup")};
  return tr(names[kind_index(k)]);
}

const char* head_job_name(HeadScoreKind k) {
  static const char* const names[] = {N_("previous-token head"), N_("induction head"), N_("first-token head"),
                                      N_("duplicate-token head")};
  return tr(names[kind_index(k)]);
}

const char* head_score_meaning(HeadScoreKind k) {
  static const char* const text[] = {
      N_("How much each token attends to the token just before it. A previous-token head scores near 1: it writes "
         "each position's predecessor into the residual stream, where an induction head of a later layer reads it."),
      N_("On a repeat, how much each token attends to the token that followed its earlier copy. An induction head "
         "scores near 1: having seen A B … A, it looks at B, and so the model predicts B."),
      N_("How much weight each token puts on the first token. Heads often park their weight there when their job "
         "does not apply at a position."),
      N_("How much each token attends to the earlier copies of itself."),
  };
  return tr(text[kind_index(k)]);
}

int head_score_formula(const HeadScoreTerms& t, char* buf, size_t n) {
  char sum[32], value[32];
  std::snprintf(sum, sizeof sum, "%.3f", t.sum);
  std::snprintf(value, sizeof value, "%.3f", t.value);
  const int rows = static_cast<int>(t.rows.size());
  switch (t.kind) {
    case HeadScoreKind::previous_token:
      return std::snprintf(buf, n, tr("previous-token = mean of A[i, i\xE2\x88\x92" "1] over i = 1\xE2\x80\xA6%d = %s / %d = %s"),
                           t.seq_len - 1, sum, rows, value);
    case HeadScoreKind::first_token:
      return std::snprintf(buf, n, tr("first-token = mean of A[i, 0] over i = 0\xE2\x80\xA6%d = %s / %d = %s"),
                           t.seq_len - 1, sum, rows, value);
    case HeadScoreKind::duplicate_token:
    case HeadScoreKind::induction:
      break;
  }
  const bool ind = t.kind == HeadScoreKind::induction;
  if (rows == 0)
    return std::snprintf(buf, n, tr("%s = 0: no token of this input appeared before (nothing repeats)."),
                         head_score_name(t.kind));
  if (ind)
    return std::snprintf(buf, n,
                         tr("induction = mean over the %d rows whose token appeared before of \xCE\xA3 A[i, j + 1] over its "
                            "earlier copies j = %s / %d = %s"),
                         rows, sum, rows, value);
  return std::snprintf(buf, n,
                       tr("duplicate-token = mean over the %d rows whose token appeared before of \xCE\xA3 A[i, j] over "
                          "its earlier copies j = %s / %d = %s"),
                       rows, sum, rows, value);
}

}  // namespace attnviz::ui
