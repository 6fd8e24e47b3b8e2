// test_heatmap_layout.cpp: the pure layout of a heatmap (heatmap_layout.h) and of the
// Stages flow (stage_flow.h), without a GPU or a font: text is measured by a fake
// font whose Latin characters are 8 px wide and CJK ones 15 px.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "app/widgets/heatmap_layout.h"
#include "app/panels/stage_flow.h"
#include "attnviz/variants.h"

namespace {
using namespace attnviz::ui;

float fake_measure(const char* b, const char* e, void*) {
  float w = 0;
  for (const char* p = b; p < e;) {
    unsigned char c = (unsigned char)*p;
    if (c < 0x80) { w += 8; p += 1; }
    else if ((c >> 4) == 0xE) { w += (c == 0xE2 ? 8 : 15); p += 3; }  // … is 8, Han 15
    else { w += 8; p += (c >> 5) == 0x6 ? 2 : 4; }
  }
  return w;
}

ValueStats weights_stats() {
  ValueStats s;
  s.any_finite = true;
  s.hi = s.maxabs = 0.61f;
  return s;
}

HeatmapLayoutIn square(int n, float w, float h) {
  HeatmapLayoutIn in;
  in.rows = in.cols = n;
  in.avail_w = w;
  in.avail_h = h;
  in.line_h = 15;
  in.value_char_w = 7.2f;
  in.value_h = 13;
  in.row_label_w = 48;  // "purred"
  in.col_label_w = 48;
  in.bar_h = 29;
  in.stats = weights_stats();
  return in;
}

std::string cell(float v, int d) {
  char b[48];
  format_cell(v, d, b, sizeof b);
  return b;
}

TEST(HeatmapLayout, FormatsLikePyTorchWithoutANegativeZero) {
  EXPECT_EQ(cell(0.17541f, 4), "0.1754");
  EXPECT_EQ(cell(-14.692f, 4), "-14.6920");
  EXPECT_EQ(cell(-0.00001f, 4), "0.0000");
  EXPECT_EQ(cell(-0.0f, 2), "0.00");
  EXPECT_EQ(cell(-0.004f, 2), "0.00");
  EXPECT_EQ(cell(-0.006f, 2), "-0.01");
  EXPECT_EQ(cell(-INFINITY, 4), "-inf");
  EXPECT_EQ(cell(NAN, 2), "nan");
  EXPECT_EQ(cell(123456.0f, 2), "1.23e+05");
}

TEST(HeatmapLayout, ValueWidthsAndTheTwoSignificantCharacterFloor) {
  ValueStats s = weights_stats();
  EXPECT_EQ(value_chars(s, 4), 6);  // 0.6100
  EXPECT_EQ(min_decimals(s), 2);    // 0.61
  s.negative = true;
  s.maxabs = 14.692f;
  EXPECT_EQ(value_chars(s, 4), 8);  // -14.6920
  EXPECT_EQ(min_decimals(s), 0);    // -15
  s.maxabs = 9.99996f;
  EXPECT_EQ(value_chars(s, 4), 8);  // rounds up to -10.0000
  s = ValueStats{};
  s.neg_inf = true;
  EXPECT_EQ(value_chars(s, 4), 4);  // -inf
}

TEST(HeatmapLayout, NineTokensInAGenerousBoxPrintFourDecimalsAndEveryLabel) {
  HeatmapLayoutIn in = square(9, 560, 420);
  HeatmapLayout L = heatmap_layout(in);
  HeatmapDetail d = heatmap_detail(in, L, L.cell_w, L.cell_h);
  EXPECT_EQ(d.decimals, 4);
  EXPECT_EQ(L.col_mode, ColLabelMode::horizontal);
  EXPECT_EQ(d.col_step, 1);
  EXPECT_EQ(d.row_step, 1);
  EXPECT_FALSE(L.scroll);
  EXPECT_LE(L.total_w, in.avail_w + 0.01f);
  EXPECT_LE(L.total_h, in.avail_h + 0.01f);
  EXPECT_GE(L.cell_w, 6 * 7.2f + 2);
}

// One-row maps stacked under each other (the Decode tab's scores, masked and weights
// rows) ask for one cell width so their columns line up and narrow values keep a gap.
TEST(HeatmapLayout, AMinimumCellWidthWidensARowUpToTheRoomThereIs) {
  HeatmapLayoutIn in = square(1, 900, 15 + 4 + 24);  // a label line over 24 px cells
  in.cols = 11;
  in.max_cell = 90;
  in.bar_h = 0;
  in.col_label_w = 30;  // "w10": narrower than the values
  HeatmapLayout natural = heatmap_layout(in);
  EXPECT_NEAR(natural.cell_w, 6 * 7.2f + 2 + 6, 0.01f) << "0.6100: its value's width and a gap";
  in.min_cell_w = 58;
  HeatmapLayout wide = heatmap_layout(in);
  EXPECT_NEAR(wide.cell_w, 58, 0.01f);
  EXPECT_EQ(heatmap_detail(in, wide, wide.cell_w, wide.cell_h).decimals, 4);
  in.avail_w = 11 * 50 + 54;  // room for 50 px cells beside the row label band
  HeatmapLayout tight = heatmap_layout(in);
  EXPECT_NEAR(tight.cell_w, 50, 0.01f) << "never wider than the room";
  EXPECT_LE(tight.total_w, in.avail_w + 0.01f);
}

TEST(HeatmapLayout, NeighbouringValuesGetAGapWhereThereIsRoomAndPrintTightWhereNot) {
  // A short, wide-open row: cells as tall as a line, as wide as "0.6100" and a gap,
  // so two neighbours never read as one number ("0.61000.6100").
  HeatmapLayoutIn in = square(1, 900, 15 + 4 + 20);
  in.cols = 5;
  in.bar_h = 0;
  in.col_label_w = 30;
  const float text = 6 * 7.2f + in.value_pad;
  HeatmapLayout open = heatmap_layout(in);
  EXPECT_GE(open.cell_w, text + 4) << "at least half a character between neighbours";
  EXPECT_NEAR(open.cell_w, text + in.value_gap, 0.01f);
  EXPECT_EQ(heatmap_detail(in, open, open.cell_w, open.cell_h).decimals, 4);
  // Room for the text and half the gap: the cells take what there is and still print
  // every decimal; the gap is wished, not needed.
  in.avail_w = 54 + 5 * (text + in.value_gap / 2);
  HeatmapLayout tight = heatmap_layout(in);
  EXPECT_NEAR(tight.cell_w, text + in.value_gap / 2, 0.01f);
  EXPECT_EQ(heatmap_detail(in, tight, tight.cell_w, tight.cell_h).decimals, 4);
}

TEST(HeatmapLayout, PrecisionDropsBeforeValuesVanish) {
  // 9 columns of 36 px: 0.6100 (46 px) does not fit, 0.61 (32 px) does.
  HeatmapLayoutIn in = square(9, 9 * 36 + 54, 0);
  HeatmapLayout L = heatmap_layout(in);
  HeatmapDetail d = heatmap_detail(in, L, L.cell_w, L.cell_h);
  EXPECT_EQ(d.decimals, 2);
  // Too narrow for two significant characters: no cell prints.
  d = heatmap_detail(in, L, 20, 20);
  EXPECT_EQ(d.decimals, -1);
  // Decimals 3 caps what would fit.
  in.decimals_max = 3;
  d = heatmap_detail(in, L, 60, 20);
  EXPECT_EQ(d.decimals, 3);
  // Too short for a line of digits: nothing prints either.
  d = heatmap_detail(in, L, 60, 10);
  EXPECT_EQ(d.decimals, -1);
}

TEST(HeatmapLayout, ColumnLabelsRotateBeforeThinning) {
  HeatmapLayoutIn in = square(12, 12 * 34 + 54, 0);  // 34 px columns: "purred" (48) does not fit across
  HeatmapLayout L = heatmap_layout(in);
  HeatmapDetail d = heatmap_detail(in, L, L.cell_w, L.cell_h);
  EXPECT_EQ(L.col_mode, ColLabelMode::rotated);
  EXPECT_EQ(d.col_step, 1);              // a line of text fits a column's width: every label
  EXPECT_NEAR(L.header_h, 48 + 6, 0.01f);  // as tall as the longest label
  // 64 tokens in 400 px: columns of ~5 px thin out evenly, every ceil(15/5)-th.
  in = square(64, 400, 0);
  L = heatmap_layout(in);
  d = heatmap_detail(in, L, L.cell_w, L.cell_h);
  EXPECT_EQ(L.col_mode, ColLabelMode::rotated);
  EXPECT_EQ(d.col_step, (int)std::ceil(15.0f / L.cell_w));
  EXPECT_EQ(d.row_step, (int)std::ceil(15.0f / L.cell_h));
}

TEST(HeatmapLayout, LongLabelsAreCappedAndEllipsizedWhole) {
  HeatmapLayoutIn in = square(5, 600, 0);
  in.row_label_w = in.col_label_w = 300;
  HeatmapLayout L = heatmap_layout(in);
  EXPECT_FLOAT_EQ(L.row_label_max, in.label_cap);
  char out[64];
  int n = ellipsize("internationalisation", 80, fake_measure, nullptr, out, sizeof out);
  EXPECT_STREQ(out, "internati\xE2\x80\xA6");  // 9 × 8 + 8 = 80 ≤ 80; 10 letters would be 88
  EXPECT_LE(fake_measure(out, out + n, nullptr), 80);
  // CJK characters are never cut in half, and a label that fits is drawn whole.
  n = ellipsize("\xE8\x87\xAA\xE7\x84\xB6", 30, fake_measure, nullptr, out, sizeof out);  // 自然: 30 px
  EXPECT_STREQ(out, "\xE8\x87\xAA\xE7\x84\xB6");
  n = ellipsize("\xE8\x87\xAA\xE7\x84\xB6\xE8\xAF\xAD", 40, fake_measure, nullptr, out, sizeof out);
  EXPECT_STREQ(out, "\xE8\x87\xAA\xE7\x84\xB6\xE2\x80\xA6");  // 自然… (38 ≤ 40; 自然语 is 45)
}

TEST(HeatmapLayout, HighlightedLabelIsDrawnAndItsThinnedNeighboursStepAside) {
  // step 3, highlight 7: 7 drawn; 6 and 9 would overlap it (within 3), 3 and 12 do not.
  EXPECT_TRUE(label_drawn(7, 3, 7));
  EXPECT_FALSE(label_drawn(6, 3, 7));
  EXPECT_FALSE(label_drawn(9, 3, 7));
  EXPECT_TRUE(label_drawn(3, 3, 7));
  EXPECT_TRUE(label_drawn(12, 3, 7));
  EXPECT_FALSE(label_drawn(4, 3, -1));
  for (int i = 0; i < 12; ++i) EXPECT_TRUE(label_drawn(i, 1, 5)) << i;  // no thinning: all drawn
}

TEST(HeatmapLayout, TallThinMapsKeepReadableColumnsAndScroll) {
  // context at 100 tokens, head_dim 4, in a 350 × 300 box: no slivers.
  HeatmapLayoutIn in = square(100, 350, 300);
  in.cols = 4;
  in.col_label_w = 8;
  HeatmapLayout L = heatmap_layout(in);
  EXPECT_GE(L.cell_w, 6 * 7.2f + 2);  // room for 0.6100
  EXPECT_GE(L.cell_h, in.min_cell_h);
  EXPECT_TRUE(L.scroll);
  EXPECT_LE(L.total_h, 300.5f);
  EXPECT_LT(L.view_h, L.grid_h);
}

TEST(HeatmapLayout, CellsAreNeverTallerThanWideNorWiderThanTheirTextNeeds) {
  HeatmapLayoutIn in = square(5, 1200, 200);  // wide box, short: cells limited by height
  HeatmapLayout L = heatmap_layout(in);
  EXPECT_LE(L.cell_w, std::max(6 * 7.2f + 2, 48.0f + 4) + 0.01f);  // 0.6100, or "purred" across
  EXPECT_GE(L.cell_w, L.cell_h);
  in = square(5, 200, 1200);  // tall box: square cells
  L = heatmap_layout(in);
  EXPECT_NEAR(L.cell_w, L.cell_h, 0.01f);
}

TEST(StageFlow, OperationsCarryTheirNumbers) {
  attnviz::State s;  // tutorial 000: head_dim 4, scaled by √4
  char b[200];
  flow_op(s, 2.0f, attnviz::Stage::scaled, b, sizeof b);
  EXPECT_STREQ(b, "\xC3\xB7 \xE2\x88\x9Ahead_dim = \xE2\x88\x9A" "4 = 2");
  s.temperature = 0.5;
  flow_op(s, 1.0f, attnviz::Stage::scaled, b, sizeof b);
  EXPECT_NE(std::string(b).find("temperature) = \xE2\x88\x9A" "4 \xC3\x97 0.5 = 1"), std::string::npos) << b;
  flow_op(s, 2.0f, attnviz::Stage::masked, b, sizeof b);
  EXPECT_STREQ(b, "no mask");
  EXPECT_STREQ(flow_identity(s, attnviz::Stage::masked), "no mask: same as scaled");
  s.causal = true;
  flow_op(s, 2.0f, attnviz::Stage::masked, b, sizeof b);
  EXPECT_STREQ(b, "masked_fill(j > i, \xE2\x88\x92inf)");
  EXPECT_STREQ(flow_identity(s, attnviz::Stage::masked), "");
  s.dropout.p = 0.5;
  s.dropout.training = false;
  EXPECT_STREQ(flow_identity(s, attnviz::Stage::dropped), "eval mode: identity, same as weights");
  s.dropout.training = true;
  flow_op(s, 2.0f, attnviz::Stage::dropped, b, sizeof b);
  EXPECT_STREQ(b, "dropout p = 0.5 (train): kept \xC3\x97 1/(1\xE2\x88\x92p) = 2");
  flow_op(s, 2.0f, attnviz::Stage::context, b, sizeof b);
  EXPECT_STREQ(b, "dropped \xC2\xB7 V_h");
  flow_torch(s, attnviz::Stage::weights, b, sizeof b);
  EXPECT_STREQ(b, "attn_weights = torch.softmax(attn_scores, dim=-1)");
}

TEST(StageFlow, TheLayoutGivesValuesRoomAndUsesTheWindow) {
  FlowIn in;
  in.square = square(9, 0, 0);
  in.w = 1550;  // Views at 1920×1080
  in.h = 960;
  FlowOut f = flow_layout(in);
  EXPECT_GE(f.decimals, 4);  // 9 tokens at 1920×1080: PyTorch's 4 decimals, all in view
  EXPECT_GT(f.box_h, 0);
  const int rows = (in.cards + f.cols - 1) / f.cols;
  EXPECT_LE(rows * f.box_h, in.h + 1);
  // 12 tokens at 1280×720: values still print (the tab may scroll).
  in.square = square(12, 0, 0);
  in.w = 960;
  in.h = 600;
  f = flow_layout(in);
  EXPECT_GE(f.decimals, 2);
  // 200 tokens: no values anywhere, the largest cells that stay in view.
  in.square = square(200, 0, 0);
  f = flow_layout(in);
  EXPECT_EQ(f.decimals, -1);
  EXPECT_GT(f.box_h, 0);
}

// Issue 36: above 256 tokens the S×S maps are overviews (map_zoom.h): every card's whole
// map stays in view at any length, where maps of 2,048 cells once took 4 px a row and a
// tab that scrolled for metres.
TEST(FlowLayout, OverviewsKeepEveryCardInView) {
  FlowIn in;
  in.head_dim = 8;
  in.w = 960;  // Views at 1280×720
  in.h = 600;
  for (int S : {300, 2048, 8192}) {
    in.square = square(S, 0, 0);
    in.overview = false;
    const FlowOut scrolled = flow_layout(in);
    in.overview = true;
    const FlowOut f = flow_layout(in);
    EXPECT_EQ(f.decimals, -1) << S;
    EXPECT_GT(f.box_h, 0) << S;
    const int rows = (in.cards + f.cols - 1) / f.cols;
    EXPECT_LE(rows * f.box_h, in.h + 1) << S << ": every card in view";
    EXPECT_GT(scrolled.box_h * (in.cards + scrolled.cols - 1) / scrolled.cols, in.h) << S << ": without, the tab scrolls";
  }
}

}  // namespace

