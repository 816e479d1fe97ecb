#include "animation/playback.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

#include "common/errors.hpp"
#include "common/thin_out.hpp"

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
  auto run = two_pendulums();
  run.paced = true;  // followed: a rollback is shown as it arrives
  ASSERT_TRUE(p.begin_run(run));
  EXPECT_TRUE(p.rolled_back(1, 40));
  EXPECT_FALSE(p.rolled_back(2, 40));  // no third pendulum
  p.advance(100ms);
  EXPECT_EQ(p.view().flashing, (std::vector<bool>{false, true}));
  p.advance(500ms);
  EXPECT_EQ(p.view().flashing, (std::vector<bool>{false, false}));
  EXPECT_EQ(p.counters().rejected, 1u);
}

// ---- one moment: frames, horizons, rollbacks and strips on the monitor's clock ----

constexpr std::uint64_t start_ns = 1'000'000'000;  // two_pendulums().clock_ns
std::uint64_t at_ms(std::uint64_t ms) {
  return start_ns + ms * 1'000'000;
}

// Frames first .. first + k − 1, committed 1 ms apart from at_ms(first) (as fast as an
// unpaced run goes: 10 ms of simulated time each).
FrameTimes committed_from(std::uint64_t first, std::size_t k) {
  FrameTimes t;
  for (std::size_t i = 0; i < k; ++i) t.committed_ns.push_back(at_ms(first + i));
  return t;
}

TEST(PlaybackMoment, AReplayShowsTheHorizonAndStripsOfItsFramesCommit) {
  Playback p;
  ASSERT_TRUE(p.begin_run(two_pendulums()));  // unpaced: replayed
  // The whole run arrives at once, with the GVT as it went: 10 at 5 ms, 50 at 45 ms, ...
  p.set_horizon(10, {12, 14}, at_ms(5));
  p.set_horizon(50, {60, 55}, at_ms(45));
  p.set_horizon(100, {100, 100}, at_ms(95));
  p.add_frames(0, frames(0, 100), committed_from(0, 100));
  p.add_spans("integrator-1", {{at_ms(0), at_ms(30), ActivityKind::busy, {}},
                               {at_ms(30), at_ms(90), ActivityKind::rollback, {}}});
  p.end_run("completed", 0.1, 0);
  auto v = p.view();
  EXPECT_EQ(v.mode, PlaybackMode::replay);
  EXPECT_EQ(v.frame->step, 0u);
  EXPECT_FALSE(v.horizon);  // nothing reached yet when step 0 was committed
  EXPECT_FALSE(v.at_end);   // the run has ended, but not the moment shown
  EXPECT_DOUBLE_EQ(v.moment_s, 0.0);
  p.advance(205ms);  // step 20, committed at 20 ms
  v = p.view();
  ASSERT_EQ(v.frame->step, 20u);
  ASSERT_TRUE(v.horizon);
  EXPECT_EQ(v.horizon->step, 10u);
  EXPECT_EQ(v.horizon->reached, (std::vector<std::uint64_t>{12, 14}));
  EXPECT_DOUBLE_EQ(v.moment_s, 0.020);
  ASSERT_EQ(v.tracks[1].spans.size(), 1u);  // the rollback at 30 ms has not happened yet
  EXPECT_DOUBLE_EQ(v.tracks[1].spans[0].end_s, 0.020);
  p.advance(300ms);  // step 50
  v = p.view();
  EXPECT_EQ(v.horizon->step, 50u);
  ASSERT_EQ(v.tracks[1].spans.size(), 2u);
  EXPECT_EQ(v.tracks[1].spans[1].kind, ActivityKind::rollback);
  p.advance(10s);  // the last frame: now the run's end is shown
  v = p.view();
  EXPECT_EQ(v.frame->step, 99u);
  EXPECT_EQ(v.horizon->step, 100u);
  EXPECT_TRUE(v.at_end);
  EXPECT_DOUBLE_EQ(v.moment_s, 0.1);
}

