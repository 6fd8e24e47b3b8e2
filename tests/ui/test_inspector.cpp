// test_inspector.cpp: the Inspector's typography (issue 21, item 8). Numbers never
// split across lines and never read −0.0000; the scale is written √head_dim = √2 =
// 1.4142 (and the temperature when it is not 1); dot-product tables name their index
// d or s and have exactly one row per term; no line is wider than the panel. The
// mouse hovers real cells of the headless app; what the Inspector drew is read from
// its log (inspector_text.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "app/app.h"
#include "app/text/inspector_text.h"
#include "headless.h"
#include "imgui.h"

namespace {

using attnviz::ui::App;
using attnviz::ui::inspector_log;
using attnviz::ui::inspector_number;
using attnviz::ui::inspector_wrap;
using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;

// Tutorial 004's six tokens, d_out 2, one head: head_dim 2.
std::string journey(const char* extra = "") {
  return std::string(R"({"tokens": ["Your", "journey", "starts", "with", "one", "step"],
    "d_model": 3, "d_out": 2, "num_heads": 1,
    "embedding": {"values": [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                             [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]},
    "weights": {"init": "torch_rand", "seed": 123})") + extra + "}";
}

// Moves the pointer over cell (i, j) of the heatmap `label` (rows × cols) and draws
// frames until the Inspector shows it; returns the Inspector's text.
std::string hover(Headless& h, App& app, const char* label, int rows, int cols, int i, int j) {
  float r[4];
  EXPECT_TRUE(app.item_rect(label, r)) << label;
  ImGui::GetIO().AddMousePosEvent(r[0] + (j + 0.5f) * r[2] / cols, r[1] + (i + 0.5f) * r[3] / rows);
  for (int k = 0; k < 3; ++k) h.frame(app);
  return inspector_log().text;
}

// The Inspector's text with its wrapped lines joined by spaces, to read what it says
// whatever the panel's width (table rows stay lines of their own).
std::string flat(const std::string& t) {
  std::string out;
  for (size_t a = 0, b; a < t.size(); a = b + 1) {
    b = t.find('\n', a);
    if (b == std::string::npos) b = t.size();
    const std::string line = t.substr(a, b - a);
    const bool row = line.find(" | ") != std::string::npos;
    if (!out.empty()) out += row || out.back() == '\n' ? "\n" : " ";
    out += line;
    if (row) out += "\n";
  }
  return out;
}

// Every line the Inspector drew fits the width it had, and none ends inside a
// number that the next line continues (a digit or '.' on both sides of the break).
void expect_laid_out() {
  const auto& log = inspector_log();
  const std::string text = log.text;
  EXPECT_FALSE(log.truncated);
  EXPECT_GT(log.avail, 0.0f);
  EXPECT_LE(log.widest, log.avail + 0.5f) << "a line is wider than the Inspector:\n" << text;
  EXPECT_EQ(log.tables_scrolling, 0) << "a table of terms does not fit the Inspector:\n" << text;
  // Lines of text (table rows, holding " | ", are not wrapped text).
  std::vector<std::string> lines;
  for (size_t a = 0, b; a < text.size(); a = b + 1) {
    b = text.find('\n', a);
    if (b == std::string::npos) b = text.size();
    lines.push_back(text.substr(a, b - a));
  }
  auto num_char = [](char c) { return (c >= '0' && c <= '9') || c == '.'; };
  for (size_t k = 0; k + 1 < lines.size(); ++k) {
    const std::string &a = lines[k], &b = lines[k + 1];
    if (a.empty() || b.empty() || a.find(" | ") != std::string::npos || b.find(" | ") != std::string::npos) continue;
    EXPECT_FALSE(num_char(a.back()) && num_char(b.front())) << "a number split:\n" << text;
  }
  EXPECT_EQ(text.find("-0.0000"), std::string::npos) << text;
  EXPECT_EQ(text.find("[k]"), std::string::npos) << text;
}

TEST(InspectorText, NumbersHaveNoNegativeZero) {
  char b[32];
  EXPECT_STREQ(inspector_number(-0.0f, 4, b, sizeof b), "0.0000");
  EXPECT_STREQ(inspector_number(0.0f, 4, b, sizeof b), "0.0000");
  EXPECT_STREQ(inspector_number(-0.0f, 6, b, sizeof b), "0.000000");
  EXPECT_STREQ(inspector_number(-1.5f, 4, b, sizeof b), "-1.5000");
  EXPECT_STREQ(inspector_number(-0.00002f, 4, b, sizeof b), "-2.0e-05");
  EXPECT_STREQ(inspector_number(-INFINITY, 4, b, sizeof b), "-inf");
  EXPECT_STREQ(inspector_number(NAN, 4, b, sizeof b), "nan");
}

TEST(InspectorText, WrapsOnlyAtSpaces) {
  Headless h;
  ImGui::NewFrame();  // a current font for CalcTextSize
  const char* text = "scaled = 0.123456 / 2.631810 = 0.046909 and exp(-1.234567 − row max 0.518000) = 0.172";
  const char* end = text + std::strlen(text);
  // From the widest word (a line narrower than a number cannot hold it whole) up.
  float widest_word = 0;
  for (const char* p = text; p < end;) {
    const char* q = p;
    while (q < end && *q != ' ') ++q;
    widest_word = std::max(widest_word, ImGui::CalcTextSize(p, q).x);
    p = q + 1;
  }
  for (float width = widest_word; width < 700; width += 7) {
    for (const char* p = text; p < end;) {
      const char* le = inspector_wrap(p, end, width);
      ASSERT_GT(le, p);
      ASSERT_LE(le, end);
      EXPECT_TRUE(le == end || *le == ' ') << "width " << width << " broke at \"" << le << "\"";
      p = le;
      while (p < end && *p == ' ') ++p;
    }
  }
  // A word wider than the line is cut (a token; numbers are short), one character at least.
  const char* w = "supercalifragilisticexpialidocious";
  const char* le = inspector_wrap(w, w + std::strlen(w), 40);
  EXPECT_GT(le, w);
  EXPECT_LT(le, w + std::strlen(w));
  EXPECT_LE(ImGui::CalcTextSize(w, le).x, 40.0f);
  ImGui::EndFrame();
}

TEST(Inspector, ScaledWritesTheSquareRootOfHeadDim) {
  for (ImVec2 screen : {ImVec2(1280, 720), ImVec2(1440, 900), ImVec2(1920, 1080)}) {
    Headless h(screen);
    NullTextures tex;
    App app(&tex);
    ASSERT_TRUE(app.set_state_text(journey()).value("ok", false));
    for (int k = 0; k < 3; ++k) h.frame(app);
    std::string t = flat(hover(h, app, "scaled h0", 6, 6, 1, 2));
    EXPECT_NE(t.find("scaled[1][2] = scores[1][2] / √head_dim √head_dim = √2 = 1.4142 scaled = "),
              std::string::npos)
        << t;
    EXPECT_EQ(t.find("temperature"), std::string::npos) << "temperature 1 is not mentioned:\n" << t;
    EXPECT_NE(t.find("scaled = "), std::string::npos) << t;
    expect_laid_out();

    ASSERT_TRUE(app.set_state_text(journey(R"(, "temperature": 1.5)")).value("ok", false));
    t = flat(hover(h, app, "scaled h0", 6, 6, 1, 2));
    EXPECT_NE(t.find("√head_dim = √2 = 1.4142 divisor"), std::string::npos) << t;
    EXPECT_NE(t.find("divisor = √head_dim × temperature = 1.4142 × 1.5000 = 2.1213 scaled = "),
              std::string::npos)
        << t;
    expect_laid_out();
  }
}

TEST(Inspector, DotTablesNameTheirIndexAndHaveOneRowPerTerm) {
  Headless h(ImVec2(1920, 1080));  // the Stages flow shows context h0 without scrolling
  NullTextures tex;
  App app(&tex);
  ASSERT_TRUE(app.set_state_text(journey()).value("ok", false));
  for (int k = 0; k < 3; ++k) h.frame(app);
  std::string t = hover(h, app, "scores h0", 6, 6, 1, 2);
  EXPECT_NE(t.find("\nd | q_1[d] | k_2[d] | product\n0 | "), std::string::npos) << t;
  EXPECT_NE(t.find("\n1 | "), std::string::npos) << t;
  EXPECT_EQ(t.find("\n2 | "), std::string::npos) << "head_dim 2: two terms, no more rows\n" << t;
  expect_laid_out();
  // The table is as tall as its header and two rows: no empty rows below them.
  float r[4];
  ASSERT_TRUE(app.item_rect("inspector terms", r));
  const ImGuiStyle& st = ImGui::GetStyle();
  const float row = ImGui::GetTextLineHeight() + 2 * st.CellPadding.y;
  EXPECT_GE(r[3], 3 * row);
  EXPECT_LT(r[3], 3 * row + 6.0f) << "header + 2 rows";

  t = hover(h, app, "context h0", 6, 2, 3, 1);
  EXPECT_NE(t.find("\ns | dropped[3][s] | v_s[1] | product\n"), std::string::npos) << t;
  EXPECT_NE(t.find("\n5 | "), std::string::npos) << "six keys" << t;
  expect_laid_out();
}

TEST(Inspector, AZeroProductReadsZero) {
  // X[0] = (0, 1): X[0][0]·W[0][j] is 0 × a negative weight = −0 in IEEE arithmetic.
  Headless h(ImVec2(1280, 720));
  NullTextures tex;
  App app(&tex);
  ASSERT_TRUE(app.set_state_text(R"({"tokens": ["a", "b"], "d_model": 2, "d_out": 2, "num_heads": 1,
    "embedding": {"values": [[0, 1], [1, 0]]}, "weights":
    {"W_q": [[-0.5, -0.25], [0.5, 1]], "W_k": [[1, 0], [0, 1]], "W_v": [[1, 0], [0, 1]]},
    "causal": true, "mask_fill": -0.0})").value("ok", false)) << "explicit weights";
  for (int k = 0; k < 3; ++k) h.frame(app);
  h.click(app, "Q K V & output");
  std::string t = hover(h, app, "Q", 2, 2, 0, 0);
  EXPECT_NE(t.find("\n0 | 0.0000 | -0.5000 | 0.0000\n"), std::string::npos) << t;
  expect_laid_out();
  h.click(app, "Stages");
  t = hover(h, app, "masked h0", 2, 2, 0, 1);
  EXPECT_NE(t.find("replaced by the fill 0.000000"), std::string::npos) << t;
  expect_laid_out();
}

}  // namespace