namespace {
using attnviz::Stage;
using attnviz::State;

std::vector<Stage> cards_of(const State& s) {
  std::vector<Stage> v;
  for (int k = 0; k < attnviz::ui::flow_cards(s); ++k) v.push_back(attnviz::ui::flow_stage(s, k));
  return v;
}
}  // namespace

TEST(StageFlow, TheCardsAreQThenThePerHeadStagesOfTheTable) {
  // kFlowCardsMax: card 0 (Q, K, V) and every per-head stage of the table but k_rot,
  // which shares q_rot's card.
  int per_head = 0;
  for (int i = 0; i < attnviz::kStageCount; ++i) per_head += attnviz::stage_table()[i].per_head ? 1 : 0;
  EXPECT_EQ(attnviz::ui::kFlowCardsMax, per_head);
  State s;  // plain attention: the 7 cards of before issue 23
  const std::vector<Stage> plain = {Stage::Q,       Stage::scores,  Stage::scaled, Stage::masked,
                                    Stage::weights, Stage::dropped, Stage::context};
  EXPECT_EQ(cards_of(s), plain);
  // GQA and the window change what the cards say, not which cards there are.
  s.num_heads = 2;
  s.num_kv_heads = 1;
  s.window = 2;
  EXPECT_EQ(cards_of(s), plain);
}

