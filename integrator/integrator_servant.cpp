#include "integrator/integrator_servant.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <thread>

#include "common/request_limits.hpp"
#include "idl/convert.hpp"
#include "idl/wire_errors.hpp"
#include "integrator/routing_sink.hpp"

namespace kausal {
namespace {

// The monitor's inbox, reached over CORBA. A delivery that fails throws (the worker stops).
// KAUSAL_TEST_DELIVERY_DELAY_MS holds every batch that long before sending it: a test hook
// that lets rollbacks overtake batches on their way.
class CorbaBatchSink final : public BatchSink {
 public:
  CorbaBatchSink(idl::StateSink_ptr sink, std::string component)
      : sink_(idl::StateSink::_duplicate(sink)), component_(std::move(component)) {
    if (const char* ms = std::getenv("KAUSAL_TEST_DELIVERY_DELAY_MS"))
      delay_ = std::chrono::milliseconds(std::strtol(ms, nullptr, 10));
  }
  void deliver(const StateBatch& batch) override {
    if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
    const idl::StateBatch b = to_idl(batch);
    call_peer("monitor", [&] { sink_->deliver(component_.c_str(), b); });
  }
  void fail(std::exception_ptr error, std::uint32_t epoch, std::uint64_t step) override {
    const ReportedFailure r = describe_failure(component_, error);
    call_peer("monitor", [&] {
      sink_->fail(component_.c_str(), epoch, step, r.kind.c_str(), r.component.c_str(),
                  r.reason.c_str());
    });
  }

 private:
  idl::StateSink_var sink_;
  std::string component_;
  std::chrono::milliseconds delay_{0};
};

// The System of this Integrator in another process (or collocated): the model API, one
// round trip per call. Every reply is checked against the size the caller expects, so a
// confused or foreign System cannot write past a buffer.
class CorbaModelLink final : public ModelLink {
 public:
  CorbaModelLink(idl::System_ptr system, std::string name)
      : system_(idl::System::_duplicate(system)), name_(std::move(name)) {}

  void derivative(double t, VectorView x, VectorView u, VectorOut dx) override {
    const idl::DoubleSeq sx = seq_of(x), su = seq_of(u);
    copy_reply("derivative", call_peer(name_, [&] { return system_->derivative(t, sx, su); }), dx);
  }
  void output(double t, VectorView x, VectorOut y) override {
    const idl::DoubleSeq sx = seq_of(x);
    copy_reply("output", call_peer(name_, [&] { return system_->output(t, sx); }), y);
  }
  void jacobian(double t, VectorView x, VectorView u, MatrixOut J) override {
    const idl::DoubleSeq sx = seq_of(x), su = seq_of(u);
    Vector rows(J.rows() * J.cols());
    copy_reply("jacobian", call_peer(name_, [&] { return system_->jacobian(t, sx, su); }), rows);
    for (Eigen::Index r = 0; r < J.rows(); ++r)
      J.row(r) = rows.segment(r * J.cols(), J.cols()).transpose();
  }
  void indicators(double t, VectorView x, VectorView u, VectorOut g) override {
    const idl::DoubleSeq sx = seq_of(x), su = seq_of(u);
    copy_reply("indicators", call_peer(name_, [&] { return system_->indicators(t, sx, su); }), g);
  }
  void on_crossing(std::size_t indicator, double t, VectorOut x) override {
    const idl::DoubleSeq sx = seq_of(x);
    const auto i = static_cast<CORBA::ULong>(indicator);
    copy_reply("on_crossing", call_peer(name_, [&] { return system_->on_crossing(i, t, sx); }), x);
  }
  void completed_step(double t, VectorOut x) override {
    const idl::DoubleSeq sx = seq_of(x);
    copy_reply("completed_step", call_peer(name_, [&] { return system_->completed_step(t, sx); }),
               x);
  }
  void handle_event(const Event& event, std::span<double> x) override {
    const idl::DoubleSeq sx = to_seq(x);
    const idl::Event e = to_idl(event);
    Eigen::Map<Vector> out(x.data(), static_cast<Eigen::Index>(x.size()));
    copy_reply("handle_event", call_peer(name_, [&] { return system_->handle_event(e, sx); }), out);
  }
  void change(const ModelChange& change) override {
    const idl::ModelChange c = to_idl(change);
    call_peer(name_, [&] { system_->change(c); });
  }
  void step(double t, double h, VectorView u, MatrixView du, VectorOut x) override {
    const idl::DoubleSeq sx = seq_of(x), su = seq_of(u), sdu = orders_of(du);
    copy_reply("step", call_peer(name_, [&] { return system_->step(t, h, sx, su, sdu); }), x);
  }
  Bytes save_internal() override {
    idl::OctetSeq_var bytes = call_peer(name_, [&] { return system_->save_internal(); });
    return to_bytes(bytes.in());
  }
  void restore_internal(std::span<const std::uint8_t> bytes) override {
    const idl::OctetSeq seq = to_octets(bytes);
    call_peer(name_, [&] { system_->restore_internal(seq); });
  }

