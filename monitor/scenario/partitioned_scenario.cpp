#include "monitor/scenario/partitioned_scenario.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "common/errors.hpp"
#include "common/listed.hpp"
#include "monitor/scenario/event_model_reader.hpp"
#include "monitor/scenario/input_file.hpp"
#include "monitor/scenario/input_table_file.hpp"
#include "monitor/scenario/ssp_scenario.hpp"
#include "monitor/scenario/toml_reader.hpp"
#include "system/fmu/fmu_archive.hpp"
#include "system/fmu/fmu_model.hpp"
#include "system/fmu/text_lanes.hpp"
#include "system/model_library.hpp"

namespace kausal {
namespace {

std::string line_of(const toml::node& n) {
  return std::to_string(n.source().begin.line);
}

std::size_t position(const std::vector<std::string>& names, const std::string& name) {
  return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

// The value the subsystem's parameters table gives `name`, if it gives one (events set only
// a parameter given there: its value is where they start from).
std::optional<double> parameter_of(const SubsystemSpec& sub, const std::string& name) {
  for (const auto& [given, value] : sub.parameters)
    if (given == name) return value;
  return std::nullopt;
}

std::vector<std::string> parameter_names(const SubsystemSpec& sub) {
  std::vector<std::string> names;
  for (const auto& p : sub.parameters) names.push_back(p.first);
  return names;
}

using Texts = std::vector<std::pair<std::string, std::string>>;

// A table of numbers ({ g_up = 20, g_down = 20 }) as name/value pairs; its strings go to
// `texts` when given (an FMU's String variables), and are refused otherwise.
Parameters numbers_of(TableReader& r, const std::string& key, Texts* texts = nullptr) {
  Parameters out;
  const toml::table* t = r.subtable(key);
  if (!t) return out;
  TableReader inner(*t, "", r.qualified(key));
  for (auto&& [k, node] : *t) {
    const std::string name(k.str());
    if (texts && node.is_string()) {
      texts->emplace_back(name, node.as_string()->get());
      continue;
    }
    if (!node.is_number())
      r.fail_at(node.source(), r.qualified(key) + "." + name + " must be a number" +
                                   (texts ? " (or text, for a String variable)" : ""));
    const double v = number_value(node);
    if (!std::isfinite(v))
      r.fail_at(node.source(), r.qualified(key) + "." + name + " must be finite");
    out.emplace_back(name, v);
  }
  return out;
}

struct PartitionDraft {
  PartitionSpec spec;
  std::string method_name;
  int line = 0;
  std::uint32_t h_line = 0;
};

class Reader {
 public:
  Reader(const toml::table& root, std::string file, const ScenarioLimits& limits,
         std::filesystem::path fmu_base)
      : root_(root), file_(std::move(file)), limits_(limits), fmu_base_(std::move(fmu_base)) {
    s_.dir = std::filesystem::absolute(fmu_base_.empty() ? "." : fmu_base_).lexically_normal();
  }

  PartitionedScenario read() {
    TableReader top(root_, file_, "");
    s_.file = file_;
    s_.name = top.text("name").value_or(std::filesystem::path(file_).stem().string());
    s_.description = top.text("description").value_or("");
    const toml::table* run = top.subtable("run");
    if (!run) top.fail_at(root_.source(), "missing table [run]");
    TableReader r(*run, file_, "run");
    s_.t_end = r.required_number("t_end");
    if (!(s_.t_end > 0)) r.fail("t_end", "must be > 0");
    default_hold_ = hold_order(r, "hold").value_or(0);
    default_predictor_ = predictor(r, InputPredictor{});
    s_.tolerance = r.number("tolerance").value_or(0.0);
    const auto method = sync_method_named(r.text("method").value_or("sequential"));
    if (!method) r.fail("method", "must be sequential, conservative or optimistic");
    s_.method = *method;
    if (s_.tolerance < 0) r.fail("tolerance", "must be >= 0");
    const auto interval = r.number("output_interval");

    if (const auto ssp = top.text("ssp")) read_ssp(top, *ssp);
    note_coupled_ports();
    read_subsystems(top);
    read_partitions(top);
    read_bridge(top);
    read_couplings(top);
    const toml::table* master = top.subtable("master");
    top.reject_unknown_keys();
    settle_steps(r, interval);
    r.reject_unknown_keys();
    if (master) read_master(*master);
    return std::move(s_);
  }

 private:
  [[noreturn]] void fail(const toml::node& at, const std::string& m) const {
    fail_at_line(at.source().begin.line, m);
  }
  [[noreturn]] void fail_at_line(std::uint32_t line, const std::string& m) const {
    throw InputError(file_ + ":" + std::to_string(line) + ": " + m);
  }

  std::optional<int> hold_order(TableReader& r, const std::string& key) {
    auto order = r.integer(key);
    if (order && (*order < 0 || *order > 2)) r.fail(key, "must be 0, 1 or 2");
    return order ? std::optional<int>(static_cast<int>(*order)) : std::nullopt;
  }

  // How a coupling predicts (integrator/prediction.hpp), from `defaults` ([run]'s own).
  InputPredictor predictor(TableReader& r, InputPredictor p) {
    p.choose_order = r.flag("choose_order").value_or(p.choose_order);
    p.smooth = r.flag("smooth").value_or(p.smooth);
    p.calibration =
        r.choice<Calibration>("calibration", {{"extrapolation", Calibration::extrapolation},
                                              {"least-squares", Calibration::least_squares}})
            .value_or(p.calibration);
    if (const auto threshold = r.number("order_threshold")) {
      if (!(*threshold > 0)) r.fail("order_threshold", "must be > 0");
      p.threshold = *threshold;
    }
    return p;
  }

  // [master]: every macro step and synchronisation point on the grid of every partition.
  void read_master(const toml::table& t) {
    TableReader r(t, file_, "master");
    MasterSpec m;
    std::uint64_t grid = 1;
    for (const auto& p : s_.partitions) grid = std::lcm(grid, p.ticks_per_step);
    m.grid_ticks = grid;
    const std::string unit =
        "a whole multiple of " + format_number(s_.tick * grid) + " s (every partition's step)";
    auto ticks_of = [&](const std::string& key, double value) {
      const auto ticks = whole_multiple(value, s_.tick);
      if (!(value > 0) || !ticks || *ticks % grid != 0 || *ticks > s_.ticks)
        r.fail(key, "must be " + unit + ", at most t_end");
      return *ticks;
    };
    m.step_ticks = ticks_of("step", r.required_number("step"));
    m.min_ticks = ticks_of("min_step", r.number("min_step").value_or(s_.tick * grid));
    m.max_ticks = ticks_of("max_step", r.number("max_step").value_or(s_.tick * m.step_ticks));
    if (m.min_ticks > m.step_ticks || m.step_ticks > m.max_ticks)
      r.fail("step", "must lie between min_step and max_step");
    m.exchange =
        r.choice<ExchangeOrder>("exchange", {{"jacobi", ExchangeOrder::jacobi},
                                             {"gauss-seidel", ExchangeOrder::gauss_seidel}})
            .value_or(m.exchange);
    const auto iterations = r.integer("iterations").value_or(0);
    if (iterations < 0 || iterations > 100) r.fail("iterations", "must be 0 to 100");
    m.iterations = static_cast<std::uint32_t>(iterations);
    m.error_control = r.flag("error_control").value_or(false);
    m.surrogate = r.flag("surrogate").value_or(false);
    const auto window = r.integer("surrogate_window").value_or(m.surrogate_window);
    if (window < 1 || window > 100) r.fail("surrogate_window", "must be 1 to 100");
    if (r.has("surrogate_window") && !m.surrogate)
      r.fail("surrogate_window", "applies with surrogate = true");
    m.surrogate_window = static_cast<std::uint32_t>(window);
    if (m.surrogate && std::any_of(s_.couplings.begin(), s_.couplings.end(),
                                   [](const CouplingSpec& c) { return c.text; }))
      r.fail("surrogate", "a fitted linear surrogate cannot stand in for a coupled String");
    read_control(r, m.control);
    for (double at : r.numbers("sync_points", 10000).value_or(std::vector<double>{})) {
      const std::uint64_t tick = ticks_of("sync_points", at);
      if (!m.sync_ticks.empty() && tick <= m.sync_ticks.back())
        r.fail("sync_points", "must be ascending");
      m.sync_ticks.push_back(tick);
    }
    r.reject_unknown_keys();
    s_.master = m;
  }

  static void read_control(TableReader& r, MacroStepControl& c) {
    auto positive = [&](const std::string& key, double& field) {
      field = r.number(key).value_or(field);
      if (!(field > 0)) r.fail(key, "must be > 0");
    };
    positive("rtol", c.rtol);
    positive("atol", c.atol);
    c.safety = r.number("safety").value_or(c.safety);
    if (!(c.safety > 0 && c.safety <= 1)) r.fail("safety", "must be in (0, 1]");
    c.exponent = r.number("exponent").value_or(c.exponent);
    if (c.exponent < 0) r.fail("exponent", "must be >= 0 (0: 1/(order + 1))");
    c.max_growth = r.number("max_growth").value_or(c.max_growth);
    if (!(c.max_growth >= 1)) r.fail("max_growth", "must be >= 1");
    c.max_shrink = r.number("max_shrink").value_or(c.max_shrink);
    if (!(c.max_shrink > 0 && c.max_shrink <= 1)) r.fail("max_shrink", "must be in (0, 1]");
    c.norm = r.choice<ErrorNorm>("norm", {{"absolute", ErrorNorm::absolute},
                                          {"relative", ErrorNorm::relative},
                                          {"mixed", ErrorNorm::mixed}})
                 .value_or(c.norm);
    c.aggregation = r.choice<ErrorAggregation>("aggregation", {{"min", ErrorAggregation::min},
                                                               {"mean", ErrorAggregation::mean}})
                        .value_or(c.aggregation);
  }

  // The file a field names, relative to the scenario's directory (or the SSP's files);
  // `missing` ends the message when it is not a regular file.
  std::filesystem::path file_named(TableReader& r, const std::string& key, const std::string& given,
                                   const std::string& missing) const {
    const std::filesystem::path path = fmu_base_ / given;
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error))
      r.fail(key, "'" + path.string() + "'" + missing);
    return path;
  }

