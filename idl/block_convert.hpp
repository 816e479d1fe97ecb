#pragma once
// Blocks of a chain between C++ and IDL (idl::Block). States travel as (phi, omega) pairs of
// doubles; a sequence that is not whole pairs, or names no pendulum of the block, is a
// ProtocolError naming the field, never an index out of range.
#include <cstring>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "idl/kausal.hh"
#include "integrator/block_core.hpp"

namespace kausal {

inline idl::DoubleSeq states_to_idl(const PendulumState* states, std::size_t count) {
  idl::DoubleSeq out(static_cast<CORBA::ULong>(2 * count));
  out.length(static_cast<CORBA::ULong>(2 * count));
  if (count > 0) std::memcpy(out.get_buffer(), states, count * sizeof(PendulumState));
  return out;
}

// The states a sequence holds; ProtocolError of `component` naming `field` unless it holds
// whole (phi, omega) pairs.
inline std::size_t state_count(const std::string& component, const char* field,
                               const idl::DoubleSeq& seq) {
  if (seq.length() % 2 != 0)
    throw ProtocolError(component, std::string(field) + " holds " + std::to_string(seq.length()) +
                                       " values, not (phi, omega) pairs");
  return seq.length() / 2;
}

inline void states_from_idl(const idl::DoubleSeq& seq, PendulumState* out) {
  if (seq.length() > 0)
    std::memcpy(out, seq.get_buffer(), seq.length() / 2 * sizeof(PendulumState));
}

inline idl::IndexSeq to_idl(const std::vector<std::uint32_t>& indices) {
  idl::IndexSeq out(static_cast<CORBA::ULong>(indices.size()));
  out.length(static_cast<CORBA::ULong>(indices.size()));
  for (CORBA::ULong k = 0; k < out.length(); ++k) out[k] = indices[k];
  return out;
}

inline std::vector<std::uint32_t> from_idl(const idl::IndexSeq& indices) {
  return {indices.get_buffer(), indices.get_buffer() + indices.length()};
}

inline idl::BlockSetup to_idl(const BlockSpec& s) {
  idl::BlockSetup out;
  const auto& p = s.chain.pendulums;
  out.pendulums.length(static_cast<CORBA::ULong>(p.size()));
  for (CORBA::ULong i = 0; i < out.pendulums.length(); ++i)
    out.pendulums[i] = {p[i].pivot_x, p[i].length,  p[i].mass,     p[i].radius,
                        p[i].damping, p[i].gravity, p[i].calc_work};
  out.restitution = s.chain.restitution;
  out.max_sweeps = s.chain.max_sweeps;
  out.method = std::string(ode_method_name(s.method)).c_str();
  out.t0 = s.t0;
  out.h = s.h;
  out.rollback_check = s.rollback_check;
  return out;
}

// ModelError naming `component` for a method that is not one.
inline BlockSpec from_idl(const idl::BlockSetup& s, const std::string& component) {
  BlockSpec out;
  out.chain.pendulums.reserve(s.pendulums.length());
  for (CORBA::ULong i = 0; i < s.pendulums.length(); ++i) {
    const idl::PendulumSpec& p = s.pendulums[i];
    out.chain.pendulums.push_back(
        {p.pivot_x, p.length, p.mass, p.radius, p.damping, p.gravity, p.calc_work});
  }
  out.chain.restitution = s.restitution;
  out.chain.max_sweeps = s.max_sweeps;
  out.method = parse_ode_method(s.method.in(), component + ": ");
  out.t0 = s.t0;
  out.h = s.h;
  out.rollback_check = s.rollback_check;
  return out;
}

inline BlockRequest from_idl(const idl::BlockAdvance& a, const std::string& component) {
  BlockRequest out;
  out.from = a.from;
  out.restart = a.restart;
  out.changed = from_idl(a.changed);
  out.states.resize(state_count(component, "states", a.states));
  states_from_idl(a.states, out.states.data());
  out.edge = from_idl(a.edge);
  out.steps = a.steps;
  out.limit = a.limit;
  return out;
}

inline idl::BlockSteps* to_idl(const BlockReply& r) {
  auto* out = new idl::BlockSteps;
  out->states = states_to_idl(r.states.data(), r.states.size());
  out->left = to_idl(r.left);
  out->impacts.length(static_cast<CORBA::ULong>(r.impacts.size()));
  for (CORBA::ULong k = 0; k < out->impacts.length(); ++k) out->impacts[k] = r.impacts[k];
  out->calc_calls = r.calc_calls;
  out->discarded_calc_calls = r.discarded_calc_calls;
  out->computed_ns = static_cast<CORBA::ULongLong>(r.computed.count());
  return out;
}

}  // namespace kausal
