#include "integrator/integrator.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "common/errors.hpp"
#include "common/request_limits.hpp"
#include "integrator/method.hpp"
#include "integrator/stepper.hpp"

namespace kausal {
namespace {

Eigen::Index idx(std::size_t i) {
  return static_cast<Eigen::Index>(i);
}

std::uint64_t shipped_bytes(const IntegratorConfig& c) {
  return 8 * (static_cast<std::uint64_t>(c.x0.size()) + c.output_size);
}

}  // namespace

std::uint64_t held_steps_within_budget(const IntegratorConfig& c) {
  const std::uint64_t saved = StateList::entry_bytes(
      static_cast<std::size_t>(c.x0.size()), c.indicator_count, history_length(c.method),
      c.outputs_at_step ? c.output_size : 0,
      c.internal_state && c.method == OdeMethod::co_simulation ? c.internal_bytes : 0);
  return std::min(limits::steps_within(limits::held_bytes, saved + shipped_bytes(c)),
                  batch_steps_within_budget(c));
}

std::uint64_t batch_steps_within_budget(const IntegratorConfig& c) {
  return limits::steps_within(limits::reply_bytes, shipped_bytes(c));
}

// One request of the trace: its busy (or rollback) pieces around the waits for the System,
// and the whole request as a call span (trace.json draws it around the pieces and waits).
class Integrator::Request {
 public:
  Request(Integrator& owner, ActivityKind kind, SpanTag tag)
      : pieces_(owner.pieces_), call_(owner.clock_, tag) {
    pieces_.begin(kind, tag);
  }
  ~Request() { pieces_.end(); }
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

 private:
  BusyPieces& pieces_;
  CallScope call_;  // declared last: recorded after the last piece
};

// f(t, x) and ∂f/∂x of the System with the inputs of the step being computed bound, each
// call booked as a wait for the System.
class Integrator::LinkRhs final : public RightHandSide {
 public:
  explicit LinkRhs(Integrator& owner)
      : owner_(owner), u_(owner.inputs_at(0)), du_(u_.size(), owner.inputs_.derivative_order()) {}
  void derivative(double t, VectorView x, VectorOut dx) override {
    bind(t);
    owner_.pieces_.wait_for_system([&] { owner_.link_.derivative(t, x, u_, dx); });
    owner_.clock_.count_calc();
  }
  void jacobian(double t, VectorView x, MatrixOut J) override {
    bind(t);
    owner_.pieces_.wait_for_system([&] { owner_.link_.jacobian(t, x, u_, J); });
  }
  // The channels' inputs over the step go with it (their derivatives at t; the held ones
  // have none).
  void model_step(double t, double h, Vector& x) override {
    bind(t);
    if (du_.cols() > 0) owner_.inputs_.input_derivatives_at(t, du_);
    owner_.pieces_.wait_for_system([&] { owner_.link_.step(t, h, u_, du_, x); });
    owner_.clock_.count_calc();
  }

 private:
  // The channels' inputs at t; the held ones stay as they are over a step's piece.
  void bind(double t) {
    owner_.inputs_.input_at(t, u_);
    const auto held = owner_.held_inputs_.size();
    if (held > 0) u_.tail(held) = owner_.held_inputs_;
  }

