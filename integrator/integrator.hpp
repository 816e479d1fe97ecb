#pragma once
// The Integrator component without transport, the same for every model kind (docs/model.md
// §1–§4): it steps its System through the model link, keeps the state list, takes its inputs
// from other partitions (input_channels.hpp), applies time-stamped events from its
// coupling, rolls back, and publishes the steps that are final with respect to its inputs.
// The servant, the in-process deployments and the worker (integrator/worker.hpp) wrap this.
//
// A pendulum of the chain is a partition without inputs whose coupling (the monitor's
// contact sweep) sends it events: its steps stay open to rollback until the monitor commits
// them. A partition of a partitioned model has inputs and no events: a step is committed as
// soon as every input it used is real (or an accepted prediction).
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "common/activity_clock.hpp"
#include "integrator/event_ports.hpp"
#include "integrator/input_channels.hpp"
#include "integrator/model_link.hpp"
#include "integrator/ode_method.hpp"
#include "integrator/state_list.hpp"
#include "system/state_block.hpp"

namespace kausal {

struct IntegratorConfig {
  std::string name;  // component name for errors, e.g. "integrator-3"
  OdeMethod method = OdeMethod::euler;
  NewtonSettings newton;           // the implicit methods' step equation
  std::vector<StateBlock> blocks;  // pdre0's diagonal blocks
  double t0 = 0;
  double tick = 0;  // s: t_m = t0 + m·ticks_per_step·tick, never accumulated
  std::uint64_t ticks_per_step = 1;
  std::uint64_t first_step = 0;  // the step x0 belongs to (a resumed run starts later)
  std::uint64_t last_step = std::numeric_limits<std::uint64_t>::max();
  Vector x0;
  // A resumed run starts where a batch ended (StateBatch::memory, ::indicators): the
  // stepper's multistep memory and the event indicators at first_step (empty: a fresh start,
  // the indicators computed at the first step), and the real samples its channels held.
  StepperMemory memory0;
  Vector indicators0;
  std::vector<ChannelHistory> input_history;
  // The model keeps restorable state outside x (Model::internal_state): it is saved with
  // every state-list entry and restored on rollback and by the rollback check. internal0:
  // that state at first_step in a resumed run (empty: the System's own, fresh one).
  bool internal_state = false;
  Bytes internal0;
  std::size_t internal_bytes = 0;  // its size when planned (the state list's budget)
  // The outputs depend on state x does not hold (an FMU's discrete states, restorable or
  // not): they are taken when a step is taken and kept with it, never recomputed later from
  // x, when the model's hidden state has moved on.
  bool outputs_at_step = false;
  // first_step's state is published like every later one (a fresh partition), or not: the
  // monitor has it (the chain; every resumed run).
  bool publish_first_state = true;
  std::size_t output_size = 0;  // outputs shipped per step: the model's count, or 0 for none
  std::size_t indicator_count = 0;
  // Every step's end goes to the model (Model::completed_step), before its crossings.
  bool completes_steps = false;
  std::vector<InputChannel> channels;  // channel i drives the model's input i
  bool speculate = false;              // predict missing input samples (optimistic)
  double tolerance = 0;                // accepted |prediction − sample|
  // Others sample this partition's outputs at the multiples of this step count (0: no one
  // does). A final sample point is shipped at once: holding it back for a batch would hold
  // its consumers back too.
  std::uint64_t publish_every = 0;
  // Its coupling sends it events (the chain's impacts): a step stays open to rollback until
  // the monitor commits it. Otherwise a step is committed once its inputs are final.
  bool coupling_sends_events = false;
  // Every step: step, restore the state list's entry (state and multistep memory), step
  // again, require identical bits (`--rollback-check`). Doubles the f evaluations.
  bool rollback_check = false;
  // Crossings it reports and events it takes in the middle of a step (a hybrid model's
  // partition, integrator/event_ports.hpp). Needs a one-step method.
  EventPorts ports;

  double h() const { return static_cast<double>(ticks_per_step) * tick; }
};

struct RollbackResult {
  std::uint32_t epoch = 0;
  std::uint64_t discarded_steps = 0;
  std::uint64_t wasted_derivative_calls = 0;  // f evaluations of the discarded steps
};

// Steps first_step, first_step + 1, ... of one epoch: the state and the outputs of each,
// and what a run resumed from the last of them needs besides its state (a checkpoint).
struct StateBatch {
  std::uint32_t epoch = 0;
  std::uint64_t first_step = 0;
  std::size_t state_size = 0;
  std::size_t output_size = 0;
  std::vector<double> states;
  std::vector<double> outputs;
  StepperMemory memory;                    // at the last step (empty for one-step methods)
  std::vector<double> indicators;          // at the last step (empty without event indicators)
  Bytes internal;                          // at the last step (empty without internal state)
  std::vector<LocatedCrossing> crossings;  // located while the batch's steps were computed

