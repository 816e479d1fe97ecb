#include "monitor/cli/model_commands.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>

#include "common/listed.hpp"
#include "common/text_table.hpp"
#include "integrator/adams.hpp"
#include "monitor/analysis/load_balance.hpp"
#include "monitor/analysis/modal_split.hpp"
#include "monitor/analysis/partition_analysis.hpp"
#include "monitor/deploy/local_deployment.hpp"
#include "monitor/record/partitioned_recorder.hpp"
#include "monitor/run/feasibility.hpp"
#include "monitor/scenario/event_scenario.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"
#include "monitor/scenario/scenario_limits.hpp"
#include "monitor/scenario/ssp_scenario.hpp"
#include "system/events/event_model_registry.hpp"
#include "system/fmu/fmu_archive.hpp"
#include "system/fmu/fmu_model.hpp"
#include "system/fmu/text_lanes.hpp"
#include "system/model_registry.hpp"

namespace kausal {
namespace {

// Every output row of a sequential run of s: t, then the monolithic model's state.
std::vector<std::vector<double>> recorded_rows(const PartitionedScenario& s,
                                               const std::string& option) {
  const PartitionedPlan plan = plan_partitions(s, {});
  PartitionedRecorder recorder("", s, plan, true);
  RunControl quiet;
  const RunResult r = run_partitioned_sequential(s, plan, quiet, {nullptr, {&recorder}});
  if (!r.completed())
    throw SimulationError("analyze " + option + ": the sequential run failed: " + r.error);
  return recorder.rows();
}

// The monolithic model's state in a row of recorded_rows (after its time).
Vector state_of(const std::vector<double>& row) {
  return Eigen::Map<const Vector>(row.data() + 1, static_cast<Eigen::Index>(row.size() - 1));
}

// The state of the monolithic model at t (partitions in order, as build_monolithic_model
// stacks them), from a sequential run of the scenario up to t. InputError if t is not on
// every partition's grid or beyond t_end.
Vector state_at(PartitionedScenario s, double t) {
  std::uint64_t ticks = 0;
  const double k = t / s.tick;
  if (!(t <= s.t_end) || std::abs(k - std::round(k)) > 1e-9 * std::max(1.0, k))
    throw InputError("command line: --at must be a whole number of the smallest step, <= t_end");
  ticks = static_cast<std::uint64_t>(std::round(k));
  for (auto& p : s.partitions) {
    if (ticks % p.ticks_per_step != 0)
      throw InputError("command line: --at is not on the step grid of partition '" + p.name + "'");
    p.steps = ticks / p.ticks_per_step;
  }
  s.ticks = ticks;
  s.t_end = t;
  return state_of(recorded_rows(s, "--at").back());
}

std::string yes_no(bool b) {
  return b ? "yes" : "no";
}

// One interface of an FMU as kausal imports it, or why it cannot.
void print_fmu_interface(const fmu::ModelDescription& md, fmu::FmuKind kind) {
  const fmu::KindInterface& i = md.interface_of(kind);
  std::cout << "  " << fmu::to_string(kind) << " (" << i.model_identifier << ", kind = \""
            << (kind == fmu::FmuKind::co_simulation ? "co-simulation" : "model-exchange")
            << "\"):\n";
  bool stateless = false;
  try {
    const FmuPorts ports = fmu_ports(md, kind);
    stateless = kind == fmu::FmuKind::model_exchange && ports.steps_itself;
    std::cout << "    states   " << listed(ports.signature.states)
              << (stateless ? " (its outputs: no continuous states; it steps from event to "
                              "event, integrator = \"co-simulation\")"
                            : "")
              << "\n    inputs   " << listed(ports.signature.inputs)
              << (ports.signature.inputs.empty()
                      ? ""
                      : " (each coupled, held by inputs = { NAME = VALUE } or a column of an "
                        "input_table)")
              << "\n    outputs  " << listed(ports.signature.outputs) << "\n";
    std::vector<std::string> texts, binaries;
    for (const fmu::Variable& v : md.variables)
      if ((v.type == fmu::ValueType::string || v.type == fmu::ValueType::binary) &&
          (v.causality == fmu::Causality::input || v.causality == fmu::Causality::output))
        (v.type == fmu::ValueType::binary || v.text_array ? binaries : texts).push_back(v.name);
    if (!texts.empty())
      std::cout << "    Strings  " << listed(texts) << " (ports when a [[coupling]] names them: "
                << "a String couples to a String, held, at most " << max_coupled_text_bytes
                << " bytes)\n";
    if (!binaries.empty())
      std::cout << "    not coupled  " << listed(binaries)
                << " (Binary ports and String arrays: kausal couples numbers and Strings)\n";
  } catch (const InputError& e) {
    std::cout << "    not importable: " << e.what() << "\n";
  }
  std::cout << "    rollback (get, set and serialize FMU state): "
            << yes_no(i.can_get_and_set_fmu_state && i.can_serialize_fmu_state)
            << (i.can_get_and_set_fmu_state && i.can_serialize_fmu_state
                    ? ""
                    : " — conservative and sequential only")
            << "\n";
  if (stateless)
    std::cout << "    event indicators: " << md.event_indicators << "\n";
  else if (kind == fmu::FmuKind::model_exchange)
    std::cout << "    Jacobian: "
              << (i.provides_directional_derivative ? "directional derivatives"
                                                    : "finite differences")
              << "; event indicators: " << md.event_indicators
              << (md.event_indicators == 0
                      ? std::string()
                      : " (an [[event_output]] may watch them: indicator = 0 to " +
                            std::to_string(md.event_indicators - 1) + ")")
              << "\n";
  else
    std::cout << "    variable communication step: "
              << yes_no(i.can_handle_variable_communication_step_size)
              << (md.version == fmu::FmiVersion::v3
                      ? std::string("; event mode: ") + yes_no(i.has_event_mode)
                      : std::string())
              << "; inputs within a step: "
              << (md.version == fmu::FmiVersion::v3
                      ? (i.provides_intermediate_update ? "intermediate update" : "held")
                      : (i.can_interpolate_inputs ? "input derivatives" : "held"))
              << "\n";
}

// FMI 3.0 Clocks: when each ticks and what it clocks (docs/fmi.md, "Clocks").
void print_fmu_clocks(const fmu::ModelDescription& md) {
  if (md.clocks.empty()) return;
  std::cout << "  clocks (kausal activates each at its ticks):\n";
  for (std::size_t k = 0; k < md.clocks.size(); ++k) {
    const fmu::Clock& c = md.clocks[k];
    std::cout << "    " << c.name << "  " << fmu::to_string(c.kind);
    if (c.interval) {
      std::ostringstream every;
      every << *c.interval;
      if (c.shift) every << " from " << *c.shift;
      std::cout << ", every " << every.str() << " s";
    } else {
      std::cout << ", interval from the FMU";
    }
    std::vector<std::string> clocked;
    for (const auto& v : md.variables)
      if (std::find(v.clocks.begin(), v.clocks.end(), k) != v.clocks.end())
        clocked.push_back(v.name);
    if (!clocked.empty()) std::cout << "; clocks " << listed(clocked);
    std::cout << "\n";
  }
}

// A number as the description gives it, shortest first (1, 0.5, 1e-06).
std::string number_text(double x) {
  std::ostringstream text;
  text << x;
  return text.str();
}

// `kausal models FILE.fmu`: what a scenario can do with the FMU, from its description.
int fmu_models_command(const std::string& file) {
  const fmu::ModelDescription md = fmu::read_model_description(file);
  std::cout << file << ": " << md.model_name << " (FMI " << md.fmi_version
            << (md.generation_tool.empty() ? "" : ", " + md.generation_tool) << ")\n";
  if (!md.description.empty()) std::cout << "  " << md.description << "\n";
  if (md.model_exchange) print_fmu_interface(md, fmu::FmuKind::model_exchange);
  if (md.co_simulation) print_fmu_interface(md, fmu::FmuKind::co_simulation);
  print_fmu_clocks(md);
  std::cout << "  parameters and start values (scenario: parameters = { NAME = VALUE }):\n";
  for (const auto& v : md.variables) {
    const bool text = v.type == fmu::ValueType::string;
    if (!start_value_problem(md, v.name, text).empty()) continue;
    // Inputs are ports (a String input, which is none, takes text here too).
    if (v.causality == fmu::Causality::input && !text) continue;
    // An array on one line, from its first element: its elements are set one by one.
    const fmu::ArrayVariable* array = v.array_of ? &md.arrays[*v.array_of] : nullptr;
    if (array && v.element > 0) continue;
    const std::string name =
        array ? v.name + " … " + md.variables[array->first + array->size - 1].name : v.name;
    std::ostringstream line;
    line << "    " << name << std::string(name.size() < 14 ? 14 - name.size() : 1, ' ')
         << fmu::to_string(v.causality) << ", "
         << (md.version == fmu::FmiVersion::v3 && v.type != fmu::ValueType::enumeration
                 ? fmu::to_string(v.ctype)
                 : fmu::to_string(v.type));
    if (array) {
      line << ", array";
      for (std::size_t d = 0; d < array->extents.size(); ++d)
        line << (d ? "×" : " ") << array->extents[d];
      std::string starts;
      for (std::size_t k = 0; k < array->size && k < 16; ++k)
        if (const auto& x = md.variables[array->first + k].start)
          starts += (starts.empty() ? "" : " ") + number_text(*x);
      if (!starts.empty()) line << ", start " << starts << (array->size > 16 ? " …" : "");
    } else if (v.start) {
      line << ", start " << *v.start;
    }
    if (v.text_start) line << ", start \"" << *v.text_start << "\" (give text in quotes)";
    if (!v.unit.empty()) line << " " << v.unit;
    if (v.min || v.max)
      line << ", in [" << (v.min ? number_text(*v.min) : "-inf") << ", "
           << (v.max ? number_text(*v.max) : "inf") << "]";
    if (!v.description.empty()) line << " — " << v.description;
    std::cout << line.str() << "\n";
  }
  const auto& e = md.default_experiment;
  // Only what the FMU gives (a missing step is not a step of 0 s).
  std::vector<std::string> given;
  if (e.stop_time) given.push_back("stop " + number_text(*e.stop_time) + " s");
  if (e.step_size) given.push_back("step " + number_text(*e.step_size) + " s");
  if (e.tolerance) given.push_back("tolerance " + number_text(*e.tolerance));
  if (!given.empty()) {
    std::cout << "  default experiment:";
    for (std::size_t k = 0; k < given.size(); ++k) std::cout << (k ? ", " : " ") << given[k];
    std::cout << "\n";
  }
  return 0;
}

std::string padded(const std::string& name, std::size_t width) {
  return name + std::string(name.size() < width ? width - name.size() : 1, ' ');
}

// `kausal models NAME` for a discrete-event model: what it is and its parameters; for one that
// runs beside partitions (a hybrid model), its ports.
int event_model_command(const des::EventModelType& type) {
  std::map<std::string, double> defaults;
  for (const auto& p : type.parameters) defaults[p.name] = p.default_value;
  const std::vector<std::string> ports = type.make(defaults)->ports();
  std::cout << type.name << " (discrete events, [events] model = \"" << type.name
            << "\"; docs/events.md): " << type.description << "\n";
  if (!ports.empty()) {
    std::cout << "  beside partitions (a hybrid model, docs/scenarios.md); ports, for "
                 "[[event_input]] from (with the default parameters):\n   ";
    for (const std::string& port : ports) std::cout << " " << port;
    std::cout << "\n";
  }
  std::cout << "  parameters (" << (ports.empty() ? "[parameters]" : "[events] parameters")
            << "):\n";
  for (const auto& p : type.parameters) {
    std::ostringstream d;
    d << "default " << p.default_value;
    if (p.whole) d << ", whole";
    if (p.most < 1e300) d << ", at most " << p.most;
    std::cout << "    " << padded(p.name, 18) << p.meaning << " (" << d.str() << ")\n";
  }
  return 0;
}

struct IntegratorTraits {
  std::string order, kind, calls;
};

// What a partition's integrator costs and does (integrator/ode_method.hpp, adams.hpp).
IntegratorTraits traits_of(OdeMethod m) {
  if (const auto a = adams_scheme(m)) {
    const std::string k = std::to_string(a->order);
    switch (a->family) {
      case AdamsFamily::bashforth:
        return {k, a->order == 1 ? "explicit (Euler's formula)" : "explicit multistep", "1"};
      case AdamsFamily::moulton:
        return {k, a->order <= 2 ? "implicit, A-stable" : "implicit multistep",
                a->order == 1 ? "Newton" : "1 + Newton"};
      case AdamsFamily::predictor_corrector:
        return {k, "P(EC)^" + std::to_string(a->corrections) + "E",
                std::to_string(1 + a->corrections)};
    }
  }
  switch (m) {
    case OdeMethod::euler:
      return {"1", "explicit", "1"};
    case OdeMethod::rk3:
      return {"3", "explicit Runge-Kutta", "3"};
    case OdeMethod::rk4:
      return {"4", "explicit Runge-Kutta", "4"};
    case OdeMethod::backward_euler:
      return {"1", "implicit, A-stable", "Newton"};
    case OdeMethod::dre0:
      return {"1 (2 autonomous)", "exponential", "1 + J"};
    case OdeMethod::pdre0:
      return {"1 (2 autonomous)", "exponential, own blocks", "1 + J"};
    case OdeMethod::dre1:
      return {"2", "exponential, two-step", "1 + J"};
    case OdeMethod::pdre1:
      return {"2", "exponential, two-step, own blocks", "1 + J"};
    case OdeMethod::combined:
      return {"4 or 1", "rk4, backward_euler where h|J| > 2.5", "J + 4 or Newton"};
    case OdeMethod::rk4_substeps:
      return {"4", "rk4 in ceil(h|J| / 2.5) sub-steps", "J + 4 per sub-step"};
    default:
      return {"-", "the model steps itself", "1 step"};
  }
}

std::string limit_cell(double limit) {
  if (std::isinf(limit)) return "none";
  std::ostringstream out;
  out.precision(4);
  out << limit;
  return out.str();
}

}  // namespace

// `kausal models --integrators`: every integrator a partition can take, with the stability
// limits the diagnostics judge its steps by.
int integrators_command() {
  std::vector<std::vector<std::string>> rows = {
      {"integrator", "order", "kind", "f per step", "keeps", "h|λ| <= (decay)", "(oscillation)"}};
  for (int k = 0; k < static_cast<int>(OdeMethod::co_simulation); ++k) {
    const auto m = static_cast<OdeMethod>(k);
    const IntegratorTraits t = traits_of(m);
    rows.push_back({std::string(ode_method_name(m)), t.order, t.kind, t.calls,
                    std::to_string(history_length(m)), limit_cell(stable_step_limit(m, {-1, 0})),
                    limit_cell(stable_step_limit(m, {0, 1}))});
  }
  std::cout << format_table(rows, {})
            << "h|λ| <=: the largest step that keeps a mode λ from growing, times |λ|, for a\n"
               "decaying mode (λ < 0) and an undamped oscillation (λ = iω); 0: no step does.\n"
               "keeps: the vectors of earlier steps kept with the state (Adams: derivatives;\n"
               "dre1: f and x at the last step's start). Adams methods start with as many RK3\n"
               "steps (RK4 for order 4) as the derivatives they keep, dre1 with a dre0 step,\n"
               "and again after an event or a change of h. Newton: one f\n"
               "per iteration and a Jacobian (docs/model.md §4; kausal analyze applies these\n"
               "limits to a scenario's partitions). integrator = \"auto\" chooses rk4,\n"
               "backward_euler or am2 for each partition from its eigenvalues and h.\n";
  return 0;
}

// `kausal models [NAME]`: the registered models, or one with its ports and parameters.
int models_command(const std::string& name) {
  if (name.size() > 4 && name.ends_with(".fmu")) return fmu_models_command(name);
  // An SSP archive: the scenario it maps to, its `ssp` as a scenario beside it would name it.
  if (name.size() > 4 && name.ends_with(".ssp")) {
    std::cout << scenario_text(name, std::filesystem::path(name).filename().string());
    return 0;
  }
  const ModelRegistry& registry = model_registry();
  if (name.empty()) {
    std::cout << "Subsystems of partitioned models ([[subsystem]] model = NAME):\n";
    for (const auto& [model, info] : registry.all())
      std::cout << "  " << padded(model, 22) << info.summary << "\n";
    std::cout
        << "  fmu                   a model from an FMU (model = \"fmu\", fmu = \"FILE.fmu\"; "
           "docs/fmi.md)\n";
    std::cout << "Discrete-event models ([events] model = NAME; docs/events.md):\n";
    for (const auto& type : des::event_model_types())
      std::cout << "  " << padded(type.name, 22) << type.description.substr(0, 70)
                << (type.description.size() > 70 ? "…" : "") << "\n";
    std::cout << "kausal models NAME: its ports and parameters (FILE.fmu: an FMU's; FILE.ssp: the "
                 "scenario a system of FMUs maps to)\n";
    return 0;
  }
  if (const des::EventModelType* type = des::event_model_type(name))
    return event_model_command(*type);
  const ModelInfo* info = registry.find(name);
  if (!info) throw InputError("command line: no model '" + name + "' (kausal models lists them)");
  // The ports need an instance: defaults, and 1 (or the nearest allowed value) where a
  // parameter is required.
  Parameters defaults;
  for (const auto& p : info->parameters)
    defaults.emplace_back(p.name,
                          p.default_value ? *p.default_value : std::clamp(1.0, p.min, p.max));
  auto join = [](const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out.empty() ? std::string("none") : out;
  };
  std::cout << name << ": " << info->summary << "\n";
  try {
    const Signature sig = registry.make(name, name, defaults)->signature();
    std::cout << "  states   " << join(sig.states) << "\n  inputs   " << join(sig.inputs)
              << "\n  outputs  " << join(sig.outputs) << "\n";
  } catch (const ModelError&) {
  }
  std::cout << "  parameters:\n";
  for (const auto& p : info->parameters) {
    std::ostringstream d;
    if (p.default_value)
      d << "default " << *p.default_value;
    else
      d << "required";
    std::cout << "    " << p.name << std::string(p.name.size() < 14 ? 14 - p.name.size() : 1, ' ')
              << p.meaning << " (" << d.str() << ")\n";
  }
  return 0;
}

// h over the stability limit as a table cell: "0" for a method without a limit.
std::string ratio_cell(double h, double limit) {
  std::ostringstream out;
  out.precision(3);
  out << (std::isinf(limit) ? 0.0 : h / limit);
  return out.str();
}

// `kausal analyze S --along`: the stability judgement at every output row of a sequential run
// (a nonlinear model's eigenvalues move): per partition the smallest limit and when, how many
// rows its h exceeded it and the first; then h / limit at up to 11 times spread over the run.
void analyze_along(const PartitionedScenario& s, CompositeModel& model) {
  const auto rows = recorded_rows(s, "--along");
  struct Worst {
    double limit = std::numeric_limits<double>::infinity(), at = 0;
    std::size_t over = 0;
    double first_over = std::nan("");
  };
  std::vector<Worst> worst(s.partitions.size());
  std::vector<std::vector<std::string>> sampled = {{"t s"}};
  for (const auto& p : s.partitions) sampled[0].push_back(p.name + " h/limit");
  const std::size_t samples = std::min<std::size_t>(11, rows.size());
  std::size_t next_sample = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const double t = rows[k][0];
    const PartitionReport report = analyze_partitioned(s, model, t, state_of(rows[k]));
    const bool sample = next_sample < samples &&
                        k == (samples == 1 ? 0 : next_sample * (rows.size() - 1) / (samples - 1));
    if (sample) sampled.push_back({format_number(t)}), ++next_sample;
    for (std::size_t p = 0; p < report.partitions.size(); ++p) {
      const PartitionDiagnostics& d = report.partitions[p];
      Worst& w = worst[p];
      if (d.h_max < w.limit) w.limit = d.h_max, w.at = t;
      if (d.h_exceeds_limit && w.over++ == 0) w.first_over = t;
      if (sample) sampled.back().push_back(ratio_cell(d.h, d.h_max));
    }
  }
  std::vector<std::vector<std::string>> table = {
      {"partition", "integrator", "h s", "smallest limit s", "at t s", "rows over it", "first"}};
  for (std::size_t p = 0; p < s.partitions.size(); ++p) {
    const Worst& w = worst[p];
    table.push_back({s.partitions[p].name, std::string(ode_method_name(s.partitions[p].method)),
                     format_number(s.partitions[p].h),
                     std::isinf(w.limit) ? "none" : format_number(w.limit), format_number(w.at),
                     std::to_string(w.over), w.over ? format_number(w.first_over) : "-"});
  }
  std::cout << "kausal analyze · " << s.file
            << " · along a sequential run: the Jacobian at each of " << rows.size()
            << " output rows, t = " << format_number(rows.front()[0]) << " .. "
            << format_number(rows.back()[0]) << " s\n\n"
            << format_table(table, {}) << "\n"
            << format_table(sampled, {})
            << "h/limit: the partition's h over its integrator's stability limit there (above 1: "
               "its fastest modes grow; 0: no limit)\n";
}