  // ssp = "system.ssp": the FMU paths of the subsystems lie inside that archive.
  void read_ssp(TableReader& top, const std::string& ssp) {
    const std::filesystem::path archive = file_named(top, "ssp", ssp, ": no such file");
    if (!is_ssp_archive(archive))
      top.fail("ssp", "'" + archive.string() + "' is not an SSP archive (a zip)");
    fmu_base_ = unpacked_ssp(archive);
    // Its FMUs are the archive's: the archive is the file read (unless it is the scenario
    // itself, which a run keeps a copy of).
    fmus_in_ssp_ = true;
    std::error_code ec;
    if (!std::filesystem::equivalent(archive, file_, ec))
      note_file(std::filesystem::absolute(archive).lexically_normal().string());
  }

  const toml::array& tables(TableReader& top, const std::string& key, bool required) {
    static const toml::array none;
    const toml::node* node = top.take(key);
    if (!node) {
      if (required) top.fail_at(root_.source(), "no subsystems: add [[subsystem]] tables");
      return none;
    }
    if (!node->is_array_of_tables()) top.fail(key, "must be an array of tables ([[" + key + "]])");
    return *node->as_array();
  }

  void note_file(const std::string& absolute) {
    if (std::find(s_.files.begin(), s_.files.end(), absolute) == s_.files.end())
      s_.files.push_back(absolute);
  }

  // What the [[coupling]] tables name, read ahead: an FMU's String port is a port (of
  // text_lanes numbers) only when a coupling names it. read_couplings checks them all.
  void note_coupled_ports() {
    const toml::array* list = root_["coupling"].as_array();
    if (!list) return;
    for (const toml::node& node : *list)
      if (const toml::table* t = node.as_table())
        for (const char* end : {"from", "to"})
          if (const auto name = (*t)[end].value<std::string>()) coupled_ports_.insert(*name);
  }

  void read_subsystems(TableReader& top) {
    const toml::array& list = tables(top, "subsystem", true);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const toml::table& t = *list[i].as_table();
      TableReader r(t, file_, "subsystem[" + std::to_string(i + 1) + "]");
      SubsystemSpec sub;
      sub.name = r.text("name").value_or("");
      if (sub.name.empty() || sub.name.find('.') != std::string::npos)
        r.fail_at(t.source(), r.qualified("name") + " must be given, without '.'");
      if (by_name_.count(sub.name)) r.fail("name", "'" + sub.name + "' is used twice");
      const auto model = r.text("model");
      if (!model) r.fail_at(t.source(), "missing field " + r.qualified("model"));
      sub.model = *model;
      sub.parameters = numbers_of(r, "parameters", sub.model == "fmu" ? &sub.fmu.strings : nullptr);
      sub.constant_inputs = numbers_of(r, "inputs");
      std::set<std::string> discrete_inputs;  // held between a table's rows by default
      if (sub.model == "fmu") {
        read_fmu(r, t, sub, discrete_inputs);
      } else {
        read_library(r, sub);
        try {
          const auto built = make_model(sub.name, sub.model, sub.parameters);
          sub.signature = built->signature();
          sub.indicators = built->indicator_count();
          sub.steps_itself = built->steps_itself();
          if (sub.steps_itself)
            sub.uncut_because = "model '" + sub.model +
                                "' steps itself one sample period at a time (a cut step "
                                "would sample it early)";
        } catch (const ModelError& e) {
          fail(t, r.qualified("") + " " + e.what());
        }
      }
      for (const auto& [input, value] : sub.constant_inputs)
        if (position(sub.signature.inputs, input) == sub.signature.inputs.size())
          r.fail("inputs", "names '" + input + "', not an input of model '" + sub.model +
                               "' (inputs: " + listed(sub.signature.inputs) + ")");
      read_input_table(r, sub, discrete_inputs);
      // A subsystem with its own integrator is a partition of its own.
      if (r.has("integrator") || r.has("h")) drafts_.push_back(partition_of(r, t, sub.name, {i}));
      r.reject_unknown_keys();
      by_name_[sub.name] = i;
      s_.subsystems.push_back(std::move(sub));
      subsystem_lines_.push_back(t.source().begin.line);
    }
  }

