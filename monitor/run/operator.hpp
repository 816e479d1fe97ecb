#pragma once
// What someone outside may do to a paced run while it goes (docs/realtime.md): inject (push
// a pendulum, set a partition's constant input or parameter, stop), read committed values,
// change the pace. The servant (monitor/deploy/operator_servant.hpp) puts it on the wire for
// kausal inject, the animation's buttons and controllers in the loop; tests call it here.
#include <cstdint>
#include <string>
#include <vector>

#include "monitor/record/readout.hpp"
#include "monitor/run/run.hpp"
#include "monitor/sync/injections.hpp"
#include "monitor/sync/step_clock.hpp"

namespace kausal {

// Whether `model` can take the injection: a push names one of a chain's pendulums (1-based),
// a set one of a partitioned model's subsystems and a constant input or parameter the model
// accepts the value for, every value finite. InputError saying what is wrong.
void check_injection(const RunModel& model, const Injection& injection);

class Operator {
 public:
  Operator(const RunModel& model, Injections& injections, const Readout& readout, StepClock& clock);

  // Each returns the step the injection takes effect at; InputError if refused.
  std::uint64_t push(std::uint64_t pendulum, double impulse);
  std::uint64_t set(const std::string& target, double value);
  std::uint64_t stop();
  Readout::Reading read(const std::vector<std::string>& names) const;
  // Simulated seconds per wall second from now on; 0: as fast as the run goes.
  void pace(double factor);

 private:
  std::uint64_t inject(Injection injection);

  const RunModel& model_;
  Injections& injections_;
  const Readout& readout_;
  StepClock& clock_;
};

}  // namespace kausal
