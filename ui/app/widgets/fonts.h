// fonts.h: the font atlas, rasterised at the device pixel ratio.
#pragma once
#include <cstdint>
#include <vector>

#include "imgui.h"

namespace attnviz::ui {

// TTF files as bytes. The platform fills them (desktop: from Debian's font packages
// on disk; browser: fetched from the site's assets/fonts). Empty means "use
// ImGui's built-in font".
struct FontSources {
  std::vector<uint8_t> regular;  // UI text (DejaVu Sans)
  std::vector<uint8_t> mono;     // numbers inside heatmap cells (DejaVu Sans Mono)
  std::vector<uint8_t> cjk;      // Chinese/Japanese/Korean (Droid Sans Fallback), loaded
                                 // only once a token needs it: it is 4 MB
  std::vector<ImWchar> glyphs;   // codepoints beyond the built-in ranges that the
                                 // session uses (sorted, unique); only these are
                                 // rasterised from `cjk`, so the atlas stays small
};

// Codepoints of `text` (UTF-8) that the regular font's ranges do not cover, merged
// into the sorted, unique `out`. Returns true if anything was added.
bool fonts_collect_glyphs(const char* text, std::vector<ImWchar>& out);

// Font handles after fonts_build; null until built.
struct Fonts {
  ImFont* regular = nullptr;
  ImFont* mono = nullptr;
  ImFont* cells = nullptr;  // the values inside heatmap cells: mono at kCellFontSize
  int generation = 0;       // changes with every fonts_build (text widths change)
};
extern Fonts g_fonts;

constexpr float kFontSize = 15.0f;  // logical (CSS) pixels
constexpr float kCellFontSize = 12.0f;  // values in cells: PyTorch's tables are monospaced too

// Rebuilds io.Fonts for a pixel ratio `scale`: glyphs are rasterised at
// kFontSize*scale and drawn with io.FontGlobalScale = 1/scale, so text is sharp
// on HiDPI screens while layout stays in logical pixels. The caller re-uploads
// the atlas texture.
void fonts_build(ImGuiIO& io, const FontSources& src, float scale);

}  // namespace attnviz::ui
