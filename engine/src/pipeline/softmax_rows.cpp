// One head's softmax rows: weights row r from scores row r, whole or patched
// from the numerators the head keeps (HeadBuffers::exps, Plan::keep_exps).
// Every function here gives the bits compute_weights_row gives; the patches
// refuse (return false) where they could not.
#include <algorithm>
#include <cmath>
#include <limits>

#include "attnviz/kernels.h"
#include "pipeline/pipeline_internal.h"

namespace attnviz {
namespace detail {
namespace {

// Whether one of e (n) is exactly 1: its value was the row's max. Branch
// free, so the compiler vectorises it (these rows are S/2 long on average).
bool held_max(const float* e, int n) {
  int any = 0;
  for (int j = 0; j < n; ++j) any |= e[j] == 1.0f;
  return any != 0;
}

// The entries of weights row r that compute_weights_row works on: all S, or
// under a causal −inf mask the first kernels::softmax_cut (the rest are 0).
int weights_len(const Plan& p, int r) {
  return p.causal && p.fill == -std::numeric_limits<float>::infinity() ? kernels::softmax_cut(r + 1, p.S) : p.S;
}

}  // namespace

int weights_zero_from(const Plan& p, int r, const float* w) { return std::isnan(w[0]) ? p.S : weights_len(p, r); }

// With gpt-oss's sinks (Plan::sink, kernels.h Sink) every softmax below takes the
// head's sink: the max is the row's and the sink's, and the sum puts the sink's
// exp in the lane of column S whatever the length summed, so the cut rows and
// the kept numerators give the whole row's bits with a sink as without one.
// (A sink row is never all −inf: safe_softmax has nothing left to change.)
void compute_weights_row(const Plan& p, HeadBuffers& hb, int h, int r, float* w, int built_from) {
  const int cut = weights_len(p, r);
  const kernels::MaskRule rule = p.mask(h);
  const kernels::Sink* sink = p.sink(h);
  if (p.keep_exps) {
    float* e = hb.exps.row(r);
    float& m = hb.row_max[static_cast<size_t>(r)];
    m = std::numeric_limits<float>::quiet_NaN();
    kernels::masked_row(hb.scores.row(r), e, std::min(built_from, cut), r, rule);
    // Under a causal −inf mask keys r + 1 … cut − 1 hold −inf, whose exps are
    // +0 under a finite max: only the first r + 1 go through exp, which keeps
    // −inf out of the rows the vector exps take their narrow form for.
    const int live = p.causal && p.fill == -std::numeric_limits<float>::infinity() ? r + 1 : cut;  // <= cut
    const float mx = kernels::softmax_exps(e, e, live, sink);
    if (mx - mx == 0.0f) {  // a finite max: the exps are numbers in [0, 1] with a 1 among them (or the sink's)
      // The masked keys' exps (+0) up to the cut, which the normalisation sums;
      // past it no reader looks at a causal −inf row's exps (they are S − cut
      // floats of memory traffic per row: issue 37).
      kernels::fill_zero(e + live, static_cast<size_t>(cut - live));
      kernels::softmax_normalize(e, w, cut, mx, sink);
      kernels::fill_zero(w + cut, static_cast<size_t>(p.S - cut));
      m = mx;
      return;
    }
  } else {
    weights_row_from_scores(p, h, r, hb.scores.row(r), w);
    return;
  }
  kernels::masked_row(hb.scores.row(r), w, p.S, r, rule);
  kernels::softmax_row(w, w, p.S, p.safe_softmax, sink);
}

void weights_row_from_scores(const Plan& p, int h, int r, const float* s, float* w) {
  const int cut = weights_len(p, r);
  const kernels::MaskRule rule = p.mask(h);
  const kernels::Sink* sink = p.sink(h);
  if (cut < p.S) {
    kernels::masked_row(s, w, cut, r, rule);
    kernels::softmax_row(w, w, cut, false, sink);
    if (!std::isnan(w[0])) {
      kernels::fill_zero(w + cut, static_cast<size_t>(p.S - cut));
      return;
    }
  }
  kernels::masked_row(s, w, p.S, r, rule);
  kernels::softmax_row(w, w, p.S, p.safe_softmax, sink);
}

bool patch_weights_row(const Plan& p, HeadBuffers& hb, int h, int r, const std::vector<int>& cols, float* w) {
  if (!p.keep_exps) return false;
  const float m = hb.row_max[static_cast<size_t>(r)];
  if (m != m) return false;
  float* e = hb.exps.row(r);
  const float* s = hb.scores.row(r);
  const kernels::MaskRule rule = p.mask(h);
  const int len = weights_len(p, r);
  for (int c : cols) {
    if (c >= len) continue;  // past a causal −inf cut: the weight stays +0, the exp is not kept
    const float x = kernels::masked_value(s[c], r, c, rule);  // masked_row's value
    if (!(x <= m) || (e[c] == 1.0f && x != m)) return false;
    e[c] = kernels::exp_f32(x - m);
  }
  kernels::softmax_normalize(e, w, len, m, p.sink(h));
  kernels::fill_zero(w + len, static_cast<size_t>(p.S - len));
  return true;
}

bool causal_on_weights_row(const Plan& p, HeadBuffers& hb, int h, int r, float* w) {  // keys after r: the fill
  if (!p.keep_exps) return false;
  const float m = hb.row_max[static_cast<size_t>(r)];
  if (m != m || !(p.fill <= m)) return false;
  float* e = hb.exps.row(r);
  const size_t S = static_cast<size_t>(p.S);
  if (held_max(e + r + 1, p.S - r - 1) && p.fill != m) return false;
  std::fill(e + r + 1, e + S, kernels::exp_f32(p.fill - m));
  const int len = weights_len(p, r);
  kernels::softmax_normalize(e, w, len, m, p.sink(h));
  kernels::fill_zero(w + len, static_cast<size_t>(S - len));
  return true;
}

bool causal_off_weights_row(const Plan& p, HeadBuffers& hb, int h, int r, float* w, int* built_from) {
  if (!p.keep_exps || p.causal) return false;
  const float m = hb.row_max[static_cast<size_t>(r)];
  if (m != m) return false;
  float* e = hb.exps.row(r);
  const int from = r + 1, n = p.S - from;  // keys after r
  if (n > 0) {
    // An old exp of 1 there means the fill was the max: the max may move.
    // A fill of −inf never was (a finite row max is above it, and the patch
    // is only tried with the fill unchanged), so the scan is left out: past
    // the cut a causal −inf row's exps were never written.
    if (p.fill != -std::numeric_limits<float>::infinity() && held_max(e + from, n)) return false;
    // Their masked values (the padded ones keep the fill), built in place.
    // softmax_exps_under writes nothing when it refuses (one of them tops
    // the max, or is NaN), so they stand for compute_weights_row.
    float* x = e + from;  // (n)
    // (the rule of the columns from `from` on, row r − from = −1: relative
    // positions, so the window and ALiBi's distance come out right)
    kernels::masked_row(hb.scores.row(r) + from, x, n, -1, p.mask(h).from_column(from));
    if (!kernels::softmax_exps_under(x, x, n, m)) {
      *built_from = from;
      return false;
    }
  }
  kernels::softmax_normalize(e, w, p.S, m, p.sink(h));
  return true;
}

}  // namespace detail
}  // namespace attnviz
