// frame_pacer.h: whether the main loop draws a frame now, or rests (docs/ui.md, "An idle
// window rests"). Pure logic on a clock in milliseconds, no SDL, GL or ImGui: the Runner
// (runner.h) gathers the signals, tests/ui/test_frame_pacer.cpp drives it by hand.
//
// A frame is drawn when
//   - input waits (SDL's queue, ImGui's), a mouse button or a key is held, or the
//     window's size or pixel ratio changed: then the window is also woken;
//   - the window is awake: woken less than kSettleMs ago, or fewer than kSettleFrames
//     frames drawn since (input, a test-API call that changed something, a font or a
//     file that arrived; ImGui needs a frame or two after an input to settle a layout);
//   - the picture has not settled: the window rests only after two frames in a row drew
//     the same picture (a hash of their draw lists), so a layout that is still moving, a
//     window appearing or a notice gone gets its frames; at most kMaxSettleExtra past a wake;
//   - a timer is due: the app or ImGui asked for a frame at a time (a notice's end, the
//     text cursor's blink);
//   - nothing else drew for kHeartbeatMs: one frame, so anything missed shows.
// Otherwise the loop draws nothing: about one frame a second when nothing happens.
#pragma once
#include <cstdint>
#include <limits>
#include <optional>

namespace attnviz::platform {

// What the loop sees before it decides (Runner::signals()).
struct FrameSignals {
  bool input_pending = false;  // events not taken in yet (SDL's queue, ImGui's trickle queue)
  bool input_held = false;     // a mouse button or a (non-modifier) key is down: drags, key repeat
  bool size_changed = false;   // the window's size, its drawable size or the pixel ratio changed
  // Seconds after the last drawn frame's start at which the app or ImGui wants a frame
  // (0: now; infinity: no timer).
  double timer_s = std::numeric_limits<double>::infinity();
};

class FramePacer {
 public:
  static constexpr int kSettleFrames = 3;       // frames drawn after any wake, at least
  static constexpr double kSettleMs = 500.0;    // and for at least this long (hover delays, menus)
  static constexpr double kHeartbeatMs = 1000.0;  // a frame at least this often
  static constexpr int kMaxSettleExtra = 30;    // frames drawn past a wake while the picture changes

  // Something happened (input, a call that changed what is shown, a load that arrived):
  // draw from now on, at least `frames` frames and for kSettleMs.
  void wake(double now_ms, int frames = kSettleFrames);

  // Whether to draw a frame now. Input, a held button or key, or a size change wake the
  // window (so a few frames follow them). A false answer counts a skipped frame.
  bool should_draw(double now_ms, const FrameSignals& s);

  // Whether the frame should_draw() just allowed is to be compared with the one before
  // (it ends a wake, or follows one): the Runner then hashes what it drew for drawn().
  bool wants_picture() const { return hash_next_; }

  // A frame was drawn; it started at `start_ms`. `picture`: the hash of what it drew when
  // wants_picture() asked for one (else nothing is compared).
  void drawn(double start_ms, std::optional<uint64_t> picture = std::nullopt);

  // How long a loop that can sleep (the desktop's SDL_WaitEventTimeout) may wait for input
  // before it must ask should_draw() again: 0 while awake, else until the heartbeat or the timer.
  double wait_ms(double now_ms, const FrameSignals& s) const;

  // Whether the last decision was to rest (nothing drawn).
  bool resting() const { return resting_; }
  // Loop iterations that drew nothing (the browser's animation frames passed over).
  uint64_t skipped() const { return skipped_; }
  // Whether frames were passed over since the last drawn one: the next frame's clock step
  // is idle time, not a slow frame (Runner::frame clamps only the latter).
  bool after_rest() const { return after_rest_; }

 private:
  static constexpr double kLookaheadMs = 100.0;  // a wake ending this soon: hash its frames
  bool awake(double now_ms) const { return frames_left_ > 0 || now_ms < awake_until_ms_; }
  double due_ms(const FrameSignals& s) const;

  int frames_left_ = kSettleFrames;  // the first frames draw without asking
  double awake_until_ms_ = -1.0;     // set by the first wake (should_draw's first call)
  bool started_ = false;
  double last_draw_ms_ = 0.0;
  bool hash_next_ = false;           // the frame allowed is to be hashed
  bool have_picture_ = false;        // the last frame drawn was hashed: picture_
  uint64_t picture_ = 0;
  bool settled_ = false;             // the last two frames drawn were hashed and the same
  int settle_extra_ = 0;             // frames drawn past the wake because the picture moved
  bool resting_ = false;
  bool after_rest_ = false;
  uint64_t skipped_ = 0;
};

}  // namespace attnviz::platform
