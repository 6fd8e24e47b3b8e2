// Trained weights in (weights_file.h, weights_map.h): the readers on files
// built in memory, every refusal, dtype conversion, and the mapping proposals
// for each naming family. Files written by PyTorch / numpy themselves are in
// test_weights_files.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "attnviz/weights_file.h"
#include "attnviz/weights_map.h"
#include "weights_test_util.h"

namespace {

using namespace attnviz;
using namespace attnviz::weights;
using namespace attnviz::testing;

std::vector<float> iota(size_t n, float start = 0.0f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

// A tensor list with these names and shapes (float32), for the mapping tests.
std::vector<TensorInfo> listing(const std::vector<std::pair<std::string, std::vector<uint64_t>>>& ts) {
  std::vector<TensorInfo> v;
  for (const auto& [n, s] : ts) {
    TensorInfo t;
    t.name = n;
    t.dtype = "F32";
    t.type = DType::f32;
    t.shape = s;
    v.push_back(t);
  }
  return v;
}

int index_of(const std::vector<TensorInfo>& ts, const std::string& name) {
  for (size_t i = 0; i < ts.size(); ++i) if (ts[i].name == name) return static_cast<int>(i);
  return -1;
}

Problem scan_problem(const std::string& file, const std::string& name = "x.safetensors") {
  return scan_bytes(file, name).error().code;
}

// --- safetensors

TEST(WeightsSafetensors, ListsTensorsWithDtypeShapeAndByteRange) {
  const std::string f = safetensors_f32({{"a.weight", {2, 3}, iota(6)}, {"a.bias", {3}, iota(3, 10)}});
  Scanner s = scan_bytes(f);
  ASSERT_TRUE(s.error().ok()) << problem_name(s.error().code);
  EXPECT_EQ(s.format(), Format::safetensors);
  ASSERT_EQ(s.tensors().size(), 2u);
  const TensorInfo& a = s.tensors()[0];  // in file order
  EXPECT_EQ(a.name, "a.weight");
  EXPECT_EQ(a.type, DType::f32);
  EXPECT_EQ(a.shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(shape_text(a.shape), "(2, 3)");
  std::vector<float> v;
  ASSERT_TRUE(to_float32(a, f.substr(a.data.offset, a.data.length), &v).ok());
  EXPECT_EQ(v, iota(6));
  const TensorInfo& b = s.tensors()[1];
  ASSERT_TRUE(to_float32(b, f.substr(b.data.offset, b.data.length), &v).ok());
  EXPECT_EQ(v, iota(3, 10));
  EXPECT_EQ(shape_text(b.shape), "(3,)");
}

TEST(WeightsSafetensors, ReadsOnlyTheHeaderNotTheData) {
  // 4 MB of data; the scan reads the first 64 KiB (which hold the header) and nothing else.
  const std::string f = safetensors_f32({{"big", {1024, 1024}, std::vector<float>(1024 * 1024, 0.5f)}});
  int reads = 0;
  uint64_t bytes = 0;
  Scanner s(f.size(), "big.safetensors");
  scan_all(s, memory_reader(f, &reads, &bytes), {});
  ASSERT_TRUE(s.error().ok());
  EXPECT_EQ(reads, 1);
  EXPECT_EQ(bytes, ScanLimits::kFirstRead);
}

TEST(WeightsSafetensors, AHeaderLongerThanTheFirstReadTakesASecondRead) {
  std::vector<StTensor> ts;
  for (int i = 0; i < 2000; ++i) ts.push_back({"model.layers." + std::to_string(i) + ".self_attn.q_proj.weight", {1, 1}, {1.0f}});
  const std::string f = safetensors_f32(ts);
  ASSERT_GT(f.size(), ScanLimits::kFirstRead);
  int reads = 0;
  Scanner s(f.size(), "long.safetensors");
  scan_all(s, memory_reader(f, &reads), {});
  ASSERT_TRUE(s.error().ok()) << problem_name(s.error().code);
  EXPECT_EQ(reads, 2);
  EXPECT_EQ(s.tensors().size(), 2000u);
}

TEST(WeightsSafetensors, RefusalsAreCodesWithValues) {
  const std::string good = safetensors_f32({{"w", {2, 2}, iota(4)}});
  // Truncated: the header says more than the file has.
  Scanner t = scan_bytes(good.substr(0, 20));
  EXPECT_EQ(t.error().code, Problem::truncated);
  ASSERT_EQ(t.error().values.size(), 3u);
  EXPECT_EQ(t.error().values[2], "20");
  // Not JSON (a cut in the middle of the header, with the length patched to fit).
  std::string header = "{\"w\":{\"dtype\":\"F32\"";
  EXPECT_EQ(scan_problem(safetensors(header, "")), Problem::header_not_json);
  {  // the engine's refusal behind the sentence, with its code (an interface words it)
    const weights::Error e = scan_bytes(safetensors(header, ""), "x.safetensors").error();
    ASSERT_EQ(e.values.size(), 1u);
    EXPECT_FALSE(e.refusal.ok);
    EXPECT_EQ(e.refusal.error, e.values[0]);
    EXPECT_FALSE(e.refusal.code.empty());
  }
  EXPECT_EQ(scan_problem(safetensors("[1,2]", "")), Problem::unknown_format);  // no '{' at byte 8
  EXPECT_EQ(scan_problem(safetensors("{\"w\":3}", "")), Problem::header_bad_entry);
  EXPECT_EQ(scan_problem(safetensors("{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", "1234")),
            Problem::offsets_past_end);
  EXPECT_EQ(scan_problem(safetensors("{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}", "1234")),
            Problem::size_mismatch);
  EXPECT_EQ(scan_problem(safetensors("{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}}", "12345678")),
            Problem::header_bad_entry);
  EXPECT_EQ(scan_problem(safetensors("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                                     "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
                                     std::string(12, '\0'))),
            Problem::offsets_overlap);
  EXPECT_EQ(scan_problem(safetensors("{\"__metadata__\":{}}", "")), Problem::no_tensors);
  EXPECT_EQ(scan_problem(safetensors("{\"w\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,0]}}", "")),
            Problem::header_bad_entry);
  // Over 100 MB of header: refused from the length alone, before anything else is read.
  std::string huge = le(ScanLimits::kMaxHeaderBytes + 1, 8) + "{";
  Scanner h(uint64_t{1} << 33, "huge.safetensors");
  ByteRange r;
  ASSERT_TRUE(h.next(&r));
  h.feed(huge + std::string(r.length - huge.size(), ' '));
  EXPECT_EQ(h.error().code, Problem::header_too_large);
  EXPECT_FALSE(h.next(&r));
  EXPECT_EQ(scan_problem(""), Problem::file_empty);
  EXPECT_EQ(scan_problem("hello world, this is text"), Problem::unknown_format);
}

TEST(WeightsSafetensors, UnreadDtypesAreListedAndRefusedWhenConverted) {
  const std::string f = safetensors("{\"ids\":{\"dtype\":\"I64\",\"shape\":[2],\"data_offsets\":[0,16]},"
                                    "\"odd\":{\"dtype\":\"Q4\",\"shape\":[3],\"data_offsets\":[16,17]}}",
                                    std::string(17, '\0'));
  Scanner s = scan_bytes(f);
  ASSERT_TRUE(s.error().ok()) << problem_name(s.error().code);
  ASSERT_EQ(s.tensors().size(), 2u);
  EXPECT_EQ(s.tensors()[0].type, DType::unsupported);
  std::vector<float> v;
  Error e = to_float32(s.tensors()[0], std::string(16, '\0'), &v);
  EXPECT_EQ(e.code, Problem::dtype_unsupported);
  EXPECT_EQ(e.values, (std::vector<std::string>{"ids", "I64"}));
}

// --- dtype conversion

TEST(WeightsDtypes, HalfAndBfloat16ConvertExactly) {
  EXPECT_EQ(half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_to_float(0xC000), -2.0f);
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0f, -14));  // smallest normal
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(half_to_float(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(half_to_float(0x2E66), 0.0999755859375f);       // 0.1 in float16
  EXPECT_TRUE(std::signbit(half_to_float(0x8000)));
  EXPECT_TRUE(std::isinf(half_to_float(0x7C00)));
  EXPECT_TRUE(std::isnan(half_to_float(0x7E00)));
  EXPECT_EQ(bfloat16_to_float(0x3F80), 1.0f);
  EXPECT_EQ(bfloat16_to_float(0x4049), 3.140625f);
  EXPECT_EQ(bfloat16_to_float(0x3DCD), 0.10009765625f);
  EXPECT_EQ(bfloat16_to_float(0x0001), std::ldexp(1.0f, -133));
  // Every float16 converts to the float32 with the same value (checked both ways).
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = half_to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    const int e = (h >> 10) & 31, m = h & 1023;
    const double want = (h >> 15 ? -1 : 1) * (e == 0 ? std::ldexp(m, -24) : e == 31 ? INFINITY : std::ldexp(1024 + m, e - 25));
    ASSERT_EQ(static_cast<double>(f), want) << h;
  }
}

TEST(WeightsDtypes, ConvertsEachDtypeAndRefusesNonFinite) {
  TensorInfo t;
  t.name = "t";
  t.shape = {2};
  t.type = DType::f16;
  t.dtype = "F16";
  std::vector<float> v;
  ASSERT_TRUE(to_float32(t, le(0x3C00, 2) + le(0xC000, 2), &v).ok());
  EXPECT_EQ(v, (std::vector<float>{1.0f, -2.0f}));
  t.type = DType::bf16;
  ASSERT_TRUE(to_float32(t, le(0x3F80, 2) + le(0x4049, 2), &v).ok());
  EXPECT_EQ(v, (std::vector<float>{1.0f, 3.140625f}));
  t.type = DType::f64;
  double d[2] = {0.1, -1e-300};
  ASSERT_TRUE(to_float32(t, std::string(reinterpret_cast<const char*>(d), 16), &v).ok());
  EXPECT_EQ(v[0], 0.1f);
  EXPECT_EQ(v[1], -0.0f);
  d[1] = 1e300;  // past float32's range
  Error e = to_float32(t, std::string(reinterpret_cast<const char*>(d), 16), &v);
  EXPECT_EQ(e.code, Problem::value_not_finite);
  EXPECT_EQ(e.values[1], "1");
  t.type = DType::f16;
  EXPECT_EQ(to_float32(t, le(0x3C00, 2) + le(0x7C00, 2), &v).code, Problem::value_not_finite);
  EXPECT_EQ(to_float32(t, le(0x3C00, 2), &v).code, Problem::size_mismatch);
  t.type = DType::f32;
  t.big_endian = true;
  const std::string be("\x3f\x80\x00\x00\xc0\x00\x00\x00", 8);
  ASSERT_TRUE(to_float32(t, be, &v).ok());
  EXPECT_EQ(v, (std::vector<float>{1.0f, -2.0f}));
}

// --- .npy and .npz

TEST(WeightsNpy, ReadsAnNpyFile) {
  const std::string f = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", f32_bytes(iota(6)));
  Scanner s = scan_bytes(f, "dir/W_query.npy");
  ASSERT_TRUE(s.error().ok()) << problem_name(s.error().code);
  EXPECT_EQ(s.format(), Format::npy);
  ASSERT_EQ(s.tensors().size(), 1u);
  const TensorInfo& t = s.tensors()[0];
  EXPECT_EQ(t.name, "W_query");
  EXPECT_EQ(t.shape, (std::vector<uint64_t>{2, 3}));
  std::vector<float> v;
  ASSERT_TRUE(to_float32(t, f.substr(t.data.offset, t.data.length), &v).ok());
  EXPECT_EQ(v, iota(6));
}

TEST(WeightsNpy, Refusals) {
  const std::string six = f32_bytes(iota(6));
  EXPECT_EQ(scan_problem(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", six), "a.npy"),
            Problem::npy_fortran_order);
  EXPECT_EQ(scan_problem(npy("{'descr': 'what', 'fortran_order': False, 'shape': (2, 3), }", six), "a.npy"),
            Problem::npy_unknown_descr);
  EXPECT_EQ(scan_problem(npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (6,), }", six), "a.npy"),
            Problem::npy_unknown_descr);
  EXPECT_EQ(scan_problem(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }", six), "a.npy"),
            Problem::size_mismatch);
  EXPECT_EQ(scan_problem(npy("{'descr': '<f4', 'shape': (2, 3), }", six), "a.npy"), Problem::npy_bad_header);
  EXPECT_EQ(scan_problem(npy("not a dict", six), "a.npy"), Problem::npy_bad_header);
  std::string v9 = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", six);
  v9[6] = 9;
  EXPECT_EQ(scan_problem(v9, "a.npy"), Problem::npy_bad_header);
  EXPECT_EQ(scan_problem(std::string("\x93NUMPY\x01\x00\xff\xff", 10), "a.npy"), Problem::truncated);
}

TEST(WeightsNpz, ReadsStoredMembersByTheirCentralDirectory) {
  const std::string q = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", f32_bytes(iota(4)));
  const std::string b = npy("{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }", le(0x3C00, 2) + le(0xC000, 2));
  const std::string f = zip_stored({{"attn.W_query.npy", q}, {"attn.b.npy", b}, {"README.txt", "hello"}});
  Scanner s = scan_bytes(f, "w.npz");
  ASSERT_TRUE(s.error().ok()) << problem_name(s.error().code);
  EXPECT_EQ(s.format(), Format::npz);
  ASSERT_EQ(s.tensors().size(), 2u);
  EXPECT_EQ(s.tensors()[0].name, "attn.W_query");
  EXPECT_EQ(s.tensors()[1].name, "attn.b");
  std::vector<float> v;
  for (int k = 0; k < 2; ++k) {
    const TensorInfo& t = s.tensors()[k];
    std::string bytes;
    ASSERT_TRUE(read_range(t.data, memory_reader(f), {}, &bytes));
    ASSERT_TRUE(to_float32(t, bytes, &v).ok());
    EXPECT_EQ(v, k == 0 ? iota(4) : (std::vector<float>{1.0f, -2.0f}));
  }
}

TEST(WeightsNpz, Refusals) {
  const std::string q = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", f32_bytes(iota(4)));
  // "PK" at the start but no end-of-directory record.
  EXPECT_EQ(scan_problem(std::string("PK\x03\x04", 4) + std::string(100, 'x'), "a.npz"), Problem::zip_not_zip);
  // Compressed with a method other than deflate (12: bzip2).
  EXPECT_EQ(scan_problem(zip_stored({{"w.npy", q}}, 12), "a.npz"), Problem::zip_method_unsupported);
  // Deflated, and no inflater to hand: the member cannot be read.
  EXPECT_EQ(scan_problem(zip_stored({{"w.npy", q}}, 8), "a.npz"), Problem::zip_inflate_failed);
  // Cut short: the directory is past the end.
  std::string z = zip_stored({{"w.npy", q}});
  EXPECT_EQ(scan_problem(z.substr(0, z.size() - 30), "a.npz"), Problem::zip_not_zip);
  std::string moved = z;
  moved[moved.size() - 3] = '\x7f';  // directory offset far past the end
  EXPECT_EQ(scan_problem(moved, "a.npz"), Problem::zip_bad_directory);
  EXPECT_EQ(scan_problem(zip_stored({{"notes.txt", "x"}}), "a.npz"), Problem::no_tensors);
  // A member that is not an .npy inside.
  EXPECT_EQ(scan_problem(zip_stored({{"w.npy", "just text, not an array"}}), "a.npz"), Problem::npy_bad_magic);
  // A Fortran-ordered member.
  EXPECT_EQ(scan_problem(zip_stored({{"w.npy", npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
                                                    f32_bytes(iota(4)))}}),
                         "a.npz"),
            Problem::npy_fortran_order);
}

// --- Mapping proposals, one per naming family

struct Proposed {
  std::string family;
  std::string names[kRoleCount];
  int part[kRoleCount];
  bool transpose[kRoleCount];
};
Proposed propose(const std::vector<TensorInfo>& ts, const std::string& prefix = {}) {
  Mapping m = propose_mapping(ts, prefix);
  Proposed p;
  p.family = m.family;
  for (int r = 0; r < kRoleCount; ++r) {
    p.names[r] = m.roles[r].tensor >= 0 ? ts[m.roles[r].tensor].name : "";
    p.part[r] = m.roles[r].part;
    p.transpose[r] = m.roles[r].transpose;
  }
  return p;
}

TEST(WeightsMapping, QProjKProjVProjOProjWithSeveralLayers) {
  std::vector<std::pair<std::string, std::vector<uint64_t>>> names;
  for (int l : {0, 1, 2, 10}) {
    const std::string p = "model.layers." + std::to_string(l) + ".self_attn.";
    for (const char* n : {"q_proj", "k_proj", "v_proj", "o_proj"}) names.push_back({p + n + ".weight", {8, 8}});
    names.push_back({"model.layers." + std::to_string(l) + ".mlp.up_proj.weight", {32, 8}});
  }
  const auto ts = listing(names);
  EXPECT_EQ(layer_prefixes(ts), (std::vector<std::string>{"model.layers.0.self_attn.", "model.layers.1.self_attn.",
                                                           "model.layers.2.self_attn.", "model.layers.10.self_attn."}));
  Proposed p = propose(ts, "model.layers.10.self_attn.");
  EXPECT_EQ(p.family, "q_proj");
  EXPECT_EQ(p.names[0], "model.layers.10.self_attn.q_proj.weight");
  EXPECT_EQ(p.names[1], "model.layers.10.self_attn.k_proj.weight");
  EXPECT_EQ(p.names[2], "model.layers.10.self_attn.v_proj.weight");
  EXPECT_EQ(p.names[3], "model.layers.10.self_attn.o_proj.weight");
  EXPECT_EQ(p.names[4], "");
  for (int r = 0; r < 4; ++r) EXPECT_TRUE(p.transpose[r]) << r;
  EXPECT_EQ(propose(ts).names[0], "model.layers.0.self_attn.q_proj.weight");  // first layer by default
  MappedShapes s;
  ASSERT_TRUE(check_mapping(propose_mapping(ts), ts, &s).ok());
  EXPECT_EQ(s.d_model, 8);
  EXPECT_TRUE(s.out_proj);
  EXPECT_FALSE(s.out_bias);
  EXPECT_FALSE(s.qkv_bias);
}

TEST(WeightsMapping, QueryKeyValueWithBertsOutputDense) {
  const auto ts = listing({{"bert.encoder.layer.0.attention.self.query.weight", {4, 4}},
                           {"bert.encoder.layer.0.attention.self.query.bias", {4}},
                           {"bert.encoder.layer.0.attention.self.key.weight", {4, 4}},
                           {"bert.encoder.layer.0.attention.self.key.bias", {4}},
                           {"bert.encoder.layer.0.attention.self.value.weight", {4, 4}},
                           {"bert.encoder.layer.0.attention.self.value.bias", {4}},
                           {"bert.encoder.layer.0.attention.output.dense.weight", {4, 4}},
                           {"bert.encoder.layer.0.attention.output.dense.bias", {4}}});
  Proposed p = propose(ts);
  EXPECT_EQ(p.family, "query");
  EXPECT_EQ(p.names[0], "bert.encoder.layer.0.attention.self.query.weight");
  EXPECT_EQ(p.names[6], "bert.encoder.layer.0.attention.self.value.bias");
  EXPECT_EQ(p.names[3], "bert.encoder.layer.0.attention.output.dense.weight");
  EXPECT_EQ(p.names[7], "bert.encoder.layer.0.attention.output.dense.bias");
  MappedShapes s;
  ASSERT_TRUE(check_mapping(propose_mapping(ts), ts, &s).ok());
  EXPECT_TRUE(s.qkv_bias && s.out_proj && s.out_bias);
}

TEST(WeightsMapping, WQueryLinearAndBareParameters) {
  // SelfAttention_v2 / MultiHeadAttention (nn.Linear): transposed.
  Proposed lin = propose(listing({{"W_query.weight", {2, 3}}, {"W_key.weight", {2, 3}}, {"W_value.weight", {2, 3}},
                                  {"out_proj.weight", {2, 2}}, {"out_proj.bias", {2}}}));
  EXPECT_EQ(lin.family, "W_query");
  EXPECT_TRUE(lin.transpose[0]);
  EXPECT_EQ(lin.names[3], "out_proj.weight");
  EXPECT_EQ(lin.names[7], "out_proj.bias");
  // SelfAttention_v1: nn.Parameter(torch.rand(d_in, d_out)), already x·W.
  Proposed bare = propose(listing({{"W_query", {3, 2}}, {"W_key", {3, 2}}, {"W_value", {3, 2}}}));
  EXPECT_EQ(bare.family, "W_query");
  EXPECT_EQ(bare.names[0], "W_query");
  EXPECT_FALSE(bare.transpose[0]);
  EXPECT_EQ(bare.names[3], "");
}

TEST(WeightsMapping, MultiheadAttentionInProj) {
  const auto ts = listing({{"encoder.layers.0.self_attn.in_proj_weight", {12, 4}},
                           {"encoder.layers.0.self_attn.in_proj_bias", {12}},
                           {"encoder.layers.0.self_attn.out_proj.weight", {4, 4}},
                           {"encoder.layers.0.self_attn.out_proj.bias", {4}},
                           {"encoder.layers.0.linear1.weight", {16, 4}}});
  Proposed p = propose(ts);
  EXPECT_EQ(p.family, "in_proj");
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(p.names[r], "encoder.layers.0.self_attn.in_proj_weight");
    EXPECT_EQ(p.part[r], r);
    EXPECT_TRUE(p.transpose[r]);
    EXPECT_EQ(p.names[4 + r], "encoder.layers.0.self_attn.in_proj_bias");
    EXPECT_EQ(p.part[4 + r], r);
  }
  EXPECT_EQ(p.names[3], "encoder.layers.0.self_attn.out_proj.weight");
  MappedShapes s;
  ASSERT_TRUE(check_mapping(propose_mapping(ts), ts, &s).ok());
  EXPECT_EQ(s.d_model, 4);
  EXPECT_EQ(s.d_out, 4);
}

TEST(WeightsMapping, FusedQkvLinear) {
  Proposed p = propose(listing({{"blocks.3.attn.qkv.weight", {18, 6}}, {"blocks.3.attn.qkv.bias", {18}},
                                {"blocks.3.attn.proj.weight", {6, 6}}, {"blocks.3.attn.proj.bias", {6}},
                                {"blocks.4.attn.qkv.weight", {18, 6}}}),
                       "blocks.3.attn.");
  EXPECT_EQ(p.family, "qkv");
  EXPECT_EQ(p.names[1], "blocks.3.attn.qkv.weight");
  EXPECT_EQ(p.part[1], 1);
  EXPECT_TRUE(p.transpose[1]);
  EXPECT_EQ(p.names[3], "blocks.3.attn.proj.weight");
}

TEST(WeightsMapping, Gpt2Conv1DIsNotTransposed) {
  std::vector<std::pair<std::string, std::vector<uint64_t>>> names;
  for (int l = 0; l < 12; ++l) {
    const std::string p = "transformer.h." + std::to_string(l) + ".";
    names.push_back({p + "attn.c_attn.weight", {768, 2304}});
    names.push_back({p + "attn.c_attn.bias", {2304}});
    names.push_back({p + "attn.c_proj.weight", {768, 768}});
    names.push_back({p + "attn.c_proj.bias", {768}});
    names.push_back({p + "mlp.c_proj.weight", {3072, 768}});
  }
  const auto ts = listing(names);
  EXPECT_EQ(layer_prefixes(ts).size(), 12u);
  EXPECT_EQ(layer_prefixes(ts)[11], "transformer.h.11.attn.");
  Proposed p = propose(ts, "transformer.h.3.attn.");
  EXPECT_EQ(p.family, "c_attn");
  EXPECT_EQ(p.names[2], "transformer.h.3.attn.c_attn.weight");
  EXPECT_EQ(p.part[2], 2);
  EXPECT_FALSE(p.transpose[2]);
  EXPECT_EQ(p.names[3], "transformer.h.3.attn.c_proj.weight");
  EXPECT_FALSE(p.transpose[3]);
  MappedShapes s;
  ASSERT_TRUE(check_mapping(propose_mapping(ts, "transformer.h.3.attn."), ts, &s).ok());
  EXPECT_EQ(s.d_model, 768);
  EXPECT_EQ(s.d_out, 768);
  EXPECT_TRUE(s.qkv_bias && s.out_proj && s.out_bias);
}

TEST(WeightsMapping, NothingRecognisedProposesNothing) {
  const auto ts = listing({{"encoder.weight", {4, 4}}, {"decoder.weight", {4, 4}}});
  EXPECT_TRUE(layer_prefixes(ts).empty());
  Mapping m = propose_mapping(ts);
  EXPECT_EQ(m.family, "");
  EXPECT_EQ(m.roles[0].tensor, -1);
  EXPECT_EQ(check_mapping(m, ts, nullptr).code, Problem::role_missing);
}

TEST(WeightsMapping, ShapeChecksSayWhatDoesNotFit) {
  auto ts = listing({{"q_proj.weight", {8, 4}}, {"k_proj.weight", {4, 4}}, {"v_proj.weight", {8, 4}},
                     {"q_proj.bias", {8}}, {"fused", {10, 4}}, {"vec", {8}}});
  Mapping m = propose_mapping(ts);
  Error e = check_mapping(m, ts, nullptr);
  // k_proj (4, 4) is a K/V width of 4 (GQA: it divides d_out 8); v_proj must then be as wide.
  // Values: role, tensor, the file's shape, the shape as x·W, the x·W shape it must be, the role it goes with.
  EXPECT_EQ(e.code, Problem::role_shape);
  EXPECT_EQ(e.values, (std::vector<std::string>{"W_v", "v_proj.weight", "(8, 4)", "(4, 8)", "(4, 4)", "W_k"}));
  // Not transposed, the sentence says so with its own code.
  m[Role::W_v].transpose = false;
  e = check_mapping(m, ts, nullptr);
  EXPECT_EQ(e.code, Problem::role_shape_xw);
  EXPECT_EQ(e.values, (std::vector<std::string>{"W_v", "v_proj.weight", "(8, 4)", "(8, 4)", "(4, 4)", "W_k"}));
  m[Role::W_v].transpose = true;
  // Rows that are not W_q's d_model: W_k against W_q.
  auto rows = listing({{"q_proj.weight", {8, 4}}, {"k_proj.weight", {8, 6}}, {"v_proj.weight", {8, 6}}});
  e = check_mapping(propose_mapping(rows), rows, nullptr);
  EXPECT_EQ(e.code, Problem::role_shape);
  EXPECT_EQ(e.values, (std::vector<std::string>{"W_k", "k_proj.weight", "(8, 6)", "(6, 8)", "(4, 8)", "W_q"}));
  // A K/V width that does not divide d_out.
  auto wide = listing({{"q_proj.weight", {8, 4}}, {"k_proj.weight", {3, 4}}, {"v_proj.weight", {3, 4}}});
  e = check_mapping(propose_mapping(wide), wide, nullptr);
  EXPECT_EQ(e.code, Problem::kv_width);
  EXPECT_EQ(e.values, (std::vector<std::string>{"W_k", "k_proj.weight", "3", "8"}));
  // A bias of the wrong length: counted in values, against its weight.
  auto bias = listing({{"q_proj.weight", {8, 4}}, {"k_proj.weight", {4, 4}}, {"v_proj.weight", {4, 4}},
                       {"q_proj.bias", {8}}, {"k_proj.bias", {8}}, {"v_proj.bias", {4}}});
  e = check_mapping(propose_mapping(bias), bias, nullptr);
  EXPECT_EQ(e.code, Problem::role_shape_bias);
  EXPECT_EQ(e.values, (std::vector<std::string>{"b_k", "k_proj.bias", "8", "4", "W_k"}));
  m[Role::W_k] = m[Role::W_v];
  EXPECT_EQ(check_mapping(m, ts, nullptr).code, Problem::bias_partial);
  m[Role::b_q] = RoleChoice{};
  EXPECT_TRUE(check_mapping(m, ts, nullptr).ok());
  m[Role::W_o] = RoleChoice{index_of(ts, "fused"), 0, true};
  EXPECT_EQ(check_mapping(m, ts, nullptr).code, Problem::role_split_uneven);
  m[Role::W_o] = RoleChoice{index_of(ts, "vec"), -1, true};
  EXPECT_EQ(check_mapping(m, ts, nullptr).code, Problem::role_not_matrix);
  m[Role::W_o] = RoleChoice{};
  m[Role::b_o] = RoleChoice{index_of(ts, "vec"), -1, false};
  EXPECT_EQ(check_mapping(m, ts, nullptr).code, Problem::role_missing);
  ts[0].type = DType::unsupported;
  EXPECT_EQ(check_mapping(m, ts, nullptr).code, Problem::dtype_unsupported);
}

// Llama's GQA: k_proj and v_proj have num_key_value_heads · head_dim rows (PyTorch's
// (out, in)), fewer than q_proj's. The K/V heads follow from the heads chosen:
// G = kv_dim / head_dim, which must divide the heads.
TEST(WeightsMapping, LlamaGqaKAndVNarrowerThanQ) {
  const std::string p = "model.layers.0.self_attn.";
  const auto ts = listing({{p + "q_proj.weight", {8, 8}}, {p + "k_proj.weight", {4, 8}}, {p + "v_proj.weight", {4, 8}},
                           {p + "o_proj.weight", {8, 8}}});
  const Mapping m = propose_mapping(ts);
  EXPECT_EQ(m.family, "q_proj");
  MappedShapes s;
  const Error e = check_mapping(m, ts, &s);
  ASSERT_TRUE(e.ok()) << problem_name(e.code);
  EXPECT_EQ(s.d_model, 8);
  EXPECT_EQ(s.d_out, 8);
  std::vector<std::vector<float>> data = {iota(64), iota(32, 100), iota(32, 200), iota(64, 300)};
  State st;
  ASSERT_TRUE(apply_mapping(m, ts, data, State(), 4, &st).ok());
  EXPECT_EQ(st.num_heads, 4);
  EXPECT_EQ(st.num_kv_heads, 2);  // 4 rows / head_dim 2
  ASSERT_EQ(st.weights.W_k->rows, 8);
  ASSERT_EQ(st.weights.W_k->cols, 4);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(st.weights.W_v.at(i, j), 200.0f + static_cast<float>(j * 8 + i));  // k_projᵀ
  EXPECT_TRUE(validate_state(st).ok);
  ASSERT_TRUE(apply_mapping(m, ts, data, State(), 2, &st).ok());
  EXPECT_EQ(st.num_kv_heads, 1);  // head_dim 4: one K/V head (MQA)
  ASSERT_TRUE(apply_mapping(m, ts, data, State(), 8, &st).ok());
  EXPECT_EQ(st.num_kv_heads, 4);
  EXPECT_FALSE(apply_mapping(m, ts, data, State(), 1, &st).ok());  // head_dim 8 is wider than K
  // Plain MHA weights over a GQA state go back to a K/V head per head.
  State gqa;
  gqa.num_heads = 4;
  gqa.num_kv_heads = 2;
  const auto mha = listing({{"q_proj.weight", {8, 8}}, {"k_proj.weight", {8, 8}}, {"v_proj.weight", {8, 8}}});
  std::vector<std::vector<float>> md(3, iota(64));
  ASSERT_TRUE(apply_mapping(propose_mapping(mha), mha, md, gqa, 4, &st).ok());
  EXPECT_EQ(st.num_kv_heads, 0);
  EXPECT_TRUE(validate_state(st).ok);
}

TEST(WeightsMapping, HeadChoicesFollowTheKvWidth) {
  EXPECT_EQ(kv_heads_for(4, 8, 4), 2);
  EXPECT_EQ(kv_heads_for(2, 8, 4), 1);
  EXPECT_EQ(kv_heads_for(1, 8, 4), 0);  // head_dim 8 does not divide 4
  EXPECT_EQ(kv_heads_for(4, 8, 8), 4);  // MHA
  EXPECT_EQ(kv_heads_for(3, 8, 8), 0);  // 3 does not divide d_out
  EXPECT_EQ(head_choices(8, 4), (std::vector<int>{2, 4, 8}));
  EXPECT_EQ(head_choices(12), (std::vector<int>{1, 2, 3, 4, 6, 12}));
  EXPECT_EQ(default_heads(1, 8, 4), 0);
  EXPECT_EQ(default_heads(4, 8, 4), 4);
  EXPECT_EQ(default_heads(3, 12), 3);
  MappedShapes s;
  const auto ts = listing({{"k_proj.weight", {4, 8}}, {"q_proj.weight", {8, 8}}, {"v_proj.weight", {4, 8}},
                           {"q_proj.bias", {8}}, {"k_proj.bias", {4}}, {"v_proj.bias", {4}}});
  ASSERT_TRUE(check_mapping(propose_mapping(ts), ts, &s).ok());
  EXPECT_EQ(s.kv_dim, 4);
  EXPECT_TRUE(s.qkv_bias);
  // K and V so narrow that no head count up to the limit fits: said, not a dialog with no choice.
  const int n = Limits::kMaxHeads * 2;
  const auto narrow = listing({{"q_proj.weight", {static_cast<uint64_t>(n), 4}}, {"k_proj.weight", {1, 4}}, {"v_proj.weight", {1, 4}}});
  const Error e = check_mapping(propose_mapping(narrow), narrow, nullptr);
  EXPECT_EQ(e.code, Problem::size_limit);
  EXPECT_EQ(e.values, (std::vector<std::string>{"num_heads", std::to_string(n), std::to_string(Limits::kMaxHeads)}));
}

// --- Applying: transposition and the split of fused tensors, value by value

TEST(WeightsApply, TransposesLinearSplitsFusedAndKeepsTokens) {
  // in_proj_weight (3·2 × 3): rows 0-1 are q, 2-3 k, 4-5 v, each out × in.
  const auto ts = listing({{"in_proj_weight", {6, 3}}, {"in_proj_bias", {6}}, {"out_proj.weight", {2, 2}}});
  std::vector<std::vector<float>> data(3);
  data[0] = iota(18);
  data[1] = iota(6, 100);
  data[2] = {1, 2, 3, 4};
  Mapping m = propose_mapping(ts, "");
  ASSERT_EQ(m.family, "in_proj");
  State base;
  base.num_heads = 1;
  State out;
  Error e = apply_mapping(m, ts, data, base, default_heads(base.num_heads, 2), &out);
  ASSERT_TRUE(e.ok()) << problem_name(e.code);
  EXPECT_EQ(out.tokens, base.tokens);
  EXPECT_EQ(out.d_model, 3);
  EXPECT_EQ(out.d_out, 2);
  EXPECT_TRUE(out.qkv_bias);
  EXPECT_TRUE(out.out_proj);
  EXPECT_FALSE(out.out_bias);
  EXPECT_EQ(out.weights.init, WeightInit::values);
  // W_k = (rows 2-3)ᵀ: W_k[i][j] = in_proj_weight[2 + j][i] = (2 + j)·3 + i
  ASSERT_EQ(out.weights.W_k->rows, 3);
  ASSERT_EQ(out.weights.W_k->cols, 2);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_EQ(out.weights.W_k.at(i, j), static_cast<float>((2 + j) * 3 + i));
  EXPECT_EQ(out.weights.b_v.at(0, 0), 104.0f);
  EXPECT_EQ(out.weights.b_v.at(0, 1), 105.0f);
  EXPECT_EQ(out.weights.W_o.at(0, 1), 3.0f);  // transposed
  // Conv1D (c_attn: in × 3·out) splits columns and is not transposed.
  const auto g = listing({{"c_attn.weight", {3, 6}}, {"c_proj.weight", {2, 2}}});
  std::vector<std::vector<float>> gd = {iota(18), {1, 2, 3, 4}};
  Mapping gm = propose_mapping(g, "");
  ASSERT_EQ(gm.family, "c_attn");
  ASSERT_TRUE(apply_mapping(gm, g, gd, base, 2, &out).ok());
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_EQ(out.weights.W_v.at(i, j), static_cast<float>(i * 6 + 4 + j));
  EXPECT_EQ(out.weights.W_o.at(0, 1), 2.0f);
  EXPECT_EQ(out.num_heads, 2);
  // Heads that do not divide d_out are refused; the current ones are kept when they do.
  EXPECT_EQ(default_heads(3, 2), 0);
  EXPECT_EQ(head_choices(12), (std::vector<int>{1, 2, 3, 4, 6, 12}));
  EXPECT_EQ(apply_mapping(gm, g, gd, base, 3, &out).code, Problem::heads_invalid);
}

TEST(WeightsApply, ExplicitEmbeddingThatNoLongerFitsGoesBackToSeeded) {
  State base;
  base.embedding.init = EmbeddingInit::values;
  base.embedding.values = Tensor(5, 4, 0.5f);
  const auto ts = listing({{"W_q", {3, 2}}, {"W_k", {3, 2}}, {"W_v", {3, 2}}});
  std::vector<std::vector<float>> d(3, iota(6));
  State out;
  ASSERT_TRUE(apply_mapping(propose_mapping(ts), ts, d, base, 1, &out).ok());
  EXPECT_EQ(out.embedding.init, EmbeddingInit::torch_randn);
  EXPECT_EQ(out.embedding.seed, base.embedding.seed);
  EXPECT_TRUE(validate_state(out).ok);
}

}  // namespace