 private:
  static idl::DoubleSeq seq_of(VectorView v) {
    return to_seq(std::span<const double>(v.data(), static_cast<std::size_t>(v.size())));
  }
  // Column by column (System::step's du: order by order).
  static idl::DoubleSeq orders_of(MatrixView m) {
    idl::DoubleSeq seq(static_cast<CORBA::ULong>(m.size()));
    seq.length(static_cast<CORBA::ULong>(m.size()));
    CORBA::ULong k = 0;
    for (Eigen::Index c = 0; c < m.cols(); ++c)
      for (Eigen::Index r = 0; r < m.rows(); ++r) seq[k++] = m(r, c);
    return seq;
  }
  void copy_reply(const char* call, idl::DoubleSeq* reply, VectorOut out) const {
    idl::DoubleSeq_var owned(reply);
    if (owned->length() != static_cast<std::size_t>(out.size())) {
      std::string reason = call;
      reason += " returned " + std::to_string(owned->length()) + " values, expected " +
                std::to_string(out.size());
      throw ProtocolError(name_, reason);
    }
    for (CORBA::ULong k = 0; k < owned->length(); ++k) out[k] = owned[k];
  }

  idl::System_var system_;
  std::string name_;
};

void check_finite(const std::string& component, const char* field, double v) {
  if (std::isfinite(v)) return;
  std::string reason = field;
  reason += " is not finite";
  throw ModelError(component, reason);
}

OdeMethod checked_method(const std::string& component, const char* name) {
  try {
    return parse_ode_method(name, "method: ");
  } catch (const InputError& e) {
    throw ModelError(component, e.what());
  }
}

// A size or count from the wire against what the System's model has: the setup must
// describe the model it is stepping, or the first call would fail deep inside (or allocate
// whatever the caller asked for).
void check_size(const std::string& component, const std::string& field, std::uint64_t got,
                std::uint64_t model_has) {
  if (got == model_has) return;
  throw ProtocolError(component, field + " is " + std::to_string(got) +
                                     ", the System's model has " + std::to_string(model_has));
}

// The System's model sizes, each within the limits (a foreign System could claim anything).
idl::ModelShape checked_shape(const std::string& component, idl::System_ptr system,
                              const std::string& system_name) {
  const idl::ModelShape shape = call_peer(system_name, [&] { return system->shape(); });
  limits::require_model_within(component, system_name + "'s model", shape.state_size,
                               shape.input_size, shape.output_size, shape.indicator_count);
  return shape;
}

// A hybrid model's event ports from the wire: the enumerations in range, the counts within
// the model's (the Integrator checks indices, levels and the tolerance).
EventPorts checked_ports(const std::string& component, const idl::EventPortsSetup& s,
                         const idl::ModelShape& shape) {
  EventPorts p;
  limits::within(component, "ports.outputs: the count", s.outputs.length(), limits::max_model_size,
                 "the most event outputs of one partition");
  limits::within(component, "ports.inputs: the count", s.inputs.length(), limits::max_model_size,
                 "the most event inputs of one partition");
  for (CORBA::ULong k = 0; k < s.outputs.length(); ++k) {
    const idl::EventOutputSetup& o = s.outputs[k];
    if (o.direction > 2)
      throw ModelError(component, "ports.outputs[" + std::to_string(k) + "].direction " +
                                      std::to_string(o.direction) + " (0, 1 or 2)");
    if (o.of > 1)
      throw ModelError(component, "ports.outputs[" + std::to_string(k) + "].of " +
                                      std::to_string(o.of) + " (0 or 1)");
    p.outputs.push_back({o.index, o.level, static_cast<CrossingDirection>(o.direction), o.carries,
                         static_cast<CrossingOf>(o.of)});
  }
  for (CORBA::ULong k = 0; k < s.inputs.length(); ++k) {
    const idl::EventInputSetup& in = s.inputs[k];
    if (in.effect > 2)
      throw ModelError(component, "ports.inputs[" + std::to_string(k) + "].effect " +
                                      std::to_string(in.effect) + " (0, 1 or 2)");
    p.inputs.push_back({static_cast<EventEffect>(in.effect), in.index});
  }
  p.held0 = to_vector(s.held0);
  if (p.any() || !p.held0.empty())
    check_size(component, "ports.model_outputs", s.model_outputs, shape.output_size);
  p.model_outputs = s.model_outputs;
  p.tolerance = s.tolerance;
  return p;
}

// An IntegratorSetup from the wire as an IntegratorConfig, every field checked that the
// Integrator does not check itself (sizes against the System's model); errors name the
// field.
IntegratorConfig checked_config(const std::string& component, const idl::IntegratorSetup& s,
                                const idl::ModelShape& shape) {
  IntegratorConfig c;
  if (component != s.name.in()) {
    std::string reason = "name: '";
    reason += std::string(s.name.in()) + "' is not this component's name";
    throw ModelError(component, reason);
  }
  c.name = component;
  c.method = checked_method(component, s.method.in());
  // (Clamped before the cast: a count from the wire may not fit an int.)
  c.newton = {static_cast<int>(std::min<CORBA::ULong>(s.newton.max_iterations,
                                                      NewtonSettings::most_iterations + 1)),
              s.newton.tolerance, s.newton.accept_at_limit != 0};
  if (const std::string why = c.newton.problem(); !why.empty())
    throw ProtocolError(component, "newton: " + why);
  check_finite(component, "t0", s.t0);
  check_finite(component, "tick", s.tick);
  c.t0 = s.t0;
  c.tick = s.tick;
  c.ticks_per_step = s.ticks_per_step;
  c.first_step = s.first_step;
  c.last_step = s.last_step;
  if (s.first_step > s.last_step) throw ModelError(component, "first_step: after last_step");
  if (s.ticks_per_step > 0 &&
      s.last_step > std::numeric_limits<std::uint64_t>::max() / s.ticks_per_step)
    throw ModelError(component, "last_step: too many ticks to count");
  check_size(component, "x0: the state size", s.x0.length(), shape.state_size);
  if (s.output_size != 0) check_size(component, "output_size", s.output_size, shape.output_size);
  check_size(component, "indicator_count", s.indicator_count, shape.indicator_count);
  check_size(component, "channels and held inputs: the input count",
             std::uint64_t{s.channels.length()} + s.ports.held0.length(), shape.input_size);
  c.x0 = to_eigen(s.x0);
  limits::within(component, "blocks: the count", s.blocks.length(), s.x0.length(),
                 "at most one block per state");
  for (CORBA::ULong k = 0; k < s.blocks.length(); ++k) {
    const auto& b = s.blocks[k];
    if (b.size == 0 || std::size_t{b.offset} + b.size > s.x0.length()) {
      std::string reason = "blocks[";
      reason += std::to_string(k) + "]: offset " + std::to_string(b.offset) + " size " +
                std::to_string(b.size) + " is not inside a state of " +
                std::to_string(s.x0.length());
      throw ModelError(component, reason);
    }
    c.blocks.push_back({b.name.in(), b.offset, b.size});
  }
  c.output_size = s.output_size;
  c.indicator_count = s.indicator_count;
  c.completes_steps = s.completes_steps != 0;
  for (CORBA::ULong k = 0; k < s.channels.length(); ++k) {
    const idl::InputChannelSetup& in = s.channels[k];
    if (in.source > 1 || in.calibration > 1)
      throw ModelError(component, std::string("channels[") + std::to_string(k) + "] (" +
                                      in.name.in() + "): source " + std::to_string(in.source) +
                                      ", calibration " + std::to_string(in.calibration) +
                                      " (each 0 or 1)");
    c.channels.push_back({in.name.in(),
                          in.hold,
                          in.period_ticks,
                          static_cast<InputSource>(in.source),
                          {in.choose_order != 0, static_cast<Calibration>(in.calibration),
                           in.order_threshold, in.smooth != 0},
                          in.exact != 0});
  }
  c.speculate = s.speculate != 0;
  c.tolerance = s.tolerance;
  c.publish_every = s.publish_every;
  // Whole derivatives, no more than the method keeps (restore() checks the count against
  // the steps; this keeps the cut below well defined).
  const std::uint64_t keeps = history_length(c.method) * std::uint64_t{s.x0.length()};
  if (s.memory0.past.length() > keeps ||
      (s.x0.length() > 0 && s.memory0.past.length() % s.x0.length() != 0))
    throw ProtocolError(component, "memory0.past: " + std::to_string(s.memory0.past.length()) +
                                       " values, not whole derivatives of the state that " +
                                       std::string(ode_method_name(c.method)) + " keeps (at most " +
                                       std::to_string(keeps) + ")");
  c.memory0 = from_idl(s.memory0, s.x0.length());
  c.indicators0 = to_eigen(s.indicators0);
  c.internal_state = s.internal_state != 0;
  limits::within(component, "internal0: bytes", s.internal0.length(), limits::max_internal_bytes,
                 "the largest internal state a System keeps");
  c.internal0 = to_bytes(s.internal0);
  c.internal_bytes =
      limits::within(component, "internal_bytes", s.internal_bytes, limits::max_internal_bytes,
                     "the largest internal state a System keeps");
  c.outputs_at_step = s.outputs_at_step != 0;
  limits::within(component, "input_history: the channels", s.input_history.length(),
                 s.channels.length(), "at most one history per channel");
  std::uint64_t samples = 0;
  for (CORBA::ULong k = 0; k < s.input_history.length(); ++k) {
    samples += s.input_history[k].values.length();
    c.input_history.push_back({s.input_history[k].first, to_vector(s.input_history[k].values)});
  }
  limits::within(component, "input_history: the samples", samples, limits::held_bytes / 8,
                 "the memory budget of one Integrator");
  c.publish_first_state = s.publish_first_state != 0;
  c.coupling_sends_events = s.coupling_sends_events != 0;
  c.rollback_check = s.rollback_check != 0;
  c.ports = checked_ports(component, s.ports, shape);
  // The Integrator checks steps, x0, hold orders, periods, tolerance and the resumed start.
  return c;
}

// The consumers of a setup (the direct data path), every field checked: a route must name
// an output the model has, shipped with each step, and a sampling period of at least one
// step. The channel is the consumer's to check when the samples arrive.
IntegratorServant::Consumers checked_consumers(const std::string& component,
                                               const idl::IntegratorSetup& s,
                                               const idl::ModelShape& shape) {
  IntegratorServant::Consumers out;
  limits::within(component, "consumers: the count", s.consumers.length(), limits::max_model_size,
                 "the most partitions one partition may feed");
  for (CORBA::ULong k = 0; k < s.consumers.length(); ++k) {
    const idl::Consumer& c = s.consumers[k];
    const std::string field = "consumers[" + std::to_string(k) + "] (" + c.name.in() + ")";
    if (CORBA::is_nil(c.ref)) throw ProtocolError(component, field + ": no Integrator given");
    limits::within(component, field + ": the routes", c.routes.length(), limits::max_model_size,
                   "the most channels of one partition");
    for (CORBA::ULong j = 0; j < c.routes.length(); ++j) {
      const idl::OutputRoute& r = c.routes[j];
      const std::string route = field + ".routes[" + std::to_string(j) + "]";
      if (s.output_size == 0 || r.output >= shape.output_size)
        throw ProtocolError(component, route + ": output " + std::to_string(r.output) +
                                           " is not among the " + std::to_string(s.output_size) +
                                           " outputs shipped with each step");
      if (r.producer_steps_per_sample == 0)
        throw ProtocolError(component, route + ": sampled every 0 steps");
      out.routes.push_back({k, r.channel, r.output, r.producer_steps_per_sample});
    }
    out.names.emplace_back(c.name.in());
    out.refs.emplace_back(idl::Integrator::_duplicate(c.ref.in()));
  }
  return out;
}

}  // namespace

IntegratorServant::IntegratorServant(const std::string& name, OrbRuntime& orb)
    : ComponentServant(name, "integrator", orb) {}

IntegratorServant::~IntegratorServant() {
  stop_feed();
}

kausal::Integrator& IntegratorServant::set_up_one() {
  if (!integrator_) throw ProtocolError(name(), "used before set_up()");
  return *integrator_;
}

template <typename F>
auto IntegratorServant::with_integrator(F&& f) -> decltype(f(std::declval<kausal::Integrator&>())) {
  return access_.call([&] { return f(set_up_one()); });
}

ReceiversHere IntegratorServant::receivers_here(idl::StateSink_ptr sink) {
  ReceiversHere here{orb().serves_here(sink), {}};
  for (const Route& r : consumers_.routes)
    if (orb().serves_here(consumers_.refs[r.consumer].in())) here.consumers.insert(r.consumer);
  return here;
}

void IntegratorServant::set_up(const idl::IntegratorSetup& setup) {
  serve(name(), [&] {
    access_.call(
        [&] {
          if (CORBA::is_nil(setup.sys)) throw ModelError(name(), "sys: no System given");
          idl::ComponentInfo_var peer =
              call_peer(name() + "'s System", [&] { return setup.sys->info(); });
          const idl::ModelShape shape = checked_shape(name(), setup.sys.in(), peer->name.in());
          IntegratorConfig config = checked_config(name(), setup, shape);
          consumers_ = checked_consumers(name(), setup, shape);
          auto link = std::make_unique<CorbaModelLink>(setup.sys.in(), peer->name.in());
          stop_feed();  // it reads the trace of the Integrator about to be replaced
          trace_ = &no_trace_;
          integrator_ = std::make_unique<kausal::Integrator>(std::move(config), *link);
          link_ = std::move(link);
          trace_ = &integrator_->trace();
        },
        [&](Worker&) { throw ProtocolError(name(), "set_up() once started"); });
  });
}

idl::StateBatch* IntegratorServant::advance(CORBA::ULongLong guarantee, CORBA::ULongLong gvt) {
  return serve(name(), [&] {
    // The deadline is taken before the lock: time spent waiting for it counts too.
    const auto deadline = std::chrono::steady_clock::now() + limits::work_per_call;
    return access_.call(
        [&] { return new idl::StateBatch(to_idl(set_up_one().advance(guarantee, gvt, deadline))); },
        [&](Worker&) -> idl::StateBatch* {
          throw ProtocolError(name(), "advance() once started");
        });
  });
}

void IntegratorServant::start(idl::StateSink_ptr sink, CORBA::ULong batch_size,
                              CORBA::ULongLong window, CORBA::ULongLong released) {
  serve(name(), [&] {
    if (CORBA::is_nil(sink)) throw ProtocolError(name(), "start() without a sink");
    access_.start(name(), [&](std::mutex& mutex) {
      kausal::Integrator& integrator = set_up_one();
      monitor_sink_ = std::make_unique<CorbaBatchSink>(sink, name());
      sink_ = std::make_unique<RoutingSink>(
          *monitor_sink_, consumers_.routes,
          [this](std::size_t consumer, const std::vector<ChannelSample>& samples) {
            const idl::ChannelSampleSeq seq = to_idl(samples);
            idl::Integrator_ptr to = consumers_.refs[consumer].in();
            call_peer(consumers_.names[consumer], [&] { to->provide(seq); });
          },
          receivers_here(sink));
      if (released != std::numeric_limits<CORBA::ULongLong>::max()) integrator.release(released);
      return std::make_unique<Worker>(integrator, mutex, *sink_, batch_size, window);
    });
  });
}

void IntegratorServant::provide(const idl::ChannelSampleSeq& samples) {
  serve(name(), [&] {
    std::vector<ChannelSample> in = from_idl(samples);
    // Started: queued for the worker at once (the producer must not wait for our step).
    access_.call(
        [&] {
          for (const auto& sample : in) set_up_one().provide(sample);
        },
        [&](Worker& w) { w.provide(std::move(in)); });
  });
}

void IntegratorServant::provide_predictions(const idl::ChannelPredictionSeq& predictions) {
  serve(name(), [&] {
    const std::vector<ChannelPrediction> in = from_idl(predictions);
    with_integrator([&](auto& i) {
      for (const auto& prediction : in) i.provide_prediction(prediction);
    });
  });
}

void IntegratorServant::schedule(const idl::ArrivingEventSeq& events) {
  serve(name(), [&] {
    limits::within(name(), "schedule: the events", events.length(), limits::max_arriving_events,
                   "the most events one partition holds before their time");
    const std::vector<ArrivingEvent> arriving = from_idl(events);
    with_integrator([&](auto& i) { i.schedule(arriving); });
  });
}

idl::DoubleSeq* IntegratorServant::apply_event(const idl::Event& event) {
  return serve(name(), [&] {
    const Event e = from_idl(event);
    return new idl::DoubleSeq(to_seq(with_integrator([&](auto& i) { return i.apply_event(e); })));
  });
}

void IntegratorServant::change(const idl::ModelChange& change) {
  serve(name(), [&] {
    const ModelChange c = from_idl(change);
    with_integrator([&](auto& i) { i.change(c); });
  });
}

idl::RollbackResult IntegratorServant::rollback(CORBA::ULongLong step) {
  return serve(name(), [&] {
    const RollbackResult r = with_integrator([&](auto& i) { return i.rollback(step); });
    return idl::RollbackResult{r.epoch, r.discarded_steps, r.wasted_derivative_calls};
  });
}

void IntegratorServant::release(CORBA::ULongLong state) {
  serve(name(), [&] { with_integrator([&](auto& i) { i.release(state); }); });
}

void IntegratorServant::commit(CORBA::ULongLong gvt) {
  serve(name(), [&] { with_integrator([&](auto& i) { i.commit(gvt); }); });
}

idl::IntegratorStats IntegratorServant::statistics() {
  // Asked before set_up() is legal: nothing done yet.
  return access_.call(
      [&] { return to_idl(integrator_ ? integrator_->stats() : IntegratorStats{}); });
}

ActivityTotals IntegratorServant::totals() {
  // Asked before set_up() is legal: nothing done yet.
  return access_.call([&] { return integrator_ ? integrator_->totals() : ActivityTotals{}; });
}

}  // namespace kausal
