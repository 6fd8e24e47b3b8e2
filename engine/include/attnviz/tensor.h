// attnviz/tensor.h: the engine's one matrix type.
//
// Memory convention (used by every buffer, kernel and report in the engine):
//   * float32 storage, row-major, densely packed: element (i, j) of a
//     (rows × cols) Tensor lives at data[i * cols + j].
//   * A vector of n values is a (1 × n) Tensor.
//   * A TensorView may have a row stride larger than its cols (a column slice
//     of a wider matrix, e.g. head h of Q is Q's columns h·head_dim ...
//     (h+1)·head_dim − 1): element (i, j) lives at data[i * stride + j].
//   * Strides and sizes are counted in elements, never bytes.
// Shapes in comments are written (rows × cols), e.g. Q: (S × d_out).
#pragma once

#include <cstddef>
#include <vector>

namespace attnviz {

// A read-only window onto row-major float data: (rows × cols), row stride
// `stride` >= cols. Does not own its data; valid while the owner is unchanged.
struct TensorView {
  const float* data = nullptr;
  int rows = 0;
  int cols = 0;
  int stride = 0;

  float at(int i, int j) const { return data[static_cast<size_t>(i) * stride + j]; }
  const float* row(int i) const { return data + static_cast<size_t>(i) * stride; }
  bool empty() const { return rows == 0 || cols == 0; }
};

// An owning, densely packed row-major matrix (rows × cols).
struct Tensor {
  int rows = 0;
  int cols = 0;
  std::vector<float> data;  // (rows × cols), element (i, j) at data[i * cols + j]

  Tensor() = default;
  Tensor(int r, int c, float fill = 0.0f)
      : rows(r), cols(c), data(static_cast<size_t>(r) * c, fill) {}

  // Resizes to (r × c); contents become `fill`. Keeps capacity when shrinking.
  void reset(int r, int c, float fill = 0.0f) {
    rows = r;
    cols = c;
    data.assign(static_cast<size_t>(r) * c, fill);
  }

  size_t size() const { return data.size(); }
  bool empty() const { return data.empty(); }
  float& at(int i, int j) { return data[static_cast<size_t>(i) * cols + j]; }
  float at(int i, int j) const { return data[static_cast<size_t>(i) * cols + j]; }
  float* row(int i) { return data.data() + static_cast<size_t>(i) * cols; }
  const float* row(int i) const { return data.data() + static_cast<size_t>(i) * cols; }

  TensorView view() const { return TensorView{data.data(), rows, cols, cols}; }
  // Columns [col0, col0 + ncols) of every row, as a strided view.
  TensorView column_slice(int col0, int ncols) const {
    return TensorView{data.data() + col0, rows, ncols, cols};
  }
};

// Bitwise equality of shape and contents (NaN == NaN when the bits agree).
// This is the engine's notion of "unchanged".
bool tensors_bitwise_equal(const Tensor& a, const Tensor& b);

}  // namespace attnviz