TEST(StageFlow, RopeAddsOneCardForQRotAndKRot) {
  State s;
  s.positional = attnviz::Positional::rope;
  const std::vector<Stage> want = {Stage::Q,      Stage::q_rot,   Stage::scores,  Stage::scaled,
                                   Stage::masked, Stage::weights, Stage::dropped, Stage::context};
  EXPECT_EQ(cards_of(s), want);
  EXPECT_TRUE(attnviz::ui::stage_present(s, Stage::k_rot));
  EXPECT_FALSE(attnviz::ui::stage_present(s, Stage::bias));
  char b[300];
  flow_op(s, 2.0f, Stage::q_rot, b, sizeof b);
  EXPECT_STREQ(b, "rotate by position: \xCE\xB8 = p \xC2\xB7 10000^(\xE2\x88\x92" "2k/head_dim), pairs (k, k + head_dim/2) (rotate_half)");
  flow_op(s, 2.0f, Stage::scores, b, sizeof b);
  EXPECT_STREQ(b, "q_rot \xC2\xB7 k_rot\xE1\xB5\x80");
  s.rope.style = attnviz::RopeStyle::interleaved;
  s.rope.base = 500000;
  flow_op(s, 2.0f, Stage::q_rot, b, sizeof b);
  EXPECT_NE(std::string(b).find("500000^("), std::string::npos) << b;
  EXPECT_NE(std::string(b).find("(2k, 2k + 1) (interleaved)"), std::string::npos) << b;
  flow_torch(s, Stage::q_rot, b, sizeof b);
  EXPECT_NE(std::string(b).find("rotate_every_two(queries) * sin"), std::string::npos) << b;
  s.rope.style = attnviz::RopeStyle::half;
  flow_torch(s, Stage::k_rot, b, sizeof b);
  EXPECT_NE(std::string(b).find("queries * cos + rotate_half(queries) * sin"), std::string::npos) << b;
  stage_term(Stage::q_rot, 1, b, sizeof b);
  EXPECT_STREQ(b, "q_rot h1");
  stage_term(Stage::k_rot, 0, b, sizeof b);
  EXPECT_STREQ(b, "k_rot h0");
}

