#include "state/json_numbers.h"

// fmt from Debian's libfmt-dev, header-only in this one file (no library to link,
// the same code natively and in WebAssembly).
#define FMT_HEADER_ONLY
#include <fmt/format.h>

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

// One shortest-round-trip conversion (fmt's Dragonbox, Debian's libfmt-dev used
// header-only: std::to_chars has no floating-point overloads in Emscripten 3.1.6's
// libc++) where the search needs up to 9 snprintf + strtod pairs. fmt writes a
// large float's shortest digits padded with zeros (33565870, as %g does, not
// the exact 33565872). The two agree except where the shortest conversion may
// pick a digit string the search does not: a power of two (its neighbours are
// not evenly spaced, so the nearest short decimal can lie on the narrow side)
// or a decimal that reads back, through double, as another float. Those go to
// the search, so the text stays byte for byte what the goldens hold
// (JsonNumbers.ShortestAgreesWithTheSearchByPrecision checks 1.2 M floats).
nlohmann::json float_to_json(float f) {
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffu) == 0) return shortest_by_precision(f);  // ±0 and powers of two
  char buf[64];
  const auto r = fmt::format_to_n(buf, sizeof buf - 1, "{}", f);
  buf[r.size < sizeof buf ? r.size : sizeof buf - 1] = '\0';
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
