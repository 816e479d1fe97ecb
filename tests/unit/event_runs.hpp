#pragma once
// What the tests of discrete-event runs share.
#include <cstdint>

#include "monitor/sync/event_run.hpp"

namespace kausal::testing {

inline EventRunSpec event_spec(SyncMethod method, std::uint32_t groups, double end) {
  EventRunSpec s;
  s.method = method;
  s.groups = groups;
  s.end = end;
  return s;
}

}  // namespace kausal::testing
