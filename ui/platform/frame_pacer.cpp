// frame_pacer.cpp: see frame_pacer.h.
#include "platform/frame_pacer.h"

#include <algorithm>
#include <cmath>

namespace attnviz::platform {

void FramePacer::wake(double now_ms, int frames) {
  started_ = true;
  frames_left_ = std::max(frames_left_, frames);
  awake_until_ms_ = std::max(awake_until_ms_, now_ms + kSettleMs);
  settle_extra_ = 0;
}

double FramePacer::due_ms(const FrameSignals& s) const {
  if (!std::isfinite(s.timer_s)) return std::numeric_limits<double>::infinity();
  return last_draw_ms_ + std::max(0.0, s.timer_s) * 1000.0;
}

bool FramePacer::should_draw(double now_ms, const FrameSignals& s) {
  if (!started_) wake(now_ms);  // the window opens awake
  if (s.input_pending || s.input_held || s.size_changed) wake(now_ms);
  bool draw = true;
  if (awake(now_ms)) {
    // The last frames of a wake are compared: the window may rest right after them.
    hash_next_ = frames_left_ <= 1 && now_ms + kLookaheadMs >= awake_until_ms_;
  } else if (!settled_ && settle_extra_ < kMaxSettleExtra) {
    ++settle_extra_;  // the picture moved (or was not compared yet): one more frame
    hash_next_ = true;
  } else {
    draw = now_ms >= due_ms(s) || now_ms - last_draw_ms_ >= kHeartbeatMs;
    hash_next_ = draw;
  }
  resting_ = !draw;
  if (!draw) {
    ++skipped_;
    after_rest_ = true;
  }
  return draw;
}

void FramePacer::drawn(double start_ms, std::optional<uint64_t> picture) {
  if (frames_left_ > 0) --frames_left_;
  last_draw_ms_ = start_ms;
  after_rest_ = false;
  resting_ = false;
  hash_next_ = false;
  settled_ = picture && have_picture_ && *picture == picture_;
  have_picture_ = picture.has_value();
  if (picture) picture_ = *picture;
}

double FramePacer::wait_ms(double now_ms, const FrameSignals& s) const {
  if (!started_ || awake(now_ms) || s.input_pending || s.input_held || s.size_changed) return 0.0;
  if (!settled_ && settle_extra_ < kMaxSettleExtra) return 0.0;
  const double due = std::min(due_ms(s), last_draw_ms_ + kHeartbeatMs);
  return std::max(0.0, due - now_ms);
}

}  // namespace attnviz::platform
