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
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace attnviz {

// std::allocator, except that constructing without a value (what
// vector::resize(n) does to the elements it adds) leaves a float as it is:
// Tensor::reset_for_overwrite() uses that for buffers a stage then overwrites
// completely, which spares zeroing megabytes first (about 40 MB per fresh
// pipeline at S = 512, 12 heads). Every other way of sizing a Tensor fills.
// Under AddressSanitizer those floats are set to a NaN instead (0x7fbadbad), so
// a stage that fails to overwrite one shows up in the tests as a NaN.
template <class T>
struct NoInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = NoInitAllocator<U>;
  };
  NoInitAllocator() = default;
  template <class U>
  NoInitAllocator(const NoInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new (static_cast<void*>(p)) U;
#if defined(__SANITIZE_ADDRESS__)
    if constexpr (std::is_same<U, float>::value) {
      const unsigned bits = 0x7fbadbadu;
      std::memcpy(p, &bits, sizeof bits);
    }
#endif
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

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

// Floats that resize(n) leaves unspecified (NoInitAllocator): for buffers that
// are written before they are read.
using FloatBuffer = std::vector<float, NoInitAllocator<float>>;

// An owning, densely packed row-major matrix (rows × cols).
struct Tensor {
  int rows = 0;
  int cols = 0;
  FloatBuffer data;  // (rows × cols), element (i, j) at data[i * cols + j]

  Tensor() = default;
  Tensor(int r, int c, float fill = 0.0f)
      : rows(r), cols(c), data(static_cast<size_t>(r) * c, fill) {}

  // Resizes to (r × c); contents become `fill`. Keeps capacity when shrinking.
  void reset(int r, int c, float fill = 0.0f) {
    rows = r;
    cols = c;
    data.assign(static_cast<size_t>(r) * c, fill);
  }

  // Resizes to (r × c) for a caller that then writes every element: the
  // contents are unspecified until it has (see NoInitAllocator).
  void reset_for_overwrite(int r, int c) {
    rows = r;
    cols = c;
    data.resize(static_cast<size_t>(r) * c);
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
