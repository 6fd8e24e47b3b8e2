// bench.cpp: `attnviz-cli bench`, the engine's timings as one JSON line.
//
//   attnviz-cli bench --tokens S --d-model D --heads H [--causal] [--reps N]
//                     [--d-out D2] [--seed N] [--view all|stages|compare|output]
//                     [--rope] [--kv-heads G] [--alibi] [--window W]   (issue 23's variants)
//                     [--threads T] [--weights seeded|explicit]
//
// The state is a multi-head attention layer with every stage the report has:
// S generated tokens "t0" ... "t{S-1}" (all distinct), seeded embedding
// (torch_randn), nn.Linear weights (torch_linear) with Q/K/V biases and an
// output projection with bias, scaled by √head_dim. The seeded inputs are
// materialized to explicit values once, before any timing, so full_ms is the
// forward itself (like the peers, which are handed their inputs). Edits and
// toggles run on explicit X (a one-token edit changes exactly one row of it)
// with the weights kept as their seed, as the app keeps them.
//
// Keys (docs/bench.md defines each one precisely):
//   full_ms          median over reps: a fresh Pipeline's set_state(state)
//   incremental_ms   median: negate row S/2 of X (and back), set_state
//                    (extras: row 0, the most expensive edit under a causal
//                    mask, and row S−1, the cheapest: typing at the end)
//   toggle_ms        the slowest of the three toggle medians (causal, dropout, temperature)
//   (times are wall clock; the *_cpu_ms extras are this process's CPU time,
//   which a busy shared machine disturbs far less)
//   gflops           flops / full_ms (flops: the formula in flops_of below)
//   peak_heap_mb     wasm: WebAssembly memory size at the end (it only grows);
//                    native: peak resident set size (getrusage ru_maxrss)
// plus extras (S, reps, the three toggle medians, minima, the seeded path, ...).
// Each kind of call is made once untimed before its reps (a warm-up, as the
// peers get; see time_edits).
//
// --view: `all` (the default) keeps every stage current after each set_state
// (an eager Pipeline), the figure. `stages` and `compare` run the
// pipeline as the UI does (lazy, Pipeline::track_demand) with what one of
// its views shows: the Stages tab (scores ... context of head 0), the
// Compare heads tab (every head's weights) or the "Q K V & output" tab
// (X, Q, K, V, concat and output: every head's context, so nearly `all`).
// Every timed call is then
// set_state plus reading that view, each followed by a new frame
// (track_demand); reading a view right after a full build computes the
// stages set_state left stale, inside the timing.
//
// In a lazy view each timed call also does what the app does with a state
// around set_state (AppModel::apply, ui/app/app.cpp): the control's draft is
// copied and handed over, the state it replaces is kept for undo, the two are
// compared to decide whether anything changed (State's ==), the draft becomes
// the new state, and the replaced one goes onto a bounded undo stack. With the
// explicit matrices shared (SharedTensor) none of that reads or copies a weight.
//
// --weights: what the edits and toggles run on. `seeded` (the default) keeps
// the weights as their seed, as the app keeps a tutorial's; `explicit` gives
// them as values, as File → Open weights… does (the same numbers). The seeded
// and explicit rows of `make bench` compare the two (docs/bench.md).
//
// --threads T (default 1): the engine's matrix products may use T threads
// (attnviz/parallel.h; the bits do not change). The figures are one
// thread; with more, compare the wall-clock keys (the *_cpu_ms keys then sum
// every thread's time). A build with fewer threads than asked (the default
// WebAssembly build has one) refuses with exit 2.
#include "bench.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <malloc.h>
#include <sys/resource.h>

#include <time.h>

#ifdef __EMSCRIPTEN__
#include <emscripten/em_asm.h>
#include <emscripten/heap.h>
#endif

#include <nlohmann/json.hpp>

#include "attnviz/materialize.h"
#include "attnviz/parallel.h"
#include "attnviz/pipeline.h"
#include "attnviz/state.h"
#include "bench_clock.h"
#include "bench_machine.h"

