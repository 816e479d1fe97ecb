#include "monitor/sync/optimistic_block_stepper.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "system/errors.hpp"

namespace kausal {

std::uint64_t block_window(std::uint64_t window, std::size_t pendulums) {
  const std::uint64_t affordable = kBlockStateBudget / std::max<std::size_t>(pendulums, 1);
  return std::max<std::uint64_t>(1, std::min(window, affordable));
}

// One step a block ran ahead.
struct OptimisticBlockStepper::AheadStep {
  std::uint64_t step = 0;
  std::vector<PendulumState> states;  // the block's, its contacts inside settled
  std::uint64_t impacts = 0;          // applied inside
  ActivityClock::Clock::duration busy{};
};

// A block's thread and its state list. The thread owns `x` and the block while `running`
// or `busy`; the monitor owns them when both are false (halt()).
struct OptimisticBlockStepper::Lane {
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<AheadStep> ahead;   // steps next − ahead.size() .. next − 1
  std::vector<AheadStep> spare;  // buffers to reuse
  std::vector<PendulumState> x;  // the block's states at step next − 1
  std::uint64_t next = 0;        // the step it computes next
  std::uint64_t limit = 0;       // the last step it may compute
  bool running = false;
  bool busy = false;
  bool stopping = false;
  std::exception_ptr failure;  // computing step `next` failed: it waits for a restart
  std::uint64_t peak = 0;      // the most steps held ahead
  std::thread thread;
};

OptimisticBlockStepper::OptimisticBlockStepper(const Scenario& scenario,
                                               const OptimisticBlockOptions& options)
    : BlockedChainStepper(scenario, options.blocks),
      cpus_(options.lane_cpus),
      window_(block_window(options.window, scenario.pendulums())),
      sweep_(scenario.chain),
      restart_(options.blocks, 1),
      involved_(options.blocks),
      front_(options.blocks) {
  for (const auto& e : parts_.edges) all_edges_.insert(all_edges_.end(), e.begin(), e.end());
  for (std::size_t k = 0; k < parts_.size(); ++k) lanes_.push_back(std::make_unique<Lane>());
  for (std::size_t k = 0; k < parts_.size(); ++k)
    lanes_[k]->thread = std::thread([this, k] { run_ahead(k); });
}

OptimisticBlockStepper::~OptimisticBlockStepper() {
  for (auto& lane : lanes_) {
    {
      std::lock_guard lock(lane->mutex);
      lane->stopping = true;
    }
    lane->cv.notify_all();
  }
  for (auto& lane : lanes_) lane->thread.join();
}

std::uint64_t OptimisticBlockStepper::limit_after(std::uint64_t committed) const {
  // Nothing past the run's last step: a completed run has thrown away only what it counted.
  return std::min(committed + window_, scenario_.steps);
}

void OptimisticBlockStepper::run_ahead(std::size_t k) {
  if (!cpus_.empty()) pin_current_thread(cpus_[k % cpus_.size()]);
  // Nothing escapes the thread: a failure (of the block's step, or of memory) waits in
  // lane.failure until the monitor needs that step, and a restart clears it.
  for (;;) {
    try {
      run_ahead_until_stopped(k);
      return;
    } catch (...) {
      Lane& lane = *lanes_[k];
      std::lock_guard lock(lane.mutex);
      lane.busy = false;
      lane.failure = std::current_exception();
      lane.cv.notify_all();
    }
  }
}

void OptimisticBlockStepper::run_ahead_until_stopped(std::size_t k) {
  Lane& lane = *lanes_[k];
  PendulumBlock& block = *parts_.blocks[k];
  ActivityClock& clock = parts_.clocks[k];
  std::vector<std::uint32_t> nothing_left;  // running ahead, a block settles all it holds
  std::unique_lock lock(lane.mutex);
  for (;;) {
    lane.cv.wait(lock, [&] {
      return lane.stopping || (lane.running && !lane.failure && lane.next <= lane.limit);
    });
    if (lane.stopping) return;
    AheadStep slot;
    if (!lane.spare.empty()) {
      slot = std::move(lane.spare.back());
      lane.spare.pop_back();
    }
    slot.step = lane.next;
    lane.busy = true;
    lock.unlock();
    const auto begin = ActivityClock::Clock::now();
    slot.impacts = block.step_own(slot.step - 1, lane.x, {}, nothing_left);
    slot.states.assign(lane.x.begin(), lane.x.end());
    const auto end = ActivityClock::Clock::now();
    clock.add(ActivityKind::busy, begin, end, {ActivityCall::run_ahead, slot.step});
    slot.busy = end - begin;
    lock.lock();
    lane.busy = false;
    lane.ahead.push_back(std::move(slot));
    lane.peak = std::max<std::uint64_t>(lane.peak, lane.ahead.size());
    ++lane.next;
    lane.cv.notify_all();
  }
}

void OptimisticBlockStepper::halt(std::size_t k) {
  Lane& lane = *lanes_[k];
  std::unique_lock lock(lane.mutex);
  lane.running = false;
  lane.cv.wait(lock, [&] { return !lane.busy; });
}

std::uint64_t OptimisticBlockStepper::discard(std::size_t k, std::uint64_t m) {
  Lane& lane = *lanes_[k];
  ActivityClock::Clock::duration wasted{};
  std::uint64_t steps = 0;
  {
    std::lock_guard lock(lane.mutex);
    for (AheadStep& a : lane.ahead) {
      wasted += a.busy;
      ++steps;
      lane.spare.push_back(std::move(a));
    }
    lane.ahead.clear();
  }
  if (steps == 0) return 0;
  ActivityClock& clock = parts_.clocks[k];  // at rest: the lane is halted
  clock.reclassify_as_rollback(wasted);
  clock.mark_rolled_back_after(m);
  counters_.rolled_back_steps += steps;
  const PendulumBlock& block = *parts_.blocks[k];
  counters_.wasted_calc_calls += steps * (block.last() - block.first()) *
                                 static_cast<std::uint64_t>(calcs_per_step(scenario_.method));
  return steps;
}

void OptimisticBlockStepper::restart(std::size_t k, std::uint64_t m,
                                     std::span<const PendulumState> states) {
  halt(k);
  if (discard(k, m) > 0) rolled_back(k, m);  // a push voided what it ran ahead
  Lane& lane = *lanes_[k];
  const PendulumBlock& block = *parts_.blocks[k];
  {
    std::lock_guard lock(lane.mutex);
    lane.x.assign(states.begin() + static_cast<std::ptrdiff_t>(block.first()),
                  states.begin() + static_cast<std::ptrdiff_t>(block.last()));
    lane.next = m + 1;
    lane.limit = limit_after(m);
    lane.failure = nullptr;
    lane.running = true;
  }
  lane.cv.notify_all();
  restart_[k] = 0;
  ++counters_.monitor_calls;
}

void OptimisticBlockStepper::extend(std::size_t k, std::uint64_t m) {
  Lane& lane = *lanes_[k];
  const std::uint64_t limit = limit_after(m);
  {
    std::lock_guard lock(lane.mutex);
    // Woken for half a window at a time, not for every step, so that it computes in
    // stretches; and at the run's end.
    if (limit < lane.limit + std::max<std::uint64_t>(1, window_ / 2) &&
        !(limit > lane.limit && limit == scenario_.steps))
      return;
    lane.limit = limit;
  }
  lane.cv.notify_all();
}

const OptimisticBlockStepper::AheadStep* OptimisticBlockStepper::wait_for(std::size_t k,
                                                                          std::uint64_t step) {
  Lane& lane = *lanes_[k];
  std::unique_lock lock(lane.mutex);
  lane.cv.wait(lock, [&] { return !lane.ahead.empty() || lane.failure; });
  if (lane.ahead.empty()) return nullptr;
  // The monitor takes one step per call and restarts a block at the commit, so the front is
  // `step`. Its element stays where it is while the thread appends: the deque moves none.
  if (lane.ahead.front().step != step)
    throw SimulationError(block_name(k + 1) + " delivered step " +
                          std::to_string(lane.ahead.front().step) + " where the monitor needs " +
                          std::to_string(step));
  return &lane.ahead.front();
}

void OptimisticBlockStepper::find_involved(std::span<PendulumState> states, bool any_failed) {
  std::fill(involved_.begin(), involved_.end(), any_failed ? 1 : 0);
  if (any_failed) return;  // a failed block's angles are unknown: check every block again
  // The edge bobs at the blocks' step, for the broad phase; the committed ones kept.
  saved_.clear();
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    const AheadStep& a = *front_[k];
    const std::size_t first = parts_.blocks[k]->first();
    for (const std::uint32_t e : parts_.edges[k]) {
      saved_.push_back(states[e]);
      states[e] = a.states[e - first];
    }
  }
  for (const BobPair& p : sweep_.candidates_among(states, all_edges_)) {
    const std::size_t a = parts_.block_of(p.i), b = parts_.block_of(p.j);
    if (a != b) involved_[a] = involved_[b] = 1;
  }
  for (std::size_t n = 0; n < all_edges_.size(); ++n) states[all_edges_[n]] = saved_[n];
}

