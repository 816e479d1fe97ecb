#pragma once
// Plain C++ values <-> IDL values of partitioned models (kausal.idl, version 4). Like
// convert.hpp this file only copies; the receivers check what arrives (sizes, finiteness,
// ranges) and name the field that is wrong.
#include <vector>

#include "idl/convert.hpp"
#include "integrator/coupled_integrator.hpp"
#include "system/composite_model.hpp"

namespace kausal {

inline CORBA::ULong wire_size(std::size_t n) {
  return static_cast<CORBA::ULong>(n);
}

// ---- the composite a System builds ----

inline idl::MemberSetupSeq to_idl(const std::vector<MemberRecipe>& members) {
  idl::MemberSetupSeq out;
  out.length(wire_size(members.size()));
  for (CORBA::ULong k = 0; k < out.length(); ++k) {
    out[k].name = members[k].name.c_str();
    out[k].model = members[k].model.c_str();
    out[k].parameters = to_idl(members[k].parameters);
  }
  return out;
}

inline idl::DirectLinkSeq to_idl(const std::vector<DirectLink>& links) {
  idl::DirectLinkSeq out;
  out.length(wire_size(links.size()));
  for (CORBA::ULong k = 0; k < out.length(); ++k)
    out[k] = {wire_size(links[k].from), wire_size(links[k].from_output), wire_size(links[k].to),
              wire_size(links[k].to_input)};
  return out;
}

inline idl::ConstantInputSeq to_idl(const std::vector<ConstantInput>& constants) {
  idl::ConstantInputSeq out;
  out.length(wire_size(constants.size()));
  for (CORBA::ULong k = 0; k < out.length(); ++k)
    out[k] = {wire_size(constants[k].member), wire_size(constants[k].input), constants[k].value};
  return out;
}

inline CompositeRecipe from_idl(const idl::MemberSetupSeq& members, const idl::DirectLinkSeq& links,
                                const idl::ConstantInputSeq& constants) {
  CompositeRecipe r;
  for (CORBA::ULong k = 0; k < members.length(); ++k)
    r.members.push_back(
        {members[k].name.in(), members[k].model.in(), from_idl(members[k].parameters)});
  for (CORBA::ULong k = 0; k < links.length(); ++k)
    r.links.push_back({links[k].from, links[k].from_output, links[k].to, links[k].to_input});
  for (CORBA::ULong k = 0; k < constants.length(); ++k)
    r.constants.push_back({constants[k].member, constants[k].input, constants[k].value});
  return r;
}

// ---- what flows between the monitor and a partition's Integrator ----

inline idl::OutputBatch to_idl(const OutputBatch& b) {
  return {b.first_step, wire_size(b.state_size), wire_size(b.output_size), to_seq(b.states),
          to_seq(b.outputs)};
}

inline OutputBatch from_idl(const idl::OutputBatch& b) {
  return {b.first_step, b.state_size, b.output_size, to_vector(b.states), to_vector(b.outputs)};
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

inline idl::PartitionStats to_idl(const CoupledStats& s) {
  return {s.steps_computed,     s.rollbacks,
          s.rolled_back_steps,  s.wasted_derivative_calls,
          s.predictions,        s.accepted_predictions,
          s.max_accepted_error, s.derivative_calls,
          s.jacobian_calls,     s.events};
}

inline CoupledStats from_idl(const idl::PartitionStats& s) {
  return {s.steps_computed,     s.rollbacks,
          s.rolled_back_steps,  s.wasted_derivative_calls,
          s.predictions,        s.accepted_predictions,
          s.max_accepted_error, s.derivative_calls,
          s.jacobian_calls,     s.events};
}

// Every CoupledConfig field; the Integrator checks them (checked_config in the servant).
inline idl::PartitionSetup to_idl(const CoupledConfig& c, idl::System_ptr system) {
  idl::PartitionSetup out;
  out.sys = idl::System::_duplicate(system);
  out.name = c.name.c_str();
  out.method = std::string(ode_method_name(c.method)).c_str();
  out.blocks.length(wire_size(c.blocks.size()));
  for (CORBA::ULong k = 0; k < out.blocks.length(); ++k) {
    out.blocks[k].name = c.blocks[k].name.c_str();
    out.blocks[k].offset = wire_size(c.blocks[k].offset);
    out.blocks[k].size = wire_size(c.blocks[k].size);
  }
  out.t0 = c.t0;
  out.tick = c.tick;
  out.ticks_per_step = c.ticks_per_step;
  out.last_step = c.last_step;
  out.x0 = to_seq({c.x0.data(), static_cast<std::size_t>(c.x0.size())});
  out.output_size = wire_size(c.output_size);
  out.indicator_count = wire_size(c.indicator_count);
  out.channels.length(wire_size(c.channels.size()));
  for (CORBA::ULong k = 0; k < out.channels.length(); ++k) {
    out.channels[k].name = c.channels[k].name.c_str();
    out.channels[k].hold = static_cast<CORBA::UShort>(c.channels[k].hold);
    out.channels[k].period_ticks = c.channels[k].period_ticks;
  }
  out.speculate = c.speculate;
  out.tolerance = c.tolerance;
  out.window = c.window;
  out.publish_every = c.publish_every;
  out.rollback_check = c.rollback_check;
  return out;
}

}  // namespace kausal
