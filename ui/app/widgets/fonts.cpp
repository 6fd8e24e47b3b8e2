// fonts.cpp: see fonts.h.
#include "app/widgets/fonts.h"

#include <algorithm>

#include "imgui_internal.h"

namespace attnviz::ui {

Fonts g_fonts;

// Latin, Latin-1 supplement, Greek (for α, σ, √ in labels), phonetic extensions (the
// superscript ᵀ of K_hᵀ), arrows and math signs.
static const ImWchar kBaseRanges[] = {0x0020, 0x00FF, 0x0370, 0x03FF, 0x1D00, 0x1D7F, 0x2000, 0x206F,
                                      0x2190, 0x21FF, 0x2200, 0x22FF, 0x25A0, 0x25FF, 0};

static bool in_base_ranges(unsigned c) {
  for (const ImWchar* r = kBaseRanges; r[0]; r += 2)
    if (c >= r[0] && c <= r[1]) return true;
  return false;
}

bool fonts_collect_glyphs(const char* text, std::vector<ImWchar>& out) {
  bool added = false;
  while (text && *text) {
    unsigned int c = 0;
    text += ImTextCharFromUtf8(&c, text, nullptr);
    // Control characters ('\n' of a two-line tooltip) are never drawn: no glyph to add.
    if (c < 0x20 || in_base_ranges(c) || c > IM_UNICODE_CODEPOINT_MAX) continue;
    auto it = std::lower_bound(out.begin(), out.end(), (ImWchar)c);
    if (it != out.end() && *it == (ImWchar)c) continue;
    out.insert(it, (ImWchar)c);
    added = true;
  }
  return added;
}

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
  return io.Fonts->AddFontFromMemoryTTF(const_cast<uint8_t*>(ttf.data()), (int)ttf.size(), px,
                                        &cfg, kBaseRanges);
}

// Merges the session's non-Latin glyphs from the CJK font into the last font added.
static void merge_glyphs(ImGuiIO& io, const FontSources& src, float px, std::vector<ImWchar>& ranges) {
  if (src.cjk.empty() || src.glyphs.empty()) return;
  ranges.clear();
  for (ImWchar c : src.glyphs) {
    ranges.push_back(c);
    ranges.push_back(c);
  }
  ranges.push_back(0);
  ImFontConfig cfg;
  cfg.MergeMode = true;
  cfg.FontDataOwnedByAtlas = false;
  cfg.OversampleH = 1;
  cfg.OversampleV = 1;
  io.Fonts->AddFontFromMemoryTTF(const_cast<uint8_t*>(src.cjk.data()), (int)src.cjk.size(), px, &cfg,
                                 ranges.data());
}

void fonts_build(ImGuiIO& io, const FontSources& src, float scale) {
  // The atlas keeps pointers to glyph ranges until it is rebuilt: keep them here.
  static std::vector<ImWchar> ranges_regular, ranges_mono;
  io.Fonts->Clear();
  float px = kFontSize * scale;
  g_fonts.regular = add_font(io, src.regular, px);
  merge_glyphs(io, src, px, ranges_regular);
  if (src.mono.empty()) {
    g_fonts.mono = g_fonts.regular;
  } else {
    g_fonts.mono = add_font(io, src.mono, px);
    merge_glyphs(io, src, px, ranges_mono);
  }
  // Cell values are digits, signs and "inf"/"nan": no CJK merge needed.
  g_fonts.cells = add_font(io, src.mono.empty() ? src.regular : src.mono, kCellFontSize * scale);
  ++g_fonts.generation;
  io.FontDefault = g_fonts.regular;
  io.FontGlobalScale = 1.0f / scale;
  io.Fonts->Build();
}

}  // namespace attnviz::ui
