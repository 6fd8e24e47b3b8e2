// attnviz-cli: the engine on the command line (natively, and under node as
// attnviz-cli.js).
//
//   attnviz-cli run FILE|-    read a session state (JSON, or a .safetensors state file: told
//                             by its first bytes), print the report (one JSON object)
//   attnviz-cli head-scores FILE|-   each layer's each head's scores (previous-token,
//                             induction, first-token, duplicate-token) as one JSON line
//   attnviz-cli export-torch FILE|- [--lang L] [--layer N]   read a session state, print it as a
//                             PyTorch script (attnviz/torch_script.h; comments in language L: en,
//                             zh-CN; of captured layers, layer N's attention, 0 by default)
//   attnviz-cli convert IN OUT  write the state in IN as OUT: a .safetensors state file when
//                             OUT ends in .safetensors (attnviz/state_file.h), else JSON
//   attnviz-cli overview FILE|- --stage S --head H --block B [--pool max|mean]   one head's (S × S)
//                             stage pooled over B × B blocks from rows on demand (Pipeline::overview)
//                             as {"stage", "head", "block", "pool", "rows", "cols", "data", "ms"}
//   attnviz-cli version       print {"name", "version", "state_version"} as one JSON line
//   attnviz-cli bench --tokens S --d-model D --heads H [...]   timings as one JSON line (bench.cpp)
//
// Exit codes: 0 success; 2 bad input or bad usage (nothing on stdout, one JSON
// line {"error": "...", "field": "..."} on stderr); 1 an internal failure
// (same stderr format). It never aborts on any input. When the engine refused the
// state, the line also has its "code" and "args" (attnviz/messages.h), and
// "phrases" when a value is words ({"code", "args"} per arg, code "" for a value
// shown as it is): what an interface needs to word the refusal in its language.
//
// Subcommands are rows of kCommands below: a new one (e.g. `bench`) is a
// function with the CommandFn signature plus one row.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <string_view>
#include <utility>

#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "attnviz/model.h"
#include "attnviz/pipeline.h"
#include "attnviz/report.h"
#include "attnviz/state.h"
#include "attnviz/state_file.h"
#include "attnviz/state_json.h"
#include "attnviz/torch_script.h"
#include "bench.h"
#include "bench_long.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitInternal = 1;
constexpr int kExitBadInput = 2;

// A state file larger than this is refused before it is read (the largest
// state within the engine's limits, with every explicit matrix, is smaller).
constexpr size_t kMaxInputBytes = size_t{512} << 20;

void print_error_line(const nlohmann::ordered_json& j) {
  std::cerr << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  std::cerr.flush();
}

int report_error(int code, const std::string& error, const std::string& field) {
  print_error_line({{"error", error}, {"field", field}});
  return code;
}

// The engine's refusal: the sentence and field as above, then its code and values.
int report_refusal(int code, const attnviz::Status& st) {
  nlohmann::ordered_json j = {{"error", st.error}, {"field", st.field}, {"code", st.code}, {"args", st.args}};
  if (!st.phrases.empty()) {
    nlohmann::ordered_json phrases = nlohmann::ordered_json::array();
    for (const attnviz::StatusPhrase& p : st.phrases) phrases.push_back({{"code", p.code}, {"args", p.args}});
    j["phrases"] = std::move(phrases);
  }
  print_error_line(j);
  return code;
}

// Reads all of `f` in chunks (files, pipes and process substitutions alike).
bool read_stream(std::FILE* f, const std::string& what, std::string* text, std::string* error) {
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    if (text->size() + n > kMaxInputBytes) {
      *error = what + " is larger than 512 MiB; that is not a session state";
      return false;
    }
    text->append(buf, n);
  }
  if (std::ferror(f)) {
    *error = "could not read " + what;
    return false;
  }
  return true;
}

// Reads all of FILE (or stdin for "-") into *text; false with a sentence on failure.
bool read_input(const std::string& path, std::string* text, std::string* error) {
  if (path == "-") return read_stream(stdin, "the state on standard input", text, error);
  struct stat info;
  if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    *error = "\"" + path + "\" is a directory, not a state file";
    return false;
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    *error = "cannot open \"" + path + "\": " + std::strerror(errno);
    return false;
  }
  bool ok = read_stream(f, "\"" + path + "\"", text, error);
  std::fclose(f);
  return ok;
}