namespace attnviz_cli {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitInternal = 1;
constexpr int kExitBadInput = 2;
constexpr int kMaxReps = 1000;
constexpr const char* kUsage =
    "usage: attnviz-cli bench --tokens S --d-model D --heads H [--causal] [--reps N] "
    "[--d-out D2] [--seed N] [--view all|stages|compare|output] [--threads T] "
    "[--rope] [--kv-heads G] [--alibi] [--window W] [--weights seeded|explicit]";

// The same one-line error format as the other subcommands (main.cpp).
int bench_error(int code, const std::string& error, const std::string& field) {
  const nlohmann::json j = {{"error", error}, {"field", field}};
  std::cerr << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  std::cerr.flush();
  return code;
}

struct Options {
  int tokens = 0;   // S (required)
  int d_model = 0;  // (required)
  int heads = 0;    // (required)
  int d_out = 0;    // 0: same as d_model
  bool causal = false;
  int reps = 5;
  uint64_t seed = 123;
  std::string view = "all";  // all | stages | compare | output (see the top of this file)
  int threads = 1;
  // Issue 23's variants: RoPE (half), K/V heads (0: num_heads), ALiBi, a window (0: none).
  bool rope = false, alibi = false;
  int kv_heads = 0, window = 0;
  bool explicit_weights = false;  // --weights explicit
};

// A whole decimal number in [lo, hi]; false when text is anything else.
bool parse_int(const char* text, long long lo, long long hi, long long* out) {
  if (!text || !*text) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

// Parses argv (argv[0] is "bench"); on failure *error holds the sentence and
// *field the flag at fault.
bool parse_options(int argc, char** argv, Options* o, std::string* error, std::string* field) {
  struct IntFlag {
    const char* name;
    long long lo, hi;
    long long value = -1;
  };
  // Ranges here only keep the numbers sane; validate_state() applies the
  // engine's limits (S ≤ 2048, memory, divisibility) with its own sentences.
  IntFlag ints[] = {{"--tokens", 1, 1 << 20},  {"--d-model", 1, 1 << 20}, {"--heads", 1, 1 << 20},
                    {"--d-out", 1, 1 << 20},   {"--reps", 1, kMaxReps},   {"--seed", 0, INT64_MAX},
                    {"--threads", 1, attnviz::kMaxThreads}, {"--kv-heads", 1, 1 << 20}, {"--window", 1, 1 << 20}};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--causal" || arg == "--rope" || arg == "--alibi") {
      (arg == "--causal" ? o->causal : arg == "--rope" ? o->rope : o->alibi) = true;
      continue;
    }
    if (arg == "--view") {
      *field = arg;
      const std::string v = i + 1 < argc ? argv[i + 1] : "";
      if (v != "all" && v != "stages" && v != "compare" && v != "output") {
        *error = "--view must be all, stages, compare or output, not \"" + v + "\"";
        return false;
      }
      o->view = v;
      ++i;
      continue;
    }
    if (arg == "--weights") {
      *field = arg;
      const std::string v = i + 1 < argc ? argv[i + 1] : "";
      if (v != "seeded" && v != "explicit") {
        *error = "--weights must be seeded or explicit, not \"" + v + "\"";
        return false;
      }
      o->explicit_weights = v == "explicit";
      ++i;
      continue;
    }
    IntFlag* flag = nullptr;
    for (IntFlag& f : ints) {
      if (arg == f.name) flag = &f;
    }
    *field = arg;
    if (!flag) {
      *error = "unknown option \"" + arg + "\"; " + kUsage;
      return false;
    }
    if (i + 1 >= argc) {
      *error = arg + " needs a number; " + kUsage;
      return false;
    }
    long long v = 0;
    if (!parse_int(argv[i + 1], flag->lo, flag->hi, &v)) {
      *error = arg + " must be a whole number from " + std::to_string(flag->lo) + " to " +
               std::to_string(flag->hi) + ", not \"" + argv[i + 1] + "\"";
      return false;
    }
    flag->value = v;
    ++i;
  }
  for (int k = 0; k < 3; ++k) {
    if (ints[k].value < 0) {
      *field = ints[k].name;
      *error = std::string(ints[k].name) + " is required; " + kUsage;
      return false;
    }
  }
  field->clear();
  o->tokens = static_cast<int>(ints[0].value);
  o->d_model = static_cast<int>(ints[1].value);
  o->heads = static_cast<int>(ints[2].value);
  o->d_out = ints[3].value > 0 ? static_cast<int>(ints[3].value) : o->d_model;
  if (ints[4].value > 0) o->reps = static_cast<int>(ints[4].value);
  if (ints[5].value >= 0) o->seed = static_cast<uint64_t>(ints[5].value);
  if (ints[6].value > 0) o->threads = static_cast<int>(ints[6].value);
  if (ints[7].value > 0) o->kv_heads = static_cast<int>(ints[7].value);
  if (ints[8].value > 0) o->window = static_cast<int>(ints[8].value);
  return true;
}

