// attnviz/report.h: the whole pipeline as JSON in, JSON out.
//
// This is what `attnviz-cli run` prints and what tests and other tools call.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "attnviz/status.h"

namespace attnviz {

class Pipeline;
class LayerStack;

// Version of the engine (the CLI's `version` subcommand prints it).
constexpr const char* kEngineVersion = "0.1.0";

// The report object of the pipeline's current result:
//   {"tokens", "X", "W_q", "W_k", "W_v", "W_o" (if out_proj), "b_q", "b_k",
//    "b_v" (if qkv_bias), "b_o" (if out_proj and out_bias), "Q", "K", "V",
//    "heads": [{"scores", "scaled", "masked", "weights", "dropped", "context"}...],
//    "concat", "output"}
// Matrices are arrays of rows, vectors (b_*) flat arrays. Finite numbers are
// the shortest decimals that give back the exact float32 when read as a
// double and rounded to float; non-finite ones are the strings "-inf",
// "inf", "nan". An empty object when the pipeline has no result.
nlohmann::json report_json(const Pipeline& pipeline);

// The same report as compact JSON text with the keys in pipeline order (as
// listed above; report_json's object sorts them). What `attnviz-cli run` prints.
std::string report_text(const Pipeline& pipeline);

// A LayerStack's report: without a model its one layer's, as above; with one
//   {"tokens", "model": {"name", "step"}, "token_ids", "token_embedding",
//    "position_embedding", "residual": [x_0 .. x_L], "layers": [report of each
//    layer, as above, its X being x_l], "logits"}.
std::string report_text(const LayerStack& stack);

// Parses `state` (the session-state schema of docs/engine.md, "version": 1),
// runs the whole pipeline and writes report_json() to *report_out.
// On bad input returns !ok with error + field and leaves *report_out
// untouched. Never throws.
Status run_state_json(const nlohmann::json& state, nlohmann::json* report_out);

}  // namespace attnviz
