#pragma once
// Busy / idle / rollback accounting of one component (design.md §3 "What a run reports").
#include <chrono>
#include <cstdint>

#include "system/activity_trace.hpp"

namespace kausal {

struct ActivityTotals {
  double busy_s = 0;
  double idle_s = 0;
  double rollback_s = 0;
  std::uint64_t calc_calls = 0;
  std::uint64_t requests = 0;
  std::uint64_t state_list_peak = 0;  // Integrators only
  double calc_wait_s = 0;             // Integrators: waiting for their System (Calc, events)
};

class ActivityClock {
 public:
  using Clock = std::chrono::steady_clock;

  ActivityClock() : start_(Clock::now()) {}

  // Counts [begin, end) as busy or rollback time and records it in the trace; `step` tags
  // the work of one Integrator step (see ActivityTrace::mark_rolled_back_after).
  void add(ActivityKind kind, Clock::time_point begin, Clock::time_point end,
           std::uint64_t step = ActivityTrace::untagged) {
    if (end <= begin) return;
    (kind == ActivityKind::busy ? busy_ : rollback_) += end - begin;
    trace_.record(kind, monotonic_ns(begin), monotonic_ns(end), step);
  }
  // Time counted as busy that turned out to be wasted (its steps were rolled back). The
  // trace is corrected separately, by step tags.
  void reclassify_as_rollback(Clock::duration d) {
    busy_ -= d;
    rollback_ += d;
  }
  void mark_rolled_back_after(std::uint64_t step) { trace_.mark_rolled_back_after(step); }
  const ActivityTrace& trace() const { return trace_; }
  void count_calc(std::uint64_t n = 1) { calc_calls_ += n; }
  void count_request() { ++requests_; }

  // Idle is whatever of the lifetime was neither busy nor rolling back.
  ActivityTotals totals() const {
    using std::chrono::duration;
    const auto life = Clock::now() - start_;
    ActivityTotals t;
    t.busy_s = duration<double>(busy_).count();
    t.rollback_s = duration<double>(rollback_).count();
    t.idle_s = duration<double>(life - busy_ - rollback_).count();
    t.calc_calls = calc_calls_;
    t.requests = requests_;
    return t;
  }

 private:
  Clock::time_point start_;
  Clock::duration busy_{};
  Clock::duration rollback_{};
  std::uint64_t calc_calls_ = 0;
  std::uint64_t requests_ = 0;
  ActivityTrace trace_;
};

// Adds the time of a scope to a clock's busy time.
class BusyScope {
 public:
  explicit BusyScope(ActivityClock& clock) : clock_(clock), start_(ActivityClock::Clock::now()) {}
  ~BusyScope() { clock_.add(ActivityKind::busy, start_, ActivityClock::Clock::now()); }
  BusyScope(const BusyScope&) = delete;
  BusyScope& operator=(const BusyScope&) = delete;

 private:
  ActivityClock& clock_;
  ActivityClock::Clock::time_point start_;
};

}  // namespace kausal
