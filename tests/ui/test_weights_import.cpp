// File → Open weights… on the desktop path (weights_import.h): a dropped or typed
// path is scanned, the dialog lists and proposes, "Apply weights" applies in one
// undo step; a corrupt file keeps the state with a sentence. And every problem
// code has its sentence in the one table (weights_text.cpp).
#include <filesystem>
#include <fstream>

#include "temp_dir.h"
#include "../engine/weights_test_util.h"
#include "app/text/i18n.h"
#include "app/panels/weights_import.h"
#include "app/text/weights_text.h"
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
  const fs::path dir = attnviz::ui::testing::test_temp_dir("attnviz-test-weights");
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

// Llama's grouped-query attention: k_proj and v_proj are (4, 8) in the file,
// q_proj (8, 8). The dialog accepts them, proposes the K/V heads from the shapes
// once the heads are chosen, lets the learner pick either, and Apply sets
// num_kv_heads.
TEST(WeightsImport, LlamaGqaProposesKvHeadsAndApplies) {
  const fs::path dir = attnviz::ui::testing::test_temp_dir("attnviz-test-weights-gqa");
  fs::create_directories(dir);
  const std::string p = "model.layers.0.self_attn.";
  std::ofstream(dir / "llama.safetensors", std::ios::binary)
      << attnviz::testing::safetensors_f32({{p + "q_proj.weight", {8, 8}, ramp(64, 0.1f)},
                                            {p + "k_proj.weight", {4, 8}, ramp(32, 0.2f)},
                                            {p + "v_proj.weight", {4, 8}, ramp(32, 0.3f)},
                                            {p + "o_proj.weight", {8, 8}, ramp(64, 0.4f)}});
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  auto r = app.import_state_file((dir / "llama.safetensors").string());
  EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
  h.frame(app);
  h.frame(app);
  nlohmann::json d = weights_dialog_info();
  ASSERT_TRUE(d["open"].get<bool>()) << d.dump();
  EXPECT_EQ(d["family"], "q_proj");
  EXPECT_TRUE(d["ok"].get<bool>()) << d["error"];
  EXPECT_EQ(d["d_out"], 8);
  EXPECT_EQ(d["kv_dim"], 4);
  EXPECT_EQ(d["heads"], 0);  // the default state's 1 head gives head_dim 8, wider than K
  EXPECT_EQ(d["kv_heads"], 0);
  h.click(app, "Weights heads");
  h.click(app, "Weights heads: 4");
  d = weights_dialog_info();
  EXPECT_EQ(d["heads"], 4);
  EXPECT_EQ(d["kv_heads"], 2);  // k_proj's 4 rows / head_dim 2
  EXPECT_TRUE(drawn_now("Weights K/V heads"));
  // The K/V heads can be chosen too; the heads follow (4 query heads per 2 … per K/V head).
  h.click(app, "Weights K/V heads");
  h.click(app, "Weights K/V heads: 1");
  d = weights_dialog_info();
  EXPECT_EQ(d["kv_heads"], 1);
  EXPECT_EQ(d["heads"], 2);
  h.click(app, "Weights K/V heads");
  h.click(app, "Weights K/V heads: 2");
  EXPECT_EQ(weights_dialog_info()["heads"], 4);
  h.click(app, "Apply weights");
  h.frame(app);
  const auto s = nlohmann::json::parse(app.state_json());
  EXPECT_EQ(s["num_heads"], 4);
  EXPECT_EQ(s["num_kv_heads"], 2);
  ASSERT_EQ(s["weights"]["W_k"].size(), 8u);
  ASSERT_EQ(s["weights"]["W_k"][0].size(), 4u);
  EXPECT_EQ(s["weights"]["W_k"][3][1].get<float>(), ramp(32, 0.2f)[1 * 8 + 3]);  // k_projᵀ
  EXPECT_FALSE(weights_dialog_info()["open"].get<bool>());
  fs::remove_all(dir);
}

