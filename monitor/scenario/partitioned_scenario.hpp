#pragma once
// A partitioned-model scenario read from TOML (format: docs/scenarios.md, "Partitioned
// models"): model instances ([[subsystem]]), how they are grouped into partitions — one
// System + Integrator pair each, with its own integrator and step — and the couplings from
// outputs to inputs with their hold order.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "integrator/event_ports.hpp"
#include "integrator/input_channels.hpp"
#include "integrator/ode_method.hpp"
#include "monitor/core/macro_step_control.hpp"
#include "monitor/core/run_kind.hpp"
#include "monitor/scenario/scenario_limits.hpp"
#include "system/composite_model.hpp"
#include "system/events/event_model.hpp"
#include "system/model.hpp"

namespace kausal {

struct SubsystemSpec {
  std::string name;
  std::string model;
  Parameters parameters;
  Parameters constant_inputs;  // inputs held at a value (name, value)
  // Inputs that follow a time series: the columns of its input_table (name, table).
  std::vector<std::pair<std::string, InputTable>> input_tables;
  Signature signature;         // of the model built from these parameters
  // Its coupled String ports (an FMU's: system/fmu/text_lanes.hpp): the positions of their
  // first lanes among the signature's inputs and outputs.
  std::vector<std::size_t> text_inputs, text_outputs;
  std::size_t indicators = 0;  // its event indicators (Model::indicator_count)
  std::size_t partition = 0;
  FmuSource fmu;        // model "fmu": the archive (an absolute path) and its interface
  std::string library;  // the model library that registers `model` (absolute), or empty
  // It has no derivative and is stepped by its partition's "co-simulation" integrator: a
  // co-simulation FMU, or a discrete model such as sampled_pi.
  bool steps_itself = false;
  // Why the bridge cannot cut its steps (a model that steps itself by a step of one length
  // only); empty: it can.
  std::string uncut_because;
};

struct PartitionSpec {
  std::string name;
  std::vector<std::size_t> members;  // subsystem indices, in scenario order
  OdeMethod method = OdeMethod::euler;
  // integrator = "auto": choose_integrators (monitor/run/feasibility.hpp) picks `method`
  // from the partition's eigenvalues and h, and says why here; until then `method` is a
  // placeholder (rk4) no run takes.
  bool automatic = false;
  std::string chosen_because;
  NewtonSettings newton;  // newton_iterations, newton_tolerance, newton_at_limit
  double h = 0;
  std::uint64_t ticks_per_step = 1;  // h in units of the scenario's tick (the smallest h)
  std::uint64_t steps = 0;           // to t_end
};

// Output `from_output` of subsystem `from` drives input `to_input` of subsystem `to`.
// Inside one partition the coupling is direct; between partitions the consumer predicts the
// producer's samples with a polynomial of order `hold` (0, 1 or 2; the highest order with
// predictor.choose_order) — or, under the master, the master does and ships the polynomial,
// reduced to the order the receiver `accepts`.
struct CouplingSpec {
  std::size_t from = 0, from_output = 0;
  std::size_t to = 0, to_input = 0;
  int hold = 0;
  InputPredictor predictor;
  int accepts = 3;
  // One lane of a coupled String (system/fmu/text_lanes.hpp): held (hold 0, accepts 0), and
  // a prediction of it is kept only when it is the sample bit for bit, whatever the
  // tolerance; the master's error control and convergence test leave it out.
  bool text = false;
  std::size_t lane = 0;  // which of its lanes (the coupling the scenario wrote is lane 0)
};

// The order in which the master's partitions take a macro step: all at once from predicted
// inputs, or one after the other, each from the fresh outputs of those before it.
enum class ExchangeOrder : std::uint8_t { jacobi, gauss_seidel };

// The co-simulation master (docs/cosimulation.md): macro steps in ticks, every one a multiple
// of grid_ticks (a multiple of every partition's step).
struct MasterSpec {
  std::uint64_t grid_ticks = 1;
  std::uint64_t step_ticks = 1;  // the first macro step
  std::uint64_t min_ticks = 1;
  std::uint64_t max_ticks = 1;
  ExchangeOrder exchange = ExchangeOrder::jacobi;
  std::uint32_t iterations = 0;  // 0: each macro step once; else at most this many passes
  bool error_control = false;    // the next macro step from the prediction error
  // Partitions that cannot repeat a step are stood in for by a fitted linear surrogate while
  // the others iterate and the step is judged; they step once, when it is accepted
  // (monitor/core/linear_surrogate.hpp). The fit is over the last surrogate_window steps.
  bool surrogate = false;
  std::uint32_t surrogate_window = 8;
  MacroStepControl control;  // its settings; rtol/atol also decide iteration convergence
  std::vector<std::uint64_t> sync_ticks;  // forced synchronisation points, ascending
};

// A hybrid model's bridge (docs/events.md, "Across the boundary"): an event output
// ([[event_output]]) reports the crossings of a subsystem's output through a level to a
// component of the discrete-event model, as events of one kind.
struct EventOutputSpec {
  std::string name;  // "lower.level → switch.high", for traces and messages
  CrossingOf of = CrossingOf::output;
  std::size_t subsystem = 0;
  std::size_t output = 0;   // the subsystem's output, or (of = indicator) its event indicator
  std::size_t carries = 0;  // the subsystem's output whose value the events carry
  double level = 0;         // 0 for an indicator
  CrossingDirection direction = CrossingDirection::either;
  des::ComponentId component = 0;
  std::uint32_t kind = 0;
  // A bound on how fast the watched value (output − level, or the indicator) changes, per
  // second, while no event reaches its partition: after each step the partitions' side
  // promises the discrete side no crossing for |value| / max_rate seconds (docs/events.md,
  // "Lookahead from a rate"). None: no promise beyond the step computed.
  std::optional<double> max_rate;
};

// An event input ([[event_input]]): the events the model sends on a port set a subsystem's
// input (held from one event to the next; `initial` before the first), set one of its
// states or add to it.
struct EventInputSpec {
  std::size_t port = 0;
  std::size_t subsystem = 0;
  EventEffect effect = EventEffect::set_input;
  std::size_t index = 0;  // the subsystem's input (set_input) or state
  double initial = 0;     // set_input
  // set_input of a parameter of the subsystem instead of an input (held the same way; its
  // initial value is the subsystem's): its name, else empty.
  std::string parameter;

