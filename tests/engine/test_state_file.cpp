// State files: a session state as a .safetensors file (attnviz/state_file.h).
//
//   StateFile.*        round trips (seeded states, explicit states under every flag
//                      combination, special float bits), the file's layout byte by
//                      byte, and every hostile input with its sentence
//   StateFilePython.*  files written by Debian's python3 + torch (state_file_py.py,
//                      by hand: the safetensors package is not in Debian 12), read
//                      back equal to the same state's JSON; skipped unless ctest's
//                      engine_state_files sets ATTNVIZ_STATE_FILES_DIR
//   StateFile.Timing100MB  prints how long a 100 MB state takes to write and read
//                      (a print, not a pass/fail: the machine is shared)
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnviz/materialize.h"
#include "attnviz/state.h"
#include "attnviz/state_file.h"
#include "attnviz/state_json.h"

namespace {

using namespace attnviz;
using nlohmann::json;

// --- helpers

// A file from its header text and data bytes, as the format lays them out.
std::string make_file(const std::string& header, const std::string& data = "") {
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((static_cast<uint64_t>(header.size()) >> (8 * i)) & 0xFF));
  return out + header + data;
}

std::string floats_bytes(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

uint64_t le64(const std::string& s, size_t at = 0) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(s[at + i]);
  return v;
}

// Header (parsed) and data of a file written by state_to_safetensors.
struct Parsed {
  json header;
  std::string header_text;
  std::string data;
};
Parsed parse_layout(const std::string& file) {
  Parsed p;
  const uint64_t n = le64(file);
  p.header_text = file.substr(8, n);
  p.header = json::parse(p.header_text);
  p.data = file.substr(8 + n);
  return p;
}

// Every explicit matrix equal bit for bit, and read into a Tensor of its own.
void expect_same_bits(const SharedTensor& a, const SharedTensor& b, const char* what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(a->rows, b->rows);
  ASSERT_EQ(a->cols, b->cols);
  EXPECT_EQ(0, std::memcmp(a->data.data(), b->data.data(), a->data.size() * sizeof(float)));
  if (!a.empty()) {
    EXPECT_FALSE(a.same_as(b)) << "read back, not shared";
  }
}

State round_trip(const State& s) {
  const std::string file = state_to_safetensors(s);
  State back;
  const Status st = state_from_safetensors(file, &back);
  EXPECT_TRUE(st.ok) << st.error << " (field " << st.field << ")";
  return back;
}

// A small explicit state: d_model 6, d_out 8, 4 heads, explicit embedding and weights.
State explicit_state(bool qkv_bias, bool out_proj, bool out_bias, int kv_heads, Positional pos) {
  State s;
  s.tokens = {"The", "cat", "sat", "on", "the", "mat"};
  s.d_model = 6;
  s.d_out = 8;
  s.num_heads = 4;
  s.num_kv_heads = kv_heads;
  s.qkv_bias = qkv_bias;
  s.out_proj = out_proj;
  s.out_bias = out_bias;
  s.positional = pos;
  s.weights.init = WeightInit::torch_linear;
  s.weights.seed = 7;
  s.embedding.seed = 11;
  return materialize_weights(materialize_embedding(s));
}

Status read(const std::string& file) {
  State s;
  return state_from_safetensors(file, &s);
}

// A valid state file, built by hand: d_model 2, d_out 2, one head, explicit W_q/W_k/W_v.
struct HandFile {
  json state = {{"tokens", {"a", "b"}}, {"d_model", 2}, {"d_out", 2},
                {"weights", {{"W_q", "weights.W_q"}, {"W_k", "weights.W_k"}, {"W_v", "weights.W_v"}}}};
  json header = json::object();
  std::string data;
  void add(const std::string& name, const std::string& dtype, const json& shape, const std::string& bytes) {
    header[name] = {{"dtype", dtype}, {"shape", shape}, {"data_offsets", {data.size(), data.size() + bytes.size()}}};
    data += bytes;
  }
  HandFile() {
    for (const char* m : {"weights.W_q", "weights.W_k", "weights.W_v"}) add(m, "F32", {2, 2}, floats_bytes({1, 2, 3, 4}));
  }
  std::string file(bool with_meta = true) {
    json h = header;
    if (with_meta) h["__metadata__"] = {{kStateFileFormatKey, "1"}, {kStateFileStateKey, state.dump()}};
    return make_file(h.dump(), data);
  }
};

