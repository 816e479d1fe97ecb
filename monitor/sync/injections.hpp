#pragma once
// What an operator does to a paced run while it goes (docs/realtime.md, "Influence while
// running"): each injection takes effect at a step boundary that no component has computed
// past, chosen when it arrives, and is recorded with that step (OUT/injections.jsonl) before
// anything else happens, so that `kausal run --replay` applies it at the same boundary and
// reproduces the run's digest.
//
// The queue holds the run back where it must: nobody computes past the first injection still
// pending (hold()), and a stop ends the run at its step. The model kind decides what a step
// boundary is (its grid: a partitioned model changes only where every partition's steps
// meet) and applies what it takes from the queue.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "monitor/scenario/injection_file.hpp"

namespace kausal {

class StepClock;

class Injections {
 public:
  static constexpr std::uint64_t none = std::numeric_limits<std::uint64_t>::max();
  // Injections that may wait for one step: a flood of requests while the clock holds (a
  // slow pace, a stopped external clock) is refused rather than kept without bound; a
  // controller in the loop sets a few inputs per step.
  static constexpr std::size_t kMaxPerStep = 1024;

  // Where injections may take effect: at multiples of `grid`, the first one at or after the
  // clock's released state, or `lead` boundaries later; never at or after `last` (the run's
  // last step).
  struct Boundaries {
    std::uint64_t grid = 1;
    std::uint64_t lead = 0;
    std::uint64_t last = 0;
    // No injection takes effect before this step: a discrete-event run has no cut to take
    // an event at before its first thousandth (EventStretches::apply).
    std::uint64_t first = 0;
  };
  // `record` (may be empty: not recorded) gets every request. `pending` waits from the
  // start: a replay's injections, recorded first; or, `continued` (a resumed run), what the
  // record holds already and the run must apply again, after which the record goes on.
  Injections(const Boundaries& boundaries, StepClock* clock, const std::filesystem::path& record,
             std::vector<Injection> pending = {}, bool continued = false);

  // From any thread (the Operator): queues the injection at the next boundary and returns
  // it. InputError when the run has no clock or is past its last step, or when kMaxPerStep
  // wait for that step already.
  std::uint64_t request(Injection injection);
  // The first step an injection waits at (none if none): nobody may compute past it yet.
  std::uint64_t hold() const;
  // The clock's released state, held back at hold(): how far anyone may compute now. (The
  // clock is read first: a request that comes in between then holds at or after it.)
  std::uint64_t released() const;
  // Removes and returns the pending injections at steps up to `step`, in order (stops stay:
  // they end the run, see stop_step).
  std::vector<Injection> take(std::uint64_t step);
  // The step a stop ends the run at (none if none was asked for).
  std::uint64_t stop_step() const;
  // Throws Interrupted ("stopped by the operator at step N") once `reached` is at the stop.
  void check_stop(std::uint64_t reached) const;

 private:
  const Boundaries at_;
  StepClock* clock_;
  mutable std::mutex mutex_;
  std::vector<Injection> pending_;  // in order of step, then of arrival
  std::ofstream record_;
  std::filesystem::path record_file_;
};

}  // namespace kausal
