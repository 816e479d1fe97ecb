#include "monitor/sync/hybrid_coupling.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>

#include "common/bridge_mark.hpp"
#include "common/errors.hpp"
#include "integrator/events/event_group.hpp"
#include "integrator/events/event_recorder.hpp"
#include "integrator/stepper.hpp"
#include "monitor/scenario/scenario_limits.hpp"
#include "monitor/sync/discrete_side.hpp"
#include "monitor/sync/execution.hpp"
#include "monitor/sync/fan_out.hpp"
#include "monitor/sync/sequential.hpp"
#include "system/events/bridged_model.hpp"

namespace kausal {
namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

std::vector<des::CrossingRoute> crossing_routes(const BridgeSpec& b) {
  std::vector<des::CrossingRoute> routes;
  for (const EventOutputSpec& o : b.outputs) routes.push_back({o.name, o.component, o.kind});
  return routes;
}

// The discrete side is conservative under every method (its events are final when processed);
// --rollback-check handles each of its events twice, as it does an event run's.
des::GroupSettings group_settings(const PartitionedScenario& s, const PartitionedPlan& plan,
                                  const BridgePoint* from) {
  des::GroupSettings g;
  g.sync = des::GroupSync::conservative;
  g.end = s.t_end;
  g.rollback_check = plan.mode.rollback_check;
  if (from) g.start = from->cut.time;
  return g;
}

// One batch per step: a step is committed, or rolled back, on its own. What a batch carries
// for a resume (multistep memory, indicators, internal state) belongs to its last step.
std::vector<StateBatch> one_per_step(const StateBatch& batch) {
  std::vector<StateBatch> steps;
  for (std::size_t k = 0; k < batch.count(); ++k) {
    StateBatch one = StateBatch::empty_at(batch.epoch, batch.first_step + k);
    one.state_size = batch.state_size;
    one.output_size = batch.output_size;
    const auto state = batch.state(k);
    one.states.assign(state.begin(), state.end());
    const auto outputs = batch.outputs.begin() + static_cast<std::ptrdiff_t>(k * batch.output_size);
    one.outputs.assign(outputs, outputs + static_cast<std::ptrdiff_t>(batch.output_size));
    for (const LocatedCrossing& c : batch.crossings)
      if (c.step == one.first_step) one.crossings.push_back(c);
    if (k + 1 == batch.count()) {
      one.memory = batch.memory;
      one.indicators = batch.indicators;
      one.internal = batch.internal;
    }
    steps.push_back(std::move(one));
  }
  return steps;
}

class HybridCoupling final : public PartitionedCoupling {
 public:
  HybridCoupling(const PartitionedScenario& s, SyncMethod method, std::uint32_t groups,
                 const PartitionedPlan& plan, Deployment& deployment,
                 const PartitionedWatchers& watchers, const BridgePoint* from)
      : PartitionedCoupling(s, plan, watchers),
        method_(method),
        deployment_(deployment),
        model_(*s.bridge->built, crossing_routes(*s.bridge)),
        recorder_(model_.components()),
        discrete_(model_, groups, group_settings(s, plan, from), recorder_),
        lanes_(plan.configs.size()),
        serials_(s.bridge->outputs.size(), 0),
        grid_(common_ticks(plan)) {
    for (std::size_t p = 0; p < lanes_.size(); ++p) {
      lanes_[p].computed = plan.configs[p].first_step;
      lanes_[p].held = plan.configs[p].ports.held0;  // a resumed run's: at its cut
      lanes_[p].promised = std::nextafter(time_of(p, lanes_[p].computed), infinity);
    }
    if (from) continue_from(*from);
    for (std::size_t j = 0; j < plan.event_outputs.size(); ++j)
      output_of_[{plan.event_outputs[j].partition, plan.event_outputs[j].index}] = j;
    // Conservative and optimistic: the partitions that may step take their steps at once, one
    // lane each; this thread is then a component of its own (the monitor's strip).
    if (method_ != SyncMethod::sequential) {
      if (deployment.size() > 1) fan_out_.emplace(deployment.size());
      watch_monitor(monitor_.trace());
    }
    if (!watchers.bridge_log.empty()) open_log(watchers.bridge_log, from);
  }

  bool computes_here() const override { return true; }

