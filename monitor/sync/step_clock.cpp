#include "monitor/sync/step_clock.hpp"

#include <sys/prctl.h>

#include <algorithm>
#include <cmath>
#include <thread>

#include "common/errors.hpp"
#include "monitor/scenario/scenario_limits.hpp"

namespace kausal {
namespace {

// However long a wait: a stop request is seen within this.
constexpr auto stop_check = std::chrono::milliseconds(100);

double seconds(std::uint64_t ns) {
  return static_cast<double>(ns) * 1e-9;
}

}  // namespace

double paced_period(double h, double factor, std::uint64_t steps, const std::string& what) {
  // (+inf: a step every 0 s, a wall clock that never holds: a replay as fast as it goes.)
  if (!(factor > 0))
    throw InputError(what + ": the factor must be a positive number (got " + format_number(factor) +
                     ")");
  const double period = h / factor;
  const double span = period * static_cast<double>(std::max<std::uint64_t>(steps, 1));
  if (!(span <= kMaxPacedSpan.count()))
    throw InputError(what + " " + format_number(factor) + ": " + std::to_string(steps) +
                     " steps of h = " + format_number(h) + " s would take " + format_number(span) +
                     " s of wall time, more than a paced run may (" +
                     format_number(kMaxPacedSpan.count()) + " s, a year); the slowest pace is " +
                     format_number(h * static_cast<double>(std::max<std::uint64_t>(steps, 1)) /
                                   kMaxPacedSpan.count()));
  return period;
}

Spread spread_of(std::vector<double> samples) {
  Spread s;
  s.count = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  // Nearest rank: the smallest sample with at least p of them at or below it.
  auto rank = [&](double p) {
    const auto k = static_cast<std::size_t>(std::ceil(p * static_cast<double>(samples.size())));
    return samples[std::clamp<std::size_t>(k, 1, samples.size()) - 1];
  };
  s.p50 = rank(0.50);
  s.p99 = rank(0.99);
  s.max = samples.back();
  return s;
}

StepClock::StepClock(const RealtimeOptions& options, double h, std::uint64_t first,
                     std::uint64_t last)
    : options_(options),
      h_(h),
      first_(first),
      last_(std::max(first, last)),
      start_(Clock::now()),
      period_s_(options.clock == ClockSource::wall
                    ? paced_period(h, options.factor, last - std::min(first, last), "--realtime")
                    : 0),
      pace_from_(first),
      pace_start_(start_),
      first_factor_(options.factor),
      committed_(1, 0) {
  // Bounded by the run's steps, which the scenario limits bound.
  const std::size_t steps = last_ - first_;
  due_.reserve(steps);
  started_.reserve(steps);
  committed_.reserve(steps + 1);
}

void StepClock::start() {
  std::lock_guard lock(mutex_);
  start_ = Clock::now();
  pace_start_ = start_;
  committed_.assign(1, 0);  // the first state is there before the run starts
}

std::uint64_t StepClock::ns_since_start(Clock::time_point t) const {
  return t <= start_
             ? 0
             : static_cast<std::uint64_t>(
                   std::chrono::duration_cast<std::chrono::nanoseconds>(t - start_).count());
}

StepClock::Clock::time_point StepClock::wall_release(std::uint64_t m) const {
  const double at = static_cast<double>(m - std::min(m, pace_from_)) * period_s_;
  return pace_start_ +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(at));
}

void StepClock::pace(double factor) {
  if (options_.clock != ClockSource::wall)
    throw InputError("the run is paced from outside (--external-clock): its pace is the ticks'");
  if (!(factor >= 0) || !std::isfinite(factor))
    throw InputError("pace: the factor must be 0 (as fast as possible) or positive (got " +
                     std::to_string(factor) + ")");
  std::lock_guard lock(mutex_);
  const std::uint64_t from = first_ + started_.size();
  const double period = factor == 0 ? 0 : paced_period(h_, factor, last_ - from, "pace");
  pace_from_ = from;
  pace_start_ = Clock::now();
  period_s_ = period;
  ++paces_;
  if (started_.empty()) first_factor_ = factor;
}

