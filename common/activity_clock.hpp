#pragma once
// Busy / idle / rollback accounting of one component (docs/model.md §3 "What a run reports").
#include <chrono>
#include <cstdint>

#include "common/activity_trace.hpp"

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

  // Counts [begin, end) as busy or rollback time and records it in the trace; the tag's
  // step marks the work of one Integrator step (see ActivityTrace::mark_rolled_back_after).
  // A call span (a whole request, waits included) only goes to the trace.
  void add(ActivityKind kind, Clock::time_point begin, Clock::time_point end, SpanTag tag = {}) {
    if (end <= begin) return;
    if (kind == ActivityKind::busy) busy_ += end - begin;
    if (kind == ActivityKind::rollback) rollback_ += end - begin;
    trace_.record(kind, monotonic_ns(begin), monotonic_ns(end), tag);
  }
  // Time counted as busy that turned out to be wasted (its steps were rolled back). The
  // trace is corrected separately, by step tags.
  void reclassify_as_rollback(Clock::duration d) {
    busy_ -= d;
    rollback_ += d;
  }
  void mark_rolled_back_after(std::uint64_t step) { trace_.mark_rolled_back_after(step); }
  ActivityTrace& trace() { return trace_; }
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

// Adds the time of a scope to a clock's busy time, as the work of one call.
class BusyScope {
 public:
  explicit BusyScope(ActivityClock& clock, SpanTag tag = {})
      : clock_(clock), tag_(tag), start_(ActivityClock::Clock::now()) {}
  ~BusyScope() { clock_.add(ActivityKind::busy, start_, ActivityClock::Clock::now(), tag_); }
  BusyScope(const BusyScope&) = delete;
  BusyScope& operator=(const BusyScope&) = delete;

 private:
  ActivityClock& clock_;
  SpanTag tag_;
  ActivityClock::Clock::time_point start_;
};

// Records a whole request (waits for peers included) as a call span of the clock's trace.
class CallScope {
 public:
  CallScope(ActivityClock& clock, SpanTag tag)
      : clock_(clock), tag_(tag), start_(ActivityClock::Clock::now()) {}
  ~CallScope() { clock_.add(ActivityKind::call, start_, ActivityClock::Clock::now(), tag_); }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

 private:
  ActivityClock& clock_;
  SpanTag tag_;
  ActivityClock::Clock::time_point start_;
};

}  // namespace kausal