  void start(std::uint64_t) override {
    discrete_.begin();
    // A resumed run: the events its discrete side had sent before the cut, for later times.
    for (std::size_t p = 0; p < lanes_.size(); ++p)
      if (!lanes_[p].scheduled.empty()) deployment_.integrator(p).schedule(lanes_[p].scheduled);
    deliver_to_partitions();
  }

  // Goes on until a step is committed (or nothing can move: paced, the clock's next release).
  bool advance(std::uint64_t released) override {
    const std::uint64_t before = committed();
    while (committed() == before)
      if (!iterate(released)) return false;
    return true;
  }

  std::string stalled() const override {
    return "the partitions wait for each other (no partition can step)";
  }

  void finish(RunResult& r) override {
    finish_partitions(r, &deployment_);
    if (method_ == SyncMethod::sequential) {
      add_this_thread(r);
    } else {
      r.counters.monitor_calls = counters_.monitor_calls;
      r.counters.bytes = counters_.bytes;
      add_components(r, {monitor_report(monitor_)});
      add_components(r, deployment_.reports());
    }
    // The run's digest: the partitions' and the discrete components', in that order (none
    // when it failed before its first step).
    if (!r.trajectory_sha256.empty())
      r.trajectory_sha256 = combine_component_digests(
          std::vector<std::string>{r.trajectory_sha256, recorder_.digest()});
    EventFigures e;
    e.model = model_.name();
    e.components = model_.own();
    e.groups = discrete_.groups();
    e.permits = discrete_.permits();
    e.messages = discrete_.peer_events();
    e.end = s_.t_end;
    e.committed_to = r.completed() ? s_.t_end : std::min(discrete_.committed_horizon(), s_.t_end);
    e.resumed_at = resumed_at_;  // (the figures are this attempt's, as an event run's)
    for (const des::LogicalProcess& lp : discrete_.components()) {
      const des::ComponentFigures& f = lp.figures();
      e.processed += f.processed;
      e.per_component.push_back({model_.component_name(lp.id()), f.processed, f.processed});
    }
    e.committed = e.processed;
    e.crossings = crossings_sent_;
    e.to_partitions = to_partitions_;
    r.events = std::move(e);
  }

 protected:
  Deployment& deployment() override { return deployment_; }

 private:
  struct Lane {
    std::uint64_t computed = 0;            // the Integrator's step
    std::deque<StateBatch> uncommitted;    // one per step, not yet committed
    std::vector<LocatedCrossing> found;    // not yet sent, by time
    std::vector<LocatedCrossing> sent;     // sent, of steps not yet committed
    std::vector<ArrivingEvent> scheduled;  // sent to it, not before its last committed step
    std::vector<double> held;  // its held inputs at its last committed step (events set them)
    // It crosses nothing before this time (exclusive) unless an event reaches it first: just
    // after its computed step, or further by its event outputs' max_rate.
    double promised = -infinity;
  };

  double time_of(std::size_t p, std::uint64_t step) const {
    const IntegratorConfig& c = plan_.configs[p];
    return step_time(c.t0, c.tick, step * c.ticks_per_step);
  }
  bool done(std::size_t p) const { return lanes_[p].computed >= plan_.configs[p].last_step; }

  // The time of the partition furthest behind (infinite when every one is done).
  double horizon() const {
    double h = infinity;
    for (std::size_t p = 0; p < lanes_.size(); ++p)
      if (!done(p)) h = std::min(h, time_of(p, lanes_[p].computed));
    return h;
  }
  double next_crossing() const {
    double t = infinity;
    for (const Lane& lane : lanes_)
      if (!lane.found.empty()) t = std::min(t, lane.found.front().time);
    return t;
  }
  double next_event() const {
    const auto key = discrete_.next_key();
    return key ? key->time : infinity;
  }

  // What the partitions' side promises the discrete side: no crossing before this time, when
  // `crossing` was the earliest crossing found at this move (sent now if it was due). What
  // comes first and may change what the partitions do — that crossing (its answer), the next
  // discrete event, a planned cut — may be processed up to and including its time, never
  // after it; never at or past a crossing found and not sent yet; and no partition crosses
  // before its promise.
  double no_crossing_before(double crossing) const {
    double free = infinity;
    for (std::size_t p = 0; p < lanes_.size(); ++p)
      if (!done(p)) free = std::min(free, lanes_[p].promised);
    const double known = std::min({crossing, next_event(), cut_ ? cut_time_ : infinity});
    return std::min({std::nextafter(known, infinity), next_crossing(), free});
  }

