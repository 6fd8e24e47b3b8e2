// gl_textures.h: TextureHost over OpenGL 3 / WebGL2 (the ImGui OpenGL3 backend's GL).
#pragma once
#include "app/widgets/texture_host.h"

namespace attnviz::platform {

struct GlTextureHost final : ui::TextureHost {
  ImTextureID create(int w, int h) override;
  void upload(ImTextureID tex, int w, int h, const uint8_t* rgba) override;
  void destroy(ImTextureID tex) override;
};

}  // namespace attnviz::platform
