// test_labels.cpp: what a map shows besides its numbers follows the state in the
// next frame. A renamed token keeps its place in the vocabulary, so every number
// (and every matrix version) stays the same: a cache keyed on the version alone kept
// the old word on every map (issue 30). Here: the cache key itself
// (heatmap_cache_miss), then every map of every tab after a rename, a CJK
// replacement, a language switch, the Inspector's sentences and an exported CSV.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/app.h"
#include "app/panels/export.h"
#include "app/widgets/heatmap.h"
#include "app/widgets/item_registry.h"
#include "headless.h"
#include "imgui.h"

namespace {

using attnviz::ui::App;
using attnviz::ui::CacheMiss;
using attnviz::ui::HeatmapCache;
using attnviz::ui::HeatmapSpec;
using attnviz::ui::MatrixView;
using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;

// --- the key ------------------------------------------------------------------------

TEST(HeatmapCacheKey, NewLabelsAloneAreALabelsMissNewNumbersOrMarksAMatrixMiss) {
  const float v[4] = {1, 2, 3, 4};
  const MatrixView m{2, 2, v};
  const std::vector<std::string> ab = {"a", "b"}, ax = {"a", "x"}, abc = {"a", "b", "c"};
  HeatmapCache c;
  c.version = 7;
  c.rows = c.cols = 2;
  c.row_labels = c.col_labels = ab;
  HeatmapSpec spec;
  spec.row_labels = spec.col_labels = &ab;
  EXPECT_EQ(attnviz::ui::heatmap_cache_miss(c, spec, m, 7), CacheMiss::none);
  EXPECT_EQ(attnviz::ui::heatmap_cache_miss(c, spec, m, 8), CacheMiss::matrix) << "a new version";
  spec.col_labels = &ax;  // a renamed key, the same numbers
  EXPECT_EQ(attnviz::ui::heatmap_cache_miss(c, spec, m, 7), CacheMiss::labels);
  spec.col_labels = &ab;
  spec.row_labels = &ax;
  EXPECT_EQ(attnviz::ui::heatmap_cache_miss(c, spec, m, 7), CacheMiss::labels);
  spec.row_labels = nullptr;  // indices now, where words were
  EXPECT_EQ(attnviz::ui::heatmap_cache_miss(c, spec, m, 7), CacheMiss::labels);
  spec.row_labels = &abc;  // a label per row or none: three labels for two rows are indices
  EXPECT_EQ(attnviz::ui::heatmap_cache_miss(c, spec, m, 7), CacheMiss::labels);
  c.row_labels.clear();
  EXPECT_EQ(attnviz::ui::heatmap_cache_miss(c, spec, m, 7), CacheMiss::none);
  const uint8_t keep[4] = {1, 0, 1, 1};
  spec.keep = keep;  // the same numbers, now with dropout's marks
  EXPECT_EQ(attnviz::ui::heatmap_cache_miss(c, spec, m, 7), CacheMiss::matrix);
  c.had_keep = true;
  EXPECT_EQ(attnviz::ui::heatmap_cache_miss(c, spec, m, 7), CacheMiss::none);
  spec.keep = nullptr;
  EXPECT_EQ(attnviz::ui::heatmap_cache_miss(c, spec, m, 7), CacheMiss::matrix) << "marks gone";
  const MatrixView taller{3, 2, v};
  c.had_keep = false;
  EXPECT_EQ(attnviz::ui::heatmap_cache_miss(c, spec, taller, 7), CacheMiss::matrix) << "a new shape";
}

// --- the app ------------------------------------------------------------------------

// Two heads, causal, dropout in training: every tab has maps with token labels.
std::string state(const std::vector<std::string>& toks, int seed_offset = 0) {
  nlohmann::json s = {{"tokens", toks},
                      {"d_model", 8},
                      {"d_out", 8},
                      {"num_heads", 2},
                      {"causal", true},
                      {"dropout", {{"p", 0.5}, {"training", true}, {"seed", 5 + seed_offset}}}};
  return s.dump();
}

struct Tab {
  const char* tab;
  const char* sub;                 // Compare heads' sub-tab, or null
  std::vector<const char*> maps;   // maps whose rows are the tokens
  std::vector<const char*> square; // ... whose columns are too
};

const std::vector<Tab>& tabs() {
  static const std::vector<Tab> t = {
      {"Stages", nullptr,
       {"Q h0", "scores h0", "scaled h0", "masked h0", "weights h0", "dropped h0", "context h0"},
       {"scores h0", "scaled h0", "masked h0", "weights h0", "dropped h0"}},
      {"Q K V & output", nullptr, {"X", "Q", "K", "V", "concat", "output"}, {}},
      {"Compare heads", "All heads", {"weights h0", "weights h1"}, {"weights h0", "weights h1"}},
      {"Compare heads", "A/B", {"diff h0-h1"}, {"diff h0-h1"}},
      {"Decode", nullptr, {"decode K cache", "decode V cache"}, {}},
  };
  return t;
}

void open(Headless& h, App& app, const Tab& t) {
  h.click(app, t.tab);
  if (t.sub) h.click(app, t.sub);
  for (int i = 0; i < 3; ++i) h.frame(app);
}

// Every map of every tab labels its rows (and, square, its columns) with `toks`.
void expect_labels(Headless& h, App& app, const std::vector<std::string>& toks, const char* when) {
  for (const Tab& t : tabs()) {
    open(h, app, t);
    for (const char* map : t.maps) {
      nlohmann::json info = app.heatmap_info(map);
      ASSERT_FALSE(info.is_null()) << map << " on " << t.tab << " is drawn (" << when << ")";
      const bool decode = std::string(map).rfind("decode", 0) == 0;
      const size_t n = decode ? info["rows"].get<size_t>() : toks.size();
      ASSERT_EQ(info["row_labels"].size(), n) << map;
      for (size_t i = 0; i < n; ++i)
        EXPECT_EQ(info["row_labels"][i], toks[i]) << map << " row " << i << " on " << t.tab << " (" << when << ")";
      bool square = false;
      for (const char* s : t.square) square |= std::string(s) == map;
      if (!square) continue;
      for (size_t j = 0; j < toks.size(); ++j)
        EXPECT_EQ(info["col_labels"][j], toks[j]) << map << " column " << j << " on " << t.tab << " (" << when << ")";
    }
  }
}

TEST(Labels, ARenameOrACjkReplacementRelabelsEveryMapOnEveryTabInTheNextFrame) {
  Headless h(ImVec2(1920, 1080));
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 3; ++i) h.frame(app);
  std::vector<std::string> toks = {"Once", "upon", "a", "time", "there"};
  ASSERT_TRUE(app.set_state_text(state(toks)).value("ok", false));
  h.frame(app);
  expect_labels(h, app, toks, "first drawn");

