// test_sweep.cpp: every map readable across the space people use (issue 31). Each of
// the bugs a learner met in twenty minutes escaped tests that sampled a few shapes,
// so this walks every preset and the shapes that broke things (head_dim 1 and 2,
// long tokens, one and eight heads, 64 and 512 tokens) at 1280×720, 1440×900 and
// 1920×1080, in English and 简体中文, on every tab with maps, and checks in each frame:
//   * no map's panel (title, labels, cells, colour bar) overlaps another's;
//   * no map leaves the Views window sideways or sits under its scroll bar;
//   * every map prints its values, or says in its title why not; the Decode step's
//     rows always print theirs (they scroll sideways over hundreds of keys);
//   * K, V and k_rot maps of a head show the columns of the K/V head it reads;
//   * dropped cells carry the × exactly where dropout zeroed a weight.
// tests/e2e/sweep.test.mjs runs the same checks in the browser on fewer shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "app/app.h"
#include "app/panels/panel_decode.h"
#include "app/widgets/fonts.h"
#include "app/widgets/heatmap_layout.h"
#include "app/model/presets.h"
#include "headless.h"
#include "imgui.h"

namespace {

using attnviz::ui::App;
using attnviz::ui::MatrixView;
using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;
using nlohmann::json;

struct Shape {
  std::string name;
  json state;
};

std::vector<std::string> words(int n) {
  static const char* const w[] = {"the", "cat", "sat", "on", "a", "mat", "and", "looked", "at", "its", "tail"};
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(w[i % 11]);
  return out;
}

json shape(std::vector<std::string> toks, int d_model, int d_out, int heads, json extra = json::object()) {
  json s = {{"tokens", toks}, {"d_model", d_model}, {"d_out", d_out}, {"num_heads", heads}, {"causal", true},
            {"dropout", {{"p", 0.5}, {"training", true}, {"seed", 3}}}};
  for (auto& [k, v] : extra.items()) s[k] = v;
  return s;
}

std::vector<Shape> shapes(bool with_long) {
  std::vector<Shape> out;
  for (const auto& p : attnviz::ui::presets()) out.push_back({"preset " + p.id, p.state});
  out.push_back({"head_dim 1, 4 heads", shape(words(6), 4, 4, 4)});
  out.push_back({"head_dim 2, 4 heads", shape(words(6), 8, 8, 4)});
  out.push_back({"head_dim 64, 1 head", shape(words(5), 64, 64, 1)});
  out.push_back({"long tokens", shape({"Internationalization", "of", "the", "counterrevolutionaries"}, 4, 4, 1)});
  out.push_back({"CJK tokens, 2 heads", shape({"我", "爱", "自然", "语言", "处理"}, 8, 8, 2)});
  out.push_back({"8 heads, GQA 2", shape(words(6), 16, 16, 8, {{"num_kv_heads", 2}})});
  out.push_back({"RoPE with GQA", shape(words(6), 8, 16, 4, {{"num_kv_heads", 2}, {"positional", "rope"}})});
  out.push_back({"64 tokens", shape(words(64), 8, 8, 2)});
  if (with_long) out.push_back({"512 tokens", shape(words(512), 8, 8, 2)});
  return out;
}

struct Tab {
  const char* tab;
  const char* sub;  // Compare heads' view
};
const Tab kTabs[] = {{"Stages", nullptr},           {"Q K V & output", nullptr}, {"Compare heads", "All heads"},
                     {"Compare heads", "A/B"},       {"Compare heads", "Row statistics"}, {"Decode", nullptr},
                     {"Model", nullptr}};  // a trained model's states only

struct Box {
  float x0, y0, x1, y1;
};
Box box_of(const json& r) {
  return {r["x"].get<float>(), r["y"].get<float>(), r["x"].get<float>() + r["w"].get<float>(),
          r["y"].get<float>() + r["h"].get<float>()};
}
bool overlap(const Box& a, const Box& b) {
  const float w = std::min(a.x1, b.x1) - std::max(a.x0, b.x0), h = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
  return w > 1.0f && h > 1.0f;
}
bool rect(const App& app, const char* label, Box* out) {
  float r[4];
  if (!app.item_rect(label, r)) return false;
  *out = {r[0], r[1], r[0] + r[2], r[1] + r[3]};
  return true;
}

// The checks of one frame; `where` names the shape, size, language and tab.
void check_frame(App& app, const std::string& where) {
  Box views, inside;
  ASSERT_TRUE(rect(app, "Views window", &views)) << where;
  ASSERT_TRUE(rect(app, "Views window inside", &inside)) << where;
  std::vector<std::string> maps = app.heatmaps_drawn();
  std::sort(maps.begin(), maps.end());
  std::vector<std::pair<std::string, Box>> panels;
  for (const std::string& label : maps) {
    const json info = app.heatmap_info(label);
    if (info.is_null()) continue;
    const Box p = box_of(info["panel"]), cells = box_of(info);
    const bool in_view = p.y1 > inside.y0 && p.y0 < inside.y1;  // scrolled into view (the tab scrolls)
    if (!in_view) continue;
    panels.push_back({label, p});
    EXPECT_GE(p.x0, views.x0 - 0.5f) << label << " starts left of the Views window, " << where;
    EXPECT_LE(cells.x1, inside.x1 + 0.5f) << label << "'s cells run under the scroll bar or off the window, " << where;
    EXPECT_LE(p.x1, inside.x1 + 0.5f) << label << "'s panel runs under the scroll bar or off the window, " << where;
    const int decimals = info["decimals"];
    if (info["rows"] == 1 && label.rfind("decode", 0) == 0) {  // the Decode step's rows read at any length:
      // they print their values, or (a few dozen keys shrunk to fit, decode_key_cell_w) show every key
      const bool whole = info.value("col0", 0.0f) == 0.0f &&
                         info.value("w", 0.0f) + 0.5f >= info.value("cols", 0) * info.value("cell_w", 0.0f);
      EXPECT_GE(info["cell_h"].get<float>(), 12.0f) << label << " is a sliver, " << where;
      EXPECT_TRUE(decimals >= 0 || (whole && info.value("cell_w", 0.0f) >= attnviz::ui::kDecodeMinFitCell - 0.5f))
          << label << " prints no values and does not show every key, " << where;
    }
    if (decimals < 0) {
      // A map too small for its values says why, and how to read them.
      EXPECT_TRUE(info.value("values_hint", false)) << label << " prints no values and says nothing, " << where;
    }
  }
  for (size_t a = 0; a < panels.size(); ++a)
    for (size_t b = a + 1; b < panels.size(); ++b)
      EXPECT_FALSE(overlap(panels[a].second, panels[b].second))
          << panels[a].first << " and " << panels[b].first << " overlap, " << where;
}

// K, V, k_rot of query head h are the K/V head g = h / (H/G)'s columns; dropped cells
// are marked exactly where dropout zeroed a nonzero weight.
void check_numbers(App& app, const json& state, const std::string& where) {
  const std::vector<std::string> maps = app.heatmaps_drawn();
  const int H = state.value("num_heads", 1), G = state.value("num_kv_heads", H);
  const MatrixView K = app.matrix("K", 0);
  for (const std::string& label : maps) {
    const json info = app.heatmap_info(label);
    if (info.is_null()) continue;
    const int dec = info["decimals"];
    int g = -1;
    std::string st;
    if (std::sscanf(label.c_str(), "K kv%d", &g) == 1) st = "K";
    else if (std::sscanf(label.c_str(), "V kv%d", &g) == 1) st = "V";
    else if (G == H && std::sscanf(label.c_str(), "K h%d", &g) == 1) st = "K";
    else if (G == H && std::sscanf(label.c_str(), "V h%d", &g) == 1) st = "V";
    if (!st.empty() && dec >= 0 && K.cols > 0) {
      const MatrixView m = app.matrix(st, 0);
      const int hd = m.cols / G;
      for (int i = 0; i < m.rows; ++i)
        for (int j = 0; j < hd; ++j) {
          const std::string shown = info["cells"][i][j];
          if (shown.empty()) continue;  // scrolled out of the map's view
          char want[48];
          attnviz::ui::format_cell(m.data[i * m.cols + g * hd + j], dec, want, sizeof want);
          ASSERT_EQ(shown, want) << label << " [" << i << "][" << j << "], " << where;
        }
    }
    int h = -1;
    if (std::sscanf(label.c_str(), "dropped h%d", &h) == 1) {
      const MatrixView w = app.matrix("weights", h), d = app.matrix("dropped", h);
      if (info.value("overview", false)) {  // a long map (issue 36): × only on exact cells, those of its view
        if (info["block"].get<int>() > 1) EXPECT_TRUE(info["dropped"].empty()) << label << ": no × on a pooled cell, " << where;
        for (const auto& c : info["dropped"]) {
          const int i = c[0], j = c[1];
          EXPECT_EQ(d.data[i * d.cols + j], 0.0f) << label << " marks a kept cell, " << where;
        }
        continue;
      }
      std::vector<std::vector<int>> want;
      for (int i = 0; i < d.rows; ++i)
        for (int j = 0; j < d.cols; ++j)
          if (w.data[i * w.cols + j] != 0.0f && d.data[i * d.cols + j] == 0.0f) want.push_back({i, j});
      std::vector<std::vector<int>> marked;
      for (const auto& c : info["dropped"]) {
        const int i = c[0], j = c[1];
        if (w.data[i * w.cols + j] != 0.0f) marked.push_back({i, j});  // a zero weight dropped shows no change
        else EXPECT_EQ(d.data[i * d.cols + j], 0.0f);
      }
      EXPECT_EQ(marked, want) << label << ": the × marks the dropped cells, " << where;
    }
  }
}

void sweep(const std::vector<Shape>& list) {
  const ImVec2 sizes[] = {ImVec2(1280, 720), ImVec2(1440, 900), ImVec2(1920, 1080)};
  int failed_frames = 0;
  for (const ImVec2 size : sizes) {
    Headless h(size);
    attnviz::ui::FontSources fonts;
    if (!attnviz::ui::testing::use_real_fonts(fonts)) GTEST_SKIP() << "fonts-dejavu-core or fonts-droid-fallback missing";
    NullTextures tex;
    App app(&tex);
    for (int i = 0; i < 3; ++i) h.frame(app);
    for (const char* lang : {"en", "zh-CN"}) {
      ASSERT_TRUE(app.set_language(lang).value("ok", false));
      for (const Shape& s : list) {
        ASSERT_TRUE(app.set_state_text(s.state.dump()).value("ok", false)) << s.name;
        for (const Tab& t : kTabs) {
          if (std::string(t.tab) == "Model" && !s.state.contains("model")) continue;
          h.click(app, t.tab);
          if (t.sub) h.click(app, t.sub);
          for (int i = 0; i < 3; ++i) h.frame(app);
          char where[256];
          std::snprintf(where, sizeof where, "%s at %.0f×%.0f in %s on %s%s%s", s.name.c_str(), size.x, size.y, lang,
                        t.tab, t.sub ? " → " : "", t.sub ? t.sub : "");
          check_frame(app, where);
          check_numbers(app, s.state, where);
          if (::testing::Test::HasFailure() && ++failed_frames > 12) return;  // enough to go on
        }
      }
    }
  }
}

TEST(Sweep, EveryPresetAndShapeAtThreeSizesInBothLanguagesOnEveryTab) { sweep(shapes(false)); }

TEST(Sweep, FiveHundredTwelveTokens) {
  std::vector<Shape> list = shapes(true);
  sweep({list.back()});
}

}  // namespace

