// texture_host.h: how panels get GPU textures without knowing the graphics API.
// The platform layer (platform/gl_textures.cpp) implements it with OpenGL / WebGL2;
// tests use a null implementation that only counts uploads.
#pragma once
#include <cstdint>
#include "imgui.h"

namespace attnviz::ui {

struct TextureHost {
  virtual ~TextureHost() = default;
  // A texture of w×h RGBA8 texels, nearest-neighbour sampled (one texel per matrix cell).
  virtual ImTextureID create(int w, int h) = 0;
  // Replaces all texels: rgba has w*h*4 bytes, row-major, top row first.
  virtual void upload(ImTextureID tex, int w, int h, const uint8_t* rgba) = 0;
  virtual void destroy(ImTextureID tex) = 0;
  uint64_t uploads = 0;  // count of upload() calls, for tests and frame stats
};

}  // namespace attnviz::ui
