#pragma once
// What each partition's steps cost, and what that says about the partitioning (`kausal
// analyze`, its "load" table; docs/experiments.md, "Load: which partition to split or
// merge"): a partition's work per simulated second is the CPU time of its step divided by
// its step size; the largest share bounds what running the partitions side by side can gain,
// and a step cheaper than a call between processes gains nothing from a process of its own.
#include <chrono>
#include <string>
#include <vector>

#include "integrator/ode_method.hpp"

namespace kausal {

struct PartitionedScenario;

struct PartitionLoad {
  std::string name;
  std::vector<std::string> members;
  double h = 0;                                // s
  double step_us = 0;                          // CPU time of one step, µs
  double work() const { return step_us / h; }  // µs of CPU per simulated second
};

// What the cheapest call between two processes costs on the project's 2-core machine, µs of
// CPU (docs/performance.md, "Why the release tests cost what they cost on this host").
inline constexpr double kRoundTripUs = 25;

// The CPU time of one step, µs: `stepper` stepping f from x0 with step h, at most `most`
// steps or about `budget` of wall time. A step that throws starts it again from x0.
double step_cost_us(OdeStepper& stepper, RightHandSide& f, const Vector& x0, double h,
                    std::uint64_t most, std::chrono::milliseconds budget);

// Times each partition of `s`: its integrator stepping its model alone from its initial
// state, its inputs held at 0, for about `budget` of wall time (or its whole run). A model
// that fails so (its inputs matter) is started again from its initial state.
std::vector<PartitionLoad> measure_loads(const PartitionedScenario& s,
                                         std::chrono::milliseconds budget);

// The table and the advice it supports, from the loads alone.
std::string format_load_report(const std::vector<PartitionLoad>& loads,
                               double round_trip_us = kRoundTripUs);

}  // namespace kausal
