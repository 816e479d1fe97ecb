#include "monitor/scenario/ssp_scenario.hpp"

#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <tuple>

#include "common/errors.hpp"
#include "common/sha256.hpp"
#include "integrator/method.hpp"
#include "monitor/core/run_kind.hpp"
#include "monitor/scenario/input_file.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"
#include "system/fmu/fmu_archive.hpp"
#include "system/fmu/ssp_description.hpp"

namespace kausal {
namespace {

namespace fs = std::filesystem;

// The step when no FMU gives a default one: this fraction of the run.
constexpr double kStepsWithoutAStep = 1000;

// A TOML basic string.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "\\u%04x", static_cast<unsigned char>(c));
      out += code;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// A finite double as TOML writes it, shortest round trip.
std::string number(double v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

fs::path cache_root() {
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache && *cache)
    return fs::path(cache) / "kausal" / "ssp";
  if (const char* home = std::getenv("HOME"); home && *home)
    return fs::path(home) / ".cache" / "kausal" / "ssp";
  return fs::temp_directory_path() / ("kausal-ssp-" + std::to_string(getuid()));
}

struct Mapped {
  fmu::SspSystem system;
  std::vector<bool> co_simulation;  // per component
  double h = 0;
  std::string h_because;
};

std::string at_line(const std::string& archive, int line) {
  return archive + ": SystemStructure.ssd:" + std::to_string(line) + ": ";
}

// Which interface of each component's FMU, and the one step of all.
Mapped map_system(const fs::path& archive) {
  Mapped m;
  m.system = fmu::read_ssp_description(archive);
  const std::string name = archive.string();
  if (!m.system.stop_time)
    throw InputError(name +
                     ": SystemStructure.ssd gives no <ssd:DefaultExperiment stopTime>: "
                     "print the scenario it maps to (kausal models " +
                     name + " > system.toml), set [run] t_end and run that");
  if (m.system.components.empty())
    throw InputError(name + ": SystemStructure.ssd: the system has no components");
  const fs::path root = unpacked_ssp(archive);
  std::string smallest_of;
  for (const fmu::SspComponent& c : m.system.components) {
    const std::string where = at_line(name, c.line) + "component '" + c.name + "': ";
    fmu::ModelDescription md;
    try {
      md = fmu::read_model_description(root / c.source);
    } catch (const InputError& e) {
      throw InputError(where + e.what());
    }
    bool co = c.implementation == fmu::SspImplementation::co_simulation;
    if (c.implementation == fmu::SspImplementation::any) co = md.co_simulation.has_value();
    if (co && !md.co_simulation)
      throw InputError(where + "implementation is CoSimulation, which " + c.source +
                       " does not offer");
    if (!co && !md.model_exchange)
      throw InputError(where + "implementation is ModelExchange, which " + c.source +
                       " does not offer");
    m.co_simulation.push_back(co);
    // kausal's own annotation, checked here where its line is known.
    if (!c.integrator.empty()) parse_ode_method(c.integrator, where + "kausal's annotation: ");
    const auto step = md.default_experiment.step_size;
    if (step && *step > 0 && (m.h == 0 || *step < m.h)) {
      m.h = *step;
      smallest_of = c.name;
    }
  }
  const double t_end = *m.system.stop_time;
  if (m.h == 0) {
    m.h = t_end / kStepsWithoutAStep;
    m.h_because = "no FMU gives a default step: a thousandth of the run";
  } else {
    m.h_because = "the smallest default step of the FMUs (" + smallest_of + ")";
  }
  // A whole number of steps to t_end: the step shortened where it does not divide it.
  const double steps = std::ceil(t_end / m.h - 1e-9);
  if (std::abs(steps * m.h - t_end) > 1e-12 * t_end) {
    m.h = t_end / steps;
    m.h_because += ", shortened to a whole number of steps to t_end";
  }
  return m;
}

std::string scenario_of(const Mapped& m, const std::string& written_as) {
  const fmu::SspSystem& s = m.system;
  std::ostringstream out;
  out << "# The kausal scenario of " << written_as
      << " (docs/fmi.md, \"Systems of FMUs: SSP\"): its FMUs\n"
         "# are read from inside the archive. Edit a copy to choose integrators, steps or "
         "methods.\n";
  out << "name = " << quoted(s.name) << "\n";
  if (!s.description.empty()) out << "description = " << quoted(s.description) << "\n";
  out << "ssp = " << quoted(written_as) << "\n\n[run]\nt_end = " << number(*s.stop_time)
      << "  # <ssd:DefaultExperiment stopTime>\n";
  if (s.output_interval) out << "output_interval = " << number(*s.output_interval) << "\n";
  if (s.hold) out << "hold = " << *s.hold << "\n";
  if (!s.method.empty()) out << "method = " << quoted(s.method) << "\n";
  for (std::size_t k = 0; k < s.components.size(); ++k) {
    const fmu::SspComponent& c = s.components[k];
    out << "\n[[subsystem]]  # SystemStructure.ssd:" << c.line << "\nname = " << quoted(c.name)
        << "\nmodel = \"fmu\"\nfmu = " << quoted(c.source) << "\n";
    // kausal's annotation, where the archive has one, says how kausal stepped it.
    if (m.co_simulation[k])
      out << "kind = \"co-simulation\"\nintegrator = \"co-simulation\"\n";
    else
      out << "kind = \"model-exchange\"\nintegrator = "
          << quoted(c.integrator.empty() ? "rk4" : c.integrator) << "\n";
    if (c.h)
      out << "h = " << number(*c.h) << "  # kausal's annotation\n";
    else
      out << "h = " << number(m.h) << "  # " << m.h_because << "\n";
    if (!c.numbers.empty() || !c.texts.empty()) {
      out << "parameters = {";
      const char* separator = " ";
      for (const auto& [name, value] : c.numbers) {
        out << separator << quoted(name) << " = " << number(value);
        separator = ", ";
      }
      for (const auto& [name, text] : c.texts) {
        out << separator << quoted(name) << " = " << quoted(text);
        separator = ", ";
      }
      out << " }\n";
    }
  }
  for (const fmu::SspConnection& c : s.connections)
    out << "\n[[coupling]]  # SystemStructure.ssd:" << c.line
        << "\nfrom = " << quoted(c.from + "." + c.from_connector)
        << "\nto = " << quoted(c.to + "." + c.to_connector) << "\n";
  return out.str();
}

}  // namespace

bool is_ssp_archive(const fs::path& file) {
  // (Only a regular file is opened: a FIFO would block, and read_input_file names it.)
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return false;
  std::ifstream in(file, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, sizeof magic) && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 &&
         magic[3] == 4;
}

std::string scenario_text(const fs::path& file, const std::string& written_as) {
  if (!is_ssp_archive(file)) return read_input_file(file, "scenario file");
  return scenario_of(map_system(file), written_as.empty()
                                           ? fs::absolute(file).lexically_normal().string()
                                           : written_as);
}

fs::path unpacked_ssp(const fs::path& archive) {
  // An archive is hashed once per process (loading an .ssp reads it as a system, then as the
  // scenario that names it): by its path, size and time of change, and the cache it went to.
  static std::mutex mutex;
  static std::map<std::tuple<std::string, std::uintmax_t, fs::file_time_type, std::string>,
                  fs::path>
      known;
  std::error_code ec;
  const auto key = std::make_tuple(fs::absolute(archive).string(), fs::file_size(archive, ec),
                                   fs::last_write_time(archive, ec), cache_root().string());
  const std::lock_guard lock(mutex);
  if (const auto it = known.find(key);
      it != known.end() && fs::exists(it->second / ".kausal-complete", ec))
    return it->second;
  const fs::path dir = cache_root() / file_sha256(archive);
  known[key] = dir;
  const fs::path complete = dir / ".kausal-complete";
  if (fs::exists(complete, ec)) return dir;
  // Unpacked beside it and renamed into place: a process that finds the directory finds it
  // whole, and two that unpack at once both end with one.
  const fs::path partial = dir.string() + ".partial-" + std::to_string(getpid());
  try {
    fs::create_directories(dir.parent_path());
    fs::remove_all(partial);
    fmu::unpack_fmu(archive, partial);
    std::ofstream(partial / ".kausal-complete") << archive.string() << "\n";
    fs::rename(partial, dir, ec);
    if (ec && fs::exists(complete)) {  // another process was first
      fs::remove_all(partial);
    } else if (ec) {  // something else is in the way
      fs::remove_all(dir);
      fs::rename(partial, dir);
    }
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(partial, ec);
    throw InputError(archive.string() + ": cannot unpack it into " + dir.string() + ": " +
                     e.what());
  }
  return dir;
}

namespace {

// The hold of the SSP's couplings: that of its first coupling of numbers (a String's is 0
// whatever the system's).
int system_hold(const PartitionedScenario& s) {
  for (const CouplingSpec& c : s.couplings)
    if (!c.text) return c.hold;
  return 0;
}

// Why the scenario cannot be written as an SSP, or empty: the run settings an SSD and
// kausal's annotations have no place for.
std::string not_carried(const PartitionedScenario& s) {
  if (s.master) return "[master]: the co-simulation master's settings have no place in an SSP";
  if (s.bridge) return "[events]: a hybrid model's discrete side has no place in an SSP";
  if (s.tolerance > 0) return "run.tolerance (the prediction tolerance) has no place in an SSP";
  for (const SubsystemSpec& sub : s.subsystems) {
    const std::string what = "subsystem '" + sub.name + "'";
    if (sub.model != "fmu")
      return what + " is kausal's model '" + sub.model + "': an SSP carries FMUs only";
    if (!sub.constant_inputs.empty())
      return what + " holds input '" + sub.constant_inputs.front().first +
             "' at a value (inputs = ...): an SSP connects inputs, it does not hold them";
    if (!sub.input_tables.empty())
      return what + " reads input '" + sub.input_tables.front().first +
             "' from a file (input_table): an SSP connects inputs, it does not read them";
  }
  for (const PartitionSpec& p : s.partitions) {
    if (p.members.size() > 1)
      return "partition '" + p.name + "' holds " + std::to_string(p.members.size()) +
             " subsystems: in an SSP each component is stepped on its own";
    const NewtonSettings defaults;
    if (p.newton.max_iterations != defaults.max_iterations ||
        p.newton.tolerance != defaults.tolerance ||
        p.newton.accept_at_limit != defaults.accept_at_limit)
      return "partition '" + p.name + "' sets Newton's iterations: they have no place in an SSP";
  }
  const InputPredictor plain;
  const int hold = system_hold(s);
  for (const CouplingSpec& c : s.couplings) {
    if (c.text) continue;  // held, whatever the SSP's hold: a String connection
    const std::string what = "the coupling " + s.subsystems[c.from].name + "." +
                             s.subsystems[c.from].signature.outputs[c.from_output] + " -> " +
                             s.subsystems[c.to].name + "." +
                             s.subsystems[c.to].signature.inputs[c.to_input];
    if (c.hold != hold)
      return what + " has a hold of its own: an SSP carries one hold for all couplings";
    if (c.accepts != 3 || c.predictor.choose_order != plain.choose_order ||
        c.predictor.smooth != plain.smooth || c.predictor.calibration != plain.calibration)
      return what + " sets its predictor or accepts: it has no place in an SSP";
  }
  return {};
}

// The archive's entry for each FMU file: resources/<its name>, a second file of the same name
// numbered; one entry for a file that several subsystems use.
std::map<std::string, std::string> resource_names(const PartitionedScenario& s) {
  std::map<std::string, std::string> entries;
  std::set<std::string> taken;
  for (const SubsystemSpec& sub : s.subsystems) {
    if (entries.contains(sub.fmu.archive)) continue;
    const fs::path file(sub.fmu.archive);
    std::string entry = "resources/" + file.filename().string();
    for (int k = 2; taken.contains(entry); ++k)
      entry = "resources/" + file.stem().string() + "_" + std::to_string(k) + ".fmu";
    taken.insert(entry);
    entries[sub.fmu.archive] = entry;
  }
  return entries;
}

fmu::SspComponent component_of(const PartitionedScenario& s, const SubsystemSpec& sub,
                               const std::string& source) {
  const fmu::ModelDescription md = fmu::read_model_description(sub.fmu.archive);
  fmu::SspComponent c;
  c.name = sub.name;
  c.source = source;
  c.implementation = sub.fmu.co_simulation ? fmu::SspImplementation::co_simulation
                                           : fmu::SspImplementation::model_exchange;
  for (const auto& [name, value] : sub.parameters) {
    c.numbers.emplace_back(name, value);
    if (const fmu::Variable* v = md.find(name)) c.number_types[name] = v->type;
  }
  c.texts = sub.fmu.strings;
  for (const fmu::Variable& v : md.variables)
    if ((v.causality == fmu::Causality::input || v.causality == fmu::Causality::output ||
         v.causality == fmu::Causality::parameter) &&
        v.type != fmu::ValueType::binary && !v.text_array)
      c.connectors.push_back({v.name, v.causality, v.type});
  const PartitionSpec& p = s.partitions[sub.partition];
  if (!sub.fmu.co_simulation)
    c.integrator = p.automatic ? "auto" : std::string(ode_method_name(p.method));
  c.h = p.h;
  return c;
}

}  // namespace

std::size_t export_ssp(const PartitionedScenario& s, const fs::path& out) {
  if (const std::string why = not_carried(s); !why.empty())
    throw InputError(s.file + ": " + why + " (kausal export-ssp)");
  const auto resources = resource_names(s);
  fmu::SspSystem system;
  system.name = s.name;
  system.description = s.description;
  system.stop_time = s.t_end;
  system.output_interval = static_cast<double>(s.output_ticks) * s.tick;
  system.hold = system_hold(s);
  if (s.method != SyncMethod::sequential) system.method = std::string(name_of(s.method));
  for (const SubsystemSpec& sub : s.subsystems)
    system.components.push_back(component_of(s, sub, resources.at(sub.fmu.archive)));
  for (const CouplingSpec& c : s.couplings)
    if (c.lane == 0)  // a coupled String is one connection (its lane 0 carries its name)
      system.connections.push_back(
          {s.subsystems[c.from].name, s.subsystems[c.from].signature.outputs[c.from_output],
           s.subsystems[c.to].name, s.subsystems[c.to].signature.inputs[c.to_input], 0});
  std::vector<std::pair<std::string, fs::path>> files;
  for (const auto& [archive, entry] : resources) files.emplace_back(entry, archive);
  fmu::write_zip(out, {{"SystemStructure.ssd", fmu::write_ssp_description(system)}}, files);
  return files.size();
}

}  // namespace kausal
