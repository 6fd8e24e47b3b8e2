// status_text.h: an engine refusal (attnviz::Status) worded in the interface's language.
//
// The engine refuses with a message of its table (attnviz/messages.h) and its values;
// Status::error is the English sentence. In Chinese the same refusal is the message's
// template translated (lang_zh_cn.cpp, [SECTION] Engine refusals: keyed by the English
// template) with the values filled in; a value that is words ("a list", "true/false")
// is a phrase of the same table and is translated too. Numbers, field paths and quoted
// text stay as they are.
#pragma once
#include <string>

#include "attnviz/status.h"

namespace attnviz::ui {

// The sentence to show for a refused state, file or link: in English exactly st.error.
// Called when a refusal happens, never per frame (it allocates).
std::string word_status(const Status& st);

}  // namespace attnviz::ui
