#include "monitor/sync/sequential.hpp"

#include <unistd.h>

#include "integrator/pendulum_block.hpp"

namespace kausal {

SequentialStepper::SequentialStepper(const Scenario& scenario)
    : scenario_(scenario), work_(PendulumState{}) {
  for (const auto& p : scenario.chain.pendulums) coefficients_.push_back(coefficients_of(p));
}

void SequentialStepper::step_all(std::uint64_t m, std::span<PendulumState> states) {
  step_pendulums(scenario_.method, coefficients_, step_time(scenario_.t0(), scenario_.h, m),
                 scenario_.h, states, work_);
  calc_calls_ += states.size() * static_cast<std::uint64_t>(calcs_per_step(scenario_.method));
}

void SequentialStepper::apply_impulse(std::size_t i, std::uint64_t, double impulse,
                                      std::span<PendulumState> states) {
  apply_pendulum_impulse(scenario_.chain.pendulums[i], impulse, states[i].data());
}

ComponentReport sequential_report(std::uint64_t start_ns, std::uint64_t end_ns,
                                  std::uint64_t calc_calls) {
  ComponentReport r{"sequential",
                    ComponentRole::sequential,
                    "local",
                    static_cast<long>(getpid()),
                    true,
                    {},
                    -1,
                    {},
                    0,
                    {}};
  r.totals.busy_s = static_cast<double>(end_ns - start_ns) * 1e-9;
  r.totals.calc_calls = calc_calls;
  r.spans.push_back({start_ns, end_ns, ActivityKind::busy, {}});
  return r;
}

ComponentReport monitor_report(const ActivityClock& clock) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const ActivityTrace& trace = clock.trace();
  return {"monitor",
          ComponentRole::monitor,
          host,
          static_cast<long>(getpid()),
          true,
          clock.totals(),
          -1,
          trace.page(0, trace.recorded()),
          trace.dropped(),
          {}};
}

std::vector<ComponentReport> SequentialStepper::reports() {
  return {sequential_report(monotonic_ns(start_), monotonic_ns(std::chrono::steady_clock::now()),
                            calc_calls_)};
}

}  // namespace kausal
