// test_frame_budget.cpp: issue 5's UI budget. With nothing changing, a frame must
// not allocate (no std::string / vector churn in the per-frame path) and must not
// re-upload textures, at the sizes the issue names (S = 256, 12 heads) on every tab.
// The CPU time per frame is printed for the record (timings never decide pass/fail).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

#include "app/app.h"
#include "app/widgets/fonts.h"
#include "app/model/share.h"
#include "attnviz/state.h"
#include "attnviz/state_json.h"
#include "headless.h"
#include "imgui.h"
#include "imgui_internal.h"

// Counting global allocator for this test binary: counts only while armed.
namespace {
std::atomic<bool> g_armed{false};
std::atomic<long> g_allocs{0};
}  // namespace
// A breakpoint here (gdb: break attnviz_counted_alloc) shows who allocated.
extern "C" __attribute__((noinline)) void attnviz_counted_alloc() { asm volatile(""); }
void* operator new(std::size_t n) {
  if (g_armed.load(std::memory_order_relaxed)) {
    g_allocs.fetch_add(1, std::memory_order_relaxed);
    attnviz_counted_alloc();
  }
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
// The nothrow forms too (std::stable_sort's temporary buffer uses them): otherwise
// ASan's own nothrow new would be paired with the free() below (alloc-dealloc-mismatch).
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try { return operator new(n); } catch (...) { return nullptr; }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try { return operator new(n); } catch (...) { return nullptr; }
}
// GCC inlines the operator new above into callers and then sees malloc's memory
// reach operator delete's free(): that pairing is this file's intent.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace {

using attnviz::ui::App;

using attnviz::ui::testing::NullTextures;

// ImGui's own allocations go through its allocator hook: count those too.
void* imgui_alloc(size_t n, void*) {
  if (g_armed.load(std::memory_order_relaxed)) {
    g_allocs.fetch_add(1, std::memory_order_relaxed);
    attnviz_counted_alloc();
  }
  return std::malloc(n);
}
void imgui_free(void* p, void*) { std::free(p); }

// The shared headless app (headless.h), with ImGui's allocations counted too and a
// screen the size the bench uses.
struct Headless : attnviz::ui::testing::Headless {
  static ImVec2 counted_size(ImVec2 size) {
    ImGui::SetAllocatorFunctions(imgui_alloc, imgui_free);
    return size;
  }
  explicit Headless(ImVec2 size = ImVec2(1600, 1000)) : attnviz::ui::testing::Headless(counted_size(size)) {}
};

std::string big_state(int S, int heads, int d) {
  nlohmann::json s;
  s["tokens"] = nlohmann::json::array();
  for (int i = 0; i < S; ++i) s["tokens"].push_back("t" + std::to_string(i));
  s["d_model"] = d;
  s["d_out"] = d;
  s["num_heads"] = heads;
  s["causal"] = true;
  return s.dump();
}

// Runs `frames` steady frames (pointer parked outside every view) and returns the
// allocations seen; prints the median CPU time per frame.
long steady(Headless& h, App& app, const char* what, int frames = 30) {
  ImGui::GetIO().AddMousePosEvent(2, 990);
  for (int i = 0; i < 10; ++i) h.frame(app);  // settle: textures, layout, caches
  std::vector<double> ms;
  ms.reserve(frames);
  g_allocs = 0;
  g_armed = true;
  for (int i = 0; i < frames; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    h.frame(app);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  g_armed = false;
  std::sort(ms.begin(), ms.end());
  std::printf("[ frame    ] %-32s median %.2f ms CPU per frame (no GL), %ld allocations in %d frames\n", what,
              ms[ms.size() / 2], g_allocs.load(), frames);
  return g_allocs.load();
}

TEST(FrameBudget, SteadyFramesAllocateNothingAndUploadNothingOnEveryTab) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 3; ++i) h.frame(app);
  ASSERT_TRUE(app.set_state_text(big_state(256, 12, 768)).value("ok", false));
  // Each tab, and an item only that tab draws (proof the tab is really showing).
  const char* tabs[][2] = {{"Stages", "Q h0"},  // the flow scrolls at S = 256: its first card
                           {"Q K V & output", "output"},
                           {"Compare heads", "All heads"},
                           {"All heads", "weights h11"},  // sub-tabs keep their choice: pick it
                           {"A/B", "diff h0-h1"},  // sub-tabs of Compare heads
                           {"Row statistics", "Row statistics"},
                           {"Lines", "lines"},
                           {"Edit values", "Edit values"},  // 768 columns: too wide for its tables
                           {"Decode", "decode weights"}};   // the step computed once, then only drawn
  float r[4];
  // In each language: Chinese text comes from the catalogue (i18n.h), looked up every frame.
  for (const char* lang : {"en", "zh-CN"}) {
  ASSERT_TRUE(app.set_language(lang).value("ok", false));
  for (const auto& [tab, shown] : tabs) {
    h.click(app, tab);
    h.frame(app);
    ASSERT_TRUE(app.item_rect(shown, r)) << tab << " shows " << shown;
    std::string what = std::string("S=256, 12 heads, ") + lang + ", " + tab;
    long before_uploads = -1;
    ImGui::GetIO().AddMousePosEvent(2, 990);
    for (int i = 0; i < 10; ++i) h.frame(app);
    before_uploads = (long)tex.uploads;
    EXPECT_EQ(steady(h, app, what.c_str()), 0) << what << ": the per-frame path allocated";
    EXPECT_EQ((long)tex.uploads, before_uploads) << what << ": a texture was re-uploaded with nothing changed";
  }
  }
  app.set_language("en");
}

