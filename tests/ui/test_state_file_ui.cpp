// .safetensors state files in the app (docs/ui.md, "Export and import"; engine:
// attnviz/state_file.h): File → Save state (.safetensors) hands over the engine's
// file, Open state / a drop reads one by its first bytes (a state file opens as the
// state, trained weights still open the weights dialog), and a share link too long
// for an address says so with the file as its button.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "temp_dir.h"
#include "../engine/weights_test_util.h"
#include "app/app.h"
#include "app/panels/export.h"
#include "app/model/share.h"
#include "app/panels/weights_import.h"
#include "attnviz/materialize.h"
#include "attnviz/state.h"
#include "attnviz/state_file.h"
#include "attnviz/state_json.h"
#include "headless.h"

namespace {

using namespace attnviz;
using namespace attnviz::ui;
using namespace attnviz::ui::testing;
namespace fs = std::filesystem;

// An explicit state: d_model 8, d_out 8, 2 heads, biases and an output projection.
State explicit_state() {
  State s;
  s.d_model = s.d_out = 8;
  s.num_heads = 2;
  s.qkv_bias = s.out_proj = true;
  s.causal = true;
  return materialize_weights(materialize_embedding(s));
}

State state_of(const App& app) {
  State s;
  EXPECT_TRUE(parse_state_text(app.state_json(), &s).ok);
  return s;
}

TEST(StateFileUi, SaveHandsOverTheEnginesFileAndItOpensBack) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  const State s = explicit_state();
  ASSERT_TRUE(app.set_state_text(state_to_json(s).dump())["ok"].get<bool>());
  h.frame(app);
  h.click(app, "File");
  h.click(app, "Save state (.safetensors)");
  auto& pending = app.exports().pending;
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].filename, "attnviz-state.safetensors");
  EXPECT_EQ(pending[0].mime, "application/octet-stream");
  EXPECT_EQ(pending[0].bytes, state_to_safetensors(s));
  const std::string file = pending[0].bytes;
  pending.clear();

  ASSERT_TRUE(app.set_state_text("{}")["ok"].get<bool>());  // back to the default
  h.frame(app);
  auto r = app.import_state("attnviz-state.safetensors", file);  // the page's bytes, told by their start
  EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_TRUE(state_of(app) == s);
  h.frame(app);
  EXPECT_NE(app.notice().value("text", "").find("Opened"), std::string::npos) << app.notice().dump();
  EXPECT_GE(app.history_info()["undo"].get<int>(), 1) << "an open is one undo step";
}

// An embedded view opens the notebook's state file and clears the "Opened …" it would
// leave over the layer bar: a sentence given before the next frame replaces the queued one.
TEST(StateFileUi, ASentenceGivenNowReplacesTheOpenedOneStillQueued) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  auto r = app.import_state("view.safetensors", state_to_safetensors(explicit_state()));
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  app.notify("", false);
  h.frame(app);
  h.frame(app);
  EXPECT_TRUE(app.notice().is_null()) << app.notice().dump();
  app.notify("kept", true);  // and a real sentence still shows
  h.frame(app);
  EXPECT_EQ(app.notice().value("text", ""), "kept");
}

TEST(StateFileUi, ABadStateFileKeepsTheStateWithItsSentence) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  const std::string before = app.state_json();
  std::string file = state_to_safetensors(explicit_state());
  file.resize(file.size() - 5);  // cut short
  auto r = app.import_state("cut.safetensors", file);
  EXPECT_FALSE(r["ok"].get<bool>());
  const std::string error = r["error"].get<std::string>();
  EXPECT_NE(error.find("“cut.safetensors” is not a valid attnviz state"), std::string::npos) << error;
  EXPECT_NE(error.find("past the end of the file"), std::string::npos) << error;
  EXPECT_EQ(app.state_json(), before);
}

TEST(StateFileUi, FromDiskAStateFileOpensAsTheStateAndWeightsStillOpenTheDialog) {
  const fs::path dir = attnviz::ui::testing::test_temp_dir("attnviz-test-state-file-ui");
  fs::create_directories(dir);
  const State s = explicit_state();
  std::ofstream(dir / "mine.safetensors", std::ios::binary) << state_to_safetensors(s);
  std::ofstream(dir / "renamed.bin", std::ios::binary) << state_to_safetensors(s);  // told by content
  std::vector<attnviz::testing::StTensor> ts = {{"W_q", {4, 4}, std::vector<float>(16, 0.5f)},
                                                {"W_k", {4, 4}, std::vector<float>(16, 0.25f)},
                                                {"W_v", {4, 4}, std::vector<float>(16, 1.0f)}};
  std::ofstream(dir / "weights.bin", std::ios::binary) << attnviz::testing::safetensors_f32(ts);

  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  for (const char* name : {"mine.safetensors", "renamed.bin"}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(app.set_state_text("{}")["ok"].get<bool>());
    auto r = app.import_state_file((dir / name).string());  // Open state… or a drop on the desktop
    EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
    h.frame(app);
    EXPECT_TRUE(state_of(app) == s);
    EXPECT_FALSE(weights_dialog_info()["open"].get<bool>()) << "a state file is no weights dialog";
  }
  auto r = app.import_state_file((dir / "weights.bin").string());
  EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
  h.frame(app);
  h.frame(app);
  const nlohmann::json d = weights_dialog_info();
  EXPECT_TRUE(d["open"].get<bool>()) << d.dump();
  EXPECT_EQ(d["family"], "W_q");
  h.click(app, "Cancel weights");
  fs::remove_all(dir);
}

