// The clock of paced runs (docs/realtime.md): how it releases steps on the wall clock and on
// external ticks, how it counts overruns and honours stop requests, and the per-step
// figures it reports with the components' share taken from their activity spans.
//
// Timing: the only assertions on elapsed time are lower bounds that pacing guarantees; the
// overrun counts come from RealtimeOptions::delays, which make a step late by a known
// margin, so that they do not depend on the machine's speed.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "common/activity_trace.hpp"
#include "common/cpus.hpp"
#include "common/errors.hpp"
#include "common/view_pace.hpp"
#include "monitor/core/run_control.hpp"
#include "monitor/core/run_result.hpp"
#include "monitor/core/step_timings.hpp"
#include "monitor/run/feasibility.hpp"
#include "monitor/run/realtime_priority.hpp"
#include "monitor/sync/injections.hpp"
#include "monitor/sync/step_clock.hpp"

namespace kausal {
namespace {

using namespace std::chrono_literals;

RealtimeOptions wall(double factor = 1) {
  RealtimeOptions o;
  o.clock = ClockSource::wall;
  o.factor = factor;
  return o;
}

RealtimeOptions external() {
  RealtimeOptions o;
  o.clock = ClockSource::external;
  return o;
}

class StopNow final : public RunControl {
 public:
  bool stop_requested() const override { return true; }
};

// Stops once told to, from another thread.
class StopFlag final : public RunControl {
 public:
  void request() { stop_ = true; }
  bool stop_requested() const override { return stop_; }

 private:
  std::atomic<bool> stop_ = false;
};

// Steps first .. last − 1 as a run without work does them: each step's state is committed
// as soon as the step is released.
void run_steps(StepClock& clock, std::uint64_t first, std::uint64_t last) {
  const RunControl go_on;
  for (std::uint64_t m = first; m < last; ++m) {
    clock.wait_release(m, go_on);
    clock.committed(m + 1);
  }
}

ActivitySpan busy(std::uint64_t begin_us, std::uint64_t end_us, std::uint64_t step) {
  return {begin_us * 1000, end_us * 1000, ActivityKind::busy, {ActivityCall::unnamed, step}};
}

// --- spread_of ---------------------------------------------------------------------------

TEST(SpreadOf, NoSamplesCountNothing) {
  const Spread s = spread_of({});
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.p50, 0);
  EXPECT_EQ(s.p99, 0);
  EXPECT_EQ(s.max, 0);
}

TEST(SpreadOf, NearestRankPercentiles) {
  std::vector<double> samples;
  for (int i = 1; i <= 100; ++i) samples.push_back(i);
  const Spread s = spread_of(samples);
  EXPECT_EQ(s.count, 100u);
  EXPECT_EQ(s.p50, 50);  // the smallest sample with half of them at or below it
  EXPECT_EQ(s.p99, 99);
  EXPECT_EQ(s.max, 100);
}

TEST(SpreadOf, SortsItsSamples) {
  const Spread s = spread_of({7, 1, 9, 3, 5});
  EXPECT_EQ(s.count, 5u);
  EXPECT_EQ(s.p50, 5);  // rank ceil(2.5) = 3
  EXPECT_EQ(s.p99, 9);
  EXPECT_EQ(s.max, 9);
}

TEST(SpreadOf, OneSampleIsEveryPercentile) {
  const Spread s = spread_of({0.25});
  EXPECT_EQ(s.count, 1u);
  EXPECT_EQ(s.p50, 0.25);
  EXPECT_EQ(s.p99, 0.25);
  EXPECT_EQ(s.max, 0.25);
}

// --- the wall clock ----------------------------------------------------------------------

TEST(WallClock, PacesTheSteps) {
  constexpr double h = 0.002;  // factor 1: a step every 2 ms
  constexpr std::uint64_t steps = 20;
  StepClock clock(wall(), h, 0, steps);
  EXPECT_EQ(clock.released(), 0u);  // nothing released before the run starts

  const RunControl go_on;
  const auto t0 = StepClock::Clock::now();
  clock.start();
  for (std::uint64_t m = 0; m < steps; ++m) {
    clock.wait_release(m, go_on);
    EXPECT_EQ(clock.released(), m + 1);
    clock.committed(m + 1);
  }
  const auto elapsed = StepClock::Clock::now() - t0;
  // The last step is released 19 periods after the first (1 µs for the rounding of the
  // release time to nanoseconds).
  EXPECT_GE(elapsed, 19 * 2ms - 1us);

  const RealtimeFigures f = clock.figures();
  EXPECT_EQ(f.clock, ClockSource::wall);
  EXPECT_DOUBLE_EQ(f.budget_s, h);
  EXPECT_EQ(f.ticks, 0u);
  EXPECT_EQ(f.step_s.count, steps);
  EXPECT_EQ(f.lateness_s.count, steps);
  EXPECT_EQ(f.start_delay_s.count, steps);
  // Without components' timings a step is all compute.
  EXPECT_EQ(f.compute_s.count, steps);
  EXPECT_EQ(f.communication_s.max, 0);
}

TEST(WallClock, FactorScalesThePeriod) {
  // 10 ms of model time per step at 5 times real time: a step every 2 ms.
  constexpr std::uint64_t steps = 10;
  StepClock clock(wall(5), 0.01, 0, steps);
  const auto t0 = StepClock::Clock::now();
  clock.start();
  run_steps(clock, 0, steps);
  EXPECT_GE(StepClock::Clock::now() - t0, 9 * 2ms - 1us);
  EXPECT_DOUBLE_EQ(clock.figures().budget_s, 0.002);
  EXPECT_EQ(clock.released(), steps);
}

TEST(WallClock, RejectsAFactorThatIsNotPositiveAndFinite) {
  for (const double factor : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN()})
    EXPECT_THROW(StepClock(wall(factor), 0.01, 0, 10), InputError) << "factor " << factor;
  // So small that h / factor is no longer a number of seconds.
  EXPECT_THROW(StepClock(wall(1e-310), 1, 0, 10), InputError);
}

