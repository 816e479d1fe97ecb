#include "monitor/sync/operator.hpp"

namespace kausal {

Operator::Operator(Check check, Injections& injections, const Readout& readout, StepClock& clock)
    : check_(std::move(check)), injections_(injections), readout_(readout), clock_(clock) {}

std::uint64_t Operator::inject(Injection injection) {
  check_(injection);
  return injections_.request(std::move(injection));
}

std::uint64_t Operator::push(std::uint64_t pendulum, double impulse) {
  return inject({InjectionKind::push, 0, std::to_string(pendulum), impulse});
}

std::uint64_t Operator::set(const std::string& target, double value) {
  return inject({InjectionKind::set, 0, target, value});
}

std::uint64_t Operator::send(const std::string& target, double value) {
  return inject({InjectionKind::send, 0, target, value});
}

std::uint64_t Operator::stop() {
  return inject({InjectionKind::stop, 0, "", 0});
}

Readout::Reading Operator::read(const std::vector<std::string>& names) const {
  return readout_.read(names);
}

void Operator::pace(double factor) {
  clock_.pace(factor);
}

}  // namespace kausal