// The seeded state described at the top of this file.
attnviz::State make_state(const Options& o) {
  attnviz::State s;
  s.tokens.clear();
  s.tokens.reserve(o.tokens);
  for (int i = 0; i < o.tokens; ++i) s.tokens.push_back("t" + std::to_string(i));
  s.d_model = o.d_model;
  s.d_out = o.d_out;
  s.num_heads = o.heads;
  s.embedding.init = attnviz::EmbeddingInit::torch_randn;
  s.embedding.seed = o.seed;
  s.weights.init = attnviz::WeightInit::torch_linear;
  s.weights.seed = o.seed;
  s.weights.layout = attnviz::WeightLayout::fused;
  s.qkv_bias = true;
  s.out_proj = true;
  s.out_bias = true;
  s.scale = attnviz::ScaleMode::head_dim;
  s.causal = o.causal;
  s.dropout.seed = o.seed;
  if (o.rope) s.positional = attnviz::Positional::rope;
  s.num_kv_heads = o.kv_heads;
  s.alibi = o.alibi;
  s.window = o.window;
  return s;
}

// Floating-point operations of one full forward, a multiply-add counted as 2:
//   Q, K, V   3 · (2·S·d_model·d_out + S·d_out)   products + biases
//   scores    2·S²·d_out                           H heads of Q_h·K_hᵀ (S×head_dim · head_dim×S)
//   context   2·S²·d_out                           H heads of weights·V_h
//   output    2·S·d_out² + S·d_out                 concat·W_o + b_o
// The causal mask does not halve the count (every engine here computes the
// dense matrices); scale, mask, softmax and dropout (about 6·H·S², under 1%
// at d_out = 768) are not counted.
double flops_of(const Options& o) {
  const double S = o.tokens, dm = o.d_model, dout = o.d_out;
  return 3 * (2 * S * dm * dout + S * dout) + 4 * S * S * dout + 2 * S * dout * dout + S * dout;
}

