#include "monitor/sync/cosim_master.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <mutex>
#include <optional>

#include "common/errors.hpp"
#include "integrator/stepper.hpp"
#include "monitor/core/linear_surrogate.hpp"
#include "monitor/sync/execution.hpp"
#include "monitor/sync/fan_out.hpp"
#include "monitor/sync/sequential.hpp"

namespace kausal {
namespace {

using Clock = std::chrono::steady_clock;

// Samples of a producer's output kept for predictions: enough for order 2 chosen a
// posteriori by least squares (n + 2 samples without the newest).
constexpr std::size_t kHistory = 6;

// A coupling between partitions as the master sees it.
struct Link {
  std::size_t producer = 0, output = 0;  // partition, index in its outputs
  std::size_t consumer = 0, channel = 0;
  const CouplingSpec* spec = nullptr;
  std::deque<TimedSample> history;     // the producer's output at accepted communication points
  std::optional<Prediction> previous;  // what the consumer was given over the last accepted step
  Prediction used;                     // over the current step, as shipped
  Prediction extrapolated;             // from the history alone: what the error control scores
  std::optional<double> fresh;         // the producer's output at the end of the current step
};

Link link(const PartitionedScenario& s, std::size_t producer, const Route& r) {
  Link l;
  l.producer = producer;
  l.output = r.output;
  l.consumer = r.consumer;
  l.channel = r.channel;
  l.spec = &s.couplings[partition_inputs(s, r.consumer)[r.channel]];
  return l;
}

std::string seconds(double t) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g s", t);
  return buffer;
}

class Master final : public PartitionedCoupling {
 public:
  Master(const PartitionedScenario& s, const PartitionedPlan& plan, Deployment& deployment,
         const PartitionedWatchers& watchers, bool concurrent, bool own_thread,
         const MasterPoint* from)
      : PartitionedCoupling(s, plan, watchers),
        m_(master_of(s)),
        deployment_(deployment),
        own_thread_(own_thread),
        from_(from),
        pending_(plan.configs.size()) {
    figures_.exchange = m_.exchange == ExchangeOrder::gauss_seidel ? "gauss-seidel" : "jacobi";
    check(m_.control);
    for (std::size_t p = 0; p < plan.routes.size(); ++p)
      for (const Route& r : plan.routes[p]) links_.push_back(link(s, p, r));
    order_ = exchange_order();
    // A macro step is one grant: it must fit every partition's state list.
    max_ticks_ = m_.max_ticks;
    for (const IntegratorConfig& c : plan.configs) {
      const std::uint64_t fits = held_steps_within_budget(c) * c.ticks_per_step;
      max_ticks_ =
          std::min(max_ticks_, std::max(m_.grid_ticks, fits / m_.grid_ticks * m_.grid_ticks));
    }
    min_ticks_ = std::min(m_.min_ticks, max_ticks_);
    h_ = std::clamp(m_.step_ticks, min_ticks_, max_ticks_);
    // A partition whose model cannot restore its state (an FMU without get/set state) cannot
    // repeat a step: without a surrogate the error control then only sets the next step
    // (plan_partitions refuses iterations for it); with one, it steps once per macro step,
    // when the step is accepted.
    stand_ins_.resize(plan.configs.size());
    into_.resize(plan.configs.size());
    from_links_.resize(plan.configs.size());
    for (std::size_t i = 0; i < links_.size(); ++i) {
      into_[links_[i].consumer].push_back(i);
      from_links_[links_[i].producer].push_back(i);
    }
    for (std::size_t q = 0; q < plan.configs.size(); ++q)
      if (m_.surrogate && !plan.unrestorable[q].empty()) {
        stand_ins_[q].emplace(links_into(q).size(), links_from(q).size(), m_.surrogate_window);
        ++figures_.surrogates;
      }
    can_roll_back_ = true;
    for (std::size_t q = 0; q < plan.configs.size(); ++q)
      if (!plan.unrestorable[q].empty() && !stand_ins_[q]) can_roll_back_ = false;
    if (concurrent && m_.exchange == ExchangeOrder::jacobi && deployment.size() > 1)
      fan_out_.emplace(deployment.size());
    // In a distributed run the master's thread is a component of its own, as the monitor of
    // every other distributed run (a strip of the live view, a row of the summary).
    if (own_thread_) watch_monitor(monitor_.trace());
  }

