#pragma once
// What the monitor tells an event group in a process of its own, and what the group hands
// back once it has ended (docs/events.md, "Process layout"). The group builds its model from
// the registry by name, as a scenario names it.
#include <map>
#include <string>
#include <vector>

#include "integrator/events/event_group.hpp"

namespace kausal::des {

struct GroupSetup {
  std::string model;
  std::map<std::string, double> parameters;
  GroupId group = 0;
  std::vector<GroupId> owner;  // per component: its group
  GroupSettings settings;
};

struct ComponentOutcome {
  ComponentId component = 0;
  std::string digest;  // SHA-256 of its committed events (hex)
  ComponentFigures figures;
};

struct GroupOutcome {
  std::vector<ComponentOutcome> components;
  GroupFigures figures;
  double committed_horizon = 0;  // every event of its components below it is committed
};

}  // namespace kausal::des
