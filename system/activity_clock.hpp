#pragma once
// Busy / idle / rollback accounting of one component (design.md §3 "What a run reports").
#include <chrono>
#include <cstdint>

namespace kausal {

struct ActivityTotals {
  double busy_s = 0;
  double idle_s = 0;
  double rollback_s = 0;
  std::uint64_t calc_calls = 0;
  std::uint64_t requests = 0;
  std::uint64_t state_list_peak = 0;  // Integrators only
};

class ActivityClock {
 public:
  using Clock = std::chrono::steady_clock;

  ActivityClock() : start_(Clock::now()) {}

  void add_busy(Clock::duration d) { busy_ += d; }
  // Time counted as busy that turned out to be wasted (its steps were rolled back).
  void reclassify_as_rollback(Clock::duration d) {
    busy_ -= d;
    rollback_ += d;
  }
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
};

// Adds the time of a scope to a clock's busy time.
class BusyScope {
 public:
  explicit BusyScope(ActivityClock& clock) : clock_(clock), start_(ActivityClock::Clock::now()) {}
  ~BusyScope() { clock_.add_busy(ActivityClock::Clock::now() - start_); }
  BusyScope(const BusyScope&) = delete;
  BusyScope& operator=(const BusyScope&) = delete;

 private:
  ActivityClock& clock_;
  ActivityClock::Clock::time_point start_;
};

}  // namespace kausal