  // library = "build/libtank.so": a model library built out of tree that registers the
  // model (relative to the scenario's directory), loaded here to check the model.
  void read_library(TableReader& r, SubsystemSpec& sub) {
    const auto library = r.text("library");
    // A model an earlier subsystem's library registered comes from that library.
    if (!library) {
      sub.library = library_of_model(sub.model);
      return;
    }
    const std::filesystem::path path =
        std::filesystem::absolute(file_named(r, "library", *library, ": no such file"));
    if (path.extension() != ".so")
      r.fail("library", "'" + path.string() + "' is not a shared object (.so)");
    sub.library = path.lexically_normal().string();
    note_file(sub.library);
    try {
      load_model_library(sub.name, sub.library);
    } catch (const ModelError& e) {
      r.fail("library", e.reason());
    }
  }

  // input_table = "inputs.csv": inputs of the subsystem that follow the file's columns,
  // interpolated linearly, or held between rows (input_interpolation = "hold"; an FMU's
  // discrete inputs are held unless it says "linear").
  void read_input_table(TableReader& r, SubsystemSpec& sub,
                        const std::set<std::string>& discrete_inputs) {
    const auto interpolation = r.choice<Interpolation>(
        "input_interpolation", {{"linear", Interpolation::linear}, {"hold", Interpolation::hold}});
    const auto file = r.text("input_table");
    if (!file) {
      if (interpolation) r.fail("input_interpolation", "needs an input_table");
      return;
    }
    const std::filesystem::path path = file_named(r, "input_table", *file, " is not a file");
    note_file(std::filesystem::absolute(path).lexically_normal().string());
    try {
      sub.input_tables = read_input_tables(path);
    } catch (const InputError& e) {
      r.fail("input_table", e.what());
    }
    for (auto& [name, table] : sub.input_tables) {
      const std::string& input = name;  // (a structured binding cannot be captured in C++20)
      const std::string column = "'" + path.filename().string() + "': column '" + input + "' ";
      if (position(sub.signature.inputs, input) == sub.signature.inputs.size())
        r.fail("input_table", column + "is not an input of subsystem '" + sub.name +
                                  "' (inputs: " + listed(sub.signature.inputs) + ")");
      if (std::any_of(sub.constant_inputs.begin(), sub.constant_inputs.end(),
                      [&](const auto& c) { return c.first == input; }))
        r.fail("input_table", column + "is also given in inputs");
      table.interpolation = interpolation.value_or(
          discrete_inputs.count(input) ? Interpolation::hold : Interpolation::linear);
    }
  }

  // model = "fmu": the archive (relative to the scenario's directory), which of its
  // interfaces, and start values checked against its modelDescription.xml; `discrete_inputs`
  // gets its inputs that are not continuous Reals. No binary is loaded here.
  void read_fmu(TableReader& r, const toml::table& t, SubsystemSpec& sub,
                std::set<std::string>& discrete_inputs) {
    const auto file = r.text("fmu");
    if (!file) r.fail_at(t.source(), "missing field " + r.qualified("fmu") + " (model \"fmu\")");
    const std::filesystem::path path = file_named(r, "fmu", *file, " is not a file");
    fmu::ModelDescription md;
    try {
      md = fmu::read_model_description(path);
    } catch (const InputError& e) {
      r.fail("fmu", e.what());
    }
    fmu::FmuKind kind = default_fmu_kind(md);
    if (const auto named = r.text("kind")) {
      if (*named != "model-exchange" && *named != "co-simulation")
        r.fail("kind", "must be \"model-exchange\" or \"co-simulation\"");
      kind = *named == "co-simulation" ? fmu::FmuKind::co_simulation : fmu::FmuKind::model_exchange;
    } else if (r.text("integrator").value_or("") == "co-simulation" && md.co_simulation) {
      kind = fmu::FmuKind::co_simulation;
    }
    for (const fmu::Variable& v : md.variables)
      if (v.type == fmu::ValueType::string && !v.text_array &&
          (v.causality == fmu::Causality::input || v.causality == fmu::Causality::output) &&
          coupled_ports_.count(sub.name + "." + v.name))
        sub.fmu.coupled_texts.push_back(v.name);
    try {
      const FmuPorts ports = fmu_ports(md, kind, sub.fmu.coupled_texts);
      sub.signature = ports.signature;
      sub.text_inputs = ports.text_inputs;
      sub.text_outputs = ports.text_outputs;
      for (std::size_t k = 0; k < ports.inputs.size(); ++k) {
        const fmu::Variable& v = md.variables[ports.inputs[k]];
        if (v.type != fmu::ValueType::real || v.variability != fmu::Variability::continuous)
          discrete_inputs.insert(ports.signature.inputs[k]);
      }
      sub.steps_itself = ports.steps_itself;
      if (!ports.steps_itself) sub.indicators = md.event_indicators;
      if (kind == fmu::FmuKind::co_simulation &&
          !md.interface_of(kind).can_handle_variable_communication_step_size)
        sub.uncut_because =
            "it is a co-simulation FMU that does not declare "
            "canHandleVariableCommunicationStepSize (a cut step is shorter than h)";
    } catch (const InputError& e) {
      r.fail("fmu", e.what());
    }
    // A value outside the range the FMU declares is refused unless the scenario says the FMU
    // wants it (check_ranges = false).
    const bool ranges = r.flag("check_ranges").value_or(true);
    const auto refuse = [&](const char* key, const std::string& problem) {
      if (!problem.empty()) r.fail(key, problem + " (" + path.filename().string() + ")");
    };
    auto check = [&](const char* key, const Parameters& values, const Texts& texts) {
      for (const auto& [name, value] : values) {
        std::string problem = start_value_problem(md, name);
        if (problem.empty() && ranges) problem = range_problem(md, name, value);
        refuse(key, problem);
      }
      for (const auto& text : texts) refuse(key, start_value_problem(md, text.first, true));
    };
    Texts start_texts;
    const Parameters starts = numbers_of(r, "start", &start_texts);
    check("parameters", sub.parameters, sub.fmu.strings);
    check("start", starts, start_texts);
    sub.parameters.insert(sub.parameters.end(), starts.begin(), starts.end());
    sub.fmu.strings.insert(sub.fmu.strings.end(), start_texts.begin(), start_texts.end());
    sub.fmu.archive = std::filesystem::absolute(path).lexically_normal().string();
    if (!fmus_in_ssp_) note_file(sub.fmu.archive);
    sub.fmu.co_simulation = kind == fmu::FmuKind::co_simulation;
  }

