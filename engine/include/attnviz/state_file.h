// attnviz/state_file.h: a session state as a .safetensors file, for states too big
// for JSON text (GPT-2-sized explicit weights are 9.4 MB of floats, 25 MB of text).
//
// The file is a plain safetensors file (https://huggingface.co/docs/safetensors),
// so PyTorch, numpy or any safetensors reader opens it; docs/engine.md ("State
// files") describes it field by field:
//
//   8 bytes        N, the header's length, little-endian
//   N bytes        the JSON header, padded with spaces so the data starts at a multiple of 8:
//                  {"__metadata__": {"attnviz_state_format": "1",
//                                    "attnviz_state": "<the state JSON, each explicit matrix
//                                                      replaced by its tensor's name>"},
//                   "embedding.values": {"dtype": "F32", "shape": [S, d_model], "data_offsets": [b, e]},
//                   "weights.W_q": {"dtype": "F32", "shape": [d_model, d_out], ...}, ...}
//   the rest       the tensors' float32 values, row-major, little-endian, one after the
//                  other in the order embedding.values, W_q, W_k, W_v, W_o, b_q, b_k, b_v, b_o
//
// Only the matrices the state's flags use are written (as state_to_json writes
// them), matrices as [rows, cols] in x·W orientation, biases as [n]. The state JSON
// is state_to_json's with "values": "embedding.values", "W_q": "weights.W_q", ...,
// so `json.loads(meta["attnviz_state"])` with each name replaced by its tensor's
// values (.tolist()) is the state's JSON file.
//
// Reading uses the weights reader (attnviz/weights_file.h: Scanner, to_float32),
// so F16, BF16 and F64 tensors are read too, and every refusal is a Status with a
// sentence (messages.h, "state files"); nothing throws or aborts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "attnviz/state.h"
#include "attnviz/status.h"

namespace attnviz {

namespace weights {
class Scanner;
}

// The metadata keys, and the format this build writes and reads.
constexpr const char* kStateFileStateKey = "attnviz_state";
constexpr const char* kStateFileFormatKey = "attnviz_state_format";
constexpr const char* kStateFileFormat = "1";

// The whole file. The state is written as it is (the app's is valid; an invalid
// one is written too and refused when read back).
std::string state_to_safetensors(const State& s);

// The explicit float32 values the state's flags use (embedding.values when
// explicit, W_q ... b_o when explicit): what makes a state big.
uint64_t state_explicit_values(const State& s);

// A whole file → State: the safetensors header through weights::Scanner, the
// metadata's state through the state parser (each tensor name read as its
// tensor), then validate_state. On error *out is untouched; the Status names the
// field at fault when there is one ("weights.W_q").
Status state_from_safetensors(std::string_view file, State* out);

// Whether the first bytes of a file of `size` bytes look like a .safetensors file:
// an 8-byte little-endian length that fits in the file, then '{'. (A JSON state
// starts with '{' or white space, whose 8 bytes make a length far beyond any file.)
bool looks_like_safetensors(std::string_view head, uint64_t size);

// Whether a scanned .safetensors header (weights::Scanner, finished) is an attnviz
// state file: its metadata has "attnviz_state". A weights file has none, and goes
// to the weights import.
bool scanner_found_state(const weights::Scanner& s);

}  // namespace attnviz