void OptimisticBlockStepper::take(std::size_t k, std::span<PendulumState> states) {
  Lane& lane = *lanes_[k];
  const AheadStep& a = *front_[k];
  std::copy(a.states.begin(), a.states.end(),
            states.begin() + static_cast<std::ptrdiff_t>(parts_.blocks[k]->first()));
  impacts_inside_ += a.impacts;
  std::lock_guard lock(lane.mutex);
  lane.spare.push_back(std::move(lane.ahead.front()));
  lane.ahead.pop_front();
}

void OptimisticBlockStepper::rolled_back(std::size_t k, std::uint64_t m) {
  ++counters_.rollbacks;
  if (observer_)
    for (std::size_t i = parts_.blocks[k]->first(); i < parts_.blocks[k]->last(); ++i)
      observer_->rolled_back(i, m);
}

void OptimisticBlockStepper::redo(std::size_t k, std::uint64_t m, std::span<PendulumState> states) {
  halt(k);
  discard(k, m);
  rolled_back(k, m);
  BusyScope busy(parts_.clocks[k], {ActivityCall::advance, m + 1});
  left_of_block_.clear();
  impacts_inside_ += parts_.blocks[k]->step(m, states, parts_.edges[k], left_of_block_);
  left_.insert(left_.end(), left_of_block_.begin(), left_of_block_.end());
  restart_[k] = 1;  // from step m + 1, once the monitor has swept it
}

