#pragma once
// Runs a discrete-event model in this process (docs/events.md): sequential on this
// thread, or conservative / optimistic with the components split into event groups, one
// thread each, that exchange events peer to peer through mailboxes. The same groups run in
// component processes over CORBA; this is the one-process form the tests and the
// benchmarks use.
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/sha256.hpp"
#include "integrator/events/event_cut.hpp"
#include "integrator/events/event_group.hpp"
#include "integrator/events/mailbox_exchange.hpp"
#include "monitor/core/run_kind.hpp"
#include "monitor/sync/coupling.hpp"

namespace kausal {

// A run continued from a cut, with each component's running digest at it.
struct EventResumePoint {
  des::EventCut cut;
  std::vector<Sha256::Midstate> digests;
};

struct EventRunSpec {
  SyncMethod method = SyncMethod::sequential;
  std::uint32_t groups = 2;  // conservative and optimistic: threads, contiguous blocks
  double end = 0;            // events below `end` are committed
  // Optimistic: events below GVT + window are processed. Default: 4 × the smallest
  // positive lookahead of the model's links (unbounded when every lookahead is 0), which
  // keeps PHOLD's groups within a few rollbacks of each other (docs/performance.md).
  std::optional<double> window;
  des::StateSaving saving = des::StateSaving::full;                // optimistic
  des::Cancellation cancellation = des::Cancellation::aggressive;  // optimistic
  des::DeadlockPolicy deadlock = des::DeadlockPolicy::fail;        // conservative
  std::uint32_t batch = 64;           // events between looks at the mailbox
  std::uint64_t gvt_interval = 1024;  // events group 0 processes between GVT rounds
  bool rollback_check = false;        // every event handled twice (des::GroupSettings)
  // Checkpoints: when positive, every group stops at cut times about this many seconds of
  // wall time apart, the run hands the cut to its EventCutSink and goes on from it.
  double cut_seconds = 0;
  // Continue from this cut instead of starting the components (null: from the start).
  const EventResumePoint* from = nullptr;
};

// The window an optimistic run uses when the spec gives none.
double default_window(const des::EventModel& model);
// InputError for a spec the model cannot run with.
void check_event_run(const des::EventModel& model, const EventRunSpec& spec);
// What every group of a run is told (the window filled in).
des::GroupSettings group_settings(const des::EventModel& model, const EventRunSpec& spec);

struct EventRunResult {
  // How the run ended early (deadlock, a component's error, interrupted); null when it
  // completed. Everything else describes what was committed up to then.
  std::exception_ptr failure;
  std::string digest;
  // Every event below this time is committed: the end when the run completed, else the
  // smallest of the groups' committed horizons when they stopped.
  double committed_to = 0;
  double wall_seconds = 0;
  std::vector<des::ComponentFigures> components;
  std::vector<des::GroupFigures> groups;
  // Per group: what its trace kept of its batches, rollbacks and fossil collections, and
  // how many spans it overwrote (the oldest go first).
  std::vector<std::vector<ActivitySpan>> activity;
  std::vector<std::uint64_t> dropped_spans;
  // Per group, where it ran: empty when every group ran in this process.
  struct Place {
    std::string host;
    long pid = 0;
    std::string node;  // the node agent that started it; empty: the monitor
  };
  std::vector<Place> places;
  std::uint64_t deadlocks = 0;  // found by the watch (recovered from, or the one that failed)

