// test_i18n_stages.cpp: the Stages tab, the heatmaps and the Inspector in 简体中文
// (issue 22). The flow's operations use the tutorials' terms while the formulas and
// PyTorch calls stay as written; maps keep their English names for the registry,
// caches and tests; the Inspector words its formula from the Explanation's fields
// (in English exactly the engine's formula) and wraps Chinese text beside its
// characters, never inside a number; nothing shown asks the catalogue for a key it
// lacks. Layout is measured with the fonts the app ships (DejaVu Sans, Droid Sans
// Fallback) when they are installed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "app/app.h"
#include "app/widgets/fonts.h"
#include "app/text/i18n.h"
#include "app/text/inspector_text.h"
#include "app/panels/stage_flow.h"
#include "attnviz/explain.h"
#include "attnviz/pipeline.h"
#include "attnviz/state.h"
#include "attnviz/state_json.h"
#include "headless.h"
#include "imgui.h"

namespace {

using namespace attnviz::ui;
using attnviz::Stage;
using attnviz::State;
using attnviz::ui::testing::Headless;
using attnviz::ui::testing::NullTextures;

// The language is the process's: each test starts and ends in English.
struct StagesI18n : ::testing::Test {
  void SetUp() override {
    set_language(Lang::en);
    i18n_clear_misses();
  }
  void TearDown() override { set_language(Lang::en); }
  static std::string misses() {
    std::string out;
    for (const std::string& k : i18n_misses()) out += "\n  " + k;
    return out;
  }
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string op(const State& s, float divisor, Stage st) {
  char b[320];
  flow_op(s, divisor, st, b, sizeof b);
  return b;
}

std::string term(Stage st, int head) {
  char b[96];
  stage_term(st, head, b, sizeof b);
  return b;
}

TEST_F(StagesI18n, TheFlowsOperationsUseTheTutorialsTermsAndKeepTheirFormulas) {
  set_language(Lang::zh_CN);
  State s;  // tutorial 000: head_dim 4, scaled by √4, no mask, no dropout
  EXPECT_EQ(op(s, 2.0f, Stage::scaled), "\xC3\xB7 \xE2\x88\x9Ahead_dim = \xE2\x88\x9A" "4 = 2") << "a formula: as written";
  EXPECT_EQ(op(s, 2.0f, Stage::scores), "Q_h \xC2\xB7 K_h\xE1\xB5\x80");
  EXPECT_EQ(op(s, 2.0f, Stage::weights), "softmax(dim=-1)");
  EXPECT_EQ(op(s, 2.0f, Stage::masked), "无掩码");
  EXPECT_STREQ(flow_identity(s, Stage::masked), "无掩码：与缩放后的分数 scaled 相同");
  EXPECT_TRUE(has(op(s, 2.0f, Stage::Q), "X \xC2\xB7 W_q, W_k, W_v：取本头的列")) << op(s, 2.0f, Stage::Q);

  s.causal = true;
  EXPECT_EQ(op(s, 2.0f, Stage::masked), "masked_fill(j > i, \xE2\x88\x92inf)") << "PyTorch's call: as written";
  EXPECT_STREQ(flow_identity(s, Stage::masked), "");
  s.tokens = {"a", "b", "c"};
  s.key_padding = {1, 1, 0};
  EXPECT_EQ(op(s, 2.0f, Stage::masked), "masked_fill(j > i 或键 j 为填充, \xE2\x88\x92inf)");
  s.causal = false;
  EXPECT_EQ(op(s, 2.0f, Stage::masked), "masked_fill(键 j 为填充, \xE2\x88\x92inf)");

  s.temperature = 0.5;
  EXPECT_TRUE(has(op(s, 1.0f, Stage::scaled), "\xC3\xB7 (\xE2\x88\x9Ahead_dim \xC3\x97 温度) = \xE2\x88\x9A" "4 \xC3\x97 0.5 = 1"))
      << op(s, 1.0f, Stage::scaled);

  s.dropout.p = 0.5;
  s.dropout.training = false;
  EXPECT_EQ(op(s, 2.0f, Stage::dropped), "Dropout p = 0.5，评估模式");
  EXPECT_STREQ(flow_identity(s, Stage::dropped), "评估模式：恒等变换，与注意力权重 weights 相同");
  s.dropout.training = true;
  EXPECT_EQ(op(s, 2.0f, Stage::dropped), "Dropout p = 0.5（训练模式）：保留的权重 \xC3\x97 1/(1\xE2\x88\x92p) = 2");
  EXPECT_STREQ(flow_identity(s, Stage::dropped), "");
  EXPECT_EQ(op(s, 2.0f, Stage::context), "dropped \xC2\xB7 V_h") << "variable names: as written";
  char torch[512];
  flow_torch(s, Stage::weights, torch, sizeof torch);
  EXPECT_STREQ(torch, "attn_weights = torch.softmax(attn_scores, dim=-1)");
  flow_torch(s, Stage::Q, torch, sizeof torch);
  EXPECT_TRUE(has(torch, "queries = x @ W_query   # keys、values 同理\n")) << torch;
  EXPECT_TRUE(i18n_misses().empty()) << misses();

  set_language(Lang::en);  // the English text is the key: unchanged
  EXPECT_EQ(op(s, 2.0f, Stage::dropped), "dropout p = 0.5 (train): kept \xC3\x97 1/(1\xE2\x88\x92p) = 2");
  s.dropout.training = false;
  EXPECT_STREQ(flow_identity(s, Stage::dropped), "eval mode: identity, same as weights");
}

TEST_F(StagesI18n, StagesAreNamedWithTheTutorialsTermsBesideTheVariable) {
  EXPECT_EQ(term(Stage::weights, 0), "weights h0");
  EXPECT_EQ(term(Stage::Q, 1), "Q h1");
  EXPECT_EQ(term(Stage::Q, -1), "Q");
  EXPECT_EQ(term(Stage::W_q, -1), "W_q");
  set_language(Lang::zh_CN);
  EXPECT_EQ(term(Stage::scores, 0), "注意力分数 scores，头 0");
  EXPECT_EQ(term(Stage::scaled, 0), "缩放后 scaled，头 0");
  EXPECT_EQ(term(Stage::masked, 1), "掩码后 masked，头 1");
  EXPECT_EQ(term(Stage::weights, 0), "注意力权重 weights，头 0");
  EXPECT_EQ(term(Stage::dropped, 2), "丢弃后 dropped，头 2");
  EXPECT_EQ(term(Stage::context, 0), "上下文向量 context，头 0");
  EXPECT_EQ(term(Stage::Q, -1), "查询 Q");
  EXPECT_EQ(term(Stage::X, -1), "嵌入 X");
  EXPECT_EQ(term(Stage::output, -1), "输出 output");
  EXPECT_EQ(term(Stage::W_o, -1), "W_o") << "parameters read the same everywhere";
  EXPECT_TRUE(i18n_misses().empty()) << misses();
}

// In English the Inspector's first line is the engine's Explanation::formula,
// character for character: the UI words it from the fields, and no wording is lost.
TEST_F(StagesI18n, TheInspectorsFormulaInEnglishIsTheEngines) {
  const char* states[] = {
      R"({"tokens": ["a", "b", "c", "d"], "d_model": 4, "d_out": 4, "num_heads": 2})",
      R"({"tokens": ["a", "b", "c", "d"], "d_model": 4, "d_out": 4, "num_heads": 2, "causal": true,
          "key_padding": [1, 1, 1, 0], "qkv_bias": true, "out_proj": true, "positional": "sinusoidal",
          "temperature": 1.5, "dropout": {"p": 0.5, "training": true, "seed": 3}})",
      R"({"tokens": ["a", "b", "c"], "d_model": 4, "d_out": 4, "num_heads": 1, "scale": "d_out", "causal": true,
          "mask_fill": -1e9, "out_proj": true, "out_bias": false})",
      R"({"tokens": ["a", "b", "c"], "d_model": 4, "d_out": 4, "num_heads": 1, "scale": "none",
          "temperature": 2, "key_padding": [0, 0, 0], "safe_softmax": true, "dropout": {"p": 0.5, "training": false}})",
      R"({"tokens": ["a", "b", "c"], "d_model": 4, "d_out": 4, "num_heads": 1, "scale": "none"})",
      R"({"tokens": ["a", "b", "c"], "d_model": 4, "d_out": 4, "num_heads": 1, "scale": "d_out",
          "temperature": 0.5, "key_padding": [1, 0, 1]})",
  };
  int compared = 0;
  for (const char* text : states) {
    State st;
    ASSERT_TRUE(attnviz::parse_state_text(text, &st).ok) << text;
    attnviz::Pipeline p;
    ASSERT_TRUE(p.set_state(st).ok) << text;
    for (int k = 0; k < attnviz::kStageCount; ++k) {
      const Stage stage = static_cast<Stage>(k);
      for (int head = 0; head < (attnviz::stage_is_per_head(stage) ? p.num_heads() : 1); ++head)
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j) {
            const attnviz::Explanation e = p.explain(stage, head, i, j);
            if (!e.ok) continue;
            char b[512];
            inspector_formula(p, e, b, sizeof b);
            EXPECT_EQ(std::string(b), e.formula) << text;
            ++compared;
          }
    }
  }
  EXPECT_GT(compared, 500);
}