  // "upper.inflow": the subsystem and what the events set in it.
  std::string target(const std::vector<SubsystemSpec>& subsystems) const;
};

// [events] beside [[subsystem]]: the discrete-event model and the bridge to the partitions.
struct BridgeSpec {
  std::string model;                         // a name of event_model_types()
  std::map<std::string, double> parameters;  // every parameter, defaults filled in
  std::shared_ptr<const des::EventModel> built;
  std::vector<EventOutputSpec> outputs;
  std::vector<EventInputSpec> inputs;
  double tolerance = 1e-6;  // s: a crossing is located at most this long after the exact one
  // Conservative and optimistic: the event groups its components run in (one thread each).
  std::uint32_t groups = 1;
};

struct PartitionedScenario {
  std::string file;
  std::string name;
  std::string description;
  double t_end = 0;
  double tick = 0;                             // the smallest partition step; every h is a multiple
  std::uint64_t ticks = 0;                     // t_end in ticks
  std::uint64_t output_ticks = 1;              // trajectory.csv interval in ticks
  double tolerance = 0;                        // optimistic: accepted |prediction - sample|
  SyncMethod method = SyncMethod::sequential;  // what `kausal run` does without --method
  std::optional<MasterSpec> master;            // [master]: the co-simulation master couples
  std::optional<BridgeSpec> bridge;            // [events]: a hybrid model
  std::vector<SubsystemSpec> subsystems;
  std::vector<PartitionSpec> partitions;
  std::vector<CouplingSpec> couplings;
  // Where FMU members are unpacked (<root>/<component>/<member>); empty: a private
  // temporary directory per model. A run sets it to its output directory's fmu/.
  std::string fmu_unpack_root;
  // Absolute: where its relative paths (FMUs, input tables, model libraries) start, the
  // scenario file's directory (a resume's: the first run's, checkpoint.json scenario_dir).
  std::string dir;
  // Every file it reads besides itself (absolute, each once): FMUs, input tables, model
  // libraries. A resume refuses to continue when one changed (checkpoint.json's files).
  std::vector<std::string> files;

  double t0() const { return 0.0; }
  bool crosses_partitions(const CouplingSpec& c) const {
    return subsystems[c.from].partition != subsystems[c.to].partition;
  }
};

// Whether a scenario file describes a partitioned model ([[subsystem]] tables) rather than a
// pendulum chain, and where it says so ("file:line", for messages). Throws InputError if it
// cannot be read or parsed.
struct ScenarioKind {
  bool partitioned = false;
  std::string where;  // the first [[subsystem]], else [model] (line 1 if neither)
};
ScenarioKind scenario_kind(const std::filesystem::path& file);
bool is_partitioned_scenario(const std::filesystem::path& file);
// Reads and checks a partitioned scenario, including that its output fits `limits`; every
// problem throws InputError "file:line: message". Relative FMU paths start at fmu_base
// (empty: the scenario file's directory; a resumed run's copy names the original's).
PartitionedScenario load_partitioned_scenario(const std::filesystem::path& file,
                                              const ScenarioLimits& limits = {},
                                              const std::filesystem::path& fmu_base = {});
// The same from text (tests, the fuzzer); `file` names it in messages.
PartitionedScenario parse_partitioned_scenario(const std::string& text, const std::string& file,
                                               const ScenarioLimits& limits = {},
                                               const std::filesystem::path& fmu_base = {});

// The model one partition integrates: its members, couplings inside it direct, constants
// set; inputs from other partitions are left open, in the order of partition_inputs().
std::unique_ptr<CompositeModel> build_partition_model(const PartitionedScenario& s,
                                                      std::size_t partition);
// What that model is built from (for a System in another process).
CompositeRecipe partition_recipe(const PartitionedScenario& s, std::size_t partition);
// The first subsystem that steps itself (a co-simulation FMU, a sampled controller), or
// empty.
std::string first_stepping_itself(const PartitionedScenario& s);
// Every subsystem as one model with every coupling direct (the monolithic reference), its
// states partition by partition in scenario order. InputError if a subsystem steps itself.
std::unique_ptr<CompositeModel> build_monolithic_model(const PartitionedScenario& s);
// Each partition's states within the monolithic model.
std::vector<StateBlock> partition_blocks(const PartitionedScenario& s);

// The couplings that feed a partition from other partitions, in the order of its open
// inputs (index i of the result drives the partition model's input i).
std::vector<std::size_t> partition_inputs(const PartitionedScenario& s, std::size_t partition);

}  // namespace kausal
