#pragma once
// A hybrid model's events across the boundary as bridge.csv holds them (docs/events.md), and
// how the plots label one: the live view, told by the monitor as the events are committed,
// and a finished run's pictures, read from its bridge.csv, say it alike. A crossing is named
// by where it goes ("switch.high"), an event for a partition by what it sets
// ("upper.inflow = 0.05", "ball.v += 3.5").
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

namespace kausal {

// bridge.csv's first line; a row each event after it.
inline constexpr std::string_view kBridgeHeader = "t,event,from,to,value";

struct BridgeRow {
  double t = 0;
  std::string event;  // crossing, set, add
  std::string from, to;
  double value = 0;
};

// A row of bridge.csv; nullopt unless it has its five fields, t and value finite numbers.
inline std::optional<BridgeRow> parse_bridge_row(const std::string& line) {
  std::string field[5];
  std::istringstream split(line);
  std::size_t n = 0;
  for (std::string f; std::getline(split, f, ',');)
    if (n < 5)
      field[n++] = f;
    else
      return std::nullopt;
  if (n != 5) return std::nullopt;
  const auto number = [](const std::string& text) -> std::optional<double> {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(v)) return std::nullopt;
    return v;
  };
  const auto t = number(field[0]), value = number(field[4]);
  if (!t || !value) return std::nullopt;
  return BridgeRow{*t, field[1], field[2], field[3], *value};
}

inline std::string bridge_mark_label(std::string_view event, std::string_view to, double value) {
  std::string label(to);
  if (event == "crossing") return label;
  char number[32];
  std::snprintf(number, sizeof number, "%.3g", value);
  return label + (event == "add" ? " += " : " = ") + number;
}

}  // namespace kausal
