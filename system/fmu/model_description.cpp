#include "system/fmu/model_description.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <unordered_map>

#include <pugixml.hpp>

#include "common/errors.hpp"
#include "system/fmu/xml_reader.hpp"

namespace kausal::fmu {

namespace {

bool is_c_name(std::string_view s) {
  const auto letter = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (s.empty() || !letter(s[0])) return false;
  return std::all_of(s.begin(), s.end(),
                     [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

constexpr Keywords<Causality, 6> causalities{
    {{"parameter", Causality::parameter},
     {"calculatedParameter", Causality::calculated_parameter},
     {"input", Causality::input},
     {"output", Causality::output},
     {"local", Causality::local},
     {"independent", Causality::independent}}};
constexpr Keywords<Variability, 5> variabilities{{{"constant", Variability::constant},
                                                  {"fixed", Variability::fixed},
                                                  {"tunable", Variability::tunable},
                                                  {"discrete", Variability::discrete},
                                                  {"continuous", Variability::continuous}}};
constexpr Keywords<Initial, 3> initials{
    {{"exact", Initial::exact}, {"approx", Initial::approx}, {"calculated", Initial::calculated}}};
constexpr Keywords<ValueType, 5> type_elements{{{"Real", ValueType::real},
                                                {"Integer", ValueType::integer},
                                                {"Boolean", ValueType::boolean},
                                                {"String", ValueType::string},
                                                {"Enumeration", ValueType::enumeration}}};

std::string quoted(std::string_view name) {
  return "variable '" + std::string(name) + "'";
}

void read_header(XmlReader& r, const pugi::xml_node& root, ModelDescription& md) {
  const pugi::xml_attribute version = root.attribute("fmiVersion");
  if (!version) r.fail(root, "fmiModelDescription has no fmiVersion: kausal imports FMI 2.0");
  md.fmi_version = version.value();
  if (!std::string_view(md.fmi_version).starts_with("2.0"))
    r.fail(root, "fmiVersion is '" + md.fmi_version + "': kausal imports FMI 2.0");
  for (const char* required : {"modelName", "guid"})
    if (!root.attribute(required) || !*root.attribute(required).value())
      r.fail(root, std::string("fmiModelDescription has no ") + required);
  md.model_name = root.attribute("modelName").value();
  md.guid = root.attribute("guid").value();
  md.description = root.attribute("description").value();
  md.generation_tool = root.attribute("generationTool").value();
  md.event_indicators = static_cast<std::size_t>(
      r.integer(root, "numberOfEventIndicators", "fmiModelDescription", 0, max_event_indicators)
          .value_or(0));
}

KindInterface read_kind(XmlReader& r, const pugi::xml_node& e, FmuKind kind) {
  KindInterface k;
  const pugi::xml_attribute id = e.attribute("modelIdentifier");
  if (!id || !*id.value()) r.fail(e, std::string("<") + e.name() + "> has no modelIdentifier");
  k.model_identifier = id.value();
  // It names the shared object to load: a path in it would load something outside the FMU.
  if (!is_c_name(k.model_identifier))
    r.fail(e, "modelIdentifier '" + k.model_identifier + "' is not a C name");
  k.needs_execution_tool = r.flag(e, "needsExecutionTool");
  k.can_be_instantiated_only_once_per_process = r.flag(e, "canBeInstantiatedOnlyOncePerProcess");
  k.can_get_and_set_fmu_state = r.flag(e, "canGetAndSetFMUstate");
  k.can_serialize_fmu_state = r.flag(e, "canSerializeFMUstate");
  k.provides_directional_derivative = r.flag(e, "providesDirectionalDerivative");
  if (kind == FmuKind::model_exchange) {
    k.completed_integrator_step_not_needed = r.flag(e, "completedIntegratorStepNotNeeded");
    return k;
  }
  k.can_handle_variable_communication_step_size =
      r.flag(e, "canHandleVariableCommunicationStepSize");
  k.can_interpolate_inputs = r.flag(e, "canInterpolateInputs");
  k.max_output_derivative_order = static_cast<int>(
      r.integer(e, "maxOutputDerivativeOrder", "<CoSimulation>", 0, INT_MAX).value_or(0));
  return k;
}

void read_default_experiment(XmlReader& r, const pugi::xml_node& e, DefaultExperiment& d) {
  if (!e) return;
  const std::string what = "<DefaultExperiment>";
  d.start_time = r.real(e, "startTime", what);
  d.stop_time = r.real(e, "stopTime", what);
  d.tolerance = r.real(e, "tolerance", what);
  d.step_size = r.real(e, "stepSize", what);
  if (d.tolerance && !(*d.tolerance > 0)) r.fail(e, "tolerance of " + what + " must be > 0");
  if (d.step_size && !(*d.step_size > 0)) r.fail(e, "stepSize of " + what + " must be > 0");
}

// What a <SimpleType> gives the variables that declare it: a Real's unit, a Real's,
// Integer's or Enumeration's range.
struct DeclaredType {
  std::string_view unit;
  std::optional<double> min, max;
};
using DeclaredTypes = std::unordered_map<std::string_view, DeclaredType>;

// The min= and max= of a type element (a variable's or a SimpleType's), as numbers; a range
// whose min is above its max is refused.
void read_range(XmlReader& r, const pugi::xml_node& e, ValueType type, const std::string& what,
                std::optional<double>& min, std::optional<double>& max) {
  const auto bound = [&](const char* attr) -> std::optional<double> {
    if (type == ValueType::real) return r.real(e, attr, what);
    if (auto v = r.integer(e, attr, what, INT_MIN, INT_MAX)) return static_cast<double>(*v);
    return std::nullopt;
  };
  if (type != ValueType::real && type != ValueType::integer && type != ValueType::enumeration)
    return;
  if (auto v = bound("min")) min = v;
  if (auto v = bound("max")) max = v;
  if (min && max && *min > *max) r.fail(e, "min of " + what + " is above its max");
}

DeclaredTypes declared_types(XmlReader& r, const pugi::xml_node& defs) {
  DeclaredTypes types;
  for (const pugi::xml_node& t : defs.children("SimpleType")) {
    const std::string what = "type '" + std::string(t.attribute("name").value()) + "'";
    for (const pugi::xml_node& e : t.children()) {
      const auto type = type_elements.find(e.name());
      if (!type) continue;
      DeclaredType d;
      if (*type == ValueType::real) d.unit = e.attribute("unit").value();
      read_range(r, e, *type, what, d.min, d.max);
      types.emplace(t.attribute("name").value(), d);
    }
  }
  return types;
}

pugi::xml_node type_element(XmlReader& r, const pugi::xml_node& sv, const std::string& what,
                            ValueType& type) {
  pugi::xml_node found;
  for (const pugi::xml_node& child : sv.children()) {
    if (child.type() != pugi::node_element) continue;
    const auto t = type_elements.find(child.name());
    if (!t) continue;
    if (found) r.fail(child, what + " has two type elements");
    found = child;
    type = *t;
  }
  if (!found) r.fail(sv, what + " has no type element (" + type_elements.list() + ")");
  return found;
}

void read_start(XmlReader& r, const pugi::xml_node& t, const std::string& what, Variable& v) {
  switch (v.type) {
    case ValueType::real:
      v.start = r.real(t, "start", what);
      break;
    case ValueType::integer:
    case ValueType::enumeration:
      if (auto s = r.integer(t, "start", what, INT_MIN, INT_MAX)) v.start = static_cast<double>(*s);
      break;
    case ValueType::boolean:
      if (const pugi::xml_attribute a = t.attribute("start")) {
        const auto b = parse_bool(a.value());
        if (!b) r.fail(t, "start of " + what + " is not true or false: '" + a.value() + "'");
        v.start = *b ? 1.0 : 0.0;
      }
      break;
    case ValueType::string:
      if (const pugi::xml_attribute a = t.attribute("start")) v.text_start = a.value();
      break;
  }
}

// The derivative= of a Real, 1-based as in the file; checked once all variables are known.
struct PendingDerivative {
  std::size_t variable;
  long long index;
  int line;
};

Variable read_variable(XmlReader& r, const pugi::xml_node& sv, const DeclaredTypes& types,
                       std::vector<PendingDerivative>& derivatives, std::size_t index) {
  Variable v;
  v.line = r.line(sv);
  const pugi::xml_attribute name = sv.attribute("name");
  if (!name || !*name.value()) r.fail(sv, "ScalarVariable has no name");
  v.name = name.value();
  const std::string what = quoted(v.name);
  const auto vr = r.integer(sv, "valueReference", what, 0, UINT_MAX);
  if (!vr) r.fail(sv, what + " has no valueReference");
  v.value_reference = static_cast<unsigned>(*vr);
  v.causality = r.keyword(sv, "causality", what, causalities).value_or(Causality::local);
  v.variability =
      r.keyword(sv, "variability", what, variabilities).value_or(Variability::continuous);
  v.initial = r.keyword(sv, "initial", what, initials).value_or(Initial::unspecified);
  v.description = sv.attribute("description").value();
  const pugi::xml_node t = type_element(r, sv, what, v.type);
  read_start(r, t, what, v);
  const auto declared = types.find(t.attribute("declaredType").value());
  if (declared != types.end()) v.min = declared->second.min, v.max = declared->second.max;
  read_range(r, t, v.type, what, v.min, v.max);
  if (v.type != ValueType::real) return v;
  v.unit = t.attribute("unit").value();
  if (v.unit.empty() && declared != types.end()) v.unit = declared->second.unit;
  if (auto d = r.integer(t, "derivative", what, LLONG_MIN, LLONG_MAX))
    derivatives.push_back({index, *d, r.line(t)});
  return v;
}

void read_variables(XmlReader& r, const pugi::xml_node& root, ModelDescription& md) {
  const DeclaredTypes types = declared_types(r, root.child("TypeDefinitions"));
  std::unordered_map<std::string_view, std::size_t> by_name;
  std::vector<PendingDerivative> derivatives;
  for (const pugi::xml_node& sv : root.child("ModelVariables").children("ScalarVariable")) {
    if (md.variables.size() == max_variables)
      r.fail(sv, "more than " + std::to_string(max_variables) + " variables");
    md.variables.push_back(read_variable(r, sv, types, derivatives, md.variables.size()));
    const auto [it, fresh] = by_name.emplace(sv.attribute("name").value(), md.variables.size() - 1);
    if (!fresh)
      r.fail(sv, quoted(md.variables.back().name) + " is declared twice (first on line " +
                     std::to_string(md.variables[it->second].line) + ")");
  }
  const std::size_t n = md.variables.size();
  for (const auto& d : derivatives) {
    const std::string what =
        "derivative=" + std::to_string(d.index) + " of " + quoted(md.variables[d.variable].name);
    if (d.index < 1 || static_cast<std::size_t>(d.index) > n)
      r.fail_at_line(d.line, what + " is out of range (1.." + std::to_string(n) + ")");
    const std::size_t state = static_cast<std::size_t>(d.index) - 1;
    if (state == d.variable) r.fail_at_line(d.line, what + " names the variable itself");
    if (md.variables[state].type != ValueType::real)
      r.fail_at_line(d.line, what + " names " + quoted(md.variables[state].name) + ", not a Real");
    md.variables[d.variable].derivative_of = state;
  }
}

std::size_t variable_index(XmlReader& r, const pugi::xml_node& e, const std::string& text,
                           std::size_t n, const char* what) {
  const std::string where = std::string(what) + " '" + text + "' in <" + e.parent().name() + ">";
  const auto i = parse_integer(text, LLONG_MIN, LLONG_MAX);
  if (!i) r.fail(e, where + " is not a number");
  if (*i < 1 || static_cast<unsigned long long>(*i) > n)
    r.fail(e, where + " is out of range (1.." + std::to_string(n) + ")");
  return static_cast<std::size_t>(*i) - 1;
}

std::vector<std::size_t> dependency_list(XmlReader& r, const pugi::xml_node& e,
                                         std::string_view list, std::size_t n) {
  std::vector<std::size_t> out;
  std::size_t at = 0;
  while (at < list.size()) {
    const std::size_t begin = list.find_first_not_of(" \t\r\n", at);
    if (begin == std::string_view::npos) break;
    std::size_t end = list.find_first_of(" \t\r\n", begin);
    if (end == std::string_view::npos) end = list.size();
    out.push_back(variable_index(r, e, std::string(list.substr(begin, end - begin)), n,
                                 "dependencies entry"));
    at = end;
  }
  return out;
}

std::vector<Unknown> read_unknowns(XmlReader& r, const pugi::xml_node& list, std::size_t n) {
  std::vector<Unknown> out;
  for (const pugi::xml_node& e : list.children("Unknown")) {
    Unknown u;
    u.line = r.line(e);
    const pugi::xml_attribute index = e.attribute("index");
    if (!index) r.fail(e, std::string("<Unknown> of <") + list.name() + "> has no index");
    u.variable = variable_index(r, e, index.value(), n, "index");
    if (const pugi::xml_attribute deps = e.attribute("dependencies"))
      u.dependencies = dependency_list(r, e, deps.value(), n);
    out.push_back(std::move(u));
  }
  return out;
}

void read_structure(XmlReader& r, const pugi::xml_node& s, ModelDescription& md) {
  const std::size_t n = md.variables.size();
  md.outputs = read_unknowns(r, s.child("Outputs"), n);
  md.derivatives = read_unknowns(r, s.child("Derivatives"), n);
  md.initial_unknowns = read_unknowns(r, s.child("InitialUnknowns"), n);
  for (const Unknown& u : md.outputs)
    if (md.variables[u.variable].causality != Causality::output)
      r.fail_at_line(u.line, "<Outputs> lists " + quoted(md.variables[u.variable].name) +
                                 ", whose causality is not output");
  for (const Unknown& u : md.derivatives)
    if (!md.variables[u.variable].derivative_of)
      r.fail_at_line(u.line, "<Derivatives> lists " + quoted(md.variables[u.variable].name) +
                                 ", which has no derivative= (of which state?)");
}

}  // namespace

ModelDescription parse_model_description(std::string_view xml, const std::string& file) {
  XmlReader r(xml, file);
  pugi::xml_document doc;
  const pugi::xml_node root = r.root_of(doc, "fmiModelDescription", "fmiModelDescription");

  ModelDescription md;
  md.file = file;
  read_header(r, root, md);
  if (const pugi::xml_node me = root.child("ModelExchange"))
    md.model_exchange = read_kind(r, me, FmuKind::model_exchange);
  if (const pugi::xml_node cs = root.child("CoSimulation"))
    md.co_simulation = read_kind(r, cs, FmuKind::co_simulation);
  if (!md.model_exchange && !md.co_simulation)
    r.fail(root, "neither <ModelExchange> nor <CoSimulation>: the FMU offers nothing to run");
  read_default_experiment(r, root.child("DefaultExperiment"), md.default_experiment);
  read_variables(r, root, md);
  read_structure(r, root.child("ModelStructure"), md);
  return md;
}

std::vector<std::size_t> ModelDescription::states() const {
  std::vector<std::size_t> out;
  out.reserve(derivatives.size());
  for (const Unknown& d : derivatives)
    if (d.variable < variables.size() && variables[d.variable].derivative_of)
      out.push_back(*variables[d.variable].derivative_of);
  return out;
}

const Variable* ModelDescription::find(std::string_view name) const {
  for (const Variable& v : variables)
    if (v.name == name) return &v;
  return nullptr;
}

const KindInterface& ModelDescription::interface_of(FmuKind k) const {
  const auto& i = k == FmuKind::model_exchange ? model_exchange : co_simulation;
  if (!i)
    throw InputError(
        file + ": the FMU does not support " + to_string(k) + " (it offers " +
        to_string(k == FmuKind::model_exchange ? FmuKind::co_simulation : FmuKind::model_exchange) +
        " only)");
  return *i;
}

Initial effective_initial(const Variable& v) {
  if (v.initial != Initial::unspecified) return v.initial;
  switch (v.causality) {
    case Causality::parameter:
      return Initial::exact;
    case Causality::calculated_parameter:
      return Initial::calculated;
    case Causality::input:
    case Causality::independent:
      return Initial::unspecified;
    case Causality::output:
    case Causality::local:
      return v.variability == Variability::constant ? Initial::exact : Initial::calculated;
  }
  return Initial::unspecified;
}

const char* to_string(Causality c) {
  switch (c) {
    case Causality::parameter:
      return "parameter";
    case Causality::calculated_parameter:
      return "calculatedParameter";
    case Causality::input:
      return "input";
    case Causality::output:
      return "output";
    case Causality::local:
      return "local";
    case Causality::independent:
      return "independent";
  }
  return "?";
}

const char* to_string(Variability v) {
  switch (v) {
    case Variability::constant:
      return "constant";
    case Variability::fixed:
      return "fixed";
    case Variability::tunable:
      return "tunable";
    case Variability::discrete:
      return "discrete";
    case Variability::continuous:
      return "continuous";
  }
  return "?";
}

const char* to_string(ValueType t) {
  switch (t) {
    case ValueType::real:
      return "Real";
    case ValueType::integer:
      return "Integer";
    case ValueType::boolean:
      return "Boolean";
    case ValueType::string:
      return "String";
    case ValueType::enumeration:
      return "Enumeration";
  }
  return "?";
}

const char* to_string(FmuKind k) {
  return k == FmuKind::model_exchange ? "model exchange" : "co-simulation";
}

}  // namespace kausal::fmu
