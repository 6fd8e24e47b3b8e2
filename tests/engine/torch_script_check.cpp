// torch_script_check.cpp: the PyTorch scripts attnviz exports (attnviz/torch_script.h),
// run by python3 with Debian's torch, against the engine, stage by stage.
//
// [SECTION] The states
// [SECTION] Running the scripts
// [SECTION] The tests
//
// For every state below (each preset in assets/presets/, hand-picked states that
// cover every option, issue 23's variants, seeded random ones, and five whose script is in 简体中文)
// torch_script(state) is written to build/native/tests/engine/torch_scripts/<case>.py.
// One python3 process runs them all (run_torch_scripts.py: torch is imported once),
// each as `python3 <case>.py --json` and as `python3 <case>.py` would run, and its
// JSON is compared with the engine's report of the same state:
//   - the same keys in the same order (the report's, report.h), heads included;
//   - every number within the fixtures' tolerances (report_compare.h, where each
//     bound's reason is written): the script computes with PyTorch's kernels,
//     so products differ from the engine's by summation order only, and seeds,
//     draws, masks and dropout by nothing.
// Beside that batch, one script runs as its own program (`python3 <case>.py --json`),
// the way a learner runs it, and so does the committed export of the trained model's
// preset (tests/engine/data/torch_script/, the bytes both CLIs print for it), from the
// repository's root, where its default MODEL_FILE (assets/models/…) is found.
//
// A failure names the state (the test's name), the stage, the head and the cell:
//   TorchScript/ScriptTest.MatchesTheEngine/causal_padding
//   causal_padding: heads[1].weights[2][0]: engine 0.25 vs torch 0.5 (|diff| ... > tol ...)
// and a script that raised shows its Python traceback.
//
// Native builds only (python3 and torch are on the machine, not in node); the
// generator's own checks, which every build runs, are in test_torch_script.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnviz/model.h"
#include "attnviz/pipeline.h"
#include "attnviz/report.h"
#include "attnviz/state.h"
#include "attnviz/state_json.h"
#include "attnviz/torch_rng.h"
#include "attnviz/torch_script.h"
#include "report_compare.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using attnviz::State;

// ---------------------------------------------------------------------------
// [SECTION] The states

struct Case {
  std::string name;
  State state;
  std::string language = "en";  // of the script's comments and headings (TorchScriptOptions)
};

// gtest prints the parameter of a failing instance: the case's name.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

State from_json(const std::string& name, const std::string& text) {
  State s;
  const attnviz::Status st = attnviz::parse_state_text(text, &s);
  if (!st.ok) ADD_FAILURE() << "case " << name << " is not a valid state: " << st.error << " (" << st.field << ")";
  return s;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<Case> preset_cases() {
  std::vector<Case> out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(ATTNVIZ_PRESETS_DIR))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::string name = "preset_" + f.stem().string();
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    const json preset = json::parse(read_text(f), nullptr, false);
    if (preset.is_discarded() || !preset.contains("state")) {
      ADD_FAILURE() << f << " is not a preset with a \"state\"";
      continue;
    }
    out.push_back({name, from_json(name, preset["state"].dump())});
  }
  return out;
}

