#pragma once
// Plain C++ values <-> IDL values. Every value from the wire is checked by the plain core
// that receives it (sizes, finiteness); this file only copies.
#include <span>
#include <vector>

#include "idl/kausal.hh"
#include "integrator/integrator.hpp"
#include "system/activity_clock.hpp"
#include "system/model.hpp"

namespace kausal {

inline idl::DoubleSeq to_seq(std::span<const double> x) {
  idl::DoubleSeq seq;
  seq.length(static_cast<CORBA::ULong>(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i) seq[static_cast<CORBA::ULong>(i)] = x[i];
  return seq;
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

inline idl::StateBatch to_idl(const StateBatch& b) {
  idl::StateBatch out;
  out.epoch = b.epoch;
  out.first_step = b.first_step;
  out.state_size = static_cast<CORBA::ULong>(b.state_size);
  out.states = to_seq(b.states);
  return out;
}

inline StateBatch from_idl(const idl::StateBatch& b) {
  return {b.epoch, b.first_step, b.state_size, to_vector(b.states)};
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