namespace {

// Row statistics with eight heads scrolls sideways; its last row stays above the
// scroll bar (issue 31: hidden under it, with empty room below the table).
TEST(Sweep, RowStatisticsShowsItsLastRowAboveTheScrollBar) {
  for (const ImVec2 size : {ImVec2(1280, 720), ImVec2(1440, 900)}) {
    Headless h(size);
    attnviz::ui::FontSources fonts;
    if (!attnviz::ui::testing::use_real_fonts(fonts)) GTEST_SKIP() << "fonts-dejavu-core or fonts-droid-fallback missing";
    NullTextures tex;
    App app(&tex);
    for (int i = 0; i < 3; ++i) h.frame(app);
    for (const char* lang : {"en", "zh-CN"}) {
      ASSERT_TRUE(app.set_language(lang).value("ok", false));
      ASSERT_TRUE(app.set_state_text(shape(words(6), 16, 16, 8).dump()).value("ok", false));
      h.click(app, "Compare heads");
      h.click(app, "Row statistics");
      for (int i = 0; i < 3; ++i) h.frame(app);
      Box row, inside;
      ASSERT_TRUE(rect(app, "row stats last row", &row)) << lang;
      ASSERT_TRUE(rect(app, "row stats inside", &inside)) << lang;
      EXPECT_GE(row.y1 - row.y0, ImGui::GetTextLineHeight() * 0.9f) << "the last row shows whole, " << lang << " row " << row.y0 << "-" << row.y1 << " inside " << inside.y0 << "-" << inside.y1;
      EXPECT_LE(row.y1, inside.y1 + 0.5f) << "above the scroll bar, " << lang << " at " << size.x;
    }
  }
}

}  // namespace

