// A float32 tensor as PyTorch 1.13's repr prints it (torch_print.h).
// Each function names the piece of torch/_tensor_str.py it follows; the text is ours.
//
// [SECTION] numbers as Python's str.format writes them
// [SECTION] the formatter: one mode and one width for the whole tensor
// [SECTION] the summary: which indices of a dimension are printed
// [SECTION] brackets, rows and wrapping
// [SECTION] suffixes and the whole repr
#include "attnviz/torch_print.h"

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace attnviz {
namespace {

// ---- [SECTION] numbers as Python's str.format writes them -------------------

// "{:.Nf}" (conv 'f') or "{:.Ne}" (conv 'e') of a float32 widened to double, as
// tolist() hands it to Python. C's printf rounds the exact binary value correctly,
// as Python does, and also writes at least two exponent digits ("1.0000e-05").
// Python never signs a NaN ("nan"), C may ("-nan"): the non-finite words are ours.
std::string py_format(double v, char conv, int precision) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  const char* fmt = conv == 'e' ? "%.*e" : "%.*f";
  const int n = std::snprintf(nullptr, 0, fmt, precision, v);
  std::string s(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(&s[0], s.size(), fmt, precision, v);
  s.resize(static_cast<size_t>(n));
  return s;
}

// ---- [SECTION] the formatter: one mode and one width for the whole tensor ---

// _Formatter for a floating tensor. Looks only at the nonzero finite values among
// those printed: all integers is int mode ("3."), sci mode when the largest is over
// 1000 times the smallest or over 1e8 (or, outside int mode, the smallest is under
// 1e-4). max_width is the widest of those values; zeros, nan and inf do not count.
struct Formatter {
  bool int_mode = true;
  bool sci_mode = false;
  int max_width = 1;
  int precision = 4;
};

Formatter make_formatter(const std::vector<double>& shown, int precision) {
  Formatter f;
  f.precision = precision;
  std::vector<double> vals;  // the nonzero finite values
  for (double v : shown)
    if (std::isfinite(v) && v != 0) vals.push_back(v);
  if (vals.empty()) return f;  // nothing to measure: int mode, width 1
  double lo = std::fabs(vals[0]), hi = lo;
  for (double v : vals) {
    lo = std::fmin(lo, std::fabs(v));
    hi = std::fmax(hi, std::fabs(v));
    if (v != std::ceil(v)) f.int_mode = false;
  }
  const bool wide = hi / lo > 1000.0 || hi > 1.0e8;
  f.sci_mode = f.int_mode ? wide : (wide || lo < 1.0e-4);
  for (double v : vals) {
    int w;
    if (f.sci_mode) w = static_cast<int>(py_format(v, 'e', precision).size());
    else if (f.int_mode) w = static_cast<int>(py_format(v, 'f', 0).size()) + 1;  // the "."
    else w = static_cast<int>(py_format(v, 'f', precision).size());
    if (w > f.max_width) f.max_width = w;
  }
  return f;
}

// _Formatter.format: the value in the tensor's mode, right-aligned to max_width.
// In int mode finite values get a "." (inf and nan do not). A value wider than
// max_width (-0.0, nan, inf were not measured) is left as it is, unpadded.
std::string format_value(const Formatter& f, float x) {
  const double v = x;
  std::string s;
  if (f.sci_mode) s = py_format(v, 'e', f.precision);
  else if (f.int_mode) s = py_format(v, 'f', 0) + (std::isfinite(v) ? "." : "");
  else s = py_format(v, 'f', f.precision);
  const int pad = f.max_width - static_cast<int>(s.size());
  return pad > 0 ? std::string(static_cast<size_t>(pad), ' ') + s : s;
}

// ---- [SECTION] the summary: which indices of a dimension are printed --------

// Summarising keeps the first and last `edge` indices of every dimension longer
// than 2·edge, with a gap between (the same rule in _vector_str,
// _tensor_str_with_formatter and get_summarized_data). edge >= 1 is assumed.
struct Picks {
  std::vector<int> head, tail;  // indices before and after the gap
  bool gap = false;
};

Picks pick_indices(int n, bool summarize, int edge) {
  Picks p;
  p.gap = summarize && n > 2 * edge;
  const int head_end = p.gap ? edge : n;
  for (int i = 0; i < head_end; ++i) p.head.push_back(i);
  if (p.gap)
    for (int i = n - edge; i < n; ++i) p.tail.push_back(i);
  return p;
}

// The tensor being printed: row-major data with its shape and strides (elements).
struct Tensor {
  const float* data;
  std::vector<int> shape;
  std::vector<size_t> strides;
  bool summarize;
  TorchPrintOptions opt;
};

// get_summarized_data: the values the formatter measures, i.e. exactly those printed.
void collect_shown(const Tensor& t, size_t dim, size_t offset, std::vector<double>* out) {
  if (dim == t.shape.size()) {
    out->push_back(t.data[offset]);
    return;
  }
  const Picks p = pick_indices(t.shape[dim], t.summarize, t.opt.edgeitems);
  for (const std::vector<int>* part : {&p.head, &p.tail})
    for (int i : *part) collect_shown(t, dim + 1, offset + static_cast<size_t>(i) * t.strides[dim], out);
}

// ---- [SECTION] brackets, rows and wrapping ----------------------------------

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? sep : "") + parts[i];
  return s;
}

