#pragma once
// What the monitor tells an event group in a process of its own, and what the group hands
// back once it has ended (docs/events.md, "Process layout"). The group builds its model from
// the registry by name, as a scenario names it.
#include <map>
#include <string>
#include <vector>

#include "integrator/events/event_group.hpp"
#include "system/sha256.hpp"

namespace kausal::des {

// A component at a cut, with the running digest of its committed events.
struct ComponentCutPart {
  ComponentId component = 0;
  ComponentState state;
  Sha256::Midstate digest;
};

struct GroupSetup {
  std::string model;
  std::map<std::string, double> parameters;
  GroupId group = 0;
  std::vector<GroupId> owner;  // per component: its group
  GroupSettings settings;      // settings.start: every event below it is committed
  // Continued from a cut at settings.start: the group's components there and the events
  // pending for them. Empty: the components start.
  std::vector<ComponentCutPart> from;
  std::vector<Event> pending;
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
  // Its part of the cut at its end; empty when it did not reach the end.
  std::vector<ComponentCutPart> cut;
  std::vector<Event> pending;
};

}  // namespace kausal::des
