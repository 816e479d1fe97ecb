#pragma once
// Where a discrete-event run stands at a time T at which every event below T is committed
// and none at or after T has been processed (docs/events.md, "Checkpoints and --resume"):
// each component's state and every event pending for it. Continued from it, a run commits
// exactly what an uninterrupted run commits from T on, whatever its method or its groups.
#include <cstdint>
#include <vector>

#include "system/events/event_model.hpp"

namespace kausal::des {

struct EventCut {
  double time = 0;
  std::vector<ComponentState> states;    // per component
  std::vector<Event> pending;            // in key order; every one at or after `time`
  std::vector<std::uint64_t> committed;  // per component: events committed below `time`

  std::uint64_t committed_events() const {
    std::uint64_t sum = 0;
    for (const std::uint64_t n : committed) sum += n;
    return sum;
  }
};

}  // namespace kausal::des