void OptimisticBlockStepper::step_all(std::uint64_t m, std::span<PendulumState> states) {
  const std::size_t blocks = parts_.size();
  for (std::size_t k = 0; k < blocks; ++k) {
    if (restart_[k])
      restart(k, m, states);
    else
      extend(k, m);  // every block first, so that they all compute while the monitor waits
  }
  bool any_failed = false;
  {
    CallScope call(calls_, {ActivityCall::commit, m + 1});
    for (std::size_t k = 0; k < blocks; ++k) {
      front_[k] = wait_for(k, m + 1);
      any_failed = any_failed || !front_[k];
    }
  }
  tell_horizon(m);
  find_involved(states, any_failed);
  left_.clear();
  impacts_inside_ = 0;
  // Blocks hold ascending ranges: the left bobs in block order are ascending.
  for (std::size_t k = 0; k < blocks; ++k) {
    if (involved_[k])
      redo(k, m, states);
    else
      take(k, states);
  }
  counters_.monitor_calls += blocks;
}

void OptimisticBlockStepper::apply_impulse(std::size_t i, std::uint64_t, double impulse,
                                           std::span<PendulumState> states) {
  kick(i, impulse, states);
  // What the block ran ahead from the state before the impulse is void.
  restart_[parts_.block_of(i)] = 1;
}

void OptimisticBlockStepper::tell_horizon(std::uint64_t m) {
  if (!observer_) return;
  reached_.resize(parts_.pendulums);
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    std::uint64_t reached;
    {
      std::lock_guard lock(lanes_[k]->mutex);
      reached = lanes_[k]->next - 1;
    }
    std::fill(reached_.begin() + static_cast<std::ptrdiff_t>(parts_.blocks[k]->first()),
              reached_.begin() + static_cast<std::ptrdiff_t>(parts_.blocks[k]->last()), reached);
  }
  observer_->horizon(m + 1, reached_);
}

std::vector<ComponentReport> OptimisticBlockStepper::reports() {
  for (std::size_t k = 0; k < parts_.size(); ++k) halt(k);
  std::vector<ComponentReport> reports = parts_.reports();
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    std::lock_guard lock(lanes_[k]->mutex);
    reports[k].totals.state_list_peak = lanes_[k]->peak;
  }
  return reports;
}

}  // namespace kausal
