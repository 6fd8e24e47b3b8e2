// weights_text.h: the sentences for trained-weights import problems
// (attnviz/weights_file.h's Problem codes), from one table in weights_text.cpp.
#pragma once
#include <string>

#include "attnviz/weights_file.h"

namespace attnviz::ui {

// The problem as one sentence for a learner, in the interface's language (i18n.h):
// the table's template, translated, with the error's values in place of {0}, {1}, ...
std::string weights_sentence(const weights::Error& e);

}  // namespace attnviz::ui
