#pragma once
// Who is told of what a run commits: the trajectory recorders, the checkpointer, the
// operator's readout. The couplings (monitor/sync/) tell every observer of a run, in the
// order the run lists them, and know none of them: an observer overrides the hooks of the
// model kinds it follows, the others do nothing.
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "integrator/integrator.hpp"
#include "monitor/core/bridge_point.hpp"
#include "monitor/core/master_point.hpp"
#include "monitor/core/run_result.hpp"
#include "system/chain.hpp"

namespace kausal {

// Per consumer partition, the samples a delivery routed to it.
using RoutedSamples = std::map<std::size_t, std::vector<ChannelSample>>;

class CommitObserver {
 public:
  virtual ~CommitObserver() = default;
  // A pendulum chain committed `step` (step 0: its initial state): every pendulum's state,
  // the impacts up to it.
  virtual void committed(std::uint64_t /*step*/, std::span<const PendulumState> /*states*/,
                         std::uint64_t /*collisions*/) {}
  // A resumed chain continues from `step`, committed by the run it resumes (with the impacts
  // up to it).
  virtual void resumed(std::uint64_t /*step*/, std::span<const PendulumState> /*states*/,
                       std::uint64_t /*collisions*/) {}
  // An operator's push changed the committed state at `step` (before the step from there).
  virtual void pushed(std::uint64_t /*step*/, std::span<const PendulumState> /*states*/) {}
  // Partition p made steps final (`batch`, continuing its steps), with the samples the
  // monitor routed from them to each consumer.
  virtual void delivered(std::size_t /*p*/, const StateBatch& /*batch*/,
                         const RoutedSamples& /*routed*/) {}
  // The co-simulation master accepted a macro step (after delivering its partitions'
  // steps): where it stands now.
  virtual void macro_step_accepted(const MasterPoint& /*master*/) {}
  // A hybrid model may be resumed only from a cut (monitor/core/bridge_point.hpp), which
  // holds its partitions back briefly: whether this observer wants one now.
  virtual bool wants_cut() const { return false; }
  // A hybrid model reached a cut (after delivering every partition's steps up to it).
  virtual void cut_reached(const BridgePoint& /*bridge*/) {}
  // The run ended, however (r.status says how): what is pending is written, and what the
  // observer knows of the whole run (the digest) goes into r.
  virtual void finished(RunResult& /*r*/) {}
};

// The observers of one run, told in order.
class CommitObservers {
 public:
  CommitObservers() = default;
  CommitObservers(std::initializer_list<CommitObserver*> observers) {
    for (CommitObserver* o : observers)
      if (o) observers_.push_back(o);
  }
  void add(CommitObserver* o) {
    if (o) observers_.push_back(o);
  }

  void committed(std::uint64_t step, std::span<const PendulumState> states,
                 std::uint64_t collisions) const {
    for (CommitObserver* o : observers_) o->committed(step, states, collisions);
  }
  void resumed(std::uint64_t step, std::span<const PendulumState> states,
               std::uint64_t collisions) const {
    for (CommitObserver* o : observers_) o->resumed(step, states, collisions);
  }
  void pushed(std::uint64_t step, std::span<const PendulumState> states) const {
    for (CommitObserver* o : observers_) o->pushed(step, states);
  }
  void delivered(std::size_t p, const StateBatch& batch, const RoutedSamples& routed) const {
    for (CommitObserver* o : observers_) o->delivered(p, batch, routed);
  }
  void macro_step_accepted(const MasterPoint& master) const {
    for (CommitObserver* o : observers_) o->macro_step_accepted(master);
  }
  bool wants_cut() const {
    for (const CommitObserver* o : observers_)
      if (o->wants_cut()) return true;
    return false;
  }
  void cut_reached(const BridgePoint& bridge) const {
    for (CommitObserver* o : observers_) o->cut_reached(bridge);
  }
  void finished(RunResult& r) const {
    for (CommitObserver* o : observers_) o->finished(r);
  }

 private:
  std::vector<CommitObserver*> observers_;
};

}  // namespace kausal