// Writes all of `text` to standard output, unbuffered, and says whether it could.
// A pipe can refuse part of a write for a moment (EAGAIN): under node with worker
// threads (the wasm-mt build) standard output is a non-blocking pipe, and a
// report larger than the pipe's 64 KiB was cut there. The rest is written once
// the reader has taken some.
bool write_stdout(std::string_view text) {
  std::fflush(stdout);
  while (!text.empty()) {
    const ssize_t n = ::write(STDOUT_FILENO, text.data(), text.size());
    if (n > 0) {
      text.remove_prefix(static_cast<size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      ::usleep(1000);
    } else {
      return false;
    }
  }
  return true;
}

using CommandFn = int (*)(int argc, char** argv);  // argv[0] is the subcommand

// Reads and parses the state in FILE (or standard input for "-"); on failure
// reports the error (exit 2) and returns false with *exit_code set.
bool read_state(const char* path, attnviz::State* state, int* exit_code) {
  std::string text, error;
  if (!read_input(path, &text, &error)) {
    *exit_code = report_error(kExitBadInput, error, "");
    return false;
  }
  // A .safetensors state file or JSON text, told apart by the first bytes.
  const attnviz::Status st = attnviz::looks_like_safetensors(text, text.size())
                                 ? attnviz::state_from_safetensors(text, state)
                                 : attnviz::parse_state_text(text, state);
  if (!st.ok) {
    *exit_code = report_refusal(kExitBadInput, st);
    return false;
  }
  return true;
}

int cmd_run(int argc, char** argv) {
  if (argc != 2) {
    return report_error(kExitBadInput, "usage: attnviz-cli run FILE (or - for standard input)", "");
  }
  attnviz::State state;
  int code = kExitOk;
  if (!read_state(argv[1], &state, &code)) return code;
  attnviz::LayerStack stack;  // one layer, or a trained model's every layer
  const attnviz::Status st = stack.set_state(std::move(state));
  if (!st.ok) return report_refusal(kExitBadInput, st);
  const std::string out = attnviz::report_text(stack) + "\n";
  return write_stdout(out) ? kExitOk : kExitInternal;
}

// What job each head learned (attnviz/model.h, head scores): on the state's
// tokens under "layers", and for a model state on its standard probe under "probe".
int cmd_head_scores(int argc, char** argv) {
  if (argc != 2) {
    return report_error(kExitBadInput, "usage: attnviz-cli head-scores FILE (or - for standard input)", "");
  }
  attnviz::State state;
  int code = kExitOk;
  if (!read_state(argv[1], &state, &code)) return code;
  attnviz::LayerStack stack;
  const attnviz::Status st = stack.set_state(std::move(state));
  if (!st.ok) return report_refusal(kExitBadInput, st);
  return write_stdout(attnviz::head_scores_report(stack) + "\n") ? kExitOk : kExitInternal;
}

// The state as a PyTorch script that computes the same stages (docs/engine.md,
// "PyTorch script"); `python3 script.py --json` prints this state's report.
int cmd_export_torch(int argc, char** argv) {
  const std::string usage =
      "usage: attnviz-cli export-torch FILE (or - for standard input) [--lang LANG] [--layer N]";
  int layer = -1;
  attnviz::TorchScriptOptions options;
  const char* path = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--lang") {
      if (i + 1 >= argc) return report_error(kExitBadInput, "--lang needs a language; " + usage, "--lang");
      options.language = argv[++i];
      if (!attnviz::torch_script_has_language(options.language)) {
        std::string known;
        for (const std::string& l : attnviz::torch_script_languages()) known += (known.empty() ? "" : ", ") + l;
        return report_error(kExitBadInput,
                            "there are no comments in language \"" + options.language + "\" (known: " + known + ")",
                            "--lang");
      }
    } else if (arg == "--layer") {
      char* end = nullptr;
      const long n = i + 1 < argc ? std::strtol(argv[i + 1], &end, 10) : -1;
      if (i + 1 >= argc || end == argv[i + 1] || *end != '\0' || n < 0 || n >= attnviz::Limits::kMaxLayers)
        return report_error(kExitBadInput, "--layer needs a layer number from 0; " + usage, "--layer");
      layer = static_cast<int>(n);
      ++i;
    } else if (path == nullptr && (arg == "-" || arg.rfind("--", 0) != 0)) {
      path = argv[i];
    } else {
      return report_error(kExitBadInput, "unexpected argument \"" + arg + "\"; " + usage, "");
    }
  }
  if (path == nullptr) return report_error(kExitBadInput, usage, "");
  attnviz::State state;
  int code = kExitOk;
  if (!read_state(path, &state, &code)) return code;
  if (layer > 0 && layer >= static_cast<int>(state.layers.size())) {
    const std::string have = state.captured() ? std::to_string(state.layers.size()) + " captured layers" : "one layer";
    return report_error(kExitBadInput, "--layer " + std::to_string(layer) + ": this state has " + have, "--layer");
  }
  options.layer = std::max(layer, 0);
  return write_stdout(attnviz::torch_script(state, options)) ? kExitOk : kExitInternal;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A state from one file to another: JSON → .safetensors (quick to read for big
// explicit weights) or back. OUT is replaced.
int cmd_convert(int argc, char** argv) {
  if (argc != 3) return report_error(kExitBadInput, "usage: attnviz-cli convert IN OUT (OUT.safetensors or OUT.json)", "");
  attnviz::State state;
  int code = kExitOk;
  if (!read_state(argv[1], &state, &code)) return code;
  const std::string out_path = argv[2];
  const std::string bytes = ends_with(out_path, ".safetensors") ? attnviz::state_to_safetensors(state)
                                                                 : attnviz::state_to_json(state).dump(2) + "\n";
  if (out_path == "-") return write_stdout(bytes) ? kExitOk : report_error(kExitInternal, "could not write the state", "");
  std::FILE* f = std::fopen(out_path.c_str(), "wb");
  if (!f) return report_error(kExitBadInput, "cannot write \"" + out_path + "\": " + std::strerror(errno), "");
  const bool wrote = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const bool closed = std::fclose(f) == 0;
  if (!wrote || !closed) return report_error(kExitInternal, "could not write \"" + out_path + "\"", "");
  return kExitOk;
}

// A head's (S × S) stage at a glance, and how long the engine took to pool it ("ms", one
// thread): the committed measure of overviews (docs/engine.md, "Rows on demand").
int cmd_overview(int argc, char** argv) {
  const std::string usage = "usage: attnviz-cli overview FILE|- --stage S --head H --block B [--pool max|mean]";
  const char* path = nullptr;
  std::string stage_name = "weights", pool_name = "max";
  long head = 0, block = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    auto number = [&](long* out, long lo, long hi) {
      char* end = nullptr;
      *out = has_value ? std::strtol(argv[i + 1], &end, 10) : -1;
      const bool ok = has_value && end != argv[i + 1] && *end == '\0' && *out >= lo && *out <= hi;
      ++i;
      return ok;
    };
    if (arg == "--stage" && has_value) {
      stage_name = argv[++i];
    } else if (arg == "--pool" && has_value) {
      pool_name = argv[++i];
    } else if (arg == "--head") {
      if (!number(&head, 0, 1 << 20)) return report_error(kExitBadInput, "--head needs a head number from 0; " + usage, "--head");
    } else if (arg == "--block") {
      if (!number(&block, 1, attnviz::Limits::kMaxTokens))
        return report_error(kExitBadInput, "--block needs a block size from 1; " + usage, "--block");
    } else if (path == nullptr && (arg == "-" || arg.rfind("--", 0) != 0)) {
      path = argv[i];
    } else {
      return report_error(kExitBadInput, "unexpected argument \"" + arg + "\"; " + usage, "");
    }
  }
  if (path == nullptr || block == 0) return report_error(kExitBadInput, usage, "");
  attnviz::Stage stage;
  if (!attnviz::stage_from_name(stage_name, &stage) || !attnviz::stage_info(stage).per_head || stage == attnviz::Stage::context ||
      stage == attnviz::Stage::q_rot || stage == attnviz::Stage::k_rot)
    return report_error(kExitBadInput, "--stage \"" + stage_name + "\" is not a (S × S) stage: scores, scaled, bias, masked, weights or dropped", "--stage");
  if (pool_name != "max" && pool_name != "mean")
    return report_error(kExitBadInput, "--pool is max or mean, not \"" + pool_name + "\"", "--pool");
  attnviz::State state;
  int code = kExitOk;
  if (!read_state(path, &state, &code)) return code;
  if (state.model.active() || state.captured())
    return report_error(kExitBadInput, "overview reads a one-layer state (no trained model, no captured layers)", "model");
  attnviz::Pipeline pipeline;
  pipeline.track_demand();  // only the inputs: the overview reads no (S × S) buffer
  const attnviz::Status st = pipeline.set_state(std::move(state));
  if (!st.ok) return report_refusal(kExitBadInput, st);
  if (head >= pipeline.num_heads())
    return report_error(kExitBadInput, "--head " + std::to_string(head) + ": this state has " +
                                           std::to_string(pipeline.num_heads()) + " heads", "--head");
  attnviz::Tensor out;
  const auto t0 = std::chrono::steady_clock::now();
  const bool ok = pipeline.overview(stage, static_cast<int>(head), static_cast<int>(block),
                                    pool_name == "max" ? attnviz::Pipeline::Pool::max : attnviz::Pipeline::Pool::mean, &out);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!ok) return report_error(kExitBadInput, "this state has no " + stage_name + " stage (bias needs ALiBi)", "--stage");
  nlohmann::json data = nlohmann::json::array();
  for (float x : out.data) {  // as the report writes numbers: non-finite ones as "-inf", "inf", "nan"
    if (std::isfinite(x)) data.push_back(x);
    else data.push_back(x != x ? "nan" : (x < 0 ? "-inf" : "inf"));
  }
  const nlohmann::json j = {{"stage", stage_name}, {"head", head}, {"block", block}, {"pool", pool_name},
                            {"rows", out.rows},    {"cols", out.cols}, {"data", data},  {"ms", ms}};
  return write_stdout(j.dump() + "\n") ? kExitOk : kExitInternal;
}

