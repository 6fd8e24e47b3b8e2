// libFuzzer target for the state decoder (scripts/fuzz.sh builds and runs it
// with ASan + UBSan; docs/reliability.md).
//
// Each input is JSON text handed to parse_state_text(). Invariants checked
// (a broken one aborts, which libFuzzer records as a crash):
//   * refusals: a non-empty sentence of valid UTF-8, under 1000 bytes, a field
//     path under 200 bytes; nothing thrown;
//   * accepted states: validate_state() agrees; state_to_json() round-trips
//     through parse_state() and through its own text to the same JSON;
//   * small accepted states (estimate_pipeline_bytes ≤ 4 MiB) also run through
//     a Pipeline: set_state() accepts them, every attention weight is in
//     [0, 1] or NaN, and reaching the state from a different one
//     (incrementally) gives bitwise the stages of a fresh Pipeline, also in
//     lazy mode (Pipeline::track_demand: stages computed on first read).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "attnviz/pipeline.h"
#include "attnviz/state.h"
#include "attnviz/state_json.h"

namespace {

using attnviz::Pipeline;
using attnviz::Stage;
using attnviz::State;
using attnviz::Status;
using nlohmann::json;

void check(bool ok, const char* what, const std::string& detail = "") {
  if (ok) return;
  std::fprintf(stderr, "fuzz_state: invariant broken: %s\n%s\n", what, detail.substr(0, 2000).c_str());
  std::abort();
}

bool valid_utf8_sentence(const std::string& s) {
  try {
    (void)json(s).dump();  // the strict handler throws on ill-formed UTF-8
    return true;
  } catch (...) {
    return false;
  }
}

bool same_bits(const attnviz::Tensor* a, const attnviz::Tensor* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return a->rows == b->rows && a->cols == b->cols && a->data.size() == b->data.size() &&
         std::memcmp(a->data.data(), b->data.data(), a->data.size() * sizeof(float)) == 0;
}

void check_pipeline(const State& s) {
  Pipeline fresh;
  const Status st = fresh.set_state(s);
  check(st.ok, "Pipeline::set_state refused a state parse_state accepted", st.error);
  for (int h = 0; h < s.num_heads; ++h) {
    const attnviz::Tensor* w = fresh.matrix(Stage::weights, h);
    check(w != nullptr, "no attention weights");
    for (float v : w->data) check(!(v < 0.0f) && !(v > 1.0001f), "attention weight outside [0, 1]");
  }
  // The same state reached from another one: incremental recompute must give
  // the same bits as the fresh pipeline.
  State other = s;
  other.causal = !s.causal;
  other.temperature = s.temperature == 1.0 ? 2.0 : 1.0;
  if (!other.tokens.empty()) other.tokens[0] += "x";
  if (other.tokens[0].size() > attnviz::Limits::kMaxTokenBytes) other.tokens[0] = "x";
  Pipeline inc, lazy;
  check(inc.set_state(other).ok, "a nearby state was refused");
  check(inc.set_state(s).ok, "the state was refused after another one");
  // Lazy: head 0's weights read between the two states (so kept current), the
  // rest computed when the comparison below reads them.
  lazy.track_demand();
  check(lazy.set_state(other).ok, "a nearby state was refused (lazy)");
  check(lazy.matrix(Stage::weights, 0) != nullptr, "no weights (lazy)");
  lazy.track_demand();
  check(lazy.set_state(s).ok, "the state was refused after another one (lazy)");
  for (int k = 0; k < attnviz::kStageCount; ++k) {
    const Stage stage = static_cast<Stage>(k);
    const int heads = attnviz::stage_is_per_head(stage) ? s.num_heads : 1;
    for (int h = 0; h < heads; ++h) {
      check(same_bits(fresh.matrix(stage, h), inc.matrix(stage, h)),
            "incremental result differs from a fresh one", attnviz::stage_name(stage));
      check(same_bits(fresh.matrix(stage, h), lazy.matrix(stage, h)),
            "lazy result differs from a fresh one", attnviz::stage_name(stage));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  State s;
  Status st;
  try {
    st = attnviz::parse_state_text(text, &s);
  } catch (...) {
    check(false, "parse_state_text threw");
  }
  if (!st.ok) {
    check(!st.error.empty(), "empty error sentence");
    check(st.error.size() < 1000, "error sentence longer than 1000 bytes", st.error);
    check(st.field.size() < 200, "field path longer than 200 bytes", st.field);
    check(valid_utf8_sentence(st.error), "error sentence is not valid UTF-8", st.error);
    return 0;
  }
  const Status v = attnviz::validate_state(s);
  check(v.ok, "validate_state refused what parse_state accepted", v.error);
  const json j = attnviz::state_to_json(s);
  State b;
  const Status rb = attnviz::parse_state(j, &b);
  check(rb.ok, "state_to_json output refused by parse_state", rb.error + "\n" + j.dump());
  check(attnviz::state_to_json(b) == j, "state_to_json -> parse_state is not a round trip", j.dump());
  State c;
  const std::string dumped = j.dump();
  const Status rc = attnviz::parse_state_text(dumped, &c);
  check(rc.ok, "state_to_json text refused by parse_state_text", rc.error + "\n" + dumped);
  check(attnviz::state_to_json(c) == j, "text round trip changed the state", dumped);
  if (attnviz::estimate_pipeline_bytes(s) <= (uint64_t{4} << 20)) check_pipeline(s);
  return 0;
}