// One source for the formulas: every line of the engine's table with words has its
// Chinese, which keeps the maths (every placeholder, the names and operators) and
// drops the English words; maths lines are written as they are in both languages.
TEST_F(StagesI18n, EveryFormulaOfTheEnginesTableIsWordedInChinese) {
  set_language(Lang::zh_CN);
  for (int k = 1; k < attnviz::kFormulaCount; ++k) {
    const auto f = static_cast<attnviz::Formula>(k);
    const std::string en = attnviz::formula_template(f), zh = tr(attnviz::formula_template(f));
    if (!attnviz::formula_has_words(f)) continue;
    EXPECT_NE(zh, en) << "no Chinese for " << en;
    for (const char* word : {"(head", "K/V head", "embedding of", "column", "is a parameter", "no scaling",
                             "not masked", "(causal", "(padding", "(window", "row max", "temperature",
                             "dropout is off", "(kept)", "(dropped)", "no output projection", "context of head"})
      EXPECT_EQ(zh.find(word), std::string::npos) << "\"" << word << "\" left in " << zh;
    for (int a = 0; a < 10; ++a) {
      const std::string ph = "{" + std::to_string(a) + "}";
      EXPECT_EQ(en.find(ph) == std::string::npos, zh.find(ph) == std::string::npos) << ph << " in " << en;
    }
  }
  // A filled Chinese formula, as the Inspector shows it.
  State st;
  ASSERT_TRUE(attnviz::parse_state_text(R"({"tokens": ["a", "b", "c"], "d_model": 4, "d_out": 4, "num_heads": 2,
      "num_kv_heads": 1, "causal": true})", &st).ok);
  attnviz::Pipeline p;
  ASSERT_TRUE(p.set_state(st).ok);
  char b[512];
  inspector_formula(p, p.explain(Stage::context, 1, 2, 0), b, sizeof b);
  EXPECT_STREQ(b, "context[2][0] = \u03a3_s dropped[2][s] \u00b7 v_s[0]\uff08\u5934 1\uff0c\u952e/\u503c\u5934 0\uff09");
  inspector_formula(p, p.explain(Stage::masked, 0, 0, 2), b, sizeof b);
  EXPECT_STREQ(b, "masked[0][2] = mask_fill -inf\uff08\u56e0\u679c\u63a9\u7801\uff09");
}

