// history.cpp: see history.h.
#include "app/history.h"

#include <utility>

namespace attnviz::ui {

void History::push(std::deque<std::string>& stack, std::string s) {
  bytes_ += s.size();
  stack.push_back(std::move(s));
  trim();
}

// Drops the oldest undo entries (then the farthest redo ones) until within limits;
// the most recent undo entry always stays.
void History::trim() {
  while (undo_.size() > limits_.entries || (bytes_ > limits_.bytes && undo_.size() + redo_.size() > 1)) {
    std::deque<std::string>& from = undo_.size() > 1 || redo_.empty() ? undo_ : redo_;
    bytes_ -= from.front().size();
    from.pop_front();
  }
}

void History::record(std::string before, uint64_t group) {
  for (const std::string& s : redo_) bytes_ -= s.size();
  redo_.clear();
  if (group != 0 && group == open_group_ && !undo_.empty()) return;  // same drag: one step
  open_group_ = group;
  push(undo_, std::move(before));
}

std::optional<std::string> History::undo(std::string current) {
  if (undo_.empty()) return std::nullopt;
  std::string back = std::move(undo_.back());
  bytes_ -= back.size();
  undo_.pop_back();
  open_group_ = 0;
  push(redo_, std::move(current));
  return back;
}

std::optional<std::string> History::redo(std::string current) {
  if (redo_.empty()) return std::nullopt;
  std::string fwd = std::move(redo_.back());
  bytes_ -= fwd.size();
  redo_.pop_back();
  open_group_ = 0;
  push(undo_, std::move(current));
  return fwd;
}

}  // namespace attnviz::ui
