// report_compare.h: one attnviz report against PyTorch's, stage by stage, within
// per-entry tolerances derived from the computation (the reasons are below).
// Used by test_fixtures.cpp (the engine against tests/fixtures/, made with
// PyTorch) and torch_script_check.cpp (the engine against the PyTorch scripts
// attnviz exports, run by python3).
//
//   compare_reports(name, state, expected, actual)
//     state     the canonical session state (state_to_json: every field)
//     expected  PyTorch's report; actual: the engine's (report_json)
//   adds one GoogleTest failure per entry out of tolerance, naming the case,
//   the stage (heads[h].weights), the entry ([row][col]), both values and the
//   tolerance; after kMaxReportsPerStage in one stage, just a count.
//
// [SECTION] Tolerance, and why
// [SECTION] Small matrix helpers
// [SECTION] Comparing one stage
// [SECTION] Comparing two reports
//
// ---------------------------------------------------------------------------
// [SECTION] Tolerance, and why
// Engine and PyTorch both compute in float32 but may sum in different orders,
// use different libm routines (torch's Sleef exp/log/cos on AVX2) or keep some
// steps in double, so results differ by rounding, not by exact bits. A flat
// tolerance would be too loose for small entries and too tight for large ones,
// so each entry gets its own bound, propagated through the pipeline from the
// magnitudes of the PyTorch values (u = 2^-24, the float32 unit roundoff;
// gamma(n) = n*u bounds the error of an n-term float32 dot product in any
// summation order; |A| is the entrywise absolute value):
//
//   X      randn embedding: 16u(|x| + 8). Box-Muller x = r cos t with
//          r <= sqrt(-2 ln 2^-24) < 5.8 and t in [0, 2pi): different log/cos
//          implementations and float-vs-double evaluation move x by a few ulps
//          of x plus r*|dt| with |dt| ~ 2pi*u, i.e. below 16u(|x| + 8).
//          Explicit values: exact. Sinusoidal PE adds 4u(pos + 2) + u|x|: the
//          angle <= pos carries a relative error of a few u if computed in
//          float, and |d sin| <= |d angle|; plus the rounding of the add.
//   W, b   random init: 4u * max|W| of that matrix (uniform_ computes
//          from + (to-from)*u, rounding relative to the bound, not the entry);
//          torch_rand is exact; explicit values are exact.
//   Q,K,V  E_X|W| + |X|E_W + E_b + 2 gamma(d_model+1) (|X||W| + |b|)
//          (first-order: error inherited from the inputs, plus rounding on both
//          sides, hence the factor 2 on every rounding term below).
//   scores E_Qh |K_h|^T + |Q_h| E_Kh^T + 2 gamma(head_dim) |Q_h||K_h|^T
//   q_rot  RoPE (issue 23): row i = position i, column c paired with c':
//   k_rot  E_x[c] + E_x[c'] + (|x_c| + |x_c'|)·4u(i + 2). The angle i·inv_freq is
//          one float32 product on both sides, but inv_freq (torch: Sleef powf)
//          may differ by an ulp, moving the angle by ~u·i; torch's cos/sin are
//          Sleef's 1-ulp ones, the engine's correctly rounded (another u each);
//          |d cos|, |d sin| <= |d angle|; plus the rounding of two products
//          and a sum. The scores bound then uses q_rot and k_rot.
//   scaled E_scores / divisor + 2*3u|scaled| (divisor product, division).
//   bias   ALiBi: −(m_h·|i − j|), one float32 product of the float32 slope on
//          both sides; the slope is a double rounded once (an ulp of double in
//          pow would almost never survive that): 2u|bias|.
//   masked the scaled bound (+ the bias bound and the add's 2u|masked| with
//          ALiBi) where not masked; filled entries are exact.
//   weights row i, d_i = max_k E_masked[i][k]: softmax moves by at most
//          w*(e^{2 d_i} - 1) under input perturbations <= d_i, plus its own
//          rounding w*2((S+4)u + u|m - max m|) (the exp argument m - max m is
//          rounded relative to its size).
//          With gpt-oss's sink (issue 36) the row is [masked row, s_h], S + 1
//          entries: s_h is an input both sides hold exactly (a float32 of the
//          state), so it adds no perturbation to d_i; it joins the max ("max m"
//          is max(row, s_h)) and the sum, one more rounding: (S+5)u.
//   dropped E_w * s + 2*2u|dropped|, s = 1/(1-p) (0 for p = 1, 1 if identity).
//   context E_dropped |V_h| + |dropped| E_Vh + 2 gamma(S) |dropped||V_h|
//   output E_concat |W_o| + |concat| E_Wo + E_bo + 2 gamma(d_out+1)(|concat||W_o| + |b_o|)
//
// An entry passes when |engine - torch| <= 2*E + 1e-5*|torch| + 1e-30:
//   2*E     the first-order bound with a factor 2 for second-order terms;
//   1e-5    relative slack (~170 float32 ulps) for what the bound leaves out,
//           e.g. an engine storing -1e20 as a double where torch stores the
//           float32 -1.00000002e20 (masked entries with a finite mask_fill);
//   1e-30   gradual underflow: exp of a very negative score may be a subnormal
//           in one implementation and 0 in another.
// A real bug (wrong index, scale, mask, seed, draw order) moves entries by
// O(|value|), orders of magnitude beyond these bounds.