// One axis of `--range NAME=LO:HI[:N]`: a state of the coupled model and its grid.
struct RangeAxis {
  std::string name;
  Eigen::Index state = 0;
  double lo = 0, hi = 0;
  std::size_t points = 5;
  double at(std::size_t k) const {
    return points == 1 ? lo : lo + (hi - lo) * static_cast<double>(k) / double(points - 1);
  }
};

inline constexpr std::size_t kMostRangePoints = 10'000;

std::vector<RangeAxis> range_axes(const std::vector<std::string>& given,
                                  const Signature& signature) {
  std::vector<RangeAxis> axes;
  std::size_t total = 1;
  for (const std::string& text : given) {
    const std::string where = "command line: --range " + text + ": ";
    const auto eq = text.find('=');
    if (eq == std::string::npos)
      throw InputError(where + "write it NAME=LO:HI or NAME=LO:HI:N (NAME a state, e.g. " +
                       (signature.states.empty() ? std::string("part.x") : signature.states[0]) +
                       ")");
    RangeAxis a;
    a.name = text.substr(0, eq);
    const auto it = std::find(signature.states.begin(), signature.states.end(), a.name);
    if (it == signature.states.end())
      throw InputError(where + "'" + a.name + "' is not a state of the model (states: " +
                       listed(signature.states, 12) + ")");
    a.state = static_cast<Eigen::Index>(it - signature.states.begin());
    std::vector<double> numbers;
    std::stringstream parts(text.substr(eq + 1));
    for (std::string part; std::getline(parts, part, ':');) {
      char* end = nullptr;
      const double v = std::strtod(part.c_str(), &end);
      if (part.empty() || *end != '\0' || !std::isfinite(v))
        throw InputError(where + "'" + part + "' is not a number");
      numbers.push_back(v);
    }
    if (numbers.size() < 2 || numbers.size() > 3 || !(numbers[0] <= numbers[1]))
      throw InputError(where + "give LO:HI or LO:HI:N with LO <= HI");
    a.lo = numbers[0], a.hi = numbers[1];
    if (numbers.size() == 3) {
      if (!(numbers[2] >= 1 && numbers[2] <= double(kMostRangePoints) &&
            numbers[2] == std::floor(numbers[2])))
        throw InputError(where + "N must be a whole number from 1 to " +
                         std::to_string(kMostRangePoints));
      a.points = static_cast<std::size_t>(numbers[2]);
    }
    if (a.lo == a.hi) a.points = 1;
    total *= a.points;
    if (total > kMostRangePoints)
      throw InputError(where + "the grid would have more than " + std::to_string(kMostRangePoints) +
                       " points");
    axes.push_back(a);
  }
  return axes;
}

