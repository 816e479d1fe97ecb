#pragma once
// A time-stamped event between discrete-event components (docs/events.md): e_{i,j,n} of
// the thesis, created by component i for component j.
#include <compare>
#include <cstdint>

namespace kausal::des {

using ComponentId = std::uint32_t;

// The total order in which every method processes events. Equal time stamps are broken by
// the sending component and then by its send serial, a counter that is part of the
// sender's state (saved and rolled back with it), so the order never depends on timing.
struct EventKey {
  double time = 0;
  ComponentId source = 0;
  std::uint64_t serial = 0;

  friend bool operator==(const EventKey&, const EventKey&) = default;
  friend bool operator<(const EventKey& a, const EventKey& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.source != b.source) return a.source < b.source;
    return a.serial < b.serial;
  }
  friend bool operator<=(const EventKey& a, const EventKey& b) { return !(b < a); }
};

struct Event {
  EventKey key;
  ComponentId destination = 0;
  std::uint32_t kind = 0;  // the model's word for what happens
  double value = 0;        // the model's payload
};

}  // namespace kausal::des
