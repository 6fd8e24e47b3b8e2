// test_torch_print.cpp: attnviz::torch_repr against PyTorch's own repr, byte for byte:
// every case of tests/engine/data/torch_print.json (tests/fixtures/torch_print.py, Debian's
// python3-torch 1.13) and a few hand-written ones typed from PyTorch's output.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnviz/torch_print.h"

namespace {

using attnviz::torch_repr;
using attnviz::TorchPrintOptions;
using json = nlohmann::json;

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A fixture value: the shortest decimal of a float32 (read as a double, then rounded
// to float, which gives back the exact float32), or "nan", "inf", "-inf".
float fixture_value(const json& v) {
  if (v.is_number()) return static_cast<float>(v.get<double>());
  const std::string s = v.get<std::string>();
  if (s == "nan") return std::numeric_limits<float>::quiet_NaN();
  return s == "inf" ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
}

TorchPrintOptions fixture_options(const json& c) {
  TorchPrintOptions o;
  if (!c.contains("options")) return o;
  const json& j = c.at("options");
  o.precision = j.value("precision", o.precision);
  o.linewidth = j.value("linewidth", o.linewidth);
  o.threshold = j.value("threshold", o.threshold);
  o.edgeitems = j.value("edgeitems", o.edgeitems);
  return o;
}

TEST(TorchPrint, MatchesPyTorchOnEveryFixtureCase) {
  const json doc = json::parse(read_text("tests/engine/data/torch_print.json"));
  const json& cases = doc.at("cases");
  ASSERT_GE(cases.size(), 60u);
  for (const json& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    std::vector<float> values;
    for (const json& v : c.at("values")) values.push_back(fixture_value(v));
    const std::vector<int> shape = c.at("shape").get<std::vector<int>>();
    const std::vector<std::string> suffixes = c.at("suffixes").get<std::vector<std::string>>();
    // size= is the printer's own suffix for empty tensors: pass only the caller's ones.
    std::vector<std::string> given;
    for (const std::string& s : suffixes)
      if (s.rfind("size=", 0) != 0) given.push_back(s);
    const std::string got = torch_repr(values.data(), shape, given, fixture_options(c));
    EXPECT_EQ(got, c.at("repr").get<std::string>()) << "case " << name << " (" << c.at("about").get<std::string>() << ")";
  }
}

// Tutorial 000's X (the embedding rows), as PyTorch prints it with its grad_fn.
TEST(TorchPrint, TutorialEmbeddingRows) {
  const std::vector<float> x = {0.3374f, -0.1778f, -0.3035f, -0.5880f, 1.5810f, 1.3010f, 1.2753f,
                                -0.2010f, -0.1606f, -0.4015f, 0.6957f, -1.8061f, -1.1589f, 0.3255f,
                                -0.6315f, -2.8400f, -0.7849f, -1.4096f, -0.4076f, 0.7953f};
  EXPECT_EQ(torch_repr(x.data(), {5, 4}, {"grad_fn=<EmbeddingBackward0>"}),
            "tensor([[ 0.3374, -0.1778, -0.3035, -0.5880],\n"
            "        [ 1.5810,  1.3010,  1.2753, -0.2010],\n"
            "        [-0.1606, -0.4015,  0.6957, -1.8061],\n"
            "        [-1.1589,  0.3255, -0.6315, -2.8400],\n"
            "        [-0.7849, -1.4096, -0.4076,  0.7953]], grad_fn=<EmbeddingBackward0>)");
}

TEST(TorchPrint, SmallHandWrittenCases) {
  const float ints[] = {1, 2, 3};
  EXPECT_EQ(torch_repr(ints, {3}), "tensor([1., 2., 3.])");
  const float half = 0.5f;
  EXPECT_EQ(torch_repr(&half, {}), "tensor(0.5000)");
  const float tiny[] = {1e-5f, 1.0f};
  EXPECT_EQ(torch_repr(tiny, {2}), "tensor([1.0000e-05, 1.0000e+00])");
  const float masked[] = {0.25f, -std::numeric_limits<float>::infinity(), 0.5f, -0.125f};
  EXPECT_EQ(torch_repr(masked, {2, 2}), "tensor([[ 0.2500,    -inf],\n        [ 0.5000, -0.1250]])");
  const float cube[] = {1.5f, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(torch_repr(cube, {2, 2, 2}),
            "tensor([[[1.5000, 2.0000],\n         [3.0000, 4.0000]],\n\n"
            "        [[5.0000, 6.0000],\n         [7.0000, 8.0000]]])");
  const float neg_zero[] = {-0.0f, 2.0f};
  EXPECT_EQ(torch_repr(neg_zero, {2}), "tensor([-0., 2.])");
  const float zeros[] = {0, 0};
  EXPECT_EQ(torch_repr(zeros, {2}, {"requires_grad=True"}), "tensor([0., 0.], requires_grad=True)");
}

}  // namespace
