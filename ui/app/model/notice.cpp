// notice.cpp: see notice.h.
#include "app/model/notice.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>

#include "app/model/app_model.h"
#include "app/text/i18n.h"
#include "attnviz/state_file.h"
#include "imgui.h"

namespace attnviz::ui {

double notice_ends_in(const AppModel& m) {
  const Notice& n = m.notice;
  if (n.text.empty() || n.error) return std::numeric_limits<double>::infinity();
  if (n.shown_at < 0) return 0.0;  // not drawn yet
  return std::max(0.0, n.shown_at + kNoticeSeconds - ImGui::GetTime()) + 0.02;  // the first frame past it
}

void notify(AppModel& m, std::string text, bool error) {
  m.notice.text = std::move(text);
  m.notice.error = error;
  m.notice.shown_at = -1.0;
  m.notice.action = NoticeAction::none;
}

void notify_link_too_long(AppModel& m, double chars) {
  auto mb = [](double n) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", n / (1024.0 * 1024.0));
    return std::string(buf);
  };
  notify(m,
         tr_args("A share link of this state would be about {0} MB, too long for an address (at most {1} MB): its "
                 "explicit weights are {2} numbers. Nothing was copied. Save the state as a file instead with File → "
                 "Save state (.safetensors); File → Open state… opens it again.",
                 {mb(chars), mb(kShareMaxAddressChars), std::to_string(state_explicit_values(m.engine.state()))}),
         true);
  m.notice.action = NoticeAction::save_safetensors;
}

}  // namespace attnviz::ui
