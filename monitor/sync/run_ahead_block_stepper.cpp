#include "monitor/sync/run_ahead_block_stepper.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "common/errors.hpp"

namespace kausal {

std::uint64_t block_window(std::uint64_t window, std::size_t pendulums) {
  const std::uint64_t affordable = kBlockStateBudget / std::max<std::size_t>(pendulums, 1);
  return std::max<std::uint64_t>(1, std::min(window, affordable));
}

// One step a block ran ahead.
struct RunAheadBlockStepper::AheadStep {
  std::uint64_t step = 0;
  std::vector<PendulumState> states;  // the block's, its contacts inside settled
  std::uint64_t impacts = 0;          // applied inside
  double kinetic = 0;                 // conservative: the block's kinetic norm (block_horizon)
  ActivityClock::Clock::duration busy{};
};

// A block's thread and its state list. The thread owns `x` and the block while `running`
// or `busy`; the monitor owns them when both are false (halt()).
struct RunAheadBlockStepper::Lane {
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

RunAheadBlockStepper::RunAheadBlockStepper(const Scenario& scenario,
                                           const RunAheadBlockOptions& options)
    : BlockedChainStepper(scenario, options.blocks, options.ports, options.rollback_check,
                          options.weights),
      cpus_(options.lane_cpus),
      window_(block_window(options.window, scenario.pendulums())),
      optimistic_(options.method == SyncMethod::optimistic),
      granted_(options.blocks, 0),
      sweep_(scenario.chain),
      restart_(options.blocks, 1),
      involved_(options.blocks),
      on_thread_(options.blocks),
      front_(options.blocks) {
  if (!optimistic_) {
    horizon_.emplace(scenario.chain, scenario.method, scenario.h, parts_);
    fan_.emplace(options.blocks, options.lane_cpus);
    left_per_block_.resize(options.blocks);
    impacts_per_block_.resize(options.blocks);
  }
  for (const auto& e : parts_.edges) all_edges_.insert(all_edges_.end(), e.begin(), e.end());
  for (std::size_t k = 0; k < parts_.size(); ++k) lanes_.push_back(std::make_unique<Lane>());
  for (std::size_t k = 0; k < parts_.size(); ++k)
    lanes_[k]->thread = std::thread([this, k] { run_ahead(k); });
}

RunAheadBlockStepper::~RunAheadBlockStepper() {
  for (auto& lane : lanes_) {
    {
      std::lock_guard lock(lane->mutex);
      lane->stopping = true;
    }
    lane->cv.notify_all();
  }
  for (auto& lane : lanes_) lane->thread.join();
}

std::uint64_t RunAheadBlockStepper::limit_after(std::size_t k, std::uint64_t committed) const {
  // Nothing past the run's last step: a completed run has thrown away only what it counted.
  const std::uint64_t limit = std::min(committed + window_, scenario_.steps);
  if (optimistic_) return limit;
  // A granted stretch too short to be worth a call to the block (BlockPort::
  // least_stretch_calcs) goes step by step.
  const std::uint64_t granted = std::min(limit, granted_[k]);
  const std::uint64_t calcs = (granted - std::min(granted, committed)) * parts_.pendulums_of(k) *
                              static_cast<std::uint64_t>(calcs_per_step(scenario_.method));
  return calcs >= parts_.blocks[k]->least_stretch_calcs() ? granted : committed;
}

bool RunAheadBlockStepper::grant_if_due(std::uint64_t m, std::span<const PendulumState> states) {
  std::erase_if(grants_, [&](const BlockHorizon::Grant& g) {
    return g.from + *std::max_element(g.steps.begin(), g.steps.end()) <= m;
  });
  if (m < next_grant_) return false;
  const std::uint64_t most = std::min(window_, scenario_.steps - std::min(m, scenario_.steps));
  BlockHorizon::Grant g = horizon_->grant(m, states, most);
  std::uint64_t least = most;
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    // Both grants hold: the last one's steps and this one's follow each other.
    granted_[k] = std::max(granted_[k], m + g.steps[k]);
    least = std::min(least, g.steps[k]);
  }
  // Half used up, the next: the blocks keep computing while the monitor grants.
  next_grant_ = m + std::max<std::uint64_t>(1, least / 2);
  grants_.push_back(std::move(g));
  return true;
}

void RunAheadBlockStepper::check_stepped_here(std::uint64_t m,
                                              std::span<const PendulumState> states) {
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    const bool covered = std::any_of(grants_.begin(), grants_.end(), [&](const auto& g) {
      return g.from < m && m <= g.from + g.steps[k];
    });
    if (!restart_[k] || !covered) continue;
    const double norm =
        horizon_->kinetic_norm(k, states.subspan(parts_.first(k), parts_.pendulums_of(k)));
    for (BlockHorizon::Grant& g : grants_) horizon_->check_kinetic(g, k, m, norm);
  }
}

