#pragma once
// What someone outside may do to a paced run while it goes (docs/realtime.md): inject (push
// a pendulum, set a partition's constant input or parameter, stop), read committed values,
// change the pace. The servant (monitor/deploy/operator_servant.hpp) puts it on the wire for
// kausal inject, the animation's buttons and controllers in the loop; tests call it here.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "monitor/core/readout.hpp"
#include "monitor/sync/injections.hpp"
#include "monitor/sync/step_clock.hpp"

namespace kausal {

class Operator {
 public:
  // Throws InputError for an injection the run's model cannot take (check_injection,
  // monitor/run/injection_check.hpp).
  using Check = std::function<void(const Injection&)>;

  Operator(Check check, Injections& injections, const Readout& readout, StepClock& clock);

  // Each returns the step the injection takes effect at; InputError if refused.
  std::uint64_t push(std::uint64_t pendulum, double impulse);
  std::uint64_t set(const std::string& target, double value);
  std::uint64_t send(const std::string& target, double value);
  std::uint64_t stop();
  Readout::Reading read(const std::vector<std::string>& names) const;
  // Simulated seconds per wall second from now on; 0: as fast as the run goes.
  void pace(double factor);

 private:
  std::uint64_t inject(Injection injection);

  const Check check_;
  Injections& injections_;
  const Readout& readout_;
  StepClock& clock_;
};

}  // namespace kausal