#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnviz_test {

using nlohmann::json;


constexpr double kU = 1.0 / 16777216.0;  // 2^-24, float32 unit roundoff
constexpr double kSafety = 2.0;
constexpr double kRtol = 1e-5;
constexpr double kFloor = 1e-30;
constexpr int kMaxReportsPerStage = 5;  // then just a count, so a bad case stays readable

inline double gamma(int n) { return n * kU; }

// ---------------------------------------------------------------------------
// [SECTION] Small matrix helpers
// Row-major rows x cols doubles; a vector is a 1 x n matrix. Non-finite
// expected entries are kept as NaN/inf in `v`, but mag() treats them as 0
// (those entries compare as strings and their rows carry no finite bound).
struct Mat {
  int rows = 0, cols = 0;
  std::vector<double> v;
  Mat() = default;
  Mat(int r, int c, double fill = 0.0) : rows(r), cols(c), v(size_t(r) * size_t(c), fill) {}
  double& at(int r, int c) { return v[size_t(r) * size_t(cols) + size_t(c)]; }
  double at(int r, int c) const { return v[size_t(r) * size_t(cols) + size_t(c)]; }
  double mag(int r, int c) const {
    double x = at(r, c);
    return std::isfinite(x) ? std::fabs(x) : 0.0;
  }
};

inline double json_value(const json& x) {
  if (x.is_number()) return x.get<double>();
  const std::string s = x.get<std::string>();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  if (s == "inf") return std::numeric_limits<double>::infinity();
  return std::numeric_limits<double>::quiet_NaN();
}

// Expected matrices/vectors from our own fixture files (trusted layout).
inline Mat to_mat(const json& j) {
  if (j.empty()) return Mat(0, 0);
  if (!j[0].is_array()) {
    Mat m(1, int(j.size()));
    for (int c = 0; c < m.cols; ++c) m.at(0, c) = json_value(j[size_t(c)]);
    return m;
  }
  Mat m(int(j.size()), int(j[0].size()));
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c) m.at(r, c) = json_value(j[size_t(r)][size_t(c)]);
  return m;
}

inline Mat cols_of(const Mat& a, int c0, int n) {
  Mat m(a.rows, n);
  for (int r = 0; r < a.rows; ++r)
    for (int c = 0; c < n; ++c) m.at(r, c) = a.at(r, c0 + c);
  return m;
}

inline Mat abs_of(const Mat& a) {
  Mat m(a.rows, a.cols);
  for (int r = 0; r < a.rows; ++r)
    for (int c = 0; c < a.cols; ++c) m.at(r, c) = a.mag(r, c);
  return m;
}

