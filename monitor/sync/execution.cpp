#include "monitor/sync/execution.hpp"

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include "common/errors.hpp"

namespace kausal {
namespace {

using Clock = std::chrono::steady_clock;

// How far anyone may compute now: the clock's released state (none: no clock), held back at
// the first injection still pending.
std::uint64_t released_now(const Pacing& pacing) {
  if (pacing.injections) return pacing.injections->released();
  return pacing.clock ? pacing.clock->released() : Coupling::unpaced;
}

// Applies the injections that have come due, and returns how far anyone may compute now.
// Changes are applied before any component may compute past them.
std::uint64_t take_injections(const Pacing& pacing, Coupling& coupling) {
  if (pacing.injections)
    for (const Injection& i : pacing.injections->take(coupling.injections_due())) coupling.apply(i);
  return released_now(pacing);
}

// Waits for the release of step m, then as take_injections.
std::uint64_t release(const Pacing& pacing, Coupling& coupling, std::uint64_t m,
                      const RunControl& control) {
  pacing.clock->wait_release(m, control);
  return take_injections(pacing, coupling);
}

// Components that run by themselves: a thread that waits for each release of the clock and
// tells the coupling what may be computed now. Nothing escapes it: a failure goes to the
// coupling (which ends the run with it).
class PacingThread {
 public:
  PacingThread(const Pacing& pacing, Coupling& coupling, RunControl& control, std::uint64_t first)
      : pacing_(pacing), coupling_(coupling), stop_(control) {
    thread_ = std::thread([this, first] { run(first); });
  }
  ~PacingThread() {
    stop_.stopping = true;
    thread_.join();
  }
  PacingThread(const PacingThread&) = delete;
  PacingThread& operator=(const PacingThread&) = delete;

 private:
  struct Stop final : RunControl {
    explicit Stop(RunControl& c) : run(c) {}
    bool stop_requested() const override { return stopping || run.stop_requested(); }
    RunControl& run;
    std::atomic<bool> stopping{false};
  };

  void run(std::uint64_t first) {
    try {
      for (std::uint64_t m = first; m < coupling_.end(); ++m)
        coupling_.release(release(pacing_, coupling_, m, stop_));
    } catch (const Interrupted&) {
      // the run ends (or was asked to stop: the loop sees that itself)
    } catch (...) {
      coupling_.fail(std::current_exception());
    }
  }

  const Pacing& pacing_;
  Coupling& coupling_;
  Stop stop_;
  std::thread thread_;  // last: started once the rest is there
};

// After every commit: the clock times it, the progress report shows it.
void committed(Coupling& coupling, const Pacing& pacing, RunControl& control) {
  if (pacing.clock) pacing.clock->committed(coupling.committed());
  control.progress(coupling.committed(), coupling.end());
}

// The coupling computes in this thread: once per release of the clock (unpaced: as often as
// it takes), as far as the release allows. (Injections without a clock, a test's, are
// applied at their steps all the same.)
void run_here(Coupling& coupling, const Pacing& pacing, RunControl& control) {
  std::uint64_t next = coupling.committed();  // the clock's next release
  while (coupling.committed() < coupling.end()) {
    if (control.stop_requested()) throw Interrupted();
    const std::uint64_t released = pacing.clock && next < coupling.end()
                                       ? release(pacing, coupling, next++, control)
                                       : take_injections(pacing, coupling);
    if (pacing.injections) pacing.injections->check_stop(coupling.committed());
    const bool progress = coupling.advance(released);
    committed(coupling, pacing, control);
    const bool more_to_release = pacing.clock && next < coupling.end();
    if (!progress && !more_to_release && coupling.committed() < coupling.end())
      throw SimulationError(coupling.stalled());
  }
  // A coupling that computed its last steps ahead (a macro step, a slow partition's step)
  // still ends at the clock's time: every step is released and timed.
  while (pacing.clock && next < coupling.end()) release(pacing, coupling, next++, control);
}

// The components run by themselves: the loop collects what they deliver while the pacing
// thread (a paced run) releases their steps.
void run_elsewhere(Coupling& coupling, const Pacing& pacing, RunControl& control) {
  std::optional<PacingThread> pacer;
  if (pacing.clock) pacer.emplace(pacing, coupling, control, coupling.committed());
  while (coupling.committed() < coupling.end()) {
    if (control.stop_requested()) throw Interrupted();
    if (pacing.injections) pacing.injections->check_stop(coupling.committed());
    if (coupling.advance(Coupling::unpaced)) committed(coupling, pacing, control);
  }
}

}  // namespace

RunResult execute(Coupling& coupling, RunResult r, RunControl& control, const Pacing& pacing) {
  const auto start = Clock::now();
  r.start_ns = monotonic_ns(start);
  try {
    if (pacing.clock) pacing.clock->start();
    // (Components that run by themselves take injections only from the pacing thread.)
    coupling.start(coupling.computes_here() || pacing.clock ? released_now(pacing)
                                                            : Coupling::unpaced);
    if (coupling.computes_here())
      run_here(coupling, pacing, control);
    else
      run_elsewhere(coupling, pacing, control);
  } catch (const Error& e) {
    r.end_with(e);
  }
  r.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  coupling.finish(r);
  return r;
}

}  // namespace kausal