// Issue 23's options on: the RoPE and ALiBi cards, GQA's K/V slices, the window in the
// mask, the Compare heads sentence about shared K/V heads, every frame allocation-free.
TEST(FrameBudget, SteadyFramesAllocateNothingWithTheVariantsOn) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 3; ++i) h.frame(app);
  nlohmann::json s = nlohmann::json::parse(big_state(64, 12, 192));
  s["positional"] = "rope";
  s["num_kv_heads"] = 4;
  s["alibi"] = true;
  s["window"] = 8;
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false)) << app.set_state_text(s.dump()).dump();
  const char* tabs[][2] = {{"Stages", "Q h0"}, {"Compare heads", "All heads"}, {"All heads", "weights h11"},
                           {"Lines", "lines"}};
  float r[4];
  for (const char* lang : {"en", "zh-CN"}) {
    ASSERT_TRUE(app.set_language(lang).value("ok", false));
    for (const auto& [tab, shown] : tabs) {
      h.click(app, tab);
      h.frame(app);
      ASSERT_TRUE(app.item_rect(shown, r)) << tab << " shows " << shown;
      std::string what = std::string("S=64, 12 heads, variants, ") + lang + ", " + tab;
      ImGui::GetIO().AddMousePosEvent(2, 990);
      for (int i = 0; i < 10; ++i) h.frame(app);
      EXPECT_EQ(steady(h, app, what.c_str()), 0) << what << ": the per-frame path allocated";
    }
  }
  app.set_language("en");
}

// Issue 36's options on: the sink fields of 12 heads in Parameters, the softmax card's
// sink, StreamingLLM's evictions in the Decode tab (absent cells, its bytes bar and
// sentences, the sink's share), every frame allocation-free.
TEST(FrameBudget, SteadyFramesAllocateNothingWithSinksAndStreamingLlm) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 3; ++i) h.frame(app);
  nlohmann::json s = nlohmann::json::parse(big_state(64, 12, 192));
  s["sinks"] = {{"enabled", true}, {"values", std::vector<float>(12, 0.5f)}};
  s["kv_cache"] = {{"policy", "streaming_llm"}, {"sink_tokens", 4}, {"recent", 16}};
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false)) << app.set_state_text(s.dump()).dump();
  float r[4];
  const char* variants = "Variants (RoPE, GQA, ALiBi, window)";
  ImGuiWindow* params = ImGui::FindWindowByName("###Parameters");
  ASSERT_NE(params, nullptr);
  // Scroll Parameters down: to the Variants header, open it, then to the last sink field.
  auto scroll_to = [&](const char* label) {
    ImGui::SetScrollY(params, 0.0f);
    for (int k = 0; k < 2; ++k) h.frame(app);
    for (int k = 0; k < 40 && !app.item_rect(label, r); ++k) {
      ImGui::SetScrollY(params, params->Scroll.y + 60.0f);
      for (int f = 0; f < 2; ++f) h.frame(app);
    }
    return app.item_rect(label, r);
  };
  ASSERT_TRUE(scroll_to(variants));
  h.click(app, variants);
  ASSERT_TRUE(scroll_to("Sink h11")) << "the Variants header is open: the 12 sink fields are drawn";
  const char* tabs[][2] = {{"Stages", "Q h0"}, {"Decode", "kv cache bar StreamingLLM"}};
  for (const char* lang : {"en", "zh-CN"}) {
    ASSERT_TRUE(app.set_language(lang).value("ok", false));
    for (const auto& [tab, shown] : tabs) {
      h.click(app, tab);
      h.frame(app);
      ASSERT_TRUE(app.item_rect(shown, r)) << tab << " shows " << shown;
      std::string what = std::string("S=64, 12 heads, sinks + StreamingLLM, ") + lang + ", " + tab;
      ImGui::GetIO().AddMousePosEvent(2, 990);
      for (int i = 0; i < 10; ++i) h.frame(app);
      EXPECT_EQ(steady(h, app, what.c_str()), 0) << what << ": the per-frame path allocated";
    }
  }
  app.set_language("en");
}