  // A model that steps itself (a co-simulation FMU, a sampled controller) is alone in its
  // partition and stepped by "co-simulation"; nothing else is.
  void check_co_simulation() const {
    for (std::size_t p = 0; p < drafts_.size(); ++p) {
      const PartitionSpec& spec = drafts_[p].spec;
      std::string itself, hint;
      for (std::size_t m : spec.members) {
        const SubsystemSpec& sub = s_.subsystems[m];
        if (!sub.steps_itself) continue;
        itself = sub.name;
        if (sub.model == "fmu")
          hint = sub.fmu.co_simulation
                     ? " (an FMU may also take kind = \"model-exchange\")"
                     : " (a model-exchange FMU without continuous states steps from event to "
                       "event)";
      }
      const bool stepped = spec.method == OdeMethod::co_simulation;
      const auto line = static_cast<std::uint32_t>(drafts_[p].line);
      if (!itself.empty() && spec.members.size() > 1)
        fail_at_line(line, "partition '" + spec.name + "': subsystem '" + itself +
                               "' steps itself and must be alone in its partition");
      if (!itself.empty() && !stepped)
        fail_at_line(line, "partition '" + spec.name + "': subsystem '" + itself +
                               "' steps itself: set integrator = \"co-simulation\"" + hint);
      if (itself.empty() && stepped)
        fail_at_line(line, "partition '" + spec.name +
                               "': integrator \"co-simulation\" steps a model that steps itself "
                               "(a co-simulation FMU, or sampled_pi) only");
    }
  }

  // How an implicit integrator solves its step equation: newton_iterations (1..1000),
  // newton_tolerance (0 < tol < 1), newton_at_limit ("fail" or "accept"). Only for an
  // integrator that uses Newton (or "auto", which may choose one).
  void read_newton(TableReader& r, PartitionSpec& spec) {
    NewtonSettings& n = spec.newton;
    const bool given =
        r.has("newton_iterations") || r.has("newton_tolerance") || r.has("newton_at_limit");
    if (const auto k = r.integer("newton_iterations")) {
      if (*k < 1 || *k > NewtonSettings::most_iterations)
        r.fail("newton_iterations",
               "must be 1 to " + std::to_string(NewtonSettings::most_iterations));
      n.max_iterations = static_cast<int>(*k);
    }
    if (const auto tol = r.number("newton_tolerance")) {
      if (!(*tol > 0 && *tol < 1)) r.fail("newton_tolerance", "must lie between 0 and 1");
      n.tolerance = *tol;
    }
    if (const auto at = r.choice<bool>("newton_at_limit", {{"fail", false}, {"accept", true}}))
      n.accept_at_limit = *at;
    if (given && !spec.automatic && !uses_newton(spec.method))
      r.fail(r.has("newton_iterations")  ? "newton_iterations"
             : r.has("newton_tolerance") ? "newton_tolerance"
                                         : "newton_at_limit",
             "applies to the implicit integrators (backward_euler, am1..am4), not " +
                 std::string(ode_method_name(spec.method)));
  }

  PartitionDraft partition_of(TableReader& r, const toml::table& t, const std::string& name,
                              std::vector<std::size_t> members) {
    PartitionDraft d;
    d.spec.name = name;
    d.spec.members = std::move(members);
    d.line = t.source().begin.line;
    const auto method = r.text("integrator");
    if (!method) r.fail_at(t.source(), "missing field " + r.qualified("integrator"));
    const toml::node* at = t.get("integrator");
    d.spec.automatic = *method == "auto";
    d.spec.method = d.spec.automatic ? OdeMethod::rk4
                                     : parse_ode_method(*method, file_ + ":" + line_of(*at) + ": ");
    d.spec.h = r.required_number("h");
    if (!(d.spec.h > 0)) r.fail("h", "must be > 0");
    read_newton(r, d.spec);
    d.h_line = t.get("h")->source().begin.line;
    return d;
  }

