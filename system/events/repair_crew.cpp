#include "system/events/repair_crew.hpp"

#include <cmath>

#include "common/errors.hpp"

namespace kausal::des {

RepairCrew::RepairCrew(const RepairCrewParameters& p) : p_(p) {
  if (p_.machines < 1 || p_.machines > 1000)
    throw InputError("repair-crew: machines must be between 1 and 1000");
  if (p_.crews < 1 || p_.crews > p_.machines)
    throw InputError("repair-crew: crews must be between 1 and the machines");
  if (!(p_.handover >= 0) || !std::isfinite(p_.handover))
    throw InputError("repair-crew: handover must be finite and >= 0");
  if (!(p_.min_repair >= 0) || !(p_.mean_repair >= p_.min_repair) || !std::isfinite(p_.mean_repair))
    throw InputError("repair-crew: need 0 <= min_repair <= mean_repair, both finite");
}

// Ports: run-1, reset-1, run-2, reset-2, ... (run-K is 2(K−1), reset-K 2(K−1) + 1).
std::vector<std::string> RepairCrew::ports() const {
  std::vector<std::string> names;
  for (std::uint32_t k = 1; k <= p_.machines; ++k) {
    names.push_back("run-" + std::to_string(k));
    names.push_back("reset-" + std::to_string(k));
  }
  return names;
}

std::string RepairCrew::component_name(ComponentId id) const {
  return p_.crews == 1 ? "crew" : "crew-" + std::to_string(id + 1);
}

std::optional<double> RepairCrew::lookahead(ComponentId from, ComponentId to) const {
  if (from >= p_.crews) return std::nullopt;
  if (to == from) return p_.min_repair;
  if (to < p_.crews) return to == next_crew(from) ? std::optional(p_.handover) : std::nullopt;
  if (to < p_.crews + 2 * p_.machines) return 0.0;  // the ports: components() + port
  return std::nullopt;
}

ComponentState RepairCrew::initial_state(ComponentId id) const {
  ComponentState s{{}, RandomStream(p_.seed, id), 0};
  s.values.assign(queue + p_.machines, 0.0);
  return s;
}

void RepairCrew::command(EventContext& context, std::uint32_t machine, bool reset,
                         double value) const {
  context.send(static_cast<ComponentId>(components() + 2 * machine + (reset ? 1 : 0)), 0.0, 0,
               value);
}

void RepairCrew::start_repair(EventContext& context, std::uint32_t machine) const {
  context.set_value(busy, 1);
  if (p_.reset_at_start) command(context, machine, true, 0.0);
  const double time = p_.min_repair + context.random().exponential(p_.mean_repair - p_.min_repair);
  context.send(context.component(), time, repaired(), machine);
}

// A machine this crew repairs: at once when it is free, else after those queued before it.
void RepairCrew::take(EventContext& context, std::uint32_t machine) const {
  if (context.value(busy) == 0) return start_repair(context, machine);
  const auto waiting = static_cast<std::uint32_t>(context.value(queued));
  if (waiting >= p_.machines)
    throw ModelError(component_name(context.component()), "a queue longer than the machines");
  context.set_value(queue + waiting, machine);
  context.set_value(queued, waiting + 1);
}

void RepairCrew::handle(const Event& event, EventContext& context) const {
  if (event.kind < p_.machines) {  // a failure: stop the machine; repair, queue or pass it on
    const std::uint32_t machine = event.kind;
    command(context, machine, false, 0.0);
    if (context.value(queued) != 0 && p_.crews > 1)
      return context.send(next_crew(context.component()), p_.handover, handed(), machine);
    return take(context, machine);
  }
  if (!(event.value >= 0 && event.value < p_.machines))
    throw ModelError(component_name(context.component()),
                     "no machine " + std::to_string(event.value));
  const auto machine = static_cast<std::uint32_t>(event.value);
  if (event.kind == handed()) return take(context, machine);
  if (event.kind != repaired())
    throw ModelError(component_name(context.component()),
                     "no event kind " + std::to_string(event.kind));
  context.set_value(repairs, context.value(repairs) + 1);
  if (!p_.reset_at_start) command(context, machine, true, 0.0);
  command(context, machine, false, 1.0);
  const auto waiting = static_cast<std::uint32_t>(context.value(queued));
  if (waiting == 0) return context.set_value(busy, 0);
  const auto next = static_cast<std::uint32_t>(context.value(queue));
  for (std::uint32_t k = 1; k < waiting; ++k)
    context.set_value(queue + k - 1, context.value(queue + k));
  context.set_value(queued, waiting - 1);
  start_repair(context, next);
}

std::string RepairCrew::kind_name(std::uint32_t kind) const {
  if (kind < p_.machines) return "failure-" + std::to_string(kind + 1);
  if (kind == repaired()) return "repaired";
  return kind == handed() ? "handover" : "event " + std::to_string(kind);
}

std::optional<std::uint32_t> RepairCrew::kind_named(const std::string& name) const {
  for (std::uint32_t k = 0; k < p_.machines; ++k)
    if (name == "failure-" + std::to_string(k + 1)) return k;
  return std::nullopt;
}

}  // namespace kausal::des
