// attnviz/torch_print.h: a float32 tensor as PyTorch's `repr(t)` prints it, byte for byte.
//
// The lessons show the tensor a line of PyTorch prints, made from the engine's numbers.
// torch_repr follows torch/_tensor_str.py of PyTorch 1.13 (Debian's python3-torch) for
// a float32 tensor on the CPU: int mode ("1.", "-3."), fixed ("0.3374") or scientific
// ("1.0000e-05") chosen from the nonzero finite values, one width for every value,
// rows wrapped at `linewidth`, the `...` summary above `threshold` elements and the
// suffixes after the last bracket, on the same line or the next.
// Checked against PyTorch's own text: tests/engine/test_torch_print.cpp reads the
// fixture tests/fixtures/torch_print.py writes (docs/engine.md, "Printing as PyTorch prints").
#pragma once

#include <string>
#include <vector>

namespace attnviz {

// torch.set_printoptions; the members' defaults are PyTorch's (profile "default").
struct TorchPrintOptions {
  int precision = 4;    // digits after the point ("{:.4f}", "{:.4e}")
  int linewidth = 80;   // characters per line before a row wraps or a suffix moves down
  int threshold = 1000; // more elements than this: print only the edges, `...` between
  int edgeitems = 3;    // how many items each summarised dimension keeps at each end
};

// repr(torch.tensor(data, dtype=torch.float32).reshape(shape)) followed by `suffixes`
// as PyTorch adds them ("grad_fn=<MmBackward0>", "requires_grad=True"), e.g.
//   tensor([[ 0.3374, -0.1778],
//           [ 1.5810,  1.3010]], grad_fn=<EmbeddingBackward0>)
// data: row-major, the product of `shape` floats; shape: 0-D (empty: a scalar) to 4-D
// (any rank works). A tensor with no elements prints "tensor([])" and, unless it is
// 1-D, PyTorch's "size=(2, 0)" suffix before `suffixes`.
std::string torch_repr(const float* data, const std::vector<int>& shape,
                       const std::vector<std::string>& suffixes = {},
                       const TorchPrintOptions& opt = {});

}  // namespace attnviz
