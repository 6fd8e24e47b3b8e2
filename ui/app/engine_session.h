// engine_session.h: the app's one door into the engine. It owns the validated
// session state and the engine's results, and hands panels read-only views.
// Panels never compute attention; they read MatrixViews from here.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnviz/status.h"

namespace attnviz::ui {

struct MatrixView;

class EngineSession {
 public:
  // Validates and runs `state`. On error keeps the previous state and results.
  Status set_state(const nlohmann::json& state);
  const nlohmann::json& state() const { return state_; }
  bool has_result() const { return !state_.is_null(); }

  // A stage by name ("X", "Q", "weights", ...); per-head stages take `head`.
  MatrixView matrix(std::string_view name, int head) const;
  // Bumped whenever that matrix's contents may have changed: panels re-upload a
  // texture only when the version they drew differs.
  uint64_t version(std::string_view name, int head) const;

  const std::vector<std::string>& tokens() const { return tokens_; }
  int num_heads() const { return num_heads_; }
  double engine_ms_last() const { return engine_ms_last_; }

 private:
  struct Stored {
    int rows = 0, cols = 0;
    std::vector<float> data;  // (rows × cols) row-major
    uint64_t version = 0;
  };
  static std::string key(std::string_view name, int head);
  void store(const std::string& key, const nlohmann::json& m);

  nlohmann::json state_;                             // last valid state (null before the first)
  std::unordered_map<std::string, Stored> mats_;     // "weights#0", "Q", ...
  std::vector<std::string> tokens_;
  int num_heads_ = 0;
  uint64_t next_version_ = 1;
  double engine_ms_last_ = 0.0;
};

}  // namespace attnviz::ui