bool StepClock::wait_until(Clock::time_point t, const RunControl& control,
                           std::uint64_t pace) const {
  // Linux lets a sleeping thread wake up to 50 µs late by default (timer slack): a paced
  // thread asks for 1 ns.
  thread_local const bool tight = prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) == 0;
  (void)tight;
  const auto spin_from = options_.wait == ReleaseWait::sleep  ? t
                         : options_.wait == ReleaseWait::spin ? Clock::time_point::min()
                                                              : t - spin_margin;
  auto paced_again = [&] {
    std::lock_guard lock(mutex_);
    return paces_ != pace;
  };
  for (auto now = Clock::now(); now < spin_from; now = Clock::now()) {
    if (control.stop_requested()) throw Interrupted();
    if (paced_again()) return false;
    std::this_thread::sleep_until(std::min(spin_from, now + stop_check));
  }
  std::uint64_t spins = 0;
  while (Clock::now() < t)
    if (++spins % 4096 == 0 && control.stop_requested()) throw Interrupted();
  return true;
}

void StepClock::wait_for_wall(std::uint64_t m, const RunControl& control) {
  for (;;) {
    std::unique_lock lock(mutex_);
    const std::uint64_t pace = paces_;
    const Clock::time_point at = wall_release(m);
    lock.unlock();
    if (!wait_until(at, control, pace)) continue;
    lock.lock();
    due_.push_back(ns_since_start(at));
    return;
  }
}

void StepClock::wait_for_tick(std::uint64_t m, const RunControl& control) {
  std::unique_lock lock(mutex_);
  while (ticks_ < m - first_ + 1) {
    if (control.stop_requested()) throw Interrupted();
    ticked_.wait_for(lock, stop_check);
  }
}

void StepClock::wait_release(std::uint64_t m, const RunControl& control) {
  if (m < first_ || m >= last_) return;
  if (options_.clock == ClockSource::wall) {
    wait_for_wall(m, control);
  } else if (options_.clock == ClockSource::external) {
    wait_for_tick(m, control);  // its due time is the tick's arrival
  }
  {
    std::lock_guard lock(mutex_);
    started_.push_back(ns_since_start(Clock::now()));
  }
  if (const auto delay = options_.delays.find(m); delay != options_.delays.end())
    std::this_thread::sleep_for(std::chrono::duration<double>(delay->second));
}

std::uint64_t StepClock::released() const {
  std::lock_guard lock(mutex_);
  return first_ + started_.size();
}

std::optional<std::uint64_t> StepClock::due_ns(std::uint64_t s) const {
  if (s - first_ < due_.size()) return due_[s - first_];
  // On the wall clock a release still to come is planned (at the present pace).
  if (options_.clock == ClockSource::wall) return ns_since_start(wall_release(s));
  return std::nullopt;  // its tick has not come yet
}

void StepClock::committed(std::uint64_t s) {
  std::lock_guard lock(mutex_);
  s = std::min(s, last_);
  const std::uint64_t now = ns_since_start(Clock::now());
  while (first_ + committed_.size() <= s) {
    const std::uint64_t state = first_ + committed_.size();
    committed_.push_back(now);
    // On the wall clock every due time is known ahead; a tick that arrives later judges
    // the state itself (tick()).
    if (options_.clock == ClockSource::wall && now > *due_ns(state)) ++overruns_;
  }
}

std::uint64_t StepClock::tick() {
  std::lock_guard lock(mutex_);
  if (first_ + ticks_ >= last_) return ticks_;  // the run has all the steps it needs
  const std::uint64_t m = first_ + ticks_;
  ++ticks_;
  due_.push_back(ns_since_start(Clock::now()));
  // Step m starts from state m: not committed yet, the previous step is still running.
  if (first_ + committed_.size() <= m) ++overruns_;
  ticked_.notify_all();
  return ticks_;
}

std::optional<double> StepClock::lateness_s(std::uint64_t s, Clock::time_point at) const {
  std::lock_guard lock(mutex_);
  if (committed_.empty() || s < first_ || s > last_) return std::nullopt;  // not started
  const std::optional<std::uint64_t> due = due_ns(s);
  if (!due) return std::nullopt;
  return (static_cast<double>(ns_since_start(at)) - static_cast<double>(*due)) * 1e-9;
}

std::uint64_t StepClock::overruns() const {
  std::lock_guard lock(mutex_);
  return overruns_;
}

StepClock::Status StepClock::status() const {
  std::lock_guard lock(mutex_);
  return {ticks_, overruns_, first_ + committed_.size() - 1, last_};
}