// `pace 1e-300` (kausal inject) and `--realtime 1e-300` were accepted: one step every 1e297 s,
// a wall time the clock's nanoseconds cannot hold, and a run that never ends.
TEST(WallClock, APaceAtWhichTheRunWouldTakeMoreThanAYearIsRefusedNamingTheSlowest) {
  try {
    StepClock(wall(1e-300), 0.001, 0, 20'000);
    ADD_FAILURE() << "--realtime 1e-300 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--realtime 1e-300: 20000 steps of h = 0.001 s would "
                                         "take 2e+301 s of wall time, more than a paced run "
                                         "may (3.15576e+07 s, a year); the slowest pace is "
                                         "6.33762e-07"),
              std::string::npos)
        << e.what();
  }
  // The slowest pace the message names is taken.
  EXPECT_NO_THROW(StepClock(wall(6.4e-7), 0.001, 0, 20'000));

  StepClock clock(wall(), 0.001, 0, 20'000);
  clock.start();
  EXPECT_THROW(clock.pace(1e-300), InputError);
  EXPECT_THROW(clock.pace(-1), InputError);
  EXPECT_NO_THROW(clock.pace(2));
  EXPECT_NO_THROW(clock.pace(0));  // as fast as the run goes
}

// 64,000 pushes in 10 s were all kept while the clock held: at most kMaxPerStep wait for a
// step; the run goes on and later steps take new ones.
TEST(Injections, AFloodWaitingForOneStepIsRefusedAtTheBound) {
  StepClock clock(wall(1e-3), 0.001, 0, 1000);  // a step a second: the clock holds
  clock.start();
  Injections injections({1, 0, 1000}, &clock, {});
  for (std::size_t k = 0; k < Injections::kMaxPerStep; ++k)
    injections.request({InjectionKind::push, 0, "1", 0.5});
  try {
    injections.request({InjectionKind::push, 0, "1", 0.5});
    ADD_FAILURE() << "injection beyond the bound accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("busy: 1024 injections wait for step"), std::string::npos)
        << e.what();
  }
  const std::uint64_t due = injections.hold();
  EXPECT_EQ(injections.take(due).size(), Injections::kMaxPerStep);
  EXPECT_EQ(injections.hold(), Injections::none);
}

// --- overruns on the wall clock ----------------------------------------------------------
//
// State s is due when step s is released; a delay d at step k (period P, no other work)
// commits state k + 1 at r_k + d at the earliest, the following steps start at once. P is
// 400 ms: half a period (the slack of the step after a delayed one) must outlast a stall of a
// shared, loaded machine (50 ms did not, under ASan beside a sanitizer build).

TEST(WallClock, EachDelayOfOneAndAHalfPeriodsIsOneOverrun) {
  // P = 400 ms. State k + 1 comes at r_k + 1.5 P, after its due time r_k + P: an overrun.
  // Step k + 1 starts late but commits state k + 2 at once, before its due time r_k + 2 P.
  RealtimeOptions options = wall();
  options.delays = {{2, 0.6}, {5, 0.6}};
  StepClock clock(options, 0.4, 0, 8);
  clock.start();
  run_steps(clock, 0, 8);
  EXPECT_EQ(clock.overruns(), 2u);
  const RealtimeFigures f = clock.figures();
  EXPECT_EQ(f.overruns, 2u);
  EXPECT_GE(f.lateness_s.max, 0.2);     // 1.5 P after the release, 0.5 P after the due time
  EXPECT_GE(f.start_delay_s.max, 0.2);  // the step after a delayed one
}

TEST(WallClock, ADelayOfTwoAndAHalfPeriodsIsTwoOverruns) {
  // State k + 1 comes at r_k + 2.5 P (due r_k + P); step k + 1 starts then and commits
  // state k + 2 at once, still after its due time r_k + 2 P: two overruns. Step k + 2 was
  // released at r_k + 2 P and also starts at r_k + 2.5 P, but state k + 3 is only due at
  // r_k + 3 P: the run has caught up.
  RealtimeOptions options = wall();
  options.delays = {{1, 1.0}};
  StepClock clock(options, 0.4, 0, 5);
  clock.start();
  run_steps(clock, 0, 5);
  EXPECT_EQ(clock.overruns(), 2u);
  EXPECT_GE(clock.figures().lateness_s.max, 0.6);  // state k + 1: 1.5 P late
}

// --- the external clock ------------------------------------------------------------------

TEST(ExternalClock, EachTickReleasesOneStep) {
  constexpr std::uint64_t steps = 1000;
  StepClock clock(external(), 0.01, 0, steps);
  clock.start();

  // Counted before each tick(): a step released by tick n finds at least n sent.
  std::atomic<std::uint64_t> sent = 0;
  std::vector<std::uint64_t> answers;
  std::thread ticker([&] {
    for (std::uint64_t i = 0; i < steps + 5; ++i) {  // 5 more than the run has steps
      ++sent;
      answers.push_back(clock.tick());
    }
  });

  const RunControl go_on;
  std::uint64_t early = 0;  // steps released before their tick was sent
  for (std::uint64_t m = 0; m < steps; ++m) {
    clock.wait_release(m, go_on);
    if (sent.load() < m + 1) ++early;
    clock.committed(m + 1);
  }
  ticker.join();

  EXPECT_EQ(early, 0u);

  EXPECT_EQ(clock.released(), steps);
  EXPECT_EQ(clock.figures().ticks, steps);
  ASSERT_EQ(answers.size(), steps + 5);
  EXPECT_EQ(answers[0], 1u);
  EXPECT_EQ(answers[steps - 1], steps);
  // Ticks beyond the last step release nothing and are not counted.
  for (std::uint64_t i = steps; i < steps + 5; ++i) EXPECT_EQ(answers[i], steps);
}

TEST(ExternalClock, ATickDuringARunningStepIsAnOverrun) {
  StepClock clock(external(), 0.01, 0, 3);
  clock.start();
  const RunControl go_on;

  EXPECT_EQ(clock.tick(), 1u);
  clock.wait_release(0, go_on);
  EXPECT_EQ(clock.tick(), 2u);  // step 0 has not committed state 1 yet: overrun
  EXPECT_EQ(clock.overruns(), 1u);
  clock.committed(1);
  clock.wait_release(1, go_on);  // already released by the second tick
  clock.committed(2);
  EXPECT_EQ(clock.tick(), 3u);  // state 2 is there: on time
  clock.wait_release(2, go_on);
  clock.committed(3);

  EXPECT_EQ(clock.overruns(), 1u);
  EXPECT_EQ(clock.figures().overruns, 1u);
  EXPECT_EQ(clock.released(), 3u);
}

// --- stop requests -----------------------------------------------------------------------

TEST(StepClockStop, InterruptsAWaitForAFarRelease) {
  // Whichever way it waits, a release 10 s away does not hold up a stop.
  for (const ReleaseWait wait : {ReleaseWait::sleep, ReleaseWait::spin, ReleaseWait::hybrid}) {
    RealtimeOptions options = wall();
    options.wait = wait;
    StepClock clock(options, 10, 0, 2);
    clock.start();
    clock.wait_release(0, RunControl());  // released at once
    EXPECT_THROW(clock.wait_release(1, StopNow()), Interrupted) << name_of(wait);
    EXPECT_EQ(clock.released(), 1u);
  }
}

TEST(StepClockStop, InterruptsAWaitAlreadyUnderWay) {
  StepClock clock(wall(), 10, 0, 2);
  clock.start();
  clock.wait_release(0, RunControl());
  StopFlag stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(20ms);
    stop.request();
  });
  EXPECT_THROW(clock.wait_release(1, stop), Interrupted);
  stopper.join();
}