  bool computes_here() const override { return true; }

  // The first states: every partition publishes its start (advance to step 0). A resumed
  // run: the master as its checkpoint left it (the partitions start there by their plan).
  void start(std::uint64_t) override {
    if (from_) return resume(*from_);
    for (std::size_t p = 0; p < deployment_.size(); ++p) {
      const StateBatch batch = deployment_.integrator(p).advance(0, 0);
      ++figures_.messages;
      if (batch.count() > 0) commit(p, batch);
      for (Link& l : links_)
        if (l.producer == p) l.history.push_back({time_of(0), output_at_end(batch, l.output)});
    }
  }

  // One macro step from the committed tick T, once the clock has released step T (a macro
  // step is computed ahead, as a slow partition's step: its inner ticks exist only at its
  // end).
  bool advance(std::uint64_t released) override {
    const std::uint64_t t = delivered_.horizon();
    if (t >= released) return false;
    // A step cut short by a synchronisation point or the end does not shrink the next one;
    // without error control every step is the nominal one again.
    const std::uint64_t room = room_after(t);
    const std::uint64_t proposed = macro_step(t, std::min(h_, room));
    if (m_.error_control) h_ = room < h_ ? std::max(proposed, h_) : proposed;
    watchers_.commits.macro_step_accepted(point(h_));
    // The last step is accepted too: committed like every other (the next advance would
    // have), so that nothing of it stays open to rollback in the Integrators and their traces.
    if (delivered_.horizon() >= s_.ticks) {
      for (std::size_t q = 0; q < deployment_.size(); ++q) {
        deployment_.integrator(q).commit(s_.ticks / plan_.configs[q].ticks_per_step);
        ++figures_.messages;
      }
    }
    return true;
  }

  void finish(RunResult& r) override {
    finish_partitions(r, &deployment_);
    r.cosimulation = figures_;
    r.counters.monitor_calls = figures_.messages;
    r.counters.bytes = figures_.bytes;
    if (own_thread_) {
      add_components(r, {monitor_report(monitor_)});
      add_components(r, deployment_.reports());
    } else {
      add_this_thread(r);
    }
  }

 protected:
  Deployment& deployment() override { return deployment_; }

 private:
  double time_of(std::uint64_t tick) const { return step_time(s_.t0(), s_.tick, tick); }

  // Producers before their consumers where the couplings allow (a cycle is broken in scenario
  // order): the order of Gauss–Seidel's partitions.
  std::vector<std::size_t> exchange_order() const {
    const std::size_t n = plan_.configs.size();
    std::vector<std::size_t> order;
    std::vector<bool> placed(n, false);
    while (order.size() < n) {
      std::size_t pick = n;
      for (std::size_t q = 0; q < n && pick == n; ++q) {
        if (placed[q]) continue;
        const bool waits = std::any_of(links_.begin(), links_.end(), [&](const Link& l) {
          return l.consumer == q && l.producer != q && !placed[l.producer];
        });
        if (!waits) pick = q;
      }
      if (pick == n)  // a cycle: the first unplaced partition goes first
        pick = static_cast<std::size_t>(std::find(placed.begin(), placed.end(), false) -
                                        placed.begin());
      placed[pick] = true;
      order.push_back(pick);
    }
    return order;
  }

  // The first states: every partition publishes its start (advance to step 0).
  void start() {
    for (std::size_t p = 0; p < deployment_.size(); ++p) {
      const StateBatch batch = deployment_.integrator(p).advance(0, 0);
      ++figures_.messages;
      if (batch.count() > 0) commit(p, batch);
      for (Link& l : links_)
        if (l.producer == p) l.history.push_back({time_of(0), output_at_end(batch, l.output)});
    }
  }

