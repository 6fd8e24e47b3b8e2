// history.h: undo and redo of the session state.
//
// Every successful state change records the state it replaced, typed: a State
// whose explicit matrices are SharedTensors, shared with the live state and with
// the other steps that hold the same ones. A step that toggles the causal mask of
// a GPT-2-sized state costs its few fields, not another copy of the weights; a
// step that edits one weight value holds one more copy of that one matrix.
// Changes made while one control stays active (a slider dragged, a number typed
// digit by digit) form one group: only the state before the group is recorded,
// so one Ctrl+Z undoes the whole drag.
// Bounded: at most Limits::entries entries and Limits::bytes bytes truly held
// (each matrix counted once however many steps share it); the oldest go first.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>

#include "attnviz/state.h"

namespace attnviz::ui {

class History {
 public:
  struct Limits {
    size_t entries = 200;              // undo steps kept
    size_t bytes = size_t{256} << 20;  // 256 MB held across both stacks
  };
  History() = default;
  explicit History(Limits l) : limits_(l) {}

  // A change happened; `before` is the state it replaced. `group` is the ImGui ID of
  // the control still active while it changes (0: a one-off change, never merged).
  // Clears the redo stack.
  void record(State before, uint64_t group);
  // The control that opened the current group was released: the next change starts
  // a new step. Called once a frame with the active control's ID.
  void note_active(uint64_t active_id) {
    if (active_id != open_group_) open_group_ = 0;
  }

  // The state to return to, or nothing. `current` moves to the other stack.
  std::optional<State> undo(State current);
  std::optional<State> redo(State current);

  // Forgets every step (the session the page opened with is where history starts).
  void clear();

  bool can_undo() const { return !undo_.empty(); }
  bool can_redo() const { return !redo_.empty(); }
  size_t undo_size() const { return undo_.size(); }
  size_t redo_size() const { return redo_.size(); }
  // Memory the steps hold: each step's fields and tokens, plus every explicit
  // matrix they reference, counted once (state_bytes below).
  size_t bytes() const { return bytes_; }

 private:
  void push(std::deque<State>& stack, State s);
  void trim();
  void recount();

  Limits limits_;
  std::deque<State> undo_, redo_;  // back = most recent
  size_t bytes_ = 0;               // recount(): what both stacks hold
  uint64_t open_group_ = 0;
};

// A state's own memory besides its matrices: the struct, its tokens and key padding.
size_t state_fields_bytes(const State& s);

}  // namespace attnviz::ui
