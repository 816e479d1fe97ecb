#pragma once
// An FMU as a kausal model (docs/fmi.md): its model-exchange interface as a Model with
// derivatives, outputs, a Jacobian (from directional derivatives, else differences) and
// events; its co-simulation interface as a Model that steps itself (fmi2DoStep). The FMU's
// own state — discrete states, the next time event, everything of a co-simulation FMU — is
// the model's internal state: fmi2GetFMUstate serialized, so the state list keeps it, a
// rollback restores it and a checkpoint carries it.
#include <memory>
#include <string>
#include <vector>

#include "system/composite_model.hpp"
#include "system/fmu/model_description.hpp"
#include "system/model.hpp"

namespace kausal {

// What kausal uses of an FMU's variables for one of its interfaces (from the description
// alone: no binary is loaded). Indices are into ModelDescription::variables.
struct FmuPorts {
  fmu::FmuKind kind = fmu::FmuKind::model_exchange;
  std::vector<std::size_t> states, derivatives;  // model exchange: in Derivatives order
  // One entry per signature input and output: a coupled String port's variable once per lane.
  std::vector<std::size_t> inputs, outputs;
  // The coupled String ports (system/fmu/text_lanes.hpp): the positions of their first lanes
  // among the signature's inputs and outputs.
  std::vector<std::size_t> text_inputs, text_outputs;
  // Model exchange: the states, inputs and outputs by name. A model that steps itself: x is
  // what the FMU shows of its state, its outputs (so its states are named like its outputs).
  Signature signature;
  // Co-simulation, and model exchange without continuous states (time events and discrete
  // states only: kausal steps it from event to event).
  bool steps_itself = false;
};

// The interface a scenario gets without naming one: model exchange if the FMU has it.
fmu::FmuKind default_fmu_kind(const fmu::ModelDescription& md);

// InputError "<file>: ..." for what kausal cannot import through that interface: no such
// interface, a discrete input or an output that depends directly on an input (model exchange
// with continuous states sets inputs in continuous time and reads outputs from the state
// alone), an FMU that steps itself without outputs. String ports are ports only when named in
// `coupled_texts` (text_lanes numbers each); InputError for a name there that is no String
// input or output of the FMU.
FmuPorts fmu_ports(const fmu::ModelDescription& md, fmu::FmuKind kind,
                   const std::vector<std::string>& coupled_texts = {});

// Why `name` cannot be given a start value, or empty if it can: it must be a variable that
// is a String when the value is text (and not one when it is a number), not a constant, and
// a parameter, an input, or have initial exact/approx.
std::string start_value_problem(const fmu::ModelDescription& md, const std::string& name,
                                bool text = false);
// Why `value` does not fit the range (min, max) `name` declares, or empty if it does.
std::string range_problem(const fmu::ModelDescription& md, const std::string& name, double value);

// Unpacks member.fmu.archive, loads its binary, instantiates and initialises it with the
// member's start values, and checks that its state can be saved and restored. ModelError
// naming `component` and the member for an FMU that fails; InputError for a bad archive.
std::unique_ptr<Model> make_fmu_model(const std::string& component, const MemberRecipe& member);

}  // namespace kausal
