#pragma once
// How the plots label an event across a hybrid model's boundary (docs/events.md): the live
// view, told by the monitor as the events are committed, and a finished run's pictures, read
// from its bridge.csv, say it alike. A crossing is named by where it goes ("switch.high"), an
// event for a partition by what it sets ("upper.inflow = 0.05", "ball.v += 3.5").
#include <cstdio>
#include <string>
#include <string_view>

namespace kausal {

inline std::string bridge_mark_label(std::string_view event, std::string_view to, double value) {
  std::string label(to);
  if (event == "crossing") return label;
  char number[32];
  std::snprintf(number, sizeof number, "%.3g", value);
  return label + (event == "add" ? " += " : " = ") + number;
}

}  // namespace kausal