  // No steps: where a failure of `epoch` at `step` stands in an inbox.
  static StateBatch empty_at(std::uint32_t epoch, std::uint64_t step) {
    StateBatch b;
    b.epoch = epoch;
    b.first_step = step;
    return b;
  }
  std::size_t count() const { return state_size ? states.size() / state_size : 0; }
  std::span<const double> state(std::size_t k) const {
    return {states.data() + k * state_size, state_size};
  }
};

struct IntegratorStats {
  std::uint64_t steps_computed = 0;  // including steps later rolled back
  std::uint64_t rollbacks = 0;
  std::uint64_t rolled_back_steps = 0;
  std::uint64_t wasted_derivative_calls = 0;  // f evaluations of the rolled-back steps
  std::uint64_t predictions = 0;              // input samples predicted before they arrived
  std::uint64_t accepted_predictions = 0;     // predictions kept (within tolerance)
  double max_accepted_error = 0;              // largest |prediction − sample| kept
  std::uint64_t derivative_calls = 0;
  std::uint64_t jacobian_calls = 0;
  std::uint64_t events = 0;              // zero crossings handled and events applied
  std::uint64_t newton_limit_steps = 0;  // steps that took Newton's iterate at its limit
};

// How many steps of an Integrator like this fit into the memory budgets of
// common/request_limits.hpp: each saved for a rollback (state, multistep memory,
// indicators) and shipped in a batch (state, outputs). Bounds the windows and the batch
// sizes a caller may ask for.
std::uint64_t held_steps_within_budget(const IntegratorConfig& config);
// The steps one batch may carry (the reply budget).
std::uint64_t batch_steps_within_budget(const IntegratorConfig& config);

class Integrator {
 public:
  // ModelError for a bad step size, an empty or non-finite initial state, or inputs that
  // cannot work (hold orders, periods, tolerance, window).
  Integrator(IntegratorConfig config, ModelLink& link);

  using Deadline = std::chrono::steady_clock::time_point;

  // ---- stepping ----
  // The next step may be taken now: not past the last step, its inputs there or
  // predictable, within the window past the committed step, not held after a rollback,
  // released by the clock of a paced run.
  bool can_step() const;
  // Takes the next step (ProtocolError unless can_step()).
  void step_once();
  // Steps while can_step(), step() < until and more() allows another step: one request of
  // the trace (`advance`, or `run_ahead` once run_on_its_own()). Returns the steps taken.
  std::uint64_t step_while(std::uint64_t until, const std::function<bool()>& more);
  // Conservative under a guarantee from the monitor: commits gvt, steps while step() <
  // guarantee (and the inputs allow) and returns the new final steps. A step that fails
  // after others were taken: those are returned and the failure is thrown by the next call. Stops
  // early, after at least one step, once `deadline` has passed or the batch holds the reply budget:
  // the caller asks again. ProtocolError if gvt lies after the current step or the guarantee more
  // than held_steps_within_budget() past gvt.
  StateBatch advance(std::uint64_t guarantee, std::uint64_t gvt,
                     Deadline deadline = Deadline::max());
  // From now on the steps are taken on its own (integrator/worker.hpp), at most `window`
  // past the committed step: traced as run_ahead, and, if they can be undone, settled only
  // as they are committed. A rollback holds it at the rollback step until the next commit.
  void run_on_its_own(std::uint64_t window);
  // Paced runs (docs/realtime.md): states after `state` may not be computed yet; each call
  // releases further (a lower value than before is ignored). Unbounded until first called.
  void release(std::uint64_t state);

  // ---- what arrives from outside ----
  // An input sample (in order per channel). May roll the Integrator back (within itself:
  // its published steps never change).
  void provide(const ChannelSample& sample);
  // The co-simulation master's input over a macro step (InputChannels::provide).
  void provide_prediction(const ChannelPrediction& prediction);
  // Applies the event at the current step through the System; returns the new state.
  std::vector<double> apply_event(const Event& event);
  // Events for its event inputs (IntegratorConfig::ports), each taken by the step whose
  // span [t_n, t_n+1) holds its time, when that step is computed: the step is cut there (an
  // event at t_n is taken at the step's start). ProtocolError, and none of them taken, for
  // one before the current step's time (roll back first), twice, for an event input it does
  // not have, or more waiting than limits::max_arriving_events.
  void schedule(const std::vector<ArrivingEvent>& events);
  // Hands a change of the partition's model on to the System (docs/realtime.md): the caller
  // sends it before this Integrator computes past change.from.
  void change(const ModelChange& change);
  // Returns to `step`: restores the state (and stepper memory, indicators) stepping produced
  // there, before any event, discards everything later, and starts a new epoch. The compute
  // time of the discarded steps moves from busy to rollback time.
  RollbackResult rollback(std::uint64_t step);
  // Nothing before gvt can be rolled back any more: frees the state list before it
  // (gvt may lie ahead of the current step).
  void commit(std::uint64_t gvt);

