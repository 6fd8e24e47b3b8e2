// test_export.cpp: the export formats (CSV, TSV, JSON) give back the engine's
// float32 numbers exactly, spell −inf/+inf/NaN out and quote labels; a heatmap's
// right-click menu copies TSV and queues CSV/JSON/PNG requests; File → Export
// PyTorch script and Edit → Copy as PyTorch hand over the engine's script; importing
// a state file applies it, and a bad one keeps the state with a sentence.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "temp_dir.h"
#include "attnviz/state.h"
#include "attnviz/state_json.h"
#include "attnviz/torch_script.h"
#include "app/app.h"
#include "app/panels/export.h"
#include "app/widgets/fonts.h"
#include "headless.h"
#include "imgui.h"

namespace {

using attnviz::ui::App;
using attnviz::ui::MatrixLabels;
using attnviz::ui::MatrixView;
namespace ui = attnviz::ui;

float parse_float(const std::string& s) {
  if (s == "-inf") return -INFINITY;
  if (s == "inf") return INFINITY;
  if (s == "nan") return NAN;
  return (float)std::strtod(s.c_str(), nullptr);
}

bool same_bits(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  uint32_t x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  return x == y;
}

TEST(ExportFormat, FloatsAreShortestAndReadBackExactly) {
  EXPECT_EQ(ui::format_float_exact(0.1f), "0.1");
  EXPECT_EQ(ui::format_float_exact(1.0f), "1");
  EXPECT_EQ(ui::format_float_exact(-0.0f), "-0");
  EXPECT_EQ(ui::format_float_exact(1e-5f), "1e-05");
  EXPECT_EQ(ui::format_float_exact(0.33333334f), "0.33333334");
  EXPECT_EQ(ui::format_float_exact(16777216.0f), "16777216");
  EXPECT_EQ(ui::format_float_exact(-INFINITY), "-inf");
  EXPECT_EQ(ui::format_float_exact(INFINITY), "inf");
  EXPECT_EQ(ui::format_float_exact(NAN), "nan");
  // Random bit patterns over the whole float range, subnormals included.
  std::mt19937 rng(12345);
  for (int k = 0; k < 200000; ++k) {
    uint32_t bits = rng();
    float v;
    std::memcpy(&v, &bits, 4);
    std::string s = ui::format_float_exact(v);
    ASSERT_TRUE(same_bits(parse_float(s), v)) << s << " for bits " << bits;
  }
}

// A 2×3 matrix with every special value, labels that need quoting.
struct Sample {
  float data[6] = {0.25f, -INFINITY, 1e-5f, NAN, INFINITY, -0.33333334f};  // (2 × 3) row-major
  std::vector<std::string> rows = {"a,b", "say \"hi\""};
  std::vector<std::string> cols = {"x", "y\tz", "w"};
  MatrixView view() const { return MatrixView{2, 3, data}; }
};

TEST(ExportFormat, CsvQuotesLabelsAndSpellsSpecialValues) {
  Sample s;
  EXPECT_EQ(ui::matrix_csv(s.view(), MatrixLabels{&s.rows, &s.cols}),
            ",x,y\tz,w\r\n"
            "\"a,b\",0.25,-inf,1e-05\r\n"
            "\"say \"\"hi\"\"\",nan,inf,-0.33333334\r\n");
  // No labels: indices, as the heatmap shows them.
  EXPECT_EQ(ui::matrix_csv(s.view(), MatrixLabels{}),
            ",0,1,2\r\n0,0.25,-inf,1e-05\r\n1,nan,inf,-0.33333334\r\n");
  EXPECT_EQ(ui::matrix_csv(MatrixView{}, MatrixLabels{}), "");
}

TEST(ExportFormat, TsvIsOneLinePerRowWithKeyHeaderAndQueryColumn) {
  Sample s;
  EXPECT_EQ(ui::matrix_tsv(s.view(), MatrixLabels{&s.rows, &s.cols}),
            "\tx\ty z\tw\n"
            "a,b\t0.25\t-inf\t1e-05\n"
            "say \"hi\"\tnan\tinf\t-0.33333334\n");
}

TEST(ExportFormat, JsonCarriesLabelsAndExactNumbers) {
  Sample s;
  std::string text = ui::matrix_json("weights h0", s.view(), MatrixLabels{&s.rows, &s.cols});
  nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["matrix"], "weights h0");
  EXPECT_EQ(j["rows"], 2);
  EXPECT_EQ(j["cols"], 3);
  EXPECT_EQ(j["row_labels"], nlohmann::json(s.rows));
  EXPECT_EQ(j["col_labels"], nlohmann::json(s.cols));
  ASSERT_EQ(j["data"].size(), 2u);
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 3; ++k) {
      const nlohmann::json& v = j["data"][i][k];
      float got = v.is_string() ? parse_float(v.get<std::string>()) : (float)v.get<double>();
      EXPECT_TRUE(same_bits(got, s.data[i * 3 + k])) << i << "," << k << ": " << v.dump();
    }
  EXPECT_EQ(j["data"][0][1], "-inf");
  EXPECT_EQ(j["data"][1][0], "nan");
  EXPECT_EQ(j["data"][1][1], "inf");
}

