// widgets_state.h: what the panels' widgets keep from one frame to the next (an
// edit in progress, a field being typed, a derived value cached, the windows'
// arrangement), one struct per panel, all held by AppModel::widgets. In the model
// rather than in statics, so that each App has its own (the UI tests make one per
// test) and a new state can see what a widget holds.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "app/panels/layout.h"      // LayoutRect, kLayoutCount
#include "app/panels/panel_model.h"  // NextTokenTable
#include "app/model/view.h"         // CellRef
#include "app/panels/stage_flow.h"  // kFlowCardsMax
#include "attnviz/tensor.h"
#include "imgui.h"

namespace attnviz::ui {

// Parameters → Tokens: the token chip edited in place (panel_params.cpp token_chips).
struct ChipEditState {
  int editing = -1;   // the chip whose field is open; -1: none. Ended when that chip no
                      // longer holds `token` (a new state), so a stale index is never used
  std::string token;  // the token the chip held when its field opened
  std::string text;   // the field's text, as typed
  std::string label;  // a chip's label, reused: no allocation per frame once it is long enough
};

// Parameters → the token chips' lines (panel_tokens.cpp, chips_layout.h): each chip's
// width and where the lines break, measured again only when what they depend on
// changes (the tokens, their padding, the fonts, the language, the box's width), so a
// frame with thousands of tokens lays out nothing and draws only the lines in view.
struct ChipsLayoutCache {
  std::vector<std::string> tokens;  // the tokens measured
  std::vector<uint8_t> padding;     // their key_padding (a padded chip reads "[pad] …")
  int fonts = -1, lang = -1;        // g_fonts.generation, language_generation()
  float avail = -1;                 // the box's width
  std::vector<float> widths;        // (S + 1): each chip's, then the "+" button's
  std::vector<int> starts;          // chips_lines: each line's first chip, then S + 1
};

// Parameters → Go to token (panel_tokens.cpp): the field, the token it landed on
// (its chip highlighted) and the box's scroll to it, asked for until the box draws.
struct GoToState {
  std::string typed;      // the field's text
  int selected = -1;      // the token gone to (-1: none); kept while it exists
  bool scroll = false;    // the chips box scrolls to `selected` when it next draws
  bool not_found = false; // the last query found nothing (a line says so)
};

// Parameters → Dropout p: the exact-value field beside the slider, applied when it is
// left (Enter, Tab, a click elsewhere), not per keystroke (panel_params.cpp).
struct DropoutFieldState {
  double typed = 0.0;   // the field's number: the draft's p, except while it is typed in
  bool typing = false;  // the field was active in the last frame
};

// Parameters → Model: Repeat random tokens (model_controls.cpp).
struct RepeatState {
  int n = 24;              // symbols in r (the probe is start + r + r)
  uint64_t draws = 0;      // presses so far: press k draws r with seed 1000 + k
};

// The Parameters panel's widgets (panel_params.cpp).
struct ParamsWidgets {
  ChipEditState chip;         // the token chip being edited
  ChipsLayoutCache chips;     // the chips' widths and lines
  GoToState go_to;            // Go to token
  size_t left_out = 0;        // tokens the last paste left out (keep_first_tokens), said under the box
  int kept = 0;               // ... while the state holds the kept ones (its token count)
  DropoutFieldState dropout;  // dropout p's exact-value field
  RepeatState repeat;         // a trained model's Repeat random tokens
};

// Edit values: the embedding rows before positions (panel_values.cpp embedding_rows).
struct ValuesWidgets {
  Tensor embedding;        // (S × d_model): X itself, or materialised when positions are added
  uint64_t x_version = 0;  // Pipeline::version(Stage::X) `embedding` was made for
};

// A Stages card's head: the operation (with ↳ when the card starts a row after a
// wrap), the PyTorch line, and why the stage equals the one before (if it does), in
// this language, formatted into buffers (drawn every frame: nothing allocates).
struct FlowOpText {
  char op[320];
  char torch[512];
  char same[256];
};

// The Stages tab (panel_stages.cpp stages_tab): scratch, written and read within a
// frame. Kept here because 9 cards' text is too much for the stack of a wasm frame.
struct StagesWidgets {
  FlowOpText ops[kFlowCardsMax];  // card k's head text
};

// The Model tab (panel_model.cpp): the predictions, worked out when the logits or the
// tokens change (not per frame), the sentence that sums them up, and what the learner
// chose to see.
constexpr int kModelMapsMax = 16;  // token and position embeddings, x_0 … x_L, logits (L ≤ 12)
struct ModelWidgets {
  NextTokenTable table;            // panel_model.h
  uint64_t table_serial = 0;       // AppModel::state_serial the table was made for
  uint64_t table_logits = 0;       // ... and EngineSession::logits_version
  int table_lang = -1;             // language_generation() `summary` is worded in
  std::string summary;             // "Where the sequence repeats, …"
  float token_w = 0;               // the widest vocabulary token as drawn
  int token_w_fonts = -1;          // g_fonts.generation token_w was measured with
  // Which maps the residual stream section shows (token embedding, position
  // embedding, x_0 … x_L, logits: by index); all the residual stream and the logits at first.
  bool show[kModelMapsMax] = {false, false, true, true, true, true, true, true,
                              true,  true,  true, true, true, true, true, true};
};

// The three windows' arrangement (panels.cpp, layout.h): the default one for this
// screen, and fitting a saved one to a new screen size once that size holds.
struct LayoutState {
  bool reset = false;        // View > Reset layout: the default arrangement next frame
  ImVec2 display{-1, -1};    // the screen size last seen
  int stable_frames = 0;     // frames it has kept that size
  bool fitted = false;       // the arrangement was fitted to this size
  LayoutRect def[kLayoutCount];  // this frame's default arrangement
};

// A desktop path dialog, for a platform with no file picker.
struct PathDialogState {
  bool request = false;  // open the popup this frame
  std::string path;      // the path typed, kept for the next opening
};

// A head's score, as Compare heads' grid shows it and the Inspector explains it.
struct ScoreRef {
  bool valid = false;
  int layer = 0, head = 0;
  int kind = 0;        // attnviz::HeadScoreKind: previous_token, induction, first_token, duplicate_token
  bool probe = false;  // on the model's standard probe, else on the current input
  bool operator==(const ScoreRef& o) const {
    return valid == o.valid && (!valid || (layer == o.layer && head == o.head && kind == o.kind && probe == o.probe));
  }
  bool operator!=(const ScoreRef& o) const { return !(*this == o); }
};

// Compare heads → the grid's head scores (panel_heads_grid.cpp): which scores it
// shows, and the score the Inspector explains. The grid is drawn after the Inspector,
// so a hover is seen in the next frame (hover_frame: when it was last hovered).
struct HeadsGridWidgets {
  bool on_probe = false;  // scores on the probe (what each head learned), else on this input
  ScoreRef hovered;       // the score under the mouse, in frame hover_frame
  int hover_frame = -10;
  ScoreRef pinned;        // a clicked score: the Inspector keeps explaining it
  CellRef pinned_cell;    // view.pinned when `pinned` was set: pinning a cell afterwards unpins the score
};

// All of it: AppModel::widgets.
struct Widgets {
  ParamsWidgets params;          // panel_params.cpp
  ValuesWidgets values;          // panel_values.cpp
  StagesWidgets stages;          // panel_stages.cpp
  ModelWidgets model;            // panel_model.cpp
  LayoutState layout;            // panels.cpp
  PathDialogState open_state;    // File → Open state… (menu_file.cpp)
  PathDialogState open_weights;  // File → Open weights… (weights_import.cpp)
  HeadsGridWidgets heads_grid;   // Compare heads' head scores (panel_heads_grid.cpp)
};

}  // namespace attnviz::ui