// One timed call: wall-clock and CPU milliseconds.
struct Times {
  std::vector<double> wall, cpu;
  void add(double w, double c) {
    wall.push_back(w);
    cpu.push_back(c);
  }
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double min_of(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
}

double round3(double x) { return std::round(x * 1000.0) / 1000.0; }

// Peak memory in MiB and how it was measured (see the top of this file).
double peak_heap_mb(const char** source) {
#ifdef __EMSCRIPTEN__
  *source = "wasm_memory_size";
  return static_cast<double>(emscripten_get_heap_size()) / (1024.0 * 1024.0);
#else
  *source = "ru_maxrss";
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux: KiB
#endif
}

// The view being measured (--view): empty for `all`, else the matrices that
// view reads each frame.
std::string g_view = "all";

// Reads what the view shows, as its panels do each frame (a stale stage is
// computed here). Returns a checksum of one cell per matrix so the reads
// cannot be optimised away.
float read_view(const attnviz::Pipeline& p) {
  float sum = 0;
  auto touch = [&](attnviz::Stage s, int h) {
    const attnviz::Tensor* t = p.matrix(s, h);
    if (t != nullptr && !t->empty()) sum += t->data[0];
    p.version(s, h);
  };
  if (g_view == "stages") {
    for (attnviz::Stage s : {attnviz::Stage::scores, attnviz::Stage::scaled, attnviz::Stage::masked,
                             attnviz::Stage::weights, attnviz::Stage::dropped, attnviz::Stage::context}) {
      touch(s, 0);
    }
  } else if (g_view == "compare") {
    for (int h = 0; h < p.num_heads(); ++h) touch(attnviz::Stage::weights, h);
  } else if (g_view == "output") {
    for (attnviz::Stage s : {attnviz::Stage::X, attnviz::Stage::Q, attnviz::Stage::K, attnviz::Stage::V,
                             attnviz::Stage::concat, attnviz::Stage::output}) {
      touch(s, 0);
    }
  }
  return sum;
}

volatile float g_sink = 0;

// What the app keeps beside the pipeline (AppModel): the draft its controls
// edit and the undo stack (ui/app/model/history.h keeps at most 200 steps).
struct AppSide {
  attnviz::State draft;
  std::deque<attnviz::State> undo;
  uint64_t changes = 0;
};
AppSide g_app;

// Times one set_state (plus reading the view, in a lazy view); throws
// (caught in main) if the engine refuses a state the bench built itself,
// which would be a bug. The state is handed over (set_state(State&&)) as the
// UI hands over each state. In `all` the copy handed over is made before the
// clock starts; in a lazy view the app's handling of the state is timed too
// (the top of this file).
void timed_set_state(attnviz::Pipeline* p, const attnviz::State& s, Times* t) {
  const bool lazy = g_view != "all";
  if (!lazy) {
    attnviz::State handed = s;
    const double c0 = now_cpu_ms(), t0 = now_ms();
    const attnviz::Status st = p->set_state(std::move(handed));
    const double t1 = now_ms(), c1 = now_cpu_ms();
    if (!st.ok) throw std::runtime_error("bench state refused: " + st.error);
    if (t) t->add(t1 - t0, c1 - c0);
    return;
  }
  g_app.draft = s;  // the control's edit (untimed: the bench made it)
  p->track_demand();  // a new frame
  const double c0 = now_cpu_ms(), t0 = now_ms();
  // AppModel::apply(draft): the draft handed over by value, the replaced state kept.
  attnviz::State handed = g_app.draft;
  const bool had = p->has_result();
  attnviz::State before = had ? p->state() : attnviz::State();
  const attnviz::Status st = p->set_state(std::move(handed));
  if (st.ok) {
    g_app.draft = p->state();
    if (had && before != p->state()) {
      ++g_app.changes;
      g_app.undo.push_back(std::move(before));
      if (g_app.undo.size() > 200) g_app.undo.pop_front();
    }
    g_sink = g_sink + read_view(*p);
  }
  const double t1 = now_ms(), c1 = now_cpu_ms();
  if (!st.ok) throw std::runtime_error("bench state refused: " + st.error);
  if (t) t->add(t1 - t0, c1 - c0);
}

// Negates row i of X (its own inverse, and every value changes: randn rows
// hold no zeros).
void negate_row(attnviz::State* s, int i) {
  float* row = s->embedding.values.mut().row(i);
  for (int c = 0; c < s->d_model; ++c) row[c] = -row[c];
}

// One-token edits of row i, there and back, reps times each way.
// Every kind of timed call is first made once there and back untimed (r = −1),
// as the peers get a warm-up: node compiles wasm functions with a baseline
// compiler and recompiles the hot ones optimised on background threads, whose
// CPU time process.cpuUsage() counts. Without it the first calls of a kind
// read milliseconds more CPU than wall clock (docs/bench.md).
Times time_edits(attnviz::Pipeline* p, attnviz::State* s, int i, int reps, int* q_rows) {
  Times t;
  for (int r = -1; r < reps; ++r) {
    Times* into = r < 0 ? nullptr : &t;
    negate_row(s, i);
    timed_set_state(p, *s, into);
    *q_rows = p->last_update(attnviz::Stage::Q).rows;
    negate_row(s, i);
    timed_set_state(p, *s, into);
  }
  return t;
}

// A toggle: `set(true)` then `set(false)` reps times, each set_state timed;
// `there` / `back` (optional) also get the two directions apart.
template <typename Set>
Times time_toggle(attnviz::Pipeline* p, attnviz::State* s, int reps, Set set, Times* there = nullptr,
                  Times* back = nullptr) {
  Times t;
  for (int r = -1; r < reps; ++r) {  // r = −1: the warm-up (above time_edits)
    for (bool on : {true, false}) {
      set(s, on);
      Times one;
      timed_set_state(p, *s, &one);
      if (r < 0) continue;
      t.add(one.wall[0], one.cpu[0]);
      Times* dir = on ? there : back;
      if (dir) dir->add(one.wall[0], one.cpu[0]);
    }
  }
  return t;
}

}  // namespace

