// map_label.cpp: see map_label.h.
#include "app/widgets/map_label.h"

#include <cstdio>

namespace attnviz::ui {

MapLabel map_label(Stage stage, int head) {
  MapLabel l;
  if (head >= 0) std::snprintf(l.text, sizeof l.text, "%s h%d", stage_name(stage), head);
  else std::snprintf(l.text, sizeof l.text, "%s", stage_name(stage));
  return l;
}

MapLabel map_label_kv(Stage stage, int kv_head) {
  MapLabel l;
  std::snprintf(l.text, sizeof l.text, "%s kv%d", stage_name(stage), kv_head);
  return l;
}

MapLabel map_label_diff(int head_a, int head_b) {
  MapLabel l;
  std::snprintf(l.text, sizeof l.text, "diff h%d-h%d", head_a, head_b);
  return l;
}

}  // namespace attnviz::ui
