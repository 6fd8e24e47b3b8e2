// A rebuild for another number of tokens takes what it can from the result it
// replaces (detail::Carry, pipeline_internal.h): typing a new word at the end
// of the text keeps the other S rows of Q, K and V and S² cells of every
// head's scores, which are most of a forward's arithmetic.
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "attnviz/kernels.h"
#include "pipeline/pipeline_internal.h"

namespace attnviz {
namespace detail {

namespace {
std::string_view row_bytes(const Tensor& t, int r) {
  return std::string_view(reinterpret_cast<const char*>(t.row(r)), sizeof(float) * static_cast<size_t>(t.cols));
}
}  // namespace

bool find_carry(const Buffers& ob, const Tensor& X, Carry* c, bool keep_positions) {
  const int S = X.rows, old_S = ob.X.rows;
  c->old = &ob;
  c->src.assign(static_cast<size_t>(S), -1);
  c->fresh.clear();
  // The same index first (an appended or deleted last token, an edited
  // tail); then any old row with the same bytes (a token inserted or deleted
  // before others when X has no positions, a repeated token).
  bool unmatched = false;
  for (int r = 0; r < S; ++r) {
    if (r < old_S && kernels::same_bytes(X.row(r), ob.X.row(r), sizeof(float) * static_cast<size_t>(X.cols))) {
      c->src[static_cast<size_t>(r)] = r;
    } else {
      unmatched = true;
    }
  }
  if (unmatched && !keep_positions) {
    std::unordered_map<std::string_view, int> old_rows;  // bytes of an old X row → its first index
    old_rows.reserve(static_cast<size_t>(old_S));
    for (int r = 0; r < old_S; ++r) old_rows.emplace(row_bytes(ob.X, r), r);
    for (int r = 0; r < S; ++r) {
      if (c->src[static_cast<size_t>(r)] >= 0) continue;
      const auto it = old_rows.find(row_bytes(X, r));
      if (it != old_rows.end()) c->src[static_cast<size_t>(r)] = it->second;
    }
  }
  c->runs.clear();
  for (int r = 0; r < S; ++r) {
    const int sr = c->src[static_cast<size_t>(r)];
    if (sr < 0) {
      c->fresh.push_back(r);
    } else if (!c->runs.empty() && c->runs.back().dst + c->runs.back().n == r &&
               c->runs.back().src + c->runs.back().n == sr) {
      ++c->runs.back().n;
    } else {
      c->runs.push_back(Carry::Run{r, sr, 1});
    }
  }
  return static_cast<int>(c->fresh.size()) < S;
}

void carry_projection_rows(const Carry& c, Buffers& b) {
  const Tensor* olds[3] = {&c.old->Q, &c.old->K, &c.old->V};
  Tensor* news[3] = {&b.Q, &b.K, &b.V};
  for (int m = 0; m < 3; ++m) {
    const size_t row_bytes = sizeof(float) * static_cast<size_t>(news[m]->cols);
    for (const Carry::Run& run : c.runs) {
      std::memcpy(news[m]->row(run.dst), olds[m]->row(run.src), row_bytes * static_cast<size_t>(run.n));
    }
  }
}

void carry_scores(const Carry& c, int h, Tensor* scores) {
  const Tensor& old = c.old->heads[static_cast<size_t>(h)].scores;  // (old S × old S)
  for (const Carry::Run& row : c.runs) {
    for (int r = 0; r < row.n; ++r) {
      const float* from = old.row(row.src + r);
      float* dst = scores->row(row.dst + r);
      for (const Carry::Run& col : c.runs) {
        std::memcpy(dst + col.dst, from + col.src, sizeof(float) * static_cast<size_t>(col.n));
      }
    }
  }
}

}  // namespace detail
}  // namespace attnviz