// One option (or a few that meet) per state, named for what it covers.
const std::pair<const char*, const char*> kHandPicked[] = {
    {"default", "{}"},
    {"dropout_training_causal", R"({"causal": true, "dropout": {"p": 0.2, "training": true, "seed": 123}})"},
    {"dropout_eval", R"({"dropout": {"p": 0.5, "training": false, "seed": 7}})"},
    {"dropout_p0_training", R"({"dropout": {"p": 0, "training": true, "seed": 1}})"},
    {"dropout_p1_training", R"({"num_heads": 2, "dropout": {"p": 1, "training": true, "seed": 1}})"},
    {"padding_fill_number",
     R"({"key_padding": [1, 1, 1, 0, 0], "mask_fill": -1e20, "qkv_bias": true,
         "weights": {"init": "torch_linear", "seed": 789, "layout": "fused"}})"},
    {"causal_padding_two_heads",
     R"({"causal": true, "key_padding": [1, 0, 1, 1, 0], "d_out": 6, "num_heads": 2, "d_model": 5})"},
    {"fully_masked_nan_rows_dropout",
     R"({"causal": true, "key_padding": [0, 1, 1, 1], "tokens": ["a", "b", "c", "d"],
         "dropout": {"p": 0.5, "training": true, "seed": 3}})"},
    {"safe_softmax_fully_masked_rows",
     R"({"causal": true, "key_padding": [0, 0, 1, 1], "tokens": ["a", "b", "c", "d"], "safe_softmax": true,
         "num_heads": 2, "dropout": {"p": 0.3, "training": true, "seed": 5}})"},
    {"fill_number_fully_masked_rows",
     R"({"key_padding": [0, 0, 0], "tokens": ["x", "y", "z"], "mask_fill": -1e9, "safe_softmax": true})"},
    {"fill_small_number", R"({"causal": true, "mask_fill": -2.5, "temperature": 0.5})"},
    {"temperature_scale_d_out",
     R"({"temperature": 0.7, "scale": "d_out", "d_out": 8, "num_heads": 2,
         "weights": {"init": "torch_linear", "seed": 11, "layout": "fused"}})"},
    {"scale_none_temperature", R"({"scale": "none", "temperature": 1.5})"},
    {"scale_none", R"({"scale": "none", "weights": {"init": "torch_linear", "seed": 2, "layout": "fused"}})"},
    {"per_head_bias_out_proj_no_bias",
     R"({"d_model": 5, "d_out": 6, "num_heads": 3, "qkv_bias": true, "out_proj": true, "out_bias": false,
         "weights": {"init": "torch_linear", "seed": 123, "layout": "per_head"}, "causal": true})"},
    {"per_head_out_bias",
     R"({"d_model": 4, "d_out": 4, "num_heads": 2, "out_proj": true, "out_bias": true,
         "weights": {"init": "torch_linear", "seed": 5, "layout": "per_head"}})"},
    {"linear_fused_every_bias",
     R"({"d_model": 8, "d_out": 8, "num_heads": 4, "qkv_bias": true, "out_proj": true,
         "weights": {"init": "torch_linear", "seed": 42, "layout": "fused"},
         "dropout": {"p": 0.1, "training": true, "seed": 9}})"},
    {"rand_every_bias", R"({"qkv_bias": true, "out_proj": true, "out_bias": true, "num_heads": 2})"},
    {"rand_out_proj_no_bias", R"({"out_proj": true, "out_bias": false, "d_out": 3, "d_model": 2})"},
    {"sinusoidal_odd_width", R"({"positional": "sinusoidal", "d_model": 5, "d_out": 2})"},
    {"sinusoidal_even_width_linear",
     R"({"positional": "sinusoidal", "d_model": 16, "d_out": 16, "num_heads": 4, "causal": true,
         "weights": {"init": "torch_linear", "seed": 123, "layout": "fused"}})"},
    {"tokens_needing_escapes",
     R"({"tokens": ["a\"b", "back\\slash", "new\nline", "我", "a\"b", "tab\there", "'single'"]})"},
    {"large_seeds",
     R"({"embedding": {"init": "torch_randn", "seed": 18446744073709551615},
         "weights": {"init": "torch_rand", "seed": -5},
         "dropout": {"p": 0.25, "training": true, "seed": 4294967303}})"},
    {"one_token", R"({"tokens": ["solo"], "causal": true, "dropout": {"p": 0.5, "training": true, "seed": 2}})"},
    {"eight_heads_of_width_one", R"({"d_out": 8, "num_heads": 8, "d_model": 3})"},
    {"larger",
     R"({"tokens": ["t0","t1","t2","t3","t4","t5","t6","t7","t8","t9","t10","t11","t12","t13","t14","t15",
                    "t16","t17","t18","t19","t20","t21","t22","t23"],
         "d_model": 32, "d_out": 32, "num_heads": 4, "causal": true, "positional": "sinusoidal",
         "weights": {"init": "torch_linear", "seed": 3, "layout": "per_head"}, "out_proj": true,
         "dropout": {"p": 0.1, "training": true, "seed": 8}})"},
    // Issue 23 (variant_*): RoPE, GQA / MQA, ALiBi and the sliding window, alone and together.
    {"variant_rope_half", R"({"positional": "rope", "d_model": 8, "d_out": 8, "num_heads": 2, "causal": true})"},
    {"variant_rope_interleaved_base500000",
     R"({"positional": "rope", "rope": {"base": 500000, "style": "interleaved"}, "d_model": 6, "d_out": 8,
         "qkv_bias": true, "weights": {"init": "torch_linear", "seed": 4, "layout": "fused"}})"},
    {"variant_rope_one_head_rand", R"({"positional": "rope", "d_out": 6, "temperature": 2})"},
    {"variant_gqa_rand_every_bias",
     R"({"d_model": 6, "d_out": 8, "num_heads": 4, "num_kv_heads": 2, "qkv_bias": true, "out_proj": true,
         "out_bias": true})"},
    {"variant_gqa_linear_causal",
     R"({"d_model": 8, "d_out": 12, "num_heads": 6, "num_kv_heads": 3, "causal": true, "qkv_bias": true,
         "weights": {"init": "torch_linear", "seed": 9, "layout": "fused"}, "out_proj": true})"},
    {"variant_mqa_padding",
     R"({"d_model": 8, "d_out": 8, "num_heads": 4, "num_kv_heads": 1, "key_padding": [1, 1, 0, 1, 1],
         "weights": {"init": "torch_linear", "seed": 2, "layout": "fused"}})"},
    {"variant_alibi_three_heads", R"({"alibi": true, "d_model": 6, "d_out": 6, "num_heads": 3, "temperature": 0.5})"},
    {"variant_alibi_one_head_padding_fill", R"({"alibi": true, "key_padding": [1, 0, 1, 1, 1], "mask_fill": -1e9})"},
    {"variant_window_both_sides", R"({"window": 2, "d_out": 4, "num_heads": 2})"},
    {"variant_window_causal_dead_row_safe",
     R"({"window": 1, "causal": true, "key_padding": [1, 1, 0, 1, 1], "safe_softmax": true, "num_heads": 2})"},
    {"variant_everything",
     R"({"tokens": ["t0","t1","t2","t3","t4","t5","t6","t7","t8","t9"], "d_model": 8, "d_out": 16,
         "num_heads": 4, "num_kv_heads": 2, "positional": "rope", "alibi": true, "window": 3, "causal": true,
         "qkv_bias": true, "out_proj": true, "weights": {"init": "torch_linear", "seed": 23, "layout": "fused"},
         "dropout": {"p": 0.1, "training": true, "seed": 23}})"},
    // Issue 36 (long_*): gpt-oss's sink logits, StreamingLLM's cache, alone and with the others.
    {"long_sinks_one_head", R"({"causal": true, "sinks": {"enabled": true, "values": [1.25]}})"},
    {"long_sinks_default_zero", R"({"d_out": 8, "num_heads": 4, "d_model": 6, "sinks": {"enabled": true}})"},
    {"long_sinks_dead_row_safe",
     R"({"window": 1, "causal": true, "key_padding": [1, 1, 0, 1, 1], "safe_softmax": true, "num_heads": 2,
         "sinks": {"enabled": true, "values": [0.5, -2]}})"},
    {"long_streaming_llm",
     R"({"tokens": ["t0","t1","t2","t3","t4","t5","t6","t7","t8","t9","t10"], "causal": true, "d_out": 4,
         "num_heads": 2, "kv_cache": {"policy": "streaming_llm", "sink_tokens": 2, "recent": 3}})"},
    {"long_streaming_not_causal_padding",
     R"({"key_padding": [1, 1, 0, 1, 1], "mask_fill": -1e9, "kv_cache": {"policy": "streaming_llm", "sink_tokens": 1,
         "recent": 2}})"},
    {"long_everything",
     R"({"tokens": ["t0","t1","t2","t3","t4","t5","t6","t7","t8","t9","t10","t11"], "d_model": 8, "d_out": 16,
         "num_heads": 4, "num_kv_heads": 2, "positional": "rope", "alibi": true, "window": 6, "causal": true,
         "sinks": {"enabled": true, "values": [0.5, -0.5, 2, 0]},
         "kv_cache": {"policy": "streaming_llm", "sink_tokens": 1, "recent": 3},
         "dropout": {"p": 0.1, "training": true, "seed": 36}})"},
};