  des::ComponentFigures total() const;
  double committed_per_second() const;
  double efficiency() const;  // committed / processed
};

// Which group runs component c of n in g groups: contiguous blocks, the first n % g one
// larger.
std::vector<des::GroupId> contiguous_groups(std::size_t components, std::uint32_t groups);

// How reports and messages name group g: its component if it has one, else
// "group-2 (component-32 … component-47)".
std::string group_name(const des::EventModel& model, const std::vector<des::GroupId>& owner,
                       des::GroupId g);

// Receives every cut a run with cut_seconds > 0 reaches, with the digests there (what
// checkpoint.json keeps). What it throws fails the run.
using EventCutSink = std::function<void(const EventResumePoint&)>;

// A run while it goes: every event below committed_to is committed, and per group what it
// has done since the run (or its resumption) began.
struct EventProgress {
  double committed_to = 0;
  std::vector<des::GroupProgress> groups;
};

// Called about every progress_period while the run goes; returning false stops the run
// (the result's failure is Interrupted).
using EventWatch = std::function<bool(const EventProgress& progress)>;
inline constexpr std::chrono::milliseconds progress_period{5};

// One stretch of a run as a layout runs it: every group from settings.start to settings.end.
struct Stretch {
  // The stretch's own figures. When it failed: its failure, committed_to, and the digest of
  // what it committed (empty when a group was lost and its part is unknown).
  EventRunResult figures;
  // At settings.end, when every group reached it (its committed counts are the stretch's).
  std::optional<EventResumePoint> cut;
};

// Where a run's event groups are: threads of this process (event_groups_here) or processes
// (placed by RunPlatform::place, monitor/deploy/event_group_deployment.hpp). They run one stretch
// at a time, continued from `from` (null: the components start), telling `watch` the stretch's own
// progress.
class PlacedEventGroups {
 public:
  virtual ~PlacedEventGroups() = default;
  virtual Stretch stretch(const des::GroupSettings& settings, const EventResumePoint* from,
                          const EventWatch& watch) = 0;
};

// The groups of spec on threads of this process, exchanging events through mailboxes
// (sequential: one group on the loop's thread). InputError for a bad spec.
std::unique_ptr<PlacedEventGroups> event_groups_here(const des::EventModel& model,
                                                     const EventRunSpec& spec);

// Where an operator's event goes (`kausal inject send`, target "COMPONENT" or
// "COMPONENT.KIND"): the component by name, the kind by name or number (none: kind 0).
// InputError naming what the model has.
struct EventAddress {
  des::ComponentId component = 0;
  std::uint32_t kind = 0;
};
EventAddress event_address(const des::EventModel& model, const std::string& target);

// The run's digest from its components' running digests (at a cut, or at the end).
std::string event_run_digest(const std::vector<Sha256::Midstate>& digests);

// A discrete-event run as the one loop (monitor/sync/execution.hpp) drives it, wherever its
// groups are: from spec.from (or the start) to spec.end in stretches sized for a cut about
// every spec.cut_seconds (one stretch when 0), each cut handed to `cuts` with the committed
// counts of the whole run. `watch` sees the progress of the whole run (each stretch's added
// to those before it). Its position is the committed time in thousandths of the run (the
// last one: the end); a paced run releases them one by one, and no event at or after a
// position's time is processed before its release (a stretch ends there).
class EventStretches final : public Coupling {
 public:
  static constexpr std::uint64_t kPositions = 1000;
  // The time position p of a run to `end` starts at (the end for the last), and the last
  // position whose time `committed_to` has reached.
  static double time_of(std::uint64_t position, double end);
  static std::uint64_t position_of(double committed_to, double end);

  EventStretches(const des::EventModel& model, const EventRunSpec& spec, PlacedEventGroups& groups,
                 const EventWatch& watch = {}, const EventCutSink& cuts = {});

  std::uint64_t committed() const override;
  std::uint64_t end() const override { return kPositions; }
  bool computes_here() const override { return true; }
  void start(std::uint64_t) override {}
  // One stretch: committed up to its end (a cut), or stopped and to be run again shorter;
  // none while everything released is committed.
  bool advance(std::uint64_t released) override;
  // An operator's event (send), pending at the cut at its position: every event before its
  // time committed, none at or after it processed. Its key's source is its destination and
  // its serial one no component sends (2^63 and up, by position and order of arrival), so
  // a replay sends the same event.
  void apply(const Injection& injection) override;
  void finish(RunResult& r) override;

  // What the run did; its failure (if any) is also the loop's result.
  const EventRunResult& result() const { return result_; }

 private:
  bool next_stretch(double released);
  bool stretch_watch(const EventProgress& stretch_progress);
  void add_dropped(const EventRunResult& dropped);
  bool publish(EventProgress progress);

  const des::EventModel& model_;
  const EventRunSpec& spec_;
  PlacedEventGroups& groups_;
  const EventWatch& watch_;
  const EventCutSink& cuts_;
  EventRunResult result_;
  std::optional<EventResumePoint> at_;  // the last cut
  des::GroupSettings settings_;
  double floor_ = 0;   // the shortest stretch
  double length_ = 0;  // the next stretch's
  // What the stretches before the current one did, per group.
  std::vector<des::GroupProgress> done_before_;
  std::chrono::steady_clock::time_point stretch_begin_;
  // A stretch that ran four cuts' worth of wall time without reaching its end: stopped at
  // this time and run again from its start, shorter.
  std::optional<double> too_long_;
  // The last progress watch_ saw: what it sees never goes back, not even when a stretch
  // whose groups had committed further is dropped.
  EventProgress shown_;
  std::uint64_t injected_at_ = 0, injected_ = 0;  // the last send's position, sends there
};

// Throws InputError for a bad spec. A run that fails — a deadlock (policy fail: a
// SimulationError naming the cycle), a component's error (ModelError, ProtocolError), a
// stop — returns with its failure set once every group has stopped.
EventRunResult run_events(const des::EventModel& model, const EventRunSpec& spec,
                          const EventWatch& watch = {}, const EventCutSink& cuts = {});

}  // namespace kausal