  static double output_at_end(const StateBatch& b, std::size_t output) {
    if (b.count() == 0) throw ProtocolError("master", "an Integrator returned no step");
    return b.outputs[(b.count() - 1) * b.output_size + output];
  }

  // The ticks a macro step from t may span: to t_end and the next synchronisation point.
  std::uint64_t room_after(std::uint64_t t) const {
    std::uint64_t end = s_.ticks;
    const auto next = std::upper_bound(m_.sync_ticks.begin(), m_.sync_ticks.end(), t);
    if (next != m_.sync_ticks.end()) end = std::min(end, *next);
    return end - t;
  }

  std::uint64_t on_grid(double ticks) const {
    const double cells = std::floor(ticks / static_cast<double>(m_.grid_ticks));
    const auto h = static_cast<std::uint64_t>(std::max(1.0, cells)) * m_.grid_ticks;
    return std::clamp(h, min_ticks_, max_ticks_);
  }

  // The input of link l over [t, t + h]: extrapolated from its history; or, once the
  // producer's output at t + h is there (Gauss–Seidel, later passes), interpolated through it
  // with one order more (at most 2), since the step now lies between samples.
  Prediction predict(Link& l, std::uint64_t t, std::uint64_t h, bool with_fresh) const {
    const double from = time_of(t), to = time_of(t + h);
    std::vector<TimedSample> samples(l.history.begin(), l.history.end());
    const InputPredictor& how = l.spec->predictor;
    int order = how.choose_order
                    ? choose_order(samples, l.spec->hold, how.calibration, how.threshold).order
                    : l.spec->hold;
    if (with_fresh && l.fresh && !l.spec->text) {  // (a String is held at its value at t)
      samples.push_back({to, *l.fresh});
      order = std::min(order + 1, 2);
    }
    Prediction p = calibrate(samples, order, how.calibration);
    if (how.smooth && l.previous)
      p = hermite(from, l.previous->value(from), l.previous->slope(from), to, p.value(to),
                  p.slope(to));
    p.valid_from = from;
    p.valid_to = to;
    return reduce_order(p, l.spec->accepts);
  }

  // Partition q's inputs over [t, t + h], predicted and shipped.
  void ship(std::size_t q, std::uint64_t t, std::uint64_t h) {
    std::vector<ChannelPrediction> shipped;
    {
      std::optional<BusyScope> busy;  // the master's own work: predicting
      if (own_thread_) busy.emplace(monitor_, SpanTag{ActivityCall::provide});
      for (Link& l : links_) {
        if (l.consumer != q) continue;
        l.used = predict(l, t, h, true);
        shipped.push_back({l.channel, t, t + h, l.used});
      }
    }
    if (shipped.empty()) return;
    deployment_.integrator(q).provide_predictions(shipped);
    ++figures_.messages;
    figures_.bytes += 8 * 9 * shipped.size();
  }

  bool stood_in(std::size_t q) const { return stand_ins_[q].has_value(); }

  // One pass over [t, t + h] in the exchange order. A partition with a surrogate does not
  // step: its surrogate gives its outputs at t + h from the inputs it would be given now (in
  // its turn under Gauss–Seidel, after the others under Jacobi).
  void pass(std::uint64_t t, std::uint64_t h) {
    if (m_.exchange == ExchangeOrder::gauss_seidel) {
      for (std::size_t q : order_) {
        if (stood_in(q)) {
          stand_in(q, t, h);
          continue;
        }
        ship(q, t, h);
        advance(q, t, h);
      }
      return;
    }
    for (std::size_t q = 0; q < deployment_.size(); ++q)
      if (!stood_in(q)) ship(q, t, h);
    const auto step = [&](std::size_t q) {
      if (!stood_in(q)) advance(q, t, h);
    };
    if (fan_out_) {
      fan_out_->run(step);
    } else {
      for (std::size_t q = 0; q < deployment_.size(); ++q) step(q);
    }
    for (std::size_t q = 0; q < deployment_.size(); ++q)
      if (stood_in(q)) stand_in(q, t, h);
  }