  // Partition p's promise after `batch`, its last step: just after the step; with max_rate on
  // every one of its event outputs, |value| / max_rate later (the least of them), a rounding
  // short; never past an event scheduled for it (which may change what it watches).
  double promise_after(std::size_t p, const StateBatch& batch) const {
    const double t = time_of(p, lanes_[p].computed);
    const double after_step = std::nextafter(t, infinity);
    const EventPorts& ports = plan_.configs[p].ports;
    if (ports.outputs.empty()) return infinity;
    double margin = infinity;
    for (std::uint32_t k = 0; k < ports.outputs.size(); ++k) {
      const EventOutput& o = ports.outputs[k];
      const std::optional<double>& rate = s_.bridge->outputs[output_of_.at({p, k})].max_rate;
      const std::size_t last = (batch.count() - 1) * batch.output_size;
      const double value =
          o.of == CrossingOf::indicator
              ? (o.index < batch.indicators.size() ? batch.indicators[o.index] : infinity)
              : batch.outputs.at(last + o.index) - o.level;
      if (!rate || !std::isfinite(value)) return after_step;
      margin = std::min(margin, std::abs(value) / *rate);
    }
    double promise = std::max(after_step, std::nextafter(t + margin, -infinity));
    for (const ArrivingEvent& e : lanes_[p].scheduled)
      if (e.key.time >= t) {
        promise = std::min(promise, std::nextafter(e.key.time, infinity));
        break;
      }
    return promise;
  }

  // One move of the sequential algorithm: the earliest of the next crossing, the next
  // discrete event and the partition furthest behind decides what happens.
  bool iterate(std::uint64_t released) {
    plan_cut();
    const double behind = horizon(), crossing = next_crossing();
    // Nothing at or after a planned cut happens on this side before the cut is taken.
    const double t = std::min({behind, crossing, next_event(), cut_ ? cut_time_ : infinity});
    bool moved = false;
    {
      // A distributed run's monitor thread is busy here: the discrete side, the commits.
      std::optional<BusyScope> busy;
      if (method_ != SyncMethod::sequential) busy.emplace(monitor_, SpanTag{ActivityCall::route});
      if (crossing == t) moved = send_crossings_at(t);
      if (t < infinity) {
        guarantee(no_crossing_before(crossing));
        if (discrete_.settle() > 0) moved = true;
        if (deliver_to_partitions()) moved = true;
      }
      if (commit_what_is_final()) moved = true;
      if (cut_ && cut_ready()) moved = take_cut();
    }
    if (t < infinity && step_partitions(behind, t, released)) moved = true;
    return moved;
  }

  // Whether partition p takes its next step now, when nothing can happen before `t` and the
  // partitions furthest behind stand at `behind`. Sequential and conservative: only those,
  // and only when nothing else comes first; they may be cut by an answer to a crossing found
  // in the same step. Optimistic: any partition within its window of steps past its last
  // committed one, rolled back if an event arrives in what it computed.
  bool may_step(std::size_t p, double behind, double t) const {
    if (done(p)) return false;
    if (method_ == SyncMethod::optimistic)
      return lanes_[p].uncommitted.size() < std::max<std::uint64_t>(1, plan_.mode.window);
    const double at = time_of(p, lanes_[p].computed);
    return behind == t && at == behind && !(cut_ && at >= cut_time_);
  }

  // The partitions that may step take one step each: in turn (sequential) or at once, one
  // lane each (conservative, optimistic). Returns whether any stepped.
  bool step_partitions(double behind, double t, std::uint64_t released) {
    const std::size_t n = lanes_.size();
    std::vector<char> stepping(n, 0);
    std::size_t count = 0;
    for (std::size_t p = 0; p < n; ++p)
      if (may_step(p, behind, t)) stepping[p] = 1, ++count;
    if (count == 0) return false;
    std::vector<std::optional<StateBatch>> batches(n);
    const auto step_if_due = [&](std::size_t p) {
      if (stepping[p]) batches[p] = step(p, released);
    };
    // A distributed run's round of calls, as the monitor's trace shows it (the calls' and
    // the crossings' arrows start and end in it; waiting, not busy).
    std::optional<CallScope> round;
    if (method_ != SyncMethod::sequential) round.emplace(monitor_, SpanTag{ActivityCall::grant});
    if (fan_out_ && count > 1)
      fan_out_->run(step_if_due);
    else
      for (std::size_t p = 0; p < n; ++p) step_if_due(p);
    round.reset();
    bool moved = false;
    for (std::size_t p = 0; p < n; ++p) {
      if (!batches[p]) continue;
      count_call(batch_bytes(*batches[p]));
      if (take_step(p, *batches[p])) moved = true;
    }
    return moved;
  }

