#include "json_numbers.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace attnviz {
namespace detail {

nlohmann::json float_to_json(float f) {
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
  // Shortest of %.1g ... %.9g that survives decimal -> double -> float.
  // %.9g always does (9 significant digits identify any float32).
  char buf[32];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, static_cast<double>(f));
    const double d = std::strtod(buf, nullptr);
    if (static_cast<float>(d) == f && std::signbit(static_cast<float>(d)) == std::signbit(f)) {
      return d;
    }
  }
  return static_cast<double>(f);  // not reached
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