  const MatrixView before = app.matrix("weights", 0);
  const std::vector<float> w(before.data, before.data + before.rows * before.cols);
  toks[3] = "day";  // the same place in the vocabulary: the same numbers
  ASSERT_TRUE(app.set_state_text(state(toks)).value("ok", false));
  h.frame(app);
  const MatrixView after = app.matrix("weights", 0);
  ASSERT_EQ(std::vector<float>(after.data, after.data + after.rows * after.cols), w)
      << "a rename keeps every number (the case the cache missed)";
  expect_labels(h, app, toks, "after renaming token 3");

  toks = {"我", "爱", "自然", "语言", "处理"};
  ASSERT_TRUE(app.set_state_text(state(toks)).value("ok", false));
  h.frame(app);
  expect_labels(h, app, toks, "after replacing every token by CJK ones");
}

TEST(Labels, TheLanguageRetitlesEveryMapAndTheInspectorNamesTheNewWord) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 3; ++i) h.frame(app);
  std::vector<std::string> toks = {"Once", "upon", "a", "time", "there"};
  ASSERT_TRUE(app.set_state_text(state(toks)).value("ok", false));
  for (int i = 0; i < 3; ++i) h.frame(app);
  h.click(app, "weights h0");  // pins the middle cell, [2][2]: "a" → "a"
  EXPECT_NE(app.inspector_text().find("\"a\""), std::string::npos) << app.inspector_text();
  toks[2] = "one";
  ASSERT_TRUE(app.set_state_text(state(toks)).value("ok", false));
  h.frame(app);
  EXPECT_NE(app.inspector_text().find("\"one\""), std::string::npos) << app.inspector_text();
  EXPECT_EQ(app.inspector_text().find("\"a\""), std::string::npos) << app.inspector_text();

  const std::string en = app.heatmap_info("weights h0").value("title", "");
  EXPECT_NE(en.find("weights"), std::string::npos) << en;
  ASSERT_TRUE(app.set_language("zh-CN").value("ok", false));
  h.frame(app);
  const std::string zh = app.heatmap_info("weights h0").value("title", "");
  EXPECT_NE(zh, en);
  EXPECT_NE(zh.find("\xE6\xB3\xA8\xE6\x84\x8F\xE5\x8A\x9B"), std::string::npos) << "注意力: " << zh;
  for (const char* map : {"scores h0", "masked h0", "dropped h0", "context h0"}) {
    nlohmann::json info = app.heatmap_info(map);
    if (info.is_null()) continue;  // scrolled out of this window
    const std::string title = info.value("title", "");
    bool cjk = false;
    for (unsigned char ch : title) cjk |= ch >= 0xE4;
    EXPECT_TRUE(cjk) << map << " is titled in Chinese: " << title;
  }
  ASSERT_TRUE(app.set_language("en").value("ok", false));
  h.frame(app);
  EXPECT_EQ(app.heatmap_info("weights h0").value("title", ""), en);
}