// The integrators whose stability has a limit (explicit, and the Adams predictor-correctors),
// and the names of the others (A-stable, or exact on linear dynamics).
struct MethodsByLimit {
  std::vector<OdeMethod> limited;
  std::vector<std::string> unlimited;
};
MethodsByLimit methods_by_limit() {
  MethodsByLimit out;
  for (int m = 0; m < static_cast<int>(OdeMethod::co_simulation); ++m) {
    const auto method = static_cast<OdeMethod>(m);
    if (std::isfinite(stable_step_limit(method, {-1.0, 0.0})))
      out.limited.push_back(method);
    else
      out.unlimited.emplace_back(ode_method_name(method));
  }
  return out;
}

// `kausal analyze S --range NAME=LO:HI[:N] ...`: the stability judgement over a grid of
// operating points (the initial state with the named states set to every combination of
// their grids): per partition the smallest limit of its own integrator and where, how many
// points its h exceeds it; then every integrator's smallest limit per partition, the step
// each could keep over the whole range.
void analyze_range(const PartitionedScenario& s, CompositeModel& model,
                   const std::vector<std::string>& ranges) {
  const std::vector<RangeAxis> axes = range_axes(ranges, model.signature());
  const MethodsByLimit by_limit = methods_by_limit();
  const std::vector<OdeMethod>& methods = by_limit.limited;
  constexpr double inf = std::numeric_limits<double>::infinity();
  struct Worst {
    double limit = std::numeric_limits<double>::infinity();
    std::string at;
    std::size_t over = 0;
    std::vector<double> by_method;
  };
  std::vector<Worst> worst(s.partitions.size(),
                           Worst{inf, "", 0, std::vector<double>(methods.size(), inf)});
  std::size_t points = 1;
  for (const RangeAxis& a : axes) points *= a.points;
  const Vector initial = model.initial_state();
  for (std::size_t n = 0; n < points; ++n) {
    Vector x = initial;
    std::string at;
    for (std::size_t k = n, i = 0; i < axes.size(); k /= axes[i].points, ++i) {
      const double v = axes[i].at(k % axes[i].points);
      x[axes[i].state] = v;
      at += (at.empty() ? "" : ", ") + axes[i].name + " = " + format_number(v);
    }
    const PartitionReport report = analyze_partitioned(s, model, s.t0(), x);
    for (std::size_t p = 0; p < report.partitions.size(); ++p) {
      const PartitionDiagnostics& d = report.partitions[p];
      Worst& w = worst[p];
      if (d.h_max < w.limit) w.limit = d.h_max, w.at = at;
      if (d.h_exceeds_limit) ++w.over;
      for (std::size_t m = 0; m < methods.size(); ++m)
        for (const auto& lambda : d.eigenvalues)
          if (lambda.real() <= 0)
            w.by_method[m] = std::min(w.by_method[m], stable_step_limit(methods[m], lambda));
    }
  }
  std::vector<std::vector<std::string>> own = {
      {"partition", "integrator", "h s", "smallest limit s", "at", "points over it"}};
  for (std::size_t p = 0; p < s.partitions.size(); ++p) {
    const Worst& w = worst[p];
    own.push_back({s.partitions[p].name, std::string(ode_method_name(s.partitions[p].method)),
                   format_number(s.partitions[p].h),
                   std::isinf(w.limit) ? "none" : format_number(w.limit),
                   std::isinf(w.limit) ? "-" : w.at,
                   std::to_string(w.over) + " of " + std::to_string(points)});
  }
  std::vector<std::vector<std::string>> each = {{"integrator"}};
  for (const auto& p : s.partitions) each[0].push_back(p.name);
  for (std::size_t m = 0; m < methods.size(); ++m) {
    each.push_back({std::string(ode_method_name(methods[m]))});
    for (const Worst& w : worst)
      each.back().push_back(std::isinf(w.by_method[m]) ? "none" : format_number(w.by_method[m]));
  }
  std::string grid;
  for (const RangeAxis& a : axes)
    grid += (grid.empty() ? "" : ", ") + a.name + " " + format_number(a.lo) + " .. " +
            format_number(a.hi) + " in " + std::to_string(a.points);
  std::cout << "kausal analyze · " << s.file
            << " · over a working range: " << counted(points, "point") << " (" << grid
            << "; the other states at their initial values), the Jacobian at each\n\n"
            << format_table(own, {}) << "\n"
            << "The largest stable step of each integrator over the whole range (s), per "
               "partition ("
            << listed(by_limit.unlimited) << " have none):\n"
            << format_table(each, {});
}