// --- round trips

TEST(StateFile, SeededStatesRoundTripWithNoTensors) {
  std::vector<State> states(4);
  states[1].causal = true;
  states[1].dropout = {0.25, true, 99};
  states[1].key_padding = {1, 1, 0, 1, 1};
  states[2].positional = Positional::rope;
  states[2].d_out = 8;
  states[2].num_heads = 4;
  states[2].num_kv_heads = 2;
  states[2].alibi = true;
  states[2].window = 3;
  states[2].rope = {500000.0, RopeStyle::interleaved};
  states[3].tokens = {"我", "爱", "自然", "语言", "\"quoted\"", "tab\there"};
  states[3].weights.init = WeightInit::torch_linear;
  states[3].weights.layout = WeightLayout::per_head;
  states[3].mask_fill = -1e20;
  states[3].safe_softmax = true;
  states[3].temperature = 0.5;
  states[3].scale = ScaleMode::d_out;
  for (const State& s : states) {
    ASSERT_TRUE(validate_state(s).ok) << validate_state(s).error;
    const std::string file = state_to_safetensors(s);
    const Parsed p = parse_layout(file);
    EXPECT_EQ(p.header.size(), 1u) << "only __metadata__: no tensors";
    EXPECT_TRUE(p.data.empty());
    EXPECT_TRUE(round_trip(s) == s);
    EXPECT_EQ(state_explicit_values(s), 0u);
  }
}

TEST(StateFile, ExplicitStatesUnderEveryFlagCombinationComeBackBitForBit) {
  int checked = 0;
  for (int qkv = 0; qkv < 2; ++qkv)
    for (int op = 0; op < 2; ++op)
      for (int ob = 0; ob < 2; ++ob)
        for (int kv : {0, 2, 1})
          for (Positional pos : {Positional::none, Positional::sinusoidal, Positional::rope})
            for (int which = 0; which < 3; ++which) {  // both explicit, embedding only, weights only
              State s = explicit_state(qkv, op, ob, kv, pos);
              if (which == 1) s.weights = State().weights;
              if (which == 2) s.embedding = State().embedding;
              ASSERT_TRUE(validate_state(s).ok) << validate_state(s).error;
              SCOPED_TRACE("qkv_bias " + std::to_string(qkv) + " out_proj " + std::to_string(op) + " out_bias " +
                           std::to_string(ob) + " kv " + std::to_string(kv) + " pos " + positional_name(pos) +
                           " which " + std::to_string(which));
              const State back = round_trip(s);
              ASSERT_TRUE(back == s);
              if (s.embedding.init == EmbeddingInit::values) expect_same_bits(back.embedding.values, s.embedding.values, "X");
              if (s.weights.init == WeightInit::values) {
                expect_same_bits(back.weights.W_q, s.weights.W_q, "W_q");
                expect_same_bits(back.weights.W_k, s.weights.W_k, "W_k");
                expect_same_bits(back.weights.W_v, s.weights.W_v, "W_v");
                if (op) expect_same_bits(back.weights.W_o, s.weights.W_o, "W_o");
                if (qkv) expect_same_bits(back.weights.b_k, s.weights.b_k, "b_k");
                if (op && ob) expect_same_bits(back.weights.b_o, s.weights.b_o, "b_o");
              }
              // The JSON of both is the same text (the == above, said another way).
              EXPECT_EQ(state_to_json(back).dump(), state_to_json(s).dump());
              ++checked;
            }
  EXPECT_EQ(checked, 2 * 2 * 2 * 3 * 3 * 3);
}

