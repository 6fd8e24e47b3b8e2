// png_capture.cpp: see png_capture.h.
#include "platform/png_capture.h"

#include "app/text/i18n.h"

#include <SDL.h>
#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#define GL_GLEXT_PROTOTYPES 1  // framebuffer objects (GL 3.0) from libGL
#include <SDL_opengl.h>
#endif

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "imgui.h"
#include "imgui_impl_opengl3.h"
#include "platform/runner.h"
#include "stb_image_write.h"  // the implementation is compiled in runner.cpp

namespace attnviz::platform {

static void append_bytes(void* ctx, void* data, int size) {
  static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), (size_t)size);
}

// Draws frames (up to 3, so a panel scrolled partly out of view can be scrolled in)
// at `scale` until the panel is fully visible. The mouse is away meanwhile, so no
// hover highlight or tooltip from the click that asked for the picture gets in.
static bool draw_capture_frames(Runner& r, const std::string& label, float scale) {
  ImGuiIO& io = ImGui::GetIO();
  ui::ExportQueue& q = r.app->exports();
  const ImVec2 mouse = io.MousePos;
  io.AddMousePosEvent(-FLT_MAX, -FLT_MAX);
  q.capturing = true;
  q.capture_label = label;
  for (int pass = 0; pass < 3; ++pass) {
    q.capture_seen = false;
    ImGui_ImplOpenGL3_NewFrame();
    io.DisplayFramebufferScale = ImVec2(scale, scale);  // the SDL backend resets it next frame
    ImGui::NewFrame();
    r.app->frame();
    ImGui::Render();
    if (label.empty()) break;
    bool visible = q.capture_seen && q.capture_panel_min.x >= q.capture_clip_min.x &&
                   q.capture_panel_min.y >= q.capture_clip_min.y && q.capture_panel_max.x <= q.capture_clip_max.x &&
                   q.capture_panel_max.y <= q.capture_clip_max.y;
    if (visible) break;
  }
  q.capturing = false;
  io.AddMousePosEvent(mouse.x, mouse.y);
  return label.empty() || q.capture_seen;
}