// Every time cmd_bench measures, by kind.
struct Runs {
  Times full, seeded_full;                        // a fresh pipeline each rep
  Times inc_mid, inc_first, inc_last;             // one row of X edited
  int q_rows_mid = 0, q_rows_first = 0, q_rows_last = 0;
  Times t_causal, causal_off, causal_on, t_padding, t_dropout, t_temp;  // toggles
  bool can_append = false;                        // S + 1 tokens within the engine's limits
  Times append, remove_last;
  int append_q_rows = -1;  // Q rows the last append computed: 1 when the old rows were carried
};

// A state the engine refuses, or more threads than this build has: the exit and the
// sentence, naming the flag (kExitOk when the bench can run).
int check_options(const Options& o, const attnviz::State& seeded) {
  const attnviz::Status valid = attnviz::validate_state(seeded);
  if (!valid.ok) {
    // Name the flag behind the engine's field.
    std::string flag = valid.field;
    if (flag == "tokens") flag = "--tokens";
    if (flag == "d_model") flag = "--d-model";
    if (flag == "d_out") flag = "--d-out";
    if (flag == "num_heads") flag = "--heads";
    return bench_error(kExitBadInput, valid.error, flag);
  }
  if (attnviz::set_threads(o.threads) != o.threads) {
    const int have = attnviz::threads();
    attnviz::set_threads(1);
    return bench_error(kExitBadInput,
                       "--threads " + std::to_string(o.threads) + ": this build can run " + std::to_string(have) +
                           (have == 1 ? " thread (the threaded WebAssembly build is attnviz-mt)" : " threads"),
                       "--threads");
  }
  return kExitOk;
}

// full: a fresh pipeline each rep (destroyed before the next one is made), from the
// explicit state `s`; the seeded path only adds the generator's draws: two reps say enough.
void measure_full(const Options& o, const attnviz::State& seeded, const attnviz::State& s, Runs* r) {
  for (int k = -1; k < o.reps; ++k) {  // k = −1: the warm-up (above time_edits)
    attnviz::Pipeline fresh;
    timed_set_state(&fresh, s, k < 0 ? nullptr : &r->full);
  }
  for (int k = 0; k < std::min(o.reps, 2); ++k) {
    attnviz::Pipeline fresh;
    timed_set_state(&fresh, seeded, &r->seeded_full);
  }
}

// Edits and toggles: explicit X (an edit changes one row of it), weights kept as
// their seed (--weights seeded, as the app keeps a tutorial's) or given as values
// (--weights explicit, as a learner's trained weights come in). Copies of the
// explicit state share its matrices (SharedTensor): an unchanged weight is neither
// copied nor compared nor checked again.
void measure_edits_and_toggles(const Options& o, const attnviz::State& seeded, Runs* r) {
  attnviz::State e = attnviz::materialize_embedding(seeded);
  if (o.explicit_weights) e = attnviz::materialize_weights(e);
  attnviz::Pipeline p;
  timed_set_state(&p, e, nullptr);
  r->inc_mid = time_edits(&p, &e, o.tokens / 2, o.reps, &r->q_rows_mid);
  r->inc_first = time_edits(&p, &e, 0, o.reps, &r->q_rows_first);
  r->inc_last = time_edits(&p, &e, o.tokens - 1, o.reps, &r->q_rows_last);
  const bool causal0 = e.causal;  // the two directions: the causal mask switched off / on
  r->t_causal = time_toggle(
      &p, &e, o.reps, [causal0](attnviz::State* st, bool on) { st->causal = on ? !causal0 : causal0; },
      causal0 ? &r->causal_off : &r->causal_on, causal0 ? &r->causal_on : &r->causal_off);
  // One key's padding switched (an extra: toggle_ms keeps the three others).
  r->t_padding = time_toggle(&p, &e, o.reps, [&o](attnviz::State* st, bool on) {
    if (on) {
      st->key_padding.assign(static_cast<size_t>(o.tokens), 1);
      st->key_padding[static_cast<size_t>(o.tokens / 2)] = 0;
    } else {
      st->key_padding.clear();
    }
  });
  r->t_dropout = time_toggle(&p, &e, o.reps, [](attnviz::State* st, bool on) {
    st->dropout.training = on;
    st->dropout.p = on ? 0.1 : 0.0;
  });
  r->t_temp = time_toggle(
      &p, &e, o.reps, [](attnviz::State* st, bool on) { st->temperature = on ? 1.25 : 1.0; });
}  // p frees its buffers here: one pipeline at a time, as in the app