  // The links into and out of partition q, by index.
  const std::vector<std::size_t>& links_into(std::size_t q) const { return into_[q]; }
  const std::vector<std::size_t>& links_from(std::size_t q) const { return from_links_[q]; }

  // How far partition q's inputs at t + h, as it would be given them now, lie from their
  // extrapolations.
  std::vector<double> input_deviation(std::size_t q, std::uint64_t t, std::uint64_t h) {
    const double to = time_of(t + h);
    std::vector<double> e;
    for (std::size_t i : links_into(q)) {
      Link& l = links_[i];
      l.used = predict(l, t, h, true);
      e.push_back(l.used.value(to) - l.extrapolated.value(to));
    }
    return e;
  }

  // Partition q's outputs at t + h as its surrogate predicts them: the fresh outputs of its
  // links for this pass.
  void stand_in(std::size_t q, std::uint64_t t, std::uint64_t h) {
    const double to = time_of(t + h);
    const std::vector<double> correction = stand_ins_[q]->correction(input_deviation(q, t, h));
    const std::vector<std::size_t>& out = links_from(q);
    for (std::size_t k = 0; k < out.size(); ++k)
      links_[out[k]].fresh = links_[out[k]].extrapolated.value(to) + correction[k];
  }

  // The step [t, t + h] is accepted: the partitions with a surrogate take it now, once, from
  // the inputs the iteration settled on; their surrogates learn from how it came out. Returns
  // whether any did.
  bool step_stood_in(std::uint64_t t, std::uint64_t h) {
    const double to = time_of(t + h);
    bool any = false;
    const auto take = [&](std::size_t q) {
      if (!stood_in(q)) return;
      any = true;
      const std::vector<std::size_t>& out = links_from(q);
      std::vector<double> predicted;
      for (std::size_t j : out) predicted.push_back(*links_[j].fresh);
      ship(q, t, h);
      advance(q, t, h);
      const std::vector<double> e_u = input_deviation(q, t, h);
      std::vector<double> e_y;
      double miss = 0;
      for (std::size_t k = 0; k < out.size(); ++k) {
        const Link& l = links_[out[k]];
        e_y.push_back(*l.fresh - l.extrapolated.value(to));
        miss = std::max(miss,
                        normalised_error(std::abs(*l.fresh - predicted[k]), *l.fresh, m_.control));
      }
      stand_ins_[q]->learn(e_u, e_y);
      figures_.surrogate_max_miss = std::max(figures_.surrogate_max_miss, miss);
      if (miss > 1) ++figures_.surrogate_misses;
    };
    if (m_.exchange == ExchangeOrder::gauss_seidel) {
      for (std::size_t q : order_) take(q);
    } else {
      for (std::size_t q = 0; q < deployment_.size(); ++q) take(q);
    }
    return any;
  }

  // Partition q steps to t + h; its fresh outputs are noted.
  void advance(std::size_t q, std::uint64_t t, std::uint64_t h) {
    const std::uint64_t k = plan_.configs[q].ticks_per_step;
    const std::uint64_t target = (t + h) / k;
    IntegratorPort& port = deployment_.integrator(q);
    std::uint64_t calls = 0, bytes = 0;
    std::uint64_t reached = t / k;
    while (reached < target) {
      StateBatch batch = port.advance(target, t / k);
      ++calls;
      if (batch.count() == 0)
        throw ProtocolError(port.name(), "took no step towards step " + std::to_string(target));
      reached = batch.first_step + batch.count() - 1;
      bytes += 8 * (batch.states.size() + batch.outputs.size());
      pending_[q].push_back(std::move(batch));
    }
    for (Link& l : links_)
      if (l.producer == q) l.fresh = output_at_end(pending_[q].back(), l.output);
    std::lock_guard lock(count_mutex_);
    figures_.messages += calls;
    figures_.bytes += bytes;
  }

