// layout.cpp: see layout.h.
#include "app/panels/layout.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace attnviz::ui {

// The left column's width for a work area this wide.
static float side_width(const LayoutRect& work) { return std::min(work.w, std::clamp(work.w * 0.24f, 280.0f, 360.0f)); }

void layout_default(const LayoutRect& work, float params_h, float inspector_min_h, LayoutRect out[kLayoutCount]) {
  const float side = side_width(work);
  // Parameters gets what it asks for unless that squeezes the Inspector; on a
  // screen too short for both, they share it.
  float ph = std::min(params_h, work.h - inspector_min_h);
  ph = std::max(ph, std::min(params_h, work.h * 0.5f));
  out[kLayoutParams] = {work.x, work.y, side, ph};
  out[kLayoutInspector] = {work.x, work.y + ph, side, work.h - ph};
  out[kLayoutViews] = {work.x + side, work.y, work.w - side, work.h};
}

// One axis: the span [pos, pos + len) moved inside [lo, lo + room), shortened only
// when longer than the room.
static void clamp_axis(float& pos, float& len, float lo, float room) {
  len = std::min(len, room);
  pos = std::clamp(pos, lo, lo + room - len);
}

LayoutRect layout_clamp(const LayoutRect& r, const LayoutRect& work) {
  LayoutRect c = r;
  clamp_axis(c.x, c.w, work.x, std::max(work.w, 0.0f));
  clamp_axis(c.y, c.h, work.y, std::max(work.h, 0.0f));
  return c;
}

// After scaling down: windows in the left column (at the work area's left edge) keep
// the column's default width for this work area, so the Parameters controls are not
// squeezed below what a fresh load gives them; the windows right of the column give
// up that width.
static void keep_left_column(LayoutRect r[], int n, const LayoutRect& work) {
  const float side = side_width(work);
  float col_right = work.x, grow = 0;
  for (int i = 0; i < n; ++i)
    if (r[i].x <= work.x + 0.5f && r[i].w < side) {
      col_right = std::max(col_right, r[i].right());
      grow = std::max(grow, side - r[i].w);
    }
  if (grow <= 0) return;
  for (int i = 0; i < n; ++i) {
    if (r[i].x <= work.x + 0.5f) {
      r[i].w = std::max(r[i].w, std::min(side, r[i].w + grow));
    } else if (r[i].x >= col_right - 1.0f && r[i].w - grow >= kLayoutMinW) {
      r[i].x += grow;
      r[i].w -= grow;
    }
  }
}

bool layout_fit(LayoutRect r[], int n, const LayoutRect& work) {
  float reach_x = 0, reach_y = 0;  // how far the arrangement reaches from the work area's corner
  for (int i = 0; i < n; ++i) {
    reach_x = std::max(reach_x, r[i].right() - work.x);
    reach_y = std::max(reach_y, r[i].bottom() - work.y);
  }
  const float sx = reach_x > work.w && reach_x > 0 ? work.w / reach_x : 1.0f;
  const float sy = reach_y > work.h && reach_y > 0 ? work.h / reach_y : 1.0f;
  bool changed = false;
  for (int i = 0; i < n; ++i) {
    LayoutRect s = r[i];
    // Scaled, but not below a usable size (the clamp below then moves it inside).
    // Whole pixels, as ImGui keeps them.
    if (sx < 1.0f)
      s = {std::floor(work.x + (s.x - work.x) * sx), s.y, std::floor(std::max(s.w * sx, std::min(s.w, kLayoutMinW))), s.h};
    if (sy < 1.0f)
      s = {s.x, std::floor(work.y + (s.y - work.y) * sy), s.w, std::floor(std::max(s.h * sy, std::min(s.h, kLayoutMinH)))};
    s = layout_clamp(s, work);
    changed |= s != r[i];
    r[i] = s;
  }
  if (sx < 1.0f) keep_left_column(r, n, work);
  return changed;
}

}  // namespace attnviz::ui

namespace attnviz::ui {

int dim_rects(const LayoutRect& screen, const LayoutRect* holes, int n, LayoutRect* out, int max) {
  std::vector<float> xs = {screen.x, screen.right()};
  for (int i = 0; i < n; ++i)
    for (float x : {holes[i].x, holes[i].right()})
      if (x > screen.x && x < screen.right()) xs.push_back(x);
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  int count = 0;
  for (size_t s = 0; s + 1 < xs.size(); ++s) {
    const float x0 = xs[s], x1 = xs[s + 1], mid = (x0 + x1) / 2;
    std::vector<std::pair<float, float>> cover;  // the holes' spans in this strip, top to bottom
    for (int i = 0; i < n; ++i)
      if (holes[i].w > 0 && holes[i].h > 0 && holes[i].x <= mid && holes[i].right() >= mid)
        cover.push_back({holes[i].y, holes[i].bottom()});
    std::sort(cover.begin(), cover.end());
    float y = screen.y;
    auto emit = [&](float y0, float y1) {
      if (y1 > y0 && count < max) out[count++] = {x0, y0, x1 - x0, y1 - y0};
    };
    for (const auto& [top, bottom] : cover) {
      emit(y, std::min(top, screen.bottom()));
      y = std::max(y, bottom);
    }
    emit(y, screen.bottom());
  }
  return count;
}

LayoutRect lesson_place(const LayoutRect& work) {
  const float w = std::min(std::clamp(work.w * 0.34f, 380.0f, 520.0f), work.w / 2);
  return {work.right() - w, work.y, w, work.h};
}

}  // namespace attnviz::ui