// Explicit values drawn with torch's generator (so they are the same on every machine).
attnviz::Tensor drawn(attnviz::TorchGenerator& g, int rows, int cols) {
  attnviz::Tensor t;
  t.reset(rows, cols);
  g.normal(t.data.data(), t.size());
  return t;
}

void explicit_values(State* s, uint64_t seed, bool embedding, bool weights) {
  attnviz::TorchGenerator g(seed);
  if (embedding) {
    s->embedding.init = attnviz::EmbeddingInit::values;
    s->embedding.values = drawn(g, s->seq_len(), s->d_model);
  }
  if (weights) {
    attnviz::WeightSpec& w = s->weights;
    w.init = attnviz::WeightInit::values;
    w.W_q = drawn(g, s->d_model, s->d_out);
    w.W_k = drawn(g, s->d_model, s->d_out);
    w.W_v = drawn(g, s->d_model, s->d_out);
    if (s->out_proj) w.W_o = drawn(g, s->d_out, s->d_out);
    if (s->qkv_bias) {
      w.b_q = drawn(g, 1, s->d_out);
      w.b_k = drawn(g, 1, s->d_out);
      w.b_v = drawn(g, 1, s->d_out);
    }
    if (s->out_proj && s->out_bias) w.b_o = drawn(g, 1, s->d_out);
  }
}

