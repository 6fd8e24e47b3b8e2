// panel_model.h: the Model tab, shown when the state runs a trained model
// (attnviz/model.h): its training (a step slider over the checkpoints, the loss
// curve, the heads' scores as they form), what it predicts next at each position,
// and the residual stream between the layers as maps.
//
// The engine computes every number: the predictions are top_predictions' (softmax
// of the logits row), the maps are LayerStack's tensors. next_token_table is the
// tab's one derivation, pure, so tests read what the rows show.
#pragma once
#include <vector>

namespace attnviz {
class LayerStack;
}

namespace attnviz::ui {

struct AppModel;

// What the model predicts after position i, beside the token that does come next (t_{i+1}).
struct NextTokenRow {
  static constexpr int kTop = 5;
  int top_id[kTop] = {};   // the likeliest next tokens (vocabulary ids), likeliest first
  float top_p[kTop] = {};  // their probabilities: softmax of logits row i, float32
  int shown = 0;           // how many of top_id are filled (kTop unless the vocabulary is smaller)
  int next_id = -1;        // t_{i+1}'s id; -1 at the last position (nothing follows)
  int next_rank = 0;       // t_{i+1}'s rank among all the vocabulary's tokens, 1 = the likeliest
  float next_p = 0;        // its probability
  bool repeat = false;     // t_i came before and what followed it then is t_{i+1}: copying predicts it
};

// Every position's row, and how often the likeliest token is the right one, on the
// positions where the sequence repeats (induction can predict them) and on the others.
struct NextTokenTable {
  std::vector<NextTokenRow> rows;          // (S)
  int repeat_total = 0, repeat_right = 0;  // rows with `repeat`; of them, top-1 = t_{i+1}
  int other_total = 0, other_right = 0;    // the other rows that have a next token
};

// Fills `out` from the stack's logits (empty rows without a model). No ImGui.
void next_token_table(const LayerStack& stack, NextTokenTable* out);

void model_tab(AppModel& m);

}  // namespace attnviz::ui