// --- The app in Chinese, measured with the fonts it ships when they are here.

// Rebuilds the headless atlas with DejaVu Sans and Droid Sans Fallback (every
// character of the Chinese catalogue): text is measured as the app draws it. False
// when the fonts are not installed (the built-in font then measures, glyphs as '?').
bool real_fonts() {
  static FontSources src;  // the atlas points into it
  return attnviz::ui::testing::use_real_fonts(src);
}

// Tutorial 004's six tokens, d_out 2, one head (test_inspector.cpp's), and more.
std::string journey(const char* extra = "") {
  return std::string(R"({"tokens": ["Your", "journey", "starts", "with", "one", "step"],
    "d_model": 3, "d_out": 2, "num_heads": 1,
    "embedding": {"values": [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                             [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]},
    "weights": {"init": "torch_rand", "seed": 123})") + extra + "}";
}

std::string hover(Headless& h, App& app, const char* label, int rows, int cols, int i, int j) {
  float r[4];
  EXPECT_TRUE(app.item_rect(label, r)) << label;
  ImGui::GetIO().AddMousePosEvent(r[0] + (j + 0.5f) * r[2] / cols, r[1] + (i + 0.5f) * r[3] / rows);
  for (int k = 0; k < 3; ++k) h.frame(app);
  return inspector_log().text;
}

