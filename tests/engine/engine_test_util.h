// Helpers shared by the engine tests.
//
// Printed tables: the tutorials' tables are typed into the tests as the text
// PyTorch printed (e.g. "[[ 0.3374, -0.1778], [1.6344e-01, -inf]]"). Each
// number keeps its printed precision, and a cell matches when the engine's
// value is within half a unit of the last printed digit of that number
// (PyTorch rounds to the printed digits, so the true value lies in that
// interval), plus 1e-9 relative slack for decimal-to-double conversion.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "attnviz/pipeline.h"
#include "attnviz/state.h"
#include "attnviz/state_json.h"

namespace attnviz_test {

struct Printed {
  double value = 0.0;      // as printed
  double half_unit = 0.0;  // half a unit of the last printed digit
};

// Parses every number of a printed table, row by row ("[...]" at depth 1 or
// the innermost brackets start rows). "-inf"/"inf"/"nan" are accepted.
inline std::vector<std::vector<Printed>> parse_printed(const char* text) {
  std::vector<std::vector<Printed>> rows;
  std::vector<Printed> row;
  const char* s = text;
  while (*s) {
    if (*s == '[') {
      row.clear();
      ++s;
      continue;
    }
    if (*s == ']') {
      if (!row.empty()) rows.push_back(row);
      row.clear();
      ++s;
      continue;
    }
    if (std::strncmp(s, "-inf", 4) == 0 || std::strncmp(s, "inf", 3) == 0 ||
        std::strncmp(s, "nan", 3) == 0) {
      const bool neg = *s == '-';
      const bool nan = s[neg ? 1 : 0] == 'n';
      row.push_back({nan ? NAN : (neg ? -INFINITY : INFINITY), 0.0});
      s += neg ? 4 : 3;
      continue;
    }
    if ((*s >= '0' && *s <= '9') || ((*s == '-' || *s == '+') && s[1] >= '0' && s[1] <= '9')) {
      char* end = nullptr;
      const double v = std::strtod(s, &end);
      // decimals of the mantissa and the exponent, for the printed precision
      const char* dot = nullptr;
      const char* e = nullptr;
      for (const char* p = s; p < end; ++p) {
        if (*p == '.') dot = p;
        if (*p == 'e' || *p == 'E') e = p;
      }
      const char* mant_end = e ? e : end;
      const int decimals = dot ? static_cast<int>(mant_end - dot - 1) : 0;
      const int exponent = e ? std::atoi(e + 1) : 0;
      row.push_back({v, 0.5 * std::pow(10.0, exponent - decimals)});
      s = end;
      continue;
    }
    ++s;
  }
  return rows;
}

// A documented exception for one cell whose printed digit sits on a rounding
// boundary (the reason must be written where it is used).
struct CellAllowance {
  int i, j;
  double tolerance;
};

// Expects t (rows × cols, or a column range of it) to match a printed table.
inline void expect_printed(const attnviz::TensorView& t, const char* printed, const std::string& what,
                           const std::vector<CellAllowance>& allowances = {}) {
  const auto rows = parse_printed(printed);
  ASSERT_EQ(static_cast<int>(rows.size()), t.rows) << what << ": number of rows";
  for (int i = 0; i < t.rows; ++i) {
    ASSERT_EQ(static_cast<int>(rows[i].size()), t.cols) << what << ": row " << i << " length";
    for (int j = 0; j < t.cols; ++j) {
      const Printed& p = rows[i][j];
      const double got = t.at(i, j);
      if (std::isnan(p.value)) {
        EXPECT_TRUE(std::isnan(got)) << what << "[" << i << "][" << j << "] = " << got;
      } else if (std::isinf(p.value)) {
        EXPECT_EQ(got, p.value) << what << "[" << i << "][" << j << "]";
      } else {
        double tol = p.half_unit + 1e-9 * std::fabs(p.value);
        for (const CellAllowance& a : allowances) {
          if (a.i == i && a.j == j) tol = a.tolerance;
        }
        EXPECT_NEAR(got, p.value, tol)
            << what << "[" << i << "][" << j << "] printed " << p.value;
      }
    }
  }
}

// One printed row against row i of t.
inline void expect_printed_row(const attnviz::TensorView& t, int i, const char* printed,
                               const std::string& what) {
  attnviz::TensorView r{t.row(i), 1, t.cols, t.stride};
  expect_printed(r, printed, what);
}

// Parses a state, asserting it is valid.
// "t0", "t1", … (S of them) as a JSON list: a state's tokens when their words do not matter.
inline std::string tokens_json(int S, const std::string& prefix = "t") {
  std::string t = "[";
  for (int i = 0; i < S; ++i) t += (i ? ",\"" : "\"") + prefix + std::to_string(i) + "\"";
  return t + "]";
}

inline attnviz::State state_from(const std::string& json_text) {
  attnviz::State s;
  const attnviz::Status st = attnviz::parse_state_text(json_text, &s);
  EXPECT_TRUE(st.ok) << st.error << " (field " << st.field << ")";
  return s;
}

// Runs a state through a fresh pipeline, asserting success.
inline void run(attnviz::Pipeline* p, const attnviz::State& s) {
  const attnviz::Status st = p->set_state(s);
  ASSERT_TRUE(st.ok) << st.error << " (field " << st.field << ")";
}

inline attnviz::TensorView view(const attnviz::Pipeline& p, attnviz::Stage s, int head = 0) {
  const attnviz::Tensor* t = p.matrix(s, head);
  EXPECT_NE(t, nullptr) << attnviz::stage_name(s);
  return t ? t->view() : attnviz::TensorView{};
}

// Every stage a pipeline shows: global ones and those of each head.
constexpr attnviz::Stage kGlobal[] = {
    attnviz::Stage::X,   attnviz::Stage::W_q, attnviz::Stage::W_k, attnviz::Stage::W_v,    attnviz::Stage::W_o,
    attnviz::Stage::b_q, attnviz::Stage::b_k, attnviz::Stage::b_v, attnviz::Stage::b_o,    attnviz::Stage::Q,
    attnviz::Stage::K,   attnviz::Stage::V,   attnviz::Stage::concat, attnviz::Stage::output};
constexpr attnviz::Stage kPerHead[] = {attnviz::Stage::scores,  attnviz::Stage::scaled,  attnviz::Stage::masked,
                                       attnviz::Stage::weights, attnviz::Stage::dropped, attnviz::Stage::context};

// Every stage of p (every head) is bitwise what a fresh pipeline computes
// for p's state.
inline void expect_same_as_fresh(const attnviz::Pipeline& p, const std::string& when) {
  attnviz::Pipeline fresh;
  ASSERT_TRUE(fresh.set_state(p.state()).ok);
  for (attnviz::Stage s : kGlobal) {
    const attnviz::Tensor* a = p.matrix(s);
    const attnviz::Tensor* b = fresh.matrix(s);
    ASSERT_EQ(a == nullptr, b == nullptr) << when << ": " << attnviz::stage_name(s);
    if (a != nullptr) {
      EXPECT_TRUE(attnviz::tensors_bitwise_equal(*a, *b)) << when << ": " << attnviz::stage_name(s);
    }
  }
  for (int h = 0; h < p.num_heads(); ++h) {
    for (attnviz::Stage s : kPerHead) {
      EXPECT_TRUE(attnviz::tensors_bitwise_equal(*p.matrix(s, h), *fresh.matrix(s, h)))
          << when << ": " << attnviz::stage_name(s) << " head " << h;
    }
    // The variants' stages (q_rot, k_rot with RoPE; bias with ALiBi): present in both or neither.
    for (attnviz::Stage s : {attnviz::Stage::q_rot, attnviz::Stage::k_rot, attnviz::Stage::bias}) {
      const attnviz::Tensor* a = p.matrix(s, h);
      const attnviz::Tensor* b = fresh.matrix(s, h);
      ASSERT_EQ(a == nullptr, b == nullptr) << when << ": " << attnviz::stage_name(s) << " head " << h;
      if (a != nullptr) {
        EXPECT_TRUE(attnviz::tensors_bitwise_equal(*a, *b)) << when << ": " << attnviz::stage_name(s) << " head " << h;
      }
    }
  }
}

inline bool bitwise_equal(const attnviz::Tensor& a, const attnviz::Tensor& b) {
  return attnviz::tensors_bitwise_equal(a, b);
}

}  // namespace attnviz_test
