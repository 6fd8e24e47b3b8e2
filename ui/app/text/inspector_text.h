// inspector_text.h: how the Inspector writes text (drawn by panel_inspector.cpp),
// exposed so tests can check it: numbers with no "-0.0000", lines wrapped at spaces and beside
// Chinese characters (a number never splits across lines), the cell's formula in the
// interface's language, and a log of what the last frame drew.
#pragma once
#include <cstddef>

namespace attnviz {
class Pipeline;
struct Explanation;
struct HeadScoreTerms;
enum class HeadScoreKind : int;
}  // namespace attnviz

namespace attnviz::ui {

// `v` with `digits` decimals, as format_value (heatmap.h) writes it, except that a
// zero of either sign is written 0.0000: the sign of a zero means nothing to a
// learner. Writes into buf (n ≥ 32) and returns it.
const char* inspector_number(float v, int digits, char* buf, size_t n);

// Where the line that starts at `begin` ends when [begin, end) is wrapped to `width`
// pixels of the current ImGui font: after the last whole word that fits, so lines
// break at spaces, and in Chinese text (no spaces) beside a Chinese character, but
// not before closing punctuation (，。）”…) nor after opening (（“…); a run of Latin
// letters, digits and signs never breaks. A word wider than a whole line is cut at
// the last character that fits (only a long token can be: numbers are short), and
// a line holds at least one character. Never past `end`. The Stages flow wraps its
// operation lines with it too.
const char* inspector_wrap(const char* begin, const char* end, float width);

// The first line the Inspector writes for a cell: its formula, e.g.
// "scores[1][2] = q_1 · k_2 = Σ_d q_1[d] · k_2[d] (head 0)", worded in the
// interface's language from the engine's one table of formulas (attnviz/explain.h,
// Formula: the English template is the catalogue's key, the values fill it), so in
// English it is Explanation::formula character for character. Returns the length.
int inspector_formula(const Pipeline& p, const Explanation& e, char* buf, size_t n);

// Head scores (Compare heads, attnviz/model.h), in the interface's language:
//   head_score_name       "previous-token", "induction", "first-token", "duplicate-token"
//   head_score_short      "prev", "ind", "first", "dup": the grid's compact labels
//   head_job_name         "previous-token head", "induction head", ...
//   head_score_meaning    what the score measures and what a head that scores high does
const char* head_score_name(HeadScoreKind k);
const char* head_score_short(HeadScoreKind k);
const char* head_job_name(HeadScoreKind k);
const char* head_score_meaning(HeadScoreKind k);
// The score's definition with this head's numbers, from its terms (head_score_terms),
// e.g. "previous-token = mean of A[i, i−1] over i = 1…48 = 33.408 / 48 = 0.696"; the
// value with 3 decimals, as the grid shows it. Returns the length, like snprintf.
int head_score_formula(const HeadScoreTerms& t, char* buf, size_t n);

// What the Inspector drew in the last frame, for tests: every text line and table
// row in order, one per '\n' (table cells separated by " | "), and how wide the
// widest of them was against the width it had.
struct InspectorLog {
  char text[8192] = {};
  int len = 0;
  int lines = 0;
  float widest = 0;  // pixels, the widest line or table as drawn
  float avail = 0;   // pixels the Inspector had for them
  int tables_scrolling = 0;  // tables wider than the panel, drawn with a sideways scrollbar
  bool truncated = false;  // text did not fit in the log (never in practice)
  int line_items = 0;      // "inspector line N" items registered this frame
};
const InspectorLog& inspector_log();

// Writing the log, for the Inspector panel: a new frame; a line drawn `width` wide;
// the width the text had; a table `need` wide in `avail`; the next line item's number.
void inspector_log_begin();
void inspector_log_line(const char* begin, const char* end, float width);
void inspector_log_room(float width);
void inspector_log_table(float need, float avail);
int inspector_log_item();

}  // namespace attnviz::ui