// One .npy can fill one role: the dialog says what to do. Several chosen (or
// dropped) together are one import, each tensor named by its file's stem.
TEST(WeightsImport, OneNpySaysWhatToDoSeveralTogetherApply) {
  const fs::path dir = attnviz::ui::testing::test_temp_dir("attnviz-test-weights-npy");
  fs::create_directories(dir);
  using attnviz::testing::f32_bytes;
  using attnviz::testing::npy;
  const char* dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }";
  std::vector<std::string> paths;
  for (const char* n : {"W_q", "W_k", "W_v"}) {
    std::ofstream(dir / (std::string(n) + ".npy"), std::ios::binary) << npy(dict, f32_bytes(ramp(6, n[2] == 'q' ? 1.0f : 2.0f)));
    paths.push_back((dir / (std::string(n) + ".npy")).string());
  }
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  app.import_state_file(paths[0]);
  h.frame(app);
  h.frame(app);
  nlohmann::json d = weights_dialog_info();
  ASSERT_TRUE(d["open"].get<bool>()) << d.dump();
  EXPECT_FALSE(d["ok"].get<bool>());
  EXPECT_EQ(d["error"], "Choose a tensor for W_k.");
  const std::string hint = d.value("hint", "");
  EXPECT_NE(hint.find("W_q, W_k and W_v"), std::string::npos) << hint;
  EXPECT_NE(hint.find(".npz"), std::string::npos) << hint;
  EXPECT_TRUE(drawn_now("weights hint"));
  h.click(app, "Cancel weights");

  auto r = app.import_files(paths);
  EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
  h.frame(app);
  h.frame(app);
  d = weights_dialog_info();
  ASSERT_TRUE(d["open"].get<bool>()) << d.dump();
  EXPECT_EQ(d["files"], (nlohmann::json{"W_q.npy", "W_k.npy", "W_v.npy"}));
  EXPECT_EQ(d["tensors"].size(), 3u);
  EXPECT_EQ(d["family"], "W_q");
  EXPECT_TRUE(d["ok"].get<bool>()) << d["error"];
  EXPECT_EQ(d.value("hint", ""), "");
  h.click(app, "Apply weights");
  h.frame(app);
  const auto s = nlohmann::json::parse(app.state_json());
  EXPECT_EQ(s["d_model"], 3);
  EXPECT_EQ(s["d_out"], 2);
  EXPECT_EQ(s["weights"]["W_k"][2][1].get<float>(), ramp(6, 2.0f)[5]);  // x·W as stored
  EXPECT_EQ(s["weights"]["W_q"][2][1].get<float>(), ramp(6, 1.0f)[5]);
  const std::string notice = app.notice()["text"];
  EXPECT_NE(notice.find("W_k.npy"), std::string::npos) << notice;
  fs::remove_all(dir);
}

// A file that was not opened leaves its sentence under the menu bar; opening the
// next one takes it away, so it does not sit over the dialog.
TEST(WeightsImport, AnotherFileClearsThePreviousFilesError) {
  const fs::path dir = attnviz::ui::testing::test_temp_dir("attnviz-test-weights-notice");
  fs::create_directories(dir);
  const std::string good = attnviz::testing::safetensors_f32(
      {{"W_q", {3, 2}, ramp(6, 1)}, {"W_k", {3, 2}, ramp(6, 1)}, {"W_v", {3, 2}, ramp(6, 1)}});
  std::ofstream(dir / "good.safetensors", std::ios::binary) << good;
  std::ofstream(dir / "cut.safetensors", std::ios::binary) << good.substr(0, 50);
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  app.import_state_file((dir / "cut.safetensors").string());
  h.frame(app);
  h.frame(app);
  ASSERT_FALSE(app.notice().is_null());
  EXPECT_TRUE(app.notice()["error"].get<bool>());
  app.import_state_file((dir / "good.safetensors").string());
  h.frame(app);
  h.frame(app);
  EXPECT_TRUE(weights_dialog_info()["open"].get<bool>());
  EXPECT_TRUE(app.notice().is_null()) << app.notice().dump();
  EXPECT_FALSE(drawn_now("share notice"));
  h.click(app, "Cancel weights");
  fs::remove_all(dir);
}

// The "used as" column shows the whole of what a fused tensor is used as
// ("W_q (1/3), W_k (2/3), W_v (3/3)") at 1280×720 and 1440×900.
TEST(WeightsImport, UsedAsFitsItsColumn) {
  const fs::path dir = attnviz::ui::testing::test_temp_dir("attnviz-test-weights-usedas");
  fs::create_directories(dir);
  const std::string p = "model.encoder.layers.0.self_attn.";
  std::ofstream(dir / "mha.safetensors", std::ios::binary)
      << attnviz::testing::safetensors_f32({{p + "in_proj_weight", {24, 8}, ramp(192, 0.1f)},
                                            {p + "in_proj_bias", {24}, ramp(24, 0.1f)},
                                            {p + "out_proj.weight", {8, 8}, ramp(64, 0.1f)},
                                            {p + "out_proj.bias", {8}, ramp(8, 0.1f)}});
  for (ImVec2 size : {ImVec2(1280, 720), ImVec2(1440, 900)}) {
    Headless h(size);
    NullTextures tex;
    App app(&tex);
    h.frame(app);
    app.import_state_file((dir / "mha.safetensors").string());
    for (int i = 0; i < 4; ++i) h.frame(app);
    ASSERT_TRUE(weights_dialog_info()["open"].get<bool>());
    float table[4], used[4];
    ASSERT_TRUE(app.item_rect("weights tensors", table));
    for (const char* n : {"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"}) {
      const std::string label = "used as " + p + n;
      ASSERT_TRUE(app.item_rect(label, used)) << label;
      EXPECT_LE(used[0] + used[2], table[0] + table[2] - 4) << label << " at " << size.x << "×" << size.y;
      EXPECT_GE(used[0], table[0]) << label;
    }
    h.click(app, "Cancel weights");
  }
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