namespace {

// "back to seeded" beside its sentence shows whole in a narrow Parameters column
// (issue 31: cut to "back to" at 1280×720), in both languages.
TEST(Sweep, BackToSeededShowsWhole) {
  Headless h(ImVec2(1280, 720));
  attnviz::ui::FontSources fonts;
  if (!attnviz::ui::testing::use_real_fonts(fonts)) GTEST_SKIP() << "fonts-dejavu-core or fonts-droid-fallback missing";
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 3; ++i) h.frame(app);
  json s = shape(words(3), 2, 2, 1);
  s["embedding"] = {{"values", {{1, 0}, {0, 1}, {0.5, 0.5}}}};
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false));
  h.frame(app);
  h.click(app, "Embedding");
  for (const char* lang : {"en", "zh-CN"}) {
    ASSERT_TRUE(app.set_language(lang).value("ok", false));
    for (int i = 0; i < 3; ++i) h.frame(app);
    Box b, params;
    ASSERT_TRUE(rect(app, "back to seeded", &b)) << lang;
    ASSERT_TRUE(rect(app, "Parameters window inside", &params));
    const float want = ImGui::CalcTextSize(attnviz::ui::L("back to seeded"), nullptr, true).x +
                       ImGui::GetStyle().FramePadding.x * 2.0f;
    EXPECT_GE(b.x1 - b.x0, want - 0.5f) << "the button shows whole, " << lang;
    EXPECT_LE(b.x1, params.x1 + 0.5f) << lang;
  }
  ASSERT_TRUE(app.set_language("en").value("ok", false));
}

}  // namespace
