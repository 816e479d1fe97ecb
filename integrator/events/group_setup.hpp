#pragma once
// What the monitor tells an event group in a process of its own, and what the group hands
// back once it has ended (docs/events.md, "Process layout"). The group builds its model from
// the registry by name, as a scenario names it.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/sha256.hpp"
#include "integrator/events/event_group.hpp"
#include "integrator/events/event_recorder.hpp"

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

// The model a setup from outside names, built from the registry with its parameters (the
// model's defaults for the rest): ProtocolError naming `who` for an unknown model or
// parameter, ModelError for a value the model refuses.
std::unique_ptr<EventModel> build_model(const GroupSetup& s, const std::string& who);
// Every check a setup from outside needs before a group is built from it (the placement, the
// settings, the cut it continues from), against its model; returns the run's number of
// groups. ProtocolError naming `who`.
GroupId check_setup(const GroupSetup& s, const EventModel& model, const std::string& who);

// A continued setup (from a cut: s.from not empty): the group and its recorder there, each
// component's state and running digest and the events pending. ProtocolError naming `who`
// for a cut the group cannot have.
void continue_setup(EventGroup& group, kausal::EventRecorder& recorder, const GroupSetup& s,
                    const EventModel& model, const std::string& who);

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