TEST(StateFile, KeepsEveryFloatBitPattern) {
  State s = explicit_state(true, true, true, 0, Positional::none);
  const float specials[] = {-0.0f, 0.0f, std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::min(), std::numeric_limits<float>::max(),
                            -std::numeric_limits<float>::max(), 0.1f, 1.0f / 3.0f, 16777217.0f};
  Tensor& q = s.weights.W_q.mut();
  for (size_t k = 0; k < sizeof specials / sizeof specials[0]; ++k) q.data[k] = specials[k];
  ASSERT_TRUE(validate_state(s).ok);
  const State back = round_trip(s);
  ASSERT_TRUE(back == s);
  for (size_t k = 0; k < sizeof specials / sizeof specials[0]; ++k) {
    uint32_t a, b;
    std::memcpy(&a, &back.weights.W_q->data[k], 4);
    std::memcpy(&b, &specials[k], 4);
    EXPECT_EQ(a, b) << "value " << k;
  }
}

TEST(StateFile, TwoFieldsNamingOneTensorShareIt) {
  HandFile f;
  f.header = json::object();
  f.data.clear();
  f.add("weights.W_q", "F32", {2, 2}, floats_bytes({1, 2, 3, 4}));
  f.add("weights.W_k", "F32", {2, 2}, floats_bytes({5, 6, 7, 8}));
  f.state["weights"]["W_v"] = "weights.W_k";
  State s;
  const Status st = state_from_safetensors(f.file(), &s);
  ASSERT_TRUE(st.ok) << st.error;
  EXPECT_TRUE(s.weights.W_k.same_as(s.weights.W_v));
  EXPECT_EQ(s.weights.W_v->at(1, 1), 8.0f);
}

// --- the layout, byte by byte

TEST(StateFile, LayoutIsPlainSafetensors) {
  const State s = explicit_state(true, true, true, 2, Positional::rope);
  const std::string file = state_to_safetensors(s);
  const uint64_t n = le64(file);
  EXPECT_EQ((8 + n) % 8, 0u) << "the data starts at a multiple of 8";
  ASSERT_LE(8 + n, file.size());
  const std::string header = file.substr(8, n);
  EXPECT_EQ(header.front(), '{');
  const size_t last = header.find_last_not_of(' ');
  EXPECT_EQ(header[last], '}') << "padding is spaces only";
  EXPECT_LT(n - last - 1, 8u);
  const json h = json::parse(header);
  ASSERT_TRUE(h.contains("__metadata__"));
  const json& meta = h["__metadata__"];
  for (auto it = meta.begin(); it != meta.end(); ++it) EXPECT_TRUE(it.value().is_string()) << it.key() << ": strings only";
  EXPECT_EQ(meta[kStateFileFormatKey], "1");
  const json state = json::parse(meta[kStateFileStateKey].get<std::string>());
  EXPECT_EQ(state["embedding"]["values"], "embedding.values");
  EXPECT_EQ(state["weights"]["W_q"], "weights.W_q");
  EXPECT_EQ(state["weights"]["b_o"], "weights.b_o");
  EXPECT_EQ(state["num_kv_heads"], 2);
  EXPECT_EQ(state["positional"], "rope");
  // One tensor per explicit matrix the flags use, in file order, no holes, F32.
  const struct {
    const char* name;
    std::vector<int> shape;
    const SharedTensor* t;
  } want[] = {{"embedding.values", {6, 6}, &s.embedding.values}, {"weights.W_q", {6, 8}, &s.weights.W_q},
              {"weights.W_k", {6, 4}, &s.weights.W_k},           {"weights.W_v", {6, 4}, &s.weights.W_v},
              {"weights.W_o", {8, 8}, &s.weights.W_o},           {"weights.b_q", {8}, &s.weights.b_q},
              {"weights.b_k", {4}, &s.weights.b_k},              {"weights.b_v", {4}, &s.weights.b_v},
              {"weights.b_o", {8}, &s.weights.b_o}};
  EXPECT_EQ(h.size(), 1 + sizeof want / sizeof want[0]);
  uint64_t offset = 0;
  const std::string data = file.substr(8 + n);
  for (const auto& w : want) {
    SCOPED_TRACE(w.name);
    ASSERT_TRUE(h.contains(w.name));
    const json& e = h[w.name];
    EXPECT_EQ(e["dtype"], "F32");
    EXPECT_EQ(e["shape"], json(w.shape));
    ASSERT_EQ(e["data_offsets"][0].get<uint64_t>(), offset);
    const uint64_t bytes = w.t->get().data.size() * 4;
    ASSERT_EQ(e["data_offsets"][1].get<uint64_t>(), offset + bytes);
    EXPECT_EQ(0, std::memcmp(data.data() + offset, w.t->get().data.data(), bytes));
    offset += bytes;
  }
  EXPECT_EQ(offset, data.size()) << "the data is entirely indexed";
  EXPECT_EQ(state_explicit_values(s), offset / 4);
  EXPECT_TRUE(looks_like_safetensors(file, file.size()));
  EXPECT_FALSE(looks_like_safetensors(state_to_json(s).dump(), 1000));
  EXPECT_FALSE(looks_like_safetensors("        {\"tokens\": []}", 23)) << "JSON after 8 spaces stays JSON";
}

