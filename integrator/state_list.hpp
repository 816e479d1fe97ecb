#pragma once
// The state list ZL of one partition (docs/model.md §1), the same for every model kind: an
// entry is saved before every step (and before the first event at a step), holding all a
// rollback must restore — the state, the stepper's multistep memory and the event
// indicators — and what the step taken from it cost, so that a rollback can book that work
// as wasted. Rollback rewinds to the first entry of a step; fossil collection frees what
// lies before GVT.
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>

#include "common/activity_clock.hpp"
#include "integrator/ode_method.hpp"

namespace kausal {

class StateList {
 public:
  struct Entry {
    std::uint64_t step = 0;
    Vector x;
    StepperMemory memory;  // empty for one-step methods
    Vector indicators;     // empty for models without event indicators
    // The model's internal state (Model::internal_state), shared between entries while it
    // does not change; null for models without one.
    std::shared_ptr<const Bytes> internal;
    Vector outputs;  // taken at this step (IntegratorConfig::outputs_at_step), else empty
    ActivityClock::Clock::duration work{};  // compute time of the step taken from here
    std::uint64_t derivative_calls = 0;     // f evaluations of that step
    Vector held;  // the inputs events set (IntegratorConfig::ports), else empty
  };
  // The entry restored by a rollback, and the cost of the steps it discards.
  struct Rewound {
    Entry entry;
    ActivityClock::Clock::duration work{};
    std::uint64_t derivative_calls = 0;
  };

  // Bytes an entry of a partition of this size holds (the budgets of
  // common/request_limits.hpp count with it): `history` derivatives of a multistep method's
  // memory (history_length), kept_outputs outputs kept with the step, and
  // internal_bytes of a model's internal state when each step changes it (a co-simulation
  // FMU's; a model exchange FMU's entries share theirs).
  static std::uint64_t entry_bytes(std::size_t state_size, std::size_t indicator_count,
                                   std::size_t history, std::size_t kept_outputs = 0,
                                   std::size_t internal_bytes = 0);

  Entry& save(Entry entry);
  // Forgets the newest entry (a step that failed before it was taken).
  void drop_back() { entries_.pop_back(); }
  // The first / last entry saved at `step` (before / after the step's events), or nullptr.
  const Entry* first_at(std::uint64_t step) const;
  const Entry* last_at(std::uint64_t step) const;
  // Removes every entry at `step` and later and returns the first one at `step` with the
  // cost of the steps taken from all of them. Precondition: first_at(step) != nullptr.
  Rewound rewind_to(std::uint64_t step);
  // Frees entries before `gvt`, keeping every entry of the newest step at or before it so
  // that a rollback to that step remains possible.
  void fossil_collect(std::uint64_t gvt);

  std::size_t size() const { return entries_.size(); }
  std::size_t peak() const { return peak_; }
  bool empty() const { return entries_.empty(); }
  const Entry& back() const { return entries_.back(); }
  Entry& back() { return entries_.back(); }

 private:
  std::deque<Entry>::const_iterator lower(std::uint64_t step) const;

  std::deque<Entry> entries_;
  std::size_t peak_ = 0;
};

// The rollback check (`--rollback-check`), the same for every Integrator: restores x and the
// stepper's multistep memory from `from` (the entry saved before the step just taken), lets
// `restep` take that step again, and throws ModelError naming `component` unless x and the
// memory come out with the same bits as the first time.
void require_same_step(const std::string& component, std::uint64_t step, const Vector& x,
                       const StepperMemory& memory, const Vector& again,
                       const StepperMemory& memory_again);

template <typename Restep>
void check_restep_reproduces(const std::string& component, const StateList::Entry& from,
                             OdeStepper& stepper, Vector& x, Restep&& restep) {
  const Vector first = x;
  const StepperMemory first_memory = stepper.memory();
  x = from.x;
  stepper.restore(from.memory);
  std::forward<Restep>(restep)();
  require_same_step(component, from.step, first, first_memory, x, stepper.memory());
}

}  // namespace kausal
