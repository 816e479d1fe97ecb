#pragma once
// Plain C++ values <-> IDL values. Every value from the wire is checked by the plain core
// that receives it (sizes, finiteness); this file only copies.
#include <cmath>
#include <cstring>
#include <span>
#include <vector>

#include "common/activity_clock.hpp"
#include "idl/kausal.hh"
#include "integrator/integrator.hpp"
#include "system/model.hpp"
#include "system/model_change.hpp"

namespace kausal {

inline CORBA::ULong wire_size(std::size_t n) {
  return static_cast<CORBA::ULong>(n);
}

inline idl::DoubleSeq to_seq(std::span<const double> x) {
  idl::DoubleSeq seq;
  seq.length(static_cast<CORBA::ULong>(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i) seq[static_cast<CORBA::ULong>(i)] = x[i];
  return seq;
}

inline idl::OctetSeq to_octets(std::span<const std::uint8_t> bytes) {
  idl::OctetSeq seq;
  seq.length(static_cast<CORBA::ULong>(bytes.size()));
  if (!bytes.empty()) std::memcpy(seq.get_buffer(), bytes.data(), bytes.size());
  return seq;
}

inline Bytes to_bytes(const idl::OctetSeq& seq) {
  return {seq.get_buffer(), seq.get_buffer() + seq.length()};
}

// Whether every value that arrived is a finite number (a peer's states, outputs, memory).
inline bool all_finite(const idl::DoubleSeq& values) {
  for (CORBA::ULong k = 0; k < values.length(); ++k)
    if (!std::isfinite(values[k])) return false;
  return true;
}

inline std::vector<double> to_vector(const idl::DoubleSeq& seq) {
  return {seq.get_buffer(), seq.get_buffer() + seq.length()};
}

inline idl::Event to_idl(const Event& e) {
  idl::Event out;
  out.kind = e.kind.c_str();
  out.step = e.step;
  out.t = e.t;
  out.data = to_seq(e.data);
  return out;
}

inline Event from_idl(const idl::Event& e) {
  return {e.kind.in(), e.step, e.t, to_vector(e.data)};
}

inline idl::DoubleSeq to_seq(const Vector& v) {
  return to_seq(std::span<const double>(v.data(), static_cast<std::size_t>(v.size())));
}

inline Vector to_eigen(const idl::DoubleSeq& s) {
  return vector_of({s.get_buffer(), s.length()});
}

inline idl::ModelChange to_idl(const ModelChange& c) {
  idl::ModelChange out;
  out.member = c.member.c_str();
  out.name = c.name.c_str();
  out.value = c.value;
  out.from = c.from;
  out.settled = c.settled;
  return out;
}
inline ModelChange from_idl(const idl::ModelChange& c) {
  return {c.member.in(), c.name.in(), c.value, c.from, c.settled};
}

// The past derivatives go as one sequence, newest first.
inline idl::StepperMemory to_idl(const StepperMemory& m) {
  idl::StepperMemory out;
  out.steps = m.steps;
  out.h = m.h;
  std::size_t length = 0;
  for (const Vector& f : m.past) length += static_cast<std::size_t>(f.size());
  out.past.length(static_cast<CORBA::ULong>(length));
  std::size_t at = 0;
  for (const Vector& f : m.past)
    for (Eigen::Index i = 0; i < f.size(); ++i) out.past[static_cast<CORBA::ULong>(at++)] = f[i];
  return out;
}

// Cut into derivatives of state_size values each (the receiver has checked the length is a
// whole multiple: StateSinkServant, the Integrator's set-up).
inline StepperMemory from_idl(const idl::StepperMemory& m, std::size_t state_size) {
  StepperMemory out{m.steps, m.h, {}};
  const std::size_t n = state_size == 0 ? 0 : m.past.length() / state_size;
  for (std::size_t j = 0; j < n; ++j) {
    Vector f(static_cast<Eigen::Index>(state_size));
    for (std::size_t i = 0; i < state_size; ++i)
      f[static_cast<Eigen::Index>(i)] = m.past[static_cast<CORBA::ULong>(j * state_size + i)];
    out.past.push_back(std::move(f));
  }
  return out;
}

// ---- a hybrid model's event ports (integrator/event_ports.hpp) ----

inline idl::LocatedCrossingSeq to_idl(const std::vector<LocatedCrossing>& crossings) {
  idl::LocatedCrossingSeq out;
  out.length(wire_size(crossings.size()));
  for (CORBA::ULong k = 0; k < out.length(); ++k)
    out[k] = {crossings[k].step, crossings[k].time, crossings[k].output, crossings[k].value};
  return out;
}

inline std::vector<LocatedCrossing> from_idl(const idl::LocatedCrossingSeq& crossings) {
  std::vector<LocatedCrossing> out;
  for (CORBA::ULong k = 0; k < crossings.length(); ++k)
    out.push_back({crossings[k].step, crossings[k].time, crossings[k].output, crossings[k].value});
  return out;
}

inline idl::ArrivingEventSeq to_idl(const std::vector<ArrivingEvent>& events) {
  idl::ArrivingEventSeq out;
  out.length(wire_size(events.size()));
  for (CORBA::ULong k = 0; k < out.length(); ++k)
    out[k] = {events[k].key.time, events[k].key.source, events[k].key.serial, events[k].input,
              events[k].value};
  return out;
}

inline std::vector<ArrivingEvent> from_idl(const idl::ArrivingEventSeq& events) {
  std::vector<ArrivingEvent> out;
  for (CORBA::ULong k = 0; k < events.length(); ++k)
    out.push_back(
        {{events[k].time, events[k].source, events[k].serial}, events[k].input, events[k].value});
  return out;
}

inline idl::EventPortsSetup to_idl(const EventPorts& p) {
  idl::EventPortsSetup out;
  out.outputs.length(wire_size(p.outputs.size()));
  for (CORBA::ULong k = 0; k < out.outputs.length(); ++k)
    out.outputs[k] = {wire_size(p.outputs[k].index), p.outputs[k].level,
                      static_cast<CORBA::UShort>(p.outputs[k].direction),
                      wire_size(p.outputs[k].carries), static_cast<CORBA::UShort>(p.outputs[k].of)};
  out.inputs.length(wire_size(p.inputs.size()));
  for (CORBA::ULong k = 0; k < out.inputs.length(); ++k)
    out.inputs[k] = {static_cast<CORBA::UShort>(p.inputs[k].effect), wire_size(p.inputs[k].index)};
  out.held0 = to_seq(p.held0);
  out.model_outputs = wire_size(p.model_outputs);
  out.tolerance = p.tolerance;
  return out;
}

inline idl::StateBatch to_idl(const StateBatch& b) {
  return {b.epoch,
          b.first_step,
          wire_size(b.state_size),
          wire_size(b.output_size),
          to_seq(b.states),
          to_seq(b.outputs),
          to_idl(b.memory),
          to_seq(b.indicators),
          to_octets(b.internal),
          to_idl(b.crossings)};
}

inline StateBatch from_idl(const idl::StateBatch& b) {
  return {b.epoch,
          b.first_step,
          b.state_size,
          b.output_size,
          to_vector(b.states),
          to_vector(b.outputs),
          from_idl(b.memory, b.state_size),
          to_vector(b.indicators),
          to_bytes(b.internal),
          from_idl(b.crossings)};
}

inline idl::ChannelSampleSeq to_idl(const std::vector<ChannelSample>& samples) {
  idl::ChannelSampleSeq out;
  out.length(wire_size(samples.size()));
  for (CORBA::ULong k = 0; k < out.length(); ++k)
    out[k] = {wire_size(samples[k].channel), samples[k].index, samples[k].value};
  return out;
}

inline std::vector<ChannelSample> from_idl(const idl::ChannelSampleSeq& samples) {
  std::vector<ChannelSample> out;
  for (CORBA::ULong k = 0; k < samples.length(); ++k)
    out.push_back({samples[k].channel, samples[k].index, samples[k].value});
  return out;
}

inline idl::ChannelPredictionSeq to_idl(const std::vector<ChannelPrediction>& predictions) {
  idl::ChannelPredictionSeq out;
  out.length(wire_size(predictions.size()));
  for (CORBA::ULong k = 0; k < out.length(); ++k) {
    const ChannelPrediction& p = predictions[k];
    const Prediction& poly = p.polynomial;
    out[k] = {wire_size(p.channel),
              p.from_tick,
              p.to_tick,
              poly.c[0],
              poly.c[1],
              poly.c[2],
              poly.c[3],
              poly.t_ref,
              poly.scale,
              static_cast<CORBA::UShort>(poly.order)};
  }
  return out;
}

// (The Integrator checks what it is given: InputChannels::provide.)
inline std::vector<ChannelPrediction> from_idl(const idl::ChannelPredictionSeq& predictions) {
  std::vector<ChannelPrediction> out;
  for (CORBA::ULong k = 0; k < predictions.length(); ++k) {
    const idl::ChannelPrediction& p = predictions[k];
    Prediction poly;
    poly.c = {p.c0, p.c1, p.c2, p.c3};
    poly.t_ref = p.t_ref;
    poly.scale = p.scale;
    poly.order = p.order;
    out.push_back({p.channel, p.from_tick, p.to_tick, poly});
  }
  return out;
}

inline idl::IntegratorStats to_idl(const IntegratorStats& s) {
  return {s.steps_computed,     s.rollbacks,
          s.rolled_back_steps,  s.wasted_derivative_calls,
          s.predictions,        s.accepted_predictions,
          s.max_accepted_error, s.derivative_calls,
          s.jacobian_calls,     s.events,
          s.newton_limit_steps};
}

inline IntegratorStats from_idl(const idl::IntegratorStats& s) {
  return {s.steps_computed,     s.rollbacks,
          s.rolled_back_steps,  s.wasted_derivative_calls,
          s.predictions,        s.accepted_predictions,
          s.max_accepted_error, s.derivative_calls,
          s.jacobian_calls,     s.events,
          s.newton_limit_steps};
}

// Every IntegratorConfig field; the Integrator's servant checks them (checked_config).
inline idl::IntegratorSetup to_idl(const IntegratorConfig& c, idl::System_ptr system) {
  idl::IntegratorSetup out;
  out.sys = idl::System::_duplicate(system);
  out.name = c.name.c_str();
  out.method = std::string(ode_method_name(c.method)).c_str();
  out.newton = {static_cast<CORBA::ULong>(c.newton.max_iterations), c.newton.tolerance,
                c.newton.accept_at_limit};
  out.blocks.length(wire_size(c.blocks.size()));
  for (CORBA::ULong k = 0; k < out.blocks.length(); ++k) {
    out.blocks[k].name = c.blocks[k].name.c_str();
    out.blocks[k].offset = wire_size(c.blocks[k].offset);
    out.blocks[k].size = wire_size(c.blocks[k].size);
  }
  out.t0 = c.t0;
  out.tick = c.tick;
  out.ticks_per_step = c.ticks_per_step;
  out.first_step = c.first_step;
  out.last_step = c.last_step;
  out.x0 = to_seq(c.x0);
  out.memory0 = to_idl(c.memory0);
  out.indicators0 = to_seq(c.indicators0);
  out.internal_state = c.internal_state;
  out.internal0 = to_octets(c.internal0);
  out.internal_bytes = wire_size(c.internal_bytes);
  out.outputs_at_step = c.outputs_at_step;
  out.input_history.length(wire_size(c.input_history.size()));
  for (CORBA::ULong k = 0; k < out.input_history.length(); ++k)
    out.input_history[k] = {c.input_history[k].first, to_seq(c.input_history[k].values)};
  out.publish_first_state = c.publish_first_state;
  out.output_size = wire_size(c.output_size);
  out.indicator_count = wire_size(c.indicator_count);
  out.completes_steps = c.completes_steps;
  out.channels.length(wire_size(c.channels.size()));
  for (CORBA::ULong k = 0; k < out.channels.length(); ++k) {
    out.channels[k].name = c.channels[k].name.c_str();
    out.channels[k].hold = static_cast<CORBA::UShort>(c.channels[k].hold);
    out.channels[k].period_ticks = c.channels[k].period_ticks;
    out.channels[k].source = static_cast<CORBA::UShort>(c.channels[k].source);
    const InputPredictor& predictor = c.channels[k].predictor;
    out.channels[k].choose_order = predictor.choose_order;
    out.channels[k].calibration = static_cast<CORBA::UShort>(predictor.calibration);
    out.channels[k].order_threshold = predictor.threshold;
    out.channels[k].smooth = predictor.smooth;
    out.channels[k].exact = c.channels[k].exact;
  }
  out.speculate = c.speculate;
  out.tolerance = c.tolerance;
  out.publish_every = c.publish_every;
  out.coupling_sends_events = c.coupling_sends_events;
  out.rollback_check = c.rollback_check;
  out.ports = to_idl(c.ports);
  return out;
}

inline idl::ComponentTiming to_idl(const ActivityTotals& t) {
  return {t.busy_s,   t.idle_s,          t.rollback_s, t.calc_calls,
          t.requests, t.state_list_peak, t.calc_wait_s};
}

inline ActivityTotals from_idl(const idl::ComponentTiming& t) {
  return {t.busy_s,   t.idle_s,          t.rollback_s, t.calc_calls,
          t.requests, t.state_list_peak, t.calc_wait_s};
}

inline idl::ActivitySpanSeq to_idl(const std::vector<ActivitySpan>& spans) {
  idl::ActivitySpanSeq out;
  out.length(static_cast<CORBA::ULong>(spans.size()));
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const ActivitySpan& s = spans[i];
    out[static_cast<CORBA::ULong>(i)] = {s.begin_ns,
                                         s.end_ns,
                                         static_cast<CORBA::Octet>(s.kind),
                                         static_cast<CORBA::Octet>(s.tag.call),
                                         s.tag.epoch,
                                         s.tag.step};
  }
  return out;
}

// Kinds and calls out of range are refused by the caller (valid_span).
inline std::vector<ActivitySpan> from_idl(const idl::ActivitySpanSeq& spans) {
  std::vector<ActivitySpan> out(spans.length());
  for (CORBA::ULong i = 0; i < spans.length(); ++i)
    out[i] = {spans[i].begin_ns,
              spans[i].end_ns,
              static_cast<ActivityKind>(spans[i].kind),
              {static_cast<ActivityCall>(spans[i].call), spans[i].step, spans[i].epoch}};
  return out;
}

inline idl::ParameterSeq to_idl(const Parameters& p) {
  idl::ParameterSeq out;
  out.length(static_cast<CORBA::ULong>(p.size()));
  for (std::size_t i = 0; i < p.size(); ++i) {
    out[static_cast<CORBA::ULong>(i)].name = p[i].first.c_str();
    out[static_cast<CORBA::ULong>(i)].value = p[i].second;
  }
  return out;
}

inline Parameters from_idl(const idl::ParameterSeq& p) {
  Parameters out;
  for (CORBA::ULong i = 0; i < p.length(); ++i) out.emplace_back(p[i].name.in(), p[i].value);
  return out;
}

}  // namespace kausal
