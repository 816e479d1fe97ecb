#pragma once
// An event group: the discrete-event components one thread (or one process) executes, with
// one list of pending events in the order of EventKey (docs/events.md). Groups exchange
// events peer to peer through a GroupTransport and synchronise either conservatively
// (Chandy–Misra–Bryant guarantees, sent as null messages, with a deadlock watch) or
// optimistically (Time Warp: state saving, rollback, anti-messages, Mattern's GVT, fossil
// collection and a window that bounds optimism). One group alone, conservative, is the
// sequential engine: no links in, nothing to wait for, nothing saved.
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/activity_trace.hpp"
#include "common/request_limits.hpp"
#include "integrator/events/event_cut.hpp"
#include "integrator/events/group_progress.hpp"
#include "integrator/events/group_transport.hpp"
#include "integrator/events/logical_process.hpp"

namespace kausal::des {

enum class GroupSync : std::uint8_t { conservative, optimistic };

// What an optimistic rollback does with the events the undone events sent.
enum class Cancellation : std::uint8_t {
  aggressive,  // cancel them at once (anti-messages)
  lazy,        // keep them until the sender has re-executed past them: a resent event that
               // equals the old one stands, only the others are cancelled
};

struct GroupSettings {
  GroupSync sync = GroupSync::conservative;
  double end = 0;  // events with a time below `end` are processed, the rest stay pending
  // Every event below `start` is committed already: a run continued from an EventCut at
  // that time (EventGroup::continue_from); 0 for a run from the start.
  double start = 0;
  // Optimistic: only events below GVT + window are processed, which bounds the state
  // lists and the work a rollback can undo.
  double window = std::numeric_limits<double>::infinity();
  StateSaving saving = StateSaving::full;
  Cancellation cancellation = Cancellation::aggressive;
  std::uint32_t batch = 64;           // events between looks at the mailbox
  std::uint64_t gvt_interval = 1024;  // events group 0 processes between GVT rounds
  // --rollback-check: every event is handled, its component restored as a rollback
  // restores it (optimistic: from its state list; conservative: from a copy) and the event
  // handled again; the state and the events sent must come out the same, bit for bit.
  bool rollback_check = false;
};

struct GroupFigures {
  std::uint64_t messages = 0;       // events and anti-events sent to other groups
  std::uint64_t null_messages = 0;  // guarantees sent
  // Hand-overs to other groups (each a call in the process layout), of everything the
  // group sends them: events, anti-events, guarantees, GVT messages.
  std::uint64_t batches = 0;
  std::uint64_t gvt_rounds = 0;
  std::uint64_t permits = 0;         // events processed by permission of the deadlock watch
  double blocked_seconds = 0;        // waiting for a message with nothing to do
  double wall_seconds = 0;           // from its start to its end (set by whoever runs it)
  std::size_t peak_uncommitted = 0;  // the longest processed list, summed over components
  // Optimistic: model errors a speculative event raised and the group held back (each until
  // an earlier event cleared it, or GVT passed it and it was thrown), and those cleared.
  std::uint64_t deferred_errors = 0;
  std::uint64_t cleared_errors = 0;
};

// Receives every committed event of a component, oldest first.
class CommitSink {
 public:
  virtual ~CommitSink() = default;
  virtual void committed(ComponentId component, const Event& event) = 0;
};

class EventGroup {
 public:
  // `owner[c]` is the group of component c; this group runs those with owner == self.
  // `transport` may be null when there is one group.
  // `watch`, if given, is called after every batch with the time below which this group
  // has committed everything; when it returns false the group stops (Interrupted).
  EventGroup(const EventModel& model, GroupId self, std::vector<GroupId> owner,
             const GroupSettings& settings, GroupTransport* transport, CommitSink& sink,
             std::function<bool(double)> watch = {});

