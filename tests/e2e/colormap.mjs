// colormap.mjs: the app's colormaps for pixel checks: the same stops as
// ui/app/widgets/colormap.cpp (matplotlib's viridis and cividis at 10 points,
// ColorBrewer RdBu at 11, reversed), linearly interpolated.
const stops = {
  viridis: [0x440154, 0x482878, 0x3E4A89, 0x31688E, 0x26828E, 0x1F9E89, 0x35B779, 0x6DCD59, 0xB4DE2C, 0xFDE725],
  cividis: [0x00204D, 0x00336F, 0x39486B, 0x575C6D, 0x707173, 0x8A8779, 0xA69D75, 0xC4B56C, 0xE4CF5B, 0xFFEA46],
  rdbu: [0x053061, 0x2166AC, 0x4393C3, 0x92C5DE, 0xD1E5F0, 0xF7F7F7, 0xFDDBC7, 0xF4A582, 0xD6604D, 0xB2182B, 0x67001F],
};
export const masked = [0x3A, 0x4A, 0x5A];       // −inf cells
export const maskedHatch = [0x66, 0x7A, 0x8C];  // the hatch lines over them
export const nan = [0xFF, 0x00, 0xFF];

// Step by step in float32, like ui/app/widgets/colormap.cpp, so colours match to the unit.
const f = Math.fround;
export function colour(name, t) {
  const s = stops[name];
  if (!(t >= 0)) t = 0;
  if (t > 1) t = 1;
  const x = f(t * (s.length - 1));
  let i = Math.trunc(x);
  if (i >= s.length - 1) i = s.length - 2;
  const fr = f(x - i);
  const ch = (shift) => {
    const va = (s[i] >> shift) & 0xff, vb = (s[i + 1] >> shift) & 0xff;
    return Math.floor(f(va + f(f(vb - va) * fr)) + 0.5);
  };
  return [ch(16), ch(8), ch(0)];
}

// Largest channel difference between two colours.
export const distance = (a, b) => Math.max(...a.map((v, k) => Math.abs(v - b[k])));