std::vector<Case> explicit_cases() {
  std::vector<Case> out;
  State a = from_json("explicit_everything", R"({"d_model": 3, "d_out": 4, "num_heads": 2, "qkv_bias": true,
      "out_proj": true, "out_bias": true, "causal": true, "positional": "sinusoidal"})");
  explicit_values(&a, 77, true, true);
  out.push_back({"explicit_everything", a});
  State b = from_json("explicit_weights_rand_embedding", R"({"d_model": 4, "d_out": 2, "out_proj": true,
      "out_bias": false, "scale": "none"})");
  explicit_values(&b, 78, false, true);
  out.push_back({"explicit_weights_randn_embedding", b});
  return out;
}

// Seeded random states: sizes, every option and the explicit values picked by a
// fixed mt19937 (the same states on every machine).
State random_state(uint32_t seed) {
  std::mt19937 g(seed);
  auto pick = [&](int n) { return static_cast<int>(g() % static_cast<uint32_t>(n)); };
  const char* words[] = {"the", "cat", "sat", "on", "mat", "我", "爱", "a"};
  State s;
  s.tokens.clear();
  const int S = 1 + pick(10);
  for (int i = 0; i < S; ++i) s.tokens.push_back(words[pick(8)]);
  s.num_heads = 1 + pick(4);
  s.d_out = s.num_heads * (1 + pick(4));
  s.d_model = 1 + pick(12);
  s.embedding.seed = static_cast<uint64_t>(pick(100000));
  s.positional = pick(3) == 0 ? attnviz::Positional::sinusoidal : attnviz::Positional::none;
  const attnviz::WeightInit inits[] = {attnviz::WeightInit::torch_rand, attnviz::WeightInit::torch_linear,
                                       attnviz::WeightInit::torch_linear, attnviz::WeightInit::values};
  s.weights.init = inits[pick(4)];
  s.weights.layout = pick(2) ? attnviz::WeightLayout::per_head : attnviz::WeightLayout::fused;
  s.weights.seed = static_cast<uint64_t>(pick(100000));
  s.qkv_bias = pick(2);
  s.out_proj = pick(2);
  s.out_bias = pick(2);
  s.scale = static_cast<attnviz::ScaleMode>(pick(3));
  const double temperatures[] = {1.0, 1.0, 0.5, 2.5, 0.07};
  s.temperature = temperatures[pick(5)];
  s.causal = pick(2);
  if (pick(3) == 0) {
    for (int i = 0; i < S; ++i) s.key_padding.push_back(pick(3) ? 1 : 0);
  }
  const double fills[] = {-std::numeric_limits<double>::infinity(), -1e9, -2.5};
  s.mask_fill = fills[pick(3)];
  s.safe_softmax = pick(2);
  const double ps[] = {0.0, 0.1, 0.5, 1.0};
  s.dropout.p = ps[pick(4)];
  s.dropout.training = pick(3) != 0;
  s.dropout.seed = static_cast<uint64_t>(pick(1000));
  const bool explicit_embedding = pick(4) == 0;
  explicit_values(&s, seed, explicit_embedding, s.weights.init == attnviz::WeightInit::values);
  const attnviz::Status st = attnviz::validate_state(s);
  if (!st.ok) ADD_FAILURE() << "random state " << seed << " is not valid: " << st.error;
  return s;
}

constexpr int kRandomStates = 24;

