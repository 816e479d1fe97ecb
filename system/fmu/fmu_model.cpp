#include "system/fmu/fmu_model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>

#include <unistd.h>

#include "common/errors.hpp"
#include "system/fmu/fmu_archive.hpp"
#include "system/fmu/fmu_error.hpp"
#include "system/fmu/fmu_instance.hpp"
#include "system/fmu/fmu_library.hpp"

namespace kausal {
namespace fs = std::filesystem;
using fmu::Causality;
using fmu::FmuKind;
using fmu::ValueType;
using fmu::Variability;

namespace {

constexpr double no_time_event = std::numeric_limits<double>::infinity();
// A String start value's length at most (they configure an FMU; they are not data).
constexpr std::size_t max_text_bytes = 4096;
// An event iteration that needs more rounds than this does not converge.
constexpr int max_event_rounds = 1000;

std::span<const double> in_span(VectorView v) {
  return {v.data(), static_cast<std::size_t>(v.size())};
}
std::span<double> out_span(VectorOut v) {
  return {v.data(), static_cast<std::size_t>(v.size())};
}

bool depends_on_an_input(const fmu::ModelDescription& md, const fmu::Unknown& output) {
  bool has_inputs = false;
  for (const auto& v : md.variables) has_inputs |= v.causality == Causality::input;
  if (!output.dependencies) return has_inputs;
  for (std::size_t d : *output.dependencies)
    if (md.variables.at(d).causality == Causality::input) return true;
  return false;
}

// Variables of mixed types, read and written as doubles: one batched call per type.
class TypedValues {
 public:
  TypedValues() = default;
  TypedValues(const fmu::ModelDescription& md, const std::vector<std::size_t>& variables) {
    for (std::size_t k = 0; k < variables.size(); ++k) {
      const fmu::Variable& v = md.variables[variables[k]];
      Group& g = v.type == ValueType::real      ? real_
                 : v.type == ValueType::boolean ? boolean_
                                                : integer_;
      g.refs.push_back(v.value_reference);
      g.at.push_back(k);
    }
  }
  void read(fmu::FmuInstance& fmu, std::span<double> out) const {
    if (!real_.refs.empty()) {
      std::vector<double> v(real_.refs.size());
      fmu.get_real(real_.refs, v);
      scatter(real_, v, out);
    }
    if (!integer_.refs.empty()) {
      std::vector<std::int64_t> v(integer_.refs.size());
      fmu.get_integer(integer_.refs, v);
      scatter(integer_, v, out);
    }
    if (!boolean_.refs.empty()) {
      const std::size_t n = boolean_.refs.size();
      const auto v = std::make_unique<bool[]>(n);  // (std::vector<bool> has no bools to span)
      fmu.get_boolean(boolean_.refs, std::span<bool>(v.get(), n));
      for (std::size_t k = 0; k < n; ++k) out[boolean_.at[k]] = v[k] ? 1.0 : 0.0;
    }
  }
  void write(fmu::FmuInstance& fmu, std::span<const double> in) const {
    if (!real_.refs.empty()) fmu.set_real(real_.refs, gather<double>(real_, in));
    if (!integer_.refs.empty()) fmu.set_integer(integer_.refs, gather<std::int64_t>(integer_, in));
    if (!boolean_.refs.empty()) {
      const std::size_t n = boolean_.refs.size();
      const auto v = std::make_unique<bool[]>(n);
      for (std::size_t k = 0; k < n; ++k) v[k] = in[boolean_.at[k]] != 0;
      fmu.set_boolean(boolean_.refs, std::span<const bool>(v.get(), n));
    }
  }