// |A| . |B| (or |A| . |B|^T): the magnitude a product's rounding error scales with.
inline Mat abs_mul(const Mat& a, const Mat& b, bool b_transposed = false) {
  const int n = a.cols;
  const int out_cols = b_transposed ? b.rows : b.cols;
  Mat m(a.rows, out_cols);
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < out_cols; ++j) {
      double s = 0.0;
      for (int k = 0; k < n; ++k) s += a.mag(i, k) * (b_transposed ? b.mag(j, k) : b.mag(k, j));
      m.at(i, j) = s;
    }
  return m;
}

inline Mat add(const Mat& a, const Mat& b, double scale_b = 1.0) {
  Mat m = a;
  for (size_t i = 0; i < m.v.size(); ++i) m.v[i] += scale_b * b.v[i];
  return m;
}

inline Mat scaled_by(const Mat& a, double s) {
  Mat m = a;
  for (double& x : m.v) x *= s;
  return m;
}

// Adds a bias vector (1 x n) to every row.
inline Mat add_row(const Mat& a, const Mat& row) {
  Mat m = a;
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c) m.at(r, c) += row.at(0, c);
  return m;
}

inline double max_abs(const Mat& a) {
  double mx = 0.0;
  for (int r = 0; r < a.rows; ++r)
    for (int c = 0; c < a.cols; ++c) mx = std::max(mx, a.mag(r, c));
  return mx;
}

// Error bound of x.W + b given the bounds of its inputs (first order).
inline Mat linear_bound(const Mat& x, const Mat& ex, const Mat& w, const Mat& ew, const Mat* b,
                 const Mat* eb) {
  Mat e = add(abs_mul(ex, w), abs_mul(x, ew));
  Mat mag = abs_mul(x, w);
  if (b != nullptr) mag = add_row(mag, abs_of(*b));
  e = add(e, mag, 2.0 * gamma(x.cols + 1));
  if (eb != nullptr) e = add_row(e, *eb);
  return e;
}

// ---------------------------------------------------------------------------
// [SECTION] Comparing one stage
class StageChecker {
 public:
  explicit StageChecker(std::string case_name) : case_(std::move(case_name)) {}

  // Compares report[...] (`actual`) with `expected` entry by entry. `bound`
  // is the first-order error bound per entry (same shape, as a Mat).
  void compare(const std::string& stage, const json& expected, const json& actual,
               const Mat& bound) {
    if (!actual.is_array()) {
      ADD_FAILURE() << case_ << ": " << stage << " is missing or not an array in the report";
      return;
    }
    const bool is_matrix = !expected.empty() && expected[0].is_array();
    if (actual.size() != expected.size()) {
      ADD_FAILURE() << case_ << ": " << stage << " has " << actual.size() << " rows/entries, torch "
                    << expected.size();
      return;
    }
    int bad = 0;
    if (!is_matrix) {
      for (size_t c = 0; c < expected.size(); ++c)
        entry(stage + "[" + std::to_string(c) + "]", expected[c], actual[c], bound.at(0, int(c)),
              &bad);
    } else {
      for (size_t r = 0; r < expected.size(); ++r) {
        const std::string row = stage + "[" + std::to_string(r) + "]";
        if (!actual[r].is_array() || actual[r].size() != expected[r].size()) {
          ADD_FAILURE() << case_ << ": " << row << " has "
                        << (actual[r].is_array() ? std::to_string(actual[r].size()) : "no")
                        << " entries, torch " << expected[r].size();
          return;
        }
        for (size_t c = 0; c < expected[r].size(); ++c)
          entry(row + "[" + std::to_string(c) + "]", expected[r][c], actual[r][c],
                bound.at(int(r), int(c)), &bad);
      }
    }
    if (bad > kMaxReportsPerStage)
      ADD_FAILURE() << case_ << ": " << stage << ": " << bad << " entries differ in all ("
                    << kMaxReportsPerStage << " shown)";
  }