int cmd_version(int argc, char** /*argv*/) {
  if (argc != 1) return report_error(kExitBadInput, "usage: attnviz-cli version", "");
  const nlohmann::json j = {{"name", "attnviz-cli"},
                            {"version", attnviz::kEngineVersion},
                            {"state_version", attnviz::Limits::kStateVersion}};
  std::printf("%s\n", j.dump().c_str());
  return kExitOk;
}

struct Command {
  const char* name;
  const char* usage;
  CommandFn fn;
};

const Command kCommands[] = {
    {"run", "run FILE|-", cmd_run},
    {"head-scores", "head-scores FILE|-", cmd_head_scores},
    {"export-torch", "export-torch FILE|- [--lang LANG] [--layer N]", cmd_export_torch},
    {"convert", "convert IN OUT", cmd_convert},
    {"overview", "overview FILE|- --stage S --head H --block B [--pool max|mean]", cmd_overview},
    {"version", "version", cmd_version},
    {"bench", "bench --tokens S --d-model D --heads H [--causal] [--reps N] [--d-out D2] [--seed N]",
     attnviz_cli::cmd_bench},
    {"bench-long", "bench-long --tokens S --d-model D --heads H [--threads T] [--reps N] [--block B] [--no-causal]",
     attnviz_cli::cmd_bench_long},
};

std::string usage_sentence() {
  std::string s = "usage: attnviz-cli";
  bool first = true;
  for (const Command& c : kCommands) {
    s += first ? " " : " | ";
    s += c.usage;
    first = false;
  }
  return s;
}

int dispatch(int argc, char** argv) {
  if (argc < 2) return report_error(kExitBadInput, usage_sentence(), "");
  const std::string name = argv[1];
  for (const Command& c : kCommands) {
    if (name == c.name) return c.fn(argc - 1, argv + 1);
  }
  return report_error(kExitBadInput, "unknown subcommand \"" + name + "\"; " + usage_sentence(), "");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return dispatch(argc, argv);
  } catch (const std::bad_alloc&) {
    return report_error(kExitInternal, "out of memory", "");
  } catch (const std::exception& e) {
    return report_error(kExitInternal, std::string("internal error: ") + e.what(), "");
  } catch (...) {
    return report_error(kExitInternal, "internal error", "");
  }
}
