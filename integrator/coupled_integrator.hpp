#pragma once
// The Integrator of one partition of a coupled model (docs/model.md §4), without transport.
//
// Time is counted in ticks (the scenario's smallest step); this partition steps every
// `ticks_per_step` ticks. Each input from another partition is a channel of samples: sample
// j is the producer's output at tick j·period (period = the larger of the two steps, so
// multirate couplings sample at the slower rate). Over step n the input is the polynomial of
// order `hold` through the newest samples at or before the step's start (j, j−1, j−2),
// evaluated at each stage time (order 0 holds, 1 and 2 extrapolate; fewer samples at the
// start lower the order).
//
// Conservative: a step is taken only when every sample it needs has arrived.
// Optimistic (speculate): a missing sample is predicted from the arrived ones with the same
// polynomial and the step is taken at once. When the sample arrives it is compared with the
// prediction; if they differ by more than `tolerance` (with tolerance 0: by any bit) the
// partition rolls back from its state list to the first step that used the prediction.
// Only final steps — those whose inputs were all real or accepted — are published, so a
// rollback never reaches another partition and never cascades.
#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <vector>

#include "integrator/model_link.hpp"
#include "integrator/ode_method.hpp"
#include "integrator/state_list.hpp"
#include "system/activity_clock.hpp"
#include "system/model.hpp"
#include "system/state_block.hpp"

namespace kausal {

struct InputChannel {
  std::string name;  // "turbine.power -> machine.pm", for messages
  int hold = 0;
  std::uint64_t period_ticks = 1;
};

struct CoupledConfig {
  std::string name;  // component name for errors
  OdeMethod method = OdeMethod::euler;
  std::vector<StateBlock> blocks;  // pdre0's diagonal blocks
  double t0 = 0;
  double tick = 0;  // s
  std::uint64_t ticks_per_step = 1;
  std::uint64_t last_step = 0;
  Vector x0;
  std::size_t output_size = 0;
  std::size_t indicator_count = 0;
  std::vector<InputChannel> channels;  // channel i drives the partition's input i
  bool speculate = false;
  double tolerance = 0;
  std::uint64_t window = std::numeric_limits<std::uint64_t>::max();  // steps past final
  // Other partitions sample this one's outputs at the multiples of this step count (0: no
  // one does). A final sample point is shipped at once: holding it back for a batch would
  // hold its consumers back too.
  std::uint64_t publish_every = 0;
  // Every step: step, restore the state list's entry (state and multistep memory), step
  // again, require identical bits (`--rollback-check`). Doubles the f evaluations.
  bool rollback_check = false;
};

// How many steps of a partition like this fit into the memory budgets of
// system/request_limits.hpp: each saved for a rollback (state, multistep memory,
// indicators) and shipped in a batch (state, outputs). Bounds the window and the steps
// between deliveries that a caller may ask for.
std::uint64_t held_steps_within_budget(const CoupledConfig& config);

// Final steps first_step, first_step + 1, ...: the state and the outputs of each.
struct OutputBatch {
  std::uint64_t first_step = 0;
  std::size_t state_size = 0;
  std::size_t output_size = 0;
  std::vector<double> states;
  std::vector<double> outputs;

  std::size_t count() const { return state_size ? states.size() / state_size : 0; }
};

struct ChannelSample {
  std::size_t channel = 0;
  std::uint64_t index = 0;
  double value = 0;
};

struct CoupledStats {
  std::uint64_t steps_computed = 0;  // including steps later rolled back
  std::uint64_t rollbacks = 0;
  std::uint64_t rolled_back_steps = 0;
  std::uint64_t wasted_derivative_calls = 0;  // f evaluations of the rolled-back steps
  std::uint64_t predictions = 0;              // samples predicted before they arrived
  std::uint64_t accepted_predictions = 0;     // predictions kept (within tolerance)
  double max_accepted_error = 0;              // largest |prediction − sample| kept
  std::uint64_t derivative_calls = 0;
  std::uint64_t jacobian_calls = 0;
  std::uint64_t events = 0;
};

class CoupledIntegrator {
 public:
  CoupledIntegrator(CoupledConfig config, ModelLink& link);

  // A sample arrived (in order per channel). May roll the partition back.
  void provide(const ChannelSample& sample);
  // True if the next step may be taken now (inputs there, or predictable within the window).
  bool can_step() const;
  void step_once();
  bool done() const { return step_ == config_.last_step; }

  // Steps [published, final] not shipped yet, with their outputs; empty if none.
  OutputBatch take_final();
  std::uint64_t step() const { return step_; }
  // Every state up to and including this step is final.
  std::uint64_t final_step() const;
  bool all_published() const { return published_ > config_.last_step; }
  // Final steps wait to be taken (e.g. after a sample confirmed a prediction).
  bool has_final() const { return !all_published() && published_ <= final_step(); }
  // A final step that another partition samples waits to be taken.
  bool has_final_sample_point() const;

  const CoupledStats& stats() const { return stats_; }
  // With the state list's peak and the time spent waiting for the System's f evaluations.
  ActivityTotals totals() const;
  const ActivityTrace& trace() const { return clock_.trace(); }
  const std::string& name() const { return config_.name; }
  const CoupledConfig& config() const { return config_; }

 private:
  struct Sample {
    double value = 0;
    bool predicted = false;
    std::uint64_t first_use = never;  // the first step that used it (predictions only)
  };
  struct Channel {
    InputChannel spec;
    std::deque<Sample> samples;  // samples[k] is sample `base + k`
    std::uint64_t base = 0;
    std::uint64_t arrived = 0;  // samples below this index are real
  };
  static constexpr std::uint64_t never = std::numeric_limits<std::uint64_t>::max();

  class BoundRhs;
  double time_of_step(std::uint64_t n) const;
  std::uint64_t sample_for_step(const Channel& c, std::uint64_t n) const;
  int order_at(const Channel& c, std::uint64_t j) const;
  bool sample_known(const Channel& c, std::uint64_t j) const { return j < c.arrived; }
  Sample& sample(Channel& c, std::uint64_t j);
  const Sample& sample(const Channel& c, std::uint64_t j) const;
  double predict(const Channel& c, std::uint64_t j) const;
  void prepare_inputs(std::uint64_t n);
  void input_at(double t, Vector& u) const;
  void handle_crossings(double t);
  void compute_step(std::uint64_t n);
  void check_rollback_reproduces_step(std::uint64_t n);
  void rollback_to(std::uint64_t n);
  void restore_step(std::uint64_t n);
  void forget_before(std::uint64_t n);
  const StateList::Entry& saved_at(std::uint64_t n) const;

  CoupledConfig config_;
  ModelLink& link_;
  OdeStepper stepper_;
  Vector x_;
  Vector indicators_;
  std::uint64_t step_ = 0;
  std::uint64_t published_ = 0;  // next step to publish
  std::vector<Channel> channels_;
  StateList list_;  // the state before each unfinished step
  // The stencil of the step being computed: per channel its newest sample index and order.
  std::vector<std::uint64_t> stencil_j_;
  std::vector<int> stencil_order_;
  double stencil_t0_ = 0;
  CoupledStats stats_;
  ActivityClock clock_;
  ActivityClock::Clock::duration derivative_wait_{};  // in the link's derivative calls
};

}  // namespace kausal
