// panel_decode.h: the Decode tab, generation with a KV cache (panel_decode.cpp).
#pragma once

namespace attnviz::ui {

struct AppModel;

void decode_tab(AppModel& m);

}  // namespace attnviz::ui