TEST(StageFlow, AlibiAddsTheBiasCardBeforeMasked) {
  State s;
  s.alibi = true;
  s.num_heads = 4;
  const std::vector<Stage> want = {Stage::Q,      Stage::scores,  Stage::scaled,  Stage::bias,
                                   Stage::masked, Stage::weights, Stage::dropped, Stage::context};
  EXPECT_EQ(cards_of(s), want);
  // get_slopes(4) = 2^-2, 2^-4, 2^-6, 2^-8; get_slopes(6) = get_slopes(4) + get_slopes(8)[0::2][:2].
  EXPECT_FLOAT_EQ(flow_alibi_slope(0, 4), 0.25f);
  EXPECT_FLOAT_EQ(flow_alibi_slope(3, 4), 1.0f / 256);
  EXPECT_FLOAT_EQ(flow_alibi_slope(4, 6), 0.5f);
  EXPECT_FLOAT_EQ(flow_alibi_slope(5, 6), 0.125f);
  for (int H : {1, 2, 3, 5, 6, 8, 12}) {
    const std::vector<float> want_slopes = attnviz::alibi_slopes(H);
    for (int h = 0; h < H; ++h) EXPECT_EQ(flow_alibi_slope(h, H), want_slopes[h]) << h << " of " << H;
  }
  char b[300];
  flow_op(s, 2.0f, Stage::bias, b, sizeof b, 0);
  EXPECT_STREQ(b, "+ ALiBi bias \xE2\x88\x92m_h\xC2\xB7|i \xE2\x88\x92 j|, m_h = 0.25");
  flow_op(s, 2.0f, Stage::bias, b, sizeof b, 1);
  EXPECT_STREQ(b, "+ ALiBi bias \xE2\x88\x92m_h\xC2\xB7|i \xE2\x88\x92 j|, m_h = 0.0625");
  flow_torch(s, Stage::bias, b, sizeof b);
  EXPECT_NE(std::string(b).find("attn_scores + slopes[h] * -(i - j).abs()"), std::string::npos) << b;
  // masked adds the bias: no longer "same as scaled" without a mask.
  flow_op(s, 2.0f, Stage::masked, b, sizeof b);
  EXPECT_STREQ(b, "scaled + bias");
  EXPECT_STREQ(flow_identity(s, Stage::masked), "");
  s.causal = true;
  flow_op(s, 2.0f, Stage::masked, b, sizeof b);
  EXPECT_STREQ(b, "+ bias, masked_fill(j > i, \xE2\x88\x92inf)");
  stage_term(Stage::bias, 2, b, sizeof b);
  EXPECT_STREQ(b, "bias h2");
}

