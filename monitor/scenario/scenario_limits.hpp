#pragma once
// The limits every scenario reader applies (docs/scenarios.md, "Limits"): how many steps a
// run may take and how much it may write, checked before anything starts; and the
// arithmetic that turns durations and intervals into whole step counts without ever casting
// a value out of range.
#include <cstdint>
#include <optional>
#include <string>

namespace kausal {

// Steps (partitioned models: ticks of the smallest step) a run may take.
inline constexpr std::uint64_t kMaxSteps = 10'000'000'000ULL;
// Pendulums in a chain ([[pendulum]] tables and [[row]] members together). A sequential run
// holds about 1 kB per pendulum (0.95 GB measured for a million), so this bounds it near
// 2 GB (docs/scenarios.md, "Rows of pendulums").
inline constexpr std::uint64_t kMaxPendulums = 2'000'000;
// What a run may write (its estimate) unless --max-output allows more.
inline constexpr std::uint64_t kDefaultMaxOutputBytes = std::uint64_t{10} << 30;

struct ScenarioLimits {
  std::uint64_t max_output_bytes = kDefaultMaxOutputBytes;  // --max-output
};

// value / unit as a whole number in [1, kMaxSteps] (to a relative 1e-9), or nothing.
std::optional<std::uint64_t> whole_multiple(double value, double unit);

// The whole steps of h that cover `duration` > 0: at least one (a duration rounds up), and a
// hair of rounding does not add one. Nothing if that is more than kMaxSteps.
std::optional<std::uint64_t> steps_covering(double duration, double h);

// "" if a trajectory.csv of `rows` rows of `columns` numbers (plus `other_bytes`: a
// checkpoint) fits `limits`, else why not: "would write about 37 GiB, more than ...".
std::string output_over_limit(double rows, double columns, double other_bytes,
                              const ScenarioLimits& limits);

// "10G", "500M", "64K", "2T" (powers of 1024) or plain bytes; InputError naming `what`.
std::uint64_t parse_size(const std::string& text, const std::string& what);
// 1.5 GiB, 12 MiB, 900 bytes.
std::string format_size(double bytes);
// A double as a message shows it: 1e-30, 0.001, 2.5e+19.
std::string format_number(double v);

}  // namespace kausal
