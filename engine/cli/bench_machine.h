// bench_machine.h: what `attnviz-cli bench` measures about the machine before
// and beside the engine (issue 37; docs/bench.md, "The machine's peak"):
//   - the CPU model;
//   - the SIMD peak: GFLOP/s of float32 multiplies and adds (separate, as the
//     engine's products do them: kernels.h contract 2) in the vector width
//     the active kernels use (SIMD128 in wasm: 4 lanes; AVX2 natively: 8),
//     the best of a few kernels with enough independent chains;
//   - single-thread read bandwidth at working sets the GEMM's operands live in
//     (L1: a B panel, L2: a packed k-block, beyond: memory);
//   - each kernel of the full forward on the bench's shapes, timed as the
//     pipeline calls it, with its GFLOP/s and fraction of the peak.
#pragma once

#include <nlohmann/json.hpp>

namespace attnviz {
struct State;
}

namespace attnviz_cli {

// "model name" of /proc/cpuinfo natively, node's os.cpus()[0].model in wasm.
std::string cpu_model();

// {"peak_gflops", "peak_isa", "peak_lanes", "peak_kernels": {name: GFLOP/s},
//  and natively "peak_simd128_gflops" (the 4-lane peak)}. About 50 ms.
nlohmann::json measure_peak();

// measure_peak() once more, each kernel the better of the two measurements: a
// neighbour sharing the core (a hyperthread of the host) can take it for the
// 0.1 s of one measurement, so the bench measures first and last.
nlohmann::json measure_peak_again(const nlohmann::json& before);

// {"bandwidth_gbs": {"l1_16k", "l2_512k", "mem_32m"}}: GB/s of a vector sum.
nlohmann::json measure_bandwidth();

// The forward's kernels on explicit state s (X and weights given as values,
// qkv_bias, out_proj), each the median over reps of its time in one forward:
// {"qkv", "scores", "softmax", "context", "output", "other"} each with
// {"ms" (CPU), "wall_ms", "gflop" (what it executes), "gflops", "of_peak"}.
// `other` is full_cpu_ms minus the five (transposes, copies, allocation).
nlohmann::json measure_kernels(const attnviz::State& s, int reps, double peak_gflops, double full_cpu_ms);

}  // namespace attnviz_cli