// The Inspector's text with no spaces nor line breaks: what it says, whatever the
// panel's width (a line may break at a space or beside a Chinese character).
std::string flat(const std::string& t) {
  std::string out;
  for (char c : t)
    if (c != ' ' && c != '\n') out += c;
  return out;
}
bool says(const std::string& flat_text, const std::string& part) { return has(flat_text, flat(part)); }

// Every line fits the Inspector, and none ends inside a number the next continues.
void expect_laid_out() {
  const InspectorLog& log = inspector_log();
  const std::string text = log.text;
  EXPECT_FALSE(log.truncated);
  EXPECT_LE(log.widest, log.avail + 0.5f) << "a line is wider than the Inspector:\n" << text;
  std::vector<std::string> lines;
  for (size_t a = 0, b; a < text.size(); a = b + 1) {
    b = text.find('\n', a);
    if (b == std::string::npos) b = text.size();
    lines.push_back(text.substr(a, b - a));
  }
  auto num_char = [](char c) { return (c >= '0' && c <= '9') || c == '.'; };
  for (size_t k = 0; k + 1 < lines.size(); ++k) {
    const std::string &a = lines[k], &b = lines[k + 1];
    if (a.empty() || b.empty() || has(a, " | ") || has(b, " | ")) continue;
    EXPECT_FALSE(num_char(a.back()) && num_char(b.front())) << "a number split:\n" << text;
  }
}

TEST_F(StagesI18n, ChineseWrapsBesideItsCharactersAndNeverInsideANumber) {
  Headless h;
  real_fonts();
  ImGui::NewFrame();
  const char* text = "已掩码（因果掩码）：键 5 位于查询之后，因此值 0.123456 被替换为填充值 mask_fill -inf。"
                     "查询“journey”（第 1 行）· 键“starts”（第 2 行），头 0，对 d = 0 … 1 求和";
  const char* end = text + std::strlen(text);
  auto starts_closing = [](const char* p) {
    for (const char* c : {"，", "。", "：", "）", "”", "；"})
      if (std::strncmp(p, c, std::strlen(c)) == 0) return true;
    return false;
  };
  auto digit = [](char c) { return (c >= '0' && c <= '9') || c == '.'; };
  int broke_beside_chinese = 0;
  for (float width = 90; width < 600; width += 11) {
    for (const char* p = text; p < end;) {
      const char* le = inspector_wrap(p, end, width);
      ASSERT_GT(le, p);
      ASSERT_LE(le, end);
      EXPECT_LE(ImGui::CalcTextSize(p, le).x, width + 0.5f) << "width " << width;
      if (le < end) {
        EXPECT_FALSE(digit(le[-1]) && digit(le[0])) << "width " << width << " split a number at \"" << le << "\"";
        EXPECT_FALSE(std::isalpha((unsigned char)le[-1]) && std::isalpha((unsigned char)le[0])) << le;
        EXPECT_FALSE(starts_closing(le)) << "width " << width << ": a line starts with closing punctuation: " << le;
        if (*le != ' ') ++broke_beside_chinese;
      }
      p = le;
      while (p < end && *p == ' ') ++p;
    }
  }
  EXPECT_GT(broke_beside_chinese, 0) << "Chinese text has no spaces: lines break beside its characters";
  ImGui::EndFrame();
}

