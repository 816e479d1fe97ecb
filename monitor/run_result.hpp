#pragma once
// What a run reports (design.md §3): written to summary.json and shown on the terminal.
#include <cstdint>
#include <string>
#include <vector>

#include "system/activity_clock.hpp"
#include "system/errors.hpp"

namespace kausal {

struct ComponentReport {
  std::string name;  // "monitor", "integrator-3", "system-3", "sequential"
  std::string role;
  std::string host;
  long pid = 0;
  bool reachable = true;  // false: it died or hung before its timing could be read
  ActivityTotals totals;
  int cpu = -1;  // the CPU it was pinned to, -1 if not pinned
};

struct RunResult {
  std::string method;
  std::string model;
  std::string scenario;
  std::string integrator;
  std::size_t pendulums = 0;
  double h = 0;
  std::uint64_t planned_steps = 0;
  std::uint64_t steps = 0;  // committed steps (== planned_steps when completed)
  double wall_s = 0;
  std::uint64_t calc_calls = 0;
  std::uint64_t collisions = 0;
  std::uint64_t messages = 0;      // requests the monitor sent to other processes
  std::string placement = "none";  // "cores": components and fan-out lanes pinned per CPU
  std::string trajectory_sha256;
  std::vector<ComponentReport> components;

  std::string status = "completed";  // "completed" | "failed" | "interrupted"
  std::string error;
  ExitCode exit_code = ExitCode::ok;
};

}  // namespace kausal
