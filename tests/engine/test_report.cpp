// The report object: keys, shapes, number format.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "attnviz/pipeline.h"
#include "attnviz/report.h"
#include "engine_test_util.h"

namespace {

using attnviz::Pipeline;
using attnviz::Stage;
using nlohmann::json;

float json_float(const json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    return s == "nan" ? NAN : (s == "inf" ? INFINITY : -INFINITY);
  }
  return static_cast<float>(v.get<double>());
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

TEST(Report, KeysFollowTheOptions) {
  Pipeline p;
  attnviz_test::run(&p, attnviz_test::state_from(R"({"qkv_bias": true, "out_proj": true, "out_bias": false,
    "d_out": 4, "num_heads": 2})"));
  const json r = attnviz::report_json(p);
  for (const char* k : {"tokens", "X", "W_q", "W_k", "W_v", "W_o", "b_q", "b_k", "b_v", "Q", "K", "V",
                        "heads", "concat", "output"}) {
    EXPECT_EQ(r.count(k), 1u) << k;
  }
  EXPECT_EQ(r.count("b_o"), 0u);
  EXPECT_EQ(r.size(), 15u);
  ASSERT_EQ(r["heads"].size(), 2u);
  EXPECT_EQ(r["heads"][1].size(), 6u);
  EXPECT_EQ(r["heads"][1]["context"][0].size(), 2u);  // head_dim
  EXPECT_TRUE(r["b_q"][0].is_number());                // vectors are flat
  EXPECT_EQ(r["W_o"].size(), 4u);
}

TEST(Report, EveryNumberGivesBackItsFloat32) {
  Pipeline p;
  attnviz_test::run(&p, attnviz_test::state_from(R"({"causal": true, "key_padding": [0, 1, 1, 1, 1],
    "dropout": {"p": 0.5, "training": true}})"));
  const json r = attnviz::report_json(p);
  // row 0 is fully masked: −inf scores, NaN weights
  EXPECT_EQ(r["heads"][0]["masked"][0][0], "-inf");
  EXPECT_EQ(r["heads"][0]["weights"][0][3], "nan");
  for (Stage s : {Stage::X, Stage::Q, Stage::output}) {
    const attnviz::Tensor& t = *p.matrix(s);
    for (int i = 0; i < t.rows; ++i) {
      for (int j = 0; j < t.cols; ++j) {
        EXPECT_TRUE(same_bits(json_float(r[attnviz::stage_name(s)][i][j]), t.at(i, j)));
      }
    }
  }
  const attnviz::Tensor& w = *p.matrix(Stage::weights, 0);
  for (int i = 0; i < w.rows; ++i) {
    for (int j = 0; j < w.cols; ++j) EXPECT_TRUE(same_bits(json_float(r["heads"][0]["weights"][i][j]), w.at(i, j)));
  }
}

TEST(Report, TextIsTheSameObjectInPipelineOrder) {
  Pipeline p;
  attnviz_test::run(&p, attnviz_test::state_from(R"({"out_proj": true, "qkv_bias": true})"));
  const std::string text = attnviz::report_text(p);
  EXPECT_EQ(json::parse(text), attnviz::report_json(p));
  EXPECT_EQ(text.rfind("{\"tokens\":", 0), 0u);
  EXPECT_LT(text.find("\"X\":"), text.find("\"W_q\":"));
  EXPECT_LT(text.find("\"b_o\":"), text.find("\"Q\":"));
  EXPECT_LT(text.find("\"heads\":"), text.find("\"concat\":"));
  EXPECT_LT(text.find("\"scores\":"), text.find("\"scaled\":"));
  // shortest round-trip decimals: W_q[0][0] = 0.29611194 (torch.rand, seed 123)
  EXPECT_NE(text.find("\"W_q\":[[0.29611194,"), std::string::npos);
  Pipeline empty;
  EXPECT_EQ(attnviz::report_text(empty), "{}");
}

}  // namespace
