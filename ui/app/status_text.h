// status_text.h: an engine refusal (attnviz::Status) worded in the interface's language.
#pragma once
#include <string>

#include "attnviz/status.h"

namespace attnviz::ui {

// The sentence to show for a refused state, file or link (i18n.h).
inline std::string word_status(const Status& st) { return st.error; }

}  // namespace attnviz::ui