 private:
  struct Group {
    std::vector<unsigned> refs;
    std::vector<std::size_t> at;  // position in the caller's values
  };
  template <typename T>
  static void scatter(const Group& g, const std::vector<T>& v, std::span<double> out) {
    for (std::size_t k = 0; k < v.size(); ++k) out[g.at[k]] = static_cast<double>(v[k]);
  }
  // Integers arrive as doubles (the coupling's values): rounded to the nearest, clamped to
  // what an int64 holds (FmuInstance clamps again to the variable's own type).
  template <typename T>
  static std::vector<T> gather(const Group& g, std::span<const double> in) {
    std::vector<T> v;
    for (std::size_t k : g.at) {
      const double x = in[k];
      if constexpr (std::is_same_v<T, double>)
        v.push_back(x);
      else
        v.push_back(static_cast<T>(
            std::clamp(std::nearbyint(x), -9223372036854775808.0, 9223372036854774784.0)));
    }
    return v;
  }
  Group real_, integer_, boolean_;
};

std::string fmu_name(const std::string& archive) {
  return fs::path(archive).filename().string();
}

// A private directory for an FMU nobody asked to keep unpacked.
fs::path temporary_directory() {
  std::string pattern = (fs::temp_directory_path() / "kausal-fmu-XXXXXX").string();
  if (!::mkdtemp(pattern.data()))
    throw InputError("cannot create a directory to unpack an FMU in " +
                     fs::temp_directory_path().string() + ": " + std::strerror(errno));
  return pattern;
}

// Where an FMU is unpacked: a temporary directory of its own, removed with the model (also
// when the model is refused half-built: a refused FMU over the wire left one directory per
// attempt), or a directory of the run's, which stays.
class UnpackDirectory {
 public:
  UnpackDirectory() = default;
  ~UnpackDirectory() {
    std::error_code ignored;
    if (temporary_) fs::remove_all(path_, ignored);
  }
  UnpackDirectory(const UnpackDirectory&) = delete;
  UnpackDirectory& operator=(const UnpackDirectory&) = delete;
  void make_temporary() {
    path_ = temporary_directory();
    temporary_ = true;
  }
  void use(fs::path kept) { path_ = std::move(kept); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  bool temporary_ = false;
};

// Unpacks once per directory: the monitor and a System of the same run load the same
// unpacked files, and a binary another process has mapped is never rewritten. A process that
// loses the race to the rename uses the winner's files.
void unpack_once(const fs::path& archive, const fs::path& dir) {
  if (fs::exists(dir / "modelDescription.xml")) return;
  const fs::path part = dir.string() + ".part-" + std::to_string(::getpid());
  fmu::unpack_fmu(archive, part);
  std::error_code lost;
  fs::rename(part, dir, lost);
  if (lost) fs::remove_all(part, lost);
  if (!fs::exists(dir / "modelDescription.xml"))
    throw InputError(archive.string() + ": could not unpack it into " + dir.string());
}

class FmuModel final : public Model {
 public:
  FmuModel(const std::string& component, const MemberRecipe& member);
  ~FmuModel() override;

  const Signature& signature() const override { return ports_.signature; }
  Vector initial_state() const override { return x0_; }
  void derivative(double t, VectorView x, VectorView u, VectorOut dx) const override;
  void output(double t, VectorView x, VectorOut y) const override;
  bool has_jacobian() const override { return directional_; }
  void jacobian(double t, VectorView x, VectorView u, MatrixOut J) const override;
  // Model exchange: the FMU's indicators, then one for its next time event.
  std::size_t indicator_count() const override {
    return ports_.steps_itself ? 0 : md_.event_indicators + 1;
  }
  void indicators(double t, VectorView x, VectorView u, VectorOut g) const override;
  void on_crossing(std::size_t indicator, double t, VectorOut x) const override;
  // Model exchange with continuous states, unless it says completedIntegratorStepNotNeeded
  // (FMI 3.0: unless needsCompletedIntegratorStep); one without them hears of its steps'
  // ends inside step().
  bool completes_steps() const override { return completion_needed() && !ports_.steps_itself; }
  void completed_step(double t, VectorOut x) const override;
  InternalState internal_state() const override { return internal_; }
  std::string unrestorable_reason() const override { return unrestorable_; }
  Bytes save_internal() const override;
  void restore_internal(std::span<const std::uint8_t> bytes) const override;
  bool steps_itself() const override { return ports_.steps_itself; }
  void step(double t, double h, VectorView u, VectorOut x) const override;

