// bench_long.cpp: `attnviz-cli bench-long`, issue 36's targets for a long input as one
// JSON line (docs/bench.md, "Long inputs").
//
//   attnviz-cli bench-long --tokens S --d-model D --heads H [--threads T] [--reps N]
//                          [--block B] [--no-causal] [--no-all]
//
// The state is the bench's layer (S distinct tokens, seeded embedding, nn.Linear
// weights with biases and an output projection), causal unless --no-causal, run as the
// page runs it: a lazy pipeline (track_demand) that shows one head's weights as an
// overview of B × B blocks (B = ⌈S / 256⌉ unless given), max pooled. Keys:
//   load_ms          a fresh pipeline's set_state (X from the seed, Q, K, V)
//   first_map_ms     then the shown head's overview, every pooled row: the issue's "shown
//                    head's overview ≤ 1 s after load" at 8,192
//   shown_ms         load_ms + first_map_ms: from the state to the first map
//   all_maps_ms      load_ms + every head's overview (target ≤ 4 s); null with --no-all
//   edit_last_ms     median: negate X's last row (and back), set_state, bring the shown
//                    overview up to date (target ≤ 100 ms)
//   edit_first_ms    the same with row 0, which every row sees (target ≤ 1.5 s)
//   tile_ms          median: a 64 × 64 tile of exact cells (block 1) not computed before,
//                    at a different place each rep (target ≤ 50 ms)
//   pan_ms           median: the same tile read again (kept rows: what a pan over
//                    computed tiles costs; 60 fps is 16.7 ms a frame)
//   pipeline_mb      Pipeline::bytes_held() at the end; peak_heap_mb as `bench` measures it
// Edits run on X given as values (the seeded X materialised first), so that a one-row
// edit changes exactly one row, as in `bench`.
#include "bench_long.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <sys/resource.h>
#ifdef __EMSCRIPTEN__
#include <emscripten/heap.h>
#endif

#include <nlohmann/json.hpp>

#include "attnviz/materialize.h"
#include "attnviz/parallel.h"
#include "attnviz/pipeline.h"
#include "attnviz/state.h"

namespace attnviz_cli {
namespace {

using attnviz::Pipeline;
using attnviz::Stage;
using clk = std::chrono::steady_clock;

double ms_since(clk::time_point t0) { return std::chrono::duration<double, std::milli>(clk::now() - t0).count(); }

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double round3(double x) { return std::round(x * 1000.0) / 1000.0; }

double heap_mb() {
#ifdef __EMSCRIPTEN__
  return static_cast<double>(emscripten_get_heap_size()) / (1024.0 * 1024.0);
#else
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
#endif
}

int fail(const std::string& why) {
  std::fprintf(stderr, "%s\n", nlohmann::json({{"error", why}, {"field", "bench-long"}}).dump().c_str());
  return 2;
}

struct Opts {
  int S = 8192, d = 768, H = 12, threads = 1, reps = 5, block = 0;
  bool causal = true;
  bool all = true;  // --no-all: skip every head's overview (at 32,768 tokens it takes minutes)
};

bool parse(int argc, char** argv, Opts* o, std::string* why) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--no-causal" || a == "--no-all") {
      (a == "--no-causal" ? o->causal : o->all) = false;
      continue;
    }
    int* dst = a == "--tokens" ? &o->S : a == "--d-model" ? &o->d : a == "--heads" ? &o->H
             : a == "--threads" ? &o->threads : a == "--reps" ? &o->reps : a == "--block" ? &o->block : nullptr;
    if (dst == nullptr || i + 1 >= argc) {
      *why = "usage: attnviz-cli bench-long --tokens S --d-model D --heads H [--threads T] [--reps N] [--block B] "
             "[--no-causal] [--no-all] (unknown or incomplete: " + a + ")";
      return false;
    }
    char* end = nullptr;
    const long v = std::strtol(argv[++i], &end, 10);
    if (*end != '\0' || v < 1 || v > (1 << 20)) {
      *why = a + " takes a whole number from 1 to 1048576, not " + argv[i];
      return false;
    }
    *dst = static_cast<int>(v);
  }
  if (o->S < 64 || o->S > attnviz::Limits::kMaxTokens) {
    *why = "--tokens must be from 64 to " + std::to_string(attnviz::Limits::kMaxTokens);
    return false;
  }
  if (o->d % o->H != 0) {
    *why = "--d-model must be divisible by --heads";
    return false;
  }
  return true;
}

