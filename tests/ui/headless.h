// headless.h: the app with no window and no graphics backend, for the UI tests.
// ImGui is driven frame by frame through its IO queue, like a platform layer would,
// and textures go to a host that only counts them.
//
//   Headless h;                 // ImGui context, 1440×900, fonts built at scale 1
//   NullTextures tex;
//   App app(&tex);
//   h.frame(app);               // one frame
//   h.click(app, "Causal mask");      // move, press, release: each its own frame
//   h.chord(app, ImGuiKey_Z, true);   // Ctrl+Shift+Z over two frames
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "app/app.h"
#include "app/widgets/fonts.h"
#include "app/text/i18n.h"
#include "app/model/presets.h"
#include "app/widgets/item_registry.h"
#include "app/widgets/texture_host.h"
#include "attnviz/pipeline.h"
#include "imgui.h"

namespace attnviz::ui::testing {

struct NullTextures final : TextureHost {
  intptr_t next = 1;
  int live = 0;  // created and not yet destroyed
  ImTextureID create(int, int) override {
    ++live;
    return (ImTextureID)next++;
  }
  void upload(ImTextureID, int, int, const uint8_t*) override { ++uploads; }
  void destroy(ImTextureID) override { --live; }
};

struct Headless {
  explicit Headless(ImVec2 size = ImVec2(1440, 900)) {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = size;
    io.IniFilename = nullptr;
    fonts_build(io, FontSources{}, 1.0f);
    unsigned char* px;
    int w, h;
    io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);  // a backend would upload this
  }
  ~Headless() { ImGui::DestroyContext(); }
  Headless(const Headless&) = delete;
  Headless& operator=(const Headless&) = delete;

  void frame(App& app) {
    ImGui::GetIO().DeltaTime = 1.0f / 60.0f;
    ImGui::NewFrame();
    app.frame();
    ImGui::Render();
  }
  // A click like a person's at the labelled item's centre: the pointer arrives,
  // presses, releases, each in its own frame (button 0 left, 1 right).
  void click(App& app, const char* label, int button = 0) {
    float r[4];
    ASSERT_TRUE(app.item_rect(label, r)) << label;
    ImGuiIO& io = ImGui::GetIO();
    io.AddMousePosEvent(r[0] + r[2] * 0.5f, r[1] + r[3] * 0.5f);
    frame(app);
    io.AddMouseButtonEvent(button, true);
    frame(app);
    io.AddMouseButtonEvent(button, false);
    frame(app);
    frame(app);
  }
  // Ctrl (+Shift) + key: pressed in one frame, released in the next, as a keyboard would.
  void chord(App& app, ImGuiKey key, bool shift = false) {
    ImGuiIO& io = ImGui::GetIO();
    io.AddKeyEvent(ImGuiMod_Ctrl, true);
    if (shift) io.AddKeyEvent(ImGuiMod_Shift, true);
    io.AddKeyEvent(key, true);
    frame(app);
    io.AddKeyEvent(key, false);
    io.AddKeyEvent(ImGuiMod_Ctrl, false);
    if (shift) io.AddKeyEvent(ImGuiMod_Shift, false);
    frame(app);
    frame(app);
  }
  // Types `text` into the field `label` as a person would: click its text part (`x_in`
  // pixels from its left edge: past an InputInt's or InputDouble's sign), select all,
  // type, Enter, each in frames of its own.
  void type(App& app, const char* label, const std::string& text, float x_in = 12.0f) {
    float r[4];
    ASSERT_TRUE(app.item_rect(label, r)) << label;
    ImGuiIO& io = ImGui::GetIO();
    io.AddMousePosEvent(r[0] + x_in, r[1] + r[3] * 0.5f);
    frame(app);
    io.AddMouseButtonEvent(0, true);
    frame(app);
    io.AddMouseButtonEvent(0, false);
    frame(app);
    io.AddKeyEvent(ImGuiMod_Ctrl, true);
    io.AddKeyEvent(ImGuiKey_A, true);
    frame(app);
    io.AddKeyEvent(ImGuiKey_A, false);
    io.AddKeyEvent(ImGuiMod_Ctrl, false);
    io.AddInputCharactersUTF8(text.c_str());
    frame(app);
    io.AddKeyEvent(ImGuiKey_Enter, true);
    frame(app);
    io.AddKeyEvent(ImGuiKey_Enter, false);
    frame(app);
    frame(app);
  }
};


// Rebuilds the atlas with the fonts the app draws with (Debian's DejaVu Sans and Sans
// Mono, Droid Sans Fallback with every character of the Chinese catalogue and the
// presets), so text is measured as a person sees it. `src` holds the bytes the atlas
// points into: keep it as long as the context. False when the font packages are missing.
inline bool use_real_fonts(FontSources& src) {
  auto read = [](const char* path) {
    std::ifstream f(path, std::ios::binary);
    return f ? std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {}) : std::vector<uint8_t>();
  };
  src.regular = read("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf");
  src.mono = read("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf");
  src.cjk = read("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf");
  if (src.regular.empty() || src.mono.empty() || src.cjk.empty()) return false;
  const Catalogue c = catalogue(Lang::zh_CN);
  for (int k = 0; k < c.count; ++k) fonts_collect_glyphs(c.entries[k].text, src.glyphs);
  for (const Preset& p : presets()) {
    fonts_collect_glyphs(p.title_zh.c_str(), src.glyphs);
    fonts_collect_glyphs(p.about_zh.c_str(), src.glyphs);
    fonts_collect_glyphs(p.state.dump().c_str(), src.glyphs);
  }
  ImGuiIO& io = ImGui::GetIO();
  fonts_build(io, src, 1.0f);
  unsigned char* px;
  int w, h;
  io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);
  return true;
}

// Whether item `label` was drawn in the last frame. (The item registry
// outlives a test's ImGui context, so App::item_rect can still answer with an item
// an earlier test drew in a frame whose number this context has not reached.)
inline bool drawn_now(const char* label) {
  const ItemRect* r = item_registry().find(label);
  return r && r->frame == ImGui::GetFrameCount();
}

}  // namespace attnviz::ui::testing
