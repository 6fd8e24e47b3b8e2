// layout.h: where the three windows (Parameters, Inspector, Views) go. Pure
// geometry over plain rectangles, no ImGui calls, so tests check it directly;
// panels.cpp reads the windows' rectangles, calls these and moves the windows.
//
// Coordinates are logical (CSS) pixels; `work` is the screen below the menu bar.
#pragma once

namespace attnviz::ui {

struct LayoutRect {
  float x = 0, y = 0, w = 0, h = 0;
  float right() const { return x + w; }
  float bottom() const { return y + h; }
  bool operator==(const LayoutRect& o) const { return x == o.x && y == o.y && w == o.w && h == o.h; }
  bool operator!=(const LayoutRect& o) const { return !(*this == o); }
};

// Each window's index in the arrays below.
enum LayoutWindow : int { kLayoutParams = 0, kLayoutInspector, kLayoutViews, kLayoutCount };

// Scaling a saved arrangement down (layout_fit) leaves no window smaller than this
// (unless it was smaller already, or the screen is).
constexpr float kLayoutMinW = 200.0f, kLayoutMinH = 120.0f;

// The default arrangement for a work area: a left column (24% of the width,
// 280 to 360 px) holding Parameters with `params_h` (the height its controls need),
// or less so that the Inspector under it keeps at least `inspector_min_h`; Views
// fills the rest on the right.
void layout_default(const LayoutRect& work, float params_h, float inspector_min_h, LayoutRect out[kLayoutCount]);

// One window moved so that it lies wholly inside `work`; shrunk only where it is
// larger than the work area.
LayoutRect layout_clamp(const LayoutRect& r, const LayoutRect& work);

// Fits a saved arrangement to a (smaller) work area: when the windows together
// reach beyond it, every position and size is scaled about the work area's corner
// by the factor that brings them in (per axis, never above 1), so the
// arrangement keeps its proportions; then each window is clamped. An arrangement
// that already fits is returned as it is. The left column then keeps the width a fresh
// load gives it on this work area (layout_default), the windows right of it giving
// up the room. Returns whether anything changed.
bool layout_fit(LayoutRect r[], int n, const LayoutRect& work);

}  // namespace attnviz::ui

namespace attnviz::ui {

// The screen minus `holes`, as at most `max` rectangles (out; returns how many): what a
// lesson dims around the map and control it lights up (panel_lesson.cpp). The screen is
// cut into vertical strips at the holes' left and right edges; in each strip the spans no
// hole covers are the pieces. Holes may overlap and reach past the screen.
int dim_rects(const LayoutRect& screen, const LayoutRect* holes, int n, LayoutRect* out, int max);

// Where the Lesson window goes on a work area: a right-hand column, 34% of the width
// (380 to 520 px, never more than half), the whole height.
LayoutRect lesson_place(const LayoutRect& work);

}  // namespace attnviz::ui