attnviz::State make_state(const Opts& o) {
  attnviz::State s;
  s.tokens.clear();
  for (int i = 0; i < o.S; ++i) s.tokens.push_back("t" + std::to_string(i));
  s.d_model = s.d_out = o.d;
  s.num_heads = o.H;
  s.causal = o.causal;
  s.qkv_bias = s.out_proj = true;
  s.embedding.init = attnviz::EmbeddingInit::torch_randn;
  s.embedding.seed = 123;
  s.weights.init = attnviz::WeightInit::torch_linear;
  s.weights.seed = 123;
  return s;
}

// Brings every pooled row of head h's overview up to date; the time it took.
double fill_map(const Pipeline& p, int h, int b) {
  const int n = (p.seq_len() + b - 1) / b;
  const clk::time_point t0 = clk::now();
  p.map_prepare(Stage::weights, h, b, Pipeline::Pool::max, 0, n, 1e12);
  return ms_since(t0);
}

}  // namespace

int cmd_bench_long(int argc, char** argv) {
  Opts o;
  std::string why;
  if (!parse(argc, argv, &o, &why)) return fail(why);
  if (attnviz::set_threads(o.threads) != o.threads) return fail("this build runs at most " +
                                                               std::to_string(attnviz::max_threads()) + " threads");
  const int b = o.block > 0 ? o.block : (o.S + 255) / 256;
  const int n = (o.S + b - 1) / b;
  attnviz::State seeded = make_state(o);

  // Load, the shown head's overview, then every head's.
  Pipeline p;
  p.track_demand();
  clk::time_point t0 = clk::now();
  attnviz::Status st = p.set_state(seeded);
  if (!st.ok) return fail(st.error);
  const double load = ms_since(t0);
  const double first = fill_map(p, 0, b);
  double rest = 0;
  for (int h = 1; h < o.H && o.all; ++h) rest += fill_map(p, h, b);

  // Edits on X as values: the same numbers, one row changed at a time.
  attnviz::State given = seeded;
  attnviz::Tensor x;
  if (!p.matrix(Stage::X, 0)) return fail("no X");
  x = *p.matrix(Stage::X, 0);
  given.embedding.init = attnviz::EmbeddingInit::values;
  given.embedding.values = attnviz::SharedTensor(x);
  st = p.set_state(given);
  if (!st.ok) return fail(st.error);
  fill_map(p, 0, b);
  auto edit = [&](int row) {
    std::vector<double> t;
    for (int r = 0; r < o.reps * 2; ++r) {
      attnviz::Tensor e = x;
      if (r % 2 == 0)
        for (int c = 0; c < o.d; ++c) e.at(row, c) = -e.at(row, c);
      given.embedding.values = attnviz::SharedTensor(std::move(e));
      p.track_demand();
      const clk::time_point s0 = clk::now();
      if (!p.set_state(given).ok) return std::vector<double>{};
      p.map_prepare(Stage::weights, 0, b, Pipeline::Pool::max, 0, n, 1e12);
      t.push_back(ms_since(s0));
    }
    return t;
  };
  const std::vector<double> last = edit(o.S - 1), first_row = edit(0);

  // Tiles of exact cells, each where none was computed, then read again.
  std::vector<double> tile, pan;
  attnviz::Tensor cells;
  for (int r = 0; r < o.reps; ++r) {
    const int i0 = std::min(o.S - 64, (o.S / (o.reps + 1)) * (r + 1));
    clk::time_point s0 = clk::now();
    p.map(Stage::weights, 0, 1, Pipeline::Pool::max, i0, 64, std::max(0, i0 - 32), 64, &cells);
    tile.push_back(ms_since(s0));
    s0 = clk::now();
    p.map(Stage::weights, 0, 1, Pipeline::Pool::max, i0, 64, std::max(0, i0 - 32), 64, &cells);
    pan.push_back(ms_since(s0));
  }
  nlohmann::json j = {{"S", o.S},
                      {"d_model", o.d},
                      {"heads", o.H},
                      {"causal", o.causal},
                      {"threads", o.threads},
                      {"block", b},
                      {"reps", o.reps},
                      {"load_ms", round3(load)},
                      {"first_map_ms", round3(first)},
                      {"shown_ms", round3(load + first)},
                      {"all_maps_ms", o.all ? nlohmann::json(round3(load + first + rest)) : nlohmann::json(nullptr)},
                      {"edit_last_ms", round3(median(last))},
                      {"edit_first_ms", round3(median(first_row))},
                      {"tile_ms", round3(median(tile))},
                      {"pan_ms", round3(median(pan))},
                      {"pipeline_mb", round3(static_cast<double>(p.bytes_held()) / (1024.0 * 1024.0))},
                      {"peak_heap_mb", round3(heap_mb())}};
  std::printf("%s\n", j.dump().c_str());
  return 0;
}

}  // namespace attnviz_cli