TEST_F(StagesI18n, TheInspectorDerivesAWeightsCellInChinese) {
  for (ImVec2 screen : {ImVec2(1280, 720), ImVec2(1920, 1080)}) {
    Headless h(screen);
    real_fonts();
    NullTextures tex;
    App app(&tex);
    ASSERT_TRUE(app.set_state_text(journey()).value("ok", false));
    ASSERT_TRUE(app.set_language("zh-CN").value("ok", false));
    for (int k = 0; k < 3; ++k) h.frame(app);
    std::string t = flat(hover(h, app, "weights h0", 6, 6, 1, 2));
    EXPECT_TRUE(says(t, "注意力权重 weights，头 0 [1][2]：查询“journey”→ 键“starts”")) << t;
    EXPECT_TRUE(says(t, "weights[1][2] = exp(masked[1][2] \xE2\x88\x92 行最大值) / \xCE\xA3_s exp(masked[1][s] "
                       "\xE2\x88\x92 行最大值)"))
        << t;
    EXPECT_TRUE(says(t, "归一化因子 \xCE\xA3_s exp(masked[s] \xE2\x88\x92 行最大值) = ")) << t;
    EXPECT_TRUE(says(t, "权重 = ")) << t;
    EXPECT_TRUE(says(t, "该单元格的值 = ")) << t;
    expect_laid_out();

    t = flat(hover(h, app, "scores h0", 6, 6, 1, 2));
    EXPECT_TRUE(says(t, "scores[1][2] = q_1 \xC2\xB7 k_2 = \xCE\xA3_d q_1[d] \xC2\xB7 k_2[d]（头 0）")) << t;
    EXPECT_TRUE(says(t, "\nd | q_1[d] | k_2[d] | 乘积\n")) << t;
    expect_laid_out();

    t = flat(hover(h, app, "scaled h0", 6, 6, 1, 2));
    EXPECT_TRUE(says(t, "\xE2\x88\x9Ahead_dim = \xE2\x88\x9A" "2 = 1.4142")) << t;
    expect_laid_out();
    EXPECT_TRUE(i18n_misses().empty()) << misses();
  }
}

TEST_F(StagesI18n, MaskedAndDroppedCellsAreExplainedInChinese) {
  Headless h(ImVec2(1920, 1080));
  real_fonts();
  NullTextures tex;
  App app(&tex);
  ASSERT_TRUE(app.set_state_text(journey(R"(, "causal": true, "dropout": {"p": 0.5, "training": true, "seed": 1})"))
                  .value("ok", false));
  ASSERT_TRUE(app.set_language("zh-CN").value("ok", false));
  for (int k = 0; k < 3; ++k) h.frame(app);
  std::string t = flat(hover(h, app, "masked h0", 6, 6, 1, 4));
  EXPECT_TRUE(says(t, "masked[1][4] = mask_fill -inf（因果掩码）")) << t;
  EXPECT_TRUE(says(t, "已掩码（因果掩码）：键 4 位于查询之后，因此值 ")) << t;
  expect_laid_out();
  t = flat(hover(h, app, "masked h0", 6, 6, 4, 1));
  EXPECT_TRUE(says(t, "masked[4][1] = scaled[4][1]（未被掩码）")) << t;
  EXPECT_TRUE(says(t, "未被掩码：缩放后的值 ")) << t;
  t = flat(hover(h, app, "dropped h0", 6, 6, 5, 0));
  EXPECT_TRUE(says(t, "dropped[5][0] = weights[5][0] \xC3\x97 ")) << t;
  EXPECT_TRUE(says(t, "（保留）") || says(t, "（丢弃）")) << t;
  EXPECT_TRUE(says(t, "保留：") || says(t, "丢弃：")) << t;
  expect_laid_out();
  t = flat(hover(h, app, "context h0", 6, 2, 3, 1));
  EXPECT_TRUE(says(t, "上下文向量 context，头 0 [3][1]（词元“with”）")) << t;
  EXPECT_TRUE(says(t, "\ns | dropped[3][s] | v_s[1] | 乘积\n")) << t;
  expect_laid_out();
  EXPECT_TRUE(i18n_misses().empty()) << misses();
}

