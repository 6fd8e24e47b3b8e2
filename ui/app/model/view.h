// view.h: the view selections (tab, heads, colours, decimals, the pinned cell...),
// typed. What a share link carries beside the state, and what App::session_serial
// compares every frame: a struct with ==, never its JSON (share.cpp writes that
// only when a link or a caller asks).
#pragma once
#include "app/widgets/colormap.h"
#include "app/text/i18n.h"
#include "app/model/tokenize.h"
#include "attnviz/stages.h"

namespace attnviz::ui {

// A cell of a stage, for linked inspection (trivially copyable: the frame resets
// the hovered one without allocating).
struct CellRef {
  bool valid = false;
  Stage stage = Stage::X;
  int head = 0;
  int row = 0, col = 0;
  // The same cell (two invalid refs are the same whatever their fields hold).
  bool operator==(const CellRef& o) const {
    return valid == o.valid && (!valid || (stage == o.stage && head == o.head && row == o.row && col == o.col));
  }
  bool operator!=(const CellRef& o) const { return !(*this == o); }
};

enum class MainTab : int { stages = 0, data, compare, lines, values, decode, model };

struct View {
  MainTab tab = MainTab::stages;
  int layer = 0;                              // a trained model's layer every tab shows (0 without one)
  int head = 0;                               // selected head
  int head_b = 1;                             // the second head of the A/B comparison
  Stage compare_stage = Stage::weights;       // Compare heads: a per-head stage
  Colormap weights_cmap = Colormap::viridis;  // viridis or cividis (colour-blind safe)
  int decimals = 0;                           // View → Decimals: 0 = auto (what fits, up to 4), or 2, 3, 4
  bool show_torch = false;                    // Stages: the PyTorch line of each step under its operation
  bool overview_mean = false;                 // View → Overview cells: a long map's blocks by mean (else max)
  SplitMode split = SplitMode::words_and_chars;  // how the Tokens box splits text (tokenize.h)
  int decode_t = -1;                          // Decode: the step shown (query position); -1 = the last token
  CellRef pinned;                             // the cell every view highlights, when valid
  Lang lang = Lang::en;                       // the interface's language (i18n.h owns it: see view_of)
  int lesson = -1;                            // the open lesson (lesson_data.h lessons() index); -1: none
  int lesson_step = 0;                        // its step; == its steps: the closing page

  bool operator==(const View& o) const {
    return tab == o.tab && layer == o.layer && head == o.head && head_b == o.head_b && compare_stage == o.compare_stage &&
           weights_cmap == o.weights_cmap && decimals == o.decimals && show_torch == o.show_torch &&
           overview_mean == o.overview_mean &&
           split == o.split && decode_t == o.decode_t && pinned == o.pinned && lang == o.lang && lesson == o.lesson &&
           lesson_step == o.lesson_step;
  }
  bool operator!=(const View& o) const { return !(*this == o); }
};

// Pins `c`, or unpins it when it is the pinned cell already (a click on a map, Enter
// on the Inspector's cell, the Decode rows): the one toggle every panel uses.
inline void toggle_pin(CellRef& pinned, const CellRef& c) { pinned = pinned == c ? CellRef{} : c; }

}  // namespace attnviz::ui
