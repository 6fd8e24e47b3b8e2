// fonts.cpp: see fonts.h.
#include "app/fonts.h"

namespace attnviz::ui {

Fonts g_fonts;

static ImFont* add_font(ImGuiIO& io, const std::vector<uint8_t>& ttf, float px) {
  if (ttf.empty()) {
    ImFontConfig cfg;
    cfg.SizePixels = px;
    return io.Fonts->AddFontDefault(&cfg);
  }
  ImFontConfig cfg;
  cfg.FontDataOwnedByAtlas = false;  // FontSources keeps the bytes alive
  cfg.OversampleH = 2;
  cfg.OversampleV = 1;
  // Latin, Latin-1 supplement, Greek (for α, σ, √ in labels), arrows and math signs.
  static const ImWchar ranges[] = {0x0020, 0x00FF, 0x0370, 0x03FF, 0x2000, 0x206F,
                                   0x2190, 0x21FF, 0x2200, 0x22FF, 0x25A0, 0x25FF, 0};
  return io.Fonts->AddFontFromMemoryTTF(const_cast<uint8_t*>(ttf.data()), (int)ttf.size(), px,
                                        &cfg, ranges);
}

void fonts_build(ImGuiIO& io, const FontSources& src, float scale) {
  io.Fonts->Clear();
  float px = kFontSize * scale;
  g_fonts.regular = add_font(io, src.regular, px);
  g_fonts.mono = src.mono.empty() ? g_fonts.regular : add_font(io, src.mono, px);
  io.FontDefault = g_fonts.regular;
  io.FontGlobalScale = 1.0f / scale;
  io.Fonts->Build();
}

}  // namespace attnviz::ui
