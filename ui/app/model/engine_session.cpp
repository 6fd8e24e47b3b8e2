// engine_session.cpp: see engine_session.h.
#include "app/model/engine_session.h"
#include "attnviz/state_json.h"

#include <chrono>
#include <utility>

#include "app/app.h"

namespace attnviz::ui {

Status EngineSession::set_state(const nlohmann::json& j) {
  State s;
  Status st = parse_state(j, &s);
  if (!st.ok) return st;
  return set_state(std::move(s));
}

Status EngineSession::set_state(State s) {
  auto t0 = std::chrono::steady_clock::now();
  Status st = stack_.set_state(std::move(s));  // s is not needed again: no copy of its values
  set_layer(layer_);
  if (st.ok) ++applied_;
  engine_ms_last_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return st;
}

nlohmann::json EngineSession::state_json() const {
  return has_result() ? state_to_json(stack_.state()) : nlohmann::json();
}

MatrixView EngineSession::matrix(Stage stage, int head) const {
  if (!stage_is_per_head(stage) && head != 0) return {};
  const Tensor* t = pipeline().matrix(stage, head);
  if (!t) return {};
  return MatrixView{t->rows, t->cols, t->data.data()};
}

namespace {
MatrixView view_of(const Tensor* t) { return t ? MatrixView{t->rows, t->cols, t->data.data()} : MatrixView{}; }
}  // namespace

MatrixView EngineSession::token_embedding() const { return view_of(stack_.token_embedding()); }
MatrixView EngineSession::position_embedding() const { return view_of(stack_.position_embedding()); }
MatrixView EngineSession::residual(int l) const { return view_of(stack_.residual(l)); }
MatrixView EngineSession::logits() const { return view_of(stack_.logits()); }

bool EngineSession::shape(Stage stage, int head, int* rows, int* cols) const {
  const MatrixView v = matrix(stage, head);
  if (v.data) {
    *rows = v.rows;
    *cols = v.cols;
    return true;
  }
  // Long mode: no (S × S) buffer; the stage is there when its first row is.
  std::vector<float> r;
  if (!long_mode() || !stage_is_per_head(stage) || !row(stage, head, 0, &r)) return false;
  *rows = pipeline().seq_len();
  *cols = static_cast<int>(r.size());
  return true;
}

bool EngineSession::cell(Stage stage, int head, int i, int j, float* v) const {
  const MatrixView m = matrix(stage, head);
  if (m.data) {
    if (i < 0 || i >= m.rows || j < 0 || j >= m.cols) return false;
    *v = m.data[static_cast<size_t>(i) * m.row_stride() + j];
    return true;
  }
  std::vector<float> r;
  if (!long_mode() || !row(stage, head, i, &r) || j < 0 || j >= static_cast<int>(r.size())) return false;
  *v = r[static_cast<size_t>(j)];
  return true;
}

uint64_t EngineSession::version(Stage stage, int head) const { return pipeline().version(stage, head); }

uint64_t EngineSession::pipeline_bytes() const {
  uint64_t n = 0;
  if (!has_result()) return 0;
  for (int l = 0; l < stack_.num_layers(); ++l) n += stack_.layer(l).bytes_held();
  return n;
}

bool EngineSession::current(Stage stage, int head) const { return pipeline().current(stage, head); }

}  // namespace attnviz::ui
