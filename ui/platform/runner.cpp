// runner.cpp: see runner.h.
#include "platform/runner.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include "stb_image_write.h"

#include "imgui.h"
#include "imgui_impl_opengl3.h"
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

void Runner::frame() {
  double t0 = now_ms();
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
  ImGui::GetIO().DeltaTime = std::min(ImGui::GetIO().DeltaTime, 0.1f);
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