  void read_partitions(TableReader& top) {
    const toml::array& list = tables(top, "partition", false);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const toml::table& t = *list[i].as_table();
      TableReader r(t, file_, "partition[" + std::to_string(i + 1) + "]");
      const auto name = r.text("name");
      if (!name || name->empty()) r.fail_at(t.source(), "missing field " + r.qualified("name"));
      const toml::node* members = r.take("subsystems");
      if (!members || !members->is_array() || members->as_array()->empty())
        r.fail_at(t.source(), r.qualified("subsystems") + " must list subsystem names");
      std::vector<std::size_t> indices;
      for (const auto& m : *members->as_array()) {
        if (!m.is_string()) fail(m, r.qualified("subsystems") + " must list names (strings)");
        indices.push_back(subsystem_named(m, m.value<std::string>().value()));
      }
      drafts_.push_back(partition_of(r, t, *name, std::move(indices)));
      r.reject_unknown_keys();
    }
    std::vector<int> owner(s_.subsystems.size(), -1);
    for (std::size_t p = 0; p < drafts_.size(); ++p) {
      for (std::size_t k = p + 1; k < drafts_.size(); ++k)
        if (drafts_[k].spec.name == drafts_[p].spec.name)
          throw InputError(file_ + ":" + std::to_string(drafts_[k].line) + ": partition name '" +
                           drafts_[p].spec.name + "' is used twice");
      for (std::size_t m : drafts_[p].spec.members) {
        if (owner[m] >= 0)
          throw InputError(file_ + ":" + std::to_string(drafts_[p].line) + ": subsystem '" +
                           s_.subsystems[m].name + "' is in two partitions");
        owner[m] = static_cast<int>(p);
        s_.subsystems[m].partition = p;
      }
    }
    for (std::size_t m = 0; m < owner.size(); ++m)
      if (owner[m] < 0)
        fail_at_line(subsystem_lines_[m],
                     "subsystem '" + s_.subsystems[m].name +
                         "' belongs to no partition: give it 'integrator' and 'h', or list it in "
                         "a [[partition]]");
    check_co_simulation();
    for (auto& d : drafts_) {
      s_.partitions.push_back(std::move(d.spec));
      h_lines_.push_back(d.h_line);
    }
  }

  std::size_t subsystem_named(const toml::node& at, const std::string& name) const {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) {
      std::vector<std::string> known;
      for (const auto& sub : s_.subsystems) known.push_back(sub.name);
      fail(at, "no subsystem '" + name + "' (subsystems: " + listed(known) + ")");
    }
    return it->second;
  }

  // "sub.port" → (subsystem, port index among `ports` of its signature).
  // A coupled String's lanes are one port, named by the String (and only a coupling takes
  // it: `text` false refuses it).
  std::pair<std::size_t, std::size_t> port(const toml::node& at, const std::string& ref,
                                           bool output, bool text = false) {
    const auto dot = ref.find('.');
    if (dot == std::string::npos) fail(at, "'" + ref + "' must be 'subsystem.port'");
    const std::size_t sub = subsystem_named(at, ref.substr(0, dot));
    const auto& sig = s_.subsystems[sub].signature;
    const auto& ports = output ? sig.outputs : sig.inputs;
    const std::string name = ref.substr(dot + 1);
    const std::size_t k = position(ports, name);
    if (k == ports.size())
      fail(at, "'" + ref + "': model '" + s_.subsystems[sub].model + "' has no " +
                   (output ? "output" : "input") + " '" + name + "' (" +
                   (output ? "outputs: " : "inputs: ") + listed(ports) + ")");
    const auto& sub_spec = s_.subsystems[sub];
    for (std::size_t first : output ? sub_spec.text_outputs : sub_spec.text_inputs) {
      if (k < first || k >= first + text_lanes) continue;
      if (k > first)
        fail(at, "'" + ref + "' is a lane of the String '" + ports[first] +
                     "': couple the String by its name");
      if (!text)
        fail(at, "'" + ref + "' is a String: only a [[coupling]] to or from a String takes it");
    }
    return {sub, k};
  }

  // [events], [[event_output]], [[event_input]]: a hybrid model (docs/events.md, "Across the
  // boundary").
  void read_bridge(TableReader& top) {
    const toml::table* events = top.subtable("events");
    const bool outputs = top.has("event_output"), inputs = top.has("event_input");
    if (!events) {
      if (outputs || inputs)
        top.fail(outputs ? "event_output" : "event_input",
                 "needs an [events] table: the discrete-event model its events go to or come from");
      return;
    }
    TableReader r(*events, file_, "events");
    BridgeSpec b;
    const des::EventModelType& type = event_model_named(r, *root_.get("events"));
    b.model = type.name;
    b.parameters =
        event_model_parameters(r.subtable("parameters"), type, file_, "events.parameters");
    if (const auto tolerance = r.number("tolerance")) {
      if (!(*tolerance > 0)) r.fail("tolerance", "must be > 0");
      b.tolerance = *tolerance;
    }
    const auto groups = r.integer("groups");
    if (groups && (*groups < 1 || *groups > 1024)) r.fail("groups", "must be between 1 and 1024");
    r.reject_unknown_keys();
    try {
      b.built = type.make(b.parameters);
    } catch (const InputError& e) {
      fail(*root_.get("events"), e.what());
    }
    if (groups) {
      if (static_cast<std::size_t>(*groups) > b.built->components())
        r.fail("groups",
               "is more than the model's " + std::to_string(b.built->components()) + " components");
      b.groups = static_cast<std::uint32_t>(*groups);
    }
    read_event_outputs(top, b);
    read_event_inputs(top, b);
    for (std::size_t k = 0; k < s_.subsystems.size(); ++k)
      if (bridged_.count(k)) check_bridged(k);
    s_.bridge = std::move(b);
  }

  void read_event_outputs(TableReader& top, BridgeSpec& b) {
    const toml::array& list = tables(top, "event_output", false);
    const des::EventModel& model = *b.built;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const toml::table& t = *list[i].as_table();
      TableReader r(t, file_, "event_output[" + std::to_string(i + 1) + "]");
      const auto from = r.text("from");
      const auto to = r.text("to");
      const auto kind = r.text("kind");
      if (!from || !to || !kind) r.fail_at(t.source(), "an event output needs from, to and kind");
      EventOutputSpec o;
      if (r.has("indicator")) {
        read_indicator(r, *t.get("from"), *from, o);
      } else {
        std::tie(o.subsystem, o.output) = port(*t.get("from"), *from, true);
        o.carries = o.output;
        o.level = r.required_number("level");
      }
      if (const auto value = r.text("value")) {
        const auto [sub, k] = port(*t.get("value"), *value, true);
        if (sub != o.subsystem)
          r.fail("value", "'" + *value + "' must be an output of the subsystem the crossing is of");
        o.carries = k;
      } else if (o.of == CrossingOf::indicator) {
        r.fail_at(t.source(), "an event output of an indicator needs value (an output of '" +
                                  *from + "' its events carry)");
      }
      o.direction =
          r.choice<CrossingDirection>("direction", {{"rising", CrossingDirection::rising},
                                                    {"falling", CrossingDirection::falling},
                                                    {"either", CrossingDirection::either}})
              .value_or(CrossingDirection::either);
      o.component = component_named(r, model, *to);
      const auto k = model.kind_named(*kind);
      if (!k)
        r.fail("kind", "'" + *kind + "' is not an event kind " + model.component_name(o.component) +
                           " takes from a partition");
      o.kind = *k;
      if (const auto rate = r.number("max_rate")) {
        if (!(*rate > 0) || !std::isfinite(*rate))
          r.fail("max_rate",
                 "must be positive and finite (the most the watched value changes "
                 "per second)");
        o.max_rate = *rate;
      }
      r.reject_unknown_keys();
      const std::string watched = o.of == CrossingOf::indicator
                                      ? *from + ".indicator[" + std::to_string(o.output) + "]"
                                      : *from;
      o.name = watched + " → " + *to + "." + *kind;
      bridged_.insert(o.subsystem);
      b.outputs.push_back(o);
    }
  }

  // from = "subsystem", indicator = k: the subsystem's event indicator k (from 0, in the
  // order its model gives them: an FMU's fmi2GetEventIndicators), crossing 0.
  void read_indicator(TableReader& r, const toml::node& at, const std::string& from,
                      EventOutputSpec& o) {
    o.of = CrossingOf::indicator;
    o.subsystem = subsystem_named(at, from);
    const std::size_t count = s_.subsystems[o.subsystem].indicators;
    const std::int64_t k = *r.integer("indicator");
    if (k < 0 || static_cast<std::uint64_t>(k) >= count)
      r.fail("indicator", "is " + std::to_string(k) + ": '" + from + "' has " +
                              (count == 0 ? "no event indicators"
                                          : std::to_string(count) + " event indicator(s), 0 to " +
                                                std::to_string(count - 1)));
    o.output = static_cast<std::size_t>(k);
    if (r.has("level")) r.fail("level", "does not apply to an indicator, which crosses 0");
  }

  void read_event_inputs(TableReader& top, BridgeSpec& b) {
    const toml::array& list = tables(top, "event_input", false);
    const std::vector<std::string> ports = b.built->ports();
    if (!ports.empty() && list.empty())
      top.fail_at(root_.source(), "the event model '" + b.model + "' sends on port(s) " +
                                      listed(ports) + ": connect each with an [[event_input]]");
    std::vector<bool> connected(ports.size(), false);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const toml::table& t = *list[i].as_table();
      TableReader r(t, file_, "event_input[" + std::to_string(i + 1) + "]");
      const auto from = r.text("from");
      const auto to = r.text("to");
      if (!from || !to) r.fail_at(t.source(), "an event input needs from (a port) and to");
      EventInputSpec in;
      in.port = position(ports, *from);
      if (in.port == ports.size())
        r.fail("from", "'" + *from + "' is not a port of the event model '" + b.model +
                           "' (ports: " + listed(ports) + ")");
      connected[in.port] = true;
      const auto dot = to->find('.');
      if (dot == std::string::npos)
        r.fail("to", "'" + *to + "' must be 'subsystem.input' or 'subsystem.state'");
      in.subsystem = subsystem_named(*t.get("to"), to->substr(0, dot));
      const Signature& sig = s_.subsystems[in.subsystem].signature;
      const std::string name = to->substr(dot + 1);
      const auto effect = r.choice<EventEffect>(
          "effect", {{"set", EventEffect::set_state}, {"add", EventEffect::add_state}});
      if (const std::size_t k = position(sig.inputs, name); k < sig.inputs.size()) {
        if (effect)
          r.fail("effect", "applies to a state; an input is set, and held until the next event");
        in.effect = EventEffect::set_input;
        in.index = k;
        in.initial = r.number("initial").value_or(0.0);
        if (!held_.emplace(std::make_pair(in.subsystem, k), t.source().begin.line).second)
          r.fail("to", "'" + *to + "' is set by two event inputs");
      } else if (const std::size_t x = position(sig.states, name); x < sig.states.size()) {
        if (s_.subsystems[in.subsystem].steps_itself)
          r.fail("to", "'" + *to + "': '" + s_.subsystems[in.subsystem].name +
                           "' steps itself and shows its outputs, not states an event could "
                           "set (set one of its inputs: " +
                           listed(sig.inputs) + ")");
        in.effect = effect.value_or(EventEffect::set_state);
        in.index = x;
        if (r.has("initial")) r.fail("initial", "applies to an input");
      } else if (const auto value = parameter_of(s_.subsystems[in.subsystem], name)) {
        if (effect)
          r.fail("effect", "applies to a state; a parameter is set, and held until the next event");
        if (r.has("initial"))
          r.fail("initial",
                 "applies to an input; a parameter starts at its value in the subsystem");
        if (s_.subsystems[in.subsystem].model == "fmu")
          r.fail("to", "'" + *to +
                           "': an FMU's parameters are not set by events (only its "
                           "inputs and states)");
        in.effect = EventEffect::set_input;
        in.parameter = name;
        in.initial = *value;
        if (!held_parameters_.emplace(*to, t.source().begin.line).second)
          r.fail("to", "'" + *to + "' is set by two event inputs");
      } else {
        r.fail("to", "'" + *to + "': '" + s_.subsystems[in.subsystem].name +
                         "' has no input, state or parameter '" + name +
                         "' (inputs: " + listed(sig.inputs) + "; states: " + listed(sig.states) +
                         "; parameters given: " +
                         listed(parameter_names(s_.subsystems[in.subsystem])) + ")");
      }
      r.reject_unknown_keys();
      bridged_.insert(in.subsystem);
      b.inputs.push_back(in);
    }
    for (std::size_t k = 0; k < ports.size(); ++k)
      if (!connected[k])
        top.fail("event_input",
                 "leaves the port '" + ports[k] + "' of the event model unconnected");
  }

  des::ComponentId component_named(TableReader& r, const des::EventModel& model,
                                   const std::string& name) const {
    std::vector<std::string> names;
    for (des::ComponentId c = 0; c < model.components(); ++c) {
      if (model.component_name(c) == name) return c;
      if (names.size() < 20) names.push_back(model.component_name(c));
    }
    r.fail("to", "'" + name +
                     "' is not a component of the event model (components: " + listed(names) + ")");
  }

  // A subsystem with event outputs or inputs: its partition's steps are cut, which needs a
  // one-step method or a model that steps itself by steps of any length (a co-simulation
  // FMU that says so: docs/events.md).
  void check_bridged(std::size_t k) const {
    const SubsystemSpec& sub = s_.subsystems[k];
    const PartitionSpec& p = s_.partitions[sub.partition];
    if (!sub.uncut_because.empty())
      fail_at_line(subsystem_lines_[k], "subsystem '" + sub.name +
                                            "' has event outputs or inputs: the bridge cuts its "
                                            "steps, but " +
                                            sub.uncut_because);
    if (is_multistep(p.method))
      fail_at_line(subsystem_lines_[k], "subsystem '" + sub.name +
                                            "' has event outputs or inputs: its partition's "
                                            "integrator must be a one-step method (not " +
                                            std::string(ode_method_name(p.method)) + ")");
  }

  void read_couplings(TableReader& top) {
    const toml::array& list = tables(top, "coupling", false);
    std::map<std::pair<std::size_t, std::size_t>, std::uint32_t> driven;  // input → line
    for (std::size_t i = 0; i < list.size(); ++i) {
      const toml::table& t = *list[i].as_table();
      TableReader r(t, file_, "coupling[" + std::to_string(i + 1) + "]");
      const auto from = r.text("from");
      const auto to = r.text("to");
      if (!from || !to) r.fail_at(t.source(), "a coupling needs 'from' and 'to'");
      CouplingSpec c;
      std::tie(c.from, c.from_output) = port(*t.get("from"), *from, true, true);
      std::tie(c.to, c.to_input) = port(*t.get("to"), *to, false, true);
      if (c.from == c.to) r.fail("to", "couples '" + s_.subsystems[c.to].name + "' to itself");
      c.hold = hold_order(r, "hold").value_or(default_hold_);
      c.predictor = predictor(r, default_predictor_);
      const auto accepts = r.integer("accepts").value_or(3);
      if (accepts < 0 || accepts > 3) r.fail("accepts", "must be 0, 1, 2 or 3");
      c.accepts = static_cast<int>(accepts);
      c.text = text_coupling(r, c, *from, *to);
      r.reject_unknown_keys();
      const auto key = std::make_pair(c.to, c.to_input);
      if (driven.count(key)) r.fail("to", "'" + *to + "' is driven twice");
      // A coupled String: one coupling per lane, the same in all but the lane.
      for (std::size_t lane = 0; lane < (c.text ? text_lanes : 1); ++lane) {
        CouplingSpec l = c;
        l.lane = lane;
        l.from_output += lane;
        l.to_input += lane;
        driven[{l.to, l.to_input}] = t.source().begin.line;
        s_.couplings.push_back(l);
        coupling_lines_.push_back(t.source().begin.line);
      }
    }
    for (std::size_t k = 0; k < s_.subsystems.size(); ++k) {
      const auto& sub = s_.subsystems[k];
      for (std::size_t i = 0; i < sub.signature.inputs.size(); ++i) {
        const auto named = [&](const auto& c) { return c.first == sub.signature.inputs[i]; };
        const bool constant =
            std::any_of(sub.constant_inputs.begin(), sub.constant_inputs.end(), named) ||
            std::any_of(sub.input_tables.begin(), sub.input_tables.end(), named);
        const bool coupled = driven.count({k, i}) > 0;
        const auto held = held_.find({k, i});
        const std::string input = "input '" + sub.name + "." + sub.signature.inputs[i] + "'";
        if (constant && coupled)
          throw InputError(file_ + ":" + std::to_string(driven[{k, i}]) + ": " + input +
                           " is coupled and also given in inputs or input_table");
        if (held != held_.end() && (constant || coupled))
          fail_at_line(held->second, input + " is set by events and also " +
                                         (coupled ? "coupled" : "given in inputs or input_table"));
        if (!constant && !coupled && held == held_.end())
          fail_at_line(subsystem_lines_[k],
                       input + " is not connected: add a [[coupling]] to it, give it in " +
                           "subsystem.inputs or subsystem.input_table or set it by events " +
                           "([[event_input]])");
      }
    }
  }

  // Whether coupling `c` carries a String (both ends the first lanes of String ports: then
  // it is held, and takes no hold order, predictor or accepts of its own); a String at one
  // end only is refused.
  bool text_coupling(TableReader& r, CouplingSpec& c, const std::string& from,
                     const std::string& to) {
    const auto starts = [](const std::vector<std::size_t>& firsts, std::size_t k) {
      return std::find(firsts.begin(), firsts.end(), k) != firsts.end();
    };
    const bool text_out = starts(s_.subsystems[c.from].text_outputs, c.from_output);
    const bool text_in = starts(s_.subsystems[c.to].text_inputs, c.to_input);
    const auto kind = [](bool text) { return text ? "a String" : "a number"; };
    if (text_out != text_in)
      r.fail("to", "'" + from + "' is " + kind(text_out) + " and '" + to + "' " + kind(text_in) +
                       ": a String couples only to a String");
    if (!text_out) return false;
    for (const char* key :
         {"hold", "choose_order", "smooth", "calibration", "order_threshold", "accepts"})
      if (r.has(key))
        r.fail(key,
               "a coupled String is held from sample to sample: it takes no " + std::string(key));
    c.hold = 0;
    c.predictor = InputPredictor{};
    c.accepts = 0;
    return true;
  }

  // Every step a whole multiple of the smallest; steps of coupled partitions divide each
  // other (multirate with integer ratios); t_end and the output interval on every grid; no
  // more than kMaxSteps ticks, and output that fits the limit.
  void settle_steps(TableReader& r, std::optional<double> interval) {
    std::size_t fastest = 0;
    for (std::size_t p = 0; p < s_.partitions.size(); ++p)
      if (s_.partitions[p].h < s_.partitions[fastest].h) fastest = p;
    const double tick = s_.partitions[fastest].h;
    s_.tick = tick;
    const std::string smallest = "the smallest step " + format_number(tick) + " s (partition '" +
                                 s_.partitions[fastest].name + "')";
    const std::string limit = format_number(static_cast<double>(kMaxSteps));
    for (std::size_t k = 0; k < s_.partitions.size(); ++k) {
      PartitionSpec& p = s_.partitions[k];
      const auto ratio = whole_multiple(p.h, tick);
      if (ratio) {
        p.ticks_per_step = *ratio;
        continue;
      }
      const std::string what = "partition '" + p.name + "': h = " + format_number(p.h);
      if (p.h / tick > static_cast<double>(kMaxSteps))
        fail_at_line(h_lines_[k], what + " is more than " + limit + " times " + smallest);
      fail_at_line(h_lines_[k], what + " is not a whole multiple of " + smallest);
    }
    const auto ticks = whole_multiple(s_.t_end, tick);
    if (!ticks && s_.t_end / tick > static_cast<double>(kMaxSteps))
      r.fail("t_end", "is more than " + limit + " steps (the limit) of " + smallest);
    if (!ticks) r.fail("t_end", "must be a whole number of steps");
    s_.ticks = *ticks;
    std::uint64_t largest = 1;
    for (auto& p : s_.partitions) {
      if (s_.ticks % p.ticks_per_step != 0)
        r.fail("t_end", "is not a whole number of steps of partition '" + p.name + "'");
      p.steps = s_.ticks / p.ticks_per_step;
      largest = std::max(largest, p.ticks_per_step);
    }
    for (std::size_t k = 0; k < s_.couplings.size(); ++k) {
      const CouplingSpec& c = s_.couplings[k];
      if (!s_.crosses_partitions(c)) continue;
      const auto& a = s_.partitions[s_.subsystems[c.from].partition];
      const auto& b = s_.partitions[s_.subsystems[c.to].partition];
      const auto big = std::max(a.ticks_per_step, b.ticks_per_step);
      const auto small = std::min(a.ticks_per_step, b.ticks_per_step);
      if (big % small != 0)
        fail_at_line(coupling_lines_[k],
                     "partitions '" + a.name + "' and '" + b.name +
                         "' are coupled but their steps are not whole multiples of each other");
    }
    if (interval) {
      const auto every = whole_multiple(*interval, tick);
      if (!every)
        r.fail("output_interval",
               "must be a whole multiple (at most " + limit + " times) of " + smallest);
      s_.output_ticks = *every;
    } else {
      s_.output_ticks = largest;
    }
    for (const auto& p : s_.partitions)
      if (s_.output_ticks % p.ticks_per_step != 0)
        r.fail("output_interval",
               "must be a whole multiple of every partition's step ('" + p.name + "')");
    // trajectory.csv: t and every state, at the first tick, every output interval and the end.
    double states = 0;
    for (const auto& sub : s_.subsystems)
      states += static_cast<double>(sub.signature.states.size());
    const double rows = std::floor(static_cast<double>(s_.ticks) / s_.output_ticks) + 2;
    const std::string why = output_over_limit(rows, 1 + states, 0, limits_);
    if (!why.empty()) r.fail(interval ? "output_interval" : "t_end", why);
  }

  const toml::table& root_;
  std::string file_;
  const ScenarioLimits& limits_;
  std::filesystem::path fmu_base_;  // where relative FMU paths start
  PartitionedScenario s_;
  int default_hold_ = 0;
  InputPredictor default_predictor_;
  std::map<std::string, std::size_t> by_name_;
  std::set<std::string> coupled_ports_;  // "subsystem.port", as the couplings name them
  bool fmus_in_ssp_ = false;             // its FMUs come from an SSP archive
  std::vector<PartitionDraft> drafts_;
  // Source lines, for messages about what is found wrong only once everything is read.
  std::vector<std::uint32_t> subsystem_lines_;  // of each [[subsystem]]
  std::vector<std::uint32_t> h_lines_;          // of each partition's h
  std::vector<std::uint32_t> coupling_lines_;   // of each [[coupling]]
  // The bridge: inputs set by events (→ the line of their [[event_input]]), subsystems with
  // event outputs or inputs.
  std::map<std::pair<std::size_t, std::size_t>, std::uint32_t> held_;
  std::map<std::string, std::uint32_t> held_parameters_;  // "sub.parameter" → its line
  std::set<std::size_t> bridged_;
};

