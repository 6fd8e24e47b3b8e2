// tensor.cpp: the code of attnviz/tensor.h that is not inline.
#include "attnviz/tensor.h"

#include "attnviz/kernels.h"

namespace attnviz {

bool tensors_bitwise_equal(const Tensor& a, const Tensor& b) {
  if (a.rows != b.rows || a.cols != b.cols) return false;
  if (a.data.empty()) return true;
  return kernels::same_bytes(a.data.data(), b.data.data(), a.data.size() * sizeof(float));
}

}  // namespace attnviz