TEST(ExportFormat, FileStems) {
  EXPECT_EQ(ui::export_file_stem("weights h0"), "attnviz-weights-h0");
  EXPECT_EQ(ui::export_file_stem("Q"), "attnviz-Q");
  EXPECT_EQ(ui::export_file_stem("A−B  h1/h2"), "attnviz-A-B-h1-h2");
}

// --- The app, headless (as in test_ui_smoke.cpp)

using ui::testing::Headless;
using ui::testing::NullTextures;

std::string expected(App& app, std::string (*format)(const MatrixView&, const MatrixLabels&)) {
  nlohmann::json st = nlohmann::json::parse(app.state_json());
  std::vector<std::string> toks = st["tokens"];
  return format(app.matrix("weights", 0), MatrixLabels{&toks, &toks});
}

TEST(ExportMenu, RightClickCopiesTsvAndQueuesFiles) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 3; ++i) h.frame(app);

  h.click(app, "weights h0", 1);  // right-click without moving: the export menu
  h.click(app, "Copy as TSV");
  std::string tsv = ImGui::GetClipboardText();
  EXPECT_EQ(tsv, expected(app, ui::matrix_tsv));
  EXPECT_EQ(std::count(tsv.begin(), tsv.end(), '\n'), 6) << "a header and 5 rows";

  h.click(app, "weights h0", 1);
  h.click(app, "Export CSV");
  h.click(app, "weights h0", 1);
  h.click(app, "Export PNG (2×)");
  auto& pending = app.exports().pending;
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_EQ(pending[0].filename, "attnviz-weights-h0.csv");
  EXPECT_EQ(pending[0].bytes, expected(app, ui::matrix_csv));
  EXPECT_EQ(pending[1].kind, ui::ExportKind::png);
  EXPECT_EQ(pending[1].label, "weights h0");
  float panel[4], cells[4];
  ASSERT_TRUE(app.item_rect("weights h0 panel", panel));
  ASSERT_TRUE(app.item_rect("weights h0", cells));
  EXPECT_LE(panel[0], cells[0]);
  EXPECT_LT(panel[1], cells[1]) << "the panel includes the title above the cells";
  EXPECT_GE(panel[0] + panel[2], cells[0] + cells[2]);
  EXPECT_GT(panel[1] + panel[3], cells[1] + cells[3] + 12) << "and the colour bar under them";
  pending.clear();
}

