#pragma once
// How far an event group has got while it runs, as the live view and trace.json show it:
// its local virtual time, the time below which it has committed everything, and what its
// components have done so far (docs/events.md, "Watching a run").
#include <cstdint>

#include "integrator/events/logical_process.hpp"

namespace kausal::des {

struct GroupProgress {
  double clock = 0;         // local virtual time: the time stamp of the newest event processed
  double committed_to = 0;  // every event below it is committed (GVT, or the CMB lower bound)
  ComponentFigures events;  // summed over the group's components
  std::uint64_t null_messages = 0;
  std::uint64_t messages = 0;  // events and anti-events sent to other groups

  // Adds another stretch's counts; the times are those of `more`, the later one.
  GroupProgress& operator+=(const GroupProgress& more) {
    clock = more.clock;
    committed_to = more.committed_to;
    events += more.events;
    null_messages += more.null_messages;
    messages += more.messages;
    return *this;
  }
};

}  // namespace kausal::des
