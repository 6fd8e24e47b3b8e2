// colormap.cpp: see colormap.h. Each map is a list of evenly spaced sRGB stops,
// interpolated linearly: viridis and cividis are matplotlib's maps sampled at
// 10 points; RdBu is ColorBrewer's 11-class RdBu, reversed so negative is blue.
#include "app/widgets/colormap.h"

#include <cmath>

namespace attnviz::ui {

namespace {
struct Stops {
  const uint32_t* rgb;  // 0xRRGGBB
  int n;
};
constexpr uint32_t kViridis[] = {0x440154, 0x482878, 0x3E4A89, 0x31688E, 0x26828E,
                                 0x1F9E89, 0x35B779, 0x6DCD59, 0xB4DE2C, 0xFDE725};
constexpr uint32_t kCividis[] = {0x00204D, 0x00336F, 0x39486B, 0x575C6D, 0x707173,
                                 0x8A8779, 0xA69D75, 0xC4B56C, 0xE4CF5B, 0xFFEA46};
constexpr uint32_t kRdBu[] = {0x053061, 0x2166AC, 0x4393C3, 0x92C5DE, 0xD1E5F0, 0xF7F7F7,
                              0xFDDBC7, 0xF4A582, 0xD6604D, 0xB2182B, 0x67001F};

Stops stops(Colormap c) {
  switch (c) {
    case Colormap::cividis: return {kCividis, 10};
    case Colormap::rdbu: return {kRdBu, 11};
    default: return {kViridis, 10};
  }
}
}  // namespace

const char* colormap_name(Colormap c) {
  switch (c) {
    case Colormap::viridis: return "viridis";
    case Colormap::cividis: return "cividis";
    case Colormap::rdbu: return "RdBu (diverging)";
    default: return "?";
  }
}

uint32_t colormap_at(Colormap c, float t) {
  Stops s = stops(c);
  if (!(t >= 0.0f)) t = 0.0f;  // also catches NaN
  if (t > 1.0f) t = 1.0f;
  float x = t * (float)(s.n - 1);
  int i = (int)x;
  if (i >= s.n - 1) i = s.n - 2;
  float f = x - (float)i;
  uint32_t a = s.rgb[i], b = s.rgb[i + 1];
  auto ch = [&](int shift) {
    float va = (float)((a >> shift) & 0xFF), vb = (float)((b >> shift) & 0xFF);
    return (uint32_t)std::lround(va + (vb - va) * f);
  };
  return 0xFF000000u | (ch(0) << 16) | (ch(8) << 8) | ch(16);
}

}  // namespace attnviz::ui
