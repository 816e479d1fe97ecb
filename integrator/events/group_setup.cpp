#include "integrator/events/group_setup.hpp"

#include <algorithm>
#include <cmath>

#include "common/errors.hpp"
#include "system/events/event_model_registry.hpp"

namespace kausal::des {
namespace {

// A set-up that breaks the protocol, from whoever sent it.
[[noreturn]] void refuse(const std::string& who, const std::string& why) {
  throw ProtocolError(who, "set_up: " + why);
}

// A continued group's cut: exactly its own components, each with the model's number of
// values (the events pending for them are the group's to check: EventGroup::continue_from).
void check_cut(const GroupSetup& s, const EventModel& model, const std::string& who) {
  const GroupSettings& g = s.settings;
  if (!(std::isfinite(g.start) && g.start >= 0 && g.start < g.end))
    refuse(who, "the start must be a finite time from 0 to before the end");
  if (s.from.empty()) {
    if (g.start != 0 || !s.pending.empty()) refuse(who, "a run after t = 0 continues from a cut");
    return;
  }
  std::vector<bool> seen(model.components(), false);
  for (const ComponentCutPart& p : s.from) {
    if (p.component >= model.components() || s.owner[p.component] != s.group || seen[p.component])
      refuse(who, "the cut names component " + std::to_string(p.component) +
                      " twice, for another group or beyond the model's");
    seen[p.component] = true;
    if (p.state.values.size() != model.initial_state(p.component).values.size())
      refuse(who, "the cut gives component " + std::to_string(p.component) + " " +
                      std::to_string(p.state.values.size()) + " values");
  }
  for (ComponentId c = 0; c < model.components(); ++c)
    if (s.owner[c] == s.group && !seen[c])
      refuse(who, "the cut leaves out component " + std::to_string(c));
}

}  // namespace

std::unique_ptr<EventModel> build_model(const GroupSetup& s, const std::string& who) {
  const EventModelType* type = event_model_type(s.model);
  if (!type) refuse(who, "no discrete-event model is called '" + s.model + "'");
  std::map<std::string, double> values;
  for (const EventParameter& p : type->parameters) {
    const auto given = s.parameters.find(p.name);
    values[p.name] = given == s.parameters.end() ? p.default_value : given->second;
    if (const std::string problem = parameter_problem(p, values[p.name]); !problem.empty())
      throw ModelError(who, "set_up: parameter " + p.name + " " + problem);
  }
  for (const auto& [given, value] : s.parameters)
    if (!values.count(given)) refuse(who, "model " + s.model + " has no parameter " + given);
  try {
    return type->make(values);
  } catch (const InputError& e) {
    throw ModelError(who, e.what());
  }
}

GroupId check_setup(const GroupSetup& s, const EventModel& model, const std::string& who) {
  if (s.owner.size() != model.components())
    refuse(who, "the placement names " + std::to_string(s.owner.size()) + " components, model " +
                    s.model + " has " + std::to_string(model.components()));
  // A placement of n components has at most n groups: a larger group number is refused
  // before it can size anything (or wrap the count below).
  GroupId groups = 0;
  for (const GroupId g : s.owner) {
    if (g >= s.owner.size())
      refuse(who, "the placement puts a component in group " + std::to_string(g) + ", beyond the " +
                      std::to_string(s.owner.size()) + " groups " + std::to_string(s.owner.size()) +
                      " components can have");
    groups = std::max(groups, g + 1);
  }
  if (s.group >= groups) refuse(who, "group " + std::to_string(s.group) + " runs no component");
  const GroupSettings& g = s.settings;
  if (!(std::isfinite(g.end) && g.end > 0)) refuse(who, "end must be a positive, finite time");
  if (!(g.window > 0)) refuse(who, "the window must be positive");
  if (g.batch < 1 || g.gvt_interval < 1) refuse(who, "batch and gvt_interval must be at least 1");
  check_cut(s, model, who);
  return groups;
}

void continue_setup(EventGroup& group, kausal::EventRecorder& recorder, const GroupSetup& s,
                    const EventModel& model, const std::string& who) {
  if (s.from.empty()) return;
  EventCut cut;
  cut.time = s.settings.start;
  cut.states.resize(model.components());
  for (const ComponentCutPart& p : s.from) {
    cut.states[p.component] = p.state;
    try {
      recorder.restore(p.component, p.digest);
    } catch (const InputError& e) {
      throw ProtocolError(who, std::string("set_up: the digest of the cut: ") + e.what());
    }
  }
  cut.pending = s.pending;
  group.continue_from(cut);  // ProtocolError for an event it cannot have
}

}  // namespace kausal::des