TEST(StepClockStop, InterruptsAWaitForATick) {
  StepClock clock(external(), 0.01, 0, 2);
  clock.start();
  EXPECT_THROW(clock.wait_release(0, StopNow()), Interrupted);
  EXPECT_EQ(clock.released(), 0u);
}

// --- StepTimings -------------------------------------------------------------------------

TEST(StepTimings, ComputeIsTheIntegratorsExtentPlusTheMonitorsBusyTime) {
  StepTimings timings;
  const std::vector<ActivitySpan> integrator = {
      busy(0, 10, 1),
      // Ignored: discarded work, an envelope around other spans, work on no step.
      {0, 500'000, ActivityKind::rollback, {ActivityCall::rollback, 1}},
      {0, 600'000, ActivityKind::call, {ActivityCall::advance, 1}},
      {0, 700'000, ActivityKind::busy, {}},
      busy(20, 30, 1),
      busy(40, 45, 2),
  };
  timings.add("integrator-1", ComponentRole::integrator, integrator);
  timings.add("monitor", ComponentRole::monitor, std::vector{busy(50, 52, 1)});
  // Systems are counted in their Integrator's extent, not on their own.
  timings.add("system-1", ComponentRole::system, std::vector{busy(0, 1000, 1)});

  // State 1: the integrator from 0 to 30 µs (its waits between pieces included), the
  // monitor's 2 µs added.
  ASSERT_TRUE(timings.compute_s(1));
  EXPECT_NEAR(*timings.compute_s(1), 32e-6, 1e-8);
  ASSERT_TRUE(timings.compute_s(2));
  EXPECT_NEAR(*timings.compute_s(2), 5e-6, 1e-8);
  EXPECT_FALSE(timings.compute_s(3));  // nobody worked on it
  EXPECT_FALSE(timings.compute_s(0));

  const std::vector<ComponentTiming> components = timings.timings();
  ASSERT_EQ(components.size(), 2u);
  EXPECT_EQ(components[0].name, "integrator-1");
  EXPECT_EQ(components[0].step_s.count, 2u);  // states 1 and 2
  EXPECT_NEAR(components[0].step_s.max, 30e-6, 1e-8);
  EXPECT_NEAR(components[0].busy_s.max, 20e-6, 1e-8);  // 10 µs + 10 µs of state 1
  EXPECT_EQ(components[1].name, "monitor");
  EXPECT_EQ(components[1].step_s.count, 1u);
  EXPECT_NEAR(components[1].busy_s.max, 2e-6, 1e-8);
}

TEST(StepTimings, TheSlowestIntegratorCounts) {
  StepTimings timings;
  timings.add("integrator-1", ComponentRole::integrator, std::vector{busy(0, 10, 4)});
  timings.add("integrator-2", ComponentRole::integrator, std::vector{busy(5, 45, 4)});
  ASSERT_TRUE(timings.compute_s(4));
  EXPECT_NEAR(*timings.compute_s(4), 40e-6, 1e-8);
}

// --- compute and communication -----------------------------------------------------------

TEST(StepClockFigures, SplitAStepIntoComputeAndCommunication) {
  StepClock clock(wall(), 0.001, 0, 1);
  StepTimings timings;
  timings.add("integrator-1", ComponentRole::integrator, std::vector{busy(0, 1000, 1)});
  clock.start();
  clock.wait_release(0, RunControl());
  std::this_thread::sleep_for(5ms);  // the step takes longer than its 1 ms of compute
  clock.committed(1);

  const RealtimeFigures f = clock.figures(&timings);
  ASSERT_EQ(f.step_s.count, 1u);
  ASSERT_EQ(f.compute_s.count, 1u);
  ASSERT_EQ(f.communication_s.count, 1u);
  EXPECT_GE(f.step_s.max, 0.005);
  EXPECT_NEAR(f.compute_s.max, 1e-3, 1e-8);
  EXPECT_NEAR(f.compute_s.max + f.communication_s.max, f.step_s.max, 1e-12);
  ASSERT_EQ(f.components.size(), 1u);
  EXPECT_EQ(f.components[0].name, "integrator-1");
}

TEST(StepClockFigures, OnlyStepsWithTimingsAreSplit) {
  // States 1 and 2 tagged, state 3's spans lost. Their compute (1 s) exceeds any step time
  // here: compute is capped at the step, communication is then none.
  StepClock clock(wall(), 0.001, 0, 3);
  StepTimings timings;
  timings.add("integrator-1", ComponentRole::integrator,
              std::vector{busy(0, 1'000'000, 1), busy(1'000'000, 2'000'000, 2)});
  clock.start();
  run_steps(clock, 0, 3);

  const RealtimeFigures f = clock.figures(&timings);
  EXPECT_EQ(f.step_s.count, 3u);
  EXPECT_EQ(f.compute_s.count, 2u);
  EXPECT_EQ(f.communication_s.count, f.compute_s.count);
  EXPECT_LE(f.compute_s.max, f.step_s.max);
  EXPECT_EQ(f.communication_s.max, 0);
}

// A pace set before the first step is the run's (--animate's, chosen once the run is placed);
// a later one (kausal inject pace) leaves the figures' factor at the first step's.
TEST(StepClockFigures, TheFactorIsThePaceOfTheFirstStep) {
  StepClock clock(wall(1), 0.001, 0, 3);
  clock.pace(40);
  clock.start();
  clock.wait_release(0, RunControl());
  clock.committed(1);
  clock.pace(2);
  run_steps(clock, 1, 3);
  const RealtimeFigures f = clock.figures();
  EXPECT_EQ(f.factor, 40);
  EXPECT_DOUBLE_EQ(f.budget_s, 0.001 / 40);
}

// --- whose overruns: the stall watch (monitor/core/stall_watch.hpp) --------------------------

StallWatch::Stall at(StallWatch::Clock::time_point t0, double from_s, double to_s) {
  const auto s = [&](double x) {
    return t0 + std::chrono::duration_cast<StallWatch::Clock::duration>(
                    std::chrono::duration<double>(x));
  };
  return {s(from_s), s(to_s)};
}

StallWatch::Window late(StallWatch::Clock::time_point t0, double from_s, double to_s,
                        double late_s) {
  const StallWatch::Stall w = at(t0, from_s, to_s);
  return {w.begin, w.end,
          std::chrono::duration_cast<StallWatch::Clock::duration>(
              std::chrono::duration<double>(late_s))};
}

// A late state is the machine's when the stalls within its window (on any CPU, overlaps
// counted once) last at least as long as it came late.
TEST(StallWatch, TheMachineMadeAStateLateWhenItsStallsLastAsLongAsTheLateness) {
  const auto t0 = StallWatch::Clock::now();
  const std::vector<StallWatch::Window> windows{late(t0, 1, 2, 0.1), late(t0, 1, 3, 0.3),
                                                late(t0, 4, 5, 0.1), late(t0, 6, 7, 0.1)};
  const auto made = [&](std::vector<StallWatch::Stall> stalls) {
    return StallWatch::machine_made(windows, stalls);
  };
  EXPECT_EQ(made({}), 0u);
  EXPECT_EQ(made({at(t0, 0, 0.5)}), 0u);      // before every window
  EXPECT_EQ(made({at(t0, 2.5, 2.6)}), 0u);    // in the second: 0.1 of its 0.3
  EXPECT_EQ(made({at(t0, 2.5, 2.8)}), 1u);    // 0.3 of 0.3
  EXPECT_EQ(made({at(t0, 3.95, 4.2)}), 1u);   // clipped to the third: 0.2
  EXPECT_EQ(made({at(t0, 3.95, 4.05)}), 0u);  // clipped: 0.05 of 0.1
  EXPECT_EQ(made({at(t0, 0.5, 1.2)}), 1u);    // 0.2 in the first, 0.2 in the second
  // Two CPUs stalled at once count once: 0.1 s, not 0.2 s, in the second window.
  EXPECT_EQ(made({at(t0, 2.5, 2.6), at(t0, 2.5, 2.6)}), 0u);
  EXPECT_EQ(made({at(t0, 2.5, 2.6), at(t0, 2.55, 2.7)}), 0u);  // union 0.2
  EXPECT_EQ(made({at(t0, 2.5, 2.6), at(t0, 2.55, 2.8)}), 1u);  // union 0.3
  EXPECT_EQ(made({at(t0, 0, 4.5), at(t0, 6.5, 6.7)}), 4u);     // long ones cover all
}

// The watch wakes on every CPU this process may use and, stopped, says how many times.
TEST(StallWatch, WakesOnEveryCpuUntilFinished) {
  const auto began = StallWatch::Clock::now();
  StallWatch watch;
  std::this_thread::sleep_for(100ms);
  const StallWatch::Record record = watch.finish();
  const auto periods = (StallWatch::Clock::now() - began) / StallWatch::period;
  EXPECT_EQ(record.cpus, available_cpu_count());
  EXPECT_GT(record.samples, 0u);
  // One a period and CPU at most: the marks of a stall's length are skipped, not caught up.
  EXPECT_LE(record.samples, record.cpus * static_cast<std::uint64_t>(periods + 1));
  EXPECT_TRUE(std::is_sorted(record.stalls.begin(), record.stalls.end(),
                             [](const auto& a, const auto& b) { return a.begin < b.begin; }));
  EXPECT_EQ(watch.finish().samples, record.samples);  // once
}

// An overrun is the machine's when its stalls, between the release of the step that began its
// streak of late states and its commit, last as long as it came late; a stall elsewhere, or
// one too short, leaves it the run's.
TEST(StepClockFigures, AnOverrunTheMachinesStallsExplainIsTheMachines) {
  // P = 400 ms; step 2 is delayed 1.5 P: state 3 (due 1.2 s) commits at about 1.4 s.
  RealtimeOptions options = wall();
  options.delays = {{2, 0.6}};
  StepClock clock(options, 0.4, 0, 5);
  const auto t0 = StepClock::Clock::now();
  clock.start();
  run_steps(clock, 0, 5);
  ASSERT_EQ(clock.overruns(), 1u);
  StallWatch::Record record;
  record.cpus = 1;
  record.samples = 2000;
  // State 3 is about 0.2 s late: its window is [1.2 s − 0.2 s − a typical step (about 0 here),
  // its commit at about 1.4 s].
  record.stalls = {at(t0, 0.1, 0.5)};  // long before: the run was on time then
  EXPECT_EQ(clock.figures(nullptr, &record).machine.overruns_machine, 0u);
  record.stalls.push_back(at(t0, 0.85, 0.95));  // while step 2 ran, but before its window
  EXPECT_EQ(clock.figures(nullptr, &record).machine.overruns_machine, 0u);
  record.stalls.push_back(at(t0, 1.1, 1.2));  // 0.1 s of its 0.2 s
  EXPECT_EQ(clock.figures(nullptr, &record).machine.overruns_machine, 0u);
  record.stalls.push_back(at(t0, 1.15, 1.35));  // with the last, 0.25 s in its window
  const MachineStalls m = clock.figures(nullptr, &record).machine;
  EXPECT_TRUE(m.watched);
  EXPECT_EQ(m.overruns_machine, 1u);
  EXPECT_EQ(m.stalls, 4u);
  EXPECT_NEAR(m.longest_s, 0.4, 1e-6);
  EXPECT_EQ(m.over_1ms, 4u);
  EXPECT_FALSE(clock.figures().machine.watched);  // no watch, no figures
}

// --- the pace of --animate (common/view_pace.hpp, monitor/run/feasibility.hpp) -------------

// The view plays a chain in real time and plots at least as fast, a long run in 10 s.
TEST(ViewPace, AChainPlaysInRealTimeAndALongPlotRunInTenSeconds) {
  EXPECT_EQ(view_playback_rate(false, 600), 1);
  EXPECT_EQ(view_playback_rate(true, 600), 60);
  EXPECT_EQ(view_playback_rate(true, 10), 1);
  EXPECT_EQ(view_playback_rate(true, 0.6), 1);
}

// A run that keeps up with the view's rate gets it; one that cannot gets half the fastest
// factor it keeps up with (two digits, rounded down), and the terminal says which and why.
TEST(ViewPace, TheViewsRateIfAStepFitsItElseHalfTheFastestFactor) {
  StepBudget b;
  b.h = 0.5;
  b.factor = 60;  // a budget of 8.33 ms per step
  b.compute_s = 1e-3;
  b.calls_per_step = 2;
  b.call_s = 1e-3;
  EXPECT_EQ(pace_for_view(b), 60);
  EXPECT_NE(describe_view_pace(b, 60).find("paced at 60× real time, the pace the view plays"),
            std::string::npos)
      << describe_view_pace(b, 60);

  b.compute_s = 0.019;  // 21 ms per step with the calls: at most 23.8×
  const double factor = pace_for_view(b);
  EXPECT_EQ(factor, 11);
  EXPECT_LE(factor, 0.5 * b.fastest_factor());
  const std::string said = describe_view_pace(b, factor);
  EXPECT_NE(said.find("paced at 11× real time, below the view's 60×"), std::string::npos) << said;
  EXPECT_NE(said.find("a step needs about 21000.0 µs"), std::string::npos) << said;

  b.h = 1e-4;  // far below real time: still two significant digits
  b.factor = 1;
  b.compute_s = 7e-4;
  b.call_s = 0;
  EXPECT_DOUBLE_EQ(pace_for_view(b), 0.071);
}

// --rt-priority: out of range refused; where allowed (root), every thread of this process runs
// under SCHED_FIFO while the guard lives and under the default scheduler after it.
TEST(RealtimePriority, MovesEveryThreadToSchedFifoAndBack) {
  EXPECT_THROW(RealtimePriority(0), InputError);
  EXPECT_THROW(RealtimePriority(100), InputError);
  std::atomic<bool> stop{false};
  std::atomic<pid_t> other_tid{0};
  std::thread other([&] {
    other_tid = gettid();
    while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  while (other_tid == 0) std::this_thread::yield();
  // Asked of the kernel (glibc's pthread_getschedparam may answer from a cache).
  auto policy_of = [](pid_t tid) { return sched_getscheduler(tid); };
  try {
    RealtimePriority fifo(3);
    EXPECT_EQ(sched_getscheduler(0), SCHED_FIFO);
    EXPECT_EQ(policy_of(other_tid), SCHED_FIFO);  // a thread that was there before
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("SCHED_FIFO"), std::string::npos) << e.what();
  }
  EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);
  EXPECT_EQ(policy_of(other_tid), SCHED_OTHER);
  stop = true;
  other.join();
}

}  // namespace
}  // namespace kausal
