// test_head_scores_ui.cpp: Compare heads' layers × heads grid with the head scores
// (ui/app/panels/panel_heads_grid.cpp), driven headless with the mouse:
//   - the pure layout (heads_grid_layout.h) at the three screen sizes, in both languages;
//   - the job rule (head_job) against chance;
//   - on the trained model's preset: the scores drawn are head_scores' values, the
//     induction heads are the ones marked, a click on a map selects its layer and head,
//     hovering a score explains it in the Inspector with its numbers (both languages),
//     the probe's scores, and the scores following an edit;
//   - a one-layer state shows its scores beside each head.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "app/app.h"
#include "app/model/presets.h"
#include "app/panels/heads_grid_layout.h"
#include "app/panels/panel_heads_grid.h"
#include "app/text/i18n.h"
#include "app/text/inspector_text.h"
#include "attnviz/model.h"
#include "headless.h"
#include "imgui.h"

namespace {

using attnviz::HeadScoreKind;
using attnviz::HeadScores;
using attnviz::ui::App;
using attnviz::ui::heads_grid_drawn;
using attnviz::ui::heads_grid_layout;
using attnviz::ui::HeadsGridIn;
using attnviz::ui::HeadsGridLayout;
using attnviz::ui::inspector_log;
using attnviz::ui::testing::drawn_now;
using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;
using nlohmann::json;

// [SECTION] Layout ----------------------------------------------------------------------

// The grid's room in the Views window at each screen size (the left column is 24% of
// the width, 280–360 px; above the grid: the title, tab bars, the layer bar, the legend,
// the stage and scores lines), and the text widths of DejaVu Sans 13 px: English
// "prev 0.70", "ind 0.88", "first 0.41", "dup 0.01" and "induction head"; Chinese
// "前一个 0.70" ... and "前一个词元头".
struct Screen {
  const char* name;
  float w, h;
};
const Screen kScreens[] = {{"1280x720", 940, 470}, {"1440x900", 1060, 640}, {"1920x1080", 1520, 820}};

HeadsGridIn model_grid(const Screen& s, bool zh) {
  HeadsGridIn in;
  in.layers = 2;
  in.heads = 4;
  in.rows = in.cols = 49;
  in.avail_w = s.w;
  in.avail_h = s.h;
  const float en[4] = {62, 56, 64, 58}, cn[4] = {76, 64, 64, 64};
  for (int k = 0; k < 4; ++k) in.score_w[k] = zh ? cn[k] : en[k];
  in.score_sep = 15;
  in.name_w = 40;
  in.badge_w = zh ? 92 : 110;
  return in;
}

TEST(HeadsGridLayout, EightMapsOf49AndTheirTextFitEveryScreenInBothLanguages) {
  for (const Screen& s : kScreens)
    for (bool zh : {false, true}) {
      SCOPED_TRACE(std::string(s.name) + (zh ? " zh-CN" : " en"));
      const HeadsGridIn in = model_grid(s, zh);
      const HeadsGridLayout lay = heads_grid_layout(in);
      EXPECT_TRUE(lay.text_fits);
      EXPECT_FALSE(lay.scroll);
      EXPECT_LE(lay.total_w, in.avail_w + 0.5f);
      EXPECT_LE(lay.total_h, in.avail_h + 0.5f);
      EXPECT_GE(lay.cell_px, 3.0f) << "a 49×49 map is at least 147 px";
      EXPECT_EQ(lay.map_w, lay.map_h);
      EXPECT_LE(lay.map_w, lay.col_w - 2 * in.pad + 0.01f);
      EXPECT_FALSE(lay.badge_below);
      EXPECT_GE(lay.scores_per_line, 2) << "four scores on at most two lines";
    }
  // At 1920×1080 the four scores go on one line, and the maps are larger.
  const HeadsGridLayout big = heads_grid_layout(model_grid(kScreens[2], false));
  EXPECT_EQ(big.scores_per_line, 4);
  EXPECT_GT(big.cell_px, heads_grid_layout(model_grid(kScreens[0], false)).cell_px);
}

TEST(HeadsGridLayout, NarrowColumnsStackTheScoresAndAShortWindowScrolls) {
  HeadsGridIn in = model_grid(kScreens[0], false);
  in.heads = 12;  // 12 heads in 940 px: 67 px a column
  HeadsGridLayout lay = heads_grid_layout(in);
  EXPECT_EQ(lay.scores_per_line, 1);
  EXPECT_EQ(lay.score_lines, 4);
  EXPECT_TRUE(lay.badge_below || !lay.text_fits);
  in = model_grid(kScreens[0], false);
  in.layers = 12;
  in.avail_h = 300;
  lay = heads_grid_layout(in);
  EXPECT_TRUE(lay.scroll);
  EXPECT_EQ(lay.cell_px, in.min_cell);
  EXPECT_GT(lay.total_h, in.avail_h);
}

// [SECTION] The job rule ----------------------------------------------------------------

TEST(HeadJob, TheLargestScoreClearlyAboveChanceNamesTheJob) {
  const HeadScores chance{0.07, 0.03, 0.09, 0.03};
  EXPECT_EQ(attnviz::ui::head_job({0.70, 0.01, 0.09, 0.00}, chance), 0);  // previous-token
  EXPECT_EQ(attnviz::ui::head_job({0.02, 0.66, 0.60, 0.01}, chance), 1);  // induction beats first-token
  EXPECT_EQ(attnviz::ui::head_job({0.13, 0.03, 0.29, 0.03}, chance), -1) << "below kJobMin";
  EXPECT_EQ(attnviz::ui::head_job({0.13, 0.03, 0.35, 0.03}, {0.07, 0.03, 0.2, 0.03}), -1) << "below 3 × chance";
  EXPECT_EQ(attnviz::ui::head_job({NAN, NAN, NAN, NAN}, chance), -1);
}

// [SECTION] The grid on the trained model -----------------------------------------------

const attnviz::ui::Preset& preset(const char* id) {
  for (const auto& p : attnviz::ui::presets())
    if (p.id == id) return p;
  ADD_FAILURE() << "no preset " << id;
  return attnviz::ui::presets().front();
}

// Opens the trained model's preset as the Presets menu does (its state and its view).
void open_preset(Headless& h, App& app) {
  const auto& p = preset("12-induction-heads");
  const json r = app.set_session_text(json{{"v", 1}, {"state", p.state}, {"view", p.view}}.dump());
  ASSERT_TRUE(r.at("ok").get<bool>()) << r.dump();
  for (int k = 0; k < 4; ++k) h.frame(app);
}

const char* const kKeys[] = {"previous_token", "induction", "first_token", "duplicate_token"};

// "prev 0.70": the grid's text for a score, in the interface's language.
std::string shown(int kind, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s %.2f", attnviz::ui::head_score_short(static_cast<HeadScoreKind>(kind)), v);
  return buf;
}

// The scores of the current input (or the probe's), [layer][head][kind], as head_scores_report gives them.
double score(const json& report, int l, int h, int k, bool probe = false) {
  const json& j = probe ? report.at("probe") : report;
  return j.at("layers")[(size_t)l].at("heads")[(size_t)h].at(kKeys[k]).get<double>();
}

// Every drawn cell's score texts are the report's values; returns how many cells.
int expect_grid_shows(const json& report, bool probe = false) {
  int n = 0;
  for (const auto& d : heads_grid_drawn()) {
    for (int k = 0; k < 4; ++k)
      EXPECT_EQ(std::string(d.scores[k]), shown(k, score(report, d.layer, d.head, k, probe)))
          << "L" << d.layer << " H" << d.head << " " << kKeys[k];
    ++n;
  }
  return n;
}

// The Inspector's text with its wrapped lines joined (a space between two Latin
// characters, none beside a Chinese one), table rows kept on lines of their own.
std::string flat(const std::string& t) {
  std::string out;
  for (size_t a = 0, b; a < t.size(); a = b + 1) {
    b = t.find('\n', a);
    if (b == std::string::npos) b = t.size();
    const std::string line = t.substr(a, b - a);
    const bool row = line.find(" | ") != std::string::npos;
    const bool ascii = !out.empty() && (unsigned char)out.back() < 0x80 && !line.empty() && (unsigned char)line[0] < 0x80;
    if (!out.empty()) out += row || out.back() == '\n' ? "\n" : ascii ? " " : "";
    out += line;
    if (row) out += "\n";
  }
  return out;
}

// Hovers the labelled item and draws frames until the Inspector has answered; its text, flat.
std::string hover(Headless& h, App& app, const char* label) {
  float r[4];
  EXPECT_TRUE(app.item_rect(label, r)) << label;
  ImGui::GetIO().AddMousePosEvent(r[0] + r[2] * 0.5f, r[1] + r[3] * 0.5f);
  for (int k = 0; k < 3; ++k) h.frame(app);
  return flat(inspector_log().text);
}

TEST(HeadsGrid, ShowsHeadScoresAndMarksTheInductionHeads) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  open_preset(h, app);
  ASSERT_TRUE(drawn_now("heads grid L1 H2")) << "the preset opens on Compare heads, on the grid";
  const json report = json::parse(app.head_scores());
  EXPECT_EQ(expect_grid_shows(report), 8);
  // The job marks: the induction heads are the ones marked (on the probe, all of layer 1:
  // the preset's L1 H2 with 0.88 among them), layer 0 head 3 the previous-token head.
  const HeadScores chance = attnviz::uniform_head_scores(
      json::parse(app.state_json()).at("tokens").get<std::vector<std::string>>(), true);
  int induction = 0;
  for (const auto& d : heads_grid_drawn()) {
    const HeadScores s{score(report, d.layer, d.head, 0), score(report, d.layer, d.head, 1),
                       score(report, d.layer, d.head, 2), score(report, d.layer, d.head, 3)};
    EXPECT_EQ(d.job, attnviz::ui::head_job(s, chance)) << "L" << d.layer << " H" << d.head;
    char id[64];
    std::snprintf(id, sizeof id, "job L%d H%d induction", d.layer, d.head);
    EXPECT_EQ(drawn_now(id), d.job == 1) << id;
    induction += d.job == 1;
    if (d.job == 1) {
      EXPECT_EQ(d.layer, 1);
    }
    EXPECT_EQ(d.selected, d.layer == 1 && d.head == 2);
  }
  EXPECT_GE(induction, 1);
  EXPECT_EQ(heads_grid_drawn()[6].job, 1) << "L1 H2 is an induction head";
  EXPECT_EQ(heads_grid_drawn()[3].job, 0) << "L0 H3 is a previous-token head";
  EXPECT_TRUE(drawn_now("job L0 H3 previous_token"));
}

