// history.cpp: see history.h.
#include "app/model/history.h"

#include <unordered_set>
#include <utility>

namespace attnviz::ui {

size_t state_fields_bytes(const State& s) {
  size_t n = sizeof(State) + s.key_padding.capacity();
  for (const std::string& t : s.tokens) n += sizeof(std::string) + t.capacity();
  return n;
}

namespace {

// Calls f on each explicit matrix an input and weights hold (used by the flags or
// not: a matrix kept while out_proj is off is memory all the same).
template <class F>
void each_input_matrix(const EmbeddingSpec& e, const WeightSpec& w, F&& f) {
  for (const SharedTensor* t : {&e.values, &w.W_q, &w.W_k, &w.W_v, &w.W_o, &w.b_q, &w.b_k, &w.b_v, &w.b_o}) f(*t);
}

// ... of a state: its own, and every captured layer's.
template <class F>
void each_matrix(const State& s, F&& f) {
  each_input_matrix(s.embedding, s.weights, f);
  for (const CapturedLayer& c : s.layers) each_input_matrix(c.embedding, c.weights, f);
}

}  // namespace

// Each step's fields, and each matrix once however many steps share it. At most
// 200 steps × 9 matrices: cheap beside the change that called it.
void History::recount() {
  std::unordered_set<const void*> seen;
  size_t n = 0;
  for (const std::deque<State>* stack : {&undo_, &redo_}) {
    for (const State& s : *stack) {
      n += state_fields_bytes(s);
      each_matrix(s, [&](const SharedTensor& t) {
        if (t.identity() && seen.insert(t.identity()).second) n += t.bytes();
      });
    }
  }
  bytes_ = n;
}

void History::push(std::deque<State>& stack, State s) {
  stack.push_back(std::move(s));
  recount();
  trim();
}

// Drops the oldest undo entries (then the farthest redo ones) until within limits;
// the most recent undo entry always stays.
void History::trim() {
  while (undo_.size() > limits_.entries || (bytes_ > limits_.bytes && undo_.size() + redo_.size() > 1)) {
    std::deque<State>& from = undo_.size() > 1 || redo_.empty() ? undo_ : redo_;
    from.pop_front();
    recount();
  }
}

void History::clear() {
  undo_.clear();
  redo_.clear();
  bytes_ = 0;
  open_group_ = 0;
}

void History::record(State before, uint64_t group) {
  redo_.clear();
  if (group != 0 && group == open_group_ && !undo_.empty()) {  // same drag: one step
    recount();
    return;
  }
  open_group_ = group;
  push(undo_, std::move(before));
}

std::optional<State> History::undo(State current) {
  if (undo_.empty()) return std::nullopt;
  State back = std::move(undo_.back());
  undo_.pop_back();
  open_group_ = 0;
  push(redo_, std::move(current));
  return back;
}

std::optional<State> History::redo(State current) {
  if (redo_.empty()) return std::nullopt;
  State fwd = std::move(redo_.back());
  redo_.pop_back();
  open_group_ = 0;
  push(undo_, std::move(current));
  return fwd;
}

}  // namespace attnviz::ui
