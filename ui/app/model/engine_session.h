// engine_session.h: the app's one door into the engine. It owns the validated
// session state and the engine's staged Pipeline, and hands panels read-only views.
// Panels never compute attention; they read MatrixViews and Explanations from here.
// A state that runs a trained model, or holds captured layers, has a pipeline per
// layer (attnviz/model.h, LayerStack): pipeline(), matrix() and version() read the layer the view shows
// (set_layer, from View::layer each frame), so every tab works on any layer.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>  // the full header only where JSON is built or read (.cpp)

#include "attnviz/model.h"
#include "attnviz/pipeline.h"
#include "attnviz/state.h"
#include "attnviz/status.h"

#include "app/model/matrix_view.h"

namespace attnviz::ui {

class EngineSession {
 public:
  // Validates and runs `state` (only what lies downstream of the change is
  // recomputed). On error keeps the previous state and results.
  Status set_state(State state);
  // The same from JSON (links, undo, files, presets): parse_state() first.
  Status set_state(const nlohmann::json& state);
  // The current state, typed: what panels, edits and undo read.
  const State& state() const { return stack_.state(); }
  // The current state as canonical JSON (null before the first valid one), built
  // when asked: for the edges only (a file, a link, the test API's getState).
  nlohmann::json state_json() const;
  bool has_result() const { return stack_.has_result(); }
  // The pipeline of the layer shown (the only one without a model).
  const Pipeline& pipeline() const { return stack_.layer(layer_); }
  const LayerStack& stack() const { return stack_; }
  bool is_model() const { return stack_.is_model(); }
  bool is_captured() const { return stack_.is_captured(); }
  int num_layers() const { return stack_.num_layers(); }
  // Layers to choose among: a trained model's, or captured layers (State::layers)
  // when there are 2 or more. The layer bar and the layers × heads grid show then.
  bool layered() const { return stack_.is_model() || stack_.num_layers() > 1; }
  // A captured layer's name ("transformer.h.0.attn"), empty otherwise.
  const std::string& layer_name(int l) const { return stack_.layer_name(l); }
  int layer() const { return layer_; }
  // The layer the views read from now on, clamped to the layers there are.
  void set_layer(int l) { layer_ = l < 0 ? 0 : (l >= stack_.num_layers() ? stack_.num_layers() - 1 : l); }

  // A stage's matrix (attnviz/stages.h): per-head stages take `head`, the
  // others only head 0; empty when there is no such matrix.
  MatrixView matrix(Stage stage, int head) const;
  // Row i of a stage of the layer shown, computed on demand (Pipeline::row: no (S × S)
  // matrix of the head is read or built); false, out empty, when there is none.
  bool row(Stage stage, int head, int i, std::vector<float>* out) const {
    return has_result() && pipeline().row(stage, head, i, out);
  }
  // A head's (S × S) stage of the layer shown, pooled over block × block cells, a window
  // at a time (Pipeline::map, map_pending, map_prepare; docs/engine.md "Long inputs"): the
  // overview maps read these and nothing else, so no (S × S) matrix is needed.
  bool map(Stage stage, int head, int block, Pipeline::Pool pool, int I0, int nI, int J0, int nJ, Tensor* out) const {
    return has_result() && pipeline().map(stage, head, block, pool, I0, nI, J0, nJ, out);
  }
  int map_pending(Stage stage, int head, int block, Pipeline::Pool pool, int I0, int nI) const {
    return has_result() ? pipeline().map_pending(stage, head, block, pool, I0, nI) : 0;
  }
  int map_prepare(Stage stage, int head, int block, Pipeline::Pool pool, int I0, int nI, double budget_ms) const {
    return has_result() ? pipeline().map_prepare(stage, head, block, pool, I0, nI, budget_ms) : 0;
  }
  // Above Limits::kMaxFullTokens the engine keeps no (S × S) matrix: matrix() of scores …
  // dropped is empty and views read rows and maps instead (Pipeline::long_mode).
  bool long_mode() const { return has_result() && pipeline().long_mode(); }
  // The shape of a stage's matrix whether it is held or not (in long mode a head's
  // (S × S) stage is read by rows and maps only), and one cell of it: what a pinned cell,
  // a cell moved with Shift+arrows and the screen reader's sentence need. False when
  // there is no such matrix (or cell).
  bool shape(Stage stage, int head, int* rows, int* cols) const;
  bool cell(Stage stage, int head, int i, int j, float* v) const;
  // Bytes every layer's pipeline holds (Pipeline::bytes_held).
  uint64_t pipeline_bytes() const;
  // Changes exactly when that matrix's contents change: panels re-upload a
  // texture only when the version they drew differs.
  uint64_t version(Stage stage, int head) const;
  // Cell (i, j) of a stage of the layer shown (a model's layer input is its residual stream).
  Explanation explain(Stage stage, int head, int i, int j) const { return stack_.explain(layer_, stage, head, i, j); }
  // Whether that stage is up to date, asked without computing it (tests).
  bool current(Stage stage, int head) const;

  // Called once at the start of every frame: from then on the engine keeps
  // up to date only the stages the panels read in the last frame or two and
  // computes any other stage when a panel first reads it (Pipeline::track_demand).
  void new_frame() { stack_.track_demand(); }

  // A trained model's tensors around its layers (attnviz/model.h, LayerStack), empty
  // without a model. Valid until the state next changes.
  MatrixView token_embedding() const;     // (S × d_model): tok_emb rows of the tokens
  MatrixView position_embedding() const;  // (S × d_model): pos_emb rows 0..S-1
  MatrixView residual(int l) const;       // (S × d_model): x_l, l = 0..num_layers() (x_L after the last)
  MatrixView logits() const;              // (S × vocabulary): x_L · W_U
  uint64_t residual_version(int l) const { return stack_.residual_version(l); }
  uint64_t logits_version() const { return stack_.logits_version(); }
  // The embeddings have no version of their own; they change only when a state is
  // applied, and this changes with every state applied (a map re-uploads then).
  uint64_t embedding_version() const { return applied_; }

  const std::vector<std::string>& tokens() const { return stack_.state().tokens; }
  int num_heads() const { return has_result() ? pipeline().num_heads() : 0; }
  double engine_ms_last() const { return engine_ms_last_; }

 private:
  LayerStack stack_;
  int layer_ = 0;
  uint64_t applied_ = 1;  // embedding_version()
  double engine_ms_last_ = 0.0;
};

}  // namespace attnviz::ui
