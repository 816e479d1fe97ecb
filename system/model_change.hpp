#pragma once
// A change of a partitioned model while it runs (docs/realtime.md, "Influence while
// running"): one member's constant input or parameter takes a new value from time `from` on.
// The composite keeps the changes a rollback may still need, so that it stays a function of
// t: a partition rolled back to before `from` computes those steps again with the old value.
// What changed before `settled` (the sender's committed time: no step before it is computed
// again) is folded into the value in force; at most limits::max_unsettled_changes are kept.
#include <string>

namespace kausal {

struct ModelChange {
  std::string member;  // the subsystem ("upper")
  std::string name;    // one of its constant inputs, else one of its parameters ("inflow")
  double value = 0;
  double from = 0;     // s: every call at t >= from sees the new value
  double settled = 0;  // s: no call will ask for t < settled again
};

}  // namespace kausal
