#pragma once
// What event groups send each other (docs/events.md): events and their cancellations,
// guarantees (null messages), the GVT token and the GVT it found, and the order to stop.
#include <cstdint>
#include <vector>

#include "system/events/event.hpp"

namespace kausal::des {

using GroupId = std::uint32_t;

enum class MessageKind : std::uint8_t {
  event,       // a positive event for a component of the receiving group
  anti_event,  // cancels the event with the same key (optimistic runs)
  guarantee,   // null message: no event from the sender before `time` (conservative runs)
  gvt_token,   // Mattern's GVT token on its way round the ring (optimistic runs)
  gvt,         // the GVT the last round found
  lower_bound,  // no event anywhere before `time` (the deadlock watch, conservative runs)
  stop,        // the run ends without completing (an error elsewhere)
};

// The state of one GVT computation (Mattern's algorithm with two rounds).
struct GvtToken {
  std::uint64_t epoch = 0;  // the colour the round turns groups to
  std::uint32_t round = 1;  // 1: colour and count; 2: wait for the old colour, take minima
  std::vector<std::int64_t> in_transit;  // messages of the old colour sent to each group
  double minimum = 0;
};

struct GroupMessage {
  MessageKind kind = MessageKind::event;
  GroupId from = 0;
  std::uint64_t colour = 0;  // the sender's GVT epoch when it sent an event or anti-event
  Event event;               // event, anti_event
  double time = 0;           // guarantee, gvt
  GvtToken token;            // gvt_token
};

}  // namespace kausal::des