 private:
  void entry(const std::string& where, const json& e, const json& a, double bound, int* bad) {
    std::string why;
    if (e.is_string()) {
      if (!a.is_string() || a.get<std::string>() != e.get<std::string>())
        why = "torch has \"" + e.get<std::string>() + "\", engine " + a.dump();
    } else if (!a.is_number()) {
      why = "torch has " + e.dump() + ", engine " + a.dump();
    } else {
      const double ev = e.get<double>(), av = a.get<double>();
      const double tol = kSafety * bound + kRtol * std::fabs(ev) + kFloor;
      if (!(std::fabs(av - ev) <= tol)) {
        std::ostringstream os;
        os.precision(9);
        os << "engine " << av << " vs torch " << ev << " (|diff| " << std::fabs(av - ev)
           << " > tol " << tol << ")";
        why = os.str();
      }
    }
    if (why.empty()) return;
    if (++*bad <= kMaxReportsPerStage) ADD_FAILURE() << case_ << ": " << where << ": " << why;
  }

  std::string case_;
};

// ---------------------------------------------------------------------------
// [SECTION] Comparing two reports
inline void compare_reports(const std::string& name, const json& state, const json& exp,
                            const json& report) {
  // Layout: exactly the keys torch's report has (W_o / b_* only when enabled).
  std::set<std::string> want, got;
  for (auto it = exp.begin(); it != exp.end(); ++it) want.insert(it.key());
  for (auto it = report.begin(); it != report.end(); ++it) got.insert(it.key());
  for (const std::string& k : want)
    EXPECT_TRUE(got.count(k)) << name << ": report lacks \"" << k << "\"";
  for (const std::string& k : got)
    EXPECT_TRUE(want.count(k)) << name << ": report has \"" << k
                               << "\", which this state should not produce";
  EXPECT_EQ(report.value("tokens", json()), exp.at("tokens")) << name << ": tokens";

  // --- magnitudes and bounds from the torch values --------------------------
  const int S = int(exp.at("tokens").size());
  const int H = state.at("num_heads").get<int>();
  const int d_out = state.at("d_out").get<int>();
  const int hd = d_out / H;
  const json& wst = state.at("weights");
  const bool random_w = wst.contains("init");
  const json& emb = state.at("embedding");

  const Mat X = to_mat(exp.at("X"));
  Mat eX(X.rows, X.cols);
  for (int r = 0; r < X.rows; ++r)
    for (int c = 0; c < X.cols; ++c) {
      double e = 0.0;
      if (emb.contains("init")) e += 16.0 * kU * (X.mag(r, c) + 8.0);
      if (state.at("positional") == "sinusoidal") e += 4.0 * kU * (r + 2) + kU * X.mag(r, c);
      eX.at(r, c) = e;
    }

  auto weight_bound = [&](const Mat& w) {
    return Mat(w.rows, w.cols, random_w ? 4.0 * kU * max_abs(w) : 0.0);
  };
  struct Param {
    Mat m, e;
    bool present = false;
  };
  auto param = [&](const char* key) {
    Param p;
    if (exp.contains(key)) {
      p.m = to_mat(exp.at(key));
      p.e = weight_bound(p.m);
      p.present = true;
    }
    return p;
  };
  const Param Wq = param("W_q"), Wk = param("W_k"), Wv = param("W_v"), Wo = param("W_o");
  const Param bq = param("b_q"), bk = param("b_k"), bv = param("b_v"), bo = param("b_o");

  auto proj = [&](const Param& w, const Param& b) {
    return linear_bound(X, eX, w.m, w.e, b.present ? &b.m : nullptr, b.present ? &b.e : nullptr);
  };
  const Mat Q = to_mat(exp.at("Q")), K = to_mat(exp.at("K")), V = to_mat(exp.at("V"));
  const Mat eQ = proj(Wq, bq), eK = proj(Wk, bk), eV = proj(Wv, bv);

  StageChecker check(name);
  check.compare("X", exp.at("X"), report.value("X", json()), eX);
  for (const char* k : {"W_q", "W_k", "W_v", "W_o", "b_q", "b_k", "b_v", "b_o"})
    if (exp.contains(k)) check.compare(k, exp.at(k), report.value(k, json()), param(k).e);
  check.compare("Q", exp.at("Q"), report.value("Q", json()), eQ);
  check.compare("K", exp.at("K"), report.value("K", json()), eK);
  check.compare("V", exp.at("V"), report.value("V", json()), eV);

  // divisor x temperature, as the state defines it
  const std::string scale = state.at("scale").get<std::string>();
  double divisor = scale == "head_dim" ? std::sqrt(double(hd))
                   : scale == "d_out"  ? std::sqrt(double(d_out))
                                       : 1.0;
  divisor *= state.at("temperature").get<double>();
  const json& drop = state.at("dropout");
  const double p = drop.at("p").get<double>();
  const bool training = drop.at("training").get<bool>();
  const double keep_scale = (!training || p == 0.0) ? 1.0 : (p >= 1.0 ? 0.0 : 1.0 / (1.0 - p));

  const json& heads_exp = exp.at("heads");
  const json heads_got = report.value("heads", json());
  ASSERT_TRUE(heads_got.is_array()) << name << ": report has no heads array";
  ASSERT_EQ(heads_got.size(), heads_exp.size()) << name << ": number of heads";
  ASSERT_EQ(int(heads_exp.size()), H);

  Mat concat_bound(S, d_out);
  for (int h = 0; h < H; ++h) {
    const json& he = heads_exp[size_t(h)];
    const json& hg = heads_got[size_t(h)];
    const std::string hn = "heads[" + std::to_string(h) + "].";
    ASSERT_TRUE(hg.is_object()) << name << ": " << hn << " is not an object";
    for (auto it = hg.begin(); it != hg.end(); ++it)
      EXPECT_TRUE(he.contains(it.key())) << name << ": " << hn << it.key() << " is unexpected";

    // GQA / MQA: query head h reads K/V head g.
    const int G = state.value("num_kv_heads", H);
    const int g = h / (H / G);
    Mat Qh = cols_of(Q, h * hd, hd), Kh = cols_of(K, g * hd, hd);
    const Mat Vh = cols_of(V, g * hd, hd);
    Mat eQh = cols_of(eQ, h * hd, hd), eKh = cols_of(eK, g * hd, hd);
    const Mat eVh = cols_of(eV, g * hd, hd);
    if (he.contains("q_rot")) {  // RoPE: the scores are q_rot · k_rotᵀ
      const bool interleaved = state.contains("rope") && state.at("rope").value("style", "half") == "interleaved";
      auto rotation_bound = [&](const Mat& x, const Mat& ex) {
        Mat e(x.rows, x.cols);
        for (int i = 0; i < x.rows; ++i)
          for (int c = 0; c < x.cols; ++c) {
            const int cp = interleaved ? (c ^ 1) : (c < hd / 2 ? c + hd / 2 : c - hd / 2);
            e.at(i, c) = ex.at(i, c) + ex.at(i, cp) + (x.mag(i, c) + x.mag(i, cp)) * 4.0 * kU * (i + 2);
          }
        return e;
      };
      const Mat e_qr = rotation_bound(Qh, eQh), e_kr = rotation_bound(Kh, eKh);
      check.compare(hn + "q_rot", he.at("q_rot"), hg.value("q_rot", json()), e_qr);
      check.compare(hn + "k_rot", he.at("k_rot"), hg.value("k_rot", json()), e_kr);
      Qh = to_mat(he.at("q_rot"));
      Kh = to_mat(he.at("k_rot"));
      eQh = e_qr;
      eKh = e_kr;
    }

    // scores = Q_h K_h^T
    Mat e_scores = add(abs_mul(eQh, Kh, true), abs_mul(Qh, eKh, true));
    e_scores = add(e_scores, abs_mul(Qh, Kh, true), 2.0 * gamma(hd));
    check.compare(hn + "scores", he.at("scores"), hg.value("scores", json()), e_scores);

    // scaled = scores / (divisor * temperature)
    const Mat scaled = to_mat(he.at("scaled"));
    Mat e_scaled = add(scaled_by(e_scores, 1.0 / divisor), abs_of(scaled), 2.0 * 3.0 * kU);
    check.compare(hn + "scaled", he.at("scaled"), hg.value("scaled", json()), e_scaled);

    // ALiBi's bias, added to scaled before the mask
    const bool alibi = he.contains("bias");
    Mat biased = scaled, e_biased = e_scaled;
    if (alibi) {
      const Mat bias = to_mat(he.at("bias"));
      check.compare(hn + "bias", he.at("bias"), hg.value("bias", json()), scaled_by(abs_of(bias), 2.0 * kU));
      biased = add(scaled, bias);
      e_biased = add(add(e_scaled, abs_of(bias), 2.0 * kU), abs_of(biased), 2.0 * kU);
    }

    // masked: filled entries are exact constants
    const Mat masked = to_mat(he.at("masked"));
    Mat e_masked = e_biased;
    for (size_t i = 0; i < masked.v.size(); ++i)
      if (!(std::fabs(masked.v[i] - biased.v[i]) <= e_masked.v[i] * kSafety + kRtol * std::fabs(biased.v[i])))
        e_masked.v[i] = 0.0;  // a filled entry (not scaled + bias within its bound)
    check.compare(hn + "masked", he.at("masked"), hg.value("masked", json()), e_masked);

    // weights = softmax(masked) per row (with gpt-oss's sink: of [masked row, s_h])
    const Mat w = to_mat(he.at("weights"));
    Mat e_w(S, S);
    const json sinks = state.value("sinks", json());
    const bool sink_on = sinks.is_object() && sinks.value("enabled", false);
    const double sink = sink_on && sinks.contains("values") ? sinks.at("values").at(size_t(h)).get<double>() : 0.0;
    for (int i = 0; i < S; ++i) {
      double d = 0.0, mx = sink_on ? sink : -std::numeric_limits<double>::infinity();
      for (int k = 0; k < S; ++k) {
        d = std::max(d, e_masked.at(i, k));
        if (std::isfinite(masked.at(i, k))) mx = std::max(mx, masked.at(i, k));
      }
      for (int j = 0; j < S; ++j) {
        const double m = masked.at(i, j);
        const double arg = (std::isfinite(m) && std::isfinite(mx)) ? std::fabs(m - mx) : 0.0;
        e_w.at(i, j) = w.mag(i, j) * (std::expm1(2.0 * d) + 2.0 * ((S + (sink_on ? 5 : 4)) * kU + kU * arg));
      }
    }
    check.compare(hn + "weights", he.at("weights"), hg.value("weights", json()), e_w);

    // dropped = dropout(weights): exact 0/keep mask from the seed, times 1/(1-p)
    const Mat dropped = to_mat(he.at("dropped"));
    Mat e_d = add(scaled_by(e_w, keep_scale), abs_of(dropped), 2.0 * 2.0 * kU);
    check.compare(hn + "dropped", he.at("dropped"), hg.value("dropped", json()), e_d);

    // context = dropped V_h
    Mat e_c = add(abs_mul(e_d, Vh), abs_mul(dropped, eVh));
    e_c = add(e_c, abs_mul(dropped, Vh), 2.0 * gamma(S));
    check.compare(hn + "context", he.at("context"), hg.value("context", json()), e_c);
    for (int r = 0; r < S; ++r)
      for (int c = 0; c < hd; ++c) concat_bound.at(r, h * hd + c) = e_c.at(r, c);
  }
  check.compare("concat", exp.at("concat"), report.value("concat", json()), concat_bound);

  Mat e_out = concat_bound;
  if (Wo.present) {
    const Mat concat = to_mat(exp.at("concat"));
    e_out = linear_bound(concat, concat_bound, Wo.m, Wo.e, bo.present ? &bo.m : nullptr,
                         bo.present ? &bo.e : nullptr);
  }
  check.compare("output", exp.at("output"), report.value("output", json()), e_out);
}

}  // namespace attnviz_test