// Typing a new word at the end: S → S + 1 tokens ("t{S}", a new vocabulary entry),
// then deleting it. Seeded embedding and weights, as the app keeps them: each
// set_state draws the embedding table again, as the app's does. The rebuild holds
// the old result and the new one at once, so this is where the peak heap is reached.
void measure_append(const Options& o, const attnviz::State& seeded, Runs* r) {
  attnviz::State longer = seeded;
  longer.tokens.push_back("t" + std::to_string(o.tokens));
  r->can_append = attnviz::validate_state(longer).ok;  // S + 1 may pass the engine's limit
  if (!r->can_append) return;
  attnviz::Pipeline pa;
  timed_set_state(&pa, seeded, nullptr);
  for (int k = -1; k < o.reps; ++k) {  // k = −1: the warm-up (above time_edits)
    timed_set_state(&pa, longer, k < 0 ? nullptr : &r->append);
    r->append_q_rows = pa.last_update(attnviz::Stage::Q).rows;
    timed_set_state(&pa, seeded, k < 0 ? nullptr : &r->remove_last);
  }
}

// The shape and options the run measured.
void report_shape(const Options& o, nlohmann::json& j) {
  j["view"] = o.view;
  j["S"] = o.tokens;
  j["d_model"] = o.d_model;
  j["d_out"] = o.d_out;
  j["heads"] = o.heads;
  j["causal"] = o.causal;
  j["rope"] = o.rope;
  j["kv_heads"] = o.kv_heads > 0 ? o.kv_heads : o.heads;
  j["alibi"] = o.alibi;
  j["window"] = o.window;
  j["weights"] = o.explicit_weights ? "explicit" : "seeded";
  j["reps"] = o.reps;
  j["threads"] = attnviz::threads();
}

// Edits, appends and toggles, by kind and direction.
void report_updates(const Runs& r, nlohmann::json& j) {
  j["incremental_cpu_ms"] = round3(median(r.inc_mid.cpu));
  j["incremental_min_ms"] = round3(min_of(r.inc_mid.wall));
  j["incremental_first_ms"] = round3(median(r.inc_first.wall));
  j["incremental_first_cpu_ms"] = round3(median(r.inc_first.cpu));
  j["incremental_last_ms"] = round3(median(r.inc_last.wall));
  j["incremental_last_cpu_ms"] = round3(median(r.inc_last.cpu));
  j["incremental_q_rows"] = r.q_rows_mid;
  if (r.can_append) {
    j["append_ms"] = round3(median(r.append.wall));
    j["append_cpu_ms"] = round3(median(r.append.cpu));
    j["remove_last_ms"] = round3(median(r.remove_last.wall));
    j["remove_last_cpu_ms"] = round3(median(r.remove_last.cpu));
    j["append_q_rows"] = r.append_q_rows;
  }
  j["toggle_causal_ms"] = round3(median(r.t_causal.wall));
  j["toggle_causal_on_ms"] = round3(median(r.causal_on.wall));
  j["toggle_causal_off_ms"] = round3(median(r.causal_off.wall));
  j["toggle_padding_ms"] = round3(median(r.t_padding.wall));
  j["toggle_dropout_ms"] = round3(median(r.t_dropout.wall));
  j["toggle_temperature_ms"] = round3(median(r.t_temp.wall));
  j["toggle_cpu_ms"] = round3(
      std::max({median(r.t_causal.cpu), median(r.t_dropout.cpu), median(r.t_temp.cpu)}));
}

