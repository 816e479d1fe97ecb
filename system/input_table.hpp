#pragma once
// An input that follows a time series (a subsystem's input_file, docs/scenarios.md): rows
// (t_k, v_k) with t_k non-decreasing. Before the first row the input is v_0, after the last
// v_last; in between it is interpolated linearly or held at the last row at or before t. A
// time given twice is a step there: from that time on the later row holds (a signal that
// jumps, written as FMI tools write one).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kausal {

enum class Interpolation : std::uint8_t { linear, hold };

struct InputTable {
  std::vector<double> times;
  std::vector<double> values;
  Interpolation interpolation = Interpolation::linear;

  bool empty() const { return times.empty(); }
  double operator()(double t) const;
  // Its time derivative at t from the right: the slope of the row pair t lies between when
  // linear, else 0 (held, or before the first row or from the last on).
  double slope(double t) const;
  // Why the table cannot be used (sizes differ, a value not finite, times that go back, more
  // than max_rows), with `where` in front; empty if it can.
  std::string problem(const std::string& where) const;
};

// The rows one table may hold: 8 MiB of times and values whether it comes from a file or the
// wire.
inline constexpr std::size_t max_input_table_rows = 500'000;

}  // namespace kausal
