#include "monitor/record/event_live_view.hpp"

#include <algorithm>
#include <cmath>

#include "common/thin_out.hpp"

namespace kausal {
namespace {

// The counts a frame carries per plot of groups, in column order.
enum class Count : std::size_t {
  committed,
  processed,
  rolled_back,
  null_messages,
  anti_messages,
  stragglers,
  count_
};
constexpr std::size_t kCounts = static_cast<std::size_t>(Count::count_);

std::uint64_t value_of(const des::GroupProgress& g, Count c) {
  switch (c) {
    case Count::committed:
      return g.events.committed;
    case Count::processed:
      return g.events.processed;
    case Count::rolled_back:
      return g.events.rolled_back;
    case Count::null_messages:
      return g.null_messages;
    case Count::anti_messages:
      return g.events.anti_messages;
    case Count::stragglers:
      return g.events.stragglers;
    case Count::count_:
      break;
  }
  return 0;
}

std::string groups_title(const des::EventModel& model, const std::vector<des::GroupId>& owner,
                         std::size_t first, std::size_t last) {
  if (first == last) return group_name(model, owner, static_cast<des::GroupId>(first));
  return "groups " + std::to_string(first) + "\u2013" + std::to_string(last);
}

}  // namespace

EventViewLayout event_view_layout(const des::EventModel& model, SyncMethod method,
                                  std::uint32_t groups, double end, std::uint64_t ticks) {
  EventViewLayout v;
  v.ticks = std::max<std::uint64_t>(ticks, 1);
  v.h = end / static_cast<double>(v.ticks);
  const std::size_t n = std::max<std::uint32_t>(groups, 1);
  const std::size_t plots = std::min(n, EventViewLayout::max_group_plots);
  for (std::size_t p = 0; p <= plots; ++p) v.first_group.push_back(p * n / plots);
  const auto owner = contiguous_groups(model.components(), static_cast<std::uint32_t>(n));
  std::vector<std::string> short_names;
  for (std::size_t p = 0; p < plots; ++p) {
    const std::size_t first = v.first_group[p], last = v.first_group[p + 1] - 1;
    const std::string title = groups_title(model, owner, first, last);
    v.plot.plots.push_back(n == 1 ? "all components" : title);
    // "group-2 (component-32 … component-47)" is "group-2" in a legend; a group of one
    // component goes by the component's name, as in its plot's title.
    short_names.push_back(title.substr(0, title.find(" (")));
  }
  auto column = [](std::size_t p, Count c) { return p * kCounts + static_cast<std::size_t>(c); };
  for (std::size_t p = 0; p < plots; ++p) {
    v.plot.series.push_back({"committed", p, column(p, Count::committed)});
    v.plot.series.push_back({"processed", p, column(p, Count::processed)});
    v.plot.series.push_back({"rolled back", p, column(p, Count::rolled_back)});
  }
  // What the method sends to synchronise: null messages, or stragglers and anti-messages.
  if (method == SyncMethod::sequential) return v;
  const std::size_t sync_plot = plots;
  v.plot.plots.push_back(method == SyncMethod::conservative ? "null messages sent"
                                                            : "stragglers and anti-messages");
  for (std::size_t p = 0; p < plots; ++p) {
    const std::string& who = short_names[p];
    if (method == SyncMethod::conservative) {
      v.plot.series.push_back({who, sync_plot, column(p, Count::null_messages)});
      continue;
    }
    v.plot.series.push_back({who + " stragglers", sync_plot, column(p, Count::stragglers)});
    v.plot.series.push_back({who + " anti", sync_plot, column(p, Count::anti_messages)});
  }
  return v;
}

EventLiveView::EventLiveView(RunObserver& feed, EventViewLayout layout)
    : feed_(feed), layout_(std::move(layout)), rollbacks_seen_(layout_.group_plots(), 0) {}

std::uint64_t EventLiveView::tick_of(double t) const {
  if (!(t > 0) || !(layout_.h > 0)) return 0;
  const double tick = std::floor(t / layout_.h);
  return tick >= static_cast<double>(layout_.ticks) ? layout_.ticks
                                                    : static_cast<std::uint64_t>(tick);
}

std::vector<double> EventLiveView::row(const EventProgress& progress) const {
  // Every count of each plot of groups, then the frame's values in series order.
  std::vector<double> counts(layout_.group_plots() * kCounts, 0.0);
  for (std::size_t p = 0; p < layout_.group_plots(); ++p)
    for (std::size_t g = layout_.first_group[p];
         g < std::min(layout_.first_group[p + 1], progress.groups.size()); ++g)
      for (std::size_t c = 0; c < kCounts; ++c)
        counts[p * kCounts + c] += static_cast<double>(value_of(progress.groups[g], Count{c}));
  std::vector<double> values;
  for (const LivePlot::Series& s : layout_.plot.series) values.push_back(counts[s.column]);
  return values;
}

void EventLiveView::show(const EventProgress& progress) {
  const std::uint64_t committed = tick_of(progress.committed_to);
  if (!last_frame_ || committed > *last_frame_) {
    // Every tick committed since the last sample shows the counts of this moment.
    const std::vector<double> values = row(progress);
    for (std::uint64_t t = last_frame_ ? *last_frame_ + 1 : committed; t <= committed; ++t)
      feed_.committed(t, values);
    last_frame_ = committed;
  }
  std::vector<std::uint64_t> reached;
  for (std::size_t p = 0; p < layout_.group_plots(); ++p) {
    std::uint64_t ahead = committed, back = layout_.ticks;
    std::uint64_t rollbacks = 0;
    for (std::size_t g = layout_.first_group[p];
         g < std::min(layout_.first_group[p + 1], progress.groups.size()); ++g) {
      const des::GroupProgress& group = progress.groups[g];
      const std::uint64_t clock = std::max(committed, tick_of(group.clock));
      ahead = std::max(ahead, clock);
      back = std::min(back, clock);
      rollbacks += group.events.rollbacks;
    }
    reached.push_back(ahead);
    if (rollbacks > rollbacks_seen_[p]) feed_.rolled_back(p, std::min(back, ahead));
    rollbacks_seen_[p] = std::max(rollbacks_seen_[p], rollbacks);
  }
  if (layout_.plot.plots.size() > layout_.group_plots())
    reached.push_back(committed);  // the synchronisation plot
  feed_.horizon(committed, reached);
}

void EventProgressLog::add(const EventProgress& progress, std::uint64_t at_ns) {
  samples_.push_back({at_ns, progress.groups});
  constexpr std::size_t values_per_group = 9;
  if (samples_.size() * std::max<std::size_t>(progress.groups.size(), 1) * values_per_group >
      max_values)
    thin_out(samples_);
}

std::vector<CounterTrack> EventProgressLog::counters(std::size_t group) const {
  std::vector<CounterTrack> tracks{
      {"events", {"processed", "committed", "rolled back"}, {}},
      {"synchronisation", {"null messages", "anti-messages", "stragglers", "rollbacks"}, {}},
      {"virtual time", {"local", "committed"}, {}}};
  for (const Sample& s : samples_) {
    if (group >= s.groups.size()) continue;
    const des::GroupProgress& g = s.groups[group];
    const auto d = [](std::uint64_t v) { return static_cast<double>(v); };
    tracks[0].samples.push_back(
        {s.at_ns, {d(g.events.processed), d(g.events.committed), d(g.events.rolled_back)}});
    tracks[1].samples.push_back({s.at_ns,
                                 {d(g.null_messages), d(g.events.anti_messages),
                                  d(g.events.stragglers), d(g.events.rollbacks)}});
    tracks[2].samples.push_back({s.at_ns, {g.clock, g.committed_to}});
  }
  return tracks;
}

}  // namespace kausal