// The recipe of a composite of `members`; couplings with both ends among them become direct
// links.
CompositeRecipe recipe_of(const PartitionedScenario& s, const std::vector<std::size_t>& members) {
  CompositeRecipe recipe;
  std::map<std::size_t, std::size_t> local;  // subsystem → member index
  for (std::size_t m : members) {
    const auto& sub = s.subsystems[m];
    local[m] = recipe.members.size();
    for (const auto& [input, value] : sub.constant_inputs)
      recipe.constants.push_back(
          {recipe.members.size(), position(sub.signature.inputs, input), value});
    Parameters table_starts;  // each table's value at the start
    const Parameters& starts = table_starts;
    for (const auto& [input, table] : sub.input_tables) {
      table_starts.emplace_back(input, table(s.t0()));
      recipe.constants.push_back({recipe.members.size(), position(sub.signature.inputs, input),
                                  table_starts.back().second, table});
    }
    FmuSource fmu = sub.fmu;
    fmu.unpack_root = s.fmu_unpack_root;
    Parameters parameters = sub.parameters;
    // An FMU starts with its constant inputs (its initial outputs, a co-simulation FMU's
    // first row among them, may depend on them), unless the scenario gives it a start value.
    if (sub.model == "fmu")
      for (const Parameters* constants : {&sub.constant_inputs, &starts})
        for (const auto& constant : *constants)
          if (std::none_of(parameters.begin(), parameters.end(),
                           [&](const auto& given) { return given.first == constant.first; }))
            parameters.push_back(constant);
    recipe.members.push_back({sub.name, sub.model, std::move(parameters), fmu, sub.library});
  }
  for (const auto& c : s.couplings)
    if (local.count(c.from) && local.count(c.to))
      recipe.links.push_back({local[c.from], c.from_output, local[c.to], c.to_input});
  // Inputs set by events: in the order of the scenario's event inputs (the order of the
  // partition's held inputs, monitor/sync/partitioned_plan.cpp).
  if (s.bridge)
    for (const EventInputSpec& in : s.bridge->inputs)
      if (in.effect == EventEffect::set_input && local.count(in.subsystem))
        recipe.held.push_back({local[in.subsystem], in.index, in.parameter});
  return recipe;
}

}  // namespace

