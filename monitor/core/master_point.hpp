#pragma once
// Where the co-simulation master stands after an accepted macro step, besides its partitions:
// what its next macro step is computed from (checkpoint.json keeps it, so that a resumed run
// takes the macro steps, and so the bits, of the uninterrupted one).
#include <cstdint>
#include <optional>
#include <vector>

#include "integrator/prediction.hpp"

namespace kausal {

struct MasterPoint {
  // One coupling as the master predicts it (in the master's order of links).
  struct Link {
    std::vector<TimedSample> history;    // the producer's output at accepted steps' ends
    std::optional<Prediction> previous;  // what the consumer was given over the last step
  };
  std::uint64_t next_ticks = 0;  // the next macro step's size
  std::vector<Link> links;
};

}  // namespace kausal
