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

#include <atomic>
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

// A Tensor that the copies of a State share, read-only: the draft the controls
// edit, the pipeline's own copy and every undo step hold the same explicit
// weights, so copying a State of GPT-2's size copies a few pointers, and two
// copies that point at one Tensor compare equal without reading it.
//
// Reading goes through get() / -> / *; writing through mut(), which first
// gives this copy a Tensor of its own when another copy still shares it (copy
// on write): no copy ever sees another's edit. Empty (0 × 0) by default.
class SharedTensor {
 public:
  SharedTensor() = default;
  SharedTensor(Tensor t) { *this = std::move(t); }  // implicit: `s.weights.W_q = Tensor(...)`
  SharedTensor& operator=(Tensor t) {
    block_ = t.empty() && t.rows == 0 && t.cols == 0 ? nullptr : std::make_shared<Block>(std::move(t));
    return *this;
  }

  const Tensor& get() const { return block_ ? block_->t : empty_tensor(); }
  const Tensor& operator*() const { return get(); }
  const Tensor* operator->() const { return &get(); }
  operator const Tensor&() const { return get(); }
  TensorView view() const { return get().view(); }
  float at(int i, int j) const { return get().at(i, j); }  // reading; writing: mut().at(i, j) = v
  bool empty() const { return get().empty(); }

  // The Tensor to write into, this copy's own (copied first if shared). Its
  // cached finiteness (below) is forgotten.
  Tensor& mut() {
    if (!block_) block_ = std::make_shared<Block>(Tensor());
    else if (block_.use_count() > 1) block_ = std::make_shared<Block>(block_->t);
    block_->finite.store(-1, std::memory_order_relaxed);
    return block_->t;
  }
  // A fresh (r × c) Tensor filled with `fill`, never shared.
  void reset(int r, int c, float fill = 0.0f) { block_ = std::make_shared<Block>(Tensor(r, c, fill)); }

  // Whether both hold the very same Tensor (then they are equal, unread).
  bool same_as(const SharedTensor& o) const { return block_ == o.block_; }
  // Identity of the Tensor held (null when empty): what undo counts bytes by.
  const void* identity() const { return block_.get(); }
  // Bytes of floats held (shared or not).
  size_t bytes() const { return block_ ? block_->t.data.size() * sizeof(float) : 0; }

  // Whether every value is finite, checked once per Tensor (the check reads
  // 2.4 M floats at GPT-2's size; a shared Tensor never changes): `check` runs
  // on the first call and its answer is kept with the Tensor.
  template <class Check>
  bool all_finite(Check check) const {
    if (!block_) return true;
    int f = block_->finite.load(std::memory_order_relaxed);
    if (f < 0) {
      f = check(block_->t) ? 1 : 0;  // two threads may both check: same answer
      block_->finite.store(f, std::memory_order_relaxed);
    }
    return f == 1;
  }

 private:
  struct Block {
    explicit Block(Tensor x) : t(std::move(x)) {}
    Tensor t;
    std::atomic<int> finite{-1};  // -1: not checked; else whether every value is finite
  };
  static const Tensor& empty_tensor() {
    static const Tensor e;
    return e;
  }
  std::shared_ptr<Block> block_;
};

// Equal shapes and bits, like tensors_bitwise_equal; the same Tensor is equal
// without reading it.
inline bool tensors_bitwise_equal(const SharedTensor& a, const SharedTensor& b) {
  return a.same_as(b) || tensors_bitwise_equal(a.get(), b.get());
}

}  // namespace attnviz