TEST(StageFlow, GqaNamesTheKvHeadEachQueryHeadReads) {
  State s;
  s.num_heads = 4;
  s.num_kv_heads = 2;
  char b[300];
  flow_op(s, 2.0f, Stage::scores, b, sizeof b, 3);
  EXPECT_STREQ(b, "Q_h \xC2\xB7 K_g\xE1\xB5\x80, K/V head g = h / (H/G) = 3 / (4/2) = 1");
  flow_op(s, 2.0f, Stage::Q, b, sizeof b, 1);
  EXPECT_STREQ(b, "X \xC2\xB7 W_q, W_k, W_v: this head's columns of Q, K/V head 0's of K and V");
  flow_torch(s, Stage::scores, b, sizeof b);
  EXPECT_NE(std::string(b).find("repeat_interleave(num_heads // num_kv_heads"), std::string::npos) << b;
  flow_op(s, 2.0f, Stage::context, b, sizeof b, 3);
  EXPECT_STREQ(b, "weights \xC2\xB7 V_g");
  s.num_kv_heads = 1;  // MQA: every head reads K/V head 0
  flow_op(s, 2.0f, Stage::scores, b, sizeof b, 3);
  EXPECT_STREQ(b, "Q_h \xC2\xB7 K_g\xE1\xB5\x80, K/V head g = h / (H/G) = 3 / (4/1) = 0");
  s.num_kv_heads = 0;  // MHA: as before
  flow_op(s, 2.0f, Stage::scores, b, sizeof b, 3);
  EXPECT_STREQ(b, "Q_h \xC2\xB7 K_h\xE1\xB5\x80");
}

