// map_label.h: a map's label, made in one place. The label is the map's name in the
// item registry, the key of its heatmap cache (AppModel::heatmap_cache) and what tests
// and automation ask for; it is the same in every language (the title above a map
// is what a learner reads, and that is translated).
//   map_label(Stage::weights, 0)  "weights h0"   head 0's map of a per-head stage
//   map_label(Stage::output)      "output"       a matrix all heads share
//   map_label_kv(Stage::K, 1)     "K kv1"        K/V head 1's columns, read by several heads
//   map_label_diff(0, 2)          "diff h0-h2"   Compare heads: head 0's map minus head 2's
#pragma once

#include "attnviz/stages.h"

namespace attnviz::ui {

struct MapLabel {
  char text[40];  // the longest stage name and two heads fit with room to spare
  const char* c_str() const { return text; }
};

MapLabel map_label(Stage stage, int head = -1);  // head < 0: the whole matrix
MapLabel map_label_kv(Stage stage, int kv_head);
MapLabel map_label_diff(int head_a, int head_b);

}  // namespace attnviz::ui
