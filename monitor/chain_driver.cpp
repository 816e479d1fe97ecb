#include "monitor/chain_driver.hpp"

#include <unistd.h>
#include <chrono>
#include <optional>

#include "integrator/stepper.hpp"

namespace kausal {
namespace {

std::string host_name() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

}  // namespace

std::uint64_t step_chain(const Scenario& s, ChainStepper& stepper, std::uint64_t m,
                         std::span<PendulumState> states, ActivityClock* monitor) {
  stepper.step_all(m, states);
  std::optional<BusyScope> busy;
  if (monitor) busy.emplace(*monitor);
  return resolve_impacts(s.chain, states, m + 1, [&](std::size_t i, double impulse) {
    stepper.apply_impulse(i, m + 1, impulse, states);
  });
}

RunResult describe_run(const Scenario& s, const std::string& method) {
  RunResult r;
  r.method = method;
  r.model = s.model;
  r.scenario = s.file;
  r.integrator = std::string(method_name(s.method));
  r.pendulums = s.pendulums();
  r.h = s.h;
  r.planned_steps = s.steps;
  return r;
}

RunResult failed_before_start(const Scenario& s, const std::string& method, const Error& e) {
  RunResult r = describe_run(s, method);
  r.status = "failed";
  r.error = e.what();
  r.exit_code = e.exit_code();
  return r;
}

RunResult drive_chain(const Scenario& s, const std::string& method, ChainStepper& stepper,
                      TrajectoryRecorder& recorder, RunControl& control) {
  RunResult r = describe_run(s, method);

  // The in-process reference runs in this thread: no separate monitor timing (two clock
  // reads per step would cost more than the step).
  ActivityClock monitor_clock;
  ActivityClock* monitor = stepper.in_monitor_thread() ? nullptr : &monitor_clock;
  const auto start = std::chrono::steady_clock::now();
  std::vector<PendulumState> states = s.initial;
  try {
    recorder.commit(0, states);
    for (std::uint64_t m = 0; m < s.steps; ++m) {
      if (control.stop_requested()) throw Interrupted();
      r.collisions += step_chain(s, stepper, m, states, monitor);
      recorder.commit(m + 1, states);
      r.steps = m + 1;
      control.progress(m + 1, s.steps);
    }
  } catch (const Error& e) {
    r.status = e.exit_code() == ExitCode::interrupted ? "interrupted" : "failed";
    r.error = e.what();
    r.exit_code = e.exit_code();
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  recorder.flush();
  r.trajectory_sha256 = recorder.digest();
  r.messages = stepper.messages();
  if (monitor)
    r.components.push_back({"monitor", "monitor", host_name(), static_cast<long>(getpid()), true,
                            monitor_clock.totals()});
  for (auto& c : stepper.reports()) {
    // Calc calls are counted where the model is evaluated: by Systems, or by the
    // sequential reference that evaluates every model itself.
    if (c.role == "system" || c.role == "sequential") r.calc_calls += c.totals.calc_calls;
    r.components.push_back(std::move(c));
  }
  return r;
}

}  // namespace kausal