bool RunAheadBlockStepper::runs_to(std::size_t k, std::uint64_t step) {
  Lane& lane = *lanes_[k];
  std::lock_guard lock(lane.mutex);
  return lane.running && lane.limit >= step;
}

void RunAheadBlockStepper::run_ahead(std::size_t k) {
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

void RunAheadBlockStepper::run_ahead_until_stopped(std::size_t k) {
  Lane& lane = *lanes_[k];
  BlockPort& block = *parts_.blocks[k];
  const std::size_t n = parts_.pendulums_of(k);
  const std::uint64_t most = std::max<std::uint64_t>(1, block.steps_per_call(n));
  std::vector<AheadStep> made;  // the steps of one call
  std::vector<PendulumState> states;
  std::vector<std::uint64_t> impacts;
  std::unique_lock lock(lane.mutex);
  for (;;) {
    lane.cv.wait(lock, [&] {
      return lane.stopping || (lane.running && !lane.failure && lane.next <= lane.limit);
    });
    if (lane.stopping) return;
    const std::uint64_t from = lane.next;
    const std::uint64_t limit = lane.limit;
    const std::uint64_t asked = std::min(most, limit - from + 1);
    made.resize(asked);
    for (AheadStep& slot : made) {
      if (lane.spare.empty()) break;
      slot = std::move(lane.spare.back());
      lane.spare.pop_back();
    }
    lane.busy = true;
    lock.unlock();
    const std::uint64_t steps = block.run_ahead(from - 1, lane.x, asked, limit, states, impacts);
    made.resize(steps);
    parts_.book(k, ActivityClock::Clock::now(), {ActivityCall::run_ahead, from});
    for (std::uint64_t s = 0; s < steps; ++s) {
      AheadStep& slot = made[s];
      slot.step = from + s;
      if (steps == 1)
        slot.states.swap(states);  // (this process: the one step, without a copy)
      else
        slot.states.assign(states.begin() + static_cast<std::ptrdiff_t>(s * n),
                           states.begin() + static_cast<std::ptrdiff_t>((s + 1) * n));
      slot.impacts = impacts[s];
      if (horizon_) slot.kinetic = horizon_->kinetic_norm(k, slot.states);
      slot.busy = block.computed() / static_cast<long>(steps);
    }
    lock.lock();
    lane.busy = false;
    for (AheadStep& slot : made) lane.ahead.push_back(std::move(slot));
    lane.peak = std::max<std::uint64_t>(lane.peak, lane.ahead.size());
    lane.next += steps;
    lane.cv.notify_all();
  }
}

void RunAheadBlockStepper::halt(std::size_t k) {
  Lane& lane = *lanes_[k];
  std::unique_lock lock(lane.mutex);
  lane.running = false;
  lane.cv.wait(lock, [&] { return !lane.busy; });
}

std::uint64_t RunAheadBlockStepper::discard(std::size_t k, std::uint64_t m) {
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
  counters_.wasted_calc_calls +=
      steps * parts_.pendulums_of(k) * static_cast<std::uint64_t>(calcs_per_step(scenario_.method));
  if (!optimistic_) return steps;           // granted steps that a push voided: none was wrong
  ActivityClock& clock = parts_.clocks[k];  // at rest: the lane is halted
  clock.reclassify_as_rollback(wasted);
  clock.mark_rolled_back_after(m);
  counters_.rolled_back_steps += steps;
  return steps;
}

void RunAheadBlockStepper::restart(std::size_t k, std::uint64_t m,
                                   std::span<const PendulumState> states) {
  halt(k);
  if (discard(k, m) > 0 && optimistic_) rolled_back(k, m);  // a push voided what it ran ahead
  const std::uint64_t limit = limit_after(k, m);
  if (limit <= m) return;  // conservative, nothing granted: it restarts when granted
  Lane& lane = *lanes_[k];
  {
    std::lock_guard lock(lane.mutex);
    lane.x.assign(states.begin() + static_cast<std::ptrdiff_t>(parts_.first(k)),
                  states.begin() + static_cast<std::ptrdiff_t>(parts_.last(k)));
    lane.next = m + 1;
    lane.limit = limit;
    lane.failure = nullptr;
    lane.running = true;
  }
  lane.cv.notify_all();
  restart_[k] = 0;
}

void RunAheadBlockStepper::extend(std::size_t k, std::uint64_t m) {
  Lane& lane = *lanes_[k];
  const std::uint64_t limit = limit_after(k, m);
  {
    std::lock_guard lock(lane.mutex);
    // Optimistic blocks are woken for half a window at a time, not for every step, so that
    // they compute in stretches; and at the run's end. Granted steps come in stretches.
    if (optimistic_ ? limit < lane.limit + std::max<std::uint64_t>(1, window_ / 2) &&
                          !(limit > lane.limit && limit == scenario_.steps)
                    : limit <= lane.limit)
      return;
    lane.limit = limit;
  }
  lane.cv.notify_all();
}

const RunAheadBlockStepper::AheadStep* RunAheadBlockStepper::wait_for(std::size_t k,
                                                                      std::uint64_t step) {
  Lane& lane = *lanes_[k];
  std::unique_lock lock(lane.mutex);
  lane.cv.wait(lock, [&] { return !lane.ahead.empty() || lane.failure; });
  if (lane.ahead.empty()) {
    // A block out of reach (dead, or silent past the call timeout) fails the run now: asking
    // it again, step by step, would only wait for another timeout.
    try {
      std::rethrow_exception(lane.failure);
    } catch (const PeerError&) {
      throw;
    } catch (...) {
      return nullptr;
    }
  }
  // The monitor takes one step per call and restarts a block at the commit, so the front is
  // `step`. Its element stays where it is while the thread appends: the deque moves none.
  if (lane.ahead.front().step != step)
    throw SimulationError(block_name(k + 1) + " delivered step " +
                          std::to_string(lane.ahead.front().step) + " where the monitor needs " +
                          std::to_string(step));
  return &lane.ahead.front();
}

void RunAheadBlockStepper::find_involved(std::span<PendulumState> states, bool any_failed) {
  std::fill(involved_.begin(), involved_.end(), any_failed ? 1 : 0);
  if (any_failed) return;  // a failed block's angles are unknown: check every block again
  // The edge bobs at the blocks' step, for the broad phase; the committed ones kept.
  saved_.clear();
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    const AheadStep& a = *front_[k];
    const std::size_t first = parts_.first(k);
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

void RunAheadBlockStepper::check_apart(std::span<PendulumState> states, std::uint64_t step) {
  for (const BobPair& p : sweep_.candidates_among(states, all_edges_)) {
    const std::size_t a = parts_.block_of(p.i), b = parts_.block_of(p.j);
    // A pair of two blocks that were granted nothing is the monitor's sweep's to settle.
    if (a == b || (granted_[a] < step && granted_[b] < step)) continue;
    const PendulumParams& pa = scenario_.chain.pendulums[p.i];
    const PendulumParams& pb = scenario_.chain.pendulums[p.j];
    if (bob_distance(pa, pb, states[p.i].data(), states[p.j].data()) <= pa.radius + pb.radius)
      throw SimulationError("the lookahead per boundary did not hold: pendulums " +
                            std::to_string(p.i + 1) + " and " + std::to_string(p.j + 1) + " (" +
                            block_name(a + 1) + ", " + block_name(b + 1) +
                            ") are in contact at step " + std::to_string(step));
  }
}

void RunAheadBlockStepper::take(std::size_t k, std::span<PendulumState> states) {
  Lane& lane = *lanes_[k];
  const AheadStep& a = *front_[k];
  if (horizon_)
    for (BlockHorizon::Grant& g : grants_) horizon_->check_kinetic(g, k, a.step, a.kinetic);
  std::copy(a.states.begin(), a.states.end(),
            states.begin() + static_cast<std::ptrdiff_t>(parts_.first(k)));
  impacts_inside_ += a.impacts;
  std::lock_guard lock(lane.mutex);
  lane.spare.push_back(std::move(lane.ahead.front()));
  lane.ahead.pop_front();
}

void RunAheadBlockStepper::rolled_back(std::size_t k, std::uint64_t m) {
  ++counters_.rollbacks;
  if (observer_)
    for (std::size_t i = parts_.first(k); i < parts_.last(k); ++i) observer_->rolled_back(i, m);
}

void RunAheadBlockStepper::redo(std::size_t k, std::uint64_t m, std::span<PendulumState> states) {
  halt(k);
  discard(k, m);
  rolled_back(k, m);
  step_here(k, m, states);
}

void RunAheadBlockStepper::step_here(std::size_t k, std::uint64_t m,
                                     std::span<PendulumState> states) {
  left_of_block_.clear();
  impacts_inside_ += parts_.step(k, m, states, left_of_block_);
  left_.insert(left_.end(), left_of_block_.begin(), left_of_block_.end());
  restart_[k] = 1;  // from step m + 1, once the monitor has swept it
}

void RunAheadBlockStepper::step_ungranted(std::uint64_t m, std::span<PendulumState> states) {
  if (std::all_of(on_thread_.begin(), on_thread_.end(), [](char c) { return c; })) return;
  CallScope call(calls_, {ActivityCall::grant, m + 1});
  fan_->run([&](std::size_t k) {
    if (on_thread_[k]) return;
    halt(k);  // (its thread computes nothing: nothing was granted past m)
    left_per_block_[k].clear();
    impacts_per_block_[k] = parts_.step(k, m, states, left_per_block_[k]);
  });
}

void RunAheadBlockStepper::step_all(std::uint64_t m, std::span<PendulumState> states) {
  const std::size_t blocks = parts_.size();
  if (horizon_) check_stepped_here(m, states);
  const bool granted = horizon_ && grant_if_due(m, states);
  for (std::size_t k = 0; k < blocks; ++k) {
    if (restart_[k])
      restart(k, m, states);
    else
      extend(k, m);  // every block first, so that they all compute while the monitor waits
  }
  for (std::size_t k = 0; k < blocks; ++k) on_thread_[k] = optimistic_ || runs_to(k, m + 1);
  if (!optimistic_) step_ungranted(m, states);  // while the others compute
  bool any_failed = false;
  {
    CallScope call(calls_, {ActivityCall::commit, m + 1});
    for (std::size_t k = 0; k < blocks; ++k) {
      front_[k] = on_thread_[k] ? wait_for(k, m + 1) : nullptr;
      any_failed = any_failed || (on_thread_[k] && !front_[k]);
    }
  }
  tell_horizon(m);
  left_.clear();
  impacts_inside_ = 0;
  if (optimistic_) {
    find_involved(states, any_failed);
    // Blocks hold ascending ranges: the left bobs in block order are ascending.
    for (std::size_t k = 0; k < blocks; ++k) {
      if (involved_[k])
        redo(k, m, states);
      else
        take(k, states);
    }
  } else {
    bool ungranted = false;
    for (std::size_t k = 0; k < blocks; ++k) {
      ungranted = ungranted || granted_[k] <= m;
      if (front_[k]) {
        take(k, states);
      } else if (on_thread_[k]) {  // its step failed: computed here, the failure shows
        halt(k);
        discard(k, m);
        step_here(k, m, states);
      } else {
        left_.insert(left_.end(), left_per_block_[k].begin(), left_per_block_[k].end());
        impacts_inside_ += impacts_per_block_[k];
        restart_[k] = 1;  // from step m + 1, once the monitor has swept it
      }
    }
    // One round per grant, and per step that a block had no grant for (step by step there).
    if (granted || ungranted) ++counters_.rounds;
    check_apart(states, m + 1);
  }
}

void RunAheadBlockStepper::apply_impulse(std::size_t i, std::uint64_t, double impulse,
                                         std::span<PendulumState> states) {
  // An impact of the monitor's sweep: its block stepped here and runs ahead again from the
  // swept state (restart_ is set already; set again, so that nothing depends on it).
  kick(i, impulse, states);
  restart_[parts_.block_of(i)] = 1;
}

void RunAheadBlockStepper::push(std::size_t i, std::uint64_t m, double impulse,
                                std::span<PendulumState> states) {
  apply_impulse(i, m, impulse, states);  // what its block ran ahead from before it is void
  if (optimistic_) return;
  // Conservative: every grant is void too (a push adds energy), and every block computes only
  // what is granted anew.
  std::fill(restart_.begin(), restart_.end(), 1);
  std::fill(granted_.begin(), granted_.end(), m);
  grants_.clear();
  next_grant_ = m;
}

void RunAheadBlockStepper::tell_horizon(std::uint64_t m) {
  if (!observer_) return;
  reached_.resize(parts_.pendulums);
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    std::uint64_t reached;
    {
      std::lock_guard lock(lanes_[k]->mutex);
      reached = lanes_[k]->next - 1;
    }
    std::fill(reached_.begin() + static_cast<std::ptrdiff_t>(parts_.first(k)),
              reached_.begin() + static_cast<std::ptrdiff_t>(parts_.last(k)), reached);
  }
  observer_->horizon(m + 1, reached_);
}

std::vector<ComponentReport> RunAheadBlockStepper::reports() {
  for (std::size_t k = 0; k < parts_.size(); ++k) halt(k);
  std::vector<ComponentReport> reports = parts_.reports();
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    std::lock_guard lock(lanes_[k]->mutex);
    reports[k].totals.state_list_peak = lanes_[k]->peak;
  }
  return reports;
}

}  // namespace kausal
