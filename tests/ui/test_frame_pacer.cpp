// test_frame_pacer.cpp: an idle window rests (ui/platform/frame_pacer.h). The pacer is
// driven on a simulated clock at 60 animation frames a second, as the browser calls the
// main loop; and the app's own timer (a notice's end) is read from a headless App.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "app/app.h"
#include "headless.h"
#include "platform/frame_pacer.h"

using attnviz::platform::FramePacer;
using attnviz::platform::FrameSignals;

namespace {

constexpr double kTick = 1000.0 / 60.0;

// A browser's animation frames from `from` to `to` (ms): each asks the pacer, and a frame
// drawn reports its picture (`picture(n)` for the n-th frame drawn in this run) when asked.
struct Sim {
  FramePacer p;
  double now = 0.0;
  int drawn_total = 0;
  std::function<FrameSignals(double)> signals = [](double) { return FrameSignals{}; };
  std::function<uint64_t(int)> picture = [](int) { return uint64_t{42}; };

  int run_until(double to) {
    int drawn = 0;
    for (; now < to; now += kTick) {
      if (!p.should_draw(now, signals(now))) continue;
      if (p.wants_picture()) p.drawn(now, picture(drawn_total));
      else p.drawn(now);
      ++drawn;
      ++drawn_total;
    }
    return drawn;
  }
};

}  // namespace

TEST(FramePacer, OpensAwakeThenRestsAtOneFrameASecond) {
  Sim s;
  const int opening = s.run_until(2000);
  EXPECT_GE(opening, FramePacer::kSettleFrames);
  EXPECT_LE(opening, 40) << "the opening wake lasts about kSettleMs, then one frame a second";
  EXPECT_TRUE(s.p.resting());
  EXPECT_GT(s.p.skipped(), 0u);
  const int idle = s.run_until(7000);  // five idle seconds
  EXPECT_GE(idle, 4);
  EXPECT_LE(idle, 6);
}

TEST(FramePacer, InputWakesForFramesAndTime) {
  Sim s;
  s.run_until(3000);
  ASSERT_TRUE(s.p.resting());
  const double at = s.now;
  s.signals = [at](double t) {
    FrameSignals f;
    f.input_pending = t < at + 1.0;  // one event, taken in by the first frame
    return f;
  };
  // The first animation frame after the event draws.
  EXPECT_TRUE(s.p.should_draw(s.now, s.signals(s.now)));
  s.p.drawn(s.now);
  s.now += kTick;
  const int after = s.run_until(at + 1000);
  // Awake for kSettleMs (about 30 frames at 60 a second), plus one frame to compare pictures.
  EXPECT_GE(after + 1, (int)(FramePacer::kSettleMs / kTick) - 1);
  EXPECT_LE(after + 1, (int)(FramePacer::kSettleMs / kTick) + 4);
  EXPECT_TRUE(s.p.resting());
}

TEST(FramePacer, SlowFramesStillGetTheSettleFrames) {
  // A loaded machine: each animation frame comes 400 ms apart; a wake still draws 3 frames.
  FramePacer p;
  double now = 0;
  for (int k = 0; k < 20; ++k, now += 400) {
    if (p.should_draw(now, {})) p.drawn(now, p.wants_picture() ? std::optional<uint64_t>(7) : std::nullopt);
  }
  now += 3000;
  p.wake(now);
  int drawn = 0;
  for (int k = 0; k < 3; ++k, now += 400) {
    if (p.should_draw(now, {})) {
      ++drawn;
      p.drawn(now, p.wants_picture() ? std::optional<uint64_t>(7) : std::nullopt);
    }
  }
  EXPECT_EQ(drawn, 3);
}

TEST(FramePacer, RestsOnlyAfterTwoFramesAlike) {
  // Animation frames at uneven intervals (a loaded machine: 16 to 400 ms), wakes at random:
  // whenever the window goes from drawing to resting, its last two frames were compared
  // and drew the same picture, however the wake's end fell between frames.
  FramePacer p;
  uint32_t rng = 12345;
  auto next = [&rng] { return rng = rng * 1664525u + 1013904223u; };
  double now = 0;
  int hashed_run = 0;  // frames drawn in a row that were compared
  bool drew_last = false;
  int rests = 0;
  for (int k = 0; k < 4000; ++k) {
    now += 16.0 + (next() >> 8) % 385;
    if ((next() >> 8) % 50 == 0) p.wake(now);
    if (p.should_draw(now, {})) {
      if (p.wants_picture()) {
        p.drawn(now, 99);  // a still picture
        ++hashed_run;
      } else {
        p.drawn(now);
        hashed_run = 0;
      }
      drew_last = true;
    } else {
      if (drew_last) {
        ++rests;
        ASSERT_GE(hashed_run, 2) << "rested at " << now << " ms after a frame that was not compared";
      }
      drew_last = false;
    }
  }
  EXPECT_GT(rests, 50);
}

