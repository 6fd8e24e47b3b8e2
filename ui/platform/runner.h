// runner.h: the SDL2 + OpenGL3 + ImGui frame loop shared by the browser and desktop
// builds. main_web.cpp and main_desktop.cpp differ only in how they loop, where
// fonts come from, and what they expose to the outside.
#pragma once
#include <SDL.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "app/app.h"
#include "platform/frame_pacer.h"
#include "platform/gl_textures.h"

namespace attnviz::platform {

struct Runner {
  SDL_Window* window = nullptr;
  SDL_GLContext gl = nullptr;
  GlTextureHost textures;
  ui::App* app = nullptr;
  ui::FontSources fonts;        // TTF bytes, owned here; the atlas is rebuilt from them
  float atlas_scale = 0.0f;     // device pixel ratio the font atlas was built for
  bool fonts_dirty = true;      // new font bytes arrived: rebuild the atlas
  uint64_t glyphs_built = 0;    // App::glyphs_version() the atlas covers
  bool cjk_requested = false;
  std::function<void()> request_cjk;  // loads fonts.cjk (now or later), then sets fonts_dirty
  // True while the session uses glyphs the atlas cannot draw yet.
  bool fonts_pending() const { return !fonts.glyphs.empty() && (fonts.cjk.empty() || fonts_dirty); }
  bool quit = false;
  uint64_t frames = 0;           // frames drawn
  double frame_ms_sum = 0.0;    // CPU time of frames, for frameStats()
  double frame_ms_max = 0.0;    // the longest frame so far (a stage computed on first read shows here)

  // Creates the window, GL context and ImGui context. Returns false (after
  // printing why) when SDL or GL cannot start.
  bool init(const char* title, int w, int h);
  // One frame: events, font atlas if the pixel ratio or fonts changed, app, render.
  void frame();

  // An idle window rests (frame_pacer.h): the loop asks should_draw() before each frame
  // and draws nothing when it says no. Anything that changes what is shown from outside
  // the frame (a test-API call, a font or a file that arrived) calls wake().
  FramePacer pacer;
  bool pacing = true;  // false: every frame is drawn (the desktop's --frames N)
  FrameSignals signals() const;  // from SDL, ImGui and the app, for the pacer
  bool should_draw();
  double wait_ms() const;  // after should_draw() said no: how long a loop may sleep for input
  void wake(int frames = FramePacer::kSettleFrames);
  // When set, the next frame is also written to this PNG file, read back before
  // the buffer swap (desktop smoke tests and docs screenshots).
  const char* screenshot_path = nullptr;
  bool screenshot_ok = false;
  void shutdown();

 private:
  int drawn_w_ = 0, drawn_h_ = 0, drawn_dw_ = 0, drawn_dh_ = 0;  // sizes of the last frame
};

}  // namespace attnviz::platform
