#include "json_numbers.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <cstdlib>

namespace attnviz {
namespace detail {

// The text a float gets: the shortest of %.1g … %.9g that survives decimal →
// double → float (%.9g always does: 9 significant digits identify any float32).
// This search by precision defines it; float_to_json finds the same text faster.
double shortest_by_precision(float f) {
  char buf[32];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, static_cast<double>(f));
    const double d = std::strtod(buf, nullptr);
    if (static_cast<float>(d) == f && std::signbit(static_cast<float>(d)) == std::signbit(f)) return d;
  }
  return static_cast<double>(f);  // not reached
}

// One std::to_chars (float's shortest round trip, in scientific form: the
// fixed form would write a large integer's exact digits, 33565872, where %g
// writes 33565870) where the search needs up to 9 snprintf + strtod pairs. They
// agree except where std::to_chars may pick a digit string the search does not:
// a power of two (its neighbours are not evenly spaced, so the nearest short
// decimal can lie on the narrow side) or a decimal that reads back, through
// double, as another float. Those go to the search: the text stays byte for byte
// (JsonNumbers.ToCharsAgreesWithTheSearchByPrecision checks millions of floats).
nlohmann::json float_to_json(float f) {
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffu) == 0) return shortest_by_precision(f);  // ±0 and powers of two
  char buf[48];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf - 1, f, std::chars_format::scientific);
  *r.ptr = '\0';
  const double d = std::strtod(buf, nullptr);
  if (static_cast<float>(d) == f) return d;
  return shortest_by_precision(f);
}

nlohmann::json tensor_to_json_rows(const TensorView& t) {
  nlohmann::json rows = nlohmann::json::array();
  for (int i = 0; i < t.rows; ++i) {
    nlohmann::json row = nlohmann::json::array();
    const float* r = t.row(i);
    for (int j = 0; j < t.cols; ++j) row.push_back(float_to_json(r[j]));
    rows.push_back(std::move(row));
  }
  return rows;
}

nlohmann::json tensor_to_json_vector(const TensorView& t) {
  nlohmann::json v = nlohmann::json::array();
  for (int i = 0; i < t.rows; ++i) {
    const float* r = t.row(i);
    for (int j = 0; j < t.cols; ++j) v.push_back(float_to_json(r[j]));
  }
  return v;
}

}  // namespace detail
}  // namespace attnviz