// _vector_str: the last dimension, "[a, b, c]". Every item is max_width + 2
// characters wide (", "); as many as fit in linewidth − indent go on a line (at
// least one); further lines start below the first item. The gap is an item " ...".
std::string vector_str(const Tensor& t, const Formatter& f, size_t offset, int indent) {
  const size_t dim = t.shape.size() - 1;
  const Picks p = pick_indices(t.shape[dim], t.summarize, t.opt.edgeitems);
  std::vector<std::string> items;
  for (int i : p.head) items.push_back(format_value(f, t.data[offset + static_cast<size_t>(i) * t.strides[dim]]));
  if (p.gap) items.push_back(" ...");
  for (int i : p.tail) items.push_back(format_value(f, t.data[offset + static_cast<size_t>(i) * t.strides[dim]]));
  const double item_len = f.max_width + 2;
  const size_t per_line = static_cast<size_t>(
      std::fmax(1.0, std::floor((t.opt.linewidth - indent) / item_len)));
  std::vector<std::string> lines;
  for (size_t i = 0; i < items.size(); i += per_line) {
    const size_t end = i + per_line < items.size() ? i + per_line : items.size();
    lines.push_back(join(std::vector<std::string>(items.begin() + static_cast<std::ptrdiff_t>(i),
                                                  items.begin() + static_cast<std::ptrdiff_t>(end)), ", "));
  }
  return "[" + join(lines, ",\n" + std::string(static_cast<size_t>(indent) + 1, ' ')) + "]";
}

// _tensor_str_with_formatter for 1 or more dimensions: each slice of `dim` one
// indent deeper, separated by "," and as many newlines as the slices have
// dimensions (so a blank line between the matrices of a 3-D tensor); the gap is "...".
std::string block_str(const Tensor& t, const Formatter& f, size_t dim, size_t offset, int indent) {
  if (dim + 1 == t.shape.size()) return vector_str(t, f, offset, indent);
  const Picks p = pick_indices(t.shape[dim], t.summarize, t.opt.edgeitems);
  std::vector<std::string> slices;
  for (int i : p.head) slices.push_back(block_str(t, f, dim + 1, offset + static_cast<size_t>(i) * t.strides[dim], indent + 1));
  if (p.gap) slices.push_back("...");
  for (int i : p.tail) slices.push_back(block_str(t, f, dim + 1, offset + static_cast<size_t>(i) * t.strides[dim], indent + 1));
  const size_t sub_dims = t.shape.size() - dim - 1;
  const std::string sep = "," + std::string(sub_dims, '\n') + std::string(static_cast<size_t>(indent) + 1, ' ');
  return "[" + join(slices, sep) + "]";
}

// ---- [SECTION] suffixes and the whole repr ----------------------------------

// _add_suffixes: each suffix follows ", " on the last line unless that line would
// pass linewidth; then it starts a line of its own at `indent`. PyTorch's measure of
// the last line is its length + 2 (len − rfind("\n") + 1, and rfind is −1 when
// there is no newline), which we keep exactly.
std::string add_suffixes(const std::string& text, const std::vector<std::string>& suffixes,
                         int indent, int linewidth) {
  const size_t nl = text.rfind('\n');
  const long last_newline = nl == std::string::npos ? -1 : static_cast<long>(nl);
  long last_line_len = static_cast<long>(text.size()) - last_newline + 1;
  std::string out = text;
  for (const std::string& suffix : suffixes) {
    const long len = static_cast<long>(suffix.size());
    if (last_line_len + len + 2 > linewidth) {
      out += ",\n" + std::string(static_cast<size_t>(indent), ' ') + suffix;
      last_line_len = indent + len;
    } else {
      out += ", " + suffix;
      last_line_len += len + 2;
    }
  }
  return out + ")";
}

// str(tuple(shape)) for the size= suffix of an empty tensor: "(2, 0)".
std::string shape_tuple(const std::vector<int>& shape) {
  std::vector<std::string> dims;
  for (int d : shape) dims.push_back(std::to_string(d));
  return "(" + join(dims, ", ") + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

// _str_intern + _tensor_str for a plain float32 CPU tensor: "tensor(" (indent 7),
// the values, then the suffixes. Summarised when the tensor has more than
// `threshold` elements.
std::string torch_repr(const float* data, const std::vector<int>& shape,
                       const std::vector<std::string>& suffixes, const TorchPrintOptions& opt) {
  const int indent = 7;  // "tensor("
  Tensor t{data, shape, std::vector<size_t>(shape.size(), 1), false, opt};
  size_t numel = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    t.strides[d] = numel;
    numel *= static_cast<size_t>(shape[d] > 0 ? shape[d] : 0);
  }
  std::vector<std::string> all = suffixes;
  if (numel == 0) {
    if (shape.size() != 1) all.insert(all.begin(), "size=" + shape_tuple(shape));
    return add_suffixes("tensor([]", all, indent, opt.linewidth);
  }
  t.summarize = numel > static_cast<size_t>(opt.threshold);
  std::vector<double> shown;
  collect_shown(t, 0, 0, &shown);
  const Formatter f = make_formatter(shown, opt.precision);
  const std::string body = shape.empty() ? format_value(f, data[0]) : block_str(t, f, 0, 0, indent);
  return add_suffixes("tensor(" + body, all, indent, opt.linewidth);
}

}  // namespace attnviz