 private:
  bool co_simulation() const { return ports_.kind == FmuKind::co_simulation; }
  bool completion_needed() const {
    return !co_simulation() && !interface_->completed_integrator_step_not_needed;
  }
  // fmi2CompletedIntegratorStep at t, in continuous-time mode: a step event it asks for is
  // an event iteration there (returns whether one ran), and an end it asks for ends the
  // simulation at t.
  bool complete_integrator_step(fmu::FmuInstance& fmu, double t) const;
  std::unique_ptr<fmu::FmuInstance> instantiate(const std::string& name) const;
  // Start values, initialisation and (model exchange) the first event iteration.
  void initialise(fmu::FmuInstance& fmu) const;
  void event_iteration(fmu::FmuInstance& fmu, bool enter) const;
  void set_point(double t, VectorView x) const;
  void step_co_simulation(double t, double h, VectorView u) const;
  void step_events(fmu::FmuInstance& fmu, double t, double h, VectorView u) const;
  ModelError asked_to_end(double t) const;
  void refuse_after_end(double t) const;
  // Can its state be saved and restored? Checked on an instance of its own (a failed check
  // leaves an instance in no known state): step, save, step, restore, step again, compare.
  void check_restore();
  std::string restore_problem(fmu::FmuInstance& fmu) const;
  // Runs FMU calls, turning a failed call into a ModelError naming the member.
  template <typename Call>
  void calling(Call&& call) const;

