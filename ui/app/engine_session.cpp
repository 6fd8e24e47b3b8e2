// engine_session.cpp: see engine_session.h.
#include "app/engine_session.h"

#include <chrono>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "app/app.h"
#include "attnviz/report.h"

namespace attnviz::ui {

std::string EngineSession::key(std::string_view name, int head) {
  std::string k(name);
  k += '#';
  k += std::to_string(head);
  return k;
}

static float json_float(const nlohmann::json& v) {
  if (v.is_number()) return v.get<float>();
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "-inf") return -std::numeric_limits<float>::infinity();
    if (s == "inf") return std::numeric_limits<float>::infinity();
  }
  return std::numeric_limits<float>::quiet_NaN();
}

void EngineSession::store(const std::string& k, const nlohmann::json& m) {
  Stored s;
  if (!m.is_array() || m.empty()) return;
  if (m[0].is_array()) {  // a matrix: array of rows
    s.rows = (int)m.size();
    s.cols = (int)m[0].size();
    s.data.reserve((size_t)s.rows * s.cols);
    for (const auto& row : m)
      for (const auto& v : row) s.data.push_back(json_float(v));
  } else {  // a vector: one row
    s.rows = 1;
    s.cols = (int)m.size();
    for (const auto& v : m) s.data.push_back(json_float(v));
  }
  auto it = mats_.find(k);
  if (it != mats_.end() && it->second.rows == s.rows && it->second.cols == s.cols &&
      std::equal(it->second.data.begin(), it->second.data.end(), s.data.begin(),
                 [](float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; })) {
    return;  // unchanged: keep its version, so nothing re-uploads
  }
  s.version = next_version_++;
  mats_[k] = std::move(s);
}

Status EngineSession::set_state(const nlohmann::json& state) {
  auto t0 = std::chrono::steady_clock::now();
  nlohmann::json report;
  Status st = run_state_json(state, &report);
  engine_ms_last_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!st.ok) return st;
  state_ = state;
  // Matrices keep their version when unchanged; ones the new state lacks are dropped.
  std::unordered_map<std::string, bool> seen;
  for (auto& [name, val] : report.items()) {
    if (name == "tokens" || name == "heads") continue;
    store(key(name, 0), val);
    seen[key(name, 0)] = true;
  }
  const auto& heads = report["heads"];
  for (size_t h = 0; h < heads.size(); ++h)
    for (auto& [name, val] : heads[h].items()) {
      store(key(name, (int)h), val);
      seen[key(name, (int)h)] = true;
    }
  for (auto it = mats_.begin(); it != mats_.end();)
    it = seen.count(it->first) ? std::next(it) : mats_.erase(it);
  tokens_ = report["tokens"].get<std::vector<std::string>>();
  num_heads_ = (int)heads.size();
  return st;
}

MatrixView EngineSession::matrix(std::string_view name, int head) const {
  static const char* shared[] = {"X", "W_q", "W_k", "W_v", "W_o", "b_q", "b_k", "b_v", "b_o",
                                 "Q", "K", "V", "concat", "output"};
  bool is_shared = false;
  for (const char* s : shared) is_shared |= name == s;
  if (is_shared && head != 0) return {};
  auto it = mats_.find(key(name, is_shared ? 0 : head));
  if (it == mats_.end()) return {};
  return MatrixView{it->second.rows, it->second.cols, it->second.data.data()};
}

uint64_t EngineSession::version(std::string_view name, int head) const {
  auto it = mats_.find(key(name, head));
  return it == mats_.end() ? 0 : it->second.version;
}

}  // namespace attnviz::ui
