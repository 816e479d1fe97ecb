#pragma once
// Several subsystems integrated as one: the members of a partition. Couplings between
// members are direct (an input reads the other member's output at the same t, inside every
// stage); inputs not coupled inside are either constants of the scenario or inputs of the
// composite, fed from other partitions with a hold. Names are "member.state",
// "member.input", "member.output". A composite of every subsystem of a scenario is the
// monolithic model (the reference and the single-rate baseline).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "system/input_table.hpp"
#include "system/model.hpp"
#include "system/model_change.hpp"
#include "system/state_block.hpp"

namespace kausal {

struct CompositeMember {
  std::string name;
  std::unique_ptr<Model> model;
  // What it was built from (make_model): a change of a parameter builds it again. Empty for
  // a member built otherwise, whose parameters cannot change.
  std::string registered;
  Parameters parameters;
};

// Input `to_input` of member `to` is the output `from_output` of member `from`.
struct DirectLink {
  std::size_t from = 0;
  std::size_t from_output = 0;
  std::size_t to = 0;
  std::size_t to_input = 0;
};

// Input `input` of member `member` is held at `value`, or follows `table` when it has rows
// (a subsystem's input_table; `value` is then its value at the start).
struct ConstantInput {
  std::size_t member = 0;
  std::size_t input = 0;
  double value = 0;
  InputTable table = {};
};

// Input `input` of member `member` is held at what events set it to (a hybrid model's event
// input, integrator/event_ports.hpp): an input of the composite after the open ones. With a
// `parameter` name instead, that parameter of the member is held so: the member is built
// again whenever the composite input's value changes (at an event's time, and back on a
// rollback), so that a step cut at the event sees the old value up to the cut and the new
// one after it, whatever time its stages are evaluated at.
struct HeldInput {
  std::size_t member = 0;
  std::size_t input = 0;
  std::string parameter;  // empty: the member's input `input`
};

class CompositeModel final : public Model {
 public:
  // Every member input must be linked, constant, held or left open: the open ones become
  // inputs of the composite in member order, then the held ones in the order given. Throws
  // ModelError for an input bound twice.
  CompositeModel(std::vector<CompositeMember> members, std::vector<DirectLink> links,
                 std::vector<ConstantInput> constants, const std::vector<HeldInput>& held = {});

  const Signature& signature() const override { return signature_; }
  Vector initial_state() const override;
  void derivative(double t, VectorView x, VectorView u, VectorOut dx) const override;
  void output(double t, VectorView x, VectorOut y) const override;
  bool has_jacobian() const override;
  void jacobian(double t, VectorView x, VectorView u, MatrixOut J) const override;
  std::size_t indicator_count() const override { return indicator_count_; }
  void indicators(double t, VectorView x, VectorView u, VectorOut g) const override;
  void on_crossing(std::size_t indicator, double t, VectorOut x) const override;
  bool completes_steps() const override;
  void completed_step(double t, VectorOut x) const override;
  // Restorable when every member with internal state is; the bytes are the members' bytes in
  // member order, each preceded by its length (8 bytes, little-endian).
  InternalState internal_state() const override;
  std::string unrestorable_reason() const override;
  Bytes save_internal() const override;
  void restore_internal(std::span<const std::uint8_t> bytes) const override;
  // A member that steps itself (a co-simulation FMU) is its partition's only member.
  bool steps_itself() const override;
  void step(double t, double h, VectorView u, MatrixView du, VectorOut x) const override;

  // One block per member with states (pDRE0 uses their diagonal Jacobian blocks).
  const std::vector<StateBlock>& blocks() const { return blocks_; }
  std::size_t member_count() const { return members_.size(); }
  const CompositeMember& member(std::size_t k) const { return members_[k]; }

  // From change.from on, the member's constant input `name` (else its parameter `name`: the
  // member is built again with it) has the new value. Throws ModelError naming the member
  // and what is wrong: no such member, an input fed by another subsystem, a parameter its
  // model refuses or that changes its shape, a member whose parameters events set.
  void change(const ModelChange& change);