  // Partition p's next step, if the clock allows (on a lane of its own: touches nothing but
  // the partition's port).
  std::optional<StateBatch> step(std::size_t p, std::uint64_t released) {
    const std::uint64_t next = lanes_[p].computed + 1;
    if (released != unpaced && next > released_state(plan_.configs[p], released))
      return std::nullopt;
    const std::uint64_t gvt = delivered_.next(p) > 0 ? delivered_.next(p) - 1 : 0;
    return deployment_.integrator(p).advance(next, gvt);
  }

  // The step a partition took: open until no event can arrive in it any more.
  bool take_step(std::size_t p, const StateBatch& batch) {
    if (batch.count() == 0) return false;  // its inputs are not there yet
    for (const LocatedCrossing& c : batch.crossings) check_crossing(p, batch, c);
    Lane& lane = lanes_[p];
    lane.computed = batch.first_step + batch.count() - 1;
    for (StateBatch& one : one_per_step(batch)) lane.uncommitted.push_back(std::move(one));
    for (const LocatedCrossing& c : batch.crossings) take_found(p, c);
    lane.promised = promise_after(p, batch);
    return true;
  }

  // A crossing as it arrived from partition p (over the wire, in the process layout): of one
  // of the batch's steps, inside that step, of an event output the partition has, finite.
  void check_crossing(std::size_t p, const StateBatch& batch, const LocatedCrossing& c) const {
    const bool fits = c.step >= batch.first_step && c.step < batch.first_step + batch.count() &&
                      c.step > 0 && output_of_.contains({p, c.output}) &&
                      c.time > time_of(p, c.step - 1) && c.time <= time_of(p, c.step) &&
                      std::isfinite(c.value);
    if (!fits)
      throw ProtocolError(deployment_.integrator(p).name(),
                          "a crossing of event output " + std::to_string(c.output) +
                              " at t = " + std::to_string(c.time) + " for step " +
                              std::to_string(c.step) + " does not fit the batch of steps " +
                              std::to_string(batch.first_step) + ".." +
                              std::to_string(batch.first_step + batch.count() - 1) +
                              " (an output it has, inside its step, a finite value)");
  }

  // A crossing found by a step: new, or one that a step taken again after a rollback found
  // again (then it must be the one sent before).
  void take_found(std::size_t p, const LocatedCrossing& c) {
    Lane& lane = lanes_[p];
    if (c.time <= sent_up_to_) {
      const auto again = std::find(lane.sent.begin(), lane.sent.end(), c);
      if (again == lane.sent.end())
        throw SimulationError("partition '" + s_.partitions[p].name +
                              "': a crossing at t = " + std::to_string(c.time) +
                              " appeared when a step was taken again after an event; the event "
                              "outputs must not cross more than once within a step");
      return;
    }
    if (c.time < guaranteed_) {
      const EventOutputSpec& o = s_.bridge->outputs[output_of_.at({p, c.output})];
      throw SimulationError("event output " + o.name + ": crossed at t = " + format_number(c.time) +
                            ", before t = " + format_number(guaranteed_) +
                            ", up to which its max_rate (" + format_number(o.max_rate.value_or(0)) +
                            " per second) promised the discrete side no crossing: the value "
                            "changed faster than that (raise max_rate, or remove it)");
    }
    const auto at = std::upper_bound(
        lane.found.begin(), lane.found.end(), c,
        [](const LocatedCrossing& a, const LocatedCrossing& b) { return a.time < b.time; });
    lane.found.insert(at, c);
  }