TEST(Labels, AnExportedCsvHeadsItsRowsAndColumnsWithTheWordsShown) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 3; ++i) h.frame(app);
  std::vector<std::string> toks = {"Once", "upon", "a", "time", "there"};
  ASSERT_TRUE(app.set_state_text(state(toks)).value("ok", false));
  for (int i = 0; i < 3; ++i) h.frame(app);
  toks[3] = "day";
  ASSERT_TRUE(app.set_state_text(state(toks)).value("ok", false));
  for (int i = 0; i < 2; ++i) h.frame(app);
  h.click(app, "weights h0", 1);
  h.click(app, "Export CSV");
  auto& pending = app.exports().pending;
  ASSERT_EQ(pending.size(), 1u);
  const std::string& csv = pending[0].bytes;
  EXPECT_EQ(csv.substr(0, csv.find("\r\n")), ",Once,upon,a,day,there");
  EXPECT_NE(csv.find("\r\nday,"), std::string::npos) << csv;
  EXPECT_EQ(csv.find("time"), std::string::npos) << csv;
  pending.clear();
}

// Compare heads' grid and the Decode row mark dropped cells as the Stages tab does,
// whichever tab drew the map first (issue 31: the × came only from the Stages tab).
TEST(Labels, DroppedMarksOnEveryTabThatShowsDropped) {
  Headless h(ImVec2(1440, 900));
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 3; ++i) h.frame(app);
  ASSERT_TRUE(app.set_state_text(state({"the", "cat", "sat", "on", "the", "mat"})).value("ok", false));
  h.frame(app);
  h.click(app, "Compare heads");
  h.click(app, "All heads");
  h.click(app, "Stage");
  h.click(app, "Stage: dropped");
  for (int i = 0; i < 3; ++i) h.frame(app);
  ASSERT_FALSE(app.heatmap_info("dropped h1").is_null());
  EXPECT_FALSE(app.heatmap_info("dropped h1")["dropped"].empty()) << "the grid marks head 1's dropped cells";
  ASSERT_TRUE(app.set_state_text(state({"the", "cat", "sat", "on", "the", "mat"}, 1)).value("ok", false));
  for (int i = 0; i < 2; ++i) h.frame(app);
  EXPECT_FALSE(app.heatmap_info("dropped h1")["dropped"].empty()) << "still after a new dropout seed";
  h.click(app, "Decode");
  for (int i = 0; i < 3; ++i) h.frame(app);
  EXPECT_FALSE(app.heatmap_info("decode dropped")["dropped"].empty()) << "the Decode row marks them too";
}

}  // namespace

namespace {

// The Stages tab's K and V maps under GQA show the K/V head the selected query head
// reads, columns g·hd … (g+1)·hd of K and V (issue 31: head 3 showed K/V head 0's).
TEST(Labels, GqaKAndVMapsShowTheColumnsOfTheKvHeadTheQueryHeadReads) {
  Headless h(ImVec2(1920, 1080));
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 3; ++i) h.frame(app);
  nlohmann::json s = {{"tokens", {"a", "b", "c", "d"}}, {"d_model", 8}, {"d_out", 16}, {"num_heads", 4},
                      {"num_kv_heads", 2}};
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false));
  h.frame(app);
  h.frame(app);  // new tabs have no width in the frame they appear (ImGui's tab bar): the heads' tabs
  for (int head = 0; head < 4; ++head) {
    const std::string tab = "head " + std::to_string(head);
    h.click(app, tab.c_str());
    h.frame(app);
    const int g = head / 2, hd = 4;
    for (const char* st : {"K", "V"}) {
      const std::string label = std::string(st) + " kv" + std::to_string(g);
      nlohmann::json info = app.heatmap_info(label);
      ASSERT_FALSE(info.is_null()) << label << " drawn for head " << head;
      const MatrixView full = app.matrix(st, 0);
      ASSERT_EQ(full.cols, 2 * hd);
      const int dec = info["decimals"];
      ASSERT_GE(dec, 0);
      for (int i = 0; i < full.rows; ++i)
        for (int j = 0; j < hd; ++j) {
          char want[48];
          attnviz::ui::format_cell(full.data[i * full.cols + g * hd + j], dec, want, sizeof want);
          EXPECT_EQ(info["cells"][i][j], want) << label << " [" << i << "][" << j << "] for query head " << head;
        }
    }
  }
}

}  // namespace
