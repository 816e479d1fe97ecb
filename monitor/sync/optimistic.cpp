#include "monitor/sync/optimistic.hpp"

#include "common/errors.hpp"
#include "integrator/stepper.hpp"
#include "monitor/sync/port_calls.hpp"

namespace kausal {

OptimisticStepper::OptimisticStepper(Deployment& deployment, const Scenario& scenario,
                                     const OptimisticOptions& options, std::uint64_t first_step)
    : deployment_(deployment), scenario_(scenario), options_(options), tracks_(deployment.size()) {
  for (Track& t : tracks_) {
    t.next_step = first_step + 1;
    t.committed = first_step;
  }
  for (std::size_t i = 0; i < deployment.size(); ++i) {
    deployment.integrator(i).start(options.batch_size, options.window);
    ++counters_.monitor_calls;
    counters_.bytes += 24;
  }
}

// Steps before m are committed: Integrators rolled back at m may run on, and those whose
// window would soon stop them get a new gvt (every quarter window, not every step).
void OptimisticStepper::release_and_extend(std::uint64_t m) {
  const std::uint64_t every = std::max<std::uint64_t>(1, options_.window / 4);
  for (std::size_t i = 0; i < tracks_.size(); ++i) {
    Track& t = tracks_[i];
    if (!t.held && m < t.committed + every) continue;
    CallScope call(calls_, {ActivityCall::commit, m});
    deployment_.integrator(i).commit(m);
    t.committed = m;
    t.held = false;
    ++counters_.monitor_calls;
    counters_.bytes += 8;
  }
}

void OptimisticStepper::file(const InboxItem& item) {
  Track& t = tracks_.at(item.source);
  if (item.failure) {
    if (item.batch.epoch < t.epoch) {  // failed in a future that a rollback discarded
      ++counters_.stale_batches;
      return;
    }
    t.fails_at = item.failed_step;
    t.failure = item.failure;
    return;
  }
  const std::string& from = deployment_.integrator(item.source).name();
  const StateBatch& b = item.batch;
  ++counters_.monitor_calls;
  counters_.bytes += payload_bytes(b);
  if (b.epoch < t.epoch) {  // computed before a rollback that has overtaken it
    ++counters_.stale_batches;
    return;
  }
  if (b.epoch > t.epoch)
    throw ProtocolError(from, "sent epoch " + std::to_string(b.epoch) + " before its rollback to " +
                                  "it was acknowledged");
  if (b.first_step != t.next_step || b.state_size != pendulum_state_size)
    throw ProtocolError(from, "sent states from step " + std::to_string(b.first_step) +
                                  ", expected step " + std::to_string(t.next_step));
  for (std::size_t k = 0; k < b.count(); ++k) t.ahead.push_back(checked_state(from, b.state(k)));
  t.next_step += b.count();
}

void OptimisticStepper::wait_for(std::uint64_t step) {
  auto missing = [&] {
    for (const Track& t : tracks_)
      if (t.next_step <= step) return true;
    return false;
  };
  while (missing()) {
    for (const Track& t : tracks_)
      if (t.fails_at && *t.fails_at <= step && t.next_step <= step)
        std::rethrow_exception(t.failure);
    // However long the Integrators take: a dead or stopped one fails the inbox (the
    // deployment's heartbeat), and pop() throws that failure.
    if (auto item = deployment_.inbox().pop(std::chrono::seconds(1))) file(*item);
  }
}

void OptimisticStepper::step_all(std::uint64_t m, std::span<PendulumState> states) {
  release_and_extend(m);
  wait_for(m + 1);
  if (observer_) {
    reached_.resize(tracks_.size());
    for (std::size_t i = 0; i < tracks_.size(); ++i) reached_[i] = tracks_[i].next_step - 1;
    observer_->horizon(m + 1, reached_);
  }
  for (std::size_t i = 0; i < states.size(); ++i) {
    Track& t = tracks_[i];
    // The front of `ahead` is step next_step - ahead.size(); drop what is committed.
    while (t.next_step - t.ahead.size() < m + 1) t.ahead.pop_front();
    states[i] = t.ahead.front();
  }
}

void OptimisticStepper::apply_impulse(std::size_t i, std::uint64_t m, double impulse,
                                      std::span<PendulumState> states) {
  Track& t = tracks_[i];
  IntegratorPort& port = deployment_.integrator(i);
  if (t.rolled_back_at != m) {  // the first impulse on i at m: undo its future once
    const RollbackResult r = port.rollback(m);
    if (r.epoch <= t.epoch) throw ProtocolError(port.name(), "rollback did not start a new epoch");
    t.epoch = r.epoch;
    t.ahead.clear();
    t.next_step = m + 1;
    t.held = true;
    t.rolled_back_at = m;
    t.fails_at.reset();
    if (observer_) observer_->rolled_back(i, m);
    ++counters_.rollbacks;
    counters_.rolled_back_steps += r.discarded_steps;
    counters_.wasted_calc_calls += r.wasted_derivative_calls;
    ++counters_.monitor_calls;
    counters_.bytes += 8 + 16;
  }
  states[i] = send_impulse(port, scenario_, m, impulse, counters_);
}

}  // namespace kausal
