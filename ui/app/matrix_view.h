// matrix_view.h: a matrix as the app shows it.
#pragma once

namespace attnviz::ui {

// Row-major float32, rows×cols; data is null when the name or head does not
// exist. Valid until the state next changes.
struct MatrixView {
  int rows = 0;
  int cols = 0;
  const float* data = nullptr;
};

}  // namespace attnviz::ui