// The same checks on scripts in 简体中文 (comments and headings only: the code is the
// same), a few states between them taking every path of the generator.
std::vector<Case> chinese_cases() {
  std::vector<Case> out;
  const std::pair<const char*, const char*> states[] = {
      {"zh_CN_per_head_every_option",
       R"({"tokens": ["我", "爱", "自然", "语言", "处理"], "d_model": 6, "d_out": 4, "num_heads": 2, "causal": true,
           "key_padding": [1, 1, 1, 0, 1], "mask_fill": -1e9, "safe_softmax": true, "temperature": 2,
           "positional": "sinusoidal", "qkv_bias": true, "out_proj": true, "out_bias": true,
           "weights": {"init": "torch_linear", "seed": 123, "layout": "per_head"},
           "dropout": {"p": 0.1, "training": true, "seed": 5}})"},
      {"zh_CN_fused_causal_d_out",
       R"({"tokens": ["猫", "坐", "在", "垫子", "上"], "causal": true, "scale": "d_out", "d_out": 4, "num_heads": 2,
           "out_proj": true, "out_bias": false, "weights": {"init": "torch_linear", "seed": 3, "layout": "fused"},
           "dropout": {"p": 0.5, "training": false, "seed": 1}})"},
      {"zh_CN_rand_biases_no_mask", R"({"qkv_bias": true, "out_proj": true, "out_bias": true})"},
      {"zh_CN_variant_rope_interleaved_mqa_alibi_window",
       R"({"tokens": ["我", "爱", "自然", "语言", "处理", "。"], "d_model": 6, "d_out": 8, "num_heads": 2,
           "num_kv_heads": 1, "positional": "rope", "rope": {"style": "interleaved"}, "alibi": true, "window": 2,
           "weights": {"init": "torch_linear", "seed": 5, "layout": "fused"}})"},
      {"zh_CN_long_sinks_streaming_llm",
       R"({"tokens": ["我", "爱", "自然", "语言", "处理", "。", "你", "呢"], "d_model": 6, "d_out": 4, "num_heads": 2,
           "causal": true, "sinks": {"enabled": true, "values": [1, -1]},
           "kv_cache": {"policy": "streaming_llm", "sink_tokens": 1, "recent": 2}})"},
  };
  for (const auto& [name, text] : states) out.push_back({name, from_json(name, text), "zh-CN"});
  State v = from_json("zh_CN_explicit_scale_none", R"({"d_model": 3, "d_out": 2, "scale": "none", "temperature": 1.5})");
  explicit_values(&v, 79, true, true);
  out.push_back({"zh_CN_explicit_scale_none", v, "zh-CN"});
  return out;
}

// The trained model (attnviz/model.h) with the options a learner may set on it
// (they apply to every layer); the preset (preset_cases) covers its defaults.
std::vector<Case> model_cases() {
  const char* m = R"("model": {"name": "induction-2l", "step": 200}, "tokens": ["<s>", "a", "b", "c", "a", "b", "c", "#"])";
  return {
      {"model_step_200", from_json("model_step_200", std::string("{") + m + "}")},
      {"model_options", from_json("model_options", std::string("{") + m +
                                                       R"(, "causal": false, "temperature": 0.7, "window": 3,
                                                         "alibi": true, "dropout": {"p": 0.2, "training": true, "seed": 5}})")},
      {"model_sinks_streaming_llm",
       from_json("model_sinks_streaming_llm", std::string("{") + m +
                                                  R"(, "sinks": {"enabled": true, "values": [0.5, 0, -0.5, 1]},
                                                    "kv_cache": {"policy": "streaming_llm", "sink_tokens": 1, "recent": 3}})")},
      {"zh_CN_model", from_json("zh_CN_model", std::string("{") + m + R"(, "key_padding": [1, 1, 1, 1, 0, 1, 1, 1]})"), "zh-CN"},
  };
}

const std::vector<Case>& all_cases() {
  static const std::vector<Case> cases = [] {
    std::vector<Case> out = preset_cases();
    for (const auto& [name, text] : kHandPicked) out.push_back({name, from_json(name, text)});
    for (Case& c : explicit_cases()) out.push_back(std::move(c));
    for (int i = 0; i < kRandomStates; ++i)
      out.push_back({"random_" + std::to_string(i), random_state(1000 + static_cast<uint32_t>(i))});
    for (Case& c : chinese_cases()) out.push_back(std::move(c));
    for (Case& c : model_cases()) out.push_back(std::move(c));
    return out;
  }();
  return cases;
}

// ---------------------------------------------------------------------------
// [SECTION] Running the scripts

const fs::path kDir = ATTNVIZ_TORCH_SCRIPT_DIR;
constexpr const char* kStandalone = "preset_04_the_cat";  // also run as its own program
// The committed golden of a trained model's export (<name>.state.json and <name>.py),
// relative to the repository's root: the one script that reads a file by a relative path.
constexpr const char* kModelGolden = "tests/engine/data/torch_script/model_induction_2l";

// Writes every case's script, then runs the batch and the standalone run side by
// side (two processes, the machine's two cores). Once per test program.
struct Batch {
  bool ran = false;
  std::string log;  // the runner's stderr, shown when a script left no output
};

