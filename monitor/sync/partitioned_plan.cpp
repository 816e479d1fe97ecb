#include "monitor/sync/partitioned_plan.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "common/errors.hpp"

namespace kausal {
namespace {

std::string port_name(const PartitionedScenario& s, std::size_t sub, const std::string& port) {
  return s.subsystems[sub].name + "." + port;
}

std::size_t index_in(const std::vector<std::string>& names, const std::string& name) {
  return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

// Where member `name`'s event indicators start among the partition model's.
std::size_t indicator_offset(const CompositeModel& model, const std::string& name) {
  std::size_t offset = 0;
  for (std::size_t k = 0; k < model.member_count() && model.member(k).name != name; ++k)
    offset += model.member(k).model->indicator_count();
  return offset;
}

// The event ports of partition p (whose model is `model`) from the scenario's bridge; where
// each scenario port went is added to the plan.
EventPorts event_ports_of(const PartitionedScenario& s, std::size_t p, const CompositeModel& model,
                          PartitionedPlan& plan) {
  const BridgeSpec& b = *s.bridge;
  const Signature& sig = model.signature();
  EventPorts ports;
  ports.model_outputs = model.output_size();
  ports.tolerance = b.tolerance;
  plan.event_outputs.resize(b.outputs.size());
  plan.event_inputs.resize(b.inputs.size());
  for (std::size_t j = 0; j < b.outputs.size(); ++j) {
    const EventOutputSpec& o = b.outputs[j];
    if (s.subsystems[o.subsystem].partition != p) continue;
    plan.event_outputs[j] = {p, static_cast<std::uint32_t>(ports.outputs.size())};
    const std::string carries =
        port_name(s, o.subsystem, s.subsystems[o.subsystem].signature.outputs[o.carries]);
    const std::size_t index =
        o.of == CrossingOf::indicator
            ? indicator_offset(model, s.subsystems[o.subsystem].name) + o.output
            : index_in(
                  sig.outputs,
                  port_name(s, o.subsystem, s.subsystems[o.subsystem].signature.outputs[o.output]));
    ports.outputs.push_back({index, o.level, o.direction, index_in(sig.outputs, carries), o.of});
  }
  for (std::size_t i = 0; i < b.inputs.size(); ++i) {
    const EventInputSpec& in = b.inputs[i];
    if (s.subsystems[in.subsystem].partition != p) continue;
    plan.event_inputs[i] = {p, static_cast<std::uint32_t>(ports.inputs.size())};
    const SubsystemSpec& sub = s.subsystems[in.subsystem];
    if (in.effect == EventEffect::set_input) {
      ports.inputs.push_back({in.effect, ports.held0.size()});
      ports.held0.push_back(in.initial);
    } else {
      ports.inputs.push_back(
          {in.effect,
           index_in(sig.states, port_name(s, in.subsystem, sub.signature.states[in.index]))});
    }
  }
  return ports;
}

}  // namespace

PartitionedPlan plan_partitions(const PartitionedScenario& s, const PartitionedMode& mode) {
  PartitionedPlan plan;
  plan.mode = mode;
  plan.routes.resize(s.partitions.size());
  std::vector<std::vector<std::string>> outputs(s.partitions.size());
  for (std::size_t p = 0; p < s.partitions.size(); ++p) {
    const auto model = build_partition_model(s, p);
    const PartitionSpec& spec = s.partitions[p];
    if (spec.automatic && spec.chosen_because.empty())
      throw std::logic_error("partition '" + spec.name +
                             "': integrator \"auto\" was not chosen (choose_integrators)");
    IntegratorConfig c;
    c.name = "integrator-" + spec.name;
    c.method = spec.method;
    c.newton = spec.newton;
    c.blocks = model->blocks();
    c.t0 = s.t0();
    c.tick = s.tick;
    c.ticks_per_step = spec.ticks_per_step;
    c.last_step = spec.steps;
    c.x0 = model->initial_state();
    c.output_size = model->output_size();
    c.indicator_count = model->indicator_count();
    c.completes_steps = model->completes_steps();
    c.speculate = mode.speculate;
    c.tolerance = mode.tolerance;
    c.rollback_check = mode.rollback_check;
    // Under the master a step stays open until the master accepts its macro step (commit),
    // and the inputs are the polynomials it ships.
    // A hybrid model's steps stay open until no event can arrive in them any more.
    c.coupling_sends_events = s.master.has_value() || s.bridge.has_value();
    if (s.bridge) c.ports = event_ports_of(s, p, *model, plan);
    c.internal_state = model->internal_state() == InternalState::restorable;
    if (c.internal_state) c.internal_bytes = model->save_internal().size();
    // (A model that steps itself shows its outputs as x: they come from x at any time.)
    c.outputs_at_step = model->internal_state() != InternalState::none && !model->steps_itself();
    const std::string unrestorable =
        model->internal_state() == InternalState::unrestorable
            ? "partition '" + spec.name + "': " + model->unrestorable_reason()
            : std::string();
    if (!unrestorable.empty() && mode.speculate)
      throw InputError(s.file + ": " + unrestorable +
                       ". The optimistic method rolls partitions back: run it with --method "
                       "conservative or sequential");
    if (!unrestorable.empty() && mode.rollback_check)
      throw InputError(s.file + ": " + unrestorable +
                       ". The rollback check rolls every step back to take it again: run it "
                       "without --rollback-check");
    if (!unrestorable.empty() && c.ports.any())
      throw InputError(s.file + ": " + unrestorable +
                       ". The bridge takes a step of a partition with event ports again from "
                       "its saved state when an event arrives inside it, under every method "
                       "(and locates a crossing of a model that steps itself that way)");
    if (!unrestorable.empty() && s.master && s.master->iterations > 0 && !s.master->surrogate)
      throw InputError(s.file + ": " + unrestorable +
                       ". The master's iterations roll partitions back: set [master] "
                       "surrogate = true (the partition steps once per macro step, a fitted "
                       "surrogate stands in for it while the others iterate) or iterations = 0");
    plan.unrestorable.push_back(unrestorable);
    plan.configs.push_back(std::move(c));
    plan.state_names.push_back(model->signature().states);
    plan.output_names.push_back(model->signature().outputs);
    outputs[p] = model->signature().outputs;
  }
  for (std::size_t q = 0; q < s.partitions.size(); ++q) {
    const auto inputs = partition_inputs(s, q);
    for (std::size_t channel = 0; channel < inputs.size(); ++channel) {
      const CouplingSpec& c = s.couplings[inputs[channel]];
      const std::size_t p = s.subsystems[c.from].partition;
      const auto period = std::max(s.partitions[p].ticks_per_step, s.partitions[q].ticks_per_step);
      const std::string from =
          port_name(s, c.from, s.subsystems[c.from].signature.outputs[c.from_output]);
      const std::string to = port_name(s, c.to, s.subsystems[c.to].signature.inputs[c.to_input]);
      const InputSource source = s.master ? InputSource::predictions : InputSource::samples;
      plan.configs[q].channels.push_back(
          {from + " -> " + to, c.hold, period, source, c.predictor, c.text});
      plan.routes[p].push_back(
          {q, channel, index_in(outputs[p], from), period / s.partitions[p].ticks_per_step});
    }
  }
  if (s.master && s.master->surrogate &&
      std::all_of(plan.unrestorable.begin(), plan.unrestorable.end(),
                  [](const std::string& why) { return why.empty(); }))
    throw InputError(s.file +
                     ": [master] surrogate = true, but every partition can repeat a "
                     "step (a surrogate stands in only for one that cannot, such as an "
                     "FMU without get/set state): remove it");
  for (std::size_t p = 0; p < s.partitions.size(); ++p)
    for (const Route& r : plan.routes[p])
      plan.configs[p].publish_every =
          std::gcd(plan.configs[p].publish_every, r.producer_steps_per_sample);
  return plan;
}

std::uint64_t common_ticks(const PartitionedPlan& plan) {
  std::uint64_t grid = 1;
  for (const auto& c : plan.configs) {
    grid = std::lcm(grid, c.ticks_per_step);
    if (grid > (std::uint64_t{1} << 40)) break;  // no boundary within any run
  }
  return grid;
}

}  // namespace kausal
