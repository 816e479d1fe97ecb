#pragma once
// The event groups of a discrete-event run as processes (docs/events.md, "Process layout"):
// one kausal-event-group per group, started through ComponentSet (on this host, or on the
// node agents a deployment file names), set up, connected to each other, started, watched
// until every group has ended, and collected — once per stretch from cut to cut, in the
// same processes (docs/events.md, "Checkpoints and --resume"). Events go from group to group
// directly; the monitor relays nothing. It watches:
//  - failures: a group whose handler fails, or whose peer does not answer, reports it in its
//    status; a group whose process dies or hangs fails the status call (at once, or after
//    the call timeout). The others are stopped and what every group committed is kept;
//  - deadlock (conservative): the four-counter method over two polls (PeerExchange);
//  - the committed horizon (progress, Ctrl-C through the watch).
#include <map>
#include <string>

#include "idl/orb_runtime.hpp"
#include "monitor/deploy/component_set.hpp"
#include "monitor/deploy/deployment_plan.hpp"
#include "monitor/sync/event_run.hpp"

namespace kausal {

// The process name of group g (its log is LOG_DIR/event-group-G.log).
std::string event_group_process(des::GroupId g);

// The groups started, ready to run stretch after stretch (EventStretches drives them).
// Throws InputError for a bad spec, PeerError / VersionMismatch when a group does not start.
// A stretch that fails returns with its failure set.
std::unique_ptr<PlacedEventGroups> place_event_group_processes(const EventGroupsPlan& plan,
                                                               OrbRuntime& orb,
                                                               const LaunchOptions& options);

}  // namespace kausal