const Batch& batch() {
  static const Batch b = [] {
    Batch out;
    fs::remove_all(kDir);
    fs::create_directories(kDir);
    std::string files;
    for (const Case& c : all_cases()) {
      attnviz::TorchScriptOptions options;
      options.language = c.language;
      options.model_dir = ATTNVIZ_MODELS_DIR;  // the scripts run in the build tree
      std::ofstream(kDir / (c.name + ".py"), std::ios::binary) << attnviz::torch_script(c.state, options);
      files += " '" + c.name + ".py'";
    }
    const std::string py = ATTNVIZ_PYTHON;
    const std::string golden = "(cd '" ATTNVIZ_SOURCE_DIR "' && " + py + " '" + kModelGolden + ".py' --json) > " +
                               "golden_model.json 2> golden_model.err";
    const std::string cmd = "cd '" + kDir.string() + "' && (" + py + " '" ATTNVIZ_TORCH_RUNNER "'" + files +
                            " 2> runner.log & " + py + " '" + kStandalone +
                            ".py' --json > standalone.json 2> standalone.err & " + golden + "; wait)";
    out.ran = std::system(cmd.c_str()) == 0;
    out.log = read_text(kDir / "runner.log");
    return out;
  }();
  return b;
}

std::vector<std::string> keys_in_order(const nlohmann::ordered_json& j) {
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  return keys;
}

// A trained model's script against the engine's LayerStack. Layer by layer with
// the single-layer tolerances (report_compare.h), each layer's engine report made
// from torch's own input to that layer (its X, exact as an explicit input), so
// that a layer is judged on its own arithmetic. The engine's stream between the
// layers and its logits: within 2e-5 of each matrix's largest entry, the bound
// tests/engine/test_model.cpp explains (64-term float32 sums in another order,
// carried through the layers).
void compare_model_output(const std::string& name, const State& state, const nlohmann::ordered_json& torch) {
  attnviz::LayerStack stack;
  ASSERT_TRUE(stack.set_state(state).ok);
  const json engine = json::parse(attnviz::report_text(stack));
  const json t = json::parse(torch.dump());
  ASSERT_EQ(t.at("layers").size(), engine.at("layers").size()) << name;
  EXPECT_EQ(t.at("token_ids"), engine.at("token_ids")) << name;
  EXPECT_EQ(t.at("model"), engine.at("model")) << name;
  for (size_t l = 0; l < engine.at("layers").size(); ++l) {
    State layer = state;
    layer.model = attnviz::ModelSpec{};
    const attnviz::Checkpoint& k = *stack.checkpoint();
    layer.weights.init = attnviz::WeightInit::values;
    layer.weights.W_q = k.layers[l].W_q;
    layer.weights.W_k = k.layers[l].W_k;
    layer.weights.W_v = k.layers[l].W_v;
    layer.weights.W_o = k.layers[l].W_o;
    layer.weights.b_o = k.layers[l].b_o;
    layer.embedding.init = attnviz::EmbeddingInit::values;
    const json& X = t.at("layers")[l].at("X");
    attnviz::Tensor x(static_cast<int>(X.size()), state.d_model);
    for (int i = 0; i < x.rows; ++i)
      for (int c = 0; c < x.cols; ++c) x.at(i, c) = static_cast<float>(X[static_cast<size_t>(i)][static_cast<size_t>(c)].get<double>());
    layer.embedding.values = std::move(x);
    attnviz::Pipeline p;
    ASSERT_TRUE(p.set_state(layer).ok);
    attnviz_test::compare_reports(name + " layer " + std::to_string(l), attnviz::state_to_json(layer), t.at("layers")[l],
                                  json::parse(attnviz::report_text(p)));
  }
  auto close = [&](const char* what, const json& a, const json& b) {
    double diff = 0, scale = 0;
    for (size_t i = 0; i < a.size(); ++i)
      for (size_t j = 0; j < a[i].size(); ++j) {
        const double x = static_cast<float>(a[i][j].get<double>()), y = static_cast<float>(b[i][j].get<double>());
        diff = std::max(diff, std::fabs(x - y));
        scale = std::max(scale, std::fabs(x));
      }
    EXPECT_LE(diff, 2e-5 * std::max(1.0, scale)) << name << ": " << what;
  };
  for (size_t l = 0; l < engine.at("residual").size(); ++l) close("residual", t.at("residual")[l], engine.at("residual")[l]);
  close("logits", t.at("logits"), engine.at("logits"));
}

