// test_map_zoom.cpp: the pure rules of overview maps (ui/app/widgets/map_zoom.h): which
// block a view of a long map draws, which pooled rows and columns it sees and keeps.
#include <gtest/gtest.h>

#include "app/widgets/map_zoom.h"

namespace {

using namespace attnviz::ui;

TEST(MapZoom, OverviewsStartAbove256Tokens) {
  EXPECT_FALSE(overview_wanted(5));
  EXPECT_FALSE(overview_wanted(256));
  EXPECT_TRUE(overview_wanted(257));
  EXPECT_TRUE(overview_wanted(8192));
}

TEST(MapZoom, BlockKeepsTheWholeMapWithin256CellsAcross) {
  EXPECT_EQ(overview_block(8192), 32);  // the example: 8,192 → 32
  EXPECT_EQ(overview_block(2048), 8);
  EXPECT_EQ(overview_block(1024), 4);
  EXPECT_EQ(overview_block(300), 2);   // ⌈300 / 2⌉ = 150
  EXPECT_EQ(overview_block(257), 2);
  EXPECT_EQ(overview_block(256), 1);   // fits: the exact cells
  EXPECT_EQ(overview_block(40), 1);
  EXPECT_EQ(overview_block(32768), 128);
  for (int S : {257, 300, 1000, 2048, 3000, 8192, 32768}) {
    const int b = overview_block(S);
    EXPECT_LE((S + b - 1) / b, kOverviewCells) << S;
    EXPECT_GT((S + b / 2 - 1) / (b / 2), kOverviewCells) << S << ": a smaller block would not fit";
  }
}

TEST(MapZoom, ZoomingInHalvesTheBlockDownToTheExactCells) {
  const int S = 8192;
  int last = 1 << 30;
  for (float zoom = 1.0f; zoom <= 2048.0f; zoom *= 1.25f) {
    const OverviewView v = overview_view(S, 0.3f, 0.3f, 1.0f / zoom, 1.0f / zoom);
    EXPECT_LE(v.block, last) << "zoom " << zoom;
    EXPECT_LE(v.rows.size(), kOverviewCells + 1) << "zoom " << zoom;
    last = v.block;
  }
  EXPECT_EQ(last, 1);  // at the deepest zoom, the cells themselves
  EXPECT_EQ(overview_view(S, 0.0f, 0.0f, 1.0f, 1.0f).block, 32);
  EXPECT_EQ(overview_view(S, 0.5f, 0.5f, 200.0f / S, 200.0f / S).block, 1);  // 200 cells across
}

TEST(MapZoom, VisibleRangeIsClippedToTheMapAndCoversThePartialLastBlock) {
  // S = 300, b = 2: 150 pooled cells; the view [290, 300) touches pooled 145 … 149.
  const PooledRange r = pooled_visible(300, 2, 290.0, 300.0);
  EXPECT_EQ(r.a, 145);
  EXPECT_EQ(r.z, 150);
  // S = 301, b = 2: 151 pooled cells, the last one a single cell.
  EXPECT_EQ(pooled_visible(301, 2, 0.0, 301.0).z, 151);
  EXPECT_EQ(pooled_visible(301, 2, -5.0, 400.0).a, 0);
  EXPECT_EQ(pooled_visible(301, 2, -5.0, 400.0).z, 151);
  // A view between cells touches both.
  const PooledRange s = pooled_visible(1000, 1, 10.5, 20.5);
  EXPECT_EQ(s.a, 10);
  EXPECT_EQ(s.z, 21);
}

TEST(MapZoom, WindowIsOnTheChunkGridSoSmallPansKeepIt) {
  const int S = 8192;
  const PooledRange v{100, 164};  // 64 pooled rows at block 1
  const PooledRange w = pooled_window(S, 1, v);
  EXPECT_EQ(w.a % kWindowChunk, 0);
  EXPECT_EQ(w.z % kWindowChunk, 0);
  EXPECT_LE(w.a, v.a - kWindowChunk / 2);
  EXPECT_GE(w.z, v.z + kWindowChunk / 2);
  // A pan of a few rows either way keeps the same window: nothing to fetch.
  for (int d = -4; d <= 4; ++d) {
    const PooledRange p = pooled_window(S, 1, PooledRange{v.a + d, v.z + d});
    EXPECT_EQ(p.a, w.a) << d;
    EXPECT_EQ(p.z, w.z) << d;
  }
  // Clipped at both ends of the map.
  const PooledRange edge = pooled_window(300, 2, PooledRange{0, 150});
  EXPECT_EQ(edge.a, 0);
  EXPECT_EQ(edge.z, 150);
}

TEST(MapZoom, TexelsShowMarksOnlyWhereTheWindowIsSmall) {
  EXPECT_EQ(overview_texels(384), 1);
  EXPECT_EQ(overview_texels(256), 1);
  EXPECT_EQ(overview_texels(64), 4);
  EXPECT_EQ(overview_texels(16), 8);
  EXPECT_EQ(overview_texels(0), 8);
}

}  // namespace