// The maps keep their English names (item registry, heatmap caches, heatmapInfo) and
// draw the same labels and cells in every language; only the words around them change.
TEST_F(StagesI18n, MapsKeepTheirNamesLabelsAndCellsInChinese) {
  Headless h(ImVec2(1600, 1000));
  real_fonts();
  NullTextures tex;
  App app(&tex);
  const char* two_heads = R"({"tokens": ["Your", "journey", "starts", "with", "one", "step"],
    "d_model": 4, "d_out": 4, "num_heads": 2, "weights": {"init": "torch_rand", "seed": 123}})";
  ASSERT_TRUE(app.set_state_text(two_heads).value("ok", false)) << app.set_state_text(two_heads).dump();
  for (int k = 0; k < 4; ++k) h.frame(app);
  const nlohmann::json en = app.heatmap_info("weights h0");
  ASSERT_FALSE(en.is_null());
  ASSERT_TRUE(app.set_language("zh-CN").value("ok", false));
  for (int k = 0; k < 4; ++k) h.frame(app);
  float r[4];
  for (const char* item : {"weights h0", "scores h0", "Q h0", "K h0", "V h0", "context h0", "op weights", "op masked",
                           "op dropped", "head 0", "head 1", "PyTorch code", "Q K V & output tab"})
    EXPECT_TRUE(app.item_rect(item, r)) << item;
  const nlohmann::json zh = app.heatmap_info("weights h0");
  ASSERT_FALSE(zh.is_null());
  EXPECT_EQ(zh["row_labels"], en["row_labels"]);
  EXPECT_EQ(zh["cells"], en["cells"]);
  EXPECT_EQ(zh["rows"], 6);
  h.click(app, "head 1");  // the head tabs keep their IDs: a click selects head 1
  for (int k = 0; k < 2; ++k) h.frame(app);
  EXPECT_TRUE(app.item_rect("weights h1", r)) << "head 1 selected";
  h.click(app, "Q K V & output tab");
  for (int k = 0; k < 2; ++k) h.frame(app);
  EXPECT_TRUE(app.item_rect("output", r)) << "the button opens the Q K V & output tab";
  EXPECT_TRUE(i18n_misses().empty()) << misses();
}

// In Chinese the flow's cards stay apart (an operation wraps inside its card) and the
// maps of a row start at one height, whatever their operations' lines took.
TEST_F(StagesI18n, TheFlowInChineseKeepsItsCardsApartAndItsMapsInRows) {
  for (ImVec2 screen : {ImVec2(1280, 720), ImVec2(1440, 900), ImVec2(1920, 1080)}) {
    Headless h(screen);
    real_fonts();
    NullTextures tex;
    App app(&tex);
    ASSERT_TRUE(app.set_state_text(journey(R"(, "causal": true, "key_padding": [1, 1, 1, 1, 1, 0],
        "temperature": 1.5, "dropout": {"p": 0.5, "training": true, "seed": 1})")).value("ok", false));
    ASSERT_TRUE(app.set_language("zh-CN").value("ok", false));
    for (int k = 0; k < 4; ++k) h.frame(app);
    const char* ops[] = {"op Q", "op scores", "op scaled", "op masked", "op weights", "op dropped", "op context"};
    const char* maps[] = {"Q h0", "scores h0", "scaled h0", "masked h0", "weights h0", "dropped h0", "context h0"};
    float a[4], b[4], ma[4], mb[4];
    for (int k = 0; k + 1 < 7; ++k) {
      ASSERT_TRUE(app.item_rect(ops[k], a)) << ops[k];
      ASSERT_TRUE(app.item_rect(ops[k + 1], b)) << ops[k + 1];
      if (b[0] <= a[0]) continue;  // the next card starts a row
      const bool same_row = std::abs(a[1] - b[1]) < 1.0f;
      EXPECT_TRUE(same_row) << ops[k] << " and " << ops[k + 1] << " at " << screen.x << "\xC3\x97" << screen.y;
      EXPECT_LE(a[0] + a[2], b[0]) << ops[k] << " runs into the next card at " << screen.x;
      ASSERT_TRUE(app.item_rect(maps[k], ma));
      ASSERT_TRUE(app.item_rect(maps[k + 1], mb));
      // The S × S maps (same labels, so the same header above their cells) line up.
      if (k >= 1 && k + 1 <= 5) {
        EXPECT_NEAR(ma[1], mb[1], 1.0f) << maps[k] << " and " << maps[k + 1] << " at " << screen.x;
      }
    }
    EXPECT_TRUE(i18n_misses().empty()) << misses();
  }
}

}  // namespace