// What a script printed with --json, checked against the engine's report.
void compare_script_output(const std::string& name, const State& state, const std::string& text) {
  const nlohmann::ordered_json torch_ordered = nlohmann::ordered_json::parse(text, nullptr, false);
  ASSERT_FALSE(torch_ordered.is_discarded() || !torch_ordered.is_object())
      << name << ": the script's --json output is not one JSON object:\n" << text.substr(0, 2000);
  if (state.model.active()) return compare_model_output(name, state, torch_ordered);
  attnviz::Pipeline p;
  ASSERT_TRUE(p.set_state(state).ok);
  const nlohmann::ordered_json engine_ordered = nlohmann::ordered_json::parse(attnviz::report_text(p));
  ASSERT_EQ(keys_in_order(torch_ordered), keys_in_order(engine_ordered))
      << name << ": the script's report keys (above) are not the engine's (below), in order";
  ASSERT_TRUE(torch_ordered["heads"].is_array() && torch_ordered["heads"].size() == engine_ordered["heads"].size())
      << name << ": the script's report has " << torch_ordered["heads"].size() << " heads, the engine's "
      << engine_ordered["heads"].size();
  for (size_t h = 0; h < engine_ordered["heads"].size(); ++h)
    ASSERT_EQ(keys_in_order(torch_ordered["heads"][h]), keys_in_order(engine_ordered["heads"][h]))
        << name << ": heads[" << h << "] keys";
  attnviz_test::compare_reports(name, attnviz::state_to_json(state), json::parse(text),
                                json::parse(attnviz::report_text(p)));
}

// ---------------------------------------------------------------------------
// [SECTION] The tests

class ScriptTest : public testing::TestWithParam<Case> {};

TEST_P(ScriptTest, MatchesTheEngine) {
  const Case& c = GetParam();
  const Batch& b = batch();
  const fs::path script = kDir / (c.name + ".py");
  if (fs::exists(script.string() + ".err"))
    FAIL() << c.name << ": the script raised (" << script << "):\n" << read_text(script.string() + ".err");
  ASSERT_TRUE(fs::exists(script.string() + ".json"))
      << c.name << ": no output from " << script << " (runner " << (b.ran ? "ran" : "failed") << "):\n"
      << b.log;
  compare_script_output(c.name, c.state, read_text(script.string() + ".json"));
}

TEST_P(ScriptTest, PrintsEveryStageWithoutJson) {
  const Case& c = GetParam();
  batch();
  const fs::path printed = kDir / (c.name + ".py.txt");
  if (!fs::exists(printed)) GTEST_SKIP() << "no plain run (MatchesTheEngine says why)";
  const std::string text = read_text(printed);
  std::vector<const char*> english = {"X, the token embeddings:\n", "queries (Q):\n", "attention scores:\n",
                                      "scaled scores:\n", "masked scores:\n", "attention weights:\n",
                                      "attention weights after dropout:\n", "context vectors:\n", "output:\n"};
  std::vector<const char*> chinese = {"X，词元嵌入：\n", "查询（Q）：\n", "注意力分数：\n", "缩放后的分数：\n",
                                      "掩码后的分数：\n", "注意力权重：\n", "Dropout 后的注意力权重：\n",
                                      "上下文向量：\n", "输出：\n"};
  if (c.state.model.active()) {  // a trained model: its embeddings, each layer under its own heading, the logits
    english[0] = "x0, token plus position embeddings:\n";
    chinese[0] = "x0，词元嵌入加位置嵌入：\n";
    for (const char* h : {"=== layer 0 ===\n", "=== layer 1 ===\n", "logits (one row per position"}) english.push_back(h);
    for (const char* h : {"=== 第 0 层 ===\n", "=== 第 1 层 ===\n", "logits（每个位置一行"}) chinese.push_back(h);
  }
  for (const char* heading : c.language == "zh-CN" ? chinese : english)
    EXPECT_NE(text.find(heading), std::string::npos) << c.name << ": no heading \"" << heading << "\" in\n" << text;
  EXPECT_NE(text.find("tensor("), std::string::npos) << c.name;
  EXPECT_EQ(text.find("{\"tokens\""), std::string::npos) << c.name << ": the plain run printed the JSON report";
}