TEST(StageFlow, TheWindowJoinsTheMasksRule) {
  State s;
  s.window = 3;
  char b[300];
  flow_op(s, 2.0f, Stage::masked, b, sizeof b);
  EXPECT_STREQ(b, "masked_fill(|i \xE2\x88\x92 j| \xE2\x89\xA5 3, \xE2\x88\x92inf)");
  EXPECT_STREQ(flow_identity(s, Stage::masked), "");
  s.causal = true;
  flow_op(s, 2.0f, Stage::masked, b, sizeof b);
  EXPECT_STREQ(b, "masked_fill(j > i or i \xE2\x88\x92 j \xE2\x89\xA5 3, \xE2\x88\x92inf)");
  flow_torch(s, Stage::masked, b, sizeof b);
  EXPECT_NE(std::string(b).find("(j > i) | (i - j >= sliding_window)  # sliding_window = 3"), std::string::npos) << b;
  s.key_padding = {1, 1, 1, 1, 0};
  flow_op(s, 2.0f, Stage::masked, b, sizeof b);
  EXPECT_STREQ(b, "masked_fill(j > i or key j padded or i \xE2\x88\x92 j \xE2\x89\xA5 3, \xE2\x88\x92inf)");
}

TEST(StageFlow, MoreCardsStillFitTheWindow) {
  FlowIn in;
  in.square = square(9, 0, 0);
  in.w = 1550;
  in.h = 960;
  in.cards = 9;  // RoPE and ALiBi
  FlowOut f = flow_layout(in);
  EXPECT_GE(f.decimals, 2);
  EXPECT_GT(f.box_h, 0);
  const int rows = (in.cards + f.cols - 1) / f.cols;
  EXPECT_LE(rows * f.box_h, in.h + 1);
}