TEST(HeadsGrid, AClickOnAMapSelectsItsLayerAndHead) {
  Headless h(ImVec2(1280, 720));
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  open_preset(h, app);
  json view = app.session_json().at("view");
  ASSERT_EQ(view.value("layer", 0), 1);
  ASSERT_EQ(view.value("head", 0), 2);
  h.click(app, "L0 weights h3");
  view = app.session_json().at("view");
  EXPECT_EQ(view.value("layer", 0), 0);
  EXPECT_EQ(view.value("head", 0), 3);
  EXPECT_EQ(view.at("pinned").at("head"), 3) << "the cell clicked is pinned";
  h.frame(app);
  EXPECT_TRUE(heads_grid_drawn()[3].selected);
  EXPECT_NE(std::string(inspector_log().text).find("weights"), std::string::npos);
  // The name line selects too, without pinning.
  h.click(app, "heads grid L1 H0");
  view = app.session_json().at("view");
  EXPECT_EQ(view.value("layer", 0), 1);
  EXPECT_EQ(view.value("head", 0), 0);
}

TEST(HeadsGrid, HoveringAScoreExplainsItWithItsNumbersInBothLanguages) {
  Headless h(ImVec2(1920, 1080));  // room in the Inspector for the table of rows
  attnviz::ui::FontSources fonts;
  ASSERT_TRUE(attnviz::ui::testing::use_real_fonts(fonts));
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  open_preset(h, app);
  const json report = json::parse(app.head_scores());
  char v[32];
  std::snprintf(v, sizeof v, "%.3f", score(report, 0, 3, 0));
  std::string text = hover(h, app, "score L0 H3 previous_token");
  EXPECT_NE(text.find("Layer 0, head 3: its previous-token score on this input"), std::string::npos) << text;
  EXPECT_NE(text.find(std::string("previous-token = mean of A[i, i\xE2\x88\x92" "1] over i = 1\xE2\x80\xA6" "48 = ")),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(std::string("/ 48 = ") + v), std::string::npos) << text;
  EXPECT_NE(text.find("chance: previous-token head."), std::string::npos) << text;
  EXPECT_NE(text.find("1 | U | 0 | "), std::string::npos) << "a row per query: i, token, key, A[i, i-1]\n" << text;

  std::snprintf(v, sizeof v, "%.3f", score(report, 1, 2, 1));
  text = hover(h, app, "score L1 H2 induction");
  EXPECT_NE(text.find("induction = mean over the 24 rows whose token appeared before"), std::string::npos) << text;
  EXPECT_NE(text.find(std::string("/ 24 = ") + v), std::string::npos) << text;
  EXPECT_NE(text.find("26 | 1 | 3 | "), std::string::npos) << "row 26 repeats row 2: key 3 follows it\n" << text;

  // A click pins it: the Inspector keeps it when the mouse leaves; a pinned cell takes over.
  h.click(app, "score L1 H2 induction");
  ImGui::GetIO().AddMousePosEvent(5, 5);
  for (int k = 0; k < 3; ++k) h.frame(app);
  EXPECT_NE(flat(inspector_log().text).find("/ 24 = " + std::string(v)), std::string::npos);
  h.click(app, "L1 weights h1");
  ImGui::GetIO().AddMousePosEvent(5, 5);
  for (int k = 0; k < 3; ++k) h.frame(app);
  EXPECT_EQ(flat(inspector_log().text).find("/ 24 = "), std::string::npos) << inspector_log().text;

  // 简体中文: the same numbers in the catalogue's words.
  app.set_language("zh-CN");
  for (int k = 0; k < 3; ++k) h.frame(app);
  EXPECT_EQ(expect_grid_shows(report), 8) << "the grid's words follow the language";
  EXPECT_EQ(std::string(heads_grid_drawn()[0].scores[1]).rfind("\xE5\xBD\x92\xE7\xBA\xB3 ", 0), 0u) << "归纳";
  std::snprintf(v, sizeof v, "%.3f", score(report, 0, 3, 0));
  text = hover(h, app, "score L0 H3 previous_token");
  EXPECT_NE(text.find("前一个词元分数 = A[i, i\xE2\x88\x92" "1] 在 i = 1\xE2\x80\xA6" "48 上的平均"), std::string::npos)
      << text;
  EXPECT_NE(text.find(std::string("/ 48 = ") + v), std::string::npos) << text;
  EXPECT_NE(text.find("前一个词元头"), std::string::npos) << text;
  app.set_language("en");
  h.frame(app);
}