std::string case_name(const testing::TestParamInfo<Case>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(TorchScript, ScriptTest, testing::ValuesIn(all_cases()), case_name);

// `python3 <case>.py --json` as a learner runs it: its own process, its own argv.
TEST(TorchScriptStandalone, RunsAsItsOwnProgram) {
  batch();
  const std::string err = read_text(kDir / "standalone.err");
  EXPECT_EQ(err, "") << "python3 " << kStandalone << ".py --json wrote to stderr";
  for (const Case& c : all_cases()) {
    if (c.name == kStandalone) compare_script_output(c.name, c.state, read_text(kDir / "standalone.json"));
  }
}

// The committed script of the model's preset, run by python3 as a learner who cloned
// the repository runs it (`python3 <name>.py --json` at its root, the weights found by the
// script's default path), against the engine's LayerStack on the same state.
TEST(TorchScriptStandalone, TheModelsCommittedScriptRunsFromTheRepositoryRoot) {
  batch();
  const std::string root = ATTNVIZ_SOURCE_DIR;
  const std::string err = read_text(kDir / "golden_model.err");
  EXPECT_EQ(err, "") << "python3 " << kModelGolden << ".py --json wrote to stderr";
  const State state = from_json(kModelGolden, read_text(root + "/" + kModelGolden + ".state.json"));
  ASSERT_TRUE(state.model.active()) << "a trained model's state";
  compare_script_output(kModelGolden, state, read_text(kDir / "golden_model.json"));
}

// The cases above really cover what the script must get right: without this, a
// narrowed case list would pass while leaving an option untested.
TEST(TorchScriptCases, CoverEveryOption) {
  auto any = [](auto pred) {
    for (const Case& c : all_cases())
      if (pred(c.state)) return true;
    return false;
  };
  using attnviz::WeightInit;
  using attnviz::WeightLayout;
  int presets = 0;
  for (const Case& c : all_cases()) presets += c.name.rfind("preset_", 0) == 0;
  EXPECT_GE(presets, 6);
  int chinese = 0;
  for (const Case& c : all_cases()) chinese += c.language == "zh-CN";
  EXPECT_GE(chinese, 4) << "scripts in 简体中文 run too";
  EXPECT_TRUE(any([](const State& s) { return s.dropout.training && s.dropout.p > 0 && s.dropout.p < 1; }));
  EXPECT_TRUE(any([](const State& s) { return s.causal; }));
  EXPECT_TRUE(any([](const State& s) {
    return std::find(s.key_padding.begin(), s.key_padding.end(), 0) != s.key_padding.end();
  }));
  EXPECT_TRUE(any([](const State& s) { return s.temperature != 1.0; }));
  EXPECT_TRUE(any([](const State& s) { return !std::isinf(s.mask_fill); }));
  EXPECT_TRUE(any([](const State& s) {  // safe softmax with a fully masked row
    return s.safe_softmax && std::isinf(s.mask_fill) && !s.key_padding.empty() && s.key_padding[0] == 0 && s.causal;
  }));
  EXPECT_TRUE(any([](const State& s) { return s.qkv_bias; }));
  EXPECT_TRUE(any([](const State& s) { return s.out_proj && s.out_bias; }));
  EXPECT_TRUE(any([](const State& s) { return s.out_proj && !s.out_bias; }));
  EXPECT_TRUE(any([](const State& s) {
    return s.weights.init == WeightInit::torch_linear && s.weights.layout == WeightLayout::per_head && s.num_heads > 1;
  }));
  EXPECT_TRUE(any([](const State& s) { return s.weights.init == WeightInit::torch_rand; }));
  EXPECT_TRUE(any([](const State& s) { return s.weights.init == WeightInit::torch_linear; }));
  EXPECT_TRUE(any([](const State& s) { return s.weights.init == WeightInit::values; }));
  EXPECT_TRUE(any([](const State& s) { return s.embedding.init == attnviz::EmbeddingInit::values; }));
  EXPECT_TRUE(any([](const State& s) { return s.positional == attnviz::Positional::sinusoidal; }));
  EXPECT_TRUE(any([](const State& s) { return s.num_heads >= 4; }));
  // Issue 23's options.
  using attnviz::Positional;
  using attnviz::RopeStyle;
  EXPECT_TRUE(any([](const State& s) { return s.positional == Positional::rope && s.rope.style == RopeStyle::half; }));
  EXPECT_TRUE(any([](const State& s) {
    return s.positional == Positional::rope && s.rope.style == RopeStyle::interleaved;
  }));
  EXPECT_TRUE(any([](const State& s) { return s.kv_heads() > 1 && s.kv_heads() < s.num_heads; }));
  EXPECT_TRUE(any([](const State& s) { return s.kv_heads() == 1 && s.num_heads > 1; }));
  EXPECT_TRUE(any([](const State& s) { return s.alibi && s.num_heads > 1 && (s.num_heads & (s.num_heads - 1)) != 0; }));
  EXPECT_TRUE(any([](const State& s) { return s.window > 0 && !s.causal; }));
  EXPECT_TRUE(any([](const State& s) { return s.window > 0 && s.causal; }));
  EXPECT_TRUE(any([](const State& s) {
    return s.positional == Positional::rope && s.alibi && s.window > 0 && s.kv_heads() < s.num_heads &&
           s.dropout.training && s.causal;
  }));
}

}  // namespace