// A pinned cell keeps the Inspector explaining it every frame: the explanation is
// asked of the engine once per cell and result, not once per frame.
TEST(FrameBudget, APinnedCellsExplanationAllocatesNothingPerFrame) {
  Headless h(ImVec2(1920, 1080));  // every Stages map of 8 tokens in view
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 3; ++i) h.frame(app);
  nlohmann::json s = nlohmann::json::parse(big_state(8, 2, 16));
  s["causal"] = true;
  s["dropout"] = {{"p", 0.25}, {"training", true}};
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false));
  for (const char* lang : {"en", "zh-CN"}) {
    ASSERT_TRUE(app.set_language(lang).value("ok", false));
    for (const char* map : {"weights h0", "dropped h0", "masked h0", "context h0"}) {
      h.click(app, "Stages");
      for (int i = 0; i < 3; ++i) h.frame(app);
      h.click(app, map);  // pins the cell under the pointer
      ASSERT_TRUE(app.session_json()["view"]["pinned"].is_object()) << map;
      ImGui::GetIO().AddMousePosEvent(2, 990);
      for (int i = 0; i < 10; ++i) h.frame(app);
      const std::string what = std::string("pinned ") + map + ", " + lang;
      EXPECT_EQ(steady(h, app, what.c_str()), 0) << what << ": the Inspector allocated per frame";
      h.click(app, "Unpin");
    }
  }
  app.set_language("en");
}

}  // namespace

// Issue 32: no JSON on any per-edit or per-frame path. With explicit weights (what
// File → Open weights… makes), a click on Causal mask, a tab change, Ctrl+Z,
// Ctrl+Shift+Z and the frames between them (with App::session_serial() after each, as the
// page calls it) turn no State and no view into JSON, nor JSON into a State.
TEST(FrameBudget, EditsUndoAndFramesBuildNoJson) {
  Headless h;
  NullTextures tex;
  App app(&tex);
  for (int i = 0; i < 3; ++i) h.frame(app);
  nlohmann::json s = nlohmann::json::parse(big_state(16, 4, 64));
  s["causal"] = false;
  s["out_proj"] = true;
  nlohmann::json w = nlohmann::json::object();
  for (const char* name : {"W_q", "W_k", "W_v", "W_o", "b_o"}) {
    const int rows = name[0] == 'b' ? 1 : 64;
    nlohmann::json m = nlohmann::json::array();
    for (int i = 0; i < rows; ++i) {
      nlohmann::json row = nlohmann::json::array();
      for (int j = 0; j < 64; ++j) row.push_back(((i * 7 + j * 3 + name[2]) % 17 - 8) / 16.0);
      m.push_back(row);
    }
    w[name] = name[0] == 'b' ? m[0] : m;
  }
  s["weights"] = w;
  ASSERT_TRUE(app.set_state_text(s.dump()).value("ok", false));
  app.history_clear();
  auto frames = [&](int n) {
    for (int i = 0; i < n; ++i) {
      h.frame(app);
      app.session_serial();  // what web_share.cpp asks after every frame
    }
  };
  frames(5);
  const uint64_t state0 = attnviz::state_json_conversions(), view0 = attnviz::ui::view_json_conversions();
  const uint64_t serial0 = app.session_serial();
  h.click(app, "Causal mask");
  frames(3);
  EXPECT_EQ(app.history_info()["undo"], 1) << "the click is one undo step";
  const uint64_t serial1 = app.session_serial();
  EXPECT_NE(serial1, serial0) << "the session serial saw the change";
  h.click(app, "Q K V & output");  // a view change
  frames(3);
  EXPECT_NE(app.session_serial(), serial1) << "the session serial saw the tab change";
  h.chord(app, ImGuiKey_Z);  // undo the causal mask
  frames(3);
  EXPECT_EQ(app.history_info()["redo"], 1);
  h.chord(app, ImGuiKey_Z, true);  // and redo it
  frames(3);
  EXPECT_EQ(app.history_info()["undo"], 1);
  EXPECT_EQ(attnviz::state_json_conversions(), state0) << "an edit, undo, redo or frame turned a State into JSON";
  EXPECT_EQ(attnviz::ui::view_json_conversions(), view0) << "a frame or the session serial wrote the view as JSON";
  // What the edits did, read through the test API (JSON, at the edge, after counting).
  const nlohmann::json now = nlohmann::json::parse(app.state_json());
  EXPECT_TRUE(now["causal"].get<bool>());
  EXPECT_EQ(now["weights"]["W_q"], s["weights"]["W_q"]) << "the weights came back through undo and redo";
  EXPECT_EQ(now["weights"]["b_o"], s["weights"]["b_o"]);
}