  // Every partition back at t: nothing of the step is kept (one with a surrogate has not
  // taken it).
  void roll_back(std::uint64_t t) {
    for (std::size_t q = 0; q < deployment_.size(); ++q) {
      if (stood_in(q)) continue;
      deployment_.integrator(q).rollback(t / plan_.configs[q].ticks_per_step);
      ++figures_.messages;
      pending_[q].clear();
    }
  }

  // The largest normalised difference between an input as used at t + h and the fresh output
  // it stands for: above 1, the iteration has not converged.
  double residual(std::uint64_t t, std::uint64_t h) const {
    double worst = 0;
    for (const Link& l : links_) {
      if (l.spec->text) continue;  // a String is held: its value at t, never its value at t + h
      const double e = std::abs(l.used.value(time_of(t + h)) - *l.fresh);
      worst = std::max(worst, normalised_error(e, *l.fresh, m_.control));
    }
    return worst;
  }

  // The error control's factor for the step after [t, t + h], from how far each extrapolation
  // missed; `aggregate` is the normalised error the step is judged by (above 1: rejected).
  double control_factor(std::uint64_t t, std::uint64_t h, double& aggregate) const {
    std::vector<double> errors, values;
    int order = 0;
    double sum = 0;
    aggregate = 0;
    std::size_t judged = 0;
    for (const Link& l : links_) {
      if (l.spec->text) continue;  // bytes of text: no error to control
      ++judged;
      const double e = std::abs(l.extrapolated.value(time_of(t + h)) - *l.fresh);
      errors.push_back(e);
      values.push_back(*l.fresh);
      order = std::max(order, std::min(l.extrapolated.order, 2));
      const double r = normalised_error(e, *l.fresh, m_.control);
      sum += r;
      aggregate = std::max(aggregate, r);
    }
    if (m_.control.aggregation == ErrorAggregation::mean && judged > 0)
      aggregate = sum / static_cast<double>(judged);
    return macro_step_factor(errors, values, order, m_.control);
  }

  // Takes the macro step from t of (at most) h ticks; returns the next step's size.
  std::uint64_t macro_step(std::uint64_t t, std::uint64_t h) {
    for (Link& l : links_) {
      l.fresh.reset();
      l.extrapolated = predict(l, t, h, false);
    }
    for (std::uint32_t passes = 1;; ++passes) {
      pass(t, h);
      if (m_.iterations > 0 && residual(t, h) > 1) {
        roll_back(t);
        if (passes < m_.iterations) {
          ++figures_.extra_passes;
          continue;
        }
        if (h <= min_ticks_)
          throw SimulationError("the master's iteration did not converge at " +
                                seconds(time_of(t)) + " in " + std::to_string(m_.iterations) +
                                " passes, at the smallest macro step " +
                                seconds(static_cast<double>(h) * s_.tick) +
                                ": raise [master] iterations or rtol/atol, or lower min_step");
        ++figures_.halvings;
        return macro_step(t, on_grid(static_cast<double>(h) / 2));
      }
      break;
    }
    double aggregate = 0;
    double factor = control_factor(t, h, aggregate);
    if (m_.error_control && aggregate > 1) {
      const std::uint64_t smaller = on_grid(static_cast<double>(h) * factor);
      if (smaller < h && can_roll_back_) {
        roll_back(t);
        ++figures_.rejected_steps;
        return macro_step(t, smaller);
      }
    }
    // With surrogates the step was judged on their predictions; the next one is sized, and
    // this one counted, on what the partitions really gave.
    if (step_stood_in(t, h)) factor = control_factor(t, h, aggregate);
    if (m_.error_control && aggregate > 1) ++figures_.above_tolerance;
    accept(t, h);
    if (!m_.error_control) return h;
    return on_grid(static_cast<double>(h) * factor);
  }