bool png_capture(Runner& r, const std::string& label, float scale, std::string* png_out, int* w_out, int* h_out,
                 std::string* error) {
  ImGuiIO& io = ImGui::GetIO();
  const ImVec2 display = io.DisplaySize;
  if (display.x <= 0 || display.y <= 0) {
    *error = ui::tr("The window has no size, so there is nothing to capture.");
    return false;
  }
  // The offscreen framebuffer must fit the GPU's limits (a 4K window at 2× may not).
  GLint max_rb = 0, max_vp[2] = {0, 0};
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_rb);
  glGetIntegerv(GL_MAX_VIEWPORT_DIMS, max_vp);
  const float limit = (float)std::min({max_rb, max_vp[0], max_vp[1]});
  if (limit > 0) scale = std::min(scale, std::floor(limit / std::max(display.x, display.y) * 100.0f) / 100.0f);
  scale = std::max(scale, 0.25f);
  // The size the OpenGL3 backend derives from the draw data, to the pixel.
  const int fb_w = (int)(display.x * scale), fb_h = (int)(display.y * scale);

  // Text rasterised at the capture scale; the next regular frame rebuilds it for the screen.
  if (r.atlas_scale != scale) {
    ui::fonts_build(io, r.fonts, scale);
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
    r.atlas_scale = scale;
  }
  if (!draw_capture_frames(r, label, scale)) {
    *error = "“" + label + "” is not on screen any more, so it could not be captured.";
    return false;
  }

  GLuint fbo = 0, rb = 0;
  glGenFramebuffers(1, &fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glGenRenderbuffers(1, &rb);
  glBindRenderbuffer(GL_RENDERBUFFER, rb);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, fb_w, fb_h);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
  bool ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  if (ok) {
    glViewport(0, 0, fb_w, fb_h);
    glDisable(GL_SCISSOR_TEST);
    glClearColor(0.09f, 0.09f, 0.11f, 1.0f);  // the window's background (runner.cpp)
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

    // The picture (device pixels): the panel and its margin, or the whole window; what
    // of it the panel's window shows is read, the rest (a margin beyond the window's
    // edge) is the window's background.
    int x0 = 0, y0 = 0, x1 = fb_w, y1 = fb_h;  // the picture
    int rx0 = 0, ry0 = 0, rx1 = fb_w, ry1 = fb_h;  // what is read of it
    if (!label.empty()) {
      const ui::ExportQueue& q = r.app->exports();
      auto px = [&](float v, bool up) { return (int)(up ? std::ceil(v * scale) : std::floor(v * scale)); };
      x0 = px(q.capture_min.x, false);
      y0 = px(q.capture_min.y, false);
      x1 = px(q.capture_max.x, true);
      y1 = px(q.capture_max.y, true);
      rx0 = std::clamp(std::max(x0, px(q.capture_clip_min.x, false)), 0, fb_w);
      ry0 = std::clamp(std::max(y0, px(q.capture_clip_min.y, false)), 0, fb_h);
      rx1 = std::clamp(std::min(x1, px(q.capture_clip_max.x, true)), 0, fb_w);
      ry1 = std::clamp(std::min(y1, px(q.capture_clip_max.y, true)), 0, fb_h);
    }
    const int w = x1 - x0, h = y1 - y0, rw = rx1 - rx0, rh = ry1 - ry0;
    ok = w > 0 && h > 0 && rw > 0 && rh > 0;
    if (ok) {
      std::vector<uint8_t> read((size_t)rw * rh * 4);  // (rh × rw × RGBA8), GL's rows bottom-up
      glPixelStorei(GL_PACK_ALIGNMENT, 1);
      glReadPixels(rx0, fb_h - ry1, rw, rh, GL_RGBA, GL_UNSIGNED_BYTE, read.data());
      std::vector<uint8_t> pixels((size_t)w * h * 4);  // (h × w × RGBA8), top-down
      for (size_t k = 0; k < pixels.size(); k += 4) {  // the background of glClearColor above
        pixels[k] = 23;
        pixels[k + 1] = 23;
        pixels[k + 2] = 28;
        pixels[k + 3] = 255;
      }
      for (int y = 0; y < rh; ++y) {  // GL's row rh-1-y is the picture's row ry0 + y
        uint8_t* dst = &pixels[((size_t)(ry0 - y0 + y) * w + (rx0 - x0)) * 4];
        std::memcpy(dst, &read[(size_t)(rh - 1 - y) * rw * 4], (size_t)rw * 4);
        for (int k = 3; k < rw * 4; k += 4) dst[k] = 255;  // opaque, whatever blending left
      }
      png_out->clear();
      ok = stbi_write_png_to_func(append_bytes, png_out, w, h, 4, pixels.data(), w * 4) != 0;
      *w_out = w;
      *h_out = h;
    }
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDeleteRenderbuffers(1, &rb);
  glDeleteFramebuffers(1, &fbo);
  if (!ok) *error = ui::tr("The picture could not be rendered (the graphics driver refused the offscreen buffer).");
  return ok;
}

void exports_drain(Runner& r, const ExportDeliver& deliver) {
  ui::ExportQueue& q = r.app->exports();
  if (q.pending.empty()) return;
  std::vector<ui::ExportRequest> requests;
  requests.swap(q.pending);
  for (ui::ExportRequest& req : requests) {
    char detail[96] = "";
    if (req.kind == ui::ExportKind::png) {
      std::string error;
      int w = 0, h = 0;
      if (!png_capture(r, req.label, req.scale, &req.bytes, &w, &h, &error)) {
        ui::export_notify(q, error, true);
        continue;
      }
      std::snprintf(detail, sizeof detail, " (%d×%d pixels)", w, h);
      req.kind = ui::ExportKind::file;
    }
    std::string where;
    bool ok = deliver(req, &where);
    if (req.kind == ui::ExportKind::open_picker) {
      if (!ok) ui::export_notify(q, where, true);
      continue;
    }
    if (ok) ui::export_notify(q, "Saved " + req.filename + detail + " " + where + ".", false);
    else ui::export_notify(q, where, true);
  }
}

}  // namespace attnviz::platform