 private:
  struct Layout {
    std::size_t state = 0, output = 0, indicator = 0;  // offsets into the composite's vectors
  };
  // Where each member input comes from.
  struct InputSource {
    enum Kind { open, linked, constant, held } kind = open;
    std::size_t index = 0;  // open, held: composite input; linked: composite output
    double value = 0;
    std::vector<std::pair<double, double>> later;  // constant: (from, value), sorted by from
    InputTable table = {};  // constant: the time series it follows until a change settles
    double value_at(double t) const;
    double slope_at(double t) const;  // d value_at / dt from the right
  };
  // A member whose parameters events set (HeldInput::parameter): the composite inputs that
  // hold them and the model built from their values (built again when one changes).
  struct HeldParameters {
    std::vector<std::pair<std::string, std::size_t>> inputs;  // (parameter, composite input)
    std::vector<double> values;                               // what `model` was built with
    std::unique_ptr<Model> model;
  };
  // A member built again with changed parameters, used from `from` on.
  struct Version {
    double from = 0;
    Parameters parameters;
    std::unique_ptr<Model> model;
  };

  void build_signature(const std::vector<HeldInput>& held);
  void add_held_parameter(std::size_t k, const std::string& name, std::size_t input);
  // Member k's model as it is at time t (its first one until a parameter changes).
  const Model& model_at(std::size_t k, double t) const;
  // Builds member k again if the composite inputs u hold other values for its held parameters.
  void take_held_parameters(VectorView u) const;
  std::unique_ptr<Model> rebuilt(std::size_t k, const Parameters& parameters,
                                 const std::string& changed) const;
  void change_parameter(std::size_t k, const ModelChange& change);
  // Folds what changed at or before t into the values and models in force.
  void settle(double t);
  std::size_t unsettled_changes() const;
  // All members' outputs at (t, x), then every member's inputs.
  // Fills inputs_ (scratch: a composite serves one caller at a time, like every System).
  void member_inputs(double t, VectorView x, VectorView u) const;

  std::vector<CompositeMember> members_;
  std::vector<Layout> layout_;
  std::vector<std::vector<InputSource>> sources_;
  std::vector<std::vector<Version>> versions_;  // per member, sorted by from
  mutable std::vector<std::optional<HeldParameters>> held_parameters_;  // per member
  bool has_links_ = false;
  std::size_t indicator_count_ = 0;
  std::vector<StateBlock> blocks_;
  Signature signature_;
  mutable Vector outputs_;
  mutable std::vector<Vector> inputs_;
};

// A composite as plain data, before any model is built: what a scenario's partition is made
// of, and what a remote System receives (configure_partition).
// A member imported from an FMU (model "fmu": system/fmu/fmu_model.hpp).
struct FmuSource {
  std::string archive;         // the .fmu file
  bool co_simulation = false;  // its co-simulation interface, else its model exchange one
  // Where the archive is unpacked: <unpack_root>/<component>/<member>; empty: a private
  // temporary directory, removed with the model.
  std::string unpack_root;
  // Start values of its String variables (parameters), by name: kausal couples numbers
  // only, but an FMU may be configured by text.
  std::vector<std::pair<std::string, std::string>> strings;
  // Not empty: the archive's bytes, shipped to a System on another host, which writes them
  // to a directory of its own and opens that copy (ShippedFiles).
  std::vector<std::uint8_t> archive_bytes = {};
  // Its String inputs and outputs a coupling names: ports of text_lanes numbers each
  // (system/fmu/text_lanes.hpp); its other String ports stay unconnected.
  std::vector<std::string> coupled_texts = {};
};

struct MemberRecipe {
  std::string name;
  std::string model;         // registered name (make_model), or "fmu"
  Parameters parameters;     // for an FMU: the start values of its variables, by name
  FmuSource fmu;             // model "fmu" only
  std::string library = {};  // a model library that registers `model` (absolute), or empty
  // Not empty: the library's bytes, shipped to a System on another host, which writes them to
  // a directory of its own and loads that copy (ShippedFiles).
  std::vector<std::uint8_t> library_bytes = {};
};
struct CompositeRecipe {
  std::vector<MemberRecipe> members;
  std::vector<DirectLink> links;
  std::vector<ConstantInput> constants;
  std::vector<HeldInput> held;
};

// Builds every member with make_model and the composite of them. Indices and values are
// checked first (they may come from the wire): a ModelError names `component` and the
// field, e.g. "links[1].from_output: 3 is out of range (member 'a' has 1 outputs)".
std::unique_ptr<CompositeModel> build_composite(const std::string& component,
                                                const CompositeRecipe& recipe);

}  // namespace kausal
