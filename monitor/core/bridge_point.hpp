#pragma once
// Where a hybrid model's discrete side stands at a cut, besides its partitions (docs/events.md,
// "Checkpoints of hybrid models"): every partition has committed its steps up to the cut's
// tick and none after it; the event group has processed every event below `cut.time` and none
// at or after it (with event outputs, the cut's time is the tick's; without, the discrete side
// may stand later, since nothing from the partitions reaches it). checkpoint.json keeps it, so
// that a resumed run commits exactly what the uninterrupted one commits from there on.
#include <cstdint>
#include <vector>

#include "common/sha256.hpp"
#include "integrator/event_ports.hpp"
#include "integrator/events/event_cut.hpp"

namespace kausal {

struct BridgePoint {
  des::EventCut cut;                      // the discrete components and their pending events
  std::vector<Sha256::Midstate> digests;  // per component: its running digest at the cut
  struct Partition {
    std::vector<double> held;              // its held inputs at the tick (what events set)
    std::vector<ArrivingEvent> scheduled;  // events sent to it, at or after the tick, in key order
  };
  std::vector<Partition> partitions;
  std::vector<std::uint64_t> serials;  // per event output: its next crossing's serial
  std::uint64_t log_bytes = 0;         // bridge.csv's length at the cut
};

}  // namespace kausal
