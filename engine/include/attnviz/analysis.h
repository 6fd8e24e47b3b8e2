// attnviz/analysis.h: statistics over the pipeline's matrices, for comparing heads.
//
// Plain functions over row-major buffers (tensor.h's convention); every
// argument documents its shape. They read stages the Pipeline already computed
// and never change them. Outputs are caller-owned and resized here (Tensor's
// reset keeps capacity), so a caller that keeps its outputs between calls does
// not allocate once they have reached their size. Cost is stated per function:
// callers (the UI) run these when a stage's version changes, not every frame.
//
// Numerics: sums and logarithms are evaluated in double and the results rounded
// to float32 once, so a value is within one float32 rounding of the exact
// statistic of the float32 inputs (the inputs are not re-rounded). These
// numbers are descriptive: nothing in the pipeline depends on them, so they do
// not follow PyTorch's summation order.
//
// Which rows count as distributions: a row of weights is a probability
// distribution over keys (softmax output, sums to 1 up to rounding). A row that
// contains NaN (softmax of an all −inf row without safe_softmax), +/−inf or a
// negative value is "not a distribution"; a row whose values are all zero (safe
// softmax of a fully masked row) is "empty". Each function says what it does with
// them.
#pragma once

#include <vector>

#include "attnviz/tensor.h"

namespace attnviz {

// Per-row statistics of one head's weights w (R × C), usually (S × S): row i is
// query i's distribution over the C keys.
struct RowStats {
  Tensor entropy;           // (1 × R) nats: −Σ_j w_ij·ln w_ij with 0·ln 0 = 0; NaN for a row
                            //   that is not a distribution. ln C for a uniform row, 0 for one-hot
  Tensor max_weight;        // (1 × R) max_j w_ij; NaN when the row contains NaN
  std::vector<int> argmax;  // (R) first j with w_ij = max; −1 when the row contains NaN or is
                            //   all zero (no key receives any weight)
};

// Fills `out` with the statistics of every row of w (R × C). The entropy is
// taken of the values as given (no renormalisation), so it is the entropy of
// the distribution only when the row sums to 1 (weights do; `dropped` rows do
// not). Cost O(R·C) with one log per nonzero value.
void analysis_row_stats(const TensorView& w, RowStats* out);

// For every column j of w (R × C), the first row i with the largest w_ij, into
// out (C): for weights, the query that attends most to key j. −1 for a column
// that contains NaN or has no positive value (no query attends to that key,
// e.g. a padded key). Cost O(R·C), no allocation once out has reached C.
void analysis_column_argmax(const TensorView& w, std::vector<int>* out);

// out (R × C) = a − b element-wise in float32, for a and b of the same shape
// (asserted). IEEE arithmetic, except that where a and b hold the same infinity
// the result is that infinity instead of NaN: a cell masked (−inf) in both
// inputs stays −inf, so a heatmap draws it in the masked style. NaN in either
// input gives NaN. Cost O(R·C).
void analysis_difference(const TensorView& a, const TensorView& b, Tensor* out);

// Jensen–Shannon divergence, natural log, between two rows p and q of n values:
//   JSD = ½·KL(p̂ ‖ m) + ½·KL(q̂ ‖ m),  m = ½(p̂ + q̂),
// where p̂ = p / Σp and q̂ = q / Σq (weights rows already sum to 1; dividing
// absorbs their rounding and makes `dropped` rows comparable). Result in
// [0, ln 2]: 0 for identical rows, ln 2 for rows with disjoint support.
// NaN when either row is not a distribution or is empty.
double analysis_jsd(const float* p, const float* q, int n);

// Head-by-head divergence: out (H × H), H = num_heads, with
//   out[a][b] = mean over rows i of JSD(heads[a] row i, heads[b] row i),
// natural log, in [0, ln 2]: 0 means the heads attend identically, ln 2 that no
// query row of one head shares a key with the same row of the other. A
// divergence, not a similarity: larger means more different.
//   heads: H views of the same shape (R × C) (asserted), e.g. every head's weights.
// Rows that are not a distribution or are empty in head a or in head b are
// skipped for that pair (the mean is over the remaining rows); when every row is
// skipped the entry is NaN. The result is symmetric and its diagonal is 0 (NaN
// for a head with no valid row). Cost O(H²/2 · R · C) with one log per nonzero
// cell per pair, plus O(H · C) doubles of scratch allocated per call.
void analysis_head_divergence(const TensorView* heads, int num_heads, Tensor* out);

}  // namespace attnviz