std::string EventInputSpec::target(const std::vector<SubsystemSpec>& subsystems) const {
  const SubsystemSpec& sub = subsystems.at(subsystem);
  if (!parameter.empty()) return sub.name + "." + parameter;
  return sub.name + "." +
         (effect == EventEffect::set_input ? sub.signature.inputs : sub.signature.states).at(index);
}

PartitionedScenario parse_partitioned_scenario(const std::string& text, const std::string& file,
                                               const ScenarioLimits& limits,
                                               const std::filesystem::path& fmu_base) {
  const toml::table root = parse_toml(text, file);
  return Reader(root, file, limits,
                fmu_base.empty() ? std::filesystem::path(file).parent_path() : fmu_base)
      .read();
}

PartitionedScenario load_partitioned_scenario(const std::filesystem::path& file,
                                              const ScenarioLimits& limits,
                                              const std::filesystem::path& fmu_base) {
  return parse_partitioned_scenario(scenario_text(file), file.string(), limits, fmu_base);
}

ScenarioKind scenario_kind(const std::filesystem::path& file) {
  const std::string name = file.string();
  if (is_ssp_archive(file)) return {true, name};
  const toml::table root = parse_toml(read_input_file(file, "scenario file"), name);
  if (const toml::node* sub = root.get("subsystem")) return {true, name + ":" + line_of(*sub)};
  if (const toml::node* ssp = root.get("ssp")) return {true, name + ":" + line_of(*ssp)};
  const toml::node* model = root.get("model");
  return {false, name + ":" + (model ? line_of(*model) : "1")};
}