// The machine (bench_machine.h): CPU, SIMD peak and the forward's fraction of
// it, read bandwidth, and in --view all each kernel of the forward. Measured
// after the peak heap was read (the kernels' own buffers would count in it).
void report_machine(const Options& o, const attnviz::State& s, const nlohmann::json& first, double full_cpu_ms,
                    nlohmann::json& j) {
  const nlohmann::json peak = measure_peak_again(first);  // the better of first and last
  const double peak_gflops = peak.value("peak_gflops", 0.0);
  j["cpu_model"] = cpu_model();
  for (const auto& kv : peak.items()) j[kv.key()] = kv.value();
  if (peak_gflops > 0) {
    j["of_peak"] = round3(j["gflops_cpu"].get<double>() / peak_gflops);
    j["of_peak_wall"] = round3(j["gflops"].get<double>() / peak_gflops);
  }
  j.update(measure_bandwidth());
  if (o.view == "all") j["kernels"] = measure_kernels(s, o.reps, peak_gflops, full_cpu_ms);
}

int cmd_bench(int argc, char** argv) {
  Options o;
  std::string error, field;
  if (!parse_options(argc, argv, &o, &error, &field)) return bench_error(kExitBadInput, error, field);
  const attnviz::State seeded = make_state(o);
  if (const int bad = check_options(o, seeded); bad != kExitOk) return bad;
  g_view = o.view;
  // The machine's SIMD peak first, on a quiet engine (bench_machine.h).
  const nlohmann::json peak = measure_peak();
  const uint64_t jobs0 = attnviz::parallel_jobs();
  // Explicit X and weights (the same numbers the seeded state gives).
  const attnviz::State s = attnviz::materialize_weights(attnviz::materialize_embedding(seeded));
  Runs r;
  measure_full(o, seeded, s, &r);
  measure_edits_and_toggles(o, seeded, &r);
  measure_append(o, seeded, &r);

  const double full_ms = median(r.full.wall), full_cpu_ms = median(r.full.cpu);
  const double flops = flops_of(o);
  const char* heap_source = "";
  const double heap = peak_heap_mb(&heap_source);
#ifdef __EMSCRIPTEN__
  const char* build = "wasm";
  const double malloc_peak = static_cast<double>(mallinfo().usmblks) / (1024.0 * 1024.0);
#else
  const char* build = "native";
  const double malloc_peak = -1;  // glibc keeps no high-water mark (mallinfo2().usmblks is 0)
#endif

  nlohmann::json j = nlohmann::json::object();
  j["full_ms"] = round3(full_ms);
  j["incremental_ms"] = round3(median(r.inc_mid.wall));
  j["toggle_ms"] = round3(std::max({median(r.t_causal.wall), median(r.t_dropout.wall), median(r.t_temp.wall)}));
  j["gflops"] = round3(full_ms > 0 ? flops / (full_ms * 1e6) : 0);
  j["peak_heap_mb"] = round3(heap);
  j["build"] = build;
  report_shape(o, j);
  j["parallel_jobs"] = attnviz::parallel_jobs() - jobs0;
  j["full_min_ms"] = round3(min_of(r.full.wall));
  j["full_cpu_ms"] = round3(full_cpu_ms);
  j["gflops_cpu"] = round3(full_cpu_ms > 0 ? flops / (full_cpu_ms * 1e6) : 0);
  j["full_seeded_ms"] = round3(median(r.seeded_full.wall));
  report_updates(r, j);
  j["flops"] = flops;
  j["peak_heap_source"] = heap_source;
  if (malloc_peak >= 0) j["malloc_peak_mb"] = round3(malloc_peak);
  j["pipeline_estimate_mb"] =
      round3(static_cast<double>(attnviz::estimate_pipeline_bytes(s)) / (1024.0 * 1024.0));
  j["app_changes"] = g_app.changes;  // lazy views: the state changes the app-side handling saw
  report_machine(o, s, peak, full_cpu_ms, j);
  std::printf("%s\n", j.dump().c_str());
  return std::fflush(stdout) == 0 ? kExitOk : kExitInternal;
}

}  // namespace attnviz_cli
