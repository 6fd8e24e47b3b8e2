// attnviz/status.h: how the engine reports a learner's bad input.
//
// Errors by who caused them: bad input (a state a learner typed, a file, a URL)
// gets a Status with a sentence and the offending field; programmer errors are
// asserts. No public engine function throws or aborts on bad input.
//
// Every refusal is a message of one table (messages.h, Msg) and its values: `error`
// is the English sentence, `code` and `args` let an interface word the same refusal
// in its own language (ui/app/text/status_text.h).
#pragma once

#include <string>
#include <vector>

#include "attnviz/messages.h"

namespace attnviz {

// A value of a refusal that is words, not a number or a name (see MsgArg).
struct StatusPhrase {
  std::string code;               // msg_code of the phrase; empty: the value is shown as it is
  std::vector<std::string> args;  // the phrase's own values
};

struct Status {
  bool ok = true;     // true when the input was accepted
  std::string error;  // one sentence a learner understands, e.g.
                      // "d_out (6) must be divisible by num_heads (4)"; empty when ok
  std::string field;  // the offending field as a JSON path, e.g. "num_heads",
                      // "embedding.values[2][1]", "tokens[3]"; empty when ok or
                      // when no single field is to blame (e.g. malformed JSON text)
  std::string code;               // msg_code of the message, e.g. "d_out_not_divisible"; empty when ok
  std::vector<std::string> args;  // its values {0}, {1}, ... as `error` shows them, e.g. {"6", "4"}
  std::vector<StatusPhrase> phrases;  // empty when no value is a phrase; else one per arg

  static Status success() { return Status{}; }
  // The refusal `m` with these values (messages.h lists each message's values).
  static Status refusal(Msg m, std::string field_path, const std::vector<MsgArg>& args = {});
};

}  // namespace attnviz
