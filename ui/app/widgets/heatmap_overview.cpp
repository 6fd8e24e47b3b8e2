// heatmap_overview.cpp: a square (S × S) map read pooled, a window at a time (issue 36;
// heatmap.h heatmap_overview, map_zoom.h for the rules).
// [SECTION] the frame's budget
// [SECTION] shape, labels, window
// [SECTION] computing and fetching rows
// [SECTION] texture and drawing
// [SECTION] words and heatmapInfo
//
// Each frame the view (zoom, pan) gives a block and a window of pooled rows and columns
// (overview_view). Rows of the window the cache does not hold yet are asked of the engine
// through the MapSource: first computed (prepare) within what is left of the frame's
// budget, the visible ones first, then fetched once computed. A pan inside the window
// asks for nothing; a pan across its edge fetches kept rows (a copy, no computing). Rows
// still computing are drawn as a grey hatch with a sentence, and the frame loop keeps
// drawing (heatmap_rows_pending) until they are there.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include <nlohmann/json.hpp>

#include "app/text/i18n.h"
#include "app/widgets/heatmap_internal.h"

namespace attnviz::ui {

// =============================================================================
// [SECTION] the frame's budget
// =============================================================================

namespace {
struct FrameBudget {
  double budget_ms = 25.0;
  double used_ms = 0.0;
  bool pending = false;  // a map drew rows still computing this frame
};
FrameBudget g_budget;

double now_ms() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

constexpr uint32_t kComputing = IM_COL32(58, 60, 70, 255);       // a row still computing: dark grey
constexpr uint32_t kComputingHatch = IM_COL32(96, 100, 116, 255);  // ... with a light diagonal hatch
}  // namespace

void heatmap_frame_begin(double budget_ms) {
  g_budget.budget_ms = budget_ms;
  g_budget.used_ms = 0.0;
  g_budget.pending = false;
}

bool heatmap_rows_pending() { return g_budget.pending; }

// =============================================================================
// [SECTION] shape, labels, window
// =============================================================================

void overview_refresh(HeatmapCache& c, const HeatmapSpec& spec, const MapSource& src) {
  const int S = src.size();
  if (!c.ov.on) {  // was a whole matrix (or new): nothing of it is kept
    std::vector<float>().swap(c.values);
    c.dropped.clear();
    c.absent.clear();
    c.had_keep = false;
    c.ov = OverviewCache{};
    c.ov.on = true;
    c.rows = c.cols = 0;
  }
  if (c.rows != S || c.cols != S) {
    c.rows = c.cols = S;
    take_labels(c, spec, S, S);
  } else if (!labels_current(c.row_labels, spec.row_labels, S) || !labels_current(c.col_labels, spec.col_labels, S)) {
    take_labels(c, spec, S, S);
  }
  if (c.view_rows != S || c.view_cols != S) heatmap_reset_view(c);
  c.view_rows = c.view_cols = S;
  c.version = src.version();
}

// A new window (block, rows, columns) or new numbers: nothing of the old one is fetched.
static void start_window(OverviewCache& o, const OverviewView& v, uint64_t version, bool mean) {
  if (version != o.version || mean != o.mean) o.seen_any = false;
  o.version = version;
  o.mean = mean;
  o.block = v.block;
  o.win_rows = v.win_rows;
  o.win_cols = v.win_cols;
  const size_t n = (size_t)v.win_rows.size() * v.win_cols.size();
  o.values.assign(n, std::numeric_limits<float>::quiet_NaN());
  o.dropped.assign(v.block == 1 ? n : 0, 0);
  o.ready.assign((size_t)v.win_rows.size(), 0);
  o.dirty = true;
}

// =============================================================================
// [SECTION] computing and fetching rows
// =============================================================================

// Computes pending rows of [r.a, r.z) within what is left of the frame's budget.
static void compute(const MapSource& src, const OverviewCache& o, PooledRange r) {
  const double left = g_budget.budget_ms - g_budget.used_ms;
  if (left <= 0.0 || r.size() <= 0) return;
  const double t0 = now_ms();
  src.prepare(o.block, r.a, r.size(), left);
  g_budget.used_ms += now_ms() - t0;
}

// Fetches the window's rows the engine has computed and the cache has not, a run of
// consecutive ones at a time; returns whether any came. Dropout's × at block 1.
static bool fetch_ready(const MapSource& src, OverviewCache& o, const uint8_t* keep, int S) {
  const int nJ = o.win_cols.size();
  bool any = false;
  for (int I = o.win_rows.a; I < o.win_rows.z;) {
    const size_t k = (size_t)(I - o.win_rows.a);
    if (o.ready[k] || src.pending(o.block, I, 1) > 0) {
      ++I;
      continue;
    }
    int z = I + 1;
    while (z < o.win_rows.z && !o.ready[(size_t)(z - o.win_rows.a)] && src.pending(o.block, z, 1) == 0) ++z;
    float* out = &o.values[k * (size_t)nJ];
    if (src.fetch(o.block, I, z - I, o.win_cols.a, nJ, out)) {
      for (int r = I; r < z; ++r) o.ready[(size_t)(r - o.win_rows.a)] = 1;
      if (keep && o.block == 1)
        for (int r = I; r < z; ++r)
          for (int j = 0; j < nJ; ++j)
            o.dropped[(size_t)(r - o.win_rows.a) * nJ + j] = keep[(size_t)r * S + o.win_cols.a + j] == 0;
      any = true;
    }
    I = z;
  }
  return any;
}

// The window's value statistics (the layout's decimals) and the range seen since the
// numbers last changed (the colour scale: stable while the view pans and zooms).
static void window_stats(HeatmapCache& c) {
  OverviewCache& o = c.ov;
  const int nJ = o.win_cols.size();
  ValueStats s;
  bool first = true;
  for (int r = 0; r < o.win_rows.size(); ++r) {
    if (!o.ready[(size_t)r]) continue;
    const ValueStats rs = value_stats(&o.values[(size_t)r * nJ], 1, nJ, nJ);
    if (!rs.any_finite && !rs.neg_inf && !rs.pos_inf && !rs.nan) continue;
    if (first) s = rs;
    else {
      if (rs.any_finite && (!s.any_finite || rs.lo < s.lo)) s.lo = rs.lo;
      if (rs.any_finite && (!s.any_finite || rs.hi > s.hi)) s.hi = rs.hi;
      s.maxabs = std::max(s.maxabs, rs.maxabs);
      s.negative |= rs.negative;
      s.neg_inf |= rs.neg_inf;
      s.pos_inf |= rs.pos_inf;
      s.nan |= rs.nan;
      s.any_finite |= rs.any_finite;
    }
    first = false;
  }
  c.stats = s;
  if (!s.any_finite) return;
  o.seen_lo = o.seen_any ? std::min(o.seen_lo, s.lo) : s.lo;
  o.seen_hi = o.seen_any ? std::max(o.seen_hi, s.hi) : s.hi;
  o.seen_any = true;
}

static void rebuild_window_texture(HeatmapCache& c, TextureHost& textures);

void overview_update(HeatmapCache& c, const HeatmapSpec& spec, const MapSource& src, const Viewport& vp,
                     TextureHost& textures) {
  OverviewCache& o = c.ov;
  const int S = c.rows;
  const OverviewView v = overview_view(S, c.u0, c.v0, vp.span_u, vp.span_v);
  const uint64_t version = src.version();
  const bool mean = src.mean();
  if (version != o.version || mean != o.mean || v.block != o.block || !(v.win_rows == o.win_rows) ||
      !(v.win_cols == o.win_cols) || o.ready.size() != (size_t)v.win_rows.size())
    start_window(o, v, version, mean);
  o.rows = v.rows;
  o.cols = v.cols;
  if (std::find(o.ready.begin(), o.ready.end(), 0) != o.ready.end()) {
    compute(src, o, v.rows);      // what is seen first
    compute(src, o, v.win_rows);  // then the margin a pan reaches
    if (fetch_ready(src, o, spec.keep, S)) {
      window_stats(c);
      o.dirty = true;
    }
  }
  o.pending = 0;
  for (int I = v.rows.a; I < v.rows.z; ++I) o.pending += o.ready[(size_t)(I - o.win_rows.a)] ? 0 : 1;
  if (o.pending > 0) g_budget.pending = true;

  ValueStats seen = c.stats;  // the colour range: every finite value seen since the numbers changed
  if (o.seen_any) {
    seen.lo = o.seen_lo;
    seen.hi = o.seen_hi;
    seen.maxabs = std::max(std::fabs(o.seen_lo), std::fabs(o.seen_hi));
  }
  float lo, hi;
  colour_range(spec, seen, &lo, &hi);
  if (o.dirty || c.cmap != spec.cmap || c.lo != lo || c.hi != hi || !c.tex) {
    c.cmap = spec.cmap;
    c.lo = lo;
    c.hi = hi;
    rebuild_window_texture(c, textures);
    o.dirty = false;
  }
}

// =============================================================================
// [SECTION] texture and drawing
// =============================================================================

// The window's texels: overview_texels per pooled cell side; rows still computing a hatch.
static void rebuild_window_texture(HeatmapCache& c, TextureHost& textures) {
  OverviewCache& o = c.ov;
  const int nI = o.win_rows.size(), nJ = o.win_cols.size();
  const int t = o.block == 1 ? overview_texels(std::max(nI, nJ)) : 1;
  const int w = std::max(1, nJ * t), h = std::max(1, nI * t);
  ensure_texture(c, textures, w, h);
  o.texels = t;
  c.block = t;
  c.rgba.assign((size_t)w * h, kComputing);
  for (int r = 0; r < nI; ++r) {
    if (!o.ready[(size_t)r]) {
      for (int y = r * t; y < (r + 1) * t; ++y)
        for (int x = 0; x < w; ++x)
          if ((x + y) % 6 < 2) c.rgba[(size_t)y * w + x] = kComputingHatch;
      continue;
    }
    for (int j = 0; j < nJ; ++j) {
      const size_t k = (size_t)r * nJ + j;
      const float v = o.values[k];
      paint_cell(c.rgba.data(), w, j * t, r * t, t, cell_colour(c.cmap, v, c.lo, c.hi), v,
                 !o.dropped.empty() && o.dropped[k], false);
    }
  }
  textures.upload(c.tex, w, h, reinterpret_cast<const uint8_t*>(c.rgba.data()));
}

void overview_draw(const HeatmapCache& c, const Viewport& vp) {
  const OverviewCache& o = c.ov;
  const float S = (float)c.rows, b = (float)o.block;
  const float x0 = vp.grid0.x + ((float)o.win_cols.a * b / S - c.u0) * vp.full_w;
  const float y0 = vp.grid0.y + ((float)o.win_rows.a * b / S - c.v0) * vp.full_h;
  const float x1 = x0 + (float)o.win_cols.size() * b / S * vp.full_w;
  const float y1 = y0 + (float)o.win_rows.size() * b / S * vp.full_h;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 g1(vp.grid0.x + vp.size.x, vp.grid0.y + vp.size.y);
  dl->PushClipRect(vp.grid0, g1, true);
  dl->AddImage(c.tex, ImVec2(x0, y0), ImVec2(x1, y1));
  if (o.pending > 0) {  // what the hatch is: a sentence on a dark band at the top of the cells
    char s[128];
    std::snprintf(s, sizeof s, tr("computing %d of %d rows\xE2\x80\xA6"), o.pending, o.rows.size());
    const ImVec2 ts = ImGui::CalcTextSize(s);
    const ImVec2 p(vp.grid0.x + 4.0f, vp.grid0.y + 4.0f);
    dl->AddRectFilled(ImVec2(p.x - 2, p.y - 1), ImVec2(p.x + ts.x + 2, p.y + ts.y + 1), IM_COL32(0, 0, 0, 190));
    dl->AddText(p, IM_COL32(255, 255, 255, 255), s);
  }
  dl->PopClipRect();
}

bool overview_cell(const HeatmapCache& c, int i, int j, float* v) {
  const OverviewCache& o = c.ov;
  const int I = i / o.block, J = j / o.block;
  if (I < o.win_rows.a || I >= o.win_rows.z || J < o.win_cols.a || J >= o.win_cols.z) return false;
  const size_t r = (size_t)(I - o.win_rows.a);
  if (!o.ready[r]) return false;
  *v = o.values[r * o.win_cols.size() + (J - o.win_cols.a)];
  return true;
}

// =============================================================================
// [SECTION] words and heatmapInfo
// =============================================================================

void overview_caption(const HeatmapCache& c, char* out, size_t n) {
  const int b = c.ov.block;
  if (b <= 1) std::snprintf(out, n, "%s", tr("exact cells"));
  else std::snprintf(out, n, c.ov.mean ? tr("mean of %d\xC3\x97%d cells") : tr("max of %d\xC3\x97%d cells"), b, b);
}

void overview_tooltip(const HeatmapCache& c, const HeatmapHover& h) {
  const int b = c.ov.block, S = c.rows;
  const int i0 = h.row / b * b, j0 = h.col / b * b;
  const int i1 = std::min(S, i0 + b) - 1, j1 = std::min(S, j0 + b) - 1;
  float v;
  const bool have = overview_cell(c, h.row, h.col, &v);
  ImGui::SetTooltip(c.ov.mean ? tr("mean of rows %d\xE2\x80\x93%d, columns %d\xE2\x80\x93%d: %s\nzoom in (wheel) for the cells")
                              : tr("max of rows %d\xE2\x80\x93%d, columns %d\xE2\x80\x93%d: %s\nzoom in (wheel) for the cells"),
                    i0, i1, j0, j1, have ? format_value(v).c_str() : tr("computing\xE2\x80\xA6"));
}

// A pooled value for JSON: a number, "-inf", "inf", "nan", or null while computing.
static nlohmann::json json_value(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  return v;
}

void overview_info(const HeatmapCache& c, nlohmann::json& out) {
  const OverviewCache& o = c.ov;
  const HeatmapDrawn& d = c.drawn;
  out["overview"] = true;
  out["block"] = o.block;
  out["pool"] = o.mean ? "mean" : "max";
  out["pending"] = o.pending;
  nlohmann::json data = nlohmann::json::array();
  for (int I = o.rows.a; I < o.rows.z; ++I) {
    nlohmann::json line = nlohmann::json::array();
    const size_t r = (size_t)(I - o.win_rows.a);
    for (int J = o.cols.a; J < o.cols.z; ++J)
      line.push_back(o.ready[r] ? json_value(o.values[r * o.win_cols.size() + (J - o.win_cols.a)]) : nlohmann::json());
    data.push_back(std::move(line));
  }
  out["pooled"] = {{"row0", o.rows.a}, {"col0", o.cols.a}, {"rows", o.rows.size()}, {"cols", o.cols.size()},
                   {"data", std::move(data)}};
  // The printed cells of the view: cells[k][l] is cell (cells_row0 + k, cells_col0 + l).
  nlohmann::json cells = nlohmann::json::array(), dropped = nlohmann::json::array();
  char s[48];
  for (int i = d.i0; i < d.i1 && d.detail.decimals >= 0; ++i) {
    nlohmann::json line = nlohmann::json::array();
    for (int j = d.j0; j < d.j1; ++j) {
      float v;
      const bool shown = overview_cell(c, i, j, &v);
      if (shown) format_cell(v, d.detail.decimals, s, sizeof s);
      line.push_back(shown ? s : "");
    }
    cells.push_back(std::move(line));
  }
  for (int i = d.i0; i < d.i1 && o.block == 1 && !o.dropped.empty(); ++i)
    for (int j = d.j0; j < d.j1; ++j) {
      if (i < o.win_rows.a || i >= o.win_rows.z || j < o.win_cols.a || j >= o.win_cols.z) continue;
      if (o.dropped[(size_t)(i - o.win_rows.a) * o.win_cols.size() + (j - o.win_cols.a)]) dropped.push_back({i, j});
    }
  out["cells_row0"] = d.i0;
  out["cells_col0"] = d.j0;
  out["cells"] = std::move(cells);
  out["dropped"] = std::move(dropped);
  char cap[128];
  overview_caption(c, cap, sizeof cap);
  out["caption"] = cap;
}

}  // namespace attnviz::ui
