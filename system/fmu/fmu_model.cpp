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
#include "system/fmu/clock_schedule.hpp"
#include "system/fmu/fmu_archive.hpp"
#include "system/fmu/fmu_error.hpp"
#include "system/fmu/fmu_instance.hpp"
#include "system/fmu/fmu_library.hpp"
#include "system/fmu/text_lanes.hpp"

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
// A co-simulation step with event mode is cut at every Clock tick and event within it.
constexpr int max_events_per_step = 100000;

// A time this close before a step's end is its end: where an FMU ends the simulation.
double near_end(double end) {
  return end - 1e-9 * (1.0 + std::abs(end));
}

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
  // Value k of a call is variable variables[k], at position at[k] of the caller's values (k
  // itself without `at`).
  // `where` names the FMU in the message about a String that cannot be carried.
  TypedValues(const fmu::ModelDescription& md, const std::vector<std::size_t>& variables,
              const std::vector<std::size_t>& at = {}, std::string where = {})
      : where_(std::move(where)) {
    for (std::size_t k = 0; k < variables.size(); ++k) {
      const fmu::Variable& v = md.variables[variables[k]];
      if (v.type == ValueType::string) {  // a coupled String: text_lanes positions from at[k]
        if (k > 0 && variables[k - 1] == variables[k]) continue;
        text_.refs.push_back(v.value_reference);
        text_.at.push_back(at.empty() ? k : at[k]);
        text_names_.push_back(v.name);
        continue;
      }
      Group& g = v.type == ValueType::real      ? real_
                 : v.type == ValueType::boolean ? boolean_
                                                : integer_;
      g.refs.push_back(v.value_reference);
      g.at.push_back(at.empty() ? k : at[k]);
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
    if (!text_.refs.empty()) {
      const std::vector<std::string> texts = fmu.get_string(text_.refs);
      for (std::size_t k = 0; k < texts.size(); ++k) {
        const std::string problem = pack_text(texts[k], out.subspan(text_.at[k], text_lanes));
        if (!problem.empty())
          throw ModelError("fmu", where_ + ": String output '" + text_names_[k] + "': " + problem);
      }
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
    if (!text_.refs.empty()) {
      std::vector<std::string> texts;
      for (std::size_t k = 0; k < text_.refs.size(); ++k) {
        UnpackedText text = unpack_text(in.subspan(text_.at[k], text_lanes));
        if (!text.problem.empty())
          throw ModelError("fmu",
                           where_ + ": String input '" + text_names_[k] + "': " + text.problem);
        texts.push_back(std::move(text.text));
      }
      fmu.set_string(text_.refs, texts);
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
  Group real_, integer_, boolean_, text_;
  std::vector<std::string> text_names_;
  std::string where_;
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
  void step(double t, double h, VectorView u, MatrixView du, VectorOut x) const override;

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
  // In event mode at fmu.time() (entered first when `enter`): the Clocks due tick (their
  // clocked inputs take u, their clocked outputs are read), discrete states settle
  // (newDiscreteStatesNeeded), the Clocks' intervals are asked, then back to continuous time
  // (model exchange) or step mode (co-simulation); the FMU says when its next time event is.
  void event_iteration(fmu::FmuInstance& fmu, bool enter, std::span<const double> u = {}) const;
  void set_point(double t, VectorView x) const;
  void find_smooth_inputs();
  void step_co_simulation(fmu::FmuInstance& fmu, double t, double h, VectorView u,
                          MatrixView du) const;
  // The inputs over a co-simulation step beyond their values at t (Model::step's du): FMI
  // 2.0's input derivatives where the FMU interpolates its inputs, and FMI 3.0's intermediate
  // inputs, set at each intermediate time the FMU asks for them while an IntermediateInputs
  // lives.
  void set_input_derivatives(fmu::FmuInstance& fmu, MatrixView du) const;
  class IntermediateInputs;
  void step_with_events(fmu::FmuInstance& fmu, double t, double h, VectorView u) const;
  void step_events(fmu::FmuInstance& fmu, double t, double h, VectorView u) const;
  // ---- FMI 3.0 Clocks (docs/fmi.md, "Clocks") ----
  // In initialization mode: the intervals the description gives are set, the others asked,
  // and the first ticks scheduled.
  void start_clocks(fmu::FmuInstance& fmu) const;
  void tick(fmu::FmuInstance& fmu, const std::vector<std::size_t>& due,
            std::span<const double> u) const;
  void ask_intervals(fmu::FmuInstance& fmu, double t, const std::vector<std::size_t>& due) const;
  std::vector<unsigned> clock_refs(const std::vector<std::size_t>& clocks) const;
  // The next time event or Clock tick (+inf if none).
  double next_event() const { return std::min(next_event_, schedule_.next()); }
  // The outputs: the FMU's, clocked ones as read at their Clocks' last tick.
  void read_outputs(fmu::FmuInstance& fmu, std::span<double> y) const;
  // What kausal keeps of the FMU besides its own state: the next time event, the Clocks'
  // schedule and the clocked outputs held (the last two empty without Clocks).
  Bytes bookkeeping() const;
  void restore_bookkeeping(std::span<const std::uint8_t> bytes) const;
  std::size_t bookkeeping_size() const {
    return 8 + schedule_.size() * fmu::ClockSchedule::bytes_per_clock + 8 * clocked_at_.size();
  }
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
  TypedValues inputs_, outputs_;  // those not clocked
  // The real inputs that take more than their value at a step's start (FMI 2.0: input
  // derivatives; FMI 3.0: intermediate update): their value references and positions among
  // the inputs.
  std::vector<unsigned> smooth_refs_;
  std::vector<std::size_t> smooth_at_;
  // Clocked inputs and outputs: their variables and positions among the ports.
  std::vector<std::size_t> clocked_inputs_, clocked_input_at_, clocked_outputs_, clocked_at_;
  mutable fmu::ClockSchedule schedule_;
  mutable std::vector<double> held_;  // per clocked output (clocked_at_), its last value
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
      ports_(fmu_ports(md_,
                       member.fmu.co_simulation ? FmuKind::co_simulation : FmuKind::model_exchange,
                       member.fmu.coupled_texts)),
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
  // Clocked ports are set and read only while one of their Clocks ticks.
  const auto split = [&](const std::vector<std::size_t>& ports, std::vector<std::size_t>& clocked,
                         std::vector<std::size_t>& clocked_at) {
    std::vector<std::size_t> plain, plain_at;
    for (std::size_t k = 0; k < ports.size(); ++k) {
      auto [into, at] = md_.variables[ports[k]].clocks.empty() ? std::tie(plain, plain_at)
                                                               : std::tie(clocked, clocked_at);
      into.push_back(ports[k]);
      at.push_back(k);
    }
    return TypedValues(md_, plain, plain_at, where_);
  };
  inputs_ = split(ports_.inputs, clocked_inputs_, clocked_input_at_);
  outputs_ = split(ports_.outputs, clocked_outputs_, clocked_at_);
  schedule_ = fmu::ClockSchedule(md_.clocks.size());
  held_.assign(clocked_at_.size(), 0.0);
  for (std::size_t s : ports_.states) state_refs_.push_back(md_.variables[s].value_reference);
  for (std::size_t d : ports_.derivatives)
    derivative_refs_.push_back(md_.variables[d].value_reference);
  directional_ = !ports_.steps_itself && interface_->provides_directional_derivative;
  try {
    check_restore();
    instance_ = instantiate(component + "." + member.name);
    find_smooth_inputs();
    initialise(*instance_);
    x0_.resize(static_cast<Eigen::Index>(ports_.signature.states.size()));
    if (ports_.steps_itself)
      read_outputs(*instance_, out_span(x0_));
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
  start_clocks(fmu);
  fmu.exit_initialization_mode();
  // Model exchange, and co-simulation with event mode, leave initialization in event mode.
  if (!co_simulation() || fmu.event_mode()) event_iteration(fmu, false);
}

void FmuModel::event_iteration(fmu::FmuInstance& fmu, bool enter, std::span<const double> u) const {
  if (enter) fmu.enter_event_mode();
  const double t = fmu.time();
  const std::vector<std::size_t> due = schedule_.due(t);
  if (!due.empty()) tick(fmu, due, u);
  fmu::FmuInstance::EventUpdate info;
  info.again = true;
  for (int round = 0; info.again; ++round) {
    if (round == max_event_rounds)
      throw ModelError("fmu", where_ + ": the event iteration did not settle in " +
                                  std::to_string(max_event_rounds) +
                                  " rounds at t = " + std::to_string(t));
    info = fmu.update_discrete_states();
  }
  // The state at this time stands (its outputs can still be read); the next step is refused.
  if (info.terminate) ended_at_ = std::min(ended_at_, t);
  if (schedule_.size() > 0) ask_intervals(fmu, t, due);
  if (co_simulation())
    fmu.enter_step_mode();
  else
    fmu.enter_continuous_time_mode();
  next_event_ = info.next_event_time.value_or(no_time_event);
}

void FmuModel::start_clocks(fmu::FmuInstance& fmu) const {
  if (md_.clocks.empty()) return;
  using fmu::ClockKind;
  const double t0 = 0.0;
  std::vector<unsigned> given, asked, shifted;
  std::vector<double> given_intervals;
  for (const fmu::Clock& c : md_.clocks) {
    const bool periodic_set = c.kind == ClockKind::fixed || c.kind == ClockKind::tunable;
    if (periodic_set && c.interval) {
      given.push_back(c.value_reference);
      given_intervals.push_back(*c.interval);
    } else if (c.kind != ClockKind::constant) {
      asked.push_back(c.value_reference);
      if (periodic_set) shifted.push_back(c.value_reference);
    }
  }
  calling([&] {
    fmu.set_clock_intervals(given, given_intervals);
    const auto intervals = fmu.clock_intervals(asked);
    const auto shifts = fmu.clock_shifts(shifted);
    std::size_t a = 0, sh = 0;
    for (std::size_t k = 0; k < md_.clocks.size(); ++k) {
      const fmu::Clock& c = md_.clocks[k];
      const bool aperiodic = c.kind == ClockKind::changing || c.kind == ClockKind::countdown;
      if (c.interval && !aperiodic) {
        schedule_.periodic(k, t0 + c.shift.value_or(0.0), *c.interval);
        continue;
      }
      const auto& answer = intervals[a++];
      if (aperiodic) {
        if (answer.qualifier == fmu::FmuInstance::IntervalQualifier::not_yet_known)
          schedule_.stop(k);
        else
          schedule_.once(k, t0 + answer.interval);
        continue;
      }
      if (!(answer.interval > 0))
        throw ModelError("fmu", where_ + ": Clock '" + c.name + "' has interval " +
                                    std::to_string(answer.interval) + " (fmi3GetIntervalDecimal)");
      schedule_.periodic(k, t0 + shifts[sh++], answer.interval);
    }
    // Clocked outputs may be read in initialization mode: their values until the first tick.
    if (!clocked_outputs_.empty())
      TypedValues(md_, clocked_outputs_).read(fmu, std::span<double>(held_));
  });
}

// The Clocks due tick: activated, their clocked inputs set to u, their clocked outputs read.
void FmuModel::tick(fmu::FmuInstance& fmu, const std::vector<std::size_t>& due,
                    std::span<const double> u) const {
  fmu.activate_clocks(clock_refs(due));
  const auto ticks = [&](std::size_t variable) {
    for (std::size_t k : md_.variables[variable].clocks)
      if (std::find(due.begin(), due.end(), k) != due.end()) return true;
    return false;
  };
  std::vector<std::size_t> in, in_at, out, out_at;
  for (std::size_t j = 0; j < clocked_inputs_.size(); ++j)
    if (ticks(clocked_inputs_[j]) && !u.empty()) {
      in.push_back(clocked_inputs_[j]);
      in_at.push_back(clocked_input_at_[j]);
    }
  for (std::size_t j = 0; j < clocked_outputs_.size(); ++j)
    if (ticks(clocked_outputs_[j])) {
      out.push_back(clocked_outputs_[j]);
      out_at.push_back(j);
    }
  if (!in.empty()) TypedValues(md_, in, in_at).write(fmu, u);
  if (!out.empty()) TypedValues(md_, out, out_at).read(fmu, std::span<double>(held_));
  for (std::size_t k : due) schedule_.ticked(k);
}

// After the event iteration at t: the intervals the FMU decides (FMI 3.0 §2.2.9.3): a changing
// Clock's after it ticked, a countdown Clock's at every event, a tunable Clock's whose interval
// the description leaves to the FMU.
void FmuModel::ask_intervals(fmu::FmuInstance& fmu, double t,
                             const std::vector<std::size_t>& due) const {
  using fmu::ClockKind;
  std::vector<std::size_t> asked;
  for (std::size_t k = 0; k < md_.clocks.size(); ++k) {
    const fmu::Clock& c = md_.clocks[k];
    const bool ticked = std::find(due.begin(), due.end(), k) != due.end();
    if ((c.kind == ClockKind::changing && ticked) || c.kind == ClockKind::countdown ||
        (c.kind == ClockKind::tunable && !c.interval))
      asked.push_back(k);
  }
  if (asked.empty()) return;
  const auto intervals = fmu.clock_intervals(clock_refs(asked));
  using Qualifier = fmu::FmuInstance::IntervalQualifier;
  for (std::size_t j = 0; j < asked.size(); ++j) {
    const std::size_t k = asked[j];
    const auto& answer = intervals[j];
    if (md_.clocks[k].kind == ClockKind::tunable) {
      if (answer.qualifier == Qualifier::changed && answer.interval > 0)
        schedule_.periodic(k, t + answer.interval, answer.interval);
    } else if (answer.qualifier == Qualifier::changed) {
      schedule_.once(k, t + answer.interval);
    } else if (answer.qualifier == Qualifier::not_yet_known) {
      schedule_.stop(k);
    }
  }
}

std::vector<unsigned> FmuModel::clock_refs(const std::vector<std::size_t>& clocks) const {
  std::vector<unsigned> refs;
  for (std::size_t k : clocks) refs.push_back(md_.clocks[k].value_reference);
  return refs;
}

void FmuModel::read_outputs(fmu::FmuInstance& fmu, std::span<double> y) const {
  outputs_.read(fmu, y);
  for (std::size_t j = 0; j < clocked_at_.size(); ++j) y[clocked_at_[j]] = held_[j];
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
    read_outputs(*instance_, out_span(y));
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
    // A Clock tick a rounding error past the step's end is at its end (ClockSchedule::due).
    if (const double tick = schedule_.next(); std::isfinite(tick))
      g[n] = std::min(g[n], tick - fmu::ClockSchedule::tolerance(tick) - t);
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

void FmuModel::step(double t, double h, VectorView u, MatrixView du, VectorOut x) const {
  if (!ports_.steps_itself) return Model::step(t, h, u, du, x);
  refuse_after_end(t);
  calling([&] {
    if (co_simulation())
      step_co_simulation(*instance_, t, h, u, du);
    else
      step_events(*instance_, t, h, u);
    read_outputs(*instance_, out_span(x));
  });
}

// Sets the intermediate inputs within the FMU's step from u and du at t, for as long as it
// lives.
class FmuModel::IntermediateInputs {
 public:
  IntermediateInputs(const FmuModel& model, fmu::FmuInstance& fmu, double t, VectorView u,
                     MatrixView du)
      : fmu_(fmu) {
    if (du.cols() == 0 || model.smooth_refs_.empty() || model.md_.version != fmu::FmiVersion::v3)
      return;
    fmu.on_intermediate_update([&model, &fmu, t, u, du](double at) {
      if (!std::isfinite(at)) return;  // the FMU's own bug: its inputs stay as they are
      std::vector<double> values(model.smooth_at_.size());
      for (std::size_t k = 0; k < values.size(); ++k)
        values[k] = input_over_step(u, du, static_cast<Eigen::Index>(model.smooth_at_[k]), at - t);
      fmu.set_real(model.smooth_refs_, values);
    });
  }
  ~IntermediateInputs() { fmu_.on_intermediate_update({}); }
  IntermediateInputs(const IntermediateInputs&) = delete;
  IntermediateInputs& operator=(const IntermediateInputs&) = delete;

 private:
  fmu::FmuInstance& fmu_;
};

// FMI 2.0: order k of input i is du(i, k - 1), each order of each smooth input in one call.
void FmuModel::set_input_derivatives(fmu::FmuInstance& fmu, MatrixView du) const {
  if (du.cols() == 0 || smooth_refs_.empty() || md_.version != fmu::FmiVersion::v2) return;
  std::vector<unsigned> refs;
  std::vector<int> orders;
  std::vector<double> values;
  for (Eigen::Index k = 1; k <= du.cols(); ++k)
    for (std::size_t j = 0; j < smooth_refs_.size(); ++j) {
      refs.push_back(smooth_refs_[j]);
      orders.push_back(static_cast<int>(k));
      values.push_back(du(static_cast<Eigen::Index>(smooth_at_[j]), k - 1));
    }
  fmu.set_real_input_derivatives(refs, orders, values);
}

// The continuous real inputs, not clocked, that take their derivatives (FMI 2.0,
// canInterpolateInputs) or are set within a step (FMI 3.0, the instance's intermediate
// inputs).
void FmuModel::find_smooth_inputs() {
  if (!co_simulation()) return;
  const std::vector<unsigned>& intermediate = instance_->intermediate_inputs();
  for (std::size_t k = 0; k < ports_.inputs.size(); ++k) {
    const fmu::Variable& v = md_.variables[ports_.inputs[k]];
    if (v.type != ValueType::real || v.variability != Variability::continuous || !v.clocks.empty())
      continue;
    const bool smooth = md_.version == fmu::FmiVersion::v2
                            ? interface_->can_interpolate_inputs
                            : std::find(intermediate.begin(), intermediate.end(),
                                        v.value_reference) != intermediate.end();
    if (!smooth) continue;
    smooth_refs_.push_back(v.value_reference);
    smooth_at_.push_back(k);
  }
}

// A co-simulation FMU that wants to end the simulation says so (FMI 2.0: refusing the step
// with fmi2Terminated; FMI 3.0: terminateSimulation) and how far it got: a step it completed
// stands, one it did not is refused.
void FmuModel::step_co_simulation(fmu::FmuInstance& fmu, double t, double h, VectorView u,
                                  MatrixView du) const {
  inputs_.write(fmu, in_span(u));
  set_input_derivatives(fmu, du);
  const IntermediateInputs intermediate(*this, fmu, t, u, du);
  if (fmu.event_mode()) return step_with_events(fmu, t, h, u);
  const std::optional<double> ended = fmu.do_step(t, h).ended;
  if (!ended) return;
  const double end = t + h;
  if (*ended < near_end(end)) throw asked_to_end(*ended);
  ended_at_ = end;
}

// With event mode (FMI 3.0): the step is cut at every Clock tick within it, and where the FMU
// returns early for an event of its own; each is an event iteration at its time, the inputs
// held at u. The step still ends at t + h.
void FmuModel::step_with_events(fmu::FmuInstance& fmu, double t, double h, VectorView u) const {
  const double end = t + h;
  double at = t;
  for (int piece = 0; at < end; ++piece) {
    if (piece == max_events_per_step)
      throw ModelError("fmu", where_ + ": more than " + std::to_string(max_events_per_step) +
                                  " events within the step from t = " + std::to_string(t));
    double until = std::max(at, std::min(end, schedule_.next()));
    if (end - until <= fmu::ClockSchedule::tolerance(end)) until = end;
    bool event = false;
    if (until > at) {
      const fmu::FmuInstance::StepOutcome out = fmu.do_step(at, until - at);
      if (out.ended) {
        if (*out.ended < near_end(end)) throw asked_to_end(*out.ended);
        ended_at_ = end;
        return;
      }
      event = out.event;
      at = out.reached < until ? out.reached : until;
    }
    if (event || !schedule_.due(at).empty()) {
      event_iteration(fmu, true, in_span(u));
      if (ended_at_ < near_end(end)) throw asked_to_end(ended_at_);
    } else if (until == at && at < end) {
      throw ModelError("fmu", where_ + ": no progress at t = " + std::to_string(at));
    }
  }
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
    event_iteration(fmu, false, in_span(u));
  }
  std::vector<double> before(md_.event_indicators);
  if (!before.empty()) fmu.get_event_indicators(before);
  // An event a rounding error past the step's end is at its end.
  const double reach = end + fmu::ClockSchedule::tolerance(end);
  while (next_event() <= reach && ended_at_ > end) {
    const double at = std::clamp(next_event(), t, end);
    fmu.set_time(at);
    event_iteration(fmu, true, in_span(u));
    if (next_event() <= at)
      throw ModelError("fmu", where_ + ": after its time event at t = " + std::to_string(at) +
                                  " the next one is not later (" + std::to_string(next_event()) +
                                  ")");
  }
  if (ended_at_ < near_end(end)) throw asked_to_end(ended_at_);
  fmu.set_time(end);
  // Its state events (indicators of time and inputs) at the step's end, as a model with
  // continuous states has them (docs/model.md §2).
  if (!before.empty() && ended_at_ > end) {
    std::vector<double> after(before.size());
    fmu.get_event_indicators(after);
    for (std::size_t k = 0; k < before.size(); ++k)
      if ((before[k] > 0) != (after[k] > 0)) {
        event_iteration(fmu, true, in_span(u));
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

// What kausal keeps (bookkeeping()) and the FMU's serialized state.
Bytes FmuModel::save_internal() const {
  if (internal_ != InternalState::restorable) return Model::save_internal();
  Bytes bytes = bookkeeping();
  calling([&] {
    const Bytes state = instance_->save_state();
    bytes.insert(bytes.end(), state.begin(), state.end());
  });
  return bytes;
}

void FmuModel::restore_internal(std::span<const std::uint8_t> bytes) const {
  if (internal_ != InternalState::restorable) return Model::restore_internal(bytes);
  if (bytes.size() < bookkeeping_size())
    throw ModelError("fmu", where_ + ": internal state of " + std::to_string(bytes.size()) +
                                " bytes is too short");
  calling([&] { instance_->restore_state(bytes.subspan(bookkeeping_size())); });
  restore_bookkeeping(bytes.first(bookkeeping_size()));
  // A state from before the FMU's end (a rollback, a located crossing's candidate step).
  ended_at_ = std::numeric_limits<double>::infinity();
}

namespace {
void put_u64(Bytes& out, std::uint64_t v) {
  for (int b = 0; b < 8; ++b) out.push_back(static_cast<std::uint8_t>(v >> (8 * b)));
}
std::uint64_t get_u64(std::span<const std::uint8_t> in, std::size_t at) {
  std::uint64_t v = 0;
  for (int b = 0; b < 8; ++b) v |= std::uint64_t{in[at + static_cast<std::size_t>(b)]} << (8 * b);
  return v;
}
}  // namespace

// The next time event (8 bytes), then, with Clocks, their schedule and the clocked outputs held.
Bytes FmuModel::bookkeeping() const {
  Bytes bytes;
  put_u64(bytes, std::bit_cast<std::uint64_t>(next_event_));
  const Bytes schedule = schedule_.save();
  bytes.insert(bytes.end(), schedule.begin(), schedule.end());
  for (double v : held_) put_u64(bytes, std::bit_cast<std::uint64_t>(v));
  return bytes;
}

void FmuModel::restore_bookkeeping(std::span<const std::uint8_t> bytes) const {
  next_event_ = std::bit_cast<double>(get_u64(bytes, 0));
  const std::size_t schedule = schedule_.size() * fmu::ClockSchedule::bytes_per_clock;
  schedule_.restore(bytes.subspan(8, schedule));
  for (std::size_t j = 0; j < held_.size(); ++j)
    held_[j] = std::bit_cast<double>(get_u64(bytes, 8 + schedule + 8 * j));
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
        step_co_simulation(fmu, t, h, none, Matrix(none.size(), 0));
      else
        step_events(fmu, t, h, none);
    };
    step(0.0);
    const Bytes saved = fmu.save_state();
    const Bytes kept = bookkeeping();
    step(h);
    read_outputs(fmu, first);
    fmu.restore_state(saved);
    restore_bookkeeping(kept);
    step(h);
    read_outputs(fmu, again);
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

FmuPorts fmu_ports(const fmu::ModelDescription& md, fmu::FmuKind kind,
                   const std::vector<std::string>& coupled_texts) {
  FmuPorts p;
  p.kind = kind;
  const fmu::KindInterface& interface = md.interface_of(kind);  // InputError if it lacks it
  const std::string where = md.file + ": ";
  // FMI 3.0 ties Clocks to event mode (eventModeUsed); a co-simulation FMU without it cannot
  // be told of their ticks.
  if (kind == FmuKind::co_simulation && !md.clocks.empty() && !interface.has_event_mode)
    throw InputError(where + "line " + std::to_string(md.clocks.front().line) + ": Clock '" +
                     md.clocks.front().name +
                     "' of a co-simulation FMU without hasEventMode: its ticks need event mode");
  for (const fmu::Unknown& d : md.derivatives) {
    p.derivatives.push_back(d.variable);
    p.states.push_back(*md.variables[d.variable].derivative_of);
  }
  const bool continuous = kind == FmuKind::model_exchange && !p.states.empty();
  for (std::size_t k = 0; k < md.variables.size(); ++k) {
    const fmu::Variable& v = md.variables[k];
    if (v.causality != Causality::input && v.causality != Causality::output) continue;
    // kausal couples numbers (an array's elements one by one): a Binary port, and a String
    // port no coupling names, stays unconnected (its start value, or one the scenario gives a
    // String, is what the FMU sees); a coupled String is text_lanes numbers.
    std::size_t lanes = 1;
    if (v.type == ValueType::binary || v.text_array) continue;
    if (v.type == ValueType::string) {
      if (std::find(coupled_texts.begin(), coupled_texts.end(), v.name) == coupled_texts.end())
        continue;
      lanes = text_lanes;
    }
    const bool input = v.causality == Causality::input;
    if (input && continuous &&
        (v.type != ValueType::real || v.variability != Variability::continuous))
      throw InputError(where + "line " + std::to_string(v.line) + ": input '" + v.name +
                       "' is discrete: kausal sets model-exchange inputs in continuous time; "
                       "import the FMU as co-simulation (kind = \"co-simulation\")");
    std::vector<std::size_t>& ports = input ? p.inputs : p.outputs;
    std::vector<std::string>& names = input ? p.signature.inputs : p.signature.outputs;
    if (lanes > 1) (input ? p.text_inputs : p.text_outputs).push_back(ports.size());
    for (std::size_t lane = 0; lane < lanes; ++lane) {
      ports.push_back(k);
      names.push_back(text_lane_name(v.name, lane));
    }
  }
  for (const std::string& name : coupled_texts) {
    const fmu::Variable* v = md.find(name);
    if (!v || v->type != ValueType::string || v->text_array ||
        (v->causality != Causality::input && v->causality != Causality::output))
      throw InputError(where + "'" + name +
                       "' is coupled as a String, but it is no String input "
                       "or output of the FMU");
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
