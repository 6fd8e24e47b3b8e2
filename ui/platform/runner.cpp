// runner.cpp: see runner.h.
#include "platform/runner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include "stb_image_write.h"

#include "imgui.h"
#include "imgui_impl_opengl3.h"
#include "imgui_internal.h"  // the input queue and the text cursor: what the pacer waits for
#include "imgui_impl_sdl2.h"
#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#include <SDL_opengl.h>
#endif

namespace attnviz::platform {

static double now_ms() {
  return (double)SDL_GetPerformanceCounter() * 1000.0 / (double)SDL_GetPerformanceFrequency();
}

// Writes the back buffer (just rendered, not yet swapped) as a PNG.
static bool write_back_buffer_png(const char* path, int w, int h) {
  std::vector<uint8_t> px((size_t)w * h * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
  // GL's rows run bottom-up, PNG's top-down: start at the last row, negative stride.
  return stbi_write_png(path, w, h, 4, px.data() + (size_t)(h - 1) * w * 4, -w * 4) != 0;
}

// What a frame drew, as one number: two frames with the same hash look the same (the
// vertices, indices and commands of every draw list, the textures' uploads, the atlas).
static uint64_t picture_hash(const ImDrawData* dd, uint64_t uploads, float atlas_scale) {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  auto mix = [&h](uint64_t w) {
    h ^= w;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 32;
  };
  auto bytes = [&mix](const void* p, size_t n) {
    const unsigned char* c = static_cast<const unsigned char*>(p);
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
      uint64_t w;
      std::memcpy(&w, c + k, 8);
      mix(w);
    }
    uint64_t tail = 0;
    if (n > k) std::memcpy(&tail, c + k, n - k);
    mix(tail ^ ((uint64_t)n << 40));
  };
  mix(uploads);
  uint32_t scale_bits;
  std::memcpy(&scale_bits, &atlas_scale, 4);
  mix(scale_bits);
  if (!dd) return h;
  const float geometry[4] = {dd->DisplaySize.x, dd->DisplaySize.y, dd->FramebufferScale.x, dd->FramebufferScale.y};
  bytes(geometry, sizeof geometry);
  for (int n = 0; n < dd->CmdListsCount; ++n) {
    const ImDrawList* dl = dd->CmdLists[n];
    bytes(dl->VtxBuffer.Data, (size_t)dl->VtxBuffer.Size * sizeof(ImDrawVert));
    bytes(dl->IdxBuffer.Data, (size_t)dl->IdxBuffer.Size * sizeof(ImDrawIdx));
    for (const ImDrawCmd& c : dl->CmdBuffer) {
      const float clip[4] = {c.ClipRect.x, c.ClipRect.y, c.ClipRect.z, c.ClipRect.w};
      bytes(clip, sizeof clip);
      mix((uint64_t)(uintptr_t)c.TextureId);
      mix(((uint64_t)c.VtxOffset << 32) | c.IdxOffset);
      mix(c.ElemCount);
    }
  }
  return h;
}

bool Runner::init(const char* title, int w, int h) {
  if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER) != 0) {
    std::fprintf(stderr, "attnviz: SDL could not start: %s\n", SDL_GetError());
    return false;
  }
#ifdef __EMSCRIPTEN__
  const char* glsl_version = "#version 300 es";
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, 0);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_ES);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
#else
  const char* glsl_version = "#version 130";
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, 0);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
#endif
  SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
  SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 0);
  SDL_GL_SetAttribute(SDL_GL_STENCIL_SIZE, 8);
  auto flags = (SDL_WindowFlags)(SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
  window = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, w, h, flags);
  if (!window) {
    std::fprintf(stderr, "attnviz: could not open a window: %s\n", SDL_GetError());
    return false;
  }
  gl = SDL_GL_CreateContext(window);
  if (!gl) {
    std::fprintf(stderr, "attnviz: could not create an OpenGL context: %s\n", SDL_GetError());
    return false;
  }
  SDL_GL_MakeCurrent(window, gl);
  SDL_GL_SetSwapInterval(1);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  ImGui_ImplSDL2_InitForOpenGL(window, gl);
  ImGui_ImplOpenGL3_Init(glsl_version);
  return true;
}

