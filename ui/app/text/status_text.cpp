// status_text.cpp: see status_text.h.
#include "app/text/status_text.h"

#include <vector>

#include "app/text/i18n.h"
#include "attnviz/messages.h"

namespace attnviz::ui {

std::string word_status(const Status& st) {
  Msg m;
  if (language() == Lang::en || !msg_from_code(st.code, &m)) return st.error;
  std::vector<std::string> args = st.args;
  for (size_t i = 0; i < args.size() && i < st.phrases.size(); ++i) {
    Msg phrase;
    if (msg_from_code(st.phrases[i].code, &phrase)) args[i] = tr_args(msg_template(phrase), st.phrases[i].args);
  }
  return tr_args(msg_template(m), args);
}

}  // namespace attnviz::ui