// The modal split of the coupled model's Jacobian at (t, x) into `groups`, stepped by the
// partitions' method when they share one the operations are counted for, else by RK4.
std::string analyze_modes(const PartitionedScenario& s, CompositeModel& model, double t,
                          const Vector& x, std::size_t groups) {
  Matrix J = Matrix::Zero(x.size(), x.size());
  model.jacobian(t, x, Vector(), J);
  OdeMethod method = s.partitions.front().method;
  const bool counted_method =
      method == OdeMethod::euler || method == OdeMethod::rk3 || method == OdeMethod::rk4;
  const bool shared = std::all_of(s.partitions.begin(), s.partitions.end(),
                                  [&](const PartitionSpec& p) { return p.method == method; });
  std::string note;
  if (!counted_method || !shared) {
    note = "(the partitions do not share one of euler, rk3, rk4: the modes are counted for rk4)\n";
    method = OdeMethod::rk4;
  }
  try {
    ModalSplit split = split_modes(J, groups, method);
    measure_modal_split(J, split, std::chrono::milliseconds(50));
    return note + format_modal_split(split, s.tick * static_cast<double>(s.output_ticks));
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("command line: ") + e.what());
  }
}

// `kausal analyze S [--at T]`: the partition diagnostics (docs/adding-a-model.md) from the Jacobian
// of the whole coupled model at the initial state, or at T after a sequential run to it (nonlinear
// models change their eigenvalues along the way). Exit 0 even with warnings: they are advice.
int analyze_command(const std::string& file, std::optional<double> at, bool along,
                    const std::vector<std::string>& ranges, std::optional<std::size_t> modes) {
  if (is_event_scenario(file))
    throw InputError(file +
                     ": analyze needs a partitioned model ([[subsystem]] tables); this is "
                     "a discrete-event model ([events])");
  const ScenarioKind kind = scenario_kind(file);
  if (!kind.partitioned)
    throw InputError(kind.where +
                     ": analyze needs a partitioned model ([[subsystem]] tables); this is a "
                     "pendulum chain");
  PartitionedScenario s = load_partitioned_scenario(file);
  choose_integrators(s);
  const auto model = build_monolithic_model(s);
  if (modes && (along || !ranges.empty()))
    throw InputError(
        "command line: --modes analyses the Jacobian at one point (the start, or "
        "--at T); it takes no --along or --range");
  if (!ranges.empty()) {
    if (at || along)
      throw InputError(
          "command line: --range analyses a grid of states at the start; it takes "
          "no --at or --along");
    analyze_range(s, *model, ranges);
    return 0;
  }
  if (along) {
    if (at) throw InputError("command line: --along analyses the whole run; it takes no --at");
    analyze_along(s, *model);
    return 0;
  }
  Vector x = model->initial_state();
  double t = s.t0();
  if (at && *at > 0) {
    x = state_at(s, *at);
    t = *at;
  }
  // (The modes first: a --modes K the model cannot take is refused before anything is printed.)
  const std::string modal = modes ? analyze_modes(s, *model, t, x, *modes) : std::string();
  const PartitionReport report = analyze_partitioned(s, *model, t, x);
  std::cout << "kausal analyze · " << s.file << " · " << counted(s.partitions.size(), "partition")
            << ", " << x.size() << " states; Jacobian of the coupled model at t = " << t << "\n\n"
            << format_partition_report(report) << "\n"
            << format_load_report(measure_loads(s, std::chrono::milliseconds(100)));
  if (modes) std::cout << "\n" << modal;
  return 0;
}

int export_ssp_command(const std::string& scenario, const std::string& out) {
  if (!is_ssp_archive(scenario) && !is_partitioned_scenario(scenario))
    throw InputError(scenario +
                     ": not a partitioned model (a pendulum chain or discrete-event "
                     "components): kausal export-ssp writes partitioned models of FMUs");
  const PartitionedScenario s = load_partitioned_scenario(scenario);
  const std::size_t fmus = export_ssp(s, out);
  std::cout << "wrote " << out << ": " << s.subsystems.size() << " component"
            << (s.subsystems.size() == 1 ? "" : "s") << " (" << fmus << " FMU"
            << (fmus == 1 ? "" : "s") << " under resources/), "
            << std::count_if(s.couplings.begin(), s.couplings.end(),
                             [](const CouplingSpec& c) { return c.lane == 0; })
            << " connections, t_end " << number_text(s.t_end) << " s; `kausal run " << out
            << "` runs it\n";
  return 0;
}

}  // namespace kausal