MachineStalls StepClock::machine_stalls(const StallWatch::Record& record,
                                        std::uint64_t typical_step_ns) const {
  MachineStalls m;
  m.watched = true;
  m.preempts = record.preempts;
  m.cpus = record.cpus;
  m.threshold_s = std::chrono::duration<double>(StallWatch::threshold).count();
  m.samples = record.samples;
  m.stalls = record.stalls.size() + record.not_kept;
  for (const StallWatch::Stall& stall : record.stalls) {
    const double took = std::chrono::duration<double>(stall.end - stall.begin).count();
    m.over_1ms += took > 1e-3;
    m.longest_s = std::max(m.longest_s, took);
  }
  // A state late by L had its lateness arise in the last L, plus a typical step's time,
  // before it was due (no earlier than the release of the step that began its streak of late
  // states: a late step makes the next ones late until the run catches up), up to its
  // commit. A longer window would let stalls in the time the run waited for a release
  // explain a lateness they did not cause.
  const auto at = [this](std::uint64_t ns) { return start_ + std::chrono::nanoseconds(ns); };
  std::vector<StallWatch::Window> late;
  std::optional<std::uint64_t> streak_from;
  for (std::size_t k = 0; k < committed_.size(); ++k) {
    const std::optional<std::uint64_t> due = due_ns(first_ + k);
    if (!due || committed_[k] <= *due) {
      streak_from.reset();
      continue;
    }
    if (!streak_from) streak_from = (k > 0 ? due_ns(first_ + k - 1) : due).value_or(*due);
    const std::uint64_t lateness = committed_[k] - *due;
    const std::uint64_t reach = std::min(*due, lateness + typical_step_ns);
    late.push_back({at(std::max(*streak_from, *due - reach)), at(committed_[k]),
                    std::chrono::nanoseconds(lateness)});
  }
  m.overruns_machine = std::min(StallWatch::machine_made(late, record.stalls), overruns_);
  return m;
}

RealtimeFigures StepClock::figures(const StepTimings* work,
                                   const StallWatch::Record* machine) const {
  std::lock_guard lock(mutex_);
  RealtimeFigures f;
  f.clock = options_.clock;
  f.factor = options_.clock == ClockSource::wall ? first_factor_ : 0;
  f.wait = options_.wait;
  f.priority = options_.priority;
  f.budget_s = options_.clock == ClockSource::wall && first_factor_ > 0 ? h_ / first_factor_ : 0;
  f.ticks = ticks_;
  f.overruns = overruns_;
  std::vector<double> delay, step, compute, communication, load, lateness;
  for (std::size_t k = 0; k < started_.size(); ++k) {
    const std::uint64_t m = first_ + k;
    if (k < due_.size()) delay.push_back(seconds(started_[k] - std::min(started_[k], due_[k])));
    if (k + 1 >= committed_.size()) continue;  // not committed yet
    const std::uint64_t from = std::max(started_[k], committed_[k]);
    const std::uint64_t took = committed_[k + 1] - std::min(committed_[k + 1], from);
    step.push_back(seconds(took));
    // Without components (work null) the step is all compute; a step whose spans were lost
    // has no split.
    const std::optional<double> c = work ? work->compute_s(m + 1) : seconds(took);
    if (c) {
      compute.push_back(std::min(*c, seconds(took)));
      communication.push_back(seconds(took) - compute.back());
    }
    // The time it had: from its release to the next one (the last step: one period).
    if (k + 1 < due_.size())
      load.push_back(seconds(took) / std::max(1e-9, seconds(due_[k + 1] - due_[k])));
    else if (f.budget_s > 0)
      load.push_back(seconds(took) / f.budget_s);
  }
  for (std::size_t k = 1; k < committed_.size(); ++k)
    if (const auto due = due_ns(first_ + k))
      lateness.push_back(seconds(committed_[k]) - seconds(*due));
  f.start_delay_s = spread_of(std::move(delay));
  f.step_s = spread_of(std::move(step));
  f.compute_s = spread_of(std::move(compute));
  f.communication_s = spread_of(std::move(communication));
  f.load = spread_of(std::move(load));
  f.lateness_s = spread_of(std::move(lateness));
  if (work) f.components = work->timings();
  if (machine) f.machine = machine_stalls(*machine, static_cast<std::uint64_t>(f.step_s.p50 * 1e9));
  return f;
}

}  // namespace kausal
