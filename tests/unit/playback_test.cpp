#include "animation/playback.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <thread>

#include "system/errors.hpp"

namespace kausal {
namespace {

using namespace std::chrono_literals;

AnimationRun two_pendulums(const std::string& label = "optimistic") {
  AnimationRun run;
  run.scenario = "pair";
  run.label = label;
  run.h = 0.01;
  run.steps = 1000;
  run.pendulums = {{0, 1, 0.1}, {0.2, 1, 0.1}};
  run.components = {"monitor", "integrator-1"};
  run.clock_ns = 1'000'000'000;
  return run;
}

// k frames from `first`, phi of pendulum 1 = step number (so a frame names its step).
std::vector<double> frames(std::uint64_t first, std::size_t k) {
  std::vector<double> out;
  for (std::size_t i = 0; i < k; ++i) {
    out.push_back(static_cast<double>(first + i));
    out.resize(out.size() + 3, 0.0);
  }
  return out;
}

TEST(Playback, FramesAreCheckedAndBadOnesCounted) {
  Playback p;
  EXPECT_EQ(p.add_frames(0, frames(0, 1)), 0u);  // before begin_run
  ASSERT_TRUE(p.begin_run(two_pendulums()));
  EXPECT_EQ(p.add_frames(0, frames(0, 3)), 3u);
  EXPECT_EQ(p.add_frames(3, std::vector<double>{1, 2, 3}), 0u);  // not 4 values per step
  auto nan = frames(3, 1);
  nan[2] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(p.add_frames(3, nan), 0u);
  EXPECT_EQ(p.add_frames(1, frames(1, 1)), 0u);        // older than what arrived
  EXPECT_EQ(p.add_frames(1000, frames(1000, 2)), 0u);  // past the last step
  EXPECT_EQ(p.add_frames(3, frames(3, 1)), 1u);
  const auto c = p.counters();
  EXPECT_EQ(c.received, 4u);
  EXPECT_EQ(c.rejected, 6u);  // 2 past the end; the call before begin_run stays counted
  EXPECT_EQ(p.buffered(), 4u);
}

TEST(Playback, FullBufferDropsTheOldest) {
  Playback p(3);
  ASSERT_TRUE(p.begin_run(two_pendulums()));
  EXPECT_EQ(p.add_frames(0, frames(0, 5)), 5u);
  EXPECT_EQ(p.buffered(), 3u);
  EXPECT_EQ(p.counters().dropped, 2u);
  EXPECT_EQ(p.current()->step, 2u);
}

TEST(Playback, PlaysAtTheChosenSpeedAndWaitsForFrames) {
  Playback p;
  ASSERT_TRUE(p.begin_run(two_pendulums()));
  p.add_frames(0, frames(0, 100));  // 0 .. 0.99 s of simulated time
  p.advance(105ms);                 // full speed: 0.105 s
  EXPECT_EQ(p.current()->step, 10u);
  p.set_speed(0.25);
  p.advance(200ms);  // 0.05 s more: 0.155 s
  EXPECT_EQ(p.current()->step, 15u);
  p.advance(std::chrono::seconds(100));  // never past the newest frame
  EXPECT_EQ(p.current()->step, 99u);
  p.add_frames(100, frames(100, 10));
  p.set_speed(1);
  p.advance(25ms);
  EXPECT_EQ(p.current()->step, 101u);
  EXPECT_THROW(p.set_speed(2), InputError);
  EXPECT_THROW(p.set_speed(0.05), InputError);
}

TEST(Playback, PauseHoldsAndStepShowsTheNextFrame) {
  Playback p;
  ASSERT_TRUE(p.begin_run(two_pendulums()));
  p.add_frames(0, frames(0, 10));
  p.set_paused(true);
  p.advance(1s);
  EXPECT_EQ(p.current()->step, 0u);
  p.step_once();
  EXPECT_EQ(p.current()->step, 1u);
  EXPECT_EQ(p.current()->states[0], 1.0);
  EXPECT_TRUE(p.view().paused);
  EXPECT_TRUE(p.paused());
  p.set_paused(false);
  p.advance(35ms);
  EXPECT_EQ(p.current()->step, 4u);
}

TEST(Playback, RollbackFlashesFadeAfterHalfASecond) {
  Playback p;
  ASSERT_TRUE(p.begin_run(two_pendulums()));
  const auto t = Playback::Clock::now();
  EXPECT_TRUE(p.rolled_back(1, 40, t));
  EXPECT_FALSE(p.rolled_back(2, 40, t));  // no third pendulum
  EXPECT_EQ(p.view(t + 100ms).flashing, (std::vector<bool>{false, true}));
  EXPECT_EQ(p.view(t + 600ms).flashing, (std::vector<bool>{false, false}));
  EXPECT_EQ(p.counters().rejected, 1u);
}

TEST(Playback, HorizonNeedsOneReachedStepPerPendulum) {
  Playback p;
  ASSERT_TRUE(p.begin_run(two_pendulums("conservative/step")));
  EXPECT_FALSE(p.set_horizon(5, {5}));
  EXPECT_TRUE(p.set_horizon(5, {7, 9}, 3'000'000'000));
  const auto v = p.view();
  ASSERT_TRUE(v.horizon);
  EXPECT_EQ(v.horizon->step, 5u);
  EXPECT_EQ(v.horizon->reached, (std::vector<std::uint64_t>{7, 9}));
  EXPECT_DOUBLE_EQ(v.horizon->at_s, 2.0);
  EXPECT_EQ(v.run->horizon_name(), "guarantee");
  EXPECT_EQ(two_pendulums().horizon_name(), "GVT");
}

TEST(Playback, SpansBecomeStripsInSecondsSinceTheStart) {
  Playback p(16, 2);
  ASSERT_TRUE(p.begin_run(two_pendulums()));
  p.add_spans("integrator-1", {{1'500'000'000, 2'000'000'000, ActivityKind::busy, {}},
                               {2'000'000'000, 1'000'000'000, ActivityKind::busy, {}},  // reversed
                               {2'500'000'000, 3'000'000'000, ActivityKind::rollback, {}},
                               // a request's envelope: no strip shows it, nothing wrong
                               {2'400'000'000, 3'500'000'000, ActivityKind::call, {}},
                               {3'000'000'000, 3'500'000'000, ActivityKind::busy, {}}});
  p.add_spans("system-9", {{1'000'000'000, 1'100'000'000, ActivityKind::busy, {}}});
  p.end_run("completed", 2.75, 3);
  const auto v = p.view();
  ASSERT_EQ(v.tracks.size(), 3u);  // the run's two components, then the newcomer
  EXPECT_EQ(v.tracks[0].name, "monitor");
  EXPECT_TRUE(v.tracks[0].spans.empty());
  ASSERT_EQ(v.tracks[1].spans.size(), 2u);  // at most 2 per strip: the oldest went
  EXPECT_DOUBLE_EQ(v.tracks[1].spans[0].begin_s, 1.5);
  EXPECT_EQ(v.tracks[1].spans[0].kind, ActivityKind::rollback);
  EXPECT_EQ(v.tracks[2].name, "system-9");
  EXPECT_DOUBLE_EQ(v.timeline_end_s, 2.75);
  EXPECT_EQ(v.counters.spans_dropped, 1u);
  EXPECT_EQ(v.counters.rejected, 1u);
  EXPECT_EQ(v.counters.monitor_dropped, 3u);
  EXPECT_EQ(v.end_status, "completed");
}

TEST(Playback, BadSetupIsRefusedAndANewRunStartsAfresh) {
  Playback p;
  auto bad = two_pendulums();
  bad.pendulums[1].length = std::nan("");
  EXPECT_FALSE(p.begin_run(bad));
  ASSERT_TRUE(p.begin_run(two_pendulums()));
  p.add_frames(0, frames(0, 5));
  ASSERT_TRUE(p.begin_run(two_pendulums()));
  EXPECT_EQ(p.buffered(), 0u);
  EXPECT_EQ(p.counters().received, 0u);
  EXPECT_EQ(p.add_frames(0, frames(0, 1)), 1u);  // step 0 again is no longer stale
}

TEST(Playback, FeedFromManyThreadsWhileReading) {
  Playback p(64);
  ASSERT_TRUE(p.begin_run(two_pendulums()));
  std::thread feeder([&] {
    for (std::uint64_t s = 0; s < 1000; s += 10) p.add_frames(s, frames(s, 10));
  });
  std::thread spans([&] {
    for (int i = 0; i < 200; ++i) p.add_spans("monitor", {{0, 1, ActivityKind::busy, {}}});
  });
  for (int i = 0; i < 200; ++i) {
    p.advance(1ms);
    (void)p.view();
  }
  feeder.join();
  spans.join();
  const auto c = p.counters();
  EXPECT_EQ(c.received, 1000u);
  EXPECT_LE(p.buffered(), 64u);
  EXPECT_GE(c.dropped, 1000u - 64u - 200u);  // at most 200 frames were shown and passed
  p.advance(std::chrono::seconds(100));
  EXPECT_EQ(p.current()->step, 999u);
}

}  // namespace
}  // namespace kausal
