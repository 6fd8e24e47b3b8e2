// history.h: undo and redo of the session state.
//
// Every successful state change records the state it replaced (as compact JSON
// text, so an entry costs what its text costs). Changes made while one control
// stays active (a slider dragged, a number typed digit by digit) form one group:
// only the state before the group is recorded, so one Ctrl+Z undoes the whole drag.
// Bounded: at most Limits::entries entries and Limits::bytes bytes of text; the
// oldest entries go first.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>

namespace attnviz::ui {

class History {
 public:
  struct Limits {
    size_t entries = 200;          // undo steps kept
    size_t bytes = size_t{32} << 20;  // 32 MB of state text across both stacks
  };
  History() = default;
  explicit History(Limits l) : limits_(l) {}

  // A change happened; `before` is the state it replaced. `group` is the ImGui ID of
  // the control still active while it changes (0: a one-off change, never merged).
  // Clears the redo stack.
  void record(std::string before, uint64_t group);
  // The control that opened the current group was released: the next change starts
  // a new step. Called once a frame with the active control's ID.
  void note_active(uint64_t active_id) {
    if (active_id != open_group_) open_group_ = 0;
  }

  // The state to return to, or nothing. `current` moves to the other stack.
  std::optional<std::string> undo(std::string current);
  std::optional<std::string> redo(std::string current);

  // Forgets every step (the session the page opened with is where history starts).
  void clear() {
    undo_.clear();
    redo_.clear();
    bytes_ = 0;
    open_group_ = 0;
  }

  bool can_undo() const { return !undo_.empty(); }
  bool can_redo() const { return !redo_.empty(); }
  size_t undo_size() const { return undo_.size(); }
  size_t redo_size() const { return redo_.size(); }
  size_t bytes() const { return bytes_; }

 private:
  void push(std::deque<std::string>& stack, std::string s);
  void trim();

  Limits limits_;
  std::deque<std::string> undo_, redo_;  // back = most recent
  size_t bytes_ = 0;                     // text held by both stacks
  uint64_t open_group_ = 0;
};

}  // namespace attnviz::ui