// The app computes nothing here: both menu items hand over the engine's
// torch_script() of the state shown (tests/engine/test_torch_script.cpp checks the text).
TEST(ExportMenu, PyTorchScriptIsTheEnginesScriptOfTheStateShown) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 3; ++i) h.frame(app);
  h.click(app, "Causal mask");  // not the default state
  attnviz::State shown;
  ASSERT_TRUE(attnviz::parse_state_text(app.state_json(), &shown).ok);
  ASSERT_TRUE(shown.causal);
  const std::string want = attnviz::torch_script(shown);

  h.click(app, "File");
  h.click(app, "Export PyTorch script");
  auto& pending = app.exports().pending;
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].kind, ui::ExportKind::file);
  EXPECT_EQ(pending[0].filename, "attnviz.py");
  EXPECT_EQ(pending[0].mime, "text/x-python");
  EXPECT_EQ(pending[0].bytes, want);
  pending.clear();

  h.click(app, "Edit");
  h.click(app, "Copy as PyTorch");
  EXPECT_EQ(std::string(ImGui::GetClipboardText()), want);
  const std::string notice = app.notice().value("text", "");
  EXPECT_NE(notice.find("PyTorch script copied"), std::string::npos) << notice;
}

TEST(ExportMenu, RightDragPansWithoutOpeningTheMenu) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 3; ++i) h.frame(app);
  float r[4];
  ASSERT_TRUE(app.item_rect("weights h0", r));
  ImGuiIO& io = ImGui::GetIO();
  io.AddMousePosEvent(r[0] + 20, r[1] + 20);
  h.frame(app);
  io.AddMouseButtonEvent(1, true);
  h.frame(app);
  io.AddMousePosEvent(r[0] + 40, r[1] + 30);
  h.frame(app);
  io.AddMouseButtonEvent(1, false);
  h.frame(app);
  h.frame(app);
  EXPECT_FALSE(ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel))
      << "a drag is a pan, not a click";
  h.click(app, "weights h0", 1);
  EXPECT_TRUE(ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel))
      << "a click without moving opens the menu";
}

TEST(Import, GoodFileAppliesBadFilesKeepTheStateWithASentence) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  const std::string before = app.state_json();

  auto r = app.import_state("x.json", "{not json");
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_NE(r["error"].get<std::string>().find("not a JSON file"), std::string::npos) << r.dump();
  EXPECT_EQ(app.state_json(), before);

  // Numbers beyond double and deep nesting make nlohmann throw out_of_range, not
  // parse_error: the import must still answer with a sentence (in wasm an escaped
  // exception aborts the page).
  r = app.import_state("huge-number.json", "{\"temperature\": 1e400}");
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_NE(r["error"].get<std::string>().find("too large"), std::string::npos) << r.dump();
  r = app.import_state("deep.json", std::string(100000, '[') + std::string(100000, ']'));
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_NE(r["error"].get<std::string>().find("nested"), std::string::npos) << r.dump();
  EXPECT_EQ(app.state_json(), before);

  nlohmann::json bad = nlohmann::json::parse(before);
  bad["heads"] = 3;  // d_out 4 is not divisible by 3
  r = app.import_state("bad.json", bad.dump());
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_NE(r["error"].get<std::string>().find("not a valid attnviz state"), std::string::npos) << r.dump();
  EXPECT_EQ(app.state_json(), before);

  r = app.import_state_too_large("huge.json", 20.0 * 1024 * 1024);
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_NE(r["error"].get<std::string>().find("at most 16 MB"), std::string::npos) << r.dump();
  EXPECT_EQ(app.state_json(), before);

  nlohmann::json good = nlohmann::json::parse(before);
  good["causal"] = true;
  r = app.import_state("good.json", good.dump(2));
  EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(nlohmann::json::parse(app.state_json())["causal"], true);

  // From disk (the desktop's Open state… and drops).
  namespace fs = std::filesystem;
  fs::path dir = attnviz::ui::testing::test_temp_dir("attnviz-test-import");
  fs::create_directories(dir);
  good["causal"] = false;
  std::ofstream(dir / "s.json") << good.dump(2);
  EXPECT_TRUE(app.import_state_file((dir / "s.json").string())["ok"].get<bool>());
  EXPECT_EQ(nlohmann::json::parse(app.state_json())["causal"], false);
  r = app.import_state_file(dir.string());
  EXPECT_NE(r["error"].get<std::string>().find("is a folder"), std::string::npos) << r.dump();
  r = app.import_state_file((dir / "missing.json").string());
  EXPECT_FALSE(r["ok"].get<bool>());
  fs::remove_all(dir);
}

}  // namespace
