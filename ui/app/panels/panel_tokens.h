// panel_tokens.h: the Parameters panel's tokens (panel_tokens.cpp): the Tokens box
// and its Split choice, the token chips (virtualised, chips_layout.h) and Go to token.
#pragma once

namespace attnviz::ui {

struct AppModel;

// The Tokens group, at the top of the Parameters window.
void tokens_group(AppModel& m);

}  // namespace attnviz::ui