  // Every crossing located at time t goes to the discrete side, in partition and output order.
  bool send_crossings_at(double t) {
    bool sent = false;
    for (std::size_t p = 0; p < lanes_.size(); ++p) {
      Lane& lane = lanes_[p];
      while (!lane.found.empty() && lane.found.front().time == t) {
        const LocatedCrossing c = lane.found.front();
        lane.found.erase(lane.found.begin());
        const std::size_t j = output_of_.at({p, c.output});
        const des::CrossingRoute& route = model_.crossings()[j];
        discrete_.post(des::Event{des::EventKey{t, model_.crossing(j), serials_[j]++},
                                  route.component, route.kind, c.value});
        lane.sent.push_back(c);
        ++crossings_sent_;
        log(t, "crossing", route.name.substr(0, route.name.find(' ')),
            model_.component_name(route.component) + "." + model_.kind_name(route.kind), c.value);
        sent = true;
      }
    }
    sent_up_to_ = std::max(sent_up_to_, t);
    return sent;
  }

  // No crossing from this side before `time`: the event groups may process what lies before.
  void guarantee(double time) {
    if (model_.crossings().empty()) return;
    guaranteed_ = std::max(guaranteed_, time);
    discrete_.guarantee(time);
  }

  // The events the discrete side sent on its ports, to the event inputs they are connected
  // to; a partition that has computed past an event's time is rolled back to the step that
  // reaches it.
  bool deliver_to_partitions() {
    const std::vector<des::Event> sent = discrete_.take_for_partitions();
    if (sent.empty()) return false;
    std::map<std::size_t, std::vector<ArrivingEvent>> to;
    for (const des::Event& e : sent) {
      if (!(e.key.time < s_.t_end)) continue;  // after the run
      for (std::size_t i = 0; i < s_.bridge->inputs.size(); ++i) {
        const EventInputSpec& in = s_.bridge->inputs[i];
        if (model_.port(in.port) != e.destination) continue;
        to[plan_.event_inputs[i].partition].push_back(
            {e.key, plan_.event_inputs[i].index, e.value});
        log(e.key.time, in.effect == EventEffect::add_state ? "add" : "set",
            model_.component_name(e.key.source) + "." + s_.bridge->built->ports()[in.port],
            in.target(s_.subsystems), e.value);
      }
    }
    for (auto& [p, events] : to) {
      to_partitions_ += events.size();
      double earliest = infinity;
      for (const ArrivingEvent& e : events) earliest = std::min(earliest, e.key.time);
      if (time_of(p, lanes_[p].computed) > earliest) roll_back(p, earliest);
      // From the event on, the partition's promise no longer holds.
      lanes_[p].promised = std::min(lanes_[p].promised, std::nextafter(earliest, infinity));
      deployment_.integrator(p).schedule(events);
      std::vector<ArrivingEvent>& scheduled = lanes_[p].scheduled;
      for (const ArrivingEvent& e : events)
        scheduled.insert(std::upper_bound(scheduled.begin(), scheduled.end(), e,
                                          [](const ArrivingEvent& a, const ArrivingEvent& b) {
                                            return a.key < b.key;
                                          }),
                         e);
      count_call(40 * events.size());
    }
    return true;
  }

  // Partition p back to the step whose time span [t_k, t_k+1) holds t.
  void roll_back(std::size_t p, double t) {
    Lane& lane = lanes_[p];
    std::uint64_t k = lane.computed;
    while (k > 0 && time_of(p, k) > t) --k;
    deployment_.integrator(p).rollback(k);
    count_call(8);
    lane.computed = k;
    lane.promised = std::nextafter(time_of(p, k), infinity);
    while (!lane.uncommitted.empty() && lane.uncommitted.back().first_step > k)
      lane.uncommitted.pop_back();
    std::erase_if(lane.found, [&](const LocatedCrossing& c) { return c.step > k; });
  }

