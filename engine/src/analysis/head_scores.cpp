// Head scores (what job a head learned), next-token predictions (attnviz/model.h).
//
// The scores read a head's attention weights A (after softmax, before dropout),
// in double, as scripts/train_induction.py computes them for the model card:
//   previous_token  = mean_{i=1..S-1} A[i, i-1]
//   first_token     = mean_{i=0..S-1} A[i, 0]
//   duplicate_token = mean over rows i whose token appeared before (at j < i)
//                     of Σ_j A[i, j]
//   induction       = the same rows, Σ_j A[i, j + 1]: the token that followed
//                     each earlier copy (on start + r + r with r distinct: the
//                     diagonal at offset 1 − n over the repeated half)
#include "attnviz/model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

#include "attnviz/kernels.h"
#include <nlohmann/json.hpp>

namespace attnviz {

HeadScores score_head(const Tensor& A, const std::vector<std::string>& tokens) {
  HeadScores r;
  const int S = std::min<int>(A.rows, static_cast<int>(tokens.size()));
  if (S == 0) return r;
  double prev = 0, first = 0, dup = 0, ind = 0;
  int repeated = 0;
  for (int i = 0; i < S; ++i) {
    first += A.at(i, 0);
    if (i > 0) prev += A.at(i, i - 1);
    bool seen = false;
    double d = 0, n = 0;
    for (int j = 0; j < i; ++j) {
      if (tokens[static_cast<size_t>(j)] != tokens[static_cast<size_t>(i)]) continue;
      seen = true;
      d += A.at(i, j);
      n += A.at(i, j + 1);  // j + 1 <= i
    }
    if (seen) {
      ++repeated;
      dup += d;
      ind += n;
    }
  }
  r.first_token = first / S;
  r.previous_token = S > 1 ? prev / (S - 1) : 0.0;
  r.duplicate_token = repeated > 0 ? dup / repeated : 0.0;
  r.induction = repeated > 0 ? ind / repeated : 0.0;
  return r;
}

LayerScores head_scores(const LayerStack& stack) {
  LayerScores out;
  if (!stack.has_result()) return out;
  const std::vector<std::string>& tokens = stack.state().tokens;
  for (int l = 0; l < stack.num_layers(); ++l) {
    const Pipeline& p = stack.layer(l);
    std::vector<HeadScores> heads;
    for (int h = 0; h < p.num_heads(); ++h) {
      const Tensor* A = p.matrix(Stage::weights, h);
      heads.push_back(A ? score_head(*A, tokens) : HeadScores{});
    }
    out.push_back(std::move(heads));
  }
  return out;
}

LayerScores probe_head_scores(const State& state) {
  if (!state.model.active() || !state.model.model) return {};
  State probe = state;
  probe.tokens = state.model.model->probe;
  probe.key_padding.clear();
  LayerStack stack;
  if (!stack.set_state(std::move(probe)).ok) return {};
  return head_scores(stack);
}

std::vector<Prediction> top_predictions(const LayerStack& stack, int i, int k) {
  const Tensor* lg = stack.logits();
  if (lg == nullptr || i < 0 || i >= lg->rows) return {};
  std::vector<float> p(static_cast<size_t>(lg->cols));
  kernels::softmax_row(lg->row(i), p.data(), lg->cols, false);
  std::vector<int> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  k = std::max(0, std::min<int>(k, static_cast<int>(order.size())));
  std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) {
    return p[static_cast<size_t>(a)] > p[static_cast<size_t>(b)] || (p[static_cast<size_t>(a)] == p[static_cast<size_t>(b)] && a < b);
  });
  std::vector<Prediction> out;
  for (int t = 0; t < k; ++t) out.push_back({order[static_cast<size_t>(t)], p[static_cast<size_t>(order[static_cast<size_t>(t)])]});
  return out;
}

std::string head_scores_text(const LayerScores& scores) {
  std::string out = "{\"layers\":[";
  char buf[64];
  for (size_t l = 0; l < scores.size(); ++l) {
    out += l ? ",{\"heads\":[" : "{\"heads\":[";
    for (size_t h = 0; h < scores[l].size(); ++h) {
      const HeadScores& s = scores[l][h];
      out += h ? "," : "";
      const std::pair<const char*, double> kv[] = {{"previous_token", s.previous_token},
                                                   {"induction", s.induction},
                                                   {"first_token", s.first_token},
                                                   {"duplicate_token", s.duplicate_token}};
      out += "{";
      for (size_t e = 0; e < 4; ++e) {
        if (std::isfinite(kv[e].second)) {
          std::snprintf(buf, sizeof buf, "%s\"%s\":%.17g", e ? "," : "", kv[e].first, kv[e].second);
        } else {  // a row with every key masked has NaN weights
          std::snprintf(buf, sizeof buf, "%s\"%s\":null", e ? "," : "", kv[e].first);
        }
        out += buf;
      }
      out += "}";
    }
    out += "]}";
  }
  return out + "]}";
}

}  // namespace attnviz

