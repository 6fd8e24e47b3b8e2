// Weight files written by PyTorch and numpy themselves (tests/engine/make_weights.py),
// read back through the scanner, the mapping and to_float32, and an
// nn.MultiheadAttention imported into a state computing what the module computes.
//
// The files are generated into the build tree by the ctest fixture
// `weights_files_generate`, which runs the script with Debian's /usr/bin/python3;
// the test `engine_weights_files` then runs these tests with ATTNVIZ_WEIGHTS_DIR
// set. Without that variable (a plain engine_tests run, the wasm build under
// node) they are skipped.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "attnviz/pipeline.h"
#include "attnviz/weights_file.h"
#include "attnviz/weights_map.h"
#include "weights_test_util.h"

#ifdef ATTNVIZ_TEST_ZLIB
#include <zlib.h>
#endif

namespace {

using namespace attnviz;
using namespace attnviz::weights;
using nlohmann::json;

std::string dir() {
  const char* d = std::getenv("ATTNVIZ_WEIGHTS_DIR");
  return d ? d : "";
}

#define NEED_FILES()                                                                            \
  if (dir().empty()) GTEST_SKIP() << "ATTNVIZ_WEIGHTS_DIR not set (ctest engine_weights_files sets it)"

std::string slurp(const std::string& name) {
  std::ifstream f(dir() + "/" + name, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// Raw inflate with zlib (what the desktop app uses), when the test build has it.
InflateFn inflater() {
#ifdef ATTNVIZ_TEST_ZLIB
  return [](std::string_view in, uint64_t limit, std::string* out) {
    z_stream z{};
    if (inflateInit2(&z, -15) != Z_OK) return false;
    out->assign(limit, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    z.next_out = reinterpret_cast<Bytef*>(&(*out)[0]);
    z.avail_out = static_cast<uInt>(limit);
    const int rc = inflate(&z, Z_SYNC_FLUSH);
    out->resize(limit - z.avail_out);
    inflateEnd(&z);
    return rc == Z_OK || rc == Z_STREAM_END || (rc == Z_BUF_ERROR && out->size() == limit);
  };
#else
  return {};
#endif
}

struct Loaded {
  std::vector<TensorInfo> tensors;
  std::vector<std::vector<float>> data;
  Error error;
};

// Scans a file and converts the tensors the mapping needs.
Loaded load(const std::string& file, const std::string& name, const Mapping& m) {
  Loaded l;
  Scanner s(file.size(), name);
  scan_all(s, attnviz::testing::memory_reader(file), inflater());
  l.error = s.error();
  if (!l.error.ok()) return l;
  l.tensors = s.tensors();
  l.data.resize(l.tensors.size());
  for (int i : mapping_tensors(m)) {
    std::string bytes;
    EXPECT_TRUE(read_range(l.tensors[i].data, attnviz::testing::memory_reader(file), inflater(), &bytes));
    l.error = to_float32(l.tensors[i], bytes, &l.data[i]);
    if (!l.error.ok()) return l;
  }
  return l;
}

std::vector<TensorInfo> scan(const std::string& file, const std::string& name) {
  Scanner s(file.size(), name);
  scan_all(s, attnviz::testing::memory_reader(file), inflater());
  EXPECT_TRUE(s.error().ok()) << name << ": " << problem_name(s.error().code);
  return s.tensors();
}

// Imports layer 1 of the two nn.MultiheadAttention layers and runs the pipeline
// on the module's input; compares with the module's own forward.
void check_mha(const std::string& file_name) {
  const std::string file = slurp(file_name);
  ASSERT_FALSE(file.empty()) << file_name;
  const json ref = json::parse(slurp("mha.json"));
  const auto listed = scan(file, file_name);
  ASSERT_EQ(layer_prefixes(listed), (std::vector<std::string>{"layers.0.self_attn.", "layers.1.self_attn."}));
  const Mapping m = propose_mapping(listed, "layers.1.self_attn.");
  ASSERT_EQ(m.family, "in_proj");
  Loaded l = load(file, file_name, m);
  ASSERT_TRUE(l.error.ok()) << problem_name(l.error.code);

  State base;
  base.tokens = ref["tokens"].get<std::vector<std::string>>();
  base.d_model = 8;
  base.embedding.init = EmbeddingInit::values;
  base.embedding.values = Tensor(5, 8);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 8; ++j) base.embedding.values.mut().at(i, j) = ref["X"][i][j].get<float>();
  base.num_heads = 2;
  State st;
  const Error e = apply_mapping(m, l.tensors, l.data, base, default_heads(base.num_heads, 8), &st);
  ASSERT_TRUE(e.ok()) << problem_name(e.code);
  EXPECT_EQ(st.tokens, base.tokens);
  EXPECT_EQ(st.num_heads, 2);
  EXPECT_TRUE(st.qkv_bias && st.out_proj && st.out_bias);

  Pipeline p;
  ASSERT_TRUE(p.set_state(st).ok);
  // Tolerance and why: nn.MultiheadAttention computes the same products, but
  // (a) it divides q by √head_dim before q·kᵀ where the engine divides the
  // scores after, (b) its sgemm uses fused multiply-adds and another summation
  // order. Each is a float32 rounding (relative 2^-24 ≈ 6e-8) per operation;
  // along the chain (8-term projections, 4-term scores, softmax, 5-term
  // context, 8-term output) with values of order 1, the differences seen are
  // below 1e-6; 1e-5 · (1 + |value|) leaves a wide margin while a wrong
  // transposition, split or bias (errors of order 0.1 … 1) cannot pass.
  auto close = [](float got, double want) { return std::fabs(got - want) <= 1e-5 * (1 + std::fabs(want)); };
  const Tensor* out = p.matrix(Stage::output, 0);
  ASSERT_NE(out, nullptr);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 8; ++j)
      EXPECT_PRED2(close, out->at(i, j), ref["output"][i][j].get<double>()) << "output " << i << "," << j;
  for (int h = 0; h < 2; ++h) {
    const Tensor* w = p.matrix(Stage::weights, h);
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j)
        EXPECT_PRED2(close, w->at(i, j), ref["weights"][h][i][j].get<double>()) << "weights h" << h << " " << i << "," << j;
  }
}

TEST(WeightsFiles, MultiheadAttentionFromSafetensorsComputesTheModulesForward) {
  NEED_FILES();
  check_mha("mha.safetensors");
}

TEST(WeightsFiles, MultiheadAttentionFromNpz) {
  NEED_FILES();
  check_mha("mha.npz");
}

TEST(WeightsFiles, MultiheadAttentionFromCompressedNpz) {
  NEED_FILES();
#ifndef ATTNVIZ_TEST_ZLIB
  GTEST_SKIP() << "no zlib in this build";
#endif
  check_mha("mha_compressed.npz");
}

TEST(WeightsFiles, TheInt64BufferIsListedButNotReadable) {
  NEED_FILES();
  const auto ts = scan(slurp("mha.safetensors"), "mha.safetensors");
  bool seen = false;
  for (const auto& t : ts) {
    if (t.name != "layers.0.position_ids") continue;
    seen = true;
    EXPECT_EQ(t.type, DType::unsupported);
    EXPECT_EQ(t.dtype, "I64");
  }
  EXPECT_TRUE(seen);
}

TEST(WeightsFiles, Float16Bfloat16AndFloat64AsTorchConvertsThem) {
  NEED_FILES();
  const std::string file = slurp("halves.safetensors");
  const json ref = json::parse(slurp("halves.json"));
  const auto ts = scan(file, "halves.safetensors");
  ASSERT_EQ(ts.size(), 3u);
  for (const auto& t : ts) {
    std::vector<float> v;
    ASSERT_TRUE(to_float32(t, file.substr(t.data.offset, t.data.length), &v).ok()) << t.name;
    const auto& want = ref[t.name];
    ASSERT_EQ(v.size(), want.size());
    for (size_t i = 0; i < v.size(); ++i) {
      EXPECT_EQ(v[i], want[i].get<float>()) << t.name << "[" << i << "]";  // exact: the same float32
      EXPECT_EQ(std::signbit(v[i]), std::signbit(want[i].get<double>())) << t.name << "[" << i << "]";
    }
  }
}

TEST(WeightsFiles, Gpt2Conv1DLayers) {
  NEED_FILES();
  const std::string file = slurp("gpt2.safetensors");
  const auto ts = scan(file, "gpt2.safetensors");
  ASSERT_EQ(layer_prefixes(ts), (std::vector<std::string>{"transformer.h.0.attn.", "transformer.h.1.attn."}));
  const Mapping m = propose_mapping(ts, "transformer.h.1.attn.");
  Loaded l = load(file, "gpt2.safetensors", m);
  ASSERT_TRUE(l.error.ok());
  State st;
  ASSERT_TRUE(apply_mapping(m, l.tensors, l.data, State(), 3, &st).ok());
  EXPECT_EQ(st.d_model, 6);
  EXPECT_EQ(st.d_out, 6);
  // W_k = c_attn.weight[:, 6:12] as stored (Conv1D is x·W already).
  const int ca = m[Role::W_k].tensor;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) EXPECT_EQ(st.weights.W_k.at(i, j), l.data[ca][i * 18 + 6 + j]);
}