// --- hostile input: each gets its sentence, nothing throws or aborts

void expect_refusal(const std::string& file, Msg code, const std::string& field, const char* contains) {
  const Status st = read(file);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.code, msg_code(code)) << st.error;
  EXPECT_EQ(st.field, field) << st.error;
  EXPECT_NE(st.error.find(contains), std::string::npos) << st.error;
}

TEST(StateFile, HostileFilesGetTheirSentence) {
  HandFile ok;
  ASSERT_TRUE(read(ok.file()).ok) << read(ok.file()).error;

  expect_refusal("", Msg::state_file_empty, "", "empty");
  expect_refusal("{\"tokens\": [\"a\"]}", Msg::state_file_not_safetensors, "", "7b 22 74 6f");
  // The header's length says more than the file has.
  std::string beyond = ok.file();
  beyond[0] = static_cast<char>(0xF0);
  beyond[1] = static_cast<char>(0x7F);
  expect_refusal(beyond, Msg::state_file_truncated, "", "cut short");
  // A header of 200 MB.
  std::string huge = make_file("{}");
  huge[3] = 12;
  expect_refusal(huge, Msg::state_file_header_too_large, "", "limit");
  expect_refusal(make_file("{\"a\": tru}"), Msg::state_file_header_not_json, "", "not valid JSON");
  expect_refusal(make_file("[1, 2]  "), Msg::state_file_not_safetensors, "", "08 00 00");  // '[' is not '{'
  expect_refusal(make_file("{\"w\": 5}"), Msg::state_file_header_entry, "", "“w”");
  // Cut in the middle of the data: the last tensor ends past the end.
  const std::string full = ok.file();
  expect_refusal(full.substr(0, full.size() - 3), Msg::state_file_past_end, "", "“weights.W_v”");
  // Offsets out of range, overlapping, not matching the shape.
  {
    HandFile f;
    f.header["weights.W_v"]["data_offsets"] = {32, 64};
    expect_refusal(f.file(), Msg::state_file_past_end, "", "weights.W_v");
    f = HandFile();
    f.header["weights.W_v"]["data_offsets"] = {8, 24};
    expect_refusal(f.file(), Msg::state_file_overlap, "", "claim the same bytes");
    f = HandFile();
    f.header["weights.W_v"]["shape"] = {2, 3};
    expect_refusal(f.file(), Msg::state_file_tensor_bytes, "", "(2, 3)");
  }
  // A dtype the reader does not convert.
  {
    HandFile f;
    f.header["weights.W_k"]["dtype"] = "I32";
    expect_refusal(f.file(), Msg::state_file_tensor_dtype, "weights.W_k", "I32");
  }
  // No metadata (a weights file), another format, metadata that is not a state.
  expect_refusal(HandFile().file(false), Msg::state_file_no_state, "", "no attnviz state");
  {
    HandFile f;
    json h = f.header;
    h["__metadata__"] = {{kStateFileFormatKey, "2"}, {kStateFileStateKey, f.state.dump()}};
    expect_refusal(make_file(h.dump(), f.data), Msg::state_file_format_newer, "", "format 2");
    h["__metadata__"] = {{kStateFileStateKey, "{\"tokens\": [\"a\", }"}};
    const Status st = read(make_file(h.dump(), f.data));
    EXPECT_EQ(st.code, msg_code(Msg::state_file_state_not_json)) << st.error;
    ASSERT_EQ(st.phrases.size(), 1u) << "the JSON reader's refusal, worded as a phrase";
    EXPECT_EQ(st.phrases[0].code, "not_json_at");
    h["__metadata__"] = {{kStateFileStateKey, 5}};  // not a string: skipped, so no state
    expect_refusal(make_file(h.dump(), f.data), Msg::state_file_no_state, "", "attnviz_state");
  }
  // A state the engine refuses, a tensor of the wrong shape, 3-D, missing, unused, NaN.
  {
    HandFile f;
    f.state["num_heads"] = 3;
    expect_refusal(f.file(), Msg::d_out_not_divisible, "num_heads", "divisible");
    f = HandFile();
    f.state["d_model"] = 3;
    f.state["embedding"] = {{"init", "torch_randn"}, {"seed", 1}};
    expect_refusal(f.file(), Msg::matrix_shape, "weights.W_q", "3 × 2");
    f = HandFile();
    f.header["weights.W_k"]["shape"] = {1, 2, 2};
    expect_refusal(f.file(), Msg::state_file_tensor_dims, "weights.W_k", "(1, 2, 2)");
    f = HandFile();
    f.state["weights"]["W_k"] = "weights.W_K";
    expect_refusal(f.file(), Msg::state_file_tensor_missing, "weights.W_k", "“weights.W_K”");
    f = HandFile();
    f.add("extra", "F32", {1}, floats_bytes({1}));
    expect_refusal(f.file(), Msg::state_file_tensor_unused, "", "“extra”");
    f = HandFile();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    f.data.replace(16 + 4, 4, floats_bytes({nan}));
    expect_refusal(f.file(), Msg::finite_only, "weights.W_k", "finite");
    f = HandFile();
    f.state["weights"]["W_q"] = 5;  // a number where a matrix or a name goes
    expect_refusal(f.file(), Msg::must_be_rows, "weights.W_q", "list of rows");
  }
}

