// File → Open weights… on the desktop path (weights_import.h): a dropped or typed
// path is scanned, the dialog lists and proposes, "Apply weights" applies in one
// undo step; a corrupt file keeps the state with a sentence. And every problem
// code has its sentence in the one table (weights_text.cpp).
#include <filesystem>
#include <fstream>

#include "../engine/weights_test_util.h"
#include "app/i18n.h"
#include "app/weights_import.h"
#include "app/weights_text.h"
#include "headless.h"

namespace {

using namespace attnviz;
using namespace attnviz::ui;
using namespace attnviz::ui::testing;
namespace fs = std::filesystem;

std::vector<float> ramp(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(i % 7) - 0.5f;
  return v;
}

TEST(WeightsImport, DialogProposesAndApplyIsOneUndoStep) {
  const fs::path dir = fs::temp_directory_path() / "attnviz-test-weights";
  fs::create_directories(dir);
  // GPT-2 style, two layers: c_attn (d × 3d) and c_proj, d = 6.
  std::vector<attnviz::testing::StTensor> ts;
  for (int l = 0; l < 2; ++l) {
    const std::string p = "transformer.h." + std::to_string(l) + ".attn.";
    ts.push_back({p + "c_attn.weight", {6, 18}, ramp(108, 0.1f * (l + 1))});
    ts.push_back({p + "c_attn.bias", {18}, ramp(18, 0.01f)});
    ts.push_back({p + "c_proj.weight", {6, 6}, ramp(36, 0.05f)});
  }
  std::ofstream(dir / "gpt2.safetensors", std::ios::binary) << attnviz::testing::safetensors_f32(ts);

  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  const std::string before = app.state_json();
  auto r = app.import_state_file((dir / "gpt2.safetensors").string());  // what a drop does
  EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
  h.frame(app);
  h.frame(app);
  nlohmann::json d = weights_dialog_info();
  EXPECT_TRUE(d["open"].get<bool>()) << d.dump();
  EXPECT_EQ(d["tensors"].size(), 6u);
  EXPECT_EQ(d["family"], "c_attn");
  EXPECT_EQ(d["roles"]["W_v"]["part"], 2);
  EXPECT_EQ(d["roles"]["W_v"]["transpose"], false);
  EXPECT_EQ(d["layers"].size(), 2u);
  EXPECT_EQ(d["heads"], 1);  // the default state's one head divides 6
  h.click(app, "Apply weights");
  h.frame(app);
  const auto s = nlohmann::json::parse(app.state_json());
  EXPECT_EQ(s["d_model"], 6);
  EXPECT_EQ(s["d_out"], 6);
  EXPECT_EQ(s["qkv_bias"], true);
  EXPECT_EQ(s["out_proj"], true);
  EXPECT_EQ(s["out_bias"], false);
  EXPECT_EQ(s["weights"]["W_v"][1][2].get<float>(), ramp(108, 0.1f)[1 * 18 + 12 + 2]);
  EXPECT_FALSE(weights_dialog_info()["open"].get<bool>());
  h.chord(app, ImGuiKey_Z, false);
  EXPECT_EQ(app.state_json(), before);

  // Corrupt: cut in the header. The state stays; the notice says why.
  const std::string whole = attnviz::testing::safetensors_f32(ts);
  std::ofstream(dir / "cut.safetensors", std::ios::binary) << whole.substr(0, 100);
  r = app.import_state_file((dir / "cut.safetensors").string());
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_NE(r["error"].get<std::string>().find("“cut.safetensors” was not opened: The file is cut short"), std::string::npos)
      << r.dump();
  h.frame(app);
  EXPECT_EQ(app.state_json(), before);
  EXPECT_FALSE(weights_dialog_info()["open"].get<bool>());
  fs::remove_all(dir);
}

TEST(WeightsImport, EveryProblemHasASentence) {
  using weights::Problem;
  for (int c = static_cast<int>(Problem::file_empty); c <= static_cast<int>(Problem::state_refused); ++c) {
    const weights::Error e = weights::Error::make(static_cast<Problem>(c), {"A", "B", "C", "D", "E", "F"});
    const std::string s = weights_sentence(e);
    EXPECT_EQ(s.find("The weights could not be read ("), std::string::npos) << weights::problem_name(e.code);  // the fallback
    EXPECT_EQ(s.find('{'), std::string::npos) << s;
    EXPECT_FALSE(s.empty());
  }
  EXPECT_EQ(tr_args("{1} and {0}, {2}", {"x", "y"}), "y and x, {2}");
  // A sentence that quotes a shape says whose: the file's, or x·W's (in, out).
  using weights::Error;
  const std::string t = weights_sentence(
      Error::make(Problem::role_shape, {"W_k", "k_proj.weight", "(8, 6)", "(6, 8)", "(4, 8)", "W_q"}));
  EXPECT_NE(t.find("(8, 6) in the file (PyTorch's (out, in))"), std::string::npos) << t;
  EXPECT_NE(t.find("(6, 8) once transposed to x·W (in, out)"), std::string::npos) << t;
  const std::string x = weights_sentence(
      Error::make(Problem::role_shape_xw, {"W_k", "W_k", "(6, 8)", "(6, 8)", "(4, 8)", "W_q"}));
  EXPECT_NE(x.find("(6, 8) in the file"), std::string::npos) << x;
  EXPECT_NE(x.find("as x·W (in, out) without transposing"), std::string::npos) << x;
  for (Problem c : {Problem::role_not_matrix, Problem::role_not_vector, Problem::role_split_uneven, Problem::size_mismatch})
    EXPECT_NE(weights_sentence(Error::make(c, {"A", "B", "C", "D", "E"})).find("in the file"), std::string::npos)
        << weights::problem_name(c);
}

}  // namespace