  // Runs until the end time is committed everywhere, or a stop message arrives. Throws
  // what a handler throws (ModelError: at once when conservative; when optimistic, once GVT
  // passes the failed event, since a rollback may still undo it) and ProtocolError for a
  // message that breaks the protocol; the caller stops the other groups.
  void run();
  // ---- driven by its caller instead of run() (a hybrid model's sequential run,
  // monitor/sync/hybrid_coupling.hpp): the caller is the other group and decides, through
  // its guarantees, how far this one may go ----
  // Starts the components and hands on what they sent.
  void begin();
  // The key of the next pending event below the end; nullopt when there is none.
  std::optional<EventKey> next_key() const;
  // Takes what has arrived, processes every pending event the guarantees allow and hands on
  // what they sent; never waits. Returns the events processed.
  std::size_t settle();
  // No event at or after `time` is processed until the hold moves (infinity: none): a hybrid
  // model's cut (monitor/core/bridge_point.hpp).
  void hold_before(double time) { hold_ = time; }
  // Lets the next settle() process the event with `key` and those before it whatever the
  // guarantees say: the caller knows that no event before it can arrive any more (its
  // deadlock watch, monitor/sync/discrete_side.hpp).
  void permit(const EventKey& key) { permit_ = key; }

  // Before run(): the group's components take their states and pending events from `cut`
  // (at settings.start) instead of starting.
  void continue_from(const EventCut& cut);
  // After run() has returned at the end (or, driven by its caller, once every event below
  // cut.time is processed and none after it): takes in what other groups sent it meanwhile
  // (they may send events at or after the end until they finish), then adds its components'
  // states and pending events to `cut` (whose vectors are sized for every component).
  void add_to_cut(EventCut& cut);
  // The time below which this group has committed every event (at most the end).
  double committed_horizon() const;

  const std::vector<LogicalProcess>& components() const { return lps_; }
  const GroupFigures& figures() const { return figures_; }
  // Its batches (busy), rollbacks and fossil collections (commit), for trace.json.
  const ActivityTrace& activity() const { return activity_; }
  // What it had done when it last published (at most progress_period ago while it runs,
  // and when run() returns). Thread-safe: read while the group runs.
  GroupProgress progress() const;
  static constexpr std::uint64_t progress_period_ns = 1'000'000;
  // The most events pending at once: the group's share of the memory budget (an event in
  // the pending set costs about twice its size).
  static constexpr std::size_t max_pending =
      limits::steps_within(limits::held_bytes, 2 * sizeof(Event));

 private:
  struct ByKey {
    using is_transparent = void;
    bool operator()(const Event& a, const Event& b) const { return a.key < b.key; }
    bool operator()(const Event& a, const EventKey& b) const { return a.key < b; }
    bool operator()(const EventKey& a, const Event& b) const { return a < b.key; }
  };

  using Pending = std::set<Event, ByKey>;
  // Optimistic: the ModelError a component's handler raised on the event with `key`, held
  // while that component's events wait in the pending list (docs/events.md).
  struct DeferredError {
    EventKey key;
    std::exception_ptr error;
  };

  LogicalProcess& local(ComponentId c) { return lps_[local_index_[c]]; }
  void start_components();
  void take_in_flight();
  std::size_t process_batch();
  Pending::const_iterator next_event() const;
  bool may_process(const Event& next) const;
  void process_next(Pending::const_iterator next);
  // The rollback check of `event`, just handled by `lp` from `before` (conservative: the
  // state before it; optimistic: null, the state list holds it): ModelError naming the
  // component unless handling it again from the restored state gives the same bits.
  void check_reexecution(LogicalProcess& lp, const Event& event, const ComponentState* before);
  void defer_error(LogicalProcess& lp, const Event& event, std::exception_ptr error);
  void reconsider(ComponentId component, const EventKey& key);
  const DeferredError* real_error(double gvt) const;
  void route(const Event& event);
  void post(GroupId to, MessageKind kind, const Event& event);
  void deliver(const Event& event);
  void add_pending(const Event& event);
  void cancel(const Event& event);
  void rollback(LogicalProcess& lp, const EventKey& key);
  void withdraw(LogicalProcess& lp, const Event& sent);
  // Lazy cancellation: withdraws what undone events (keys below `bound`, or up to it when
  // `inclusive`) sent and nothing resent.
  void settle_lazy(EventKey bound,
                   bool inclusive);  // by value: it may erase the event it came from
  void settle_lazy_before_next();
  bool resent_unchanged(const Event& sent);
  void commit(ComponentId component, const Event& event);
  void handle(GroupMessage& message);
  void flush();
  bool finished() const;
  void wait_for_messages();
  std::size_t receive(std::chrono::microseconds wait);

