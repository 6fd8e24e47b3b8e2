// attnviz/status.h: how the engine reports a learner's bad input.
//
// Errors by who caused them: bad input (a state a learner typed, a file, a URL)
// gets a Status with a sentence and the offending field; programmer errors are
// asserts. No public engine function throws or aborts on bad input.
#pragma once

#include <string>

namespace attnviz {

struct Status {
  bool ok = true;     // true when the input was accepted
  std::string error;  // one sentence a learner understands, e.g.
                      // "d_out (6) must be divisible by num_heads (4)"; empty when ok
  std::string field;  // the offending field as a JSON path, e.g. "num_heads",
                      // "embedding.values[2][1]", "tokens[3]"; empty when ok or
                      // when no single field is to blame (e.g. malformed JSON text)

  static Status success() { return Status{}; }
  static Status failure(std::string error_sentence, std::string field_path) {
    Status s;
    s.ok = false;
    s.error = std::move(error_sentence);
    s.field = std::move(field_path);
    return s;
  }
};

}  // namespace attnviz
