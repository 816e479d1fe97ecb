#pragma once
// The newest committed values of a run by name, for whoever reads them while it goes (the
// Operator's read(): a controller in the loop, docs/realtime.md). An observer of every
// commit, read from outside: guarded by a mutex, cheap on both sides.
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "monitor/core/commit_observer.hpp"

namespace kausal {

class Readout final : public CommitObserver {
 public:
  // One unit per source of values (a chain: one; a partitioned model: one per partition),
  // each with the names of its values; time t0 + step·tick. A partition's steps are
  // ticks_per_step[unit] ticks long (empty: one tick each).
  Readout(std::vector<std::vector<std::string>> names, double t0, double tick,
          std::vector<std::uint64_t> ticks_per_step = {});

  // A chain: every pendulum's (phi, omega) in one unit.
  void committed(std::uint64_t step, std::span<const PendulumState> states,
                 std::uint64_t collisions) override;
  void resumed(std::uint64_t step, std::span<const PendulumState> states,
               std::uint64_t /*collisions*/) override;
  // A partition: the newest final state and outputs (the batch's last step).
  void delivered(std::size_t p, const StateBatch& batch, const RoutedSamples& routed) override;

  // Unit `unit` has committed `step` (in ticks) with these values, in the order of its names
  // (a longer span: the first ones).
  void update(std::size_t unit, std::uint64_t step, std::span<const double> values);

  struct Reading {
    std::uint64_t step = 0;  // the oldest of the units read (all of them are committed there)
    double t = 0;
    std::vector<double> values;
  };
  // InputError naming an unknown name (and what can be read).
  Reading read(const std::vector<std::string>& names) const;

 private:
  struct Unit {
    std::vector<std::string> names;
    std::vector<double> values;
    std::uint64_t step = 0;
  };
  const double t0_, tick_;
  const std::vector<std::uint64_t> ticks_per_step_;
  mutable std::mutex mutex_;
  std::vector<Unit> units_;
};

}  // namespace kausal