  // Conservative.
  void set_guarantee(GroupId from, double time);
  double lower_bound() const;
  void send_guarantees();

  // Optimistic (Mattern's GVT; group 0 starts each computation).
  void gvt_duties(bool idle);
  void start_gvt_round();
  void handle_token(GvtToken token);
  void cut_one(GvtToken& token);
  void try_release_token();
  void forward_token(GvtToken token);
  void apply_gvt(double gvt);
  double local_minimum() const;

  const EventModel& model_;
  GroupId self_;
  std::vector<GroupId> owner_;
  std::uint32_t groups_ = 1;
  GroupSettings settings_;
  GroupTransport* transport_;
  CommitSink& sink_;
  std::function<bool(double)> watch_;
  std::string name_;

  std::vector<LogicalProcess> lps_;
  std::vector<std::uint32_t> local_index_;
  std::vector<EventKey> last_processed_;  // conservative: per local component
  Pending pending_;
  // Lazy cancellation: the events undone events had sent and nobody has withdrawn yet, by
  // their own key (a re-execution that sends one again, whichever event re-sends it, finds
  // it there) and in the order of the undone event that sent them (settle_lazy).
  struct KeyLess {
    bool operator()(const EventKey& a, const EventKey& b) const { return a < b; }
  };
  struct Held {
    EventKey parent;
    Event event;
  };
  std::map<EventKey, Held, KeyLess> lazy_;
  std::set<std::pair<EventKey, EventKey>, std::less<>> lazy_by_parent_;
  void hold(const EventKey& parent, const Event& sent);
  std::optional<Event> take_held(const EventKey& key);
  std::vector<Event> outbox_;
  std::vector<std::vector<GroupMessage>> outgoing_;
  std::vector<GroupMessage> inbox_;
  bool stopped_ = false;
  double hold_ = std::numeric_limits<double>::infinity();  // hold_before
  bool continued_ = false;  // from a cut: the components do not start again
  GroupFigures figures_;
  ActivityTrace activity_;
  // The live view of this group: its virtual time, and its counts copied out for readers on
  // other threads at most every progress_period_ns (summing the components is not free).
  double clock_ = 0;
  void publish_progress(bool now);
  std::uint64_t published_ns_ = 0;
  mutable std::mutex progress_mutex_;
  GroupProgress published_;

  // Conservative: the guarantee of each group with a link to this one, their minimum,
  // the lookahead of this group's links to each group and the guarantee last sent there.
  std::vector<std::optional<double>> channel_;
  double safe_ = std::numeric_limits<double>::infinity();
  std::vector<std::optional<double>> out_lookahead_;
  std::vector<double> sent_guarantee_;
  std::optional<EventKey> permit_;

  // Optimistic.
  double gvt_ = 0;
  std::uint64_t epoch_ = 0;
  std::vector<std::int64_t> sent_in_colour_[2];
  std::int64_t received_in_colour_[2] = {0, 0};
  double red_minimum_ = std::numeric_limits<double>::infinity();
  std::optional<GvtToken> held_token_;
  bool round_running_ = false;
  std::uint64_t events_since_round_ = 0;
  // Optimistic: per local component, its standing deferred error, if any.
  std::vector<std::optional<DeferredError>> errors_;
  std::size_t held_ = 0;  // components with a standing error
};

}  // namespace kausal::des