TEST(PlaybackMoment, ManyHorizonsAreThinnedEvenlySoThatEveryMomentFindsOne) {
  Playback p;
  ASSERT_TRUE(p.begin_run(two_pendulums()));
  // 10,000 horizons, one a millisecond (an unpaced run's guarantees), more than the view
  // keeps; frames every 10 ms.
  for (std::uint64_t k = 0; k < 10000; ++k) p.set_horizon(k / 10, {k / 10, k / 10}, at_ms(k));
  FrameTimes t;
  for (std::uint64_t k = 0; k < 1000; ++k) t.committed_ns.push_back(at_ms(10 * k));
  p.add_frames(0, frames(0, 1000), t);
  for (std::uint64_t shown : {1u, 250u, 500u, 998u}) {
    while (p.current()->step < shown) p.step_once();
    const auto v = p.view();
    ASSERT_TRUE(v.horizon) << shown;
    EXPECT_LE(v.horizon->step, shown) << "a horizon from after the moment";
    EXPECT_GE(v.horizon->step + 2, shown) << "the horizon of the moment was thinned away";
  }
}

TEST(PlaybackMoment, AReplayFlashesARollbackWhenItReachesItsMomentAndHoldsItWhilePaused) {
  Playback p;
  ASSERT_TRUE(p.begin_run(two_pendulums()));
  p.add_frames(0, frames(0, 100), committed_from(0, 100));
  p.rolled_back(0, 31, at_ms(30) + 500'000);  // between the commits of steps 30 and 31
  p.advance(300ms);                           // step 30
  EXPECT_EQ(p.view().flashing, (std::vector<bool>{false, false}));
  p.advance(10ms);  // step 31: the rollback's moment
  EXPECT_EQ(p.view().flashing, (std::vector<bool>{true, false}));
  p.set_paused(true);
  p.advance(5s);  // a paused moment stands still, flash and all
  EXPECT_EQ(p.view().flashing, (std::vector<bool>{true, false}));
  p.set_paused(false);
  p.set_speed(0.5);
  p.advance(600ms);  // 0.3 s of playback time: slow motion keeps the flash longer
  EXPECT_EQ(p.view().flashing, (std::vector<bool>{true, false}));
  p.advance(500ms);
  EXPECT_EQ(p.view().flashing, (std::vector<bool>{false, false}));
}

TEST(PlaybackMoment, APacedRunIsFollowedAndPausingFreezesItsMoment) {
  Playback p;
  auto run = two_pendulums();
  run.paced = true;
  ASSERT_TRUE(p.begin_run(run));
  EXPECT_EQ(p.mode(), PlaybackMode::follow);
  p.add_frames(0, frames(0, 10), committed_from(0, 10));
  p.set_horizon(10, {10, 10}, at_ms(9));
  auto v = p.view(at_ms(12));
  EXPECT_EQ(v.frame->step, 9u);  // the newest, as it arrives
  EXPECT_EQ(v.horizon->step, 10u);
  EXPECT_DOUBLE_EQ(v.moment_s, 0.012);  // followed: now
  p.set_paused(true);
  EXPECT_EQ(p.mode(), PlaybackMode::replay);
  p.add_frames(10, frames(10, 10), committed_from(10, 10));
  p.set_horizon(20, {20, 20}, at_ms(19));
  v = p.view(at_ms(40));
  EXPECT_EQ(v.frame->step, 9u);  // frozen: the frame, its horizon, its moment
  EXPECT_EQ(v.horizon->step, 10u);
  EXPECT_DOUBLE_EQ(v.moment_s, 0.009);
  p.step_once();
  EXPECT_EQ(p.view(at_ms(40)).frame->step, 10u);
  p.follow();
  v = p.view(at_ms(40));
  EXPECT_EQ(v.mode, PlaybackMode::follow);
  EXPECT_EQ(v.frame->step, 19u);
  EXPECT_EQ(v.horizon->step, 20u);
  EXPECT_FALSE(v.paused);
}

TEST(PlaybackMoment, AReplayThatCatchesUpWithAPacedRunFollowsItAgain) {
  Playback p;
  auto run = two_pendulums();
  run.paced = true;
  ASSERT_TRUE(p.begin_run(run));
  p.add_frames(0, frames(0, 5), committed_from(0, 5));
  p.set_paused(true);
  p.add_frames(5, frames(5, 5), committed_from(5, 5));
  p.set_paused(false);
  p.advance(20ms);
  EXPECT_EQ(p.mode(), PlaybackMode::replay);
  EXPECT_EQ(p.current()->step, 6u);
  p.advance(1s);
  EXPECT_EQ(p.mode(), PlaybackMode::follow);
  p.add_frames(10, frames(10, 3), committed_from(10, 3));
  EXPECT_EQ(p.current()->step, 12u);
}

TEST(PlaybackMoment, APacedRunsShownStepsGiveItsLateness) {
  Playback p;
  auto run = two_pendulums();
  run.paced = true;
  ASSERT_TRUE(p.begin_run(run));
  ASSERT_TRUE(p.view().lateness);
  EXPECT_EQ(p.view().lateness->steps, 0u);
  FrameTimes t = committed_from(0, 4);
  t.lateness_s = {-0.004, -0.003, 0.002, std::nan("")};  // step 3 is not known yet
  t.overruns = 1;
  EXPECT_EQ(p.add_frames(0, frames(0, 4), t), 4u);
  auto bad = committed_from(4, 2);
  bad.lateness_s = {0.1, std::numeric_limits<double>::infinity()};
  EXPECT_EQ(p.add_frames(4, frames(4, 2), bad), 0u);
  bad.lateness_s = {0.1};  // one for two frames
  EXPECT_EQ(p.add_frames(4, frames(4, 2), bad), 0u);
  bad.committed_ns = {at_ms(4)};
  bad.lateness_s.clear();
  EXPECT_EQ(p.add_frames(4, frames(4, 2), bad), 0u);
  EXPECT_EQ(p.counters().rejected, 6u);
  const LatenessView l = *p.view().lateness;
  EXPECT_EQ(l.steps, 3u);
  EXPECT_EQ(l.overruns, 1u);
  EXPECT_DOUBLE_EQ(l.max_s, 0.002);
  EXPECT_NEAR(l.p50_s, -0.003, 1e-9);
  // 1,024 columns over 1,000 steps: a column each for steps 0, 1 and 2 (3 is not known).
  EXPECT_EQ(
      std::count_if(l.columns.begin(), l.columns.end(), [](auto& c) { return c.has_value(); }), 3);
  EXPECT_DOUBLE_EQ(l.columns[0]->latest_s, -0.004);
  EXPECT_DOUBLE_EQ(l.columns[2]->latest_s, 0.002);
  auto unpaced = Playback();
  ASSERT_TRUE(unpaced.begin_run(two_pendulums()));
  EXPECT_FALSE(unpaced.view().lateness);
}

// thin_out keeps the first and the newest entry whole (a move onto itself would empty it).
TEST(ThinOut, EverySecondGoesTheFirstAndTheNewestStayWhole) {
  for (std::size_t n : {5u, 6u}) {
    std::vector<std::vector<int>> list;
    for (std::size_t i = 0; i < n; ++i) list.push_back({static_cast<int>(i), 7});
    thin_out(list);
    ASSERT_EQ(list.size(), n % 2 == 0 ? n / 2 + 1 : (n + 1) / 2) << n;
    EXPECT_EQ(list.front(), (std::vector<int>{0, 7})) << n;
    EXPECT_EQ(list.back(), (std::vector<int>{static_cast<int>(n) - 1, 7})) << n;
    EXPECT_EQ(list[1], (std::vector<int>{2, 7})) << n;
  }
}

TEST(LatenessHistory, KeepsASampleOfEveryStepWithinItsBound) {
  LatenessHistory h(1'000'000, 100, 64);
  for (std::uint64_t s = 1; s <= 1'000'000; ++s)
    h.add(s, s % 100 == 0 ? 1e-3 : -1e-3 * static_cast<double>(s) / 1e6, s / 100);
  const LatenessView v = h.view();
  EXPECT_EQ(v.steps, 1'000'000u);
  EXPECT_EQ(v.overruns, 10'000u);
  EXPECT_DOUBLE_EQ(v.max_s, 1e-3);
  EXPECT_NEAR(v.p50_s, -0.5e-3, 0.05e-3);  // the sample spreads over the whole run
  EXPECT_EQ(v.columns.size(), 100u);
  for (const auto& c : v.columns) {
    ASSERT_TRUE(c);
    EXPECT_DOUBLE_EQ(c->latest_s, 1e-3);  // every column had an overrun in it
  }
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
  EXPECT_DOUBLE_EQ(v.moment_s, 2.75);
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

// ---- the plot view (partitioned models) ----

// Two plots ("fast" with two series, "slow" with one), steps in ticks of 0.5 s, a frame every
// 4 ticks up to tick 10 (frames at 0, 4, 8 and 10).
AnimationRun two_partitions(std::uint64_t steps = 10) {
  AnimationRun run;
  run.scenario = "tanks";
  run.label = "optimistic";
  run.h = 0.5;
  run.steps = steps;
  run.frame_every = 4;
  run.plot = {{"fast", "slow"}, {{"a.x", 0}, {"a.v", 0}, {"b.y", 1}}};
  run.components = {"monitor", "integrator-fast", "integrator-slow"};
  return run;
}

// k plot frames: series values (step-number, -1, 2).
std::vector<double> plot_frames(std::initializer_list<double> steps) {
  std::vector<double> out;
  for (double s : steps) {
    out.push_back(s);
    out.push_back(-1.0);
    out.push_back(2.0);
  }
  return out;
}

TEST(PlaybackPlots, OneViewOrTheOtherWithSeriesInTheirPlots) {
  Playback p;
  EXPECT_TRUE(p.begin_run(two_partitions()));
  auto both = two_partitions();
  both.pendulums = {{0, 1, 0.1}};
  EXPECT_FALSE(p.begin_run(both));
  auto none = two_partitions();
  none.plot = {};
  EXPECT_FALSE(p.begin_run(none));
  auto no_series = two_partitions();
  no_series.plot.series.clear();
  EXPECT_FALSE(p.begin_run(no_series));
  auto nowhere = two_partitions();
  nowhere.plot.series[2].plot = 2;  // there are two plots
  EXPECT_FALSE(p.begin_run(nowhere));
  auto never = two_partitions();
  never.frame_every = 0;
  EXPECT_FALSE(p.begin_run(never));
  auto beyond = two_partitions();
  beyond.frame_every = 11;  // past the last step
  EXPECT_FALSE(p.begin_run(beyond));
  auto too_many = two_partitions();
  too_many.plot.series.assign(Playback::max_series + 1, {"x", 0});
  EXPECT_FALSE(p.begin_run(too_many));
  EXPECT_EQ(p.counters().rejected, 7u);
  const AnimationRun run = two_partitions();
  EXPECT_TRUE(run.plot_view());
  EXPECT_EQ(run.frame_size(), 3u);
  EXPECT_EQ(run.units(), 2u);
  EXPECT_EQ(run.horizon_name(), "final");
  EXPECT_EQ(run.next_frame_step(0), 4u);
  EXPECT_EQ(run.next_frame_step(8), 10u);  // the last frame is closer
  EXPECT_EQ(run.next_frame_step(10), 10u);
}

TEST(PlaybackPlots, FramesComeEveryFrameIntervalAndTheLastAtTheEnd) {
  Playback p;
  ASSERT_TRUE(p.begin_run(two_partitions()));
  EXPECT_EQ(p.add_frames(0, plot_frames({0, 4})), 2u);
  EXPECT_EQ(p.add_frames(8, plot_frames({8, 10})), 2u);
  p.advance(std::chrono::seconds(100));
  ASSERT_TRUE(p.current());
  EXPECT_EQ(p.current()->step, 10u);
  EXPECT_DOUBLE_EQ(p.current()->t, 5.0);
  EXPECT_EQ(p.counters().received, 4u);
  EXPECT_EQ(p.counters().rejected, 0u);
}

TEST(PlaybackPlots, BadFramesAreDroppedAndCounted) {
  Playback p;
  ASSERT_TRUE(p.begin_run(two_partitions()));
  EXPECT_EQ(p.add_frames(0, std::vector<double>{1.0, 2.0}), 0u);  // 2 values, not 3 per frame
  EXPECT_EQ(p.add_frames(2, plot_frames({2})), 0u);               // no frame at tick 2
  EXPECT_EQ(p.add_frames(8, plot_frames({8, 10, 12})), 0u);       // a frame past the last tick
  auto nan = plot_frames({0});
  nan[1] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(p.add_frames(0, nan), 0u);
  EXPECT_EQ(p.add_frames(4, plot_frames({4})), 1u);
  EXPECT_EQ(p.add_frames(0, plot_frames({0})), 0u);  // older than what arrived
  EXPECT_EQ(p.add_frames(4, plot_frames({4})), 0u);  // again
  EXPECT_FALSE(p.set_horizon(4, {4, 4, 4}));         // one entry per plot
  EXPECT_TRUE(p.set_horizon(4, {8, 4}));
  EXPECT_FALSE(p.rolled_back(2, 4));
  const auto c = p.counters();
  EXPECT_EQ(c.received, 1u);
  EXPECT_EQ(c.rejected, 1 + 1 + 3 + 1 + 1 + 1 + 1 + 1u);
}

TEST(PlaybackPlots, TheViewPlotsEveryValueUpToTheFrameShown) {
  Playback p;
  ASSERT_TRUE(p.begin_run(two_partitions()));
  p.add_frames(0, plot_frames({0, 4, 8, 10}));
  auto v = p.view();
  ASSERT_TRUE(v.plot);
  EXPECT_EQ(v.plot->t, (std::vector<double>{0.0}));  // the first frame, nothing before it
  p.advance(std::chrono::milliseconds(4100));        // a 5 s run plays in real time: t = 4.1 s
  v = p.view();
  ASSERT_TRUE(v.plot);
  EXPECT_EQ(v.plot->t, (std::vector<double>{0.0, 2.0, 4.0}));
  ASSERT_EQ(v.plot->values.size(), 3u);
  EXPECT_EQ(v.plot->values[0], (std::vector<double>{0, 4, 8}));
  EXPECT_EQ(v.plot->values[2], (std::vector<double>{2, 2, 2}));
  p.step_once();
  EXPECT_EQ(p.view().plot->t.back(), 5.0);
  // A chain has no plot.
  ASSERT_TRUE(p.begin_run(two_pendulums()));
  EXPECT_FALSE(p.view().plot);
}

// A hybrid model's events across the boundary: marked at their times, shown once the replay
// has got there, bounded, cleared by the next run; a pendulum view or a time that is not
// finite is rejected and counted.
TEST(PlaybackPlots, MarksAreShownUpToTheFrameAndBounded) {
  Playback p;
  EXPECT_EQ(p.add_marks({{1.0, "before any run"}}), 0u);
  ASSERT_TRUE(p.begin_run(two_partitions()));
  p.add_frames(0, plot_frames({0, 4, 8, 10}));
  EXPECT_EQ(p.add_marks({{1.5, "switch.high"},
                         {4.5, "upper.inflow = 0.05"},
                         {std::nan(""), "no time"},
                         {3.0, std::string(500, 'x')}}),
            3u);
  EXPECT_EQ(p.view().counters.rejected, 2u);
  EXPECT_TRUE(p.view().marks.empty()) << "the first frame is at t = 0";
  p.advance(std::chrono::milliseconds(4100));  // t = 4.1 s
  auto v = p.view();
  ASSERT_EQ(v.marks.size(), 2u);
  EXPECT_EQ(v.marks[0].label, "switch.high");
  EXPECT_EQ(v.marks[1].label.size(), Playback::max_mark_label);
  p.step_once();
  EXPECT_EQ(p.view().marks.size(), 3u);
  std::vector<PlotMark> many(2 * Playback::max_marks, PlotMark{0.5, "m"});
  EXPECT_EQ(p.add_marks(many), many.size());
  EXPECT_EQ(p.view().marks.size(), Playback::max_marks);
  ASSERT_TRUE(p.begin_run(two_partitions()));
  EXPECT_TRUE(p.view().marks.empty());
  ASSERT_TRUE(p.begin_run(two_pendulums()));
  EXPECT_EQ(p.add_marks({{1.0, "a chain has no plots"}}), 0u);
}

TEST(PlaybackPlots, ALongRunPlaysInTenSecondsNeverSlowerThanRealTime) {
  AnimationRun tanks = two_partitions(1200);  // 600 s of ticks of 0.5 s
  tanks.frame_every = 20;
  EXPECT_DOUBLE_EQ(tanks.playback_rate(), 60.0);
  EXPECT_DOUBLE_EQ(two_partitions().playback_rate(), 1.0);  // 5 s: real time
  EXPECT_DOUBLE_EQ(two_pendulums().playback_rate(), 1.0);
  Playback p;
  ASSERT_TRUE(p.begin_run(tanks));
  std::vector<double> all;
  for (std::uint64_t k = 0; k <= 60; ++k) {
    const auto more = plot_frames({double(k)});
    all.insert(all.end(), more.begin(), more.end());
  }
  ASSERT_EQ(p.add_frames(0, all), 61u);
  p.advance(std::chrono::milliseconds(1000));  // 60 simulated seconds
  EXPECT_EQ(p.current()->step, 120u);
  p.set_speed(0.5);
  p.advance(std::chrono::milliseconds(1000));  // 30 more
  EXPECT_EQ(p.current()->step, 180u);
}

TEST(PlaybackPlots, MemoryStaysBoundedHoweverLongTheRun) {
  AnimationRun run = two_partitions(1'000'000);
  run.frame_every = 1;
  Playback p(1000, 16, 256);  // 1000 frames ahead, 256 points per series
  ASSERT_TRUE(p.begin_run(run));
  for (std::uint64_t first = 0; first < 1'000'000; first += 1000) {
    std::vector<double> chunk;
    for (std::uint64_t s = first; s < first + 1000; ++s) {
      const auto more = plot_frames({double(s)});
      chunk.insert(chunk.end(), more.begin(), more.end());
    }
    ASSERT_EQ(p.add_frames(first, chunk), 1000u);
    p.advance(std::chrono::seconds(1));  // 50,000 simulated s (a 500,000 s run): all of it
  }
  const auto v = p.view();
  EXPECT_LE(p.buffered(), 1000u);
  ASSERT_TRUE(v.plot);
  EXPECT_LE(v.plot->t.size(), 257u);  // the history and the frame shown
  EXPECT_GE(v.plot->t.size(), 128u);
  EXPECT_DOUBLE_EQ(v.plot->t.front(), 0.0);  // the first point stays
  EXPECT_DOUBLE_EQ(v.plot->values[0].back(), static_cast<double>(v.frame->step));
  // Evenly spaced: every kept point one stride after the one before.
  const double spacing = v.plot->t[1] - v.plot->t[0];
  for (std::size_t k = 1; k + 1 < v.plot->t.size(); ++k)
    EXPECT_DOUBLE_EQ(v.plot->t[k] - v.plot->t[k - 1], spacing) << k;
  EXPECT_EQ(p.counters().received, 1'000'000u);
}

TEST(PlotHistory, KeepsEvenlySpacedPointsWithinItsBound) {
  PlotHistory h(2, 4);
  for (int k = 0; k < 4; ++k) h.add(k, std::vector<double>{double(k), -double(k)});
  EXPECT_EQ(h.points(), 4u);
  EXPECT_EQ(h.stride(), 1u);
  h.add(4, std::vector<double>{4, -4});  // full: halved to 0, 2; then 4 is kept
  EXPECT_EQ(h.stride(), 2u);
  EXPECT_EQ(h.snapshot().t, (std::vector<double>{0, 2, 4}));
  h.add(5, std::vector<double>{5, -5});  // not a multiple of the stride: not kept
  h.add(6, std::vector<double>{6, -6});
  EXPECT_EQ(h.snapshot().t, (std::vector<double>{0, 2, 4, 6}));
  h.add(7, std::vector<double>{7, -7});
  h.add(8, std::vector<double>{8, -8});  // halved again: 0, 4, then 8
  EXPECT_EQ(h.stride(), 4u);
  const PlotPoints p = h.snapshot();
  EXPECT_EQ(p.t, (std::vector<double>{0, 4, 8}));
  EXPECT_EQ(p.values[1], (std::vector<double>{0, -4, -8}));
  EXPECT_EQ(h.frames(), 9u);
  h.add(9, std::vector<double>{1});  // a frame of another size is ignored
  EXPECT_EQ(h.frames(), 9u);
  // The frame shown is appended when it is newer than the last point.
  const double shown = 8.5;
  EXPECT_EQ(h.snapshot(&shown, std::vector<double>{1, 2}).t.back(), 8.5);
  const double old = 3;
  EXPECT_EQ(h.snapshot(&old, std::vector<double>{1, 2}).t.back(), 8.0);
  for (int k = 9; k < 100'000; ++k) h.add(k, std::vector<double>{0, 0});
  EXPECT_LE(h.points(), 4u);
  EXPECT_EQ(h.snapshot().t.front(), 0.0);
}

TEST(PlotHistory, EachPlotScalesToItsOwnSeries) {
  const PlotSpec spec{{"fast", "slow"}, {{"a.x", 0}, {"a.v", 0}, {"b.y", 1}}};
  PlotPoints points{{0, 1, 2}, {{0, 10, 5}, {-10, 0, 0}, {3, 3, 3}}};
  const ValueRange fast = plot_value_range(spec, points, 0);
  EXPECT_DOUBLE_EQ(fast.lo, -11);  // -10 .. 10, 5 % of 20 on each side
  EXPECT_DOUBLE_EQ(fast.hi, 11);
  const ValueRange flat = plot_value_range(spec, points, 1);
  EXPECT_DOUBLE_EQ(flat.lo, 2);  // a flat 3: ±1
  EXPECT_DOUBLE_EQ(flat.hi, 4);
  points.values[2] = {100, 100, 100};
  EXPECT_DOUBLE_EQ(plot_value_range(spec, points, 1).hi, 110);  // ±10 % of a large value
  const ValueRange empty = plot_value_range(spec, PlotPoints{}, 0);
  EXPECT_DOUBLE_EQ(empty.lo, -1);
  EXPECT_DOUBLE_EQ(empty.hi, 1);
}

// Series whose ranges differ by more than max_range_ratio share no scale: each is drawn
// against its own (its extent in the legend); ranges alike keep one scale.
TEST(PlotHistory, SeriesOfVeryDifferentRangesAreEachScaledToTheirOwn) {
  const PlotSpec spec{{"drive"}, {{"d.p", 0}, {"d.x", 0}}};
  PlotPoints points{{0, 1, 2}, {{100, 150, 120}, {0, 0.1, 0.05}}};
  EXPECT_TRUE(plot_is_normalised(spec, points, 0));
  const ValueRange p = series_extent(points, 0), x = series_extent(points, 1);
  EXPECT_EQ(p.lo, 100);
  EXPECT_EQ(p.hi, 150);
  EXPECT_EQ(x.hi, 0.1);
  EXPECT_DOUBLE_EQ(series_value_range(points, 0).lo, 97.5);  // padded as a plot is
  points.values[1] = {0, 10, 5};                             // a span of 10 beside 50: one scale
  EXPECT_FALSE(plot_is_normalised(spec, points, 0));
  points.values[1] = {0.2, 0.2, 0.2};  // a flat 0.2 (±1) beside 100..150: one scale still
  EXPECT_FALSE(plot_is_normalised(spec, points, 0));
  points.values[0] = {1e5, 1.5e5, 1.2e5};  // beside a flat 0.2: too far apart
  EXPECT_TRUE(plot_is_normalised(spec, points, 0));
  EXPECT_FALSE(plot_is_normalised(PlotSpec{{"one"}, {{"a", 0}}}, PlotPoints{{0}, {{1}}}, 0));
  EXPECT_GT(series_extent(PlotPoints{}, 0).lo, series_extent(PlotPoints{}, 0).hi);  // none
}

}  // namespace
}  // namespace kausal
