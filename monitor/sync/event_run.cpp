#include "monitor/sync/event_run.hpp"

#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <thread>

#include "integrator/events/event_recorder.hpp"
#include "system/errors.hpp"

namespace kausal {

using namespace des;

void check_event_run(const EventModel& model, const EventRunSpec& spec) {
  if (model.components() == 0) throw InputError(model.name() + ": the model has no components");
  if (!(std::isfinite(spec.end) && spec.end > 0))
    throw InputError("end: must be a positive, finite time");
  if (spec.method != SyncMethod::sequential &&
      (spec.groups < 1 || spec.groups > model.components()))
    throw InputError("groups: must be between 1 and the number of components (" +
                     std::to_string(model.components()) + ")");
  if (spec.window && !(*spec.window > 0)) throw InputError("window: must be positive");
  if (spec.batch < 1) throw InputError("batch: must be at least 1");
  if (spec.gvt_interval < 1) throw InputError("gvt_interval: must be at least 1");
}

GroupSettings group_settings(const EventModel& model, const EventRunSpec& spec) {
  GroupSettings settings;
  settings.sync =
      spec.method == SyncMethod::optimistic ? GroupSync::optimistic : GroupSync::conservative;
  settings.end = spec.end;
  settings.window = spec.window ? *spec.window : default_window(model);
  settings.saving = spec.saving;
  settings.cancellation = spec.cancellation;
  settings.batch = spec.batch;
  settings.gvt_interval = spec.gvt_interval;
  return settings;
}

std::string group_name(const EventModel& model, const std::vector<GroupId>& owner, GroupId g) {
  std::vector<ComponentId> members;
  for (ComponentId c = 0; c < owner.size(); ++c)
    if (owner[c] == g) members.push_back(c);
  if (members.empty()) return "group-" + std::to_string(g);
  if (members.size() == 1) return model.component_name(members.front());
  return "group-" + std::to_string(g) + " (" + model.component_name(members.front()) + " … " +
         model.component_name(members.back()) + ")";
}

std::vector<GroupId> contiguous_groups(std::size_t components, std::uint32_t groups) {
  std::vector<GroupId> owner(components);
  const std::size_t base = components / groups, larger = components % groups;
  std::size_t c = 0;
  for (GroupId g = 0; g < groups; ++g)
    for (std::size_t n = 0; n < base + (g < larger ? 1 : 0); ++n) owner[c++] = g;
  return owner;
}

double default_window(const EventModel& model) {
  double smallest = std::numeric_limits<double>::infinity();
  const auto n = static_cast<ComponentId>(model.components());
  for (ComponentId i = 0; i < n; ++i)
    for (ComponentId j = 0; j < n; ++j)
      if (const auto l = model.lookahead(i, j); l && *l > 0) smallest = std::min(smallest, *l);
  return 4 * smallest;
}

des::ComponentFigures EventRunResult::total() const {
  ComponentFigures sum;
  for (const auto& c : components) {
    sum.processed += c.processed;
    sum.committed += c.committed;
    sum.rolled_back += c.rolled_back;
    sum.rollbacks += c.rollbacks;
    sum.stragglers += c.stragglers;
    sum.anti_messages += c.anti_messages;
  }
  return sum;
}

double EventRunResult::committed_per_second() const {
  return wall_seconds > 0 ? static_cast<double>(total().committed) / wall_seconds : 0.0;
}

double EventRunResult::efficiency() const {
  const auto sum = total();
  return sum.processed ? static_cast<double>(sum.committed) / static_cast<double>(sum.processed)
                       : 1.0;
}

EventRunResult run_events(const EventModel& model, const EventRunSpec& spec,
                          const EventWatch& watch) {
  check_event_run(model, spec);
  const std::uint32_t groups = spec.method == SyncMethod::sequential ? 1 : spec.groups;
  const std::vector<GroupId> owner = contiguous_groups(model.components(), groups);
  const GroupSettings settings = group_settings(model, spec);

  EventRecorder recorder(model.components());
  MailboxExchange exchange(groups, spec.deadlock,
                           [&](GroupId g) { return group_name(model, owner, g); });
  GroupTransport* transport = groups > 1 || settings.sync == GroupSync::optimistic ? &exchange
                                                                                   : nullptr;
  std::vector<std::unique_ptr<EventGroup>> members;
  for (GroupId g = 0; g < groups; ++g)
    members.push_back(std::make_unique<EventGroup>(model, g, owner, settings, transport, recorder,
                                                   g == 0 ? watch : EventWatch{}));

  std::vector<std::exception_ptr> errors(groups);
  std::vector<double> wall(groups, 0.0);
  const auto run_group = [&](GroupId g) {
    const auto begin = std::chrono::steady_clock::now();
    try {
      members[g]->run();
    } catch (const std::exception& e) {
      errors[g] = std::current_exception();
      exchange.stop_all(e.what());
    }
    wall[g] = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  };
  const auto begin = std::chrono::steady_clock::now();
  if (groups == 1) {
    run_group(0);
  } else {
    std::vector<std::jthread> threads;
    for (GroupId g = 0; g < groups; ++g) threads.emplace_back(run_group, g);
  }
  EventRunResult result;
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  for (const auto& error : errors)
    if (error && !result.failure) result.failure = error;
  result.deadlocks = exchange.deadlocks();
  if (const auto failure = exchange.failure(); failure && !result.failure)
    result.failure = std::make_exception_ptr(SimulationError(*failure));
  result.committed_to = spec.end;
  for (GroupId g = 0; g < groups; ++g) {
    result.committed_to = std::min(result.committed_to, members[g]->committed_horizon());
    result.groups.push_back(members[g]->figures());
    result.groups.back().wall_seconds = wall[g];
    const ActivityTrace& activity = members[g]->activity();
    result.activity.push_back(activity.page(0, ActivityTrace::default_capacity));
    result.dropped_spans.push_back(activity.dropped());
    for (const auto& lp : members[g]->components()) result.components.push_back(lp.figures());
  }
  result.digest = recorder.digest();
  return result;
}

}  // namespace kausal
