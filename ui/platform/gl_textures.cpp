// gl_textures.cpp: nearest-sampled RGBA8 textures for heatmaps.
#include "platform/gl_textures.h"

#include <SDL.h>
#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#include <SDL_opengl.h>
#endif

namespace attnviz::platform {

ImTextureID GlTextureHost::create(int w, int h) {
  GLuint id = 0;
  glGenTextures(1, &id);
  glBindTexture(GL_TEXTURE_2D, id);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  return (ImTextureID)(intptr_t)id;
}

void GlTextureHost::upload(ImTextureID tex, int w, int h, const uint8_t* rgba) {
  glBindTexture(GL_TEXTURE_2D, (GLuint)(intptr_t)tex);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
  ++uploads;
}

void GlTextureHost::destroy(ImTextureID tex) {
  GLuint id = (GLuint)(intptr_t)tex;
  glDeleteTextures(1, &id);
}

}  // namespace attnviz::platform