// A Llama-style checkpoint with grouped-query K/V heads (num_key_value_heads 2 of 4):
// k_proj and v_proj are (4, 8) in the file. Imported with 4 heads, the state has 2
// K/V heads and computes what the module computes (repeat_kv, no RoPE).
TEST(WeightsFiles, LlamaGqaComputesTheModulesForward) {
  NEED_FILES();
  const std::string file = slurp("llama_gqa.safetensors");
  ASSERT_FALSE(file.empty());
  const json ref = json::parse(slurp("llama_gqa.json"));
  const auto listed = scan(file, "llama_gqa.safetensors");
  ASSERT_EQ(layer_prefixes(listed), (std::vector<std::string>{"model.layers.0.self_attn.", "model.layers.1.self_attn."}));
  const Mapping m = propose_mapping(listed);
  ASSERT_EQ(m.family, "q_proj");
  Loaded l = load(file, "llama_gqa.safetensors", m);
  ASSERT_TRUE(l.error.ok()) << problem_name(l.error.code);
  State base;
  base.tokens = ref["tokens"].get<std::vector<std::string>>();
  base.d_model = 8;
  base.embedding.init = EmbeddingInit::values;
  base.embedding.values = Tensor(5, 8);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 8; ++j) base.embedding.values.mut().at(i, j) = ref["X"][i][j].get<float>();
  base.num_heads = 4;
  State st;
  const Error e = apply_mapping(m, l.tensors, l.data, base, 4, &st);
  ASSERT_TRUE(e.ok()) << problem_name(e.code);
  EXPECT_EQ(st.num_heads, 4);
  EXPECT_EQ(st.num_kv_heads, ref["num_kv_heads"].get<int>());
  EXPECT_FALSE(st.qkv_bias);
  EXPECT_TRUE(st.out_proj);
  Pipeline p;
  ASSERT_TRUE(p.set_state(st).ok);
  // The same tolerance as check_mha, for the same reasons.
  auto close = [](float got, double want) { return std::fabs(got - want) <= 1e-5 * (1 + std::fabs(want)); };
  const Tensor* out = p.matrix(Stage::output, 0);
  ASSERT_NE(out, nullptr);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 8; ++j)
      EXPECT_PRED2(close, out->at(i, j), ref["output"][i][j].get<double>()) << "output " << i << "," << j;
  for (int h = 0; h < 4; ++h) {
    const Tensor* w = p.matrix(Stage::weights, h);
    ASSERT_NE(w, nullptr);
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j)
        EXPECT_PRED2(close, w->at(i, j), ref["weights"][h][i][j].get<double>()) << "weights h" << h << " " << i << "," << j;
  }
}

TEST(WeightsFiles, NpyFilesBigEndianFloat64AndFortranOrder) {
  NEED_FILES();
  const std::string file = slurp("W_query.npy");
  const auto ts = scan(file, "W_query.npy");
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_EQ(ts[0].name, "W_query");
  EXPECT_EQ(ts[0].dtype, ">f8");
  std::vector<float> v;
  ASSERT_TRUE(to_float32(ts[0], file.substr(ts[0].data.offset, ts[0].data.length), &v).ok());
  for (int i = 0; i < 12; ++i) EXPECT_EQ(v[i], i / 8.0f);
  const std::string f = slurp("fortran.npy");
  EXPECT_EQ(attnviz::testing::scan_bytes(f, "fortran.npy").error().code, Problem::npy_fortran_order);
}

}  // namespace
