// attnviz/report.h: the whole pipeline as JSON in, JSON out.
//
// This is what `attnviz-cli run` prints and what tests and other tools call.
#pragma once

#include <nlohmann/json.hpp>

#include "attnviz/status.h"

namespace attnviz {

// Parses `state` (the session-state schema of docs/engine.md, "version": 1),
// runs the whole pipeline and writes the report object to *report_out:
//   {"tokens", "X", "W_q", "W_k", "W_v", "W_o" (if out_proj), "b_q", "b_k",
//    "b_v" (if qkv_bias), "b_o" (if out_proj and out_bias), "Q", "K", "V",
//    "heads": [{"scores", "scaled", "masked", "weights", "dropped", "context"}...],
//    "concat", "output"}
// Matrices are arrays of rows, vectors arrays; non-finite numbers are the
// strings "-inf", "inf", "nan"; finite floats are exact float32 values.
// On bad input returns !ok with error + field and leaves *report_out untouched.
// Never throws.
Status run_state_json(const nlohmann::json& state, nlohmann::json* report_out);

}  // namespace attnviz
