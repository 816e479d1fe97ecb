#pragma once
// When an FMU's time-based input Clocks tick (FMI 3.0 §2.2.9; docs/fmi.md, "Clocks"). Periodic
// Clocks (constant, fixed, tunable) tick at base + n·interval, n = 0, 1, ... counted, never
// accumulated; aperiodic ones (changing, countdown) at the one time the FMU last gave. Plain
// C++: the FMU calls that ask for intervals are the model adapter's (fmu_model.cpp).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace kausal::fmu {

class ClockSchedule {
 public:
  ClockSchedule() = default;
  explicit ClockSchedule(std::size_t clocks) : clocks_(clocks) {}

  std::size_t size() const { return clocks_.size(); }
  // Clock k ticks at base, base + interval, ... (interval > 0), from now on.
  void periodic(std::size_t k, double base, double interval);
  // Clock k ticks once, at `at`, then not until told again.
  void once(std::size_t k, double at);
  void stop(std::size_t k);  // no tick known

  // The earliest tick to come (+inf if none).
  double next() const;
  // The Clocks whose tick is at or before t, or within `tolerance(t)` after it (a tick a
  // rounding error past a step's end is at its end).
  std::vector<std::size_t> due(double t) const;
  // Clock k ticked: a periodic one moves on by its interval, an aperiodic one stops.
  void ticked(std::size_t k);

  // The schedule as bytes (fixed size per Clock) and back; restore throws
  // std::invalid_argument for bytes of another size.
  std::vector<std::uint8_t> save() const;
  void restore(std::span<const std::uint8_t> bytes);
  static constexpr std::size_t bytes_per_clock = 25;

  static double tolerance(double t);

 private:
  struct Entry {
    double base = 0, interval = 0;
    std::uint64_t ticks = 0;  // periodic: ticks taken since base
    bool periodic = false, scheduled = false;
    double at() const { return periodic ? base + static_cast<double>(ticks) * interval : base; }
  };
  std::vector<Entry> clocks_;
};

}  // namespace kausal::fmu
