// Internal: float32 <-> JSON number conventions shared by the state writer and
// the report.
//   * finite floats become the shortest decimal that, read as a double and
//     rounded to float, gives back the same float32 bits (at most 9 digits);
//   * non-finite floats become the strings "-inf", "inf", "nan".
#pragma once

#include <nlohmann/json.hpp>

#include "attnviz/tensor.h"

namespace attnviz {
namespace detail {

nlohmann::json float_to_json(float f);
// The definition float_to_json follows, by searching %.1g … %.9g (slow): tests
// compare the two.
double shortest_by_precision(float f);
// Matrix (rows × cols) as an array of rows.
nlohmann::json tensor_to_json_rows(const TensorView& t);
// A (1 × n) tensor as a flat array.
nlohmann::json tensor_to_json_vector(const TensorView& t);

}  // namespace detail
}  // namespace attnviz