// The browser's path (attnviz-weights.js): the reader asks for ranges, a state file
// then for the whole file, and the next frame applies it.
TEST(StateFileUi, TheWeightsReaderHandsAStateFileToTheStateImport) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  const State s = explicit_state();
  const std::string file = state_to_safetensors(s);
  weights_begin("picked.safetensors", file.size());
  weights::ByteRange r;
  int reads = 0;
  while (weights_next(&r)) {
    ASSERT_LE(r.offset + r.length, file.size());
    weights_feed(std::string_view(file).substr(r.offset, r.length));
    ++reads;
  }
  EXPECT_EQ(reads, 2) << "the first 64 KiB (the header), then the whole file";
  h.frame(app);
  EXPECT_TRUE(state_of(app) == s);
  EXPECT_NE(app.notice().value("text", "").find("Opened “picked.safetensors”"), std::string::npos)
      << app.notice().dump();
  EXPECT_FALSE(weights_dialog_info()["open"].get<bool>());
}

TEST(StateFileUi, ALinkTooLongForAnAddressSaysSoAndOffersTheFile) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  EXPECT_LT(app.session_link_estimate(), 1000.0) << "seeded: nothing explicit";
  // GPT-2's attention: d_model 768, W_q, W_k, W_v (2.4 M values, about 15 MB of link).
  State big;
  big.d_model = big.d_out = 768;
  big.num_heads = 12;
  big = materialize_weights(big);
  ASSERT_TRUE(app.set_state_text(state_to_json(big).dump())["ok"].get<bool>());
  h.frame(app);
  EXPECT_GT(app.session_link_estimate(), kShareMaxAddressChars);
  app.link_too_long(app.session_link_estimate());
  h.frame(app);
  h.frame(app);  // the notice's window sizes itself in its first frame
  const nlohmann::json n = app.notice();
  ASSERT_TRUE(n.is_object());
  EXPECT_TRUE(n["error"].get<bool>());
  EXPECT_EQ(n["action"], "save_safetensors");
  const std::string text = n["text"].get<std::string>();
  EXPECT_NE(text.find("too long for an address"), std::string::npos) << text;
  EXPECT_NE(text.find("File → Save state (.safetensors)"), std::string::npos) << text;
  EXPECT_NE(text.find("1769472 numbers"), std::string::npos) << text;
  h.click(app, "notice action");
  auto& pending = app.exports().pending;
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].filename, "attnviz-state.safetensors");
  State back;
  ASSERT_TRUE(state_from_safetensors(pending[0].bytes, &back).ok);
  EXPECT_TRUE(back == state_of(app));
  pending.clear();
  h.frame(app);
  EXPECT_TRUE(app.notice().is_null()) << "the button also closes the sentence";
}

// A print, not a pass/fail (the machine is shared): a 105.6 MB state (d_model 2560,
// W_q W_k W_v W_o and their biases, 16 tokens) saved through File → Save state
// (.safetensors) and opened from disk as the desktop does (Open state… or a drop:
// the header scanned, the file read whole, parsed, applied to the engine).
TEST(StateFileUi, Timing100MBThroughTheApp) {
  State s;
  s.tokens = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p"};
  s.d_model = s.d_out = 2560;
  s.num_heads = 20;
  s.qkv_bias = s.out_proj = true;
  s.weights.init = WeightInit::values;
  float k = 0.1f;
  for (SharedTensor* t : {&s.weights.W_q, &s.weights.W_k, &s.weights.W_v, &s.weights.W_o}) {
    Tensor x(2560, 2560);
    for (size_t i = 0; i < x.data.size(); ++i) x.data[i] = std::sin(k * static_cast<float>(i)) * 0.02f;
    *t = std::move(x);
    k += 0.1f;
  }
  for (SharedTensor* t : {&s.weights.b_q, &s.weights.b_k, &s.weights.b_v, &s.weights.b_o}) *t = Tensor(1, 2560, 0.01f);
  const fs::path dir = attnviz::ui::testing::test_temp_dir("attnviz-test-state-file-timing");
  fs::create_directories(dir);
  std::ofstream(dir / "big.safetensors", std::ios::binary) << state_to_safetensors(s);

  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  using clock = std::chrono::steady_clock;
  std::vector<double> open_ms, save_ms;
#if defined(__SANITIZE_ADDRESS__)
  const int reps = 1;  // ASan's build times nothing worth quoting: one run checks it works
#else
  const int reps = 3;
#endif
  for (int r = 0; r < reps; ++r) {
    ASSERT_TRUE(app.set_state_text("{}")["ok"].get<bool>());
    h.frame(app);
    const auto t0 = clock::now();
    auto res = app.import_state_file((dir / "big.safetensors").string());
    const auto t1 = clock::now();
    ASSERT_TRUE(res["ok"].get<bool>()) << res.dump();
    h.frame(app);
    h.click(app, "File");
    h.frame(app);
    const auto t2 = clock::now();
    h.click(app, "Save state (.safetensors)");
    const auto t3 = clock::now();
    ASSERT_EQ(app.exports().pending.size(), 1u);
    EXPECT_EQ(app.exports().pending[0].bytes.size(), fs::file_size(dir / "big.safetensors"));
    app.exports().pending.clear();
    open_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    // The click is three frames (move, press, release) of a 2560-wide state's panels.
    save_ms.push_back(std::chrono::duration<double, std::milli>(t3 - t2).count());
  }
  std::sort(open_ms.begin(), open_ms.end());
  std::sort(save_ms.begin(), save_ms.end());
  std::printf("[ timing ] 105.6 MB state through the app: open from disk (read, parse, apply) median %.0f ms "
              "(min %.0f); Save state (.safetensors) click (3 frames + the file) median %.0f ms (min %.0f), %d runs\n",
              open_ms[reps / 2], open_ms[0], save_ms[reps / 2], save_ms[0], reps);
  fs::remove_all(dir);
}

}  // namespace