FrameSignals Runner::signals() const {
  FrameSignals s;
  ImGuiContext& g = *GImGui;
  s.input_pending = SDL_PeepEvents(nullptr, 0, SDL_PEEKEVENT, SDL_FIRSTEVENT, SDL_LASTEVENT) > 0 ||
                    g.InputEventsQueue.Size > 0;
  // Held: a drag goes on, a held key repeats, a held −/+ button steps. Shift, Ctrl, Alt
  // and Super alone change nothing by being held.
  s.input_held = ImGui::IsAnyMouseDown();
  for (int k = ImGuiKey_Keyboard_BEGIN; k < ImGuiKey_Keyboard_END && !s.input_held; ++k) {
    const ImGuiKey key = (ImGuiKey)k;
    if (key >= ImGuiKey_LeftCtrl && key <= ImGuiKey_RightSuper) continue;
    s.input_held = ImGui::IsKeyDown(key);
  }
  int ww = 0, wh = 0, dw = 0, dh = 0;
  SDL_GetWindowSize(window, &ww, &wh);
  SDL_GL_GetDrawableSize(window, &dw, &dh);
  s.size_changed = ww != drawn_w_ || wh != drawn_h_ || dw != drawn_dw_ || dh != drawn_dh_;
  // Timers, in seconds after the last frame. ImGui's saving of the layout needs no timer:
  // the heartbeat's frames step its clock by the time rested (Runner::frame).
  double t = app ? app->next_frame_in() : s.timer_s;  // a notice's end
  if (g.IO.ConfigInputTextCursorBlink && g.ActiveId != 0) {
    // A text field's cursor blinks: on for 0.8 s, off for 0.4 s (ImGui::InputTextEx).
    if (const ImGuiInputTextState* st = ImGui::GetInputTextState(g.ActiveId)) {
      const double a = st->CursorAnim, m = a <= 0.0 ? a : std::fmod(a, 1.2);
      t = std::min(t, (m <= 0.8 ? 0.8 - m : 1.2 - m) + 0.02);
    }
  }
  s.timer_s = t;
  return s;
}

bool Runner::should_draw() {
  if (!pacing) return true;
  return pacer.should_draw(now_ms(), signals());
}

double Runner::wait_ms() const { return pacer.wait_ms(now_ms(), signals()); }

void Runner::wake(int n) { pacer.wake(now_ms(), n); }

void Runner::frame() {
  double t0 = now_ms();
  const bool after_rest = pacer.after_rest();
  SDL_Event ev;
  while (SDL_PollEvent(&ev)) {
    ImGui_ImplSDL2_ProcessEvent(&ev);
    if (ev.type == SDL_QUIT) quit = true;
    if (ev.type == SDL_WINDOWEVENT && ev.window.event == SDL_WINDOWEVENT_CLOSE &&
        ev.window.windowID == SDL_GetWindowID(window))
      quit = true;
  }

  // Text stays crisp on HiDPI screens and at browser zoom: the atlas is rasterised
  // at the device pixel ratio and drawn at 1/ratio, rebuilt whenever the ratio changes.
  int ww = 0, wh = 0, dw = 0, dh = 0;
  SDL_GetWindowSize(window, &ww, &wh);
  SDL_GL_GetDrawableSize(window, &dw, &dh);
  float scale = ww > 0 ? (float)dw / (float)ww : 1.0f;
  if (scale <= 0.0f) scale = 1.0f;
  if (app->glyphs_version() != glyphs_built) {
    glyphs_built = app->glyphs_version();
    fonts.glyphs = app->glyphs();
    if (!fonts.cjk.empty()) {
      fonts_dirty = true;
    } else if (!cjk_requested && request_cjk) {
      cjk_requested = true;
      request_cjk();
    }
  }
  if (fonts_dirty || scale != atlas_scale) {
    ui::fonts_build(ImGui::GetIO(), fonts, scale);
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
    atlas_scale = scale;
    fonts_dirty = false;
  }

  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplSDL2_NewFrame();
  // A frame's clock step is at most 0.1 s. ImGui counts a key held for longer than
  // KeyRepeatDelay (0.275 s) as repeating: on a loaded machine one slow frame between a
  // key's press and its release made a single ← move the Decode step three places
  // (seen in CI's browser tests). Tooltip and double-click timing only slow down.
  // After a rest (frames passed over, frame_pacer.h) the step is the time rested, with
  // no key held: ImGui's timers (the layout's saving, a notice's 5 s, the cursor's blink)
  // follow the clock.
  if (!after_rest) ImGui::GetIO().DeltaTime = std::min(ImGui::GetIO().DeltaTime, 0.1f);
  ImGui::NewFrame();
  app->frame();
  ImGui::Render();
  glViewport(0, 0, dw, dh);
  glClearColor(0.09f, 0.09f, 0.11f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  if (screenshot_path) {
    screenshot_ok = write_back_buffer_png(screenshot_path, dw, dh);
    screenshot_path = nullptr;
  }
  ++frames;
  drawn_w_ = ww;
  drawn_h_ = wh;
  drawn_dw_ = dw;
  drawn_dh_ = dh;
  if (pacing && pacer.wants_picture())
    pacer.drawn(t0, picture_hash(ImGui::GetDrawData(), textures.uploads, atlas_scale));
  else
    pacer.drawn(t0);
  const double ms = now_ms() - t0;  // CPU time only: the swap below waits for vsync
  frame_ms_sum += ms;
  if (ms > frame_ms_max) frame_ms_max = ms;
  SDL_GL_SwapWindow(window);
}

void Runner::shutdown() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplSDL2_Shutdown();
  ImGui::DestroyContext();
  if (gl) SDL_GL_DeleteContext(gl);
  if (window) SDL_DestroyWindow(window);
  SDL_Quit();
}

}  // namespace attnviz::platform
