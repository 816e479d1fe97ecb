#include "monitor/run/injection_check.hpp"

#include <charconv>
#include <cmath>

#include "common/errors.hpp"
#include "monitor/scenario/scenario_limits.hpp"
#include "monitor/sync/event_run.hpp"
#include "system/composite_model.hpp"

namespace kausal {
namespace {

void check_push(const Scenario& s, const Injection& i) {
  std::uint64_t pendulum = 0;
  const char* end = i.target.data() + i.target.size();
  const auto parsed = std::from_chars(i.target.data(), end, pendulum);
  if (parsed.ec != std::errc() || parsed.ptr != end || pendulum < 1 || pendulum > s.pendulums())
    throw InputError("push: no pendulum '" + i.target + "' (the chain has pendulums 1 to " +
                     std::to_string(s.pendulums()) + ")");
  // The chain's steps must resolve its motion: a push that alone turns the pendulum by more
  // than a radian per step would make its contacts unresolvable (and 1e308 overflows the
  // next impact's impulse), so it is refused here rather than failing the run later.
  const PendulumParams& p = s.chain.pendulums[pendulum - 1];
  const double turn_per_step = std::abs(i.value) / (p.mass * p.length) * s.h;
  if (!(turn_per_step <= 1))
    throw InputError("push: an impulse of " + format_number(i.value) + " turns pendulum " +
                     i.target + " by " + format_number(turn_per_step) +
                     " rad per step (h = " + format_number(s.h) +
                     " s); the chain's steps resolve at most 1 rad: push with at most " +
                     format_number(p.mass * p.length / s.h));
}

// The partition's own model takes the change (or says why not) on a copy built here.
void check_set(const PartitionedScenario& s, const Injection& i) {
  const std::size_t dot = i.target.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == i.target.size())
    throw InputError("set: '" + i.target + "' must be SUBSYSTEM.NAME (an input or a parameter)");
  const std::string member = i.target.substr(0, dot);
  for (const SubsystemSpec& sub : s.subsystems) {
    if (sub.name != member) continue;
    try {
      build_partition_model(s, sub.partition)
          ->change({member, i.target.substr(dot + 1), i.value, 0});
    } catch (const ModelError& e) {
      throw InputError("set " + i.target + ": " + e.reason());
    }
    return;
  }
  std::string known;
  for (const SubsystemSpec& sub : s.subsystems) known += (known.empty() ? "" : ", ") + sub.name;
  throw InputError("set: no subsystem '" + member + "' (the model has " + known + ")");
}

}  // namespace

void check_injection(const RunModel& model, const Injection& i) {
  if (!std::isfinite(i.value))
    throw InputError(std::string(name_of(i.kind)) + ": the value is not finite");
  if (i.kind == InjectionKind::stop) return;
  if (const auto* events = std::get_if<EventsModel>(&model)) {
    if (i.kind != InjectionKind::send)
      throw InputError(std::string(name_of(i.kind)) +
                       ": a discrete-event model takes events (send one), no pushes or sets");
    event_address(*events->scenario->built, i.target);
    return;
  }
  if (i.kind == InjectionKind::send)
    throw InputError("send: only a discrete-event model takes events");
  if (const auto* chain = std::get_if<ChainModel>(&model)) {
    if (i.kind != InjectionKind::push)
      throw InputError("set: a pendulum chain has no inputs or parameters to set (push one)");
    return check_push(*chain->scenario, i);
  }
  if (i.kind != InjectionKind::set)
    throw InputError("push: a partitioned model has no pendulums (set an input or a parameter)");
  check_set(*std::get<PartitionedModel>(model).scenario, i);
}

}  // namespace kausal