  std::string member_;
  std::string where_;  // "subsystem 'ball' (ball.fmu)"
  fmu::ModelDescription md_;
  FmuPorts ports_;
  const fmu::KindInterface* interface_ = nullptr;
  Parameters starts_;
  std::vector<std::pair<std::string, std::string>> texts_;  // String start values
  UnpackDirectory unpacked_;  // before the library and instance: it outlives them
  std::shared_ptr<const fmu::FmuLibrary> library_;
  std::unique_ptr<fmu::FmuInstance> instance_;
  TypedValues inputs_, outputs_;
  std::vector<unsigned> state_refs_, derivative_refs_;
  bool directional_ = false;
  Vector x0_;
  InternalState internal_ = InternalState::unrestorable;
  std::string unrestorable_;
  mutable double next_event_ = no_time_event;
  // Where the FMU ended the simulation (terminateSimulation, fmi2Terminated) after completing
  // the step or event there: that time stands, nothing after it is computed.
  mutable double ended_at_ = std::numeric_limits<double>::infinity();
};

FmuModel::FmuModel(const std::string& component, const MemberRecipe& member)
    : member_(member.name),
      where_("subsystem '" + member.name + "' (" + fmu_name(member.fmu.archive) + ")"),
      md_(fmu::read_model_description(member.fmu.archive)),
      ports_(fmu_ports(
          md_, member.fmu.co_simulation ? FmuKind::co_simulation : FmuKind::model_exchange)),
      interface_(&md_.interface_of(ports_.kind)),
      starts_(member.parameters),
      texts_(member.fmu.strings) {
  for (const auto& [name, value] : starts_) {
    const std::string problem = start_value_problem(md_, name);
    if (!problem.empty()) throw ModelError(component, where_ + ": " + problem);
    if (!std::isfinite(value))
      throw ModelError(component, where_ + ": start value of '" + name + "' is not finite");
  }
  if (texts_.size() > md_.variables.size())
    throw ModelError(component, where_ + ": " + std::to_string(texts_.size()) +
                                    " String start values for an FMU of " +
                                    std::to_string(md_.variables.size()) + " variables");
  for (const auto& [name, text] : texts_) {
    const std::string problem = start_value_problem(md_, name, true);
    if (!problem.empty()) throw ModelError(component, where_ + ": " + problem);
    if (text.size() > max_text_bytes || text.find('\0') != std::string::npos)
      throw ModelError(component, where_ + ": the text of '" + name + "' is longer than " +
                                      std::to_string(max_text_bytes) + " bytes or holds a NUL");
  }
  if (member.fmu.unpack_root.empty()) {
    unpacked_.make_temporary();
    fmu::unpack_fmu(member.fmu.archive, unpacked_.path());
  } else {
    unpacked_.use(fs::path(member.fmu.unpack_root) / component / member.name);
    fs::create_directories(unpacked_.path().parent_path());
    unpack_once(member.fmu.archive, unpacked_.path());
  }
  library_ = std::make_shared<const fmu::FmuLibrary>(unpacked_.path(), md_, ports_.kind,
                                                     fmu_name(member.fmu.archive));
  inputs_ = TypedValues(md_, ports_.inputs);
  outputs_ = TypedValues(md_, ports_.outputs);
  for (std::size_t s : ports_.states) state_refs_.push_back(md_.variables[s].value_reference);
  for (std::size_t d : ports_.derivatives)
    derivative_refs_.push_back(md_.variables[d].value_reference);
  directional_ = !ports_.steps_itself && interface_->provides_directional_derivative;
  try {
    check_restore();
    instance_ = instantiate(component + "." + member.name);
    initialise(*instance_);
    x0_.resize(static_cast<Eigen::Index>(ports_.signature.states.size()));
    if (ports_.steps_itself)
      outputs_.read(*instance_, out_span(x0_));
    else
      instance_->get_continuous_states(out_span(x0_));
  } catch (const fmu::FmuCallError& e) {
    throw ModelError(component, where_ + ": " + e.what());
  }
}

// The instance, then the library, then (unpacked_'s own destructor) the unpacked files.
FmuModel::~FmuModel() = default;

// The FMU's log lines go to the component's log (its stderr), named by member.
std::unique_ptr<fmu::FmuInstance> FmuModel::instantiate(const std::string& name) const {
  const std::string who = where_;
  return std::make_unique<fmu::FmuInstance>(
      library_, md_, ports_.kind, name, unpacked_.path(), [who](const fmu::LogLine& line) {
        std::cerr << who << ": " << fmu::to_string(line) << "\n";
      });
}

void FmuModel::initialise(fmu::FmuInstance& fmu) const {
  fmu.setup_experiment(0.0, std::nullopt, std::nullopt);
  for (const auto& [name, value] : starts_) {
    const fmu::Variable& v = *md_.find(name);
    const std::vector<unsigned> ref{v.value_reference};
    if (v.type == ValueType::real)
      fmu.set_real(ref, std::vector<double>{value});
    else if (v.type == ValueType::boolean) {
      const bool on[] = {value != 0};
      fmu.set_boolean(ref, on);
    } else
      fmu.set_integer(ref, std::vector<std::int64_t>{static_cast<std::int64_t>(value)});
  }
  for (const auto& [name, text] : texts_) {
    const unsigned ref[] = {md_.find(name)->value_reference};
    const std::string values[] = {text};
    fmu.set_string(ref, values);
  }
  fmu.enter_initialization_mode();
  fmu.exit_initialization_mode();
  if (!co_simulation()) event_iteration(fmu, false);
}

// Discrete states settle (newDiscreteStatesNeeded), then back to continuous time; the FMU
// says when its next time event is.
void FmuModel::event_iteration(fmu::FmuInstance& fmu, bool enter) const {
  if (enter) fmu.enter_event_mode();
  fmu::FmuInstance::EventUpdate info;
  info.again = true;
  for (int round = 0; info.again; ++round) {
    if (round == max_event_rounds)
      throw ModelError("fmu", where_ + ": the event iteration did not settle in " +
                                  std::to_string(max_event_rounds) +
                                  " rounds at t = " + std::to_string(fmu.time()));
    info = fmu.update_discrete_states();
  }
  // The state at this time stands (its outputs can still be read); the next step is refused.
  if (info.terminate) ended_at_ = std::min(ended_at_, fmu.time());
  fmu.enter_continuous_time_mode();
  next_event_ = info.next_event_time.value_or(no_time_event);
}

template <typename Call>
void FmuModel::calling(Call&& call) const {
  try {
    call();
  } catch (const fmu::FmuCallError& e) {
    throw ModelError("fmu", where_ + ": " + e.what());
  }
}

void FmuModel::set_point(double t, VectorView x) const {
  instance_->set_time(t);
  instance_->set_continuous_states(in_span(x));
}

void FmuModel::derivative(double t, VectorView x, VectorView u, VectorOut dx) const {
  if (ports_.steps_itself) throw ModelError("fmu", where_ + " steps itself: it has no derivatives");
  refuse_after_end(t);
  calling([&] {
    set_point(t, x);
    inputs_.write(*instance_, in_span(u));
    instance_->get_derivatives(out_span(dx));
  });
}

void FmuModel::output(double t, VectorView x, VectorOut y) const {
  if (ports_.steps_itself) {
    y = x;  // its state is its outputs
    return;
  }
  calling([&] {
    set_point(t, x);
    outputs_.read(*instance_, out_span(y));
  });
}

// Column j of ∂f/∂x is the directional derivative along state j.
void FmuModel::jacobian(double t, VectorView x, VectorView u, MatrixOut J) const {
  if (!directional_) return Model::jacobian(t, x, u, J);
  calling([&] {
    set_point(t, x);
    inputs_.write(*instance_, in_span(u));
    const std::vector<double> seed{1.0};
    Vector column(J.rows());
    for (Eigen::Index j = 0; j < J.cols(); ++j) {
      instance_->directional_derivative(
          derivative_refs_, std::span(state_refs_).subspan(static_cast<std::size_t>(j), 1), seed,
          out_span(column));
      J.col(j) = column;
    }
  });
}

void FmuModel::indicators(double t, VectorView x, VectorView u, VectorOut g) const {
  if (ports_.steps_itself) return;
  calling([&] {
    set_point(t, x);
    inputs_.write(*instance_, in_span(u));
    const auto n = static_cast<Eigen::Index>(md_.event_indicators);
    if (n > 0) instance_->get_event_indicators(out_span(g.head(n)));
    // Positive until the time event is due, then ≤ 0: its crossing is located to the step
    // like a state event's.
    g[n] = std::isfinite(next_event_) ? next_event_ - t : 1.0;
  });
}

// kausal may restore an earlier state of the FMU (rollback, --resume): never "no set state
// prior to this point".
bool FmuModel::complete_integrator_step(fmu::FmuInstance& fmu, double t) const {
  const fmu::FmuInstance::StepEnd end = fmu.completed_integrator_step(false);
  if (end.terminate) ended_at_ = std::min(ended_at_, t);
  if (end.enter_event_mode) event_iteration(fmu, true);
  return end.enter_event_mode;
}

void FmuModel::completed_step(double t, VectorOut x) const {
  calling([&] {
    set_point(t, x);
    if (complete_integrator_step(*instance_, t)) instance_->get_continuous_states(out_span(x));
  });
}

// One event iteration serves every indicator that crossed at t: a second call at the same t
// finds nothing left to do.
void FmuModel::on_crossing(std::size_t, double t, VectorOut x) const {
  calling([&] {
    set_point(t, x);
    event_iteration(*instance_, true);
    instance_->get_continuous_states(out_span(x));
  });
}

void FmuModel::step(double t, double h, VectorView u, VectorOut x) const {
  if (!ports_.steps_itself) return Model::step(t, h, u, x);
  refuse_after_end(t);
  calling([&] {
    if (co_simulation())
      step_co_simulation(t, h, u);
    else
      step_events(*instance_, t, h, u);
    outputs_.read(*instance_, out_span(x));
  });
}

// A co-simulation FMU that wants to end the simulation says so (FMI 2.0: refusing the step
// with fmi2Terminated; FMI 3.0: terminateSimulation) and how far it got: a step it completed
// stands, one it did not is refused.
void FmuModel::step_co_simulation(double t, double h, VectorView u) const {
  inputs_.write(*instance_, in_span(u));
  const std::optional<double> ended = instance_->do_step(t, h);
  if (!ended) return;
  const double end = t + h;
  if (*ended < end - 1e-9 * (1.0 + std::abs(end))) throw asked_to_end(*ended);
  ended_at_ = end;
}

// A model-exchange FMU without continuous states from t to t + h: its inputs take effect at
// t (an event iteration, so that discrete inputs may change its discrete states), then every
// time event due by t + h at its own time, one at t + h included (as a co-simulation FMU's
// step does it: the outputs at t + h are those after it), and a state event at t + h when
// an indicator changed sign over the step.
void FmuModel::step_events(fmu::FmuInstance& fmu, double t, double h, VectorView u) const {
  const double end = t + h;
  fmu.set_time(t);
  if (!ports_.inputs.empty()) {
    fmu.enter_event_mode();
    inputs_.write(fmu, in_span(u));
    event_iteration(fmu, false);
  }
  std::vector<double> before(md_.event_indicators);
  if (!before.empty()) fmu.get_event_indicators(before);
  // An event a rounding error past the step's end is at its end.
  const double reach = end + 1e-12 * (1.0 + std::abs(end));
  while (next_event_ <= reach && ended_at_ > end) {
    const double at = std::clamp(next_event_, t, end);
    fmu.set_time(at);
    event_iteration(fmu, true);
    if (next_event_ <= at)
      throw ModelError("fmu", where_ + ": after its time event at t = " + std::to_string(at) +
                                  " the next one is not later (" + std::to_string(next_event_) +
                                  ")");
  }
  if (ended_at_ < end - 1e-9 * (1.0 + std::abs(end))) throw asked_to_end(ended_at_);
  fmu.set_time(end);
  // Its state events (indicators of time and inputs) at the step's end, as a model with
  // continuous states has them (docs/model.md §2).
  if (!before.empty() && ended_at_ > end) {
    std::vector<double> after(before.size());
    fmu.get_event_indicators(after);
    for (std::size_t k = 0; k < before.size(); ++k)
      if ((before[k] > 0) != (after[k] > 0)) {
        event_iteration(fmu, true);
        break;
      }
  }
  if (completion_needed() && ended_at_ > end) complete_integrator_step(fmu, end);
}

void FmuModel::refuse_after_end(double t) const {
  if (t >= ended_at_) throw asked_to_end(ended_at_);
}

// kausal runs every partition to the scenario's end; an FMU that ends earlier ends the run
// there, its committed steps kept (the step that reached its end among them).
ModelError FmuModel::asked_to_end(double t) const {
  char at[32];
  std::snprintf(at, sizeof at, "%.17g", t);
  return ModelError("fmu", where_ + ": the FMU ended the simulation at t = " + at +
                               " (terminateSimulation); kausal runs every partition to the "
                               "scenario's t_end: set run.t_end at or before " +
                               at);
}

// The next time event (8 bytes) and the FMU's serialized state.
Bytes FmuModel::save_internal() const {
  if (internal_ != InternalState::restorable) return Model::save_internal();
  Bytes bytes(8);
  const auto next = std::bit_cast<std::uint64_t>(next_event_);
  for (int b = 0; b < 8; ++b)
    bytes[static_cast<std::size_t>(b)] = static_cast<std::uint8_t>(next >> (8 * b));
  calling([&] {
    const Bytes state = instance_->save_state();
    bytes.insert(bytes.end(), state.begin(), state.end());
  });
  return bytes;
}

void FmuModel::restore_internal(std::span<const std::uint8_t> bytes) const {
  if (internal_ != InternalState::restorable) return Model::restore_internal(bytes);
  if (bytes.size() < 8)
    throw ModelError("fmu", where_ + ": internal state of " + std::to_string(bytes.size()) +
                                " bytes is too short");
  std::uint64_t next = 0;
  for (int b = 0; b < 8; ++b) next |= std::uint64_t{bytes[static_cast<std::size_t>(b)]} << (8 * b);
  calling([&] { instance_->restore_state(bytes.subspan(8)); });
  next_event_ = std::bit_cast<double>(next);
  // A state from before the FMU's end (a rollback, a located crossing's candidate step).
  ended_at_ = std::numeric_limits<double>::infinity();
}

void FmuModel::check_restore() {
  if (!interface_->can_get_and_set_fmu_state || !interface_->can_serialize_fmu_state) {
    unrestorable_ = where_ +
                    " cannot save and restore its state (canGetAndSetFMUstate and "
                    "canSerializeFMUstate are not both true in its description)";
    return;
  }
  // An FMU that may exist once per process is not instantiated twice for the check.
  if (interface_->can_be_instantiated_only_once_per_process) {
    internal_ = InternalState::restorable;
    return;
  }
  // An FMU that cannot be instantiated or initialised (a wrong GUID, a failing start) says
  // so as itself, not as a failed check of its state.
  auto probe = instantiate(member_ + ".restore-check");
  initialise(*probe);
  const std::string problem = [&] {
    try {
      return restore_problem(*probe);
    } catch (const Error& e) {
      return std::string(e.what());
    }
  }();
  if (problem.empty()) {
    internal_ = InternalState::restorable;
    return;
  }
  unrestorable_ = where_ + " failed the check of its saved state (" + problem + ")";
  std::cerr << unrestorable_ << "\n";
}

// A model that steps itself (co-simulation, or model exchange without continuous states):
// step, save, step, restore, the same step again: the outputs must come out with the same
// bits. Model exchange: move time and state on, save, move on again, restore:
// the continuous states must be the saved ones.
std::string FmuModel::restore_problem(fmu::FmuInstance& fmu) const {
  const std::size_t n = ports_.signature.states.size();
  std::vector<double> first(n), again(n);
  if (ports_.steps_itself) {
    const double h = md_.default_experiment.step_size.value_or(1e-3);
    const Vector none = Vector::Zero(static_cast<Eigen::Index>(ports_.inputs.size()));
    const auto step = [&](double t) {
      if (co_simulation())
        fmu.do_step(t, h);
      else
        step_events(fmu, t, h, none);
    };
    step(0.0);
    const Bytes saved = fmu.save_state();
    const double next = next_event_;
    step(h);
    outputs_.read(fmu, first);
    fmu.restore_state(saved);
    next_event_ = next;
    step(h);
    outputs_.read(fmu, again);
  } else {
    fmu.get_continuous_states(first);
    for (double& v : first) v = v + 0.5 + 0.25 * std::abs(v);
    fmu.set_time(1e-3);
    fmu.set_continuous_states(first);
    const Bytes saved = fmu.save_state();
    std::vector<double> moved = first;
    for (double& v : moved) v = 2 * v + 1;
    fmu.set_time(2e-3);
    fmu.set_continuous_states(moved);
    fmu.restore_state(saved);
    fmu.get_continuous_states(again);
  }
  for (std::size_t k = 0; k < n; ++k)
    if (std::bit_cast<std::uint64_t>(first[k]) != std::bit_cast<std::uint64_t>(again[k]))
      return std::string("after ") +
             (md_.version == fmu::FmiVersion::v3 ? "fmi3SetFMUState" : "fmi2SetFMUstate") + ", '" +
             ports_.signature.states[k] + "' is " + std::to_string(again[k]) + " instead of " +
             std::to_string(first[k]);
  return {};
}

}  // namespace

fmu::FmuKind default_fmu_kind(const fmu::ModelDescription& md) {
  return md.model_exchange ? FmuKind::model_exchange : FmuKind::co_simulation;
}

FmuPorts fmu_ports(const fmu::ModelDescription& md, fmu::FmuKind kind) {
  FmuPorts p;
  p.kind = kind;
  md.interface_of(kind);  // InputError if the FMU lacks it
  const std::string where = md.file + ": ";
  for (const fmu::Unknown& d : md.derivatives) {
    p.derivatives.push_back(d.variable);
    p.states.push_back(*md.variables[d.variable].derivative_of);
  }
  const bool continuous = kind == FmuKind::model_exchange && !p.states.empty();
  for (std::size_t k = 0; k < md.variables.size(); ++k) {
    const fmu::Variable& v = md.variables[k];
    if (v.causality != Causality::input && v.causality != Causality::output) continue;
    // kausal couples numbers (an array's elements one by one): a String or Binary port stays
    // unconnected (its start value, or one the scenario gives a String, is what the FMU sees).
    if (v.type == ValueType::string || v.type == ValueType::binary) continue;
    if (v.causality == Causality::input) {
      if (continuous && (v.type != ValueType::real || v.variability != Variability::continuous))
        throw InputError(where + "line " + std::to_string(v.line) + ": input '" + v.name +
                         "' is discrete: kausal sets model-exchange inputs in continuous time; "
                         "import the FMU as co-simulation (kind = \"co-simulation\")");
      p.inputs.push_back(k);
      p.signature.inputs.push_back(v.name);
    } else {
      p.outputs.push_back(k);
      p.signature.outputs.push_back(v.name);
    }
  }
  if (!continuous) {
    if (p.outputs.empty())
      throw InputError(where +
                       (kind == FmuKind::co_simulation
                            ? "a co-simulation FMU"
                            : "a model-exchange FMU without continuous states") +
                       " without outputs shows kausal nothing of its state: it needs at least "
                       "one output");
    p.signature.states = p.signature.outputs;
    p.steps_itself = true;
    return p;
  }
  for (std::size_t s : p.states) p.signature.states.push_back(md.variables[s].name);
  for (const fmu::Unknown& y : md.outputs)
    if (depends_on_an_input(md, y))
      throw InputError(where + "line " + std::to_string(y.line) + ": output '" +
                       md.variables[y.variable].name +
                       "' depends directly on an input, which kausal's model exchange cannot "
                       "evaluate (outputs come from the state); import the FMU as co-simulation");
  return p;
}

std::string start_value_problem(const fmu::ModelDescription& md, const std::string& name,
                                bool text) {
  const fmu::Variable* v = md.find(name);
  if (const fmu::ArrayVariable* a = md.find_array(name); a && !v)
    return "'" + name + "' is an array: give its elements their values one by one ('" +
           md.variables[a->first].name + "' … '" + md.variables[a->first + a->size - 1].name + "')";
  if (!v) return "'" + name + "' is not a variable of the FMU";
  if (v->text_array) return "'" + name + "' is a String or Binary array: kausal gives it no value";
  if (v->type == ValueType::binary) return "'" + name + "' is a Binary: kausal gives it no value";
  if (v->structural)
    return "'" + name +
           "' is a structural parameter (it may size the FMU's arrays): kausal keeps its start "
           "value";
  if (!text && v->type == ValueType::string)
    return "'" + name + "' is a String: give it text, in quotes";
  if (text && v->type != ValueType::string)
    return "'" + name + "' is a " + fmu::to_string(v->type) + ": give it a number";
  if (v->variability == Variability::constant) return "'" + name + "' is a constant";
  const fmu::Initial initial = fmu::effective_initial(*v);
  if (v->causality == Causality::parameter || v->causality == Causality::input ||
      initial == fmu::Initial::exact || initial == fmu::Initial::approx)
    return {};
  return "'" + name + "' (" + fmu::to_string(v->causality) +
         ") is calculated by the FMU: it takes no start value";
}

std::string range_problem(const fmu::ModelDescription& md, const std::string& name, double value) {
  const fmu::Variable* v = md.find(name);
  if (!v || ((!v->min || value >= *v->min) && (!v->max || value <= *v->max))) return {};
  const auto number = [](double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", x);
    return std::string(text);
  };
  return "'" + name + "' = " + number(value) + " is outside the range the FMU declares for it, [" +
         (v->min ? number(*v->min) : "-inf") + ", " + (v->max ? number(*v->max) : "inf") +
         "] (modelDescription.xml line " + std::to_string(v->line) +
         "; check_ranges = false gives it anyway)";
}

std::unique_ptr<Model> make_fmu_model(const std::string& component, const MemberRecipe& member) {
  if (member.fmu.archive.empty())
    throw ModelError(component, "subsystem '" + member.name + "': model \"fmu\" needs an fmu file");
  return std::make_unique<FmuModel>(component, member);
}

}  // namespace kausal
