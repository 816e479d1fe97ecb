#pragma once
// The live view of a discrete-event run (docs/events.md, "Watching a run"), drawn by the
// animation's plot view: what each group has done, against the simulated time it has
// committed. A frame at time t holds the counts as they stood when t was committed, so the
// gap between a group's processed and committed events is the work it threw away to get
// there. Per plot of groups: committed, processed and rolled-back events; one more plot for
// what the method sends to synchronise, per plot of groups: null messages (conservative), or
// stragglers and anti-messages (optimistic). The
// horizon is the committed time (GVT, or the conservative lower bound); each plot's run-ahead
// is the local virtual time of its groups; a plot flashes when one of its groups rolls back.
// No omniORB: it speaks to any RunObserver.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "monitor/core/run_observer.hpp"
#include "monitor/core/run_result.hpp"
#include "monitor/record/live_plot.hpp"
#include "monitor/sync/event_run.hpp"

namespace kausal {

struct EventViewLayout {
  static constexpr std::uint64_t default_ticks = 500;
  static constexpr std::size_t max_group_plots = 8;

  LivePlot plot;  // the plots and series begin_run announces; columns in frame order
  // Plot p shows groups first_group[p] .. first_group[p + 1] − 1 (the last entry: all groups).
  std::vector<std::size_t> first_group;
  double h = 0;  // simulated time per tick
  std::uint64_t ticks = 0;

  std::size_t group_plots() const { return first_group.size() - 1; }
};

// The view of a run of `model` by `method` in `groups` groups up to `end`.
EventViewLayout event_view_layout(const des::EventModel& model, SyncMethod method,
                                  std::uint32_t groups, double end,
                                  std::uint64_t ticks = EventViewLayout::default_ticks);

class EventLiveView {
 public:
  EventLiveView(RunObserver& feed, EventViewLayout layout);
  // A new sample of the run: the frames up to its committed time, the horizon, flashes.
  void show(const EventProgress& progress);
  const EventViewLayout& layout() const { return layout_; }

 private:
  std::uint64_t tick_of(double t) const;
  std::vector<double> row(const EventProgress& progress) const;

  RunObserver& feed_;
  EventViewLayout layout_;
  std::optional<std::uint64_t> last_frame_;
  std::vector<std::uint64_t> rollbacks_seen_;  // per group plot
};

// The progress of a run as trace.json graphs it, per group: its events (processed,
// committed, rolled back), its synchronisation (null messages, anti-messages, stragglers,
// rollbacks) and its virtual times (local, committed). Memory is bounded: past
// max_values values every second sample goes, and the newest sample is always kept.
class EventProgressLog {
 public:
  static constexpr std::size_t max_values = std::size_t{1} << 20;

  void add(const EventProgress& progress, std::uint64_t at_ns);
  std::vector<CounterTrack> counters(std::size_t group) const;
  std::size_t samples() const { return samples_.size(); }

 private:
  struct Sample {
    std::uint64_t at_ns = 0;
    std::vector<des::GroupProgress> groups;
  };
  std::vector<Sample> samples_;
};

}  // namespace kausal