TEST(HeadsGrid, ProbeScoresAndScoresThatFollowAnEdit) {
  Headless h(ImVec2(1920, 1080));
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  open_preset(h, app);
  // A shorter input: the first 13 tokens (start + 12 symbols, no repeat).
  json s = json::parse(app.state_json());
  s["tokens"] = std::vector<std::string>(s["tokens"].begin(), s["tokens"].begin() + 13);
  ASSERT_TRUE(app.set_state_text(s.dump()).at("ok").get<bool>());
  for (int k = 0; k < 3; ++k) h.frame(app);
  const json report = json::parse(app.head_scores());
  EXPECT_EQ(score(report, 1, 2, 1), 0.0) << "nothing repeats: no induction";
  EXPECT_EQ(expect_grid_shows(report), 8) << "the grid follows the edit";
  for (const auto& d : heads_grid_drawn()) EXPECT_NE(d.job, 1) << "no induction head without a repeat";
  std::string text = hover(h, app, "score L1 H2 induction");
  EXPECT_NE(text.find("induction = 0: no token of this input appeared before"), std::string::npos) << text;
  // On the probe: what the heads learned, whatever the input.
  h.click(app, "on the probe");
  h.frame(app);
  EXPECT_EQ(expect_grid_shows(report, true), 8);
  EXPECT_EQ(heads_grid_drawn()[6].job, 1) << "on the probe, L1 H2 is an induction head again";
  char v[32];
  std::snprintf(v, sizeof v, "%.3f", score(report, 1, 2, 1, true));
  text = hover(h, app, "score L1 H2 induction");
  EXPECT_NE(text.find("its induction score on the probe"), std::string::npos) << text;
  EXPECT_NE(text.find(std::string("/ 24 = ") + v), std::string::npos) << text;
}

// [SECTION] A one-layer state -----------------------------------------------------------

TEST(HeadsGrid, AOneLayerStateShowsItsScoresBesideEachHead) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  const auto& p = preset("07-heads-worth-comparing");
  ASSERT_TRUE(app.set_state_text(p.state.dump()).at("ok").get<bool>());
  h.frame(app);
  h.click(app, "Compare heads");
  for (int k = 0; k < 2; ++k) h.frame(app);
  const json report = json::parse(app.head_scores());
  const int H = json::parse(app.state_json()).at("num_heads").get<int>();
  EXPECT_EQ(expect_grid_shows(report), H);
  EXPECT_TRUE(drawn_now("score L0 H0 previous_token"));
  EXPECT_TRUE(drawn_now("weights h0")) << "the one-layer grid keeps its maps";
  const std::string text = hover(h, app, "score L0 H1 first_token");
  EXPECT_NE(text.find("first-token = mean of A[i, 0] over i = 0"), std::string::npos) << text;
}

}  // namespace