  // Steps that end before anything can still happen are final: the next crossing, the next
  // discrete event, the partition furthest behind (an event at a step's end time takes
  // effect at the start of the next step).
  bool commit_what_is_final() {
    const double bound =
        std::min({horizon(), next_crossing(), next_event(), cut_ ? cut_time_ : infinity});
    bool committed_any = false;
    for (std::size_t p = 0; p < lanes_.size(); ++p) {
      Lane& lane = lanes_[p];
      bool took = false;
      while (!lane.uncommitted.empty() &&
             time_of(p, lane.uncommitted.front().first_step) <= bound) {
        route(p, lane.uncommitted.front(), true, counting());
        lane.uncommitted.pop_front();
        took = committed_any = true;
      }
      // No commit call: the partition's next advance carries its gvt (Integrator::advance
      // commits as commit() does), so committing costs no call of its own.
      if (!took) continue;
      const std::uint64_t gvt = delivered_.next(p) - 1;
      std::erase_if(lane.sent, [&](const LocatedCrossing& c) { return c.step <= gvt; });
      fold_applied(p);
    }
    return committed_any;
  }

  // Events before partition p's last committed step are in its state: those that set a held
  // input are folded into the lane's held inputs (what a cut keeps of them).
  void fold_applied(std::size_t p) {
    Lane& lane = lanes_[p];
    const double t = time_of(p, delivered_.next(p) - 1);
    auto applied = lane.scheduled.begin();
    for (; applied != lane.scheduled.end() && applied->key.time < t; ++applied) {
      const EventInput& in = plan_.configs[p].ports.inputs.at(applied->input);
      if (in.effect == EventEffect::set_input) lane.held.at(in.index) = applied->value;
    }
    lane.scheduled.erase(lane.scheduled.begin(), applied);
  }

  // ---- cuts: where a run can be resumed from (monitor/core/bridge_point.hpp) ----

  // Plans a cut when an observer wants one (the checkpointer, about once a second), and one at
  // the end (a finished run's checkpoint says so): at the first tick where every partition's
  // steps meet, at or after every step computed and after every event the discrete side has
  // been allowed to process. Until it is taken, no partition steps past it (sequential,
  // conservative), nothing is committed past it and the discrete side stops before it.
  void plan_cut() {
    if (cut_ || end_cut_taken_) return;
    bool all_done = true;
    std::uint64_t ahead = 0;
    for (std::size_t p = 0; p < lanes_.size(); ++p) {
      all_done = all_done && done(p);
      ahead = std::max(ahead, lanes_[p].computed * plan_.configs[p].ticks_per_step);
    }
    if (!all_done && !watchers_.commits.wants_cut()) return;
    // (Strictly after what is committed: a resumed run does not cut where it began.)
    std::uint64_t tick = std::max((ahead + grid_ - 1) / grid_, committed() / grid_ + 1) * grid_;
    const auto time_at = [&](std::uint64_t k) { return step_time(s_.t0(), s_.tick, k); };
    while (tick < s_.ticks && time_at(tick) < guaranteed_) tick += grid_;
    cut_ = std::min(tick, s_.ticks);
    cut_time_ = time_at(*cut_);
    if (!model_.crossings().empty()) discrete_.hold_before(cut_time_);
  }

  // Every partition has committed its steps up to the cut and none after it, every crossing up
  // to it has gone to the discrete side, and that has processed every event before it.
  bool cut_ready() const {
    for (std::size_t p = 0; p < lanes_.size(); ++p) {
      if (delivered_.next(p) == 0 ||
          (delivered_.next(p) - 1) * plan_.configs[p].ticks_per_step != *cut_)
        return false;
      if (!lanes_[p].found.empty() && lanes_[p].found.front().time <= cut_time_) return false;
    }
    const auto next = discrete_.next_key();
    return !discrete_.mail_waiting() && (!next || next->time >= cut_time_);
  }

  // Tells the observers where the run stands and lets it go on. Without event outputs nothing
  // reaches the discrete side from the partitions: it may stand later than they do.
  bool take_cut() {
    BridgePoint b;
    des::EventCut& cut = b.cut;
    cut.time = model_.crossings().empty() ? discrete_.committed_horizon() : cut_time_;
    cut.states.resize(model_.components());
    discrete_.add_to_cut(cut);
    for (std::size_t j = 0; j < serials_.size(); ++j)
      cut.states[model_.crossing(j)].sent = serials_[j];
    b.digests = recorder_.midstates();
    for (const Sha256::Midstate& m : b.digests)
      cut.committed.push_back(m.length / EventRecorder::record_bytes);
    for (const Lane& lane : lanes_) b.partitions.push_back({lane.held, lane.scheduled});
    b.serials = serials_;
    if (log_.is_open()) {
      log_.flush();
      b.log_bytes = static_cast<std::uint64_t>(log_.tellp());
    }
    watchers_.commits.cut_reached(b);
    end_cut_taken_ = *cut_ == s_.ticks;
    cut_.reset();
    discrete_.hold_before(infinity);
    return true;
  }