TEST(StateFile, EveryCutAndEveryFlippedByteGivesAStateOrASentence) {
  const std::string file = state_to_safetensors(explicit_state(true, true, false, 0, Positional::none));
  for (size_t n = 0; n < file.size(); ++n) {
    const Status st = read(file.substr(0, n));
    ASSERT_FALSE(st.ok) << n;
    ASSERT_FALSE(st.code.empty()) << n;
    ASSERT_FALSE(st.error.empty()) << n;
  }
  for (size_t k = 0; k < file.size(); ++k) {
    std::string bad = file;
    bad[k] = static_cast<char>(bad[k] ^ (k % 2 ? 0x01 : 0x80));
    State s;
    const Status st = state_from_safetensors(bad, &s);
    if (st.ok) {
      EXPECT_TRUE(validate_state(s).ok) << k;
    } else {
      EXPECT_FALSE(st.code.empty()) << k;
      EXPECT_FALSE(st.error.empty()) << k;
    }
  }
}

TEST(StateFile, HalfBFloatAndDoubleTensorsAreRead) {
  HandFile f;
  f.header = json::object();
  f.data.clear();
  const uint16_t half[] = {0x3C00, 0xC000, 0x3555, 0x0001};  // 1, -2, 0.333251953125, 2^-24
  f.add("weights.W_q", "F16", {2, 2}, std::string(reinterpret_cast<const char*>(half), 8));
  const uint16_t bf[] = {0x3F80, 0xC040, 0x3EAB, 0x0000};  // 1, -3, 0.333984375, 0
  f.add("weights.W_k", "BF16", {2, 2}, std::string(reinterpret_cast<const char*>(bf), 8));
  const double d[] = {0.1, -1e-3, 3.0, 1e30};
  f.add("weights.W_v", "F64", {2, 2}, std::string(reinterpret_cast<const char*>(d), 32));
  State s;
  const Status st = state_from_safetensors(f.file(), &s);
  ASSERT_TRUE(st.ok) << st.error;
  EXPECT_EQ(s.weights.W_q->at(0, 1), -2.0f);
  EXPECT_EQ(s.weights.W_q->at(1, 1), std::ldexp(1.0f, -24));
  EXPECT_EQ(s.weights.W_k->at(1, 0), 0.333984375f);
  EXPECT_EQ(s.weights.W_v->at(0, 0), 0.1f);
  EXPECT_EQ(s.weights.W_v->at(1, 1), 1e30f);
}

