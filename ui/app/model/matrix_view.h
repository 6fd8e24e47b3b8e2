// matrix_view.h: a matrix as the app shows it.
#pragma once

namespace attnviz::ui {

// Row-major float32, rows×cols; data is null when the name or head does not
// exist. Valid until the state next changes. Rows are `stride` floats apart
// (0: dense, stride = cols); only heatmap() takes strided views (a head's
// columns of Q, K, V): everything else reads dense matrices.
struct MatrixView {
  int rows = 0;
  int cols = 0;
  const float* data = nullptr;
  int stride = 0;
  int row_stride() const { return stride > 0 ? stride : cols; }
};

}  // namespace attnviz::ui
