// map_zoom.cpp: see map_zoom.h.
#include "app/widgets/map_zoom.h"

#include <algorithm>
#include <cmath>

namespace attnviz::ui {

int overview_block(double span, int max_cells) {
  int b = 1;
  const double cells = std::max(1, max_cells);
  while (std::ceil(span / b) > cells && b < (1 << 20)) b *= 2;
  return b;
}

PooledRange pooled_visible(int S, int block, double c0, double c1) {
  const int n = (S + block - 1) / block;
  PooledRange r;
  r.a = std::clamp((int)std::floor(c0 / block), 0, n);
  r.z = std::clamp((int)std::ceil(c1 / block), r.a, n);
  return r;
}

PooledRange pooled_window(int S, int block, PooledRange v, int margin, int chunk) {
  const int n = (S + block - 1) / block;
  chunk = std::max(1, chunk);
  PooledRange w;
  w.a = std::max(0, (v.a - margin) / chunk * chunk);
  if (v.a - margin < 0) w.a = 0;
  w.z = std::min(n, (v.z + margin + chunk - 1) / chunk * chunk);
  if (w.z < w.a) w.z = w.a;
  return w;
}

OverviewView overview_view(int S, float u0, float v0, float span_u, float span_v) {
  OverviewView o;
  const double su = std::min(1.0f, span_u), sv = std::min(1.0f, span_v);
  o.block = overview_block(std::max(su, sv) * S);
  o.rows = pooled_visible(S, o.block, (double)v0 * S, ((double)v0 + sv) * S);
  o.cols = pooled_visible(S, o.block, (double)u0 * S, ((double)u0 + su) * S);
  o.win_rows = pooled_window(S, o.block, o.rows);
  o.win_cols = pooled_window(S, o.block, o.cols);
  return o;
}

}  // namespace attnviz::ui
