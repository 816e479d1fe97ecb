#pragma once
// The clock of a paced run (docs/realtime.md): it releases the steps of a run one by one and
// times how each kept up. Every method and model kind asks it the same two things — wait
// until step m may start, and how far may anyone compute now — and tells it when a state is
// committed.
//
//   wall:      step m is released at t_start + (m − first)·h / factor (pace() changes the
//              factor from the next release on; an infinite factor releases each step as
//              soon as it is asked for: as fast as the run goes, still step by step);
//   external:  each tick() releases one more step (kausal tick, the Clock interface).
//
// Step m computes state m + 1 from state m. State s is due when step s is released (at the
// next release the following step must be able to start from it): committed later than
// that, it is an overrun. Ticks and steps are never skipped or repeated: a late step starts
// at once, and the run catches up.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "monitor/core/run_control.hpp"
#include "monitor/core/run_kind.hpp"
#include "monitor/core/run_result.hpp"
#include "monitor/core/stall_watch.hpp"
#include "monitor/core/step_timings.hpp"

namespace kausal {

// The longest a paced run may take at its pace: its clock's arithmetic (nanoseconds in 64
// bits) stays far from overflowing, and a pace like 1e-300 is refused, not a run that never
// ends.
inline constexpr std::chrono::duration<double> kMaxPacedSpan{365.25 * 24 * 3600};

// The wall seconds per step of h at `factor` for a run of `steps` more steps; InputError
// naming `what` (--realtime, pace) for a factor that is not positive (+inf: no wait), or so small
// that the steps would take longer than kMaxPacedSpan.
double paced_period(double h, double factor, std::uint64_t steps, const std::string& what);

struct RealtimeOptions {
  ClockSource clock = ClockSource::none;
  double factor = 1;  // wall: simulated seconds per wall second (infinite: no waiting)
  ReleaseWait wait = ReleaseWait::hybrid;
  // Artificial delays (s) at chosen steps, spent after the step's release as if the step
  // took that much longer: a deterministic way to produce overruns (tests, demonstrations).
  std::map<std::uint64_t, double> delays;
  // Wall clock: before the run, measure whether it can keep up (monitor/run/feasibility.hpp)
  // and refuse it if not.
  bool check_feasible = true;
  // The pace is --animate's (no --realtime given): the view's playback rate
  // (common/view_pace.hpp), lowered to what the run keeps up with instead of refused
  // (monitor/run/feasibility.hpp, pace_for_view).
  bool for_view = false;
  // The monitor and the component processes it starts run under SCHED_FIFO at this
  // priority while the run lasts (monitor/run/realtime_priority.hpp); 0: the default
  // scheduler.
  int priority = 0;

  bool paced() const { return clock != ClockSource::none; }
};

class StepClock {
 public:
  using Clock = std::chrono::steady_clock;
  // hybrid: sleeps until this long before a release, then spins.
  static constexpr std::chrono::microseconds spin_margin{200};

  // Steps first, first + 1, ..., last − 1 of a run whose steps are h seconds of model time.
  // InputError for a factor that is not positive (or is NaN).
  StepClock(const RealtimeOptions& options, double h, std::uint64_t first, std::uint64_t last);
  StepClock(const StepClock&) = delete;
  StepClock& operator=(const StepClock&) = delete;

  // The run starts now: on the wall clock, step `first` is released at once.
  void start();
  // Blocks until step m is released; Interrupted if `control` asks to stop meanwhile. Steps
  // are waited for in order, each once.
  void wait_release(std::uint64_t m, const RunControl& control);
  // States up to this one may be computed now (first while nothing is released yet).
  std::uint64_t released() const;
  // Every state up to s is committed (calls with an s not above the last are ignored).
  void committed(std::uint64_t s);
  // Wall clock: from the next release on, `factor` simulated seconds per wall second (0: as
  // fast as the run goes). A wait in progress follows the new pace; before start(), the run's
  // pace (its figures' factor). InputError for a negative factor or a clock paced from
  // outside.
  void pace(double factor);
  // External clock: releases one more step; returns the ticks so far. A tick that finds the
  // step of the previous tick still running counts as an overrun.
  std::uint64_t tick();

  std::uint64_t overruns() const;
  // How late state s is if committed at `at` (negative: early); nullopt while its due time
  // is not known (an external clock whose tick has not come) or before start().
  std::optional<double> lateness_s(std::uint64_t s, Clock::time_point at) const;
  struct Status {
    std::uint64_t ticks = 0;
    std::uint64_t overruns = 0;
    std::uint64_t committed = 0;  // the last state committed
    std::uint64_t last = 0;       // the run's last state
  };
  Status status() const;
  // The figures of the whole run so far (spreads over its steps); the components' own
  // figures are added by the run (RealtimeFigures::components).
  // `work` splits each step into compute and communication (null: all of it is compute,
  // as in a sequential run); `machine`, what the run's stall watch saw, says which overruns
  // the machine made.
  RealtimeFigures figures(const StepTimings* work = nullptr,
                          const StallWatch::Record* machine = nullptr) const;

 private:
  std::uint64_t ns_since_start(Clock::time_point t) const;
  // When step m is released at the present pace (under the lock).
  Clock::time_point wall_release(std::uint64_t m) const;
  void wait_for_wall(std::uint64_t m, const RunControl& control);
  // Waits until t; false if the pace changed from `pace` meanwhile (t is then stale).
  bool wait_until(Clock::time_point t, const RunControl& control, std::uint64_t pace) const;
  void wait_for_tick(std::uint64_t m, const RunControl& control);
  // When state s is due (ns since start): nullopt while its tick has not come.
  std::optional<std::uint64_t> due_ns(std::uint64_t s) const;
  // The stall watch's figures, with the late states the machine made late, for a run whose
  // median step takes `typical_step_ns` (under the lock).
  MachineStalls machine_stalls(const StallWatch::Record& record,
                               std::uint64_t typical_step_ns) const;

  const RealtimeOptions options_;
  const double h_;
  const std::uint64_t first_;
  const std::uint64_t last_;
  Clock::time_point start_;

  mutable std::mutex mutex_;
  // Wall clock: steps from pace_from_ on are released every period_s_ from pace_start_;
  // paces_ counts the changes.
  double period_s_;
  std::uint64_t pace_from_;
  Clock::time_point pace_start_;
  std::uint64_t paces_ = 0;
  double first_factor_;  // wall: the pace of the first step (the figures' factor)
  std::condition_variable ticked_;
  // Per step m (index m − first): when it was due (wall: planned; external: its tick) and
  // when it started; per state s (index s − first): when it was committed. Nanoseconds
  // since start().
  std::vector<std::uint64_t> due_;
  std::vector<std::uint64_t> started_;
  std::vector<std::uint64_t> committed_;
  std::uint64_t ticks_ = 0;
  std::uint64_t overruns_ = 0;
};

}  // namespace kausal
