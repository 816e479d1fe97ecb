#pragma once
// What each component did for each step of a paced run, gathered from its activity spans as
// they stream into trace.json (TraceFile hands every span here): for the monitor and every
// Integrator, per state its spans are tagged with, the extent of its work on that state
// (first piece begin to last piece end, its waits for its System included) and its own busy
// time. Systems tag no steps and are counted in their Integrator's extent.
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/activity_trace.hpp"
#include "monitor/core/run_kind.hpp"
#include "monitor/core/run_result.hpp"

namespace kausal {

class StepTimings {
 public:
  // Spans of one component, in the order it recorded them (a component's calls may come in
  // several pieces). Thread-safe.
  void add(const std::string& component, ComponentRole role, std::span<const ActivitySpan> spans);
  // The compute of state s: the largest extent of any Integrator on it plus the monitor's
  // busy time on it (nullopt when nobody tagged it: its spans were lost).
  std::optional<double> compute_s(std::uint64_t state) const;
  // Each component's spreads over the states it worked on.
  std::vector<ComponentTiming> timings() const;

 private:
  struct Sample {
    float extent_s = 0;
    float busy_s = 0;
  };
  struct Track {
    std::string name;
    ComponentRole role = ComponentRole::monitor;
    std::uint64_t base = 0;       // the state of samples[0]
    std::vector<Sample> samples;  // per state from base
    // The state being gathered: its first begin, last end, busy so far.
    std::uint64_t state = SpanTag::no_step;
    std::uint64_t begin_ns = 0, end_ns = 0, busy_ns = 0;
  };
  Track& track(const std::string& name, ComponentRole role);
  static void flush(Track& t);
  static const Sample* sample(const Track& t, std::uint64_t state);

  mutable std::mutex mutex_;
  mutable std::vector<Track> tracks_;  // flushed lazily by the readers
};

}  // namespace kausal
