// analysis.cpp: see attnviz/analysis.h for shapes, semantics and costs.
#include "attnviz/analysis.h"

#include <cassert>
#include <cmath>
#include <limits>

namespace attnviz {

namespace {

constexpr double kLn2 = 0.69314718055994530942;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// What a row is, for the statistics: a distribution (finite, >= 0, some weight),
// empty (all zero) or not a distribution (NaN, inf or negative somewhere).
enum class RowKind { distribution, empty, invalid };

// Classifies row (n) and returns its sum in double (meaningful for distributions).
RowKind classify_row(const float* row, int n, double* sum_out) {
  double sum = 0.0;
  for (int j = 0; j < n; ++j) {
    const float v = row[j];
    if (!std::isfinite(v) || v < 0.0f) return RowKind::invalid;
    sum += static_cast<double>(v);
  }
  *sum_out = sum;
  return sum > 0.0 ? RowKind::distribution : RowKind::empty;
}

// Σ_j x_j·ln x_j over p̂ = row / sum (n), with 0·ln 0 = 0; the row must be a distribution.
// Also writes p̂ into normalised (n).
double normalise_xlogx(const float* row, int n, double sum, double* normalised) {
  const double inv = 1.0 / sum;
  double acc = 0.0;
  for (int j = 0; j < n; ++j) {
    const double x = static_cast<double>(row[j]) * inv;
    normalised[j] = x;
    if (x > 0.0) acc += x * std::log(x);
  }
  return acc;
}

// JSD of two normalised rows p̂, q̂ (n) given Σ p̂ ln p̂ and Σ q̂ ln q̂:
//   JSD = ½(Σ p̂ ln p̂ + Σ q̂ ln q̂) − Σ m ln m,  m = ½(p̂ + q̂)
// (equal to ½KL(p̂‖m) + ½KL(q̂‖m); one log per cell). Clamped to [0, ln 2]
// against rounding. For p̂ = q̂ the terms cancel exactly: m = p̂ bit for bit and
// both sums run in the same order.
double jsd_normalised(const double* p, double p_xlogx, const double* q, double q_xlogx, int n) {
  double m_xlogm = 0.0;
  for (int j = 0; j < n; ++j) {
    const double m = 0.5 * (p[j] + q[j]);
    if (m > 0.0) m_xlogm += m * std::log(m);
  }
  const double jsd = 0.5 * (p_xlogx + q_xlogx) - m_xlogm;
  return jsd < 0.0 ? 0.0 : (jsd > kLn2 ? kLn2 : jsd);
}

}  // namespace

void analysis_row_stats(const TensorView& w, RowStats* out) {
  assert(out && "analysis_row_stats needs an output RowStats");
  const int rows = w.rows, cols = w.cols;
  out->entropy.reset(1, rows);     // (1 × R)
  out->max_weight.reset(1, rows);  // (1 × R)
  out->argmax.assign(static_cast<size_t>(rows), -1);  // (R)
  for (int i = 0; i < rows; ++i) {
    const float* row = w.row(i);  // (C)
    bool has_nan = false, not_distribution = false;
    float best = -std::numeric_limits<float>::infinity();
    int best_j = -1;
    double h = 0.0;  // −Σ w ln w, double accumulation
    for (int j = 0; j < cols; ++j) {
      const float v = row[j];
      if (std::isnan(v)) {
        has_nan = true;
        break;
      }
      if (!std::isfinite(v) || v < 0.0f) not_distribution = true;
      if (v > best) {
        best = v;
        best_j = j;
      }
      if (v > 0.0f && !not_distribution) h -= static_cast<double>(v) * std::log(static_cast<double>(v));
    }
    if (has_nan) {
      out->entropy.data[i] = kNaN;
      out->max_weight.data[i] = kNaN;
      continue;  // argmax stays −1
    }
    out->entropy.data[i] = not_distribution ? kNaN : static_cast<float>(h);
    out->max_weight.data[i] = cols > 0 ? best : kNaN;
    // All zero: no key receives weight, so there is no argmax to show.
    const bool all_zero = best_j >= 0 && best == 0.0f && !not_distribution;
    out->argmax[i] = all_zero ? -1 : best_j;
  }
}

void analysis_column_argmax(const TensorView& w, std::vector<int>* out) {
  assert(out && "analysis_column_argmax needs an output vector");
  const int rows = w.rows, cols = w.cols;
  out->assign(static_cast<size_t>(cols), -1);  // (C)
  for (int j = 0; j < cols; ++j) {
    float best = 0.0f;  // only a positive weight makes a query "the one that attends most"
    int best_i = -1;
    for (int i = 0; i < rows; ++i) {
      const float v = w.at(i, j);
      if (std::isnan(v)) {
        best_i = -1;
        break;
      }
      if (v > best) {
        best = v;
        best_i = i;
      }
    }
    (*out)[j] = best_i;
  }
}

void analysis_difference(const TensorView& a, const TensorView& b, Tensor* out) {
  assert(out && "analysis_difference needs an output Tensor");
  assert(a.rows == b.rows && a.cols == b.cols && "analysis_difference: a and b must have the same shape");
  out->reset(a.rows, a.cols);  // (R × C)
  for (int i = 0; i < a.rows; ++i) {
    const float* ar = a.row(i);  // (C)
    const float* br = b.row(i);  // (C)
    float* o = out->row(i);      // (C)
    for (int j = 0; j < a.cols; ++j) {
      const float x = ar[j], y = br[j];
      o[j] = (std::isinf(x) && x == y) ? x : x - y;
    }
  }
}

double analysis_jsd(const float* p, const float* q, int n) {
  double sp = 0.0, sq = 0.0;
  if (classify_row(p, n, &sp) != RowKind::distribution || classify_row(q, n, &sq) != RowKind::distribution)
    return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> pn(static_cast<size_t>(n)), qn(static_cast<size_t>(n));  // (n) each
  const double px = normalise_xlogx(p, n, sp, pn.data());
  const double qx = normalise_xlogx(q, n, sq, qn.data());
  return jsd_normalised(pn.data(), px, qn.data(), qx, n);
}

void analysis_head_divergence(const TensorView* heads, int num_heads, Tensor* out) {
  assert(out && "analysis_head_divergence needs an output Tensor");
  const int H = num_heads;
  out->reset(H, H);  // (H × H)
  if (H == 0) return;
  const int rows = heads[0].rows, cols = heads[0].cols;
  for (int h = 1; h < H; ++h)
    assert(heads[h].rows == rows && heads[h].cols == cols && "every head must have the same shape");

  // Row i of every head at once, normalised, so each pair costs one log per cell.
  std::vector<double> normalised(static_cast<size_t>(H) * cols);  // (H × C): p̂ of head h, row i
  std::vector<double> xlogx(static_cast<size_t>(H));              // (H): Σ p̂ ln p̂ of row i
  std::vector<char> valid(static_cast<size_t>(H));                // (H): row i is a distribution
  std::vector<double> sum(static_cast<size_t>(H) * H, 0.0);       // (H × H): Σ_i JSD over counted rows
  std::vector<int> count(static_cast<size_t>(H) * H, 0);          // (H × H): rows counted

  for (int i = 0; i < rows; ++i) {
    for (int h = 0; h < H; ++h) {
      double s = 0.0;
      const float* row = heads[h].row(i);  // (C)
      valid[h] = classify_row(row, cols, &s) == RowKind::distribution;
      if (valid[h]) xlogx[h] = normalise_xlogx(row, cols, s, &normalised[static_cast<size_t>(h) * cols]);
    }
    for (int a = 0; a < H; ++a) {
      if (!valid[a]) continue;
      ++count[static_cast<size_t>(a) * H + a];  // the diagonal: JSD(p, p) = 0
      for (int b = a + 1; b < H; ++b) {
        if (!valid[b]) continue;
        const double d = jsd_normalised(&normalised[static_cast<size_t>(a) * cols], xlogx[a],
                                        &normalised[static_cast<size_t>(b) * cols], xlogx[b], cols);
        sum[static_cast<size_t>(a) * H + b] += d;
        ++count[static_cast<size_t>(a) * H + b];
      }
    }
  }
  for (int a = 0; a < H; ++a)
    for (int b = a; b < H; ++b) {
      const size_t k = static_cast<size_t>(a) * H + b;
      const float v = count[k] > 0 ? static_cast<float>(sum[k] / count[k]) : kNaN;
      out->at(a, b) = v;
      out->at(b, a) = v;
    }
}

}  // namespace attnviz
