#include "system/events/repair_crew.hpp"

#include <cmath>

#include "common/errors.hpp"

namespace kausal::des {

namespace {
constexpr ComponentId the_crew = 0;
}  // namespace

RepairCrew::RepairCrew(const RepairCrewParameters& p) : p_(p) {
  if (p_.machines < 1 || p_.machines > 1000)
    throw InputError("repair-crew: machines must be between 1 and 1000");
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

std::optional<double> RepairCrew::lookahead(ComponentId from, ComponentId to) const {
  if (from != the_crew) return std::nullopt;
  if (to == the_crew) return p_.min_repair;
  if (to <= 2 * p_.machines) return 0.0;  // its ports: components() + port
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
  const double time = p_.min_repair + context.random().exponential(p_.mean_repair - p_.min_repair);
  context.send(the_crew, time, repaired(), machine);
}

void RepairCrew::handle(const Event& event, EventContext& context) const {
  if (event.kind < p_.machines) {  // a failure: stop the machine, repair it or queue it
    const std::uint32_t machine = event.kind;
    command(context, machine, false, 0.0);
    if (context.value(busy) == 0) return start_repair(context, machine);
    const auto waiting = static_cast<std::uint32_t>(context.value(queued));
    if (waiting >= p_.machines) throw ModelError("crew", "a queue longer than the machines");
    context.set_value(queue + waiting, machine);
    context.set_value(queued, waiting + 1);
    return;
  }
  if (event.kind != repaired() || !(event.value >= 0 && event.value < p_.machines))
    throw ModelError("crew", "no event kind " + std::to_string(event.kind));
  const auto machine = static_cast<std::uint32_t>(event.value);
  context.set_value(repairs, context.value(repairs) + 1);
  command(context, machine, true, 0.0);
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
  return kind == repaired() ? "repaired" : "event " + std::to_string(kind);
}

std::optional<std::uint32_t> RepairCrew::kind_named(const std::string& name) const {
  for (std::uint32_t k = 0; k < p_.machines; ++k)
    if (name == "failure-" + std::to_string(k + 1)) return k;
  return std::nullopt;
}

}  // namespace kausal::des