TEST(FramePacer, HeldButtonKeepsDrawing) {
  Sim s;
  s.run_until(3000);
  s.signals = [](double) {
    FrameSignals f;
    f.input_held = true;  // a drag, a held −/+ button, a held arrow key
    return f;
  };
  EXPECT_GE(s.run_until(4000), 58);
  s.signals = [](double) { return FrameSignals{}; };
  s.run_until(6000);
  EXPECT_TRUE(s.p.resting());
}

TEST(FramePacer, TimerDrawsWhenDue) {
  Sim s;
  s.run_until(3000);
  ASSERT_TRUE(s.p.resting());
  // The app wants a frame 300 ms after the last one (a notice's end, the cursor's blink).
  s.signals = [](double) {
    FrameSignals f;
    f.timer_s = 0.3;
    return f;
  };
  // Between heartbeats, frames come every 300 ms (each compared: same picture, no more).
  const int n = s.run_until(6000);
  EXPECT_GE(n, 9);
  EXPECT_LE(n, 11);
  // No timer: the heartbeat only.
  s.signals = [](double) { return FrameSignals{}; };
  EXPECT_LE(s.run_until(11000), 6);
}

TEST(FramePacer, SizeChangeWakes) {
  Sim s;
  s.run_until(3000);
  ASSERT_TRUE(s.p.resting());
  FrameSignals f;
  f.size_changed = true;
  EXPECT_TRUE(s.p.should_draw(s.now, f));
  EXPECT_FALSE(s.p.resting());
}

TEST(FramePacer, ChangingPictureKeepsDrawingUntilItSettles) {
  Sim s;
  // The picture changes in the first 50 frames drawn (a layout settling), then stays.
  s.picture = [](int n) { return n < 50 ? (uint64_t)n : uint64_t{50}; };
  s.run_until(3000);
  EXPECT_GE(s.drawn_total, 50) << "drawn until two frames in a row looked the same";
  EXPECT_LE(s.drawn_total, 50 + 4);
  EXPECT_TRUE(s.p.resting());
}

TEST(FramePacer, NeverSettlingPictureIsFollowedOnlySoFar) {
  Sim s;
  s.picture = [](int n) { return (uint64_t)n; };  // every frame differs (a bug, or an endless animation)
  s.run_until(3000);
  EXPECT_LE(s.drawn_total, (int)(FramePacer::kSettleMs / kTick) + FramePacer::kMaxSettleExtra + 6);
  const int idle = s.run_until(8000);
  EXPECT_LE(idle, 6) << "back to the heartbeat";
}

TEST(FramePacer, AfterRestMarksTheClockStep) {
  Sim s;
  s.run_until(3000);
  ASSERT_TRUE(s.p.resting());
  EXPECT_TRUE(s.p.after_rest()) << "the next frame's clock step is rest, not a slow frame";
  s.p.wake(s.now);
  ASSERT_TRUE(s.p.should_draw(s.now, {}));
  s.p.drawn(s.now);
  EXPECT_FALSE(s.p.after_rest());
}

TEST(FramePacer, WaitUntilHeartbeatOrTimer) {
  Sim s;
  s.run_until(3000);
  ASSERT_TRUE(s.p.resting());
  const FrameSignals none;
  const double w = s.p.wait_ms(s.now, none);
  EXPECT_GT(w, 0.0);
  EXPECT_LE(w, FramePacer::kHeartbeatMs);
  FrameSignals timer;
  timer.timer_s = 0.0;
  EXPECT_EQ(s.p.wait_ms(s.now, timer), 0.0);
  FrameSignals input;
  input.input_pending = true;
  EXPECT_EQ(s.p.wait_ms(s.now, input), 0.0);
  s.p.wake(s.now);
  EXPECT_EQ(s.p.wait_ms(s.now, none), 0.0);
}

// The app's own timer: a notice that is not an error asks for a frame when its 5 s end;
// an error stays, and asks for nothing.
TEST(FramePacer, AppNoticeEndsOnTime) {
  using namespace attnviz::ui;
  using namespace attnviz::ui::testing;
  Headless h;
  NullTextures tex;
  App app(&tex);
  h.frame(app);
  EXPECT_TRUE(std::isinf(app.next_frame_in()));
  app.notify("Share link copied", false);
  EXPECT_EQ(app.next_frame_in(), 0.0) << "not drawn yet";
  h.frame(app);
  EXPECT_NEAR(app.next_frame_in(), 5.0, 0.05);
  for (int k = 0; k < 60; ++k) h.frame(app);  // one second at 60 frames a second
  EXPECT_NEAR(app.next_frame_in(), 4.0, 0.05);
  app.notify("That link is damaged", true);
  h.frame(app);
  EXPECT_TRUE(std::isinf(app.next_frame_in()));
}
