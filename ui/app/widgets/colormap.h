// colormap.h: value → colour for heatmaps.
//   viridis : perceptually uniform, for weights in [0, 1] (the default)
//   cividis : perceptually uniform and safe for red-green colour blindness
//   rdbu    : diverging blue–white–red for signed values (scores, Q, K, V, …), centred on 0
// Special cells have fixed colours the legend names: −inf (masked), NaN, +inf.
#pragma once
#include <cstdint>

namespace attnviz::ui {

enum class Colormap : int { viridis = 0, cividis = 1, rdbu = 2, count };

const char* colormap_name(Colormap c);
// Colour at t in [0, 1] (clamped) as packed RGBA8 (R in the low byte, as ImU32).
uint32_t colormap_at(Colormap c, float t);

constexpr uint32_t kColourMasked = 0xFF5A4A3Au;    // −inf: dark slate, hatched where cells are large
constexpr uint32_t kColourMaskedHatch = 0xFF8C7A66u;
constexpr uint32_t kColourNaN = 0xFFFF00FFu;       // NaN: magenta, impossible to miss
constexpr uint32_t kColourPosInf = 0xFFFFFFFFu;    // +inf: white
constexpr uint32_t kColourAbsent = 0xFF2B2622u;    // absent (an evicted key): near the window's background,
constexpr uint32_t kColourAbsentHatch = 0xFF5C5650u;  // with a light hatch the other way from −inf's

}  // namespace attnviz::ui