// --- files written by Debian's python3 + torch (state_file_py.py)

std::string files_dir() {
  const char* d = std::getenv("ATTNVIZ_STATE_FILES_DIR");
  return d ? d : "";
}
std::string slurp(const std::string& name) {
  std::ifstream f(files_dir() + "/" + name, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

TEST(StateFilePython, FilesWrittenByTorchReadBackAsTheirJson) {
  if (files_dir().empty()) GTEST_SKIP() << "ATTNVIZ_STATE_FILES_DIR not set (ctest engine_state_files sets it)";
  for (const char* stem : {"torch_state", "torch_halves", "torch_seeded"}) {
    SCOPED_TRACE(stem);
    const std::string bin = slurp(std::string(stem) + ".safetensors");
    const std::string text = slurp(std::string(stem) + ".json");
    ASSERT_FALSE(bin.empty());
    ASSERT_FALSE(text.empty());
    State from_file, from_json;
    const Status a = state_from_safetensors(bin, &from_file);
    ASSERT_TRUE(a.ok) << a.error << " (" << a.field << ")";
    const Status b = parse_state_text(text, &from_json);
    ASSERT_TRUE(b.ok) << b.error;
    EXPECT_TRUE(from_file == from_json);
    // And written again by attnviz, read back the same.
    EXPECT_TRUE(round_trip(from_file) == from_json);
  }
}

// --- time (printed)

TEST(StateFile, Timing100MB) {
  // d_model = d_out = 2560 (20 heads of 128), Q/K/V biases, an output projection with
  // bias, 64 tokens of explicit embedding: 4 · 2560² + 4 · 2560 + 64 · 2560 floats = 105 MB.
  State s;
  s.tokens.clear();
  for (int i = 0; i < 64; ++i) s.tokens.push_back("t" + std::to_string(i));
  s.d_model = s.d_out = 2560;
  s.num_heads = 20;
  s.qkv_bias = s.out_proj = true;
  auto fill = [](SharedTensor* t, int r, int c, float k) {
    Tensor x(r, c);
    for (size_t i = 0; i < x.data.size(); ++i) x.data[i] = std::sin(k * static_cast<float>(i)) * 0.02f;
    *t = std::move(x);
  };
  s.embedding.init = EmbeddingInit::values;
  fill(&s.embedding.values, 64, 2560, 0.1f);
  s.weights.init = WeightInit::values;
  fill(&s.weights.W_q, 2560, 2560, 0.2f);
  fill(&s.weights.W_k, 2560, 2560, 0.3f);
  fill(&s.weights.W_v, 2560, 2560, 0.4f);
  fill(&s.weights.W_o, 2560, 2560, 0.5f);
  for (SharedTensor* b : {&s.weights.b_q, &s.weights.b_k, &s.weights.b_v, &s.weights.b_o}) fill(b, 1, 2560, 0.6f);
  ASSERT_TRUE(validate_state(s).ok);
  using clock = std::chrono::steady_clock;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  const int reps = 1;  // the sanitizers' builds time nothing worth quoting: one run checks it works
#else
  const int reps = 5;
#endif
  std::vector<double> write_ms, read_ms;
  size_t bytes = 0;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = clock::now();
    const std::string file = state_to_safetensors(s);
    const auto t1 = clock::now();
    State back;
    const Status st = state_from_safetensors(file, &back);
    const auto t2 = clock::now();
    ASSERT_TRUE(st.ok) << st.error;
    if (r == 0) {
      ASSERT_TRUE(back == s);
    }
    bytes = file.size();
    write_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    read_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
  std::sort(write_ms.begin(), write_ms.end());
  std::sort(read_ms.begin(), read_ms.end());
  std::printf("[ timing ] state file of %.1f MB (%llu floats): write median %.1f ms (min %.1f), read median %.1f ms "
              "(min %.1f, validate_state included), %d runs\n",
              bytes / 1e6, static_cast<unsigned long long>(state_explicit_values(s)), write_ms[reps / 2], write_ms[0],
              read_ms[reps / 2], read_ms[0], reps);
}

}  // namespace