  // ---- publishing ----
  // Steps not published yet up to the final one, with their outputs; empty if none.
  StateBatch take_final();
  // Every state up to and including this step is final with respect to the inputs.
  std::uint64_t final_step() const;
  // No step up to this one can be rolled back: the monitor's last commit if the coupling
  // sends events, else the final step.
  std::uint64_t committed_step() const;
  bool all_published() const { return published_ > config_.last_step; }
  // Final steps wait to be taken (e.g. after a sample confirmed a prediction).
  bool has_final() const { return !all_published() && published_ <= final_step(); }
  // A final step that another partition samples waits to be taken.
  bool has_final_sample_point() const;

  std::uint64_t step() const { return step_; }
  std::uint32_t epoch() const { return epoch_; }
  bool done() const { return step_ >= config_.last_step; }
  const Vector& state() const { return x_; }
  const StateList& state_list() const { return list_; }
  IntegratorStats stats() const;
  // With the state list's peak and the time spent waiting for the System.
  ActivityTotals totals() const;
  const ActivityTrace& trace() const { return clock_.trace(); }
  const std::string& name() const { return config_.name; }
  const IntegratorConfig& config() const { return config_; }
  const InputChannels& inputs() const { return inputs_; }

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
  class LinkRhs;
  class Request;
  void restore_start();
  double time_of_step(std::uint64_t n) const;
  // The request the steps of a call belong to: advance, or run_ahead once on its own.
  SpanTag stepping_tag() const;
  // Steps while step() < until, can_step() and more() (called right before each step).
  template <typename More>
  std::uint64_t take_steps(std::uint64_t until, More&& more);
  void compute_step(std::uint64_t n);
  // The inputs at t: the channels' and the held ones events set.
  Vector inputs_at(double t) const;
  // compute_step with event ports: cut at the events that arrive inside the step, the
  // crossings of the event outputs located.
  void compute_with_ports(std::uint64_t n);
  // From time p to q (within step n): x_ advanced, every crossing of an event output found
  // on the way located and recorded; g: the event outputs' values at p, then at q.
  void advance_piece(std::uint64_t n, double p, double q, Vector& g);
  // x advanced by one step of the method from (t, x) to t + h.
  void step_from(double t, double h, Vector& x);
  // The event outputs' values (output − level) at (t, x).
  Vector port_values(double t, const Vector& x);
  void apply_arrival(const ArrivingEvent& event);
  void check_ports() const;
  void complete_step(double t);
  void handle_crossings(double t);
  // The model's internal state as it is now (after a step or an event changed it).
  void fetch_internal();
  // config_.outputs_at_step: the outputs at the current step, now.
  void take_outputs();
  void take_what_an_entry_keeps();
  void undo_step();
  void restore_internal(const std::shared_ptr<const Bytes>& saved);
  void rewind(std::uint64_t n);
  void forget_before(std::uint64_t n);
  StateBatch collect_final();
  void require(bool condition, const std::string& what) const;

  IntegratorConfig config_;
  ModelLink& link_;
  OdeStepper stepper_;
  Vector x_;
  Vector indicators_;
  Vector held_inputs_;                      // the inputs events set (ports)
  std::vector<ArrivingEvent> arriving_;     // by key, not yet behind a settled step
  std::vector<LocatedCrossing> crossings_;  // of steps not yet settled, by step
  std::shared_ptr<const Bytes> internal_;   // config_.internal_state: the model's, now
  Vector outputs_;                          // config_.outputs_at_step: at step_ (empty: not yet)
  InputChannels inputs_;
  std::uint64_t step_;
  std::uint64_t published_;  // the next step to publish
  std::uint32_t epoch_ = 0;
  std::uint64_t committed_;       // the monitor's last commit (may lie ahead of step_)
  std::uint64_t settled_before_;  // no step before it is computed again (forget_before)
  std::uint64_t window_ = std::numeric_limits<std::uint64_t>::max();
  bool on_its_own_ = false;
  bool held_ = false;  // on its own, after a rollback: no step until the next commit
  std::uint64_t released_ = std::numeric_limits<std::uint64_t>::max();  // release()
  bool paced_ = false;
  StateList list_;              // the state before each step not yet committed
  std::exception_ptr failure_;  // a failure after the steps advance() returned: the next call's
  IntegratorStats stats_;
  ActivityClock clock_;
  BusyPieces pieces_{clock_};
};

}  // namespace kausal