  Integrator& owner_;
  Vector u_;
  Matrix du_;
};

Integrator::Integrator(IntegratorConfig config, ModelLink& link)
    : config_(std::move(config)),
      link_(link),
      stepper_(config_.method, static_cast<std::size_t>(config_.x0.size()), config_.blocks,
               config_.newton),
      x_(config_.x0),
      inputs_(config_.name, config_.channels, {config_.t0, config_.tick, config_.ticks_per_step},
              config_.speculate, config_.tolerance),
      step_(config_.first_step),
      published_(config_.first_step + (config_.publish_first_state ? 0 : 1)),
      committed_(config_.first_step),
      settled_before_(config_.first_step) {
  if (!(config_.tick > 0) || !std::isfinite(config_.h()) || config_.ticks_per_step == 0)
    throw ModelError(config_.name, "step size h must be finite and > 0");
  if (x_.size() == 0 || !x_.allFinite())
    throw ModelError(config_.name, "initial state must be non-empty and finite");
  restore_start();
  if (config_.ports.any()) {
    check_ports();
    held_inputs_ =
        Eigen::Map<const Vector>(config_.ports.held0.data(), idx(config_.ports.held0.size()));
  }
  if (config_.speculate) clock_.trace().set_speculative();
}

// A resumed run continues from the stepper memory, indicators and input samples it had.
void Integrator::restore_start() {
  const StepperMemory& m = config_.memory0;
  if (m.steps > 0) {
    bool finite = std::isfinite(m.h);
    for (const Vector& f : m.past) finite = finite && f.allFinite();
    if (!finite) throw ModelError(config_.name, "memory0: not finite");
    try {
      stepper_.restore(m);
    } catch (const SimulationError& e) {
      throw ModelError(config_.name, std::string("memory0: ") + e.what());
    }
  }
  if (config_.indicators0.size() != 0) {
    if (config_.indicators0.size() != static_cast<Eigen::Index>(config_.indicator_count) ||
        !config_.indicators0.allFinite())
      throw ModelError(config_.name, "indicators0: expected " +
                                         std::to_string(config_.indicator_count) +
                                         " finite event indicators");
    indicators_ = config_.indicators0;
  }
  inputs_.restore(config_.input_history, config_.first_step);
  if (!config_.internal0.empty()) {
    if (!config_.internal_state)
      throw ModelError(config_.name, "internal0: the model keeps no internal state");
    restore_internal(std::make_shared<const Bytes>(config_.internal0));
  }
}

// The internal state and the outputs at the current step, where not taken yet.
void Integrator::take_what_an_entry_keeps() {
  if (config_.internal_state && !internal_) fetch_internal();
  if (config_.outputs_at_step && outputs_.size() == 0) take_outputs();
}

void Integrator::take_outputs() {
  outputs_.resize(idx(config_.output_size));
  pieces_.wait_for_system([&] { link_.output(time_of_step(step_), x_, outputs_); });
}

void Integrator::fetch_internal() {
  Bytes now;
  pieces_.wait_for_system([&] { now = link_.save_internal(); });
  internal_ = std::make_shared<const Bytes>(std::move(now));
}

// (Entries share the bytes until the model changes them: a restore is needed only when the
// saved bytes are not the ones the model holds now.)
void Integrator::restore_internal(const std::shared_ptr<const Bytes>& saved) {
  if (!saved || saved == internal_) return;
  pieces_.wait_for_system([&] { link_.restore_internal(*saved); });
  internal_ = saved;
}

double Integrator::time_of_step(std::uint64_t n) const {
  return step_time(config_.t0, config_.tick, n * config_.ticks_per_step);
}

void Integrator::require(bool condition, const std::string& what) const {
  if (!condition) throw ProtocolError(config_.name, what);
}

IntegratorStats Integrator::stats() const {
  IntegratorStats s = stats_;
  s.predictions = inputs_.stats().predictions;
  s.accepted_predictions = inputs_.stats().accepted_predictions;
  s.max_accepted_error = inputs_.stats().max_accepted_error;
  s.derivative_calls = stepper_.derivative_calls();
  s.jacobian_calls = stepper_.jacobian_calls();
  s.newton_limit_steps = stepper_.accepted_at_limit();
  return s;
}

ActivityTotals Integrator::totals() const {
  ActivityTotals t = clock_.totals();
  t.state_list_peak = list_.peak();
  t.calc_wait_s = std::chrono::duration<double>(pieces_.link_wait).count();
  return t;
}

void Integrator::BusyPieces::begin(ActivityKind kind, SpanTag request) {
  clock.count_request();
  kind_ = kind;
  request_ = request;
  step_ = ActivityTrace::untagged;
  start_ = ActivityClock::Clock::now();
}

void Integrator::BusyPieces::close_piece(ActivityClock::Clock::time_point at) {
  clock.add(kind_, start_, at, {request_.call, step_, request_.epoch});
  start_ = at;
}

void Integrator::BusyPieces::tag_step(std::uint64_t step) {
  close_piece(ActivityClock::Clock::now());
  step_ = step;
}

void Integrator::BusyPieces::end() {
  close_piece(ActivityClock::Clock::now());
}

template <typename Call>
void Integrator::BusyPieces::wait_for_system(Call&& call) {
  const auto start = ActivityClock::Clock::now();
  close_piece(start);
  call();
  start_ = ActivityClock::Clock::now();
  link_wait += start_ - start;
}

// ---- stepping ----

bool Integrator::can_step() const {
  if (done() || held_ || step_ >= released_ || !inputs_.ready_for(step_)) return false;
  const std::uint64_t committed = committed_step();
  return step_ < committed || step_ - committed < window_;
}

Vector Integrator::inputs_at(double t) const {
  Vector u(idx(inputs_.size()) + held_inputs_.size());
  inputs_.input_at(t, u);
  if (held_inputs_.size() > 0) u.tail(held_inputs_.size()) = held_inputs_;
  return u;
}

void Integrator::compute_step(std::uint64_t n) {
  if (config_.ports.any()) return compute_with_ports(n);
  LinkRhs rhs(*this);
  if (config_.method == OdeMethod::co_simulation) internal_.reset();  // as in step_from
  try {
    stepper_.step(rhs, time_of_step(n), config_.h(), x_);
  } catch (const SimulationError& e) {
    throw ModelError(config_.name, std::string(e.what()) + " (step " + std::to_string(n + 1) +
                                       "; step size too large for the method?)");
  }
}

// The model hears of the step's end; a step event there may change x, as a crossing's
// handler does, and the model's internal state (fetched afresh after it).
void Integrator::complete_step(double t) {
  const Vector before = x_;
  internal_.reset();
  pieces_.wait_for_system([&] { link_.completed_step(t, x_); });
  if (x_ != before) stepper_.restart();  // the state jumped: a multistep method starts afresh
}

// An indicator that changed sign across the step fires its handler at the step's end.
void Integrator::handle_crossings(double t) {
  const Vector u = inputs_at(t);
  Vector g(idx(config_.indicator_count));
  pieces_.wait_for_system([&] { link_.indicators(t, x_, u, g); });
  bool fired = false;
  for (Eigen::Index i = 0; i < g.size(); ++i) {
    const bool crossed = (indicators_[i] > 0 && g[i] <= 0) || (indicators_[i] < 0 && g[i] >= 0);
    if (!crossed) continue;
    internal_.reset();  // the handler changes the model's internal state
    pieces_.wait_for_system([&] { link_.on_crossing(static_cast<std::size_t>(i), t, x_); });
    ++stats_.events;
    fired = true;
  }
  if (fired) {
    stepper_.restart();  // the state jumped: a multistep method starts afresh
    if (config_.internal_state) fetch_internal();
    pieces_.wait_for_system([&] { link_.indicators(t, x_, u, g); });
  }
  indicators_ = std::move(g);
}

// ---- event ports (integrator/event_ports.hpp) ----

bool crosses(CrossingDirection direction, double g_from, double g_to) {
  const bool rising = g_from < 0 && g_to >= 0;
  const bool falling = g_from > 0 && g_to <= 0;
  switch (direction) {
    case CrossingDirection::rising:
      return rising;
    case CrossingDirection::falling:
      return falling;
    case CrossingDirection::either:
      break;
  }
  return rising || falling;
}

void Integrator::check_ports() const {
  const EventPorts& ports = config_.ports;
  if (is_multistep(config_.method))
    throw ModelError(config_.name, "event ports cut steps, which needs a one-step method (not " +
                                       std::string(ode_method_name(config_.method)) + ")");
  if (!(ports.tolerance > 0) || !std::isfinite(ports.tolerance))
    throw ModelError(config_.name, "event ports: the tolerance must be finite and > 0");
  for (std::size_t i = 0; i < ports.outputs.size(); ++i) {
    const EventOutput& o = ports.outputs[i];
    const bool indicator = o.of == CrossingOf::indicator;
    if (o.index >= (indicator ? config_.indicator_count : ports.model_outputs) ||
        o.carries >= ports.model_outputs || !std::isfinite(o.level) || (indicator && o.level != 0))
      throw ModelError(config_.name, "event output " + std::to_string(i) + ": no such " +
                                         (indicator ? "event indicator" : "output") +
                                         ", or a level that is not " +
                                         (indicator ? "0" : "finite"));
  }
  for (std::size_t i = 0; i < ports.inputs.size(); ++i) {
    const EventInput& in = ports.inputs[i];
    const std::size_t count = in.effect == EventEffect::set_input
                                  ? ports.held0.size()
                                  : static_cast<std::size_t>(config_.x0.size());
    if (in.index >= count)
      throw ModelError(config_.name, "event input " + std::to_string(i) + ": index " +
                                         std::to_string(in.index) + " is out of range");
    if (in.effect != EventEffect::set_input && config_.method == OdeMethod::co_simulation)
      throw ModelError(config_.name, "event input " + std::to_string(i) +
                                         ": a model that steps itself shows its outputs, not "
                                         "states an event could set");
  }
  for (const double v : ports.held0)
    if (!std::isfinite(v))
      throw ModelError(config_.name, "event ports: a held input is not finite");
}

void Integrator::schedule(const std::vector<ArrivingEvent>& events) {
  Request request(*this, ActivityKind::busy, {ActivityCall::schedule, step_ + 1, epoch_});
  require(arriving_.size() + events.size() <= limits::max_arriving_events,
          std::to_string(events.size()) + " events for the event inputs: with the " +
              std::to_string(arriving_.size()) + " waiting already, more than the limit (" +
              std::to_string(limits::max_arriving_events) + ")");
  for (const ArrivingEvent& event : events) {
    const std::string what = "event for event input " + std::to_string(event.input) +
                             " at t = " + std::to_string(event.key.time);
    require(event.input < config_.ports.inputs.size(), what + ": no such event input");
    require(std::isfinite(event.key.time) && std::isfinite(event.value), what + ": not finite");
    // An event at a step's start time belongs to that step: the next one, at the earliest.
    require(event.key.time >= time_of_step(step_),
            what + " arrived at step " + std::to_string(step_) + " (roll back first)");
  }
  // In key order with those waiting; kept only if no key came twice (a call is taken whole
  // or not at all).
  const auto by_key = [](const ArrivingEvent& a, const ArrivingEvent& b) { return a.key < b.key; };
  std::vector<ArrivingEvent> sorted = events, merged;
  std::sort(sorted.begin(), sorted.end(), by_key);
  merged.reserve(arriving_.size() + sorted.size());
  std::merge(arriving_.begin(), arriving_.end(), sorted.begin(), sorted.end(),
             std::back_inserter(merged), by_key);
  const auto twice = std::adjacent_find(
      merged.begin(), merged.end(), [](const auto& a, const auto& b) { return a.key == b.key; });
  if (twice != merged.end())
    throw ProtocolError(config_.name, "event for event input " + std::to_string(twice->input) +
                                          " at t = " + std::to_string(twice->key.time) +
                                          ": arrived twice");
  arriving_ = std::move(merged);
}

void Integrator::apply_arrival(const ArrivingEvent& event) {
  const EventInput& in = config_.ports.inputs[event.input];
  switch (in.effect) {
    case EventEffect::set_input:
      held_inputs_[idx(in.index)] = event.value;
      break;
    case EventEffect::set_state:
      x_[idx(in.index)] = event.value;
      break;
    case EventEffect::add_state:
      x_[idx(in.index)] += event.value;
      break;
  }
  if (!x_.allFinite())
    throw ModelError(config_.name, "an event at t = " + std::to_string(event.key.time) +
                                       " made the state non-finite");
  ++stats_.events;
}

void Integrator::step_from(double t, double h, Vector& x) {
  LinkRhs rhs(*this);
  // A model that steps itself changes its internal state with the step: from here on,
  // internal_ is not what the model holds.
  if (config_.method == OdeMethod::co_simulation) internal_.reset();
  try {
    stepper_.step(rhs, t, h, x);
  } catch (const SimulationError& e) {
    throw ModelError(config_.name, std::string(e.what()) + " (at t = " + std::to_string(t) + ")");
  }
}

Vector Integrator::port_values(double t, const Vector& x) {
  const EventPorts& ports = config_.ports;
  const auto watches = [&](CrossingOf of) {
    return std::any_of(ports.outputs.begin(), ports.outputs.end(),
                       [of](const EventOutput& o) { return o.of == of; });
  };
  Vector y(idx(ports.model_outputs)), z(idx(config_.indicator_count));
  if (watches(CrossingOf::output)) pieces_.wait_for_system([&] { link_.output(t, x, y); });
  if (watches(CrossingOf::indicator)) {
    const Vector u = inputs_at(t);  // the held inputs are those of the piece
    pieces_.wait_for_system([&] { link_.indicators(t, x, u, z); });
  }
  Vector g(idx(ports.outputs.size()));
  for (std::size_t i = 0; i < ports.outputs.size(); ++i) {
    const EventOutput& o = ports.outputs[i];
    g[idx(i)] = (o.of == CrossingOf::output ? y[idx(o.index)] : z[idx(o.index)]) - o.level;
  }
  if (!g.allFinite())
    throw ModelError(config_.name, "an event output is not finite at t = " + std::to_string(t));
  return g;
}

// The step in pieces between the times of the events that arrive for it: those at its start
// time first, those inside it each where it comes (an event at its end time belongs to the
// next step). Each piece is one step of the method from the piece's start.
void Integrator::compute_with_ports(std::uint64_t n) {
  std::erase_if(crossings_, [&](const LocatedCrossing& c) { return c.step == n + 1; });
  const double ta = time_of_step(n), tb = time_of_step(n + 1);
  const auto from = [](double t) {
    return [t](const ArrivingEvent& e) { return e.key.time >= t; };
  };
  auto next = std::find_if(arriving_.begin(), arriving_.end(), from(ta));
  const auto last = std::find_if(next, arriving_.end(), from(tb));
  double p = ta;
  for (;;) {
    for (; next != last && next->key.time == p; ++next) apply_arrival(*next);
    Vector g = port_values(p, x_);
    const double cut = next != last ? next->key.time : tb;
    advance_piece(n, p, cut, g);
    if (cut == tb) return;
    p = cut;
  }
}

// A crossing between p and q is located on the step's dyadic grid (the points ta + h·k/2^D,
// spaced at most the tolerance apart): the first grid point after p (or q itself) where an
// event output has crossed, each candidate one step of the method from p. The grid does not
// depend on where the pieces start, so a step taken again with a cut at a crossing it found
// finds that crossing at the same time, with the same bits. A model that steps itself keeps
// its state inside (a co-simulation FMU): each candidate starts from the piece's start
// restored, and the model is left at the time the piece reached.
void Integrator::advance_piece(std::uint64_t n, double p, double q, Vector& g) {
  const EventPorts& ports = config_.ports;
  const double ta = time_of_step(n), h = config_.h();
  const int depth = std::clamp(static_cast<int>(std::ceil(std::log2(h / ports.tolerance))), 1, 52);
  const double scale = std::ldexp(1.0, depth);
  const auto grid = [&](std::int64_t k) { return ta + h * (static_cast<double>(k) / scale); };
  const auto crossed = [&](const Vector& from, const Vector& to) {
    for (std::size_t i = 0; i < ports.outputs.size(); ++i)
      if (crosses(ports.outputs[i].direction, from[idx(i)], to[idx(i)])) return true;
    return false;
  };
  const bool inside = config_.method == OdeMethod::co_simulation && config_.internal_state;
  std::size_t found = 0;
  while (q > p) {
    const Vector from = x_;
    if (inside && !internal_) fetch_internal();
    const std::shared_ptr<const Bytes> at_p = internal_;
    const auto step_to = [&](double t, Vector& x) {
      if (inside) restore_internal(at_p);
      step_from(p, t - p, x);
    };
    Vector x_hi = from;
    step_to(q, x_hi);
    Vector g_hi = port_values(q, x_hi);
    if (!crossed(g, g_hi)) {
      x_ = std::move(x_hi);
      g = std::move(g_hi);
      return;
    }
    const auto locating = ActivityClock::Clock::now();  // the trace's "crossing" span
    double lo = p, hi = q;
    for (;;) {
      auto k_lo = static_cast<std::int64_t>(std::floor((lo - ta) / h * scale)) + 1;
      while (grid(k_lo) <= lo) ++k_lo;
      while (k_lo > 0 && grid(k_lo - 1) > lo) --k_lo;
      auto k_hi = static_cast<std::int64_t>(std::ceil((hi - ta) / h * scale)) - 1;
      while (k_hi > 0 && grid(k_hi) >= hi) --k_hi;
      while (grid(k_hi + 1) < hi) ++k_hi;
      if (k_lo > k_hi) break;
      const double t = grid(k_lo + (k_hi - k_lo) / 2);
      Vector x_t = from;
      step_to(t, x_t);
      Vector g_t = port_values(t, x_t);
      if (crossed(g, g_t)) {
        hi = t;
        x_hi = std::move(x_t);
        g_hi = std::move(g_t);
      } else {
        lo = t;
      }
    }
    if (inside) {  // the model stands where the last candidate left it: at hi again
      x_hi = from;
      step_to(hi, x_hi);
    }
    Vector y(idx(ports.model_outputs));
    pieces_.wait_for_system([&] { link_.output(hi, x_hi, y); });
    for (std::size_t i = 0; i < ports.outputs.size(); ++i)
      if (crosses(ports.outputs[i].direction, g[idx(i)], g_hi[idx(i)]))
        crossings_.push_back(
            {n + 1, hi, static_cast<std::uint32_t>(i), y[idx(ports.outputs[i].carries)]});
    clock_.add(ActivityKind::call, locating, ActivityClock::Clock::now(),
               {ActivityCall::crossing, n + 1, epoch_});
    if (++found > EventPorts::max_crossings_per_step)
      throw ModelError(config_.name, "more than " +
                                         std::to_string(EventPorts::max_crossings_per_step) +
                                         " crossings in step " + std::to_string(n + 1) +
                                         " (an event output that chatters)");
    x_ = std::move(x_hi);
    g = std::move(g_hi);
    p = hi;
  }
}

// Saves the state list's entry, takes the step (and, with the rollback check, takes it again
// from the entry), handles the zero crossings at its end; the entry records what it cost.
void Integrator::step_once() {
  if (!can_step()) throw ProtocolError(config_.name, "step requested while it may not step");
  const std::uint64_t n = step_;
  const auto start = ActivityClock::Clock::now();
  const auto wait_before = pieces_.link_wait;
  const std::uint64_t calls_before = stepper_.derivative_calls();
  pieces_.tag_step(n + 1);
  inputs_.bind(n);
  if (config_.indicator_count > 0 && indicators_.size() == 0) {
    indicators_.resize(idx(config_.indicator_count));
    const Vector u = inputs_at(time_of_step(n));
    pieces_.wait_for_system([&] { link_.indicators(time_of_step(n), x_, u, indicators_); });
  }
  take_what_an_entry_keeps();
  list_.save({n, x_, stepper_.memory(), indicators_, internal_, outputs_, {}, 0, held_inputs_});
  try {
    compute_step(n);
    if (config_.rollback_check)
      check_restep_reproduces(config_.name, list_.back(), stepper_, x_, [&] {
        restore_internal(list_.back().internal);
        held_inputs_ = list_.back().held;
        compute_step(n);
      });
    if (config_.completes_steps) complete_step(time_of_step(n + 1));
    if (config_.internal_state && !internal_) fetch_internal();
    step_ = n + 1;
    if (config_.indicator_count > 0) handle_crossings(time_of_step(step_));
    if (config_.outputs_at_step) take_outputs();
  } catch (...) {
    undo_step();
    throw;
  }
  ++stats_.steps_computed;
  pieces_.tag_step(ActivityTrace::untagged);
  StateList::Entry& from = list_.back();
  from.work = ActivityClock::Clock::now() - start - (pieces_.link_wait - wait_before);
  from.derivative_calls = stepper_.derivative_calls() - calls_before;
}

// A step that failed half-way (a System that died between its calls) leaves the Integrator
// as it was before it, so that what is published afterwards is consistent: never the new
// state with the old outputs or internal state.
void Integrator::undo_step() {
  StateList::Entry& before = list_.back();
  step_ = before.step;
  x_ = before.x;
  stepper_.restore(before.memory);
  indicators_ = before.indicators;
  outputs_ = before.outputs;
  held_inputs_ = before.held;
  std::erase_if(crossings_, [&](const LocatedCrossing& c) { return c.step > before.step; });
  try {
    if (config_.internal_state) restore_internal(before.internal);
  } catch (...) {
    internal_.reset();  // unknown: fetched again before the next step
  }
  list_.drop_back();
}

SpanTag Integrator::stepping_tag() const {
  return {on_its_own_ ? ActivityCall::run_ahead : ActivityCall::advance, step_ + 1, epoch_};
}

template <typename More>
std::uint64_t Integrator::take_steps(std::uint64_t until, More&& more) {
  std::uint64_t taken = 0;
  while (step_ < until && can_step() && more()) {
    step_once();
    ++taken;
  }
  return taken;
}

std::uint64_t Integrator::step_while(std::uint64_t until, const std::function<bool()>& more) {
  Request request(*this, ActivityKind::busy, stepping_tag());
  return take_steps(until, more);
}

StateBatch Integrator::advance(std::uint64_t guarantee, std::uint64_t gvt, Deadline deadline) {
  Request request(*this, ActivityKind::busy, stepping_tag());
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
  // (Messages built only when needed: this is every step of a conservative run.)
  if (gvt > step_)
    throw ProtocolError(config_.name, "gvt " + std::to_string(gvt) +
                                          " lies after the current step " + std::to_string(step_));
  const std::uint64_t budget = held_steps_within_budget(config_);
  if (guarantee > gvt && guarantee - gvt > budget)
    throw ProtocolError(config_.name, "guarantee " + std::to_string(guarantee) +
                                          " lies more than " + std::to_string(budget) +
                                          " steps past gvt " + std::to_string(gvt) +
                                          " (the state list's budget for this state size; "
                                          "commit first)");
  committed_ = gvt;
  held_ = false;
  forget_before(gvt);
  const std::uint64_t most = batch_steps_within_budget(config_);
  std::uint64_t granted = 0;  // at least one step, then until the budget or the deadline
  try {
    take_steps(guarantee, [&] {
      if (granted == most || (granted > 0 && deadline != Deadline::max() &&
                              std::chrono::steady_clock::now() >= deadline))
        return false;
      ++granted;
      return true;
    });
  } catch (...) {
    // The steps taken before the failure are final like any others: they are returned, so
    // that the caller records them (nothing committed is lost), and the failure answers the
    // next call, which the caller makes for the step that failed.
    const std::exception_ptr failure = std::current_exception();
    StateBatch done;
    try {
      done = collect_final();
    } catch (...) {
    }
    if (done.count() == 0) std::rethrow_exception(failure);
    failure_ = failure;
    return done;
  }
  return collect_final();
}

void Integrator::run_on_its_own(std::uint64_t window) {
  on_its_own_ = true;
  window_ = window;
  if (config_.coupling_sends_events) clock_.trace().set_speculative();
}

void Integrator::release(std::uint64_t state) {
  released_ = paced_ ? std::max(released_, state) : state;
  paced_ = true;
}

// ---- what arrives from outside ----

void Integrator::provide(const ChannelSample& sample) {
  Request request(*this, ActivityKind::busy, {ActivityCall::provide, sample.index, epoch_});
  const std::optional<std::uint64_t> refuted = inputs_.provide(sample);
  if (refuted && *refuted < step_) {
    require(list_.last_at(*refuted) != nullptr,
            "step " + std::to_string(*refuted) + " is not in the state list");
    rewind(*refuted);
  }
}

void Integrator::provide_prediction(const ChannelPrediction& prediction) {
  Request request(*this, ActivityKind::busy,
                  {ActivityCall::provide, prediction.from_tick / config_.ticks_per_step, epoch_});
  // The master repeats a macro step only after rolling back to its start.
  require(prediction.from_tick >= step_ * config_.ticks_per_step,
          "a prediction from tick " + std::to_string(prediction.from_tick) +
              " arrived after step " + std::to_string(step_) +
              " was taken with the one before (roll back first)");
  inputs_.provide_prediction(prediction);
}

std::vector<double> Integrator::apply_event(const Event& event) {
  Request request(*this, ActivityKind::busy, {ActivityCall::apply_event, event.step, epoch_});
  require(event.step == step_, "event for step " + std::to_string(event.step) +
                                   " arrived at step " + std::to_string(step_));
  // Rollback restores the first state saved at a step (as stepping produced it); a second
  // event at the same step needs no second copy.
  take_what_an_entry_keeps();
  if (list_.first_at(step_) == nullptr)
    list_.save(
        {step_, x_, stepper_.memory(), indicators_, internal_, outputs_, {}, 0, held_inputs_});
  internal_.reset();  // the event changes the model's internal state
  pieces_.wait_for_system([&] {
    link_.handle_event(event, {x_.data(), static_cast<std::size_t>(x_.size())});
  });
  if (config_.internal_state) fetch_internal();
  if (config_.outputs_at_step) take_outputs();
  if (!x_.allFinite())
    throw ModelError(config_.name, "event '" + event.kind + "' made the state non-finite");
  stepper_.restart();  // the state jumped: a multistep method starts afresh
  ++stats_.events;
  return {x_.data(), x_.data() + x_.size()};
}

void Integrator::change(const ModelChange& change) {
  Request request(*this, ActivityKind::busy, {ActivityCall::apply_event, step_, epoch_});
  ModelChange settled = change;
  settled.settled = time_of_step(settled_before_);  // the System may forget older changes
  pieces_.wait_for_system([&] { link_.change(settled); });
}

// The state, stepper memory and indicators saved first at step n; the time spent on the
// discarded steps becomes rollback time.
void Integrator::rewind(std::uint64_t n) {
  StateList::Rewound r = list_.rewind_to(n);
  x_ = std::move(r.entry.x);
  stepper_.restore(r.entry.memory);
  indicators_ = std::move(r.entry.indicators);
  restore_internal(r.entry.internal);
  outputs_ = std::move(r.entry.outputs);
  held_inputs_ = std::move(r.entry.held);
  std::erase_if(crossings_, [&](const LocatedCrossing& c) { return c.step > n; });
  stats_.wasted_derivative_calls += r.derivative_calls;
  clock_.reclassify_as_rollback(r.work);
  clock_.mark_rolled_back_after(n);
  ++stats_.rollbacks;
  stats_.rolled_back_steps += step_ - n;
  step_ = n;
}

RollbackResult Integrator::rollback(std::uint64_t step) {
  Request request(*this, ActivityKind::rollback, {ActivityCall::rollback, step, epoch_});
  require(step <= step_, "rollback to step " + std::to_string(step) + " after the current step " +
                             std::to_string(step_));
  RollbackResult result{0, step_ - step, 0};
  // The first entry saved at `step` is the state as stepping produced it, before any event.
  if (list_.first_at(step) != nullptr) {
    const std::uint64_t wasted_before = stats_.wasted_derivative_calls;
    rewind(step);
    result.wasted_derivative_calls = stats_.wasted_derivative_calls - wasted_before;
  } else {
    require(step == step_,
            "rollback to step " + std::to_string(step) + ", which is no longer in the state list");
    clock_.mark_rolled_back_after(step);
  }
  inputs_.forget_predictions_from(step);
  published_ = std::min(published_, step + 1);
  held_ = on_its_own_;
  result.epoch = ++epoch_;
  return result;
}

void Integrator::commit(std::uint64_t gvt) {
  CallScope call(clock_, {ActivityCall::commit, gvt, epoch_});
  committed_ = gvt;
  held_ = false;
  forget_before(std::min(gvt, step_));
}

// Nothing before step n can be rolled back to or published again; samples older than the
// stencil of that step are no longer needed.
void Integrator::forget_before(std::uint64_t n) {
  settled_before_ = std::max(settled_before_, n);
  clock_.trace().settle(n);
  list_.fossil_collect(n);
  inputs_.forget_before(n);
  // What arrived for settled steps, and the crossings they found once published, are history.
  const double settled = time_of_step(settled_before_);
  std::erase_if(arriving_, [&](const ArrivingEvent& e) { return e.key.time < settled; });
  std::erase_if(crossings_, [&](const LocatedCrossing& c) {
    return c.step <= settled_before_ && c.step < published_;
  });
}

// ---- publishing ----

std::uint64_t Integrator::final_step() const {
  return std::min(step_, inputs_.first_unconfirmed_use());
}

std::uint64_t Integrator::committed_step() const {
  return config_.coupling_sends_events ? committed_ : final_step();
}

bool Integrator::has_final_sample_point() const {
  if (config_.publish_every == 0 || !has_final()) return false;
  const std::uint64_t next =
      (published_ + config_.publish_every - 1) / config_.publish_every * config_.publish_every;
  return next <= final_step();
}

StateBatch Integrator::take_final() {
  // (A request of the trace only when it calls the System for outputs.)
  if (config_.output_size == 0 || !has_final()) return collect_final();
  Request request(*this, ActivityKind::busy, {ActivityCall::outputs, published_, epoch_});
  return collect_final();
}

StateBatch Integrator::collect_final() {
  const auto n = static_cast<std::size_t>(x_.size());
  StateBatch batch{epoch_, published_, n, config_.output_size, {}, {}, {}, {}, {}, {}};
  const std::uint64_t f = std::min(final_step(), config_.last_step);
  if (published_ > f) return batch;
  const std::uint64_t count = f - published_ + 1;
  batch.states.reserve(count * n);
  batch.outputs.reserve(count * config_.output_size);
  Vector y(idx(config_.output_size));
  for (std::uint64_t m = published_; m <= f; ++m) {
    const StateList::Entry* saved = m == step_ ? nullptr : list_.last_at(m);
    require(m == step_ || saved != nullptr,
            "step " + std::to_string(m) + " is not in the state list");
    const Vector& x = saved ? saved->x : x_;
    batch.states.insert(batch.states.end(), x.data(), x.data() + x.size());
    if (config_.output_size == 0) continue;
    if (config_.outputs_at_step) {
      if (m == step_ && outputs_.size() == 0) take_outputs();
      const Vector& kept = saved ? saved->outputs : outputs_;
      batch.outputs.insert(batch.outputs.end(), kept.data(), kept.data() + kept.size());
      continue;
    }
    pieces_.wait_for_system([&] { link_.output(time_of_step(m), x, y); });
    batch.outputs.insert(batch.outputs.end(), y.data(), y.data() + y.size());
  }
  for (const LocatedCrossing& c : crossings_)
    if (c.step >= batch.first_step && c.step <= f) batch.crossings.push_back(c);
  const StateList::Entry* last = f == step_ ? nullptr : list_.last_at(f);
  batch.memory = last ? last->memory : stepper_.memory();
  const Vector& indicators = last ? last->indicators : indicators_;
  batch.indicators.assign(indicators.data(), indicators.data() + indicators.size());
  const std::shared_ptr<const Bytes>& internal = last ? last->internal : internal_;
  if (internal) batch.internal = *internal;
  published_ = f + 1;
  if (!config_.coupling_sends_events) forget_before(f);
  return batch;
}

}  // namespace kausal