  // A resumed run: the discrete side, the partitions' held inputs and pending events.
  void continue_from(const BridgePoint& from) {
    discrete_.continue_from(from.cut);
    recorder_.restore(from.digests);
    for (std::size_t p = 0; p < lanes_.size(); ++p)
      lanes_[p].scheduled = from.partitions.at(p).scheduled;
    serials_ = from.serials;
    resumed_at_ = from.cut.time;
  }

  // bridge.csv: new, or a resumed run's cut back to where its checkpoint was taken.
  void open_log(const std::filesystem::path& file, const BridgePoint* from) {
    if (!from) {
      log_.open(file, std::ios::trunc);
      if (!log_) throw InputError(file.string() + ": cannot write");
      log_ << kBridgeHeader << '\n';
      return;
    }
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    if (ec || size < from->log_bytes)
      throw InputError(file.string() + ": missing or shorter than the " +
                       std::to_string(from->log_bytes) + " bytes the checkpoint continues");
    std::filesystem::resize_file(file, from->log_bytes);
    log_.open(file, std::ios::app);
    if (!log_) throw InputError(file.string() + ": cannot write");
  }

  // A distributed run's calls to the partitions (a sequential run's are calls in this thread):
  // each request counted once, with its payload (8 bytes per value).
  void count_call(std::uint64_t bytes) {
    if (method_ == SyncMethod::sequential) return;
    ++counters_.monitor_calls;
    counters_.bytes += bytes;
  }
  MethodCounters* counting() { return method_ == SyncMethod::sequential ? nullptr : &counters_; }

  // A row of bridge.csv and a mark of the live view: every event across the boundary, in the
  // order they take effect.
  void log(double t, const char* what, const std::string& from, const std::string& to,
           double value) {
    if (watchers_.observer) watchers_.observer->marked(t, bridge_mark_label(what, to, value));
    if (!log_.is_open()) return;
    char numbers[2][32];
    std::snprintf(numbers[0], sizeof numbers[0], "%.17g", t);
    std::snprintf(numbers[1], sizeof numbers[1], "%.17g", value);
    log_ << numbers[0] << ',' << what << ',' << from << ',' << to << ',' << numbers[1] << '\n';
  }

  const SyncMethod method_;
  Deployment& deployment_;
  std::optional<FanOut> fan_out_;  // conservative and optimistic, more than one partition
  ActivityClock monitor_;          // this thread, in a conservative or optimistic run
  MethodCounters counters_;        // its calls to the partitions
  des::BridgedModel model_;
  EventRecorder recorder_;
  DiscreteSide discrete_;
  std::vector<Lane> lanes_;
  std::vector<std::uint64_t> serials_;  // per event output: its next crossing's serial
  std::map<std::pair<std::size_t, std::uint32_t>, std::size_t> output_of_;  // → scenario's
  double guaranteed_ = -infinity;
  double sent_up_to_ = -infinity;  // every crossing up to this time has been sent
  std::uint64_t crossings_sent_ = 0;
  std::uint64_t to_partitions_ = 0;
  std::ofstream log_;                 // bridge.csv
  const std::uint64_t grid_;          // the ticks where every partition's steps meet
  std::optional<std::uint64_t> cut_;  // the tick of a planned cut, until it is taken
  double cut_time_ = infinity;        // its time
  bool end_cut_taken_ = false;        // the cut at the run's end
  double resumed_at_ = 0;             // a resumed run's cut (its discrete side's time)
};

}  // namespace

RunResult run_hybrid(const PartitionedScenario& s, SyncMethod method, std::uint32_t groups,
                     const PartitionedPlan& plan, Deployment& deployment, RunControl& control,
                     const PartitionedWatchers& watchers, const BridgePoint* from) {
  RunResult described = describe_partitioned_run(s, method, plan.mode);
  try {
    HybridCoupling coupling(s, method, groups, plan, deployment, watchers, from);
    return execute(coupling, std::move(described), control, {watchers.clock, watchers.injections});
  } catch (const Error& e) {
    described.end_with(e);
    return described;
  }
}

}  // namespace kausal
