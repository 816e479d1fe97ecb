#pragma once
// What the one loop (execute, monitor/sync/execution.hpp) asks of a model kind: how its
// components advance and commit. The loop owns everything around that — stop, progress,
// pacing and the external clock, the operator's injections, timing and the failure path —
// the same for every kind; a coupling only advances, commits and reports.
//
// Positions are the run's units: a pendulum chain's steps, a partitioned model's ticks.
// State s is committed when everything up to it is final (recorded, checkpointed, shown).
#include <cstdint>
#include <exception>
#include <limits>
#include <string>

#include "monitor/core/run_result.hpp"
#include "monitor/scenario/injection_file.hpp"

namespace kausal {

class Coupling {
 public:
  // No clock holds the run back: compute to the end.
  static constexpr std::uint64_t unpaced = std::numeric_limits<std::uint64_t>::max();

  virtual ~Coupling() = default;

  // Everything up to this state is committed.
  virtual std::uint64_t committed() const = 0;
  // The run's last state: it is complete when committed() reaches it.
  virtual std::uint64_t end() const = 0;

  // The coupling computes in the loop's thread (advance() does the work), or its components
  // run by themselves and advance() only collects what they deliver; those are told what the
  // clock releases while they run (release(), from the loop's pacing thread).
  virtual bool computes_here() const = 0;

  // Starts the components: from the start or from a resumed run's checkpoint. `released`:
  // what the clock has released so far (unpaced: no clock).
  virtual void start(std::uint64_t released) = 0;
  // Makes a bounded amount of progress (a step, a turn of every partition, a macro step, a
  // delivery) without computing any state past what `released` allows; returns whether it
  // committed anything. Nothing committed with nothing more to be released is a stall.
  virtual bool advance(std::uint64_t released) = 0;
  // Components that run by themselves: they may compute up to `released` now.
  virtual void release(std::uint64_t /*released*/) {}
  // A failure of the pacing thread, for the run to end with (components that run by
  // themselves: their deliveries' inbox).
  virtual void fail(std::exception_ptr failure) { std::rethrow_exception(failure); }

  // The operator's injections are taken up to this state: a chain's pushes at its committed
  // step (they act on that state), a partitioned model's changes as soon as they come (each
  // carries the tick it takes effect at).
  virtual std::uint64_t injections_due() const { return committed(); }
  // Applies an injection whose boundary has come (checked already: its target exists).
  virtual void apply(const Injection& injection) = 0;

  // Why nothing can advance (a stall), for the run's error.
  virtual std::string stalled() const { return "no component can advance"; }

  // The end of the run, whatever happened (r.status says how it ended): the last checkpoint,
  // the digest, the counters and the components' reports.
  virtual void finish(RunResult& r) = 0;
};

}  // namespace kausal