bool is_partitioned_scenario(const std::filesystem::path& file) {
  return scenario_kind(file).partitioned;
}

CompositeRecipe partition_recipe(const PartitionedScenario& s, std::size_t partition) {
  return recipe_of(s, s.partitions.at(partition).members);
}

std::unique_ptr<CompositeModel> build_partition_model(const PartitionedScenario& s,
                                                      std::size_t partition) {
  return build_composite("system-" + s.partitions.at(partition).name,
                         partition_recipe(s, partition));
}

std::string first_stepping_itself(const PartitionedScenario& s) {
  for (const auto& sub : s.subsystems)
    if (sub.steps_itself) return sub.name;
  return {};
}

// Partition by partition, so that each partition's states form one block.
std::unique_ptr<CompositeModel> build_monolithic_model(const PartitionedScenario& s) {
  const std::string opaque = first_stepping_itself(s);
  if (!opaque.empty())
    throw InputError(s.file + ": subsystem '" + opaque +
                     "' steps itself and shows no equations, so the "
                     "model cannot be taken as one (kausal analyze needs its Jacobian)");
  std::vector<std::size_t> all;
  for (const auto& p : s.partitions) all.insert(all.end(), p.members.begin(), p.members.end());
  CompositeRecipe recipe = recipe_of(s, all);
  // A hybrid model's inputs that events set are held at their initial values (its parameters
  // at theirs): the model describes the continuous dynamics until the first event.
  if (s.bridge) {
    std::size_t k = 0;
    for (const EventInputSpec& in : s.bridge->inputs)
      if (in.effect == EventEffect::set_input) {
        if (in.parameter.empty())
          recipe.constants.push_back({recipe.held[k].member, recipe.held[k].input, in.initial});
        ++k;
      }
    recipe.held.clear();
  }
  return build_composite("monolithic model", recipe);
}

std::vector<StateBlock> partition_blocks(const PartitionedScenario& s) {
  std::vector<StateBlock> blocks;
  std::size_t offset = 0;
  for (const auto& p : s.partitions) {
    std::size_t size = 0;
    for (std::size_t m : p.members) size += s.subsystems[m].signature.states.size();
    blocks.push_back({p.name, offset, size});
    offset += size;
  }
  return blocks;
}

// The composite's open inputs come in member order, then input order; the couplings that
// cross into the partition are exactly those inputs.
std::vector<std::size_t> partition_inputs(const PartitionedScenario& s, std::size_t partition) {
  std::vector<std::size_t> out;
  for (std::size_t m : s.partitions.at(partition).members)
    for (std::size_t i = 0; i < s.subsystems[m].signature.inputs.size(); ++i)
      for (std::size_t c = 0; c < s.couplings.size(); ++c)
        if (s.couplings[c].to == m && s.couplings[c].to_input == i &&
            s.crosses_partitions(s.couplings[c]))
          out.push_back(c);
  return out;
}

}  // namespace kausal
