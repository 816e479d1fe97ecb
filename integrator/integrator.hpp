#pragma once
// The Integrator component without transport: steps its System under a guarantee, keeps the
// state list, applies events, rolls back. The servant and the in-process port wrap this.
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "integrator/model_link.hpp"
#include "integrator/ode_method.hpp"
#include "integrator/state_list.hpp"
#include "system/activity_clock.hpp"

namespace kausal {

struct IntegratorConfig {
  std::string name;  // for error messages, e.g. "integrator-3"
  OdeMethod method = OdeMethod::euler;
  double t0 = 0;
  double h = 0;
  std::vector<double> x0;
  // Every step: step, restore from the state list, step again, require identical bits
  // (the rollback check, `--rollback-check`). Doubles the Calc calls.
  bool rollback_check = false;
  // The step x0 belongs to (a resumed run starts at its last committed step). Over CORBA it
  // stays 0: IntegratorSetup has no such field, the monitor's port offsets step numbers.
  std::uint64_t first_step = 0;
};

struct RollbackResult {
  std::uint32_t epoch = 0;
  std::uint64_t discarded_steps = 0;
  std::uint64_t wasted_derivative_calls = 0;  // f evaluations of the discarded steps
};

// States of consecutive steps first_step, first_step + 1, ...; state_size doubles each.
struct StateBatch {
  std::uint32_t epoch = 0;
  std::uint64_t first_step = 0;
  std::size_t state_size = 0;
  std::vector<double> states;

  std::size_t count() const { return state_size ? states.size() / state_size : 0; }
  std::span<const double> state(std::size_t k) const {
    return {states.data() + k * state_size, state_size};
  }
};

class Integrator {
 public:
  // Throws ModelError for a bad step size or an empty / non-finite initial state.
  Integrator(IntegratorConfig config, ModelLink& link);

  using Deadline = std::chrono::steady_clock::time_point;
  // Steps while step() < guarantee; returns the states after each step. Entries of the
  // state list before `gvt` are freed first (nothing before gvt can be rolled back). Stops
  // early, after at least one step, once `deadline` has passed or the batch holds
  // max_reply_steps(): the caller asks again. ProtocolError if the guarantee lies more than
  // max_uncommitted_steps() past gvt (the state list would outgrow its budget).
  StateBatch advance(std::uint64_t guarantee, std::uint64_t gvt,
                     Deadline deadline = Deadline::max());
  // Applies the event at the current step through the System; returns the new state.
  std::vector<double> apply_event(const Event& event);
  // Returns to `step`: restores the state (and stepper memory) stepping produced there,
  // before any event, discards everything later, and starts a new epoch. The compute time
  // of the discarded steps moves from busy to rollback time.
  RollbackResult rollback(std::uint64_t step);
  // Frees the state list before gvt (gvt <= step()).
  void commit(std::uint64_t gvt);
  // From now on it steps on its own (integrator/run_ahead.hpp): its advances are traced as
  // run_ahead, and its trace settles spans only as commits pass their steps.
  void run_ahead_mode();

  std::uint64_t step() const { return step_; }
  std::uint32_t epoch() const { return epoch_; }
  // The budgets of system/request_limits.hpp in steps of this Integrator's state: how far
  // past the last commit it may step (state list), and how many states one batch carries.
  std::uint64_t max_uncommitted_steps() const;
  std::uint64_t max_reply_steps() const;
  const Vector& state() const { return x_; }
  const StateList& state_list() const { return list_; }
  ActivityTotals totals() const;
  const ActivityTrace& trace() const { return clock_.trace(); }
  const std::string& name() const { return config_.name; }

  // The busy (or rollback) pieces of one request, split around its waits for the System.
  struct BusyPieces {
    explicit BusyPieces(ActivityClock& c) : clock(c) {}
    void begin(ActivityKind kind, SpanTag request);
    void end();
    // Closes the current piece; later ones are tagged as the work of `step`.
    void tag_step(std::uint64_t step);
    template <typename Call>
    void wait_for_system(Call&& call);

    ActivityClock& clock;
    ActivityClock::Clock::duration link_wait{};  // all time spent waiting for the System

   private:
    void close_piece(ActivityClock::Clock::time_point at);
    ActivityKind kind_ = ActivityKind::busy;
    SpanTag request_;  // the call the pieces belong to
    std::uint64_t step_ = ActivityTrace::untagged;
    ActivityClock::Clock::time_point start_;
  };

 private:
  void step_once();
  void compute_step();
  void check_rollback_reproduces_step();
  void require(bool condition, const std::string& what) const;

  class LinkRhs;
  IntegratorConfig config_;
  ModelLink& link_;
  Vector x_;
  OdeStepper stepper_;
  std::uint64_t step_;
  std::uint32_t epoch_ = 0;
  bool speculative_ = false;
  StateList list_;
  ActivityClock clock_;
  BusyPieces pieces_{clock_};
};

}  // namespace kausal
