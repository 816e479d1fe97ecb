#pragma once
// What the driver tells the outside world while it runs, and how it learns to stop.
#include <atomic>
#include <cstdint>

namespace kausal {

class RunControl {
 public:
  virtual ~RunControl() = default;
  // Called after every committed step, on the driver's thread; cheap implementations only.
  virtual void progress(std::uint64_t /*step*/, std::uint64_t /*total*/) {}
  // May be asked from any thread of the run (a paced run's releaser, the clock's waits).
  virtual bool stop_requested() const { return false; }
};

// Stops a run once its progress (a chain's committed step, a partitioned model's horizon
// in ticks) reaches `at`: the feasibility probe's first steps, a test's cut.
class StopAt final : public RunControl {
 public:
  explicit StopAt(std::uint64_t at) : at_(at) {}
  void progress(std::uint64_t step, std::uint64_t) override {
    reached_.store(step, std::memory_order_relaxed);
  }
  bool stop_requested() const override { return reached_.load(std::memory_order_relaxed) >= at_; }

 private:
  std::uint64_t at_;
  std::atomic<std::uint64_t> reached_{0};
};

// Set from a signal handler (Ctrl-C); the driver stops at the next step boundary.
class InterruptFlag : public RunControl {
 public:
  static std::atomic<bool>& flag();
  bool stop_requested() const override { return flag().load(std::memory_order_relaxed); }
};

}  // namespace kausal