  void accept(std::uint64_t t, std::uint64_t h) {
    const double from = time_of(t);
    for (Link& l : links_) {
      if (l.previous) {
        const double before = l.previous->value(from), now = l.used.value(from);
        if (std::abs(before - now) > 1e-12 * std::max(1.0, std::abs(before)))
          ++figures_.input_discontinuities;
      }
      ++figures_.predictions_of_order[static_cast<std::size_t>(std::clamp(l.used.order, 0, 3))];
      l.previous = l.used;
      l.history.push_back({time_of(t + h), *l.fresh});
      if (l.history.size() > kHistory) l.history.pop_front();
    }
    for (std::size_t q = 0; q < pending_.size(); ++q) {
      for (const StateBatch& b : pending_[q]) commit(q, b);
      pending_[q].clear();
    }
    const double step = static_cast<double>(h) * s_.tick;
    figures_.min_step_s = figures_.macro_steps == 0 ? step : std::min(figures_.min_step_s, step);
    figures_.max_step_s = std::max(figures_.max_step_s, step);
    ++figures_.macro_steps;
  }

  // Where the master stands with `next` the next step's size (a checkpoint's part).
  MasterPoint point(std::uint64_t next) const {
    MasterPoint m;
    m.next_ticks = next;
    for (const Link& l : links_)
      m.links.push_back({{l.history.begin(), l.history.end()}, l.previous});
    return m;
  }

  void resume(const MasterPoint& from) {
    if (from.links.size() != links_.size())
      throw InputError("checkpoint: the master's state has " + std::to_string(from.links.size()) +
                       " couplings, the scenario " + std::to_string(links_.size()));
    h_ = std::clamp(from.next_ticks, min_ticks_, max_ticks_);
    for (std::size_t k = 0; k < links_.size(); ++k) {
      const MasterPoint::Link& l = from.links[k];
      if (l.history.empty() || l.history.size() > kHistory)
        throw InputError("checkpoint: the master's coupling " + std::to_string(k) + " keeps " +
                         std::to_string(l.history.size()) + " samples (1 to " +
                         std::to_string(kHistory) + ")");
      links_[k].history.assign(l.history.begin(), l.history.end());
      links_[k].previous = l.previous;
    }
  }

  static const MasterSpec& master_of(const PartitionedScenario& s) {
    if (!s.master) throw InputError(s.file + ": no [master] table");
    return *s.master;
  }

  const MasterSpec& m_;
  Deployment& deployment_;
  const bool own_thread_;
  const MasterPoint* from_;  // a resumed run's start
  CosimulationFigures figures_;
  ActivityClock monitor_;  // the master's thread, busy predicting (a distributed run's)
  std::uint64_t h_ = 1;    // the next macro step's size in ticks
  std::vector<Link> links_;
  std::vector<std::size_t> order_;
  std::vector<std::vector<StateBatch>> pending_;  // per partition: the current step's batches
  std::uint64_t min_ticks_ = 1, max_ticks_ = 1;
  bool can_roll_back_ = true;
  std::vector<std::optional<LinearSurrogate>> stand_ins_;    // per partition: its surrogate, if any
  std::vector<std::vector<std::size_t>> into_, from_links_;  // per partition: its links' indices
  std::optional<FanOut> fan_out_;
  std::mutex count_mutex_;
};

}  // namespace

RunResult run_cosimulation(const PartitionedScenario& s, SyncMethod method,
                           const PartitionedPlan& plan, Deployment& deployment, RunControl& control,
                           const PartitionedWatchers& watchers, bool concurrent,
                           const MasterPoint* from) {
  RunResult r = describe_partitioned_run(s, method, plan.mode);
  r.cosimulation.emplace();
  try {
    Master master(s, plan, deployment, watchers, concurrent, method != SyncMethod::sequential,
                  from);
    return execute(master, std::move(r), control, {watchers.clock, watchers.injections});
  } catch (const Error& e) {  // a master that cannot be set up
    r.end_with(e);
  }
  return r;
}

}  // namespace kausal