namespace attnviz {

std::string head_scores_report(const LayerStack& stack) {
  std::string out = head_scores_text(head_scores(stack));
  if (stack.is_captured()) {  // the layers' names beside their scores
    nlohmann::json names = nlohmann::json::array();
    for (int l = 0; l < stack.num_layers(); ++l) names.push_back(stack.layer_name(l));
    out.pop_back();
    return out + ",\"names\":" + names.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "}";
  }
  if (!stack.is_model()) return out;
  out.pop_back();
  return out + ",\"probe\":" + head_scores_text(probe_head_scores(stack.state())) + "}";
}

}  // namespace attnviz

// [SECTION] Explaining a score: its terms, and the chance level

namespace attnviz {

double head_score(const HeadScores& s, HeadScoreKind kind) {
  switch (kind) {
    case HeadScoreKind::previous_token: return s.previous_token;
    case HeadScoreKind::induction: return s.induction;
    case HeadScoreKind::first_token: return s.first_token;
    case HeadScoreKind::duplicate_token: return s.duplicate_token;
  }
  return 0.0;
}

// Row i's keys for `kind` (score_head's loops, one row at a time); false when the
// row does not count (row 0 for previous_token; a first occurrence for the copies).
static bool row_keys(const std::vector<std::string>& tokens, int i, HeadScoreKind kind, std::vector<int>* keys) {
  switch (kind) {
    case HeadScoreKind::previous_token:
      if (i == 0) return false;
      keys->push_back(i - 1);
      return true;
    case HeadScoreKind::first_token:
      keys->push_back(0);
      return true;
    case HeadScoreKind::duplicate_token:
    case HeadScoreKind::induction: {
      bool seen = false;
      for (int j = 0; j < i; ++j) {
        if (tokens[static_cast<size_t>(j)] != tokens[static_cast<size_t>(i)]) continue;
        seen = true;
        keys->push_back(kind == HeadScoreKind::induction ? j + 1 : j);  // j + 1 <= i
      }
      return seen;
    }
  }
  return false;
}

HeadScoreTerms head_score_terms(const Tensor& A, const std::vector<std::string>& tokens, HeadScoreKind kind) {
  HeadScoreTerms t;
  t.kind = kind;
  const int S = std::min<int>(A.rows, static_cast<int>(tokens.size()));
  t.seq_len = S;
  t.key_begin.push_back(0);
  for (int i = 0; i < S; ++i) {
    const size_t first = t.keys.size();
    if (!row_keys(tokens, i, kind, &t.keys)) continue;
    double term = 0;  // summed as score_head does: in double, key by key
    for (size_t k = first; k < t.keys.size(); ++k) term += A.at(i, t.keys[k]);
    t.rows.push_back(i);
    t.key_begin.push_back(static_cast<int>(t.keys.size()));
    t.terms.push_back(term);
    t.sum += term;
  }
  t.value = t.rows.empty() ? 0.0 : t.sum / static_cast<double>(t.rows.size());
  return t;
}

HeadScoreTerms probe_head_score_terms(const State& state, int layer, int head, HeadScoreKind kind) {
  if (!state.model.active() || !state.model.model) return {};
  State probe = state;
  probe.tokens = state.model.model->probe;
  probe.key_padding.clear();
  LayerStack stack;
  if (!stack.set_state(std::move(probe)).ok || layer < 0 || layer >= stack.num_layers()) return {};
  const Pipeline& p = stack.layer(layer);
  const Tensor* A = head >= 0 && head < p.num_heads() ? p.matrix(Stage::weights, head) : nullptr;
  return A ? head_score_terms(*A, stack.state().tokens, kind) : HeadScoreTerms{};
}

HeadScores uniform_head_scores(const std::vector<std::string>& tokens, bool causal) {
  const int S = static_cast<int>(tokens.size());
  Tensor A(S, S);  // (S × S) row i: 1/(i+1) on keys 0..i (causal), else 1/S everywhere
  for (int i = 0; i < S; ++i)
    for (int j = 0; j < S; ++j) A.at(i, j) = causal ? (j <= i ? 1.0f / static_cast<float>(i + 1) : 0.0f) : 1.0f / static_cast<float>(S);
  return score_head(A, tokens);
}

}  // namespace attnviz
